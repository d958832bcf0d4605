// Bit operations on byte strings, as Redis's bitmap commands see them: bit 0 is the most
// significant bit of byte 0, and a string reads as zero past its end.
//
// - CountBits / CountBitsInRange: BITCOUNT (popcount over 64-bit words: AVX-512
//   VPOPCNTDQ, an AVX2 nibble table or the POPCNT instruction, whichever the CPU has,
//   picked once at run time).
// - FindBit: BITPOS, skipping 32-byte blocks without the wanted bit, then eight bytes
//   per step (big-endian loads, count leading zeros).
// - ApplyBitOp: BITOP AND/OR/XOR/NOT and Redis 8.2's DIFF/DIFF1/ANDOR/ONE.
// - GetBitfield / SetBitfield / ResolveBitfield: BITFIELD's fields of 1..64 bits at any
//   bit offset, and its WRAP/SAT/FAIL overflow rules.
//
// Pure functions over caller-owned memory. Thread safety: none needed (no state besides
// the CPU dispatch chosen once, thread-safely, on first use).

#ifndef HOTKV_TYPES_BITOPS_H_
#define HOTKV_TYPES_BITOPS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::types {

// Set bits in p[0, n).
uint64_t CountBits(const uint8_t* p, size_t n);
// For tests: each popcount implementation this CPU can run, by name (CountBits uses the
// first).
using CountBitsFn = uint64_t (*)(const uint8_t*, size_t);
std::vector<std::pair<std::string, CountBitsFn>> CountBitsImplementations();
// Set bits among bits [first, last] of p (inclusive); requires first <= last and last
// inside the buffer.
uint64_t CountBitsInRange(const uint8_t* p, uint64_t first, uint64_t last);

// The first bit equal to `bit` among bits [first, last] of p (inclusive, inside the
// buffer), as an absolute bit index; -1 when there is none.
int64_t FindBit(const uint8_t* p, uint64_t first, uint64_t last, bool bit);

enum class BitOp { kAnd, kOr, kXor, kNot, kDiff, kDiff1, kAndOr, kOne };

// Parses BITOP's operation name (any case); nullopt if unknown.
std::optional<BitOp> ParseBitOp(std::string_view name);
// Fewest source keys the operation takes (NOT takes exactly one).
size_t BitOpMinSources(BitOp op);

// The result of `op` over `srcs`, each zero-padded to the longest; its length is the
// longest source's. NOT takes one source. DIFF: first AND NOT (OR of the others); DIFF1:
// (NOT first) AND (OR of the others); ANDOR: first AND (OR of the others); ONE: the bits
// set in exactly one source.
std::string ApplyBitOp(BitOp op, const std::vector<std::string_view>& srcs);

// BITFIELD. The raw `bits`-wide field (1..64) at bit `offset` of p[0, len), bytes past
// len reading as zero, in the low bits of the result.
uint64_t GetBitfield(const uint8_t* p, size_t len, uint64_t offset, int bits);
// Writes the low `bits` bits of `value` at bit `offset`; p must hold offset + bits bits.
void SetBitfield(uint8_t* p, uint64_t offset, int bits, uint64_t value);
// The field's raw bits read as a two's complement number of `bits` bits.
int64_t SignExtend(uint64_t raw, int bits);

enum class BitfieldOverflow { kWrap, kSat, kFail };

// What to store in a field of `bits` bits (signed or not) for `value` plus `incr`: INCRBY
// passes the field's value and the increment, SET its argument and 0 (an unsigned field
// takes the argument's 64 bits as unsigned, so -1 is a huge number). In range: the sum.
// Out of range: WRAP keeps its low bits, SAT the nearest limit, FAIL nullopt. Overflow is
// decided exactly as Redis's check*BitfieldOverflow does, 64-bit wrap-around included (a
// signed SET of a value far below the minimum saturates to the maximum there, and so
// here). Returns the field's value (sign-extended for signed fields).
std::optional<int64_t> ResolveBitfield(bool is_signed, int bits, int64_t value, int64_t incr,
                                       BitfieldOverflow overflow);

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_BITOPS_H_

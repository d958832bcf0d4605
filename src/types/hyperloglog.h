// HyperLogLog in Redis's exact byte representation, so that a value copied from Redis
// (GET/SET, DUMP/RESTORE, RDB) counts the same and PFCOUNT equals Redis's estimate.
//
// A HyperLogLog is a string value:
//   [ "HYLL" | encoding (0 dense, 1 sparse) | 3 unused bytes | cached cardinality, 8 bytes
//     little-endian, bit 7 of the last byte set = cache invalid ] [ registers ... ]
// 16384 registers (P = 14) of 6 bits. Dense: the registers packed LSB first, 12288 bytes.
// Sparse: run-length opcodes, ZERO 00xxxxxx (1-64 zero registers), XZERO 01xxxxxx
// yyyyyyyy (1-16384 zero registers), VAL 1vvvvvxx (1-4 registers of value 1-32). A sparse
// HLL becomes dense when a register exceeds 32 or the value would grow past
// `hll-sparse-max-bytes`. Elements are hashed with MurmurHash64A (seed 0xadc83b19); the
// cardinality is Ertl's estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches") over the register histogram, computed in double exactly as Redis
// does, so the result is the same bit for bit.
//
// Every function reproduces the byte-level result of Redis's algorithm (where opcodes are
// split and merged), because GET exposes the bytes.
//
// Thread safety: pure functions over caller-owned bytes; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/random.h"

namespace hotkv::types::hll {

inline constexpr size_t kHeaderSize = 16;
inline constexpr int kP = 14;
inline constexpr int kRegisters = 1 << kP;
inline constexpr int kBits = 6;
inline constexpr size_t kDenseSize = kHeaderSize + (kRegisters * kBits + 7) / 8;
inline constexpr uint8_t kDense = 0;
inline constexpr uint8_t kSparse = 1;
inline constexpr int kSparseValMax = 32;

// MurmurHash64A as Redis uses it (little-endian reads of 8-byte blocks).
uint64_t MurmurHash64A(const void* key, int len, uint64_t seed);

// The register an element maps to and its pattern length (1..51).
int PatternLength(std::string_view element, int* reg);

// Redis's checks of a string before treating it as an HLL: at least a header, "HYLL",
// an encoding of 0 or 1, and a dense value of exactly kDenseSize bytes.
bool IsValid(std::string_view v);

// A new empty HLL as PFADD/PFMERGE create it: sparse, one XZERO opcode (18 bytes), cache
// valid and 0.
std::string NewSparse();

inline uint8_t Encoding(std::string_view v) { return static_cast<uint8_t>(v[4]); }

// Cached cardinality.
inline bool CacheValid(std::string_view v) { return (static_cast<uint8_t>(v[15]) & 0x80) == 0; }
uint64_t CachedCard(std::string_view v);
void StoreCard(char* value, uint64_t card);
inline void InvalidateCache(char* value) { value[15] = static_cast<char>(value[15] | 0x80); }

// Dense registers (`regs` points just past the header).
uint8_t DenseGet(const uint8_t* regs, int index);
void DenseSetRaw(uint8_t* regs, int index, uint8_t value);
// Raises register `index` to `count`; returns whether it changed.
bool DenseSet(uint8_t* regs, int index, uint8_t count);

// Adds an element to a dense HLL in place (`value` has kDenseSize bytes): 1 if a register
// changed, else 0.
int DenseAdd(char* value, std::string_view element);

// Raises register `index` to `count` in an HLL of either encoding, promoting a sparse one
// to dense as Redis does. Returns 1 changed, 0 unchanged, -1 corrupt.
int SetRegister(std::string* hll, int index, uint8_t count, size_t sparse_max_bytes);

// PFADD of one element: 1 changed, 0 unchanged, -1 corrupt.
int Add(std::string* hll, std::string_view element, size_t sparse_max_bytes);

// Converts a sparse HLL to dense (header kept, cache bytes included); no-op on a dense
// one. False when the sparse data is corrupt (the value is then unchanged).
bool SparseToDense(std::string* hll);

// max[i] = MAX(max[i], register i) over a valid HLL; false when corrupt.
bool MergeInto(std::string_view hll, uint8_t* max);

// The cardinality estimate of a valid HLL (ignoring the cache); nullopt when a sparse
// HLL does not cover exactly kRegisters registers.
std::optional<uint64_t> Count(std::string_view hll);
// The estimate of kRegisters plain byte registers (PFCOUNT of several keys).
uint64_t CountRaw(const uint8_t* registers);

// The histogram of a dense HLL's registers (`regs`: the kDenseSize - kHeaderSize bytes
// after the header): reghisto[v] = registers equal to v, v < 64. DenseHistogram uses
// AVX-512 VBMI where the CPU has it and SIMD is on (the default; PFDEBUG SIMD OFF turns it
// off, as in Redis 8), else the portable code; both give the same counts.
void DenseHistogram(const uint8_t* regs, int* reghisto);
void DenseHistogramPortable(const uint8_t* regs, int* reghisto);
bool DenseHistogramVbmi(const uint8_t* regs, int* reghisto);  // false: not on this CPU
void SetSimd(bool on);

// Writes max[] (kRegisters bytes) into the HLL as PFMERGE does: register by register in
// ascending order through SetRegister (so a sparse destination gets Redis's opcodes).
// False when corrupt.
bool WriteRegisters(std::string* hll, const uint8_t* max, size_t sparse_max_bytes);

// PFDEBUG DECODE: "z:len", "Z:len", "v:value,len" separated by spaces.
std::string DecodeSparse(std::string_view hll);

// PFSELFTEST's checks (register access, dense/sparse agreement, error bounds); an empty
// string when they pass, else the error reply.
std::string SelfTest(Rng& rng);

}  // namespace hotkv::types::hll

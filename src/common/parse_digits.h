// ParseDigits: the value of a run of ASCII decimal digits, eight at a time. Used by
// ParseInt64 / ParseDouble (common/string_util.cc) and the stream codec's integer items.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hotkv {

// The value of n ASCII decimal digits at p (n <= 19, so it cannot overflow); false if
// one of them is not a digit. Leading zeros are the caller's business. Eight digits at a
// time (SWAR): a 9-digit SETBIT offset or an 8-digit stream value costs a few dozen
// instructions instead of a check-and-multiply per digit.
inline bool ParseDigits(const char* p, size_t n, uint64_t* out) {
  uint64_t v = 0;
  size_t i = 0;
  for (const size_t head = n & 7; i < head; i++) {
    const unsigned d = static_cast<unsigned char>(p[i]) - '0';
    if (d > 9) {
      return false;
    }
    v = v * 10 + d;
  }
  for (; i < n; i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, p + i, 8);  // little-endian: the first digit in the low byte
    // Every byte is 0x30..0x39: its high nibble is 3 and adding 6 leaves it 3 (a byte
    // that carries into the next one fails its own test).
    if (((w & 0xF0F0F0F0F0F0F0F0ULL) |
         (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
        0x3333333333333333ULL) {
      return false;
    }
    w -= 0x3030303030303030ULL;
    w = w * 10 + (w >> 8);  // pairs of digits in every other byte
    w = (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
         (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
        32;
    v = v * 100000000 + static_cast<uint32_t>(w);
  }
  *out = v;
  return true;
}

}  // namespace hotkv

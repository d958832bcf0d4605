// A fast per-thread pseudo-random generator (xoshiro256**), seeded from the clock and
// the thread. For RANDOMKEY, SRANDMEMBER and the like; not for anything secret.
#pragma once

#include <cstdint>

namespace hotkv {

class FastRandom {
 public:
  explicit FastRandom(uint64_t seed);
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n).
  uint64_t Uniform(uint64_t n) { return n == 0 ? 0 : static_cast<uint64_t>((static_cast<__uint128_t>(Next()) * n) >> 64); }
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// This thread's generator.
FastRandom& ThreadRandom();

}  // namespace hotkv

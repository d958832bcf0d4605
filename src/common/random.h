// Rng: the server's one pseudo-random generator (xoshiro256**), one per thread.
//
// Every random choice — RANDOMKEY, SRANDMEMBER/HRANDFIELD/ZRANDMEMBER, SPOP, eviction
// sampling, the LFU counter's logarithmic increment, VRANDMEMBER — draws from the calling
// thread's generator, ThreadRng(): no lock and no shared state (glibc's random() takes a
// process-wide lock). Code that makes random choices takes an `Rng&` from its caller, so
// tests can seed one and get repeatable runs. Fast and statistically good; not
// cryptographic (neither is Redis's).
//
//   hotkv::Rng rng(42);                       // deterministic, for tests
//   set.RandomMembers(-5, rng, emit);
//   set.RandomMembers(-5, hotkv::ThreadRng(), emit);  // the server
//
// Rng also meets the standard's UniformRandomBitGenerator requirements, so it works with
// std::shuffle and the <random> distributions.
//
// Thread safety: an Rng is not synchronised; ThreadRng() returns this thread's own.
#pragma once

#include <cstdint>
#include <limits>

namespace hotkv {

class Rng {
 public:
  using result_type = uint64_t;

  explicit Rng(uint64_t seed);

  // A uniformly distributed 64-bit value.
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
  // Uniform in [0, n), without bias (Lemire's multiply-shift with rejection); 0 when n
  // is 0.
  uint64_t Below(uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(Next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(Next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [0, 1).
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // UniformRandomBitGenerator.
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
  uint64_t operator()() { return Next(); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// This thread's generator, seeded once per thread from RandomSeed().
Rng& ThreadRng();

// 64 bits from the operating system's entropy source (std::random_device), for seeds:
// the generators', and the per-process hash seeds that keep clients from aiming keys or
// fields at one bucket.
uint64_t RandomSeed();

}  // namespace hotkv

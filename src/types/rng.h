// Rng: the random source of the collection types (HRANDFIELD, SRANDMEMBER, SPOP).
//
// Every operation that makes a random choice takes an `Rng&` from its caller, so tests
// can seed it and get repeatable runs. The server passes Rng::ThreadLocal(), one
// generator per thread seeded from std::random_device. The generator is xoshiro256**:
// fast and statistically good, not cryptographic (neither is Redis's).
//
//   hotkv::types::Rng rng(42);                 // deterministic, for tests
//   set.RandomMembers(-5, rng, emit);
//   set.RandomMembers(-5, hotkv::types::Rng::ThreadLocal(), emit);  // server
//
// Thread safety: an Rng is not synchronised; ThreadLocal() returns one per thread.

#ifndef HOTKV_TYPES_RNG_H_
#define HOTKV_TYPES_RNG_H_

#include <cstdint>

namespace hotkv::types {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // A uniformly distributed 64-bit value.
  uint64_t Next();

  // A uniformly distributed value in [0, n); n must be > 0.
  uint64_t Below(uint64_t n);

  // This thread's generator, seeded once from std::random_device.
  static Rng& ThreadLocal();

 private:
  uint64_t state_[4];
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_RNG_H_

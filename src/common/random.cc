#include "common/random.h"

#include <pthread.h>

#include "common/clock.h"

namespace hotkv {

FastRandom::FastRandom(uint64_t seed) {
  // splitmix64 to spread the seed over the state.
  for (auto& s : s_) {
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s = z ^ (z >> 31);
  }
}

FastRandom& ThreadRandom() {
  thread_local FastRandom rng(static_cast<uint64_t>(MonotonicNs()) ^
                              reinterpret_cast<uint64_t>(pthread_self()));
  return rng;
}

}  // namespace hotkv

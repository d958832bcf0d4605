#include "common/random.h"

#include <random>

namespace hotkv {

Rng::Rng(uint64_t seed) {
  // splitmix64 to spread the seed over the state.
  for (auto& s : s_) {
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s = z ^ (z >> 31);
  }
}

Rng& ThreadRng() {
  thread_local Rng rng(RandomSeed());
  return rng;
}

uint64_t RandomSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace hotkv

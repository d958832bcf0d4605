#include "types/member_hash.h"

#include <atomic>
#include <cstring>

#include "common/random.h"

namespace hotkv::types {
namespace {

constexpr uint64_t kP0 = 0xa0761d6478bd642fULL;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbULL;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ULL;

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t Load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Zero-initialised before any dynamic initialiser runs, so a test's static initialiser
// may set it safely.
std::atomic<uint64_t> pinned_seed{0};
std::atomic<bool> seed_chosen{false};

uint64_t ProcessSeed() {
  static const uint64_t seed = [] {
    seed_chosen.store(true);
    if (const uint64_t pinned = pinned_seed.load(); pinned != 0) {
      return pinned;
    }
    return RandomSeed();
  }();
  return seed;
}

}  // namespace

uint64_t HashBytes(std::string_view bytes, uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t len = bytes.size();
  uint64_t state = seed ^ Mix(seed ^ kP0, kP1);
  uint64_t a = 0;
  uint64_t b = 0;
  if (len <= 16) {
    if (len >= 4) {
      // Two overlapping 4-byte reads from each end cover every byte.
      const size_t shift = (len >> 3) << 2;
      a = (Load32(p) << 32) | Load32(p + shift);
      b = (Load32(p + len - 4) << 32) | Load32(p + len - 4 - shift);
    } else if (len > 0) {
      a = (static_cast<uint64_t>(p[0]) << 16) | (static_cast<uint64_t>(p[len >> 1]) << 8) |
          p[len - 1];
    }
  } else {
    size_t remaining = len;
    while (remaining > 16) {
      state = Mix(Load64(p) ^ kP1, Load64(p + 8) ^ state);
      p += 16;
      remaining -= 16;
    }
    a = Load64(p + remaining - 16);
    b = Load64(p + remaining - 8);
  }
  return Mix(kP2 ^ len, Mix(a ^ kP1, b ^ state));
}

uint64_t HashString(std::string_view bytes) { return HashBytes(bytes, ProcessSeed()); }

bool PinHashSeedForTesting(uint64_t seed) {
  if (seed_chosen.load()) {
    return false;
  }
  pinned_seed.store(seed == 0 ? 1 : seed);
  return true;
}

}  // namespace hotkv::types

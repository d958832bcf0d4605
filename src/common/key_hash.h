// Key hashing: the cluster slot (CRC16 of the key or its {hash tag}, as Redis Cluster
// defines it) chooses the shard; a 64-bit hash chooses the bucket inside a shard's table.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace hotkv {

inline constexpr uint32_t kClusterSlots = 16384;

// CRC16-CCITT (XMODEM), the function Redis Cluster uses for slots.
uint16_t Crc16(const char* data, size_t len);

// The slot of a key: CRC16 of the substring between the first '{' and the next '}' when
// that substring is non-empty, otherwise of the whole key; modulo 16384.
uint32_t KeySlot(std::string_view key);

// Process-wide seed for HashKey, randomised at start-up so that clients cannot choose
// keys that all collide.
void SetHashSeed(uint64_t seed);
extern uint64_t g_hash_seed;

namespace hashing_internal {
inline uint64_t Mix(uint64_t a, uint64_t b) {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
inline uint64_t Load64(const char* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
}  // namespace hashing_internal

// A fast 64-bit hash (multiply-fold over 16-byte steps, in the spirit of wyhash).
inline uint64_t HashBytes(const char* p, size_t len, uint64_t seed) {
  using namespace hashing_internal;
  constexpr uint64_t k0 = 0xa0761d6478bd642full;
  constexpr uint64_t k1 = 0xe7037ed1a0b428dbull;
  constexpr uint64_t k2 = 0x8ebc6af09c88c6e3ull;
  seed ^= k0;
  uint64_t a;
  uint64_t b;
  if (len <= 16) {
    if (len >= 4) {
      a = (Load32(p) << 32) | Load32(p + ((len >> 3) << 2));
      b = (Load32(p + len - 4) << 32) | Load32(p + len - 4 - ((len >> 3) << 2));
    } else if (len > 0) {
      a = (static_cast<uint64_t>(static_cast<unsigned char>(p[0])) << 16) |
          (static_cast<uint64_t>(static_cast<unsigned char>(p[len >> 1])) << 8) |
          static_cast<unsigned char>(p[len - 1]);
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t i = len;
    while (i > 16) {
      seed = Mix(Load64(p) ^ k1, Load64(p + 8) ^ seed);
      p += 16;
      i -= 16;
    }
    a = Load64(p + i - 16);
    b = Load64(p + i - 8);
  }
  return Mix(k1 ^ len, Mix(a ^ k1, b ^ seed) ^ k2);
}

inline uint64_t HashKey(std::string_view key) {
  return HashBytes(key.data(), key.size(), g_hash_seed);
}

}  // namespace hotkv

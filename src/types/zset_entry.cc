#include "types/zset_entry.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "common/random.h"

namespace hotkv::types {

namespace {

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// 64x64 -> 128 multiply folded to 64 bits: the mixing step of the wyhash family.
inline uint64_t Fold(uint64_t a, uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;
constexpr uint64_t kP3 = 0x589965cc75374cc3ull;

uint64_t HashBytes(const char* p, size_t n, uint64_t seed) {
  uint64_t h = seed ^ kP0;
  const size_t len = n;
  while (n > 16) {
    h = Fold(Load64(p) ^ kP1, Load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0;
  uint64_t b = 0;
  if (n > 8) {
    a = Load64(p);
    b = Load64(p + n - 8);
  } else if (n >= 4) {
    a = Load32(p);
    b = Load32(p + n - 4);
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const uint8_t*>(p);
    a = (uint64_t{u[0]} << 16) | (uint64_t{u[n / 2]} << 8) | u[n - 1];
  }
  h = Fold(a ^ kP1 ^ len, b ^ h ^ kP2);
  return Fold(h ^ kP3, len ^ kP0);
}

uint64_t MakeSeed() { return RandomSeed(); }

[[noreturn]] void OutOfMemory(size_t size) {
  std::fprintf(stderr, "hotkv: zset: out of memory allocating %zu bytes\n", size);
  std::abort();
}

}  // namespace

void* ZMalloc(size_t size) {
  void* p = std::malloc(size);
  if (p == nullptr) {
    OutOfMemory(size);
  }
  return p;
}

void* ZCalloc(size_t count, size_t size) {
  void* p = std::calloc(count, size);
  if (p == nullptr) {
    OutOfMemory(count * size);
  }
  return p;
}

void* ZRealloc(void* ptr, size_t size) {
  void* p = std::realloc(ptr, size);
  if (p == nullptr) {
    OutOfMemory(size);
  }
  return p;
}

size_t ZAllocatedBytes(const void* ptr) {
  return ptr == nullptr ? 0 : malloc_usable_size(const_cast<void*>(ptr));
}

ZEntry* ZEntry::Create(std::string_view member, double score) {
  const size_t len = member.size();
  const size_t header = VarintSize(len);
  void* mem = ZMalloc(sizeof(double) + header + len);
  auto* entry = new (mem) ZEntry(score);
  auto* p = static_cast<uint8_t*>(mem) + sizeof(double);
  uint64_t v = len;
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  if (len > 0) {
    std::memcpy(p, member.data(), len);
  }
  return entry;
}

void ZEntry::Destroy(ZEntry* entry) { std::free(entry); }

size_t ZEntry::AllocatedBytes() const { return ZAllocatedBytes(this); }

std::string_view ZEntry::SlowMember(const uint8_t* p) {
  uint64_t len = 0;
  int shift = 0;
  while (*p & 0x80) {
    len |= static_cast<uint64_t>(*p & 0x7f) << shift;
    shift += 7;
    ++p;
  }
  len |= static_cast<uint64_t>(*p) << shift;
  return {reinterpret_cast<const char*>(p + 1), static_cast<size_t>(len)};
}

uint64_t ZHashSeed() {
  static const uint64_t seed = MakeSeed();
  return seed;
}

uint64_t ZHashMember(std::string_view member) {
  static const uint64_t seed = ZHashSeed();
  return HashBytes(member.data(), member.size(), seed);
}

}  // namespace hotkv::types

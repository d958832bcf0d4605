#include "common/key_hash.h"

#include <immintrin.h>

#include <array>
#include <cstring>

namespace hotkv {

uint64_t g_hash_seed = 0x9e3779b97f4a7c15ull;

void SetHashSeed(uint64_t seed) { g_hash_seed = seed; }

namespace {

constexpr std::array<uint16_t, 256> MakeCrc16Table() {
  std::array<uint16_t, 256> table{};
  for (int i = 0; i < 256; i++) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint16_t, 256> kCrc16Table = MakeCrc16Table();

// Slicing-by-8: kSlice[k][x] is the CRC state after byte x followed by k zero bytes, so
// eight input bytes fold into the 16-bit state with eight independent table reads.
constexpr std::array<std::array<uint16_t, 256>, 8> MakeSliceTables() {
  std::array<std::array<uint16_t, 256>, 8> t{};
  t[0] = MakeCrc16Table();
  for (int k = 1; k < 8; k++) {
    for (int x = 0; x < 256; x++) {
      uint16_t prev = t[k - 1][x];
      t[k][x] = static_cast<uint16_t>((prev << 8) ^ t[0][prev >> 8]);
    }
  }
  return t;
}

constexpr std::array<std::array<uint16_t, 256>, 8> kSlice = MakeSliceTables();

// Carry-less multiplication (PCLMULQDQ): the CRC of a 64-bit block in two multiplies.
// With the message as a polynomial over GF(2) (first byte's top bit highest), CRC16 of a
// message M is M(x)·x^16 mod P(x), P = x^16 + x^12 + x^5 + 1. Leading zero bytes do not
// change it (initial value 0), so a key is taken as zero-padded in front to whole 8-byte
// blocks, and each block T (the CRC so far in its top 16 bits, xor the next 8 bytes read
// big-endian) reduces to (T·x^16) mod P by Barrett's method, exact over GF(2):
//   q = floor(T·mu / x^64) with mu = floor(x^80 / P) = x^64 + kMuLow, so q = T ^ hi64(T·kMuLow);
//   crc = low 16 bits of (q·P) = low 16 bits of q·0x1021 (q·x^16 has none).
// Unit test: Hashing.Crc16MatchesBitwiseReference (every length 0-100, both paths).
constexpr uint64_t MakeBarrettMuLow() {
  __uint128_t rem = static_cast<__uint128_t>(1) << 80;
  const __uint128_t poly = 0x11021;
  uint64_t q = 0;
  for (int i = 80; i >= 16; i--) {
    if ((rem >> i) & 1) {
      rem ^= poly << (i - 16);
      if (i - 16 < 64) {
        q |= uint64_t{1} << (i - 16);
      }
    }
  }
  return q;
}
constexpr uint64_t kMuLow = MakeBarrettMuLow();

[[gnu::target("pclmul,sse4.1")]] inline uint16_t ClmulReduce(uint64_t t) {
  const __m128i tv = _mm_cvtsi64_si128(static_cast<long long>(t));
  const __m128i mu = _mm_cvtsi64_si128(static_cast<long long>(kMuLow));
  const __m128i prod = _mm_clmulepi64_si128(tv, mu, 0);
  const uint64_t q = t ^ static_cast<uint64_t>(_mm_extract_epi64(prod, 1));
  const __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(q)),
                                         _mm_cvtsi64_si128(0x1021), 0);
  return static_cast<uint16_t>(_mm_cvtsi128_si64(r));
}

[[gnu::target("pclmul,sse4.1")]] uint16_t Crc16Clmul(const char* data, size_t len) {
  const auto* p = reinterpret_cast<const uint8_t*>(data);
  uint64_t crc = 0;
  if (const size_t head = len & 7; head != 0) {
    uint64_t t = 0;
    for (size_t i = 0; i < head; i++) {
      t = (t << 8) | p[i];
    }
    crc = ClmulReduce(t);
    p += head;
    len -= head;
  }
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t block;
    std::memcpy(&block, p, 8);
    crc = ClmulReduce((crc << 48) ^ __builtin_bswap64(block));
  }
  return static_cast<uint16_t>(crc);
}

bool DetectClmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

// Slicing-by-8 tables: without PCLMULQDQ.
uint16_t Crc16Table(const char* data, size_t len) {
  const auto* p = reinterpret_cast<const uint8_t*>(data);
  uint16_t crc = 0;
  while (len >= 8) {
    crc = static_cast<uint16_t>(kSlice[7][(crc >> 8) ^ p[0]] ^ kSlice[6][(crc & 0xff) ^ p[1]] ^
                                kSlice[5][p[2]] ^ kSlice[4][p[3]] ^ kSlice[3][p[4]] ^
                                kSlice[2][p[5]] ^ kSlice[1][p[6]] ^ kSlice[0][p[7]]);
    p += 8;
    len -= 8;
  }
  while (len-- > 0) {
    crc = static_cast<uint16_t>((crc << 8) ^ kCrc16Table[((crc >> 8) ^ *p++) & 0xff]);
  }
  return crc;
}

}  // namespace

// Whether Crc16 uses PCLMULQDQ; set once at start-up (a caller during static
// initialisation before it sees false: the tables give the same CRC). Declared here
// only: the unit test Hashing.Crc16MatchesBitwiseReference switches it to test both.
bool g_crc16_clmul = DetectClmul();

uint16_t Crc16(const char* data, size_t len) {
  return g_crc16_clmul ? Crc16Clmul(data, len) : Crc16Table(data, len);
}

namespace {

// Position of the first '{' in a short key, eight bytes at a time: a byte of x ^ '{'...
// is zero exactly where x has '{', and (y - 0x01..) & ~y & 0x80.. marks the lowest zero
// byte correctly (a borrow only disturbs the bytes above it). About a quarter of the
// instructions of a byte loop on a 16-byte key; memchr's call costs more at this size.
// From 16 bytes on, SSE2 compares 16 bytes at once (the last 16 of the key overlap what
// the loop checked; those bits are shifted out).
size_t FindOpenBrace(const char* p, size_t n) {
  if (n >= 16) {
    const __m128i brace = _mm_set1_epi8('{');
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, brace)));
      if (m != 0) {
        return i + static_cast<size_t>(__builtin_ctz(m));
      }
    }
    if (i < n) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
      const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, brace))) >>
                         (i - (n - 16));
      if (m != 0) {
        return i + static_cast<size_t>(__builtin_ctz(m));
      }
    }
    return std::string_view::npos;
  }
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, p + i, 8);
    const uint64_t y = x ^ (kOnes * '{');
    const uint64_t m = (y - kOnes) & ~y & (kOnes * 0x80);
    if (m != 0) {
      return i + static_cast<size_t>(__builtin_ctzll(m) >> 3);
    }
  }
  for (; i < n; i++) {
    if (p[i] == '{') {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

uint32_t KeySlot(std::string_view key) {
  const size_t open =
      key.size() <= 64 ? FindOpenBrace(key.data(), key.size()) : key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close != open + 1) {
      return Crc16(key.data() + open + 1, close - open - 1) & (kClusterSlots - 1);
    }
  }
  return Crc16(key.data(), key.size()) & (kClusterSlots - 1);
}

}  // namespace hotkv

#include "common/key_hash.h"

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

}  // namespace

uint16_t Crc16(const char* data, size_t len) {
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

namespace {

// Position of the first '{' in a short key, eight bytes at a time: a byte of x ^ '{'...
// is zero exactly where x has '{', and (y - 0x01..) & ~y & 0x80.. marks the lowest zero
// byte correctly (a borrow only disturbs the bytes above it). About a quarter of the
// instructions of a byte loop on a 16-byte key; memchr's call costs more at this size.
size_t FindOpenBrace(const char* p, size_t n) {
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

// CRC64 as Redis computes it for RDB files and DUMP payloads: the Jones polynomial,
// reflected, initial value as given (0 for a new checksum), no final xor. Slice-by-8
// tables built once at first use: about 1 byte per cycle, so a checksum costs little
// beside the disk.
#include <array>
#include <cstring>

#include "rdb/rdb.h"

namespace hotkv::rdb {
namespace {

constexpr uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ULL;

struct Tables {
  std::array<std::array<uint64_t, 256>, 8> t;
  Tables() {
    for (int i = 0; i < 256; ++i) {
      uint64_t crc = static_cast<uint64_t>(i);
      for (int k = 0; k < 8; ++k) {
        crc = (crc & 1) ? (crc >> 1) ^ kPolyReflected : crc >> 1;
      }
      t[0][i] = crc;
    }
    for (int i = 0; i < 256; ++i) {
      for (int s = 1; s < 8; ++s) {
        t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
      }
    }
  }
};

const Tables& GetTables() {
  static const Tables tables;
  return tables;
}

}  // namespace

uint64_t Crc64(uint64_t crc, const void* data, size_t len) {
  const auto& t = GetTables().t;
  const auto* p = static_cast<const uint8_t*>(data);
  while (len >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);  // little-endian host (x86-64, aarch64)
    crc ^= v;
    crc = t[7][crc & 0xff] ^ t[6][(crc >> 8) & 0xff] ^ t[5][(crc >> 16) & 0xff] ^
          t[4][(crc >> 24) & 0xff] ^ t[3][(crc >> 32) & 0xff] ^ t[2][(crc >> 40) & 0xff] ^
          t[1][(crc >> 48) & 0xff] ^ t[0][crc >> 56];
    p += 8;
    len -= 8;
  }
  while (len-- > 0) {
    crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  }
  return crc;
}

}  // namespace hotkv::rdb

// Validation and decoding of ziplists, listpacks, intsets and zipmaps (see blobs.h).
// Layouts, as Redis writes them (all integers little endian unless noted):
//   ziplist: zlbytes u32, zltail u32, zllen u16, entries, 0xFF; an entry is prevlen
//            (1 byte, or 0xFE + u32), encoding (string lengths 6/14/32 bits, the 14- and
//            32-bit ones big endian; integer kinds int8/16/24/32/64 and 0..12 immediate),
//            data.
//   listpack: total u32, count u16 (65535: unknown), entries, 0xFF; an entry is
//            encoding+data then its "backlen" (the entry's size in 1..5 bytes).
//   intset:  encoding u32 (2, 4 or 8), length u32, sorted unique integers.
//   zipmap:  count byte (254+: unknown), then key-len key value-len free value pad...,
//            0xFF; lengths are 1 byte (< 254) or 0xFE + u32.
#include "rdb/blobs.h"

#include <cstring>

namespace hotkv::rdb {
namespace {

inline uint32_t Le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline int64_t LeSigned(const uint8_t* p, int n) {
  uint64_t u = 0;
  for (int i = n - 1; i >= 0; --i) u = (u << 8) | p[i];
  int shift = 64 - 8 * n;
  return static_cast<int64_t>(u << shift) >> shift;
}

BlobItem Str(const uint8_t* p, uint32_t n) {
  BlobItem it;
  it.data = reinterpret_cast<const char*>(p);
  it.len = n;
  return it;
}
BlobItem Int(int64_t v) {
  BlobItem it;
  it.is_int = true;
  it.value = v;
  return it;
}

// Size of the listpack backlen for an entry of `l` bytes, written into `buf`.
size_t EncodeBacklen(uint64_t l, uint8_t* buf) {
  if (l <= 127) {
    buf[0] = static_cast<uint8_t>(l);
    return 1;
  }
  size_t n = l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
  for (size_t i = 0; i < n; ++i) {
    uint8_t b = static_cast<uint8_t>((l >> (7 * (n - 1 - i))) & 127);
    buf[i] = i == 0 ? b : (b | 128);
  }
  return n;
}

}  // namespace

bool DecodeZiplist(std::string_view blob, std::vector<BlobItem>* out) {
  out->clear();
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  const size_t size = blob.size();
  constexpr size_t kHeader = 10;
  if (size < kHeader + 1 || Le32(b) != size || b[size - 1] != 0xFF) return false;
  const uint32_t tail = Le32(b + 4);
  const uint16_t count = Le16(b + 8);
  const size_t end = size - 1;
  size_t pos = kHeader;
  size_t prev_len = 0;
  size_t last = kHeader;
  while (pos < end) {
    const size_t start = pos;
    // prevlen
    size_t prevlen;
    if (b[pos] < 254) {
      prevlen = b[pos];
      pos += 1;
    } else if (b[pos] == 254) {
      if (end - pos < 5) return false;
      prevlen = Le32(b + pos + 1);
      pos += 5;
    } else {
      return false;
    }
    if (prevlen != prev_len || pos >= end) return false;
    const uint8_t e = b[pos];
    size_t header = 1, data = 0;
    bool is_int = true;
    int int_bytes = 0;
    int64_t imm = 0;
    switch (e >> 6) {
      case 0:
        is_int = false;
        data = e & 0x3f;
        break;
      case 1:
        if (end - pos < 2) return false;
        is_int = false;
        header = 2;
        data = (static_cast<size_t>(e & 0x3f) << 8) | b[pos + 1];
        break;
      case 2:
        if (end - pos < 5) return false;
        is_int = false;
        header = 5;
        data = (static_cast<size_t>(b[pos + 1]) << 24) | (static_cast<size_t>(b[pos + 2]) << 16) |
               (static_cast<size_t>(b[pos + 3]) << 8) | b[pos + 4];
        break;
      default:
        switch (e) {
          case 0xC0: int_bytes = 2; break;
          case 0xD0: int_bytes = 4; break;
          case 0xE0: int_bytes = 8; break;
          case 0xF0: int_bytes = 3; break;
          case 0xFE: int_bytes = 1; break;
          default:
            if (e >= 0xF1 && e <= 0xFD) {
              imm = (e & 0x0F) - 1;
            } else {
              return false;
            }
        }
        data = int_bytes;
    }
    if (end - pos < header || end - pos - header < data) return false;
    const uint8_t* d = b + pos + header;
    if (!is_int) {
      out->push_back(Str(d, static_cast<uint32_t>(data)));
    } else {
      out->push_back(Int(int_bytes ? LeSigned(d, int_bytes) : imm));
    }
    pos += header + data;
    prev_len = pos - start;
    last = start;
  }
  if (pos != end || last != tail) return false;
  if (count != UINT16_MAX && count != out->size()) return false;
  return true;
}

bool DecodeListpack(std::string_view blob, std::vector<BlobItem>* out) {
  out->clear();
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  const size_t size = blob.size();
  constexpr size_t kHeader = 6;
  if (size < kHeader + 1 || Le32(b) != size || b[size - 1] != 0xFF) return false;
  const uint16_t count = Le16(b + 4);
  const size_t end = size - 1;
  size_t pos = kHeader;
  while (pos < end) {
    const uint8_t e = b[pos];
    const size_t avail = end - pos;
    size_t header = 1, data = 0;
    bool is_int = true;
    int64_t v = 0;
    if ((e & 0x80) == 0) {
      v = e & 0x7f;
    } else if ((e & 0xC0) == 0x80) {
      is_int = false;
      data = e & 0x3f;
    } else if ((e & 0xE0) == 0xC0) {
      if (avail < 2) return false;
      header = 2;
      int64_t u = (static_cast<int64_t>(e & 0x1f) << 8) | b[pos + 1];
      v = u >= (1 << 12) ? u - (1 << 13) : u;
    } else if ((e & 0xF0) == 0xE0) {
      if (avail < 2) return false;
      is_int = false;
      header = 2;
      data = (static_cast<size_t>(e & 0x0f) << 8) | b[pos + 1];
    } else if (e == 0xF0) {
      if (avail < 5) return false;
      is_int = false;
      header = 5;
      data = Le32(b + pos + 1);
    } else {
      int n;
      switch (e) {
        case 0xF1: n = 2; break;
        case 0xF2: n = 3; break;
        case 0xF3: n = 4; break;
        case 0xF4: n = 8; break;
        default: return false;  // 0xF5..0xFE unused; 0xFF only at the end
      }
      if (avail < 1 + static_cast<size_t>(n)) return false;
      v = LeSigned(b + pos + 1, n);
      header = 1 + n;
    }
    if (avail < header || avail - header < data) return false;
    const size_t entry_len = header + data;
    uint8_t bl[5];
    const size_t bl_len = EncodeBacklen(entry_len, bl);
    if (avail - entry_len < bl_len || memcmp(b + pos + entry_len, bl, bl_len) != 0) return false;
    if (is_int) {
      out->push_back(Int(v));
    } else {
      out->push_back(Str(b + pos + header, static_cast<uint32_t>(data)));
    }
    pos += entry_len + bl_len;
  }
  if (pos != end) return false;
  if (count != UINT16_MAX && count != out->size()) return false;
  return true;
}

bool DecodeIntset(std::string_view blob, std::vector<BlobItem>* out) {
  out->clear();
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  if (blob.size() < 8) return false;
  const uint32_t width = Le32(b);
  const uint32_t len = Le32(b + 4);
  if (width != 2 && width != 4 && width != 8) return false;
  if (len == 0 || (blob.size() - 8) / width != len || (blob.size() - 8) % width != 0) {
    return false;
  }
  out->reserve(len);
  for (uint32_t i = 0; i < len; ++i) {
    int64_t v = LeSigned(b + 8 + static_cast<size_t>(i) * width, static_cast<int>(width));
    if (i > 0 && v <= out->back().value) return false;  // sorted, unique
    out->push_back(Int(v));
  }
  return true;
}

bool DecodeZipmap(std::string_view blob, std::vector<BlobItem>* out) {
  out->clear();
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  const size_t size = blob.size();
  if (size < 2 || b[size - 1] != 0xFF) return false;
  const uint8_t count = b[0];
  const size_t end = size - 1;
  size_t pos = 1;
  auto read_len = [&](size_t* len) {
    if (pos >= end) return false;
    if (b[pos] < 254) {
      *len = b[pos];
      pos += 1;
      return true;
    }
    if (b[pos] != 254 || end - pos < 5) return false;
    *len = Le32(b + pos + 1);
    pos += 5;
    return true;
  };
  while (pos < end) {
    size_t klen, vlen;
    if (!read_len(&klen) || end - pos < klen) return false;
    const uint8_t* k = b + pos;
    pos += klen;
    if (!read_len(&vlen) || pos >= end) return false;
    const size_t free = b[pos++];
    if (end - pos < vlen || end - pos - vlen < free) return false;
    out->push_back(Str(k, static_cast<uint32_t>(klen)));
    out->push_back(Str(b + pos, static_cast<uint32_t>(vlen)));
    pos += vlen + free;
  }
  if (pos != end) return false;
  if (count < 254 && count * 2u != out->size()) return false;
  return true;
}

}  // namespace hotkv::rdb

// A test-side encoder of RDB pieces HotKV never writes itself, to build inputs the old
// and rare encodings: ziplists (Redis <= 6.2), listpacks, intsets, zipmaps (Redis 2.x),
// ASCII-double zsets, opcodes. Written independently of src/rdb from the format
// description, so that a shared misreading would show as a failing test.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "rdb/rdb.h"

namespace hotkv::rdb::testing {

// A blob entry: a string or an integer.
using Item = std::variant<std::string, int64_t>;

inline void PutLe(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

inline std::string RdbLen(uint64_t len) {
  std::string out;
  if (len < 64) {
    out.push_back(static_cast<char>(len));
  } else if (len < 16384) {
    out.push_back(static_cast<char>(0x40 | (len >> 8)));
    out.push_back(static_cast<char>(len & 0xff));
  } else {
    out.push_back(static_cast<char>(0x80));
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>(len >> (8 * i)));
  }
  return out;
}

// A plain (raw) RDB string.
inline std::string RdbStr(const std::string& s) { return RdbLen(s.size()) + s; }

inline std::string Ziplist(const std::vector<Item>& items) {
  std::string body;
  size_t prev = 0, tail = 10;
  for (const Item& it : items) {
    std::string e;
    if (prev < 254) {
      e.push_back(static_cast<char>(prev));
    } else {
      e.push_back(static_cast<char>(0xFE));
      PutLe(&e, prev, 4);
    }
    if (const auto* s = std::get_if<std::string>(&it)) {
      if (s->size() < 64) {
        e.push_back(static_cast<char>(s->size()));
      } else if (s->size() < 16384) {
        e.push_back(static_cast<char>(0x40 | (s->size() >> 8)));
        e.push_back(static_cast<char>(s->size() & 0xff));
      } else {
        e.push_back(static_cast<char>(0x80));
        for (int i = 3; i >= 0; --i) e.push_back(static_cast<char>(s->size() >> (8 * i)));
      }
      e += *s;
    } else {
      int64_t v = std::get<int64_t>(it);
      if (v >= 0 && v <= 12) {
        e.push_back(static_cast<char>(0xF1 + v));
      } else if (v >= INT8_MIN && v <= INT8_MAX) {
        e.push_back(static_cast<char>(0xFE));
        PutLe(&e, static_cast<uint64_t>(v), 1);
      } else if (v >= INT16_MIN && v <= INT16_MAX) {
        e.push_back(static_cast<char>(0xC0));
        PutLe(&e, static_cast<uint64_t>(v), 2);
      } else if (v >= -(1 << 23) && v < (1 << 23)) {
        e.push_back(static_cast<char>(0xF0));
        PutLe(&e, static_cast<uint64_t>(v), 3);
      } else if (v >= INT32_MIN && v <= INT32_MAX) {
        e.push_back(static_cast<char>(0xD0));
        PutLe(&e, static_cast<uint64_t>(v), 4);
      } else {
        e.push_back(static_cast<char>(0xE0));
        PutLe(&e, static_cast<uint64_t>(v), 8);
      }
    }
    tail = 10 + body.size();
    body += e;
    prev = e.size();
  }
  std::string out;
  PutLe(&out, 10 + body.size() + 1, 4);
  PutLe(&out, tail, 4);
  PutLe(&out, items.size() < 65535 ? items.size() : 65535, 2);
  return out + body + "\xff";
}

inline std::string Listpack(const std::vector<Item>& items) {
  std::string body;
  for (const Item& it : items) {
    std::string e;
    if (const auto* s = std::get_if<std::string>(&it)) {
      if (s->size() < 64) {
        e.push_back(static_cast<char>(0x80 | s->size()));
      } else if (s->size() < 4096) {
        e.push_back(static_cast<char>(0xE0 | (s->size() >> 8)));
        e.push_back(static_cast<char>(s->size() & 0xff));
      } else {
        e.push_back(static_cast<char>(0xF0));
        PutLe(&e, s->size(), 4);
      }
      e += *s;
    } else {
      int64_t v = std::get<int64_t>(it);
      if (v >= 0 && v <= 127) {
        e.push_back(static_cast<char>(v));
      } else if (v >= -4096 && v <= 4095) {
        uint64_t u = static_cast<uint64_t>(v) & 0x1fff;
        e.push_back(static_cast<char>(0xC0 | (u >> 8)));
        e.push_back(static_cast<char>(u & 0xff));
      } else if (v >= INT16_MIN && v <= INT16_MAX) {
        e.push_back(static_cast<char>(0xF1));
        PutLe(&e, static_cast<uint64_t>(v), 2);
      } else if (v >= -(1 << 23) && v < (1 << 23)) {
        e.push_back(static_cast<char>(0xF2));
        PutLe(&e, static_cast<uint64_t>(v), 3);
      } else if (v >= INT32_MIN && v <= INT32_MAX) {
        e.push_back(static_cast<char>(0xF3));
        PutLe(&e, static_cast<uint64_t>(v), 4);
      } else {
        e.push_back(static_cast<char>(0xF4));
        PutLe(&e, static_cast<uint64_t>(v), 8);
      }
    }
    size_t l = e.size();
    // backlen: most significant 7-bit group first, continuation bit on all but the first
    std::string bl;
    size_t n = l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : 4;
    for (size_t i = 0; i < n; ++i) {
      uint8_t b = static_cast<uint8_t>((l >> (7 * (n - 1 - i))) & 127);
      bl.push_back(static_cast<char>(i == 0 ? b : (b | 128)));
    }
    body += e + bl;
  }
  std::string out;
  PutLe(&out, 6 + body.size() + 1, 4);
  PutLe(&out, items.size() < 65535 ? items.size() : 65535, 2);
  return out + body + "\xff";
}

inline std::string Intset(int width, const std::vector<int64_t>& sorted) {
  std::string out;
  PutLe(&out, static_cast<uint64_t>(width), 4);
  PutLe(&out, sorted.size(), 4);
  for (int64_t v : sorted) PutLe(&out, static_cast<uint64_t>(v), width);
  return out;
}

inline std::string Zipmap(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  out.push_back(static_cast<char>(pairs.size() < 254 ? pairs.size() : 254));
  auto len = [&](size_t n) {
    if (n < 254) {
      out.push_back(static_cast<char>(n));
    } else {
      out.push_back(static_cast<char>(254));
      PutLe(&out, n, 4);
    }
  };
  for (const auto& [k, v] : pairs) {
    len(k.size());
    out += k;
    len(v.size());
    out.push_back(static_cast<char>(1));  // one free byte after the value
    out += v;
    out.push_back('\0');
  }
  out.push_back(static_cast<char>(0xFF));
  return out;
}

// A DUMP payload of `type` + `body` with a correct footer for `version`.
inline std::string Payload(uint8_t type, const std::string& body, int version = kWriteVersion) {
  std::string out;
  out.push_back(static_cast<char>(type));
  out += body;
  PutLe(&out, static_cast<uint64_t>(version), 2);
  PutLe(&out, Crc64(0, out.data(), out.size()), 8);
  return out;
}

// A whole file: "REDISnnnn" + body + EOF + CRC64.
inline std::string RdbFile(const std::string& body, int version = kWriteVersion) {
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", version);
  std::string out = std::string(magic) + body + "\xff";
  if (version >= 5) PutLe(&out, Crc64(0, out.data(), out.size()), 8);
  return out;
}

}  // namespace hotkv::rdb::testing

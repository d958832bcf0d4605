// Reader: bounds-checked decoding of RDB lengths, strings (plain, integer, LZF) and
// doubles from a byte range. Every read checks what remains before touching memory.
#include <liblzf/lzf.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "rdb/format.h"
#include "types/element.h"

namespace hotkv::rdb {

bool Reader::Fail(std::string message) {
  if (error_.empty()) {
    error_ = std::move(message);
  }
  p_ = end_;  // every later read fails
  return false;
}

bool Reader::U8(uint8_t* v) {
  if (p_ >= end_) return ShortRead();
  *v = *p_++;
  return true;
}

bool Reader::Bytes(size_t n, const uint8_t** out) {
  if (n > remaining()) return ShortRead();
  *out = p_;
  p_ += n;
  return true;
}

bool Reader::U32Le(uint32_t* v) {
  if (remaining() < 4) return ShortRead();
  *v = static_cast<uint32_t>(p_[0]) | static_cast<uint32_t>(p_[1]) << 8 |
       static_cast<uint32_t>(p_[2]) << 16 | static_cast<uint32_t>(p_[3]) << 24;
  p_ += 4;
  return true;
}

bool Reader::U64Le(uint64_t* v) {
  if (remaining() < 8) return ShortRead();
  uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = (x << 8) | p_[i];
  *v = x;
  p_ += 8;
  return true;
}

namespace {

// Decodes a length; *encoded is set for the 11xxxxxx special string encodings (the
// value is then the encoding number).
bool DecodeLen(Reader& r, uint64_t* len, bool* encoded) {
  uint8_t b;
  if (!r.U8(&b)) return false;
  *encoded = false;
  switch (b >> 6) {
    case 0:
      *len = b & 0x3f;
      return true;
    case 1: {
      uint8_t b2;
      if (!r.U8(&b2)) return false;
      *len = (static_cast<uint64_t>(b & 0x3f) << 8) | b2;
      return true;
    }
    case 2: {
      int n = b == kLen32Bit ? 4 : b == kLen64Bit ? 8 : 0;
      if (n == 0) return r.Fail("Unknown length encoding " + std::to_string(b) + " in rdbLoadLen()");
      const uint8_t* p;
      if (!r.Bytes(n, &p)) return false;
      uint64_t x = 0;
      for (int i = 0; i < n; ++i) x = (x << 8) | p[i];
      *len = x;
      return true;
    }
    default:
      *encoded = true;
      *len = b & 0x3f;
      return true;
  }
}

}  // namespace

bool Reader::Len(uint64_t* len) {
  bool encoded;
  if (!DecodeLen(*this, len, &encoded)) return false;
  if (encoded) return Fail("Unexpected string encoding where a length was expected");
  return true;
}

bool Reader::Count(uint64_t* n, size_t min_item_bytes) {
  if (!Len(n)) return false;
  if (*n > remaining() / min_item_bytes) return ShortRead();
  return true;
}

bool Reader::String(std::string* scratch, std::string_view* out) {
  uint64_t len;
  bool encoded;
  if (!DecodeLen(*this, &len, &encoded)) return false;
  if (!encoded) {
    const uint8_t* p;
    if (!Bytes(len, &p)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p), len);
    return true;
  }
  int64_t v;
  switch (len) {
    case kEncInt8: {
      uint8_t b;
      if (!U8(&b)) return false;
      v = static_cast<int8_t>(b);
      break;
    }
    case kEncInt16: {
      const uint8_t* p;
      if (!Bytes(2, &p)) return false;
      v = static_cast<int16_t>(p[0] | (p[1] << 8));
      break;
    }
    case kEncInt32: {
      uint32_t u;
      if (!U32Le(&u)) return false;
      v = static_cast<int32_t>(u);
      break;
    }
    case kEncLzf: {
      uint64_t clen, ulen;
      if (!Len(&clen) || !Len(&ulen)) return false;
      const uint8_t* p;
      if (!Bytes(clen, &p)) return false;
      // LZF expands at most ~88x (a 3-byte back reference yields 264 bytes); a larger
      // claimed size is corrupt and must not drive the allocation.
      if (ulen == 0 || clen == 0 || ulen > clen * 100 + 64 || ulen > UINT32_MAX) {
        return Fail("Invalid LZF compressed string");
      }
      scratch->resize(ulen);
      unsigned int got = lzf_decompress(p, static_cast<unsigned int>(clen), scratch->data(),
                                        static_cast<unsigned int>(ulen));
      if (got != ulen) return Fail("Invalid LZF compressed string");
      *out = *scratch;
      return true;
    }
    default:
      return Fail("Unknown RDB string encoding type " + std::to_string(len));
  }
  char buf[types::kMaxIntDigits + 1];
  size_t n = types::FormatInt(v, buf);
  scratch->assign(buf, n);
  *out = *scratch;
  return true;
}

bool Reader::SkipString() {
  uint64_t len;
  bool encoded;
  if (!DecodeLen(*this, &len, &encoded)) return false;
  const uint8_t* p;
  if (!encoded) return Bytes(len, &p);
  switch (len) {
    case kEncInt8: return Bytes(1, &p);
    case kEncInt16: return Bytes(2, &p);
    case kEncInt32: return Bytes(4, &p);
    case kEncLzf: {
      uint64_t clen, ulen;
      if (!Len(&clen) || !Len(&ulen)) return false;
      return Bytes(clen, &p);
    }
    default:
      return Fail("Unknown RDB string encoding type " + std::to_string(len));
  }
}

bool Reader::AsciiDouble(double* d) {
  uint8_t len;
  if (!U8(&len)) return false;
  switch (len) {
    case 255: *d = -INFINITY; return true;
    case 254: *d = INFINITY; return true;
    case 253: *d = NAN; return true;
    default: break;
  }
  const uint8_t* p;
  if (!Bytes(len, &p)) return false;
  char buf[256];
  memcpy(buf, p, len);
  buf[len] = '\0';
  char* endp;
  *d = strtod(buf, &endp);
  if (endp == buf) return Fail("Invalid double value");
  return true;
}

bool Reader::BinaryDouble(double* d) {
  uint64_t bits;
  if (!U64Le(&bits)) return false;
  memcpy(d, &bits, 8);
  return true;
}

bool Reader::SkipModuleOpcodes() {
  for (;;) {
    uint64_t op;
    if (!Len(&op)) return false;
    const uint8_t* p;
    uint64_t v;
    switch (op) {
      case kModuleOpEof: return true;
      case kModuleOpSint:
      case kModuleOpUint:
        if (!Len(&v)) return false;
        break;
      case kModuleOpFloat:
        if (!Bytes(4, &p)) return false;
        break;
      case kModuleOpDouble:
        if (!Bytes(8, &p)) return false;
        break;
      case kModuleOpString:
        if (!SkipString()) return false;
        break;
      default:
        return Fail("Unknown module opcode " + std::to_string(op));
    }
  }
}

}  // namespace hotkv::rdb

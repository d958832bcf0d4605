// Encoder: RDB bytes for lengths, strings and whole values, as Redis's rdbSave* writes
// them. Values use the plain encodings every Redis since 2.x loads (Redis 7.0 and 8.x
// included): STRING, LIST, SET, ZSET_2 (binary doubles), HASH; vector sets are Redis
// 8's "vectorset" module values (vector_set_codec.cc).
#include <liblzf/lzf.h>

#include <algorithm>
#include <string>

#include "rdb/rdb.h"

#include "rdb/format.h"
#include "engine/extension_value.h"
#include "rdb/extension_codec.h"
#include "rdb/json_codec.h"
#include "rdb/stream_codec.h"
#include "rdb/vector_set_codec.h"
#include "engine/entry.h"
#include "types/element.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace hotkv::rdb {

std::string ModuleNameFromId(uint64_t id) {
  static constexpr char kCharset[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string name(9, ' ');
  id >>= 10;  // the low 10 bits are the encoding version
  for (int j = 8; j >= 0; --j) {
    name[j] = kCharset[id & 63];
    id >>= 6;
  }
  return name;
}

void Encoder::Len(uint64_t len) {
  if (len < (1 << 6)) {
    Byte(static_cast<uint8_t>(len));
  } else if (len < (1 << 14)) {
    Byte(static_cast<uint8_t>((len >> 8) | (kLen14Bit << 6)));
    Byte(static_cast<uint8_t>(len & 0xff));
  } else if (len <= UINT32_MAX) {
    Byte(kLen32Bit);
    uint8_t b[4] = {static_cast<uint8_t>(len >> 24), static_cast<uint8_t>(len >> 16),
                    static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len)};
    Raw(b, 4);
  } else {
    Byte(kLen64Bit);
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(len >> (56 - 8 * i));
    Raw(b, 8);
  }
}

void Encoder::U64Le(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  Raw(b, 8);
}

void Encoder::BinaryDouble(double d) {
  uint64_t bits;
  memcpy(&bits, &d, 8);
  U64Le(bits);
}

void Encoder::String(std::string_view s) {
  // rdbTryIntegerEncoding: a canonical integer within int32 is stored as 1, 2 or 4 bytes.
  if (s.size() <= 11) {
    if (auto v = types::ParseCanonicalInt(s)) {
      int64_t x = *v;
      if (x >= INT8_MIN && x <= INT8_MAX) {
        Byte((kEncVal << 6) | kEncInt8);
        Byte(static_cast<uint8_t>(x));
        return;
      }
      if (x >= INT16_MIN && x <= INT16_MAX) {
        Byte((kEncVal << 6) | kEncInt16);
        uint16_t u = static_cast<uint16_t>(x);
        Byte(u & 0xff);
        Byte(u >> 8);
        return;
      }
      if (x >= INT32_MIN && x <= INT32_MAX) {
        Byte((kEncVal << 6) | kEncInt32);
        uint32_t u = static_cast<uint32_t>(x);
        for (int i = 0; i < 4; ++i) Byte(static_cast<uint8_t>(u >> (8 * i)));
        return;
      }
    }
  }
  if (deferred_ != nullptr && s.size() > 20 && s.size() <= UINT32_MAX) {
    deferred_->emplace_back(out_->size(), s.size());  // compressed later, as below
    Len(s.size());
    Raw(s.data(), s.size());
    return;
  }
  // rdbSaveLzfStringObject: only over 20 bytes, and only if it saves 4 bytes or more.
  if (compress_ && s.size() > 20 && s.size() <= UINT32_MAX) {
    size_t outlen = s.size() - 4;
    if (lzf_.size() < outlen + 1) lzf_.resize(outlen + 1);
    unsigned int clen = lzf_compress(s.data(), static_cast<unsigned int>(s.size()), lzf_.data(),
                                     static_cast<unsigned int>(outlen));
    if (clen != 0) {
      Byte((kEncVal << 6) | kEncLzf);
      Len(clen);
      Len(s.size());
      Raw(lzf_.data(), clen);
      return;
    }
  }
  Len(s.size());
  Raw(s.data(), s.size());
}

int Encoder::ObjectType(const Entry& e) {
  if (e.type() == kValueTypeExtension) {
    return kTypeModule2;  // engine/extension_value.h
  }
  switch (e.type()) {
    case ValueType::kString: return kTypeString;
    case ValueType::kList: return kTypeList;
    case ValueType::kSet: return kTypeSet;
    case ValueType::kZSet: return kTypeZSet2;
    case ValueType::kHash: return HashHasFieldTtls(&e) ? kTypeHashMetadata : kTypeHash;
    case ValueType::kVectorSet: return kTypeModule2;
    case ValueType::kJson: return kTypeModule2;
    case ValueType::kStream: return StreamRdbType(e);
    default: return -1;
  }
}

bool Encoder::Object(const Entry& e, std::string* error) {
  if (e.type() == kValueTypeExtension) {
    WriteExtension(*this, e);
    return true;
  }
  switch (e.type()) {
    case ValueType::kString:
      String(e.str());
      return true;
    case ValueType::kList: {
      const auto* l = e.As<types::ListValue>();
      Len(l->size());
      l->ForEach([&](std::string_view v) {
        String(v);
        return true;
      });
      return true;
    }
    case ValueType::kSet: {
      const auto* s = e.As<types::SetValue>();
      Len(s->size());
      s->ForEach([&](std::string_view m) {
        String(m);
        return true;
      });
      return true;
    }
    case ValueType::kZSet: {
      const auto* z = e.As<types::ZSetValue>();
      Len(z->Size());
      z->ForEach([&](std::string_view m, double score) {
        String(m);
        BinaryDouble(score);
      });
      return true;
    }
    case ValueType::kHash: {
      const auto* h = e.As<types::HashValue>();
      if (!h->HasFieldTtls()) {
        Len(h->size());
        h->ForEach([&](std::string_view f, std::string_view v) {
          String(f);
          String(v);
          return true;
        });
        return true;
      }
      // RDB_TYPE_HASH_METADATA: the earliest expiry, then per field its expiry relative to
      // it plus one (0: none), the field and the value.
      const auto min_expire = static_cast<uint64_t>(h->MinExpire());
      U64Le(min_expire);
      Len(h->size());
      h->ForEachWithTtl([&](std::string_view f, std::string_view v, int64_t at) {
        Len(at == 0 ? 0 : static_cast<uint64_t>(at) - min_expire + 1);
        String(f);
        String(v);
        return true;
      });
      return true;
    }
    case ValueType::kVectorSet:
      return WriteVectorSet(*this, e, error);
    case ValueType::kJson:
      WriteJson(*this, e);
      return true;
    case ValueType::kStream:
      WriteStream(*this, e);
      return true;
    default:
      *error = std::string(TypeName(e)) + " values cannot be written to an RDB file";
      return false;
  }
}

// ---- SlicedKeyEncoder ----

bool SlicedKeyEncoder::Sliceable(const Entry& e) {
  switch (e.type()) {
    case ValueType::kList:
    case ValueType::kSet:
    case ValueType::kZSet:
      return true;
    case ValueType::kHash:
      return !e.As<types::HashValue>()->HasFieldTtls();
    default:
      return false;
  }
}

size_t SlicedKeyEncoder::Elements(const Entry& e) {
  switch (e.type()) {
    case ValueType::kList: return e.As<types::ListValue>()->size();
    case ValueType::kSet: return e.As<types::SetValue>()->size();
    case ValueType::kZSet: return e.As<types::ZSetValue>()->Size();
    case ValueType::kHash: return e.As<types::HashValue>()->size();
    default: return 0;
  }
}

SlicedKeyEncoder::SlicedKeyEncoder(const Entry& e, int64_t expire_ms,
                                   std::optional<uint64_t> idle_seconds,
                                   std::optional<uint8_t> lfu_freq, bool compress)
    : expire_ms_(expire_ms), idle_(idle_seconds), freq_(lfu_freq), compress_(compress),
      total_(Elements(e)) {}

void SlicedKeyEncoder::Begin(const Entry& e, std::string* out) {
  Encoder enc(out, compress_);
  if (expire_ms_ >= 0) {
    enc.Byte(kOpExpireTimeMs);
    enc.U64Le(static_cast<uint64_t>(expire_ms_));
  }
  if (idle_) {
    enc.Byte(kOpIdle);
    enc.Len(*idle_);
  } else if (freq_) {
    enc.Byte(kOpFreq);
    enc.Byte(*freq_);
  }
  enc.Byte(static_cast<uint8_t>(Encoder::ObjectType(e)));
  enc.String(e.key());
  enc.Len(total_);
}

bool SlicedKeyEncoder::Next(const Entry& e, std::string* out, size_t max_elements,
                            size_t max_bytes) {
  if (!error_.empty()) {
    return true;
  }
  if (Elements(e) != total_) {
    error_ = "the value changed while it was being saved";
    return true;
  }
  Encoder enc(out, compress_);
  const size_t start_bytes = out->size();
  const uint64_t remaining = total_ - written_;
  const uint64_t n = std::min<uint64_t>(remaining, std::max<size_t>(max_elements, 1));
  const size_t scan_count = static_cast<size_t>(std::clamp<uint64_t>(n, 1, 256));
  bool scan_done = false;
  switch (e.type()) {
    case ValueType::kList:
    case ValueType::kZSet: {
      // By index (rank), in steps of up to 64 until the bounds.
      const uint64_t target = written_ + n;
      while (written_ < target && out->size() - start_bytes < max_bytes) {
        const uint64_t before = written_;
        const auto first = static_cast<int64_t>(written_);
        const auto last = static_cast<int64_t>(std::min<uint64_t>(target, written_ + 64) - 1);
        if (e.type() == ValueType::kList) {
          e.As<types::ListValue>()->Range(first, last, [&](std::string_view v) {
            enc.String(v);
            written_++;
          });
        } else {
          const auto* z = e.As<types::ZSetValue>();
          z->Visit(z->RankSpan(first, last), [&](std::string_view m, double score) {
            enc.String(m);
            enc.BinaryDouble(score);
            written_++;
          });
        }
        if (written_ == before) {
          break;  // fewer elements than counted: reported below
        }
      }
      scan_done = written_ >= target && target == total_;
      if (written_ < target && out->size() - start_bytes < max_bytes) {
        scan_done = true;  // ran out of elements
      }
      break;
    }
    case ValueType::kSet: {
      // Scan steps of about min(n, 256) members until the bounds (a table that did not
      // change returns each member exactly once).
      const auto* s = e.As<types::SetValue>();
      do {
        cursor_ = s->Scan(cursor_, scan_count, [&](std::string_view m) {
          enc.String(m);
          written_++;
        });
      } while (cursor_ != 0 && written_ - (total_ - remaining) < n &&
               out->size() - start_bytes < max_bytes);
      scan_done = cursor_ == 0;
      break;
    }
    case ValueType::kHash: {
      const auto* h = e.As<types::HashValue>();
      do {
        cursor_ = h->Scan(cursor_, scan_count, [&](std::string_view f, std::string_view v) {
          enc.String(f);
          enc.String(v);
          written_++;
        });
      } while (cursor_ != 0 && written_ - (total_ - remaining) < n &&
               out->size() - start_bytes < max_bytes);
      scan_done = cursor_ == 0;
      break;
    }
    default:
      error_ = "not a sliceable value";
      return true;
  }
  if (written_ > total_ || (scan_done && written_ != total_)) {
    error_ = "the value changed while it was being saved (" + std::to_string(written_) +
             " elements of " + std::to_string(total_) + ")";
    return true;
  }
  return scan_done;
}

}  // namespace hotkv::rdb

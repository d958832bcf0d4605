// Encoder: RDB bytes for lengths, strings and whole values, as Redis's rdbSave* writes
// them. Values use the plain encodings every Redis since 2.x loads (Redis 7.0 and 8.x
// included): STRING, LIST, SET, ZSET_2 (binary doubles), HASH; vector sets are Redis
// 8's "vectorset" module values (vector_set_codec.cc).
#include <liblzf/lzf.h>

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

}  // namespace hotkv::rdb

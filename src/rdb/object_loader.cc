// LoadObject: one RDB value (any object type Redis 2.x..8.x writes) into a new entry.
// Plain encodings are read element by element; packed blobs (ziplist, listpack, intset,
// zipmap) are validated whole first (blobs.h). Collections are built through the types/
// APIs with the caller's encoding limits, pre-sized from the counts (which Reader::Count
// has bounded by the bytes that remain). Duplicates, NaN scores and unknown types are
// errors; nothing is built half way: a failure frees whatever was made.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "rdb/blobs.h"
#include "rdb/extension_codec.h"
#include "rdb/format.h"
#include "rdb/json_codec.h"
#include "rdb/stream_codec.h"
#include "rdb/vector_set_codec.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"
#include "types/zset_builder.h"

namespace hotkv::rdb {
namespace {

using types::HashValue;
using types::ListValue;
using types::SetValue;
using types::ZSetBuilder;
using types::ZSetValue;

// Largest field expiry Redis's loader accepts (EB_EXPIRE_TIME_MAX).
constexpr uint64_t kMaxFieldExpireMs = (uint64_t{1} << 48) - 1;

// Redis's zzlStrtod: the score text of a packed zset (at most 127 bytes considered).
double ScoreFromText(std::string_view s) {
  char buf[128];
  size_t n = s.size() < sizeof(buf) - 1 ? s.size() : sizeof(buf) - 1;
  memcpy(buf, s.data(), n);
  buf[n] = '\0';
  return strtod(buf, nullptr);
}

class ObjectLoader {
 public:
  ObjectLoader(Reader& r, std::string_view key, bool expire_block,
               const types::EncodingLimits& limits, const types::ZSetLimits& zset_limits)
      : r_(r), key_(key), expire_block_(expire_block), limits_(limits), zset_limits_(zset_limits) {}

  // nullptr: error (r_ failed) or empty (r_ ok, empty_ set).
  Entry* Load(uint8_t type);
  bool empty() const { return empty_; }

 private:
  Entry* Empty() {
    empty_ = true;
    return nullptr;
  }
  template <typename T>
  Entry* Wrap(ValueType t, std::unique_ptr<T> v) {
    return Entry::NewObject(key_, t, v.release(), expire_block_);
  }

  Entry* LoadList(uint8_t type);
  Entry* LoadSet(uint8_t type);
  Entry* LoadZSet(uint8_t type);
  Entry* LoadHash(uint8_t type);
  // Hashes with field expiry (Redis 7.4+): HASH_METADATA(_PRE_GA), HASH_LISTPACK_EX(_PRE_GA).
  Entry* LoadHashWithTtls(uint8_t type);
  // Adds one loaded field (expiry at_ms, 0: none) to `hash`; false after r_.Fail.
  bool AddField(HashValue* hash, std::string_view f, std::string_view v, uint64_t at_ms);
  // Reads a blob string and decodes it with `decode`; false after r_.Fail.
  bool Blob(bool (*decode)(std::string_view, std::vector<BlobItem>*), const char* what);

  Entry* SetFromItems();
  Entry* ZSetFromItems();
  Entry* HashFromItems();

  Reader& r_;
  std::string_view key_;
  bool expire_block_;
  const types::EncodingLimits& limits_;
  const types::ZSetLimits& zset_limits_;
  bool empty_ = false;
  std::string s1_, s2_;
  std::vector<BlobItem> items_;
};

bool ObjectLoader::Blob(bool (*decode)(std::string_view, std::vector<BlobItem>*),
                        const char* what) {
  std::string_view blob;
  if (!r_.String(&s1_, &blob)) return false;
  if (!decode(blob, &items_)) return r_.Fail(std::string(what) + " integrity check failed.");
  return true;
}

Entry* ObjectLoader::Load(uint8_t type) {
  switch (type) {
    case kTypeString: {
      std::string_view v;
      if (!r_.String(&s1_, &v)) return nullptr;
      if (v.size() > UINT32_MAX) return r_.Fail("String too long"), nullptr;
      return Entry::NewString(key_, v, expire_block_);
    }
    case kTypeList:
    case kTypeListZiplist:
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      return LoadList(type);
    case kTypeSet:
    case kTypeSetIntset:
    case kTypeSetListpack:
      return LoadSet(type);
    case kTypeZSet:
    case kTypeZSet2:
    case kTypeZSetZiplist:
    case kTypeZSetListpack:
      return LoadZSet(type);
    case kTypeHash:
    case kTypeHashZipmap:
    case kTypeHashZiplist:
    case kTypeHashListpack:
      return LoadHash(type);
    case kTypeStreamListpacks:
    case kTypeStreamListpacks2:
    case kTypeStreamListpacks3:
    case kTypeStreamListpacks4:
    case kTypeStreamListpacks5:
      return LoadStream(r_, type, key_, expire_block_);
    case kTypeModulePreGa:
    case kTypeModule2: {
      uint64_t id;
      if (!r_.Len(&id)) return nullptr;
      if (type == kTypeModule2 && id == VectorSetModuleId()) {
        Entry* e = LoadVectorSet(r_, key_, expire_block_, &empty_);
        return e;
      }
      if (type == kTypeModule2 && IsJsonModuleId(id)) {
        return LoadJson(r_, key_, expire_block_);
      }
      if (type == kTypeModule2 && IsExtensionModuleId(id)) {
        return LoadExtension(r_, id, key_, expire_block_);  // engine/extension_value.h
      }
      r_.Fail("module type '" + ModuleNameFromId(id) + "' is not supported");
      return nullptr;
    }
    case kTypeHashMetadataPreGa:
    case kTypeHashListpackExPreGa:
    case kTypeHashMetadata:
    case kTypeHashListpackEx:
      return LoadHashWithTtls(type);
    default:
      r_.Fail("Unknown RDB encoding type " + std::to_string(type));
      return nullptr;
  }
}

Entry* ObjectLoader::LoadList(uint8_t type) {
  auto list = std::make_unique<ListValue>();
  auto push_items = [&] {
    char buf[types::kMaxIntDigits];
    for (const BlobItem& it : items_) list->PushBack(it.Text(buf), limits_);
  };
  if (type == kTypeListZiplist) {
    if (!Blob(DecodeZiplist, "Ziplist")) return nullptr;
    push_items();
  } else {
    uint64_t n;
    if (!r_.Count(&n, 1)) return nullptr;
    for (uint64_t i = 0; i < n; ++i) {
      if (type == kTypeList) {
        std::string_view v;
        if (!r_.String(&s1_, &v)) return nullptr;
        list->PushBack(v, limits_);
      } else if (type == kTypeListQuicklist) {
        if (!Blob(DecodeZiplist, "Ziplist")) return nullptr;
        push_items();  // an empty node is skipped, as Redis does
      } else {
        uint64_t container;
        if (!r_.Len(&container)) return nullptr;
        if (container == kQuicklistNodePlain) {
          std::string_view v;
          if (!r_.String(&s1_, &v)) return nullptr;
          list->PushBack(v, limits_);
        } else if (container == kQuicklistNodePacked) {
          if (!Blob(DecodeListpack, "Listpack")) return nullptr;
          push_items();
        } else {
          r_.Fail("Quicklist integrity check failed.");
          return nullptr;
        }
      }
    }
  }
  if (list->empty()) return Empty();
  return Wrap(ValueType::kList, std::move(list));
}

Entry* ObjectLoader::SetFromItems() {
  if (items_.empty()) return Empty();
  char buf[types::kMaxIntDigits];
  auto set = std::make_unique<SetValue>(
      SetValue::ForMembers(items_[0].Text(buf), items_.size(), limits_));
  for (const BlobItem& it : items_) {
    if (!set->Add(it.Text(buf), limits_)) {
      r_.Fail("Duplicate set members detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kSet, std::move(set));
}

Entry* ObjectLoader::LoadSet(uint8_t type) {
  if (type == kTypeSetIntset) {
    if (!Blob(DecodeIntset, "Intset")) return nullptr;
    return SetFromItems();
  }
  if (type == kTypeSetListpack) {
    if (!Blob(DecodeListpack, "Listpack")) return nullptr;
    return SetFromItems();
  }
  uint64_t n;
  if (!r_.Count(&n, 1)) return nullptr;
  if (n == 0) return Empty();
  std::string_view m;
  if (!r_.String(&s1_, &m)) return nullptr;
  auto set = std::make_unique<SetValue>(SetValue::ForMembers(m, n, limits_));
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0 && !r_.String(&s1_, &m)) return nullptr;
    if (!set->Add(m, limits_)) {
      r_.Fail("Duplicate set members detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kSet, std::move(set));
}

Entry* ObjectLoader::ZSetFromItems() {
  if (items_.empty()) return Empty();
  if (items_.size() % 2 != 0) {
    r_.Fail("Zset ziplist or listpack integrity check failed.");
    return nullptr;
  }
  ZSetBuilder builder(items_.size() / 2);
  char buf[types::kMaxIntDigits], buf2[types::kMaxIntDigits];
  for (size_t i = 0; i < items_.size(); i += 2) {
    const BlobItem& s = items_[i + 1];
    double score = s.is_int ? static_cast<double>(s.value) : ScoreFromText(s.Text(buf2));
    if (std::isnan(score)) {
      r_.Fail("Zset with NAN score detected");
      return nullptr;
    }
    if (!builder.Insert(items_[i].Text(buf), score)) {
      r_.Fail("Duplicate zset fields detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kZSet, std::make_unique<ZSetValue>(std::move(builder).Build(zset_limits_)));
}

Entry* ObjectLoader::LoadZSet(uint8_t type) {
  if (type == kTypeZSetZiplist) {
    if (!Blob(DecodeZiplist, "Ziplist")) return nullptr;
    return ZSetFromItems();
  }
  if (type == kTypeZSetListpack) {
    if (!Blob(DecodeListpack, "Listpack")) return nullptr;
    return ZSetFromItems();
  }
  uint64_t n;
  if (!r_.Count(&n, type == kTypeZSet ? 2 : 9)) return nullptr;
  if (n == 0) return Empty();
  ZSetBuilder builder(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view m;
    double score;
    if (!r_.String(&s1_, &m)) return nullptr;
    if (!(type == kTypeZSet ? r_.AsciiDouble(&score) : r_.BinaryDouble(&score))) return nullptr;
    if (std::isnan(score)) {
      r_.Fail("Zset with NAN score detected");
      return nullptr;
    }
    if (!builder.Insert(m, score)) {
      r_.Fail("Duplicate zset fields detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kZSet, std::make_unique<ZSetValue>(std::move(builder).Build(zset_limits_)));
}

Entry* ObjectLoader::HashFromItems() {
  if (items_.empty()) return Empty();
  if (items_.size() % 2 != 0) {
    r_.Fail("Hash ziplist or listpack integrity check failed.");
    return nullptr;
  }
  auto hash = std::make_unique<HashValue>();
  hash->ReserveFor(items_.size() / 2, limits_);
  char buf[types::kMaxIntDigits], buf2[types::kMaxIntDigits];
  for (size_t i = 0; i < items_.size(); i += 2) {
    if (!hash->Set(items_[i].Text(buf), items_[i + 1].Text(buf2), limits_)) {
      r_.Fail("Duplicate hash fields detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kHash, std::move(hash));
}

Entry* ObjectLoader::LoadHash(uint8_t type) {
  if (type == kTypeHashZipmap) {
    if (!Blob(DecodeZipmap, "Zipmap")) return nullptr;
    return HashFromItems();
  }
  if (type == kTypeHashZiplist) {
    if (!Blob(DecodeZiplist, "Ziplist")) return nullptr;
    return HashFromItems();
  }
  if (type == kTypeHashListpack) {
    if (!Blob(DecodeListpack, "Listpack")) return nullptr;
    return HashFromItems();
  }
  uint64_t n;
  if (!r_.Count(&n, 2)) return nullptr;
  if (n == 0) return Empty();
  auto hash = std::make_unique<HashValue>();
  hash->ReserveFor(n, limits_);
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view f, v;
    if (!r_.String(&s1_, &f) || !r_.String(&s2_, &v)) return nullptr;
    if (!hash->Set(f, v, limits_)) {
      r_.Fail("Duplicate hash fields detected");
      return nullptr;
    }
  }
  return Wrap(ValueType::kHash, std::move(hash));
}

bool ObjectLoader::AddField(HashValue* hash, std::string_view f, std::string_view v,
                            uint64_t at_ms) {
  if (at_ms > kMaxFieldExpireMs) {
    return r_.Fail("invalid expireAt time: " + std::to_string(at_ms));
  }
  if (!hash->Set(f, v, limits_)) {
    return r_.Fail("Duplicate hash fields detected");
  }
  if (at_ms != 0) {
    hash->SetExpireAt(f, static_cast<int64_t>(at_ms));
  }
  return true;
}

Entry* ObjectLoader::LoadHashWithTtls(uint8_t type) {
  uint64_t min_expire = 0;
  if (type == kTypeHashMetadata || type == kTypeHashListpackEx) {
    // The earliest expiry, saved for loaders that stream; the fields carry their own.
    if (!r_.U64Le(&min_expire)) return nullptr;
  }
  auto hash = std::make_unique<HashValue>();
  if (type == kTypeHashListpackEx || type == kTypeHashListpackExPreGa) {
    if (!Blob(DecodeListpack, "Hash listpackex")) return nullptr;
    if (items_.size() % 3 != 0) {
      r_.Fail("Hash listpackex integrity check failed.");
      return nullptr;
    }
    char buf[types::kMaxIntDigits], buf2[types::kMaxIntDigits];
    for (size_t i = 0; i < items_.size(); i += 3) {
      const BlobItem& ttl = items_[i + 2];  // field, value, expiry (0: none) triplets
      if (!ttl.is_int || ttl.value < 0) {
        r_.Fail("Hash listpackex integrity check failed.");
        return nullptr;
      }
      if (!AddField(hash.get(), items_[i].Text(buf), items_[i + 1].Text(buf2),
                    static_cast<uint64_t>(ttl.value))) {
        return nullptr;
      }
    }
  } else {
    uint64_t n;
    if (!r_.Count(&n, 3)) return nullptr;
    hash->ReserveFor(n, limits_);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t ttl;
      std::string_view f, v;
      if (!r_.Len(&ttl) || !r_.String(&s1_, &f) || !r_.String(&s2_, &v)) return nullptr;
      // GA: relative to the earliest expiry, plus one (0: none); pre-GA: absolute.
      const uint64_t at = type == kTypeHashMetadata && ttl != 0 ? ttl + min_expire - 1 : ttl;
      if (!AddField(hash.get(), f, v, at)) return nullptr;
    }
  }
  if (hash->empty()) return Empty();
  return Wrap(ValueType::kHash, std::move(hash));
}

}  // namespace

bool CanSkipValue(uint8_t type) {
  switch (type) {
    case kTypeString:
    case kTypeList: case kTypeListZiplist: case kTypeListQuicklist: case kTypeListQuicklist2:
    case kTypeSet: case kTypeSetIntset: case kTypeSetListpack:
    case kTypeZSet: case kTypeZSet2: case kTypeZSetZiplist: case kTypeZSetListpack:
    case kTypeHash: case kTypeHashZipmap: case kTypeHashZiplist: case kTypeHashListpack:
    case kTypeHashMetadataPreGa: case kTypeHashListpackExPreGa:
    case kTypeHashMetadata: case kTypeHashListpackEx:
      return true;
    default:
      return false;
  }
}

bool SkipValue(Reader& r, uint8_t type) {
  // The count checks are LoadObject's (r.Count's minimum bytes per item), so a corrupt
  // count fails here as it would there.
  uint64_t n;
  const uint8_t* p;
  switch (type) {
    case kTypeString:
    case kTypeListZiplist: case kTypeSetIntset: case kTypeSetListpack:
    case kTypeZSetZiplist: case kTypeZSetListpack:
    case kTypeHashZipmap: case kTypeHashZiplist: case kTypeHashListpack:
    case kTypeHashListpackExPreGa:
      return r.SkipString();
    case kTypeHashListpackEx:
      return r.Bytes(8, &p) && r.SkipString();
    case kTypeList: case kTypeSet: case kTypeListQuicklist:
      if (!r.Count(&n, 1)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!r.SkipString()) return false;
      }
      return true;
    case kTypeListQuicklist2:
      if (!r.Count(&n, 1)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t container;
        if (!r.Len(&container) || !r.SkipString()) return false;
      }
      return true;
    case kTypeHash:
      if (!r.Count(&n, 2)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!r.SkipString() || !r.SkipString()) return false;
      }
      return true;
    case kTypeZSet:
    case kTypeZSet2:
      if (!r.Count(&n, type == kTypeZSet ? 2 : 9)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!r.SkipString()) return false;
        if (type == kTypeZSet2) {
          if (!r.Bytes(8, &p)) return false;
          continue;
        }
        uint8_t len;
        if (!r.U8(&len)) return false;
        if (len < 253 && !r.Bytes(len, &p)) return false;  // 253..255: nan, +inf, -inf
      }
      return true;
    case kTypeHashMetadata:
    case kTypeHashMetadataPreGa:
      if (type == kTypeHashMetadata && !r.Bytes(8, &p)) return false;
      if (!r.Count(&n, 3)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t ttl;
        if (!r.Len(&ttl) || !r.SkipString() || !r.SkipString()) return false;
      }
      return true;
    default:
      return r.Fail("Unknown RDB encoding type " + std::to_string(type));
  }
}

Result<Entry*> LoadObject(Reader& r, uint8_t type, std::string_view key, bool expire_block,
                          const types::EncodingLimits& limits,
                          const types::ZSetLimits& zset_limits, bool* empty) {
  ObjectLoader loader(r, key, expire_block, limits, zset_limits);
  Entry* e = loader.Load(type);
  *empty = loader.empty();
  if (e != nullptr) return e;
  if (*empty) return Status::InvalidArgument("Empty keys are not allowed");
  return Status::InvalidArgument(r.error());
}

}  // namespace hotkv::rdb

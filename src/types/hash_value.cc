#include "types/hash_value.h"

#include <malloc.h>

#include <vector>

#include "types/sampling.h"

namespace hotkv::types {

HashValue HashValue::Clone() const {
  HashValue copy;
  if (table_) {
    copy.table_ = std::make_unique<StringTable>(table_->Clone());
  } else {
    copy.listpack_ = listpack_.Clone();
  }
  if (ttls_) {
    copy.ttls_ = std::make_unique<FieldTtls>(*ttls_);
  }
  return copy;
}

size_t HashValue::size() const { return table_ ? table_->size() : listpack_.size() / 2; }

const char* HashValue::EncodingName() const {
  if (table_) {
    return "hashtable";
  }
  return ttls_ ? "listpackex" : "listpack";
}

size_t HashValue::MemoryUsage() const {
  size_t bytes = 0;
  if (ttls_) {
    bytes += malloc_usable_size(ttls_.get()) + ttls_->MemoryUsage();
  }
  if (table_) {
    return bytes + malloc_usable_size(table_.get()) + table_->MemoryUsage();
  }
  return bytes + listpack_.MemoryUsage();
}

PackedArray::Pos HashValue::FindField(std::string_view field) const {
  return listpack_.Find(Probe(field), listpack_.Begin(), /*skip=*/1);
}

std::optional<Element> HashValue::Get(std::string_view field) const {
  if (table_) {
    std::optional<std::string_view> v = table_->Find(field);
    if (!v) {
      return std::nullopt;
    }
    return Element(*v);
  }
  const PackedArray::Pos p = FindField(field);
  if (p == listpack_.End()) {
    return std::nullopt;
  }
  return listpack_.Get(listpack_.Next(p));
}

bool HashValue::Contains(std::string_view field) const {
  if (table_) {
    return table_->Contains(field);
  }
  return FindField(field) != listpack_.End();
}

size_t HashValue::ValueLength(std::string_view field) const {
  if (table_) {
    std::optional<std::string_view> v = table_->Find(field);
    return v ? v->size() : 0;
  }
  const PackedArray::Pos p = FindField(field);
  return p == listpack_.End() ? 0 : listpack_.ValueSize(listpack_.Next(p));
}

bool HashValue::Set(std::string_view field, std::string_view value,
                    const EncodingLimits& limits, bool keep_ttl) {
  return Put(field, value, /*overwrite=*/true, keep_ttl, limits);
}

bool HashValue::SetIfAbsent(std::string_view field, std::string_view value,
                            const EncodingLimits& limits) {
  return Put(field, value, /*overwrite=*/false, /*keep_ttl=*/true, limits);
}

bool HashValue::Put(std::string_view field, std::string_view value, bool overwrite,
                    bool keep_ttl, const EncodingLimits& limits) {
  if (overwrite && !keep_ttl && HasFieldTtls() && ttls_->Erase(field) && !table_ &&
      value.size() <= limits.hash_max_listpack_value) {
    // The field loses its TTL (HSET): it moves to the end of a listpackex, as in Redis.
    listpack_.Erase(FindField(field), 2);
    listpack_.PushBack(field);
    listpack_.PushBack(value);
    return false;
  }
  if (!table_) {
    if (field.size() > limits.hash_max_listpack_value ||
        value.size() > limits.hash_max_listpack_value) {
      ConvertToTable(size() + 1);
    } else {
      const PackedArray::Pos p = FindField(field);
      if (p != listpack_.End()) {
        if (overwrite) {
          listpack_.Replace(listpack_.Next(p), value);
        }
        return false;
      }
      listpack_.PushBack(field);
      listpack_.PushBack(value);
      if (size() > limits.hash_max_listpack_entries) {
        ConvertToTable(size());
      }
      return true;
    }
  }
  return table_->Set(field, value, overwrite);
}

void HashValue::ReserveFor(size_t new_fields, const EncodingLimits& limits) {
  if (!table_ && new_fields > limits.hash_max_listpack_entries) {
    ConvertToTable(size() + new_fields);
  }
}

void HashValue::ConvertToTable(size_t expected) {
  auto table = std::make_unique<StringTable>(/*with_values=*/true, expected);
  for (PackedArray::Pos p = listpack_.Begin(); p != listpack_.End();) {
    const Element field = listpack_.Get(p);
    p = listpack_.Next(p);
    const Element value = listpack_.Get(p);
    p = listpack_.Next(p);
    table->Set(field.view(), value.view());
  }
  listpack_.Clear();
  table_ = std::move(table);
}

bool HashValue::Erase(std::string_view field) {
  if (ttls_) {
    ttls_->Erase(field);
  }
  if (table_) {
    return table_->Erase(field);
  }
  const PackedArray::Pos p = FindField(field);
  if (p == listpack_.End()) {
    return false;
  }
  listpack_.Erase(p, 2);
  return true;
}

void HashValue::SetExpireAt(std::string_view field, int64_t at_ms) {
  EnableFieldTtls();
  ttls_->Set(field, at_ms);
  if (!table_) {
    Reposition(field, at_ms);
  }
}

bool HashValue::Persist(std::string_view field) {
  if (!HasFieldTtls() || !ttls_->Erase(field)) {
    return false;
  }
  if (!table_) {
    Reposition(field, 0);
  }
  return true;
}

void HashValue::Reposition(std::string_view field, int64_t at_ms) {
  const PackedArray::Pos p = FindField(field);
  const std::string name(field);
  const std::string value(listpack_.Get(listpack_.Next(p)).view());
  listpack_.Erase(p, 2);
  // Before the first field with an expiry >= at_ms (no expiry counts as infinite).
  PackedArray::Pos at = listpack_.End();
  if (at_ms != 0) {
    for (PackedArray::Pos q = listpack_.Begin(); q != listpack_.End();
         q = listpack_.Next(listpack_.Next(q))) {
      const int64_t other = ttls_->Get(listpack_.Get(q).view());
      if (other == 0 || other >= at_ms) {
        at = q;
        break;
      }
    }
  }
  at = listpack_.Insert(at, name);
  listpack_.Insert(listpack_.Next(at), value);
}

void HashValue::ForEachWithTtl(
    FunctionRef<bool(std::string_view field, std::string_view value, int64_t at_ms)> visit)
    const {
  ForEach([&](std::string_view field, std::string_view value) {
    return visit(field, value, ExpireAt(field));
  });
}

void HashValue::ForEachLive(
    int64_t now_ms,
    FunctionRef<bool(std::string_view field, std::string_view value)> visit) const {
  if (!HasDueFields(now_ms)) {
    ForEach(visit);
    return;
  }
  ForEach([&](std::string_view field, std::string_view value) {
    return IsExpired(field, now_ms) || visit(field, value);
  });
}

void HashValue::ForEach(
    FunctionRef<bool(std::string_view field, std::string_view value)> visit) const {
  if (table_) {
    table_->ForEach(visit);
    return;
  }
  for (PackedArray::Pos p = listpack_.Begin(); p != listpack_.End();) {
    const Element field = listpack_.Get(p);
    p = listpack_.Next(p);
    const Element value = listpack_.Get(p);
    p = listpack_.Next(p);
    if (!visit(field.view(), value.view())) {
      return;
    }
  }
}

uint64_t HashValue::Scan(
    uint64_t cursor, size_t count,
    FunctionRef<void(std::string_view field, std::string_view value)> emit) const {
  if (table_) {
    return table_->Scan(cursor, count, emit);
  }
  ForEach([&](std::string_view field, std::string_view value) {
    emit(field, value);
    return true;
  });
  return 0;
}

void HashValue::RandomFields(
    int64_t count, Rng& rng,
    FunctionRef<void(std::string_view field, std::string_view value)> emit) const {
  if (table_) {
    table_->Sample(count, rng, emit);
    return;
  }
  std::vector<PackedArray::Pos> fields;
  fields.reserve(size());
  for (PackedArray::Pos p = listpack_.Begin(); p != listpack_.End();
       p = listpack_.Next(listpack_.Next(p))) {
    fields.push_back(p);
  }
  SampleIndexes(fields.size(), count, rng, [&](size_t i) {
    const Element field = listpack_.Get(fields[i]);
    const Element value = listpack_.Get(listpack_.Next(fields[i]));
    emit(field.view(), value.view());
  });
}

}  // namespace hotkv::types

// HashValue: the value of a Redis hash (field -> value, both binary-safe strings).
//
// Encodings, named as Redis names them (OBJECT ENCODING):
//   "listpack"  — a forward PackedArray of alternating field, value entries, scanned
//                 linearly. Used while the hash has at most hash-max-listpack-entries
//                 fields and no field or value longer than hash-max-listpack-value.
//   "hashtable" — a StringTable whose entries hold field and value in one allocation.
// A hash converts to "hashtable" as soon as it crosses either limit and never converts
// back (as in Redis). Order of iteration is insertion order for "listpack" and
// unspecified for "hashtable".
//
// Every hash command is a thin wrapper:
//   HSET/HMSET        Set(field, value, limits) per pair (true = new field); a command
//                     with many pairs may first call ReserveFor(pairs, limits)
//   HSETNX            SetIfAbsent
//   HGET/HMGET        Get (an Element; see element.h for its lifetime)
//   HEXISTS HSTRLEN   Contains, ValueLength
//   HDEL HLEN         Erase, size
//   HKEYS HVALS HGETALL  ForEach
//   HINCRBY(FLOAT)    Get, parse and format in the command layer, Set
//   HRANDFIELD        RandomFields(count, rng, emit): count > 0 distinct, < 0 may repeat
//   HSCAN             Scan(cursor, count, emit) -> next cursor; "listpack" returns all
//                     fields in one call with cursor 0, like Redis
// Views handed to callbacks are valid during the call only, and callbacks must not
// modify the hash.
//
// Per-field expiry (HEXPIRE & co.): a hash that got a field TTL owns a FieldTtls side index
// (field_ttls.h); one without never pays for it. Such a small hash is "listpackex" (as in
// Redis 7.4+, it stays so even once no field has a TTL any more) and keeps Redis's
// listpackex order: fields with a TTL first, by expiry (a new one before equal ones), then
// the others in insertion order — a field whose TTL goes moves to the end. The value
// layer knows no clock: size() and ForEach include fields whose time has passed; the
// command layer skips or deletes them (see hash_family_expiry.h) and the engine's active
// cycle reclaims them (DueFields).
//   HEXPIRE...        SetExpireAt / ExpireAt       HPERSIST  Persist
//   HSET              Set clears a field's TTL     HINCRBY, HSETEX KEEPTTL: keep_ttl
//
// Thread safety: none; the engine holds the key's shard lock around every call.

#ifndef HOTKV_TYPES_HASH_VALUE_H_
#define HOTKV_TYPES_HASH_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/element.h"
#include "types/encoding_limits.h"
#include "types/field_ttls.h"
#include "types/function_ref.h"
#include "types/packed_array.h"
#include "common/random.h"
#include "types/string_table.h"

namespace hotkv::types {

class HashValue {
 public:
  enum class Encoding : uint8_t { kListpack, kHashtable };
  // Largest expiry a field may have (Redis's HFE_MAX_ABS_TIME_MSEC, 2^46 - 1 ms).
  static constexpr int64_t kMaxExpireMs = (int64_t{1} << 46) - 1;

  HashValue() = default;
  HashValue(HashValue&&) noexcept = default;
  HashValue& operator=(HashValue&&) noexcept = default;

  // A deep copy (COPY).
  HashValue Clone() const;

  size_t size() const;
  bool empty() const { return size() == 0; }
  Encoding encoding() const { return table_ ? Encoding::kHashtable : Encoding::kListpack; }
  // "listpack", "listpackex" or "hashtable".
  const char* EncodingName() const;
  // Heap bytes this hash owns (not counting sizeof(HashValue)).
  size_t MemoryUsage() const;

  std::optional<Element> Get(std::string_view field) const;
  bool Contains(std::string_view field) const;
  // Length of the field's value; 0 if the field does not exist (HSTRLEN).
  size_t ValueLength(std::string_view field) const;

  // Sets field to value; returns true if the field is new. A TTL the field had goes
  // unless `keep_ttl` (HINCRBY, HSETEX KEEPTTL).
  bool Set(std::string_view field, std::string_view value, const EncodingLimits& limits,
           bool keep_ttl = false);
  // Sets field to value only if the field does not exist; returns true if it was set.
  bool SetIfAbsent(std::string_view field, std::string_view value,
                   const EncodingLimits& limits);
  // Returns true if the field existed.
  bool Erase(std::string_view field);
  // Converts up front when a command will add more fields than "listpack" may hold, as
  // Redis's HSET does. Optional: Set converts on its own when the limit is crossed.
  void ReserveFor(size_t new_fields, const EncodingLimits& limits);

  // ---- field expiry ----
  // Whether some field has a TTL.
  bool HasFieldTtls() const { return ttls_ != nullptr && !ttls_->empty(); }
  // Whether some field's time has come (expiry <= now_ms).
  bool HasDueFields(int64_t now_ms) const {
    return HasFieldTtls() && ttls_->Min() <= now_ms;
  }
  // The earliest field expiry, 0 when none.
  int64_t MinExpire() const { return ttls_ ? ttls_->Min() : 0; }
  // The field's expiry in Unix ms, 0 when it has none (or does not exist).
  int64_t ExpireAt(std::string_view field) const { return ttls_ ? ttls_->Get(field) : 0; }
  // Whether the field exists and its time has come.
  bool IsExpired(std::string_view field, int64_t now_ms) const {
    const int64_t at = ExpireAt(field);
    return at != 0 && at <= now_ms;
  }
  // Makes a "listpack" hash "listpackex" without giving any field a TTL (Redis converts on
  // every HEXPIRE-family command and on HGETEX with an option, whatever they change).
  void EnableFieldTtls() {
    if (!ttls_) {
      ttls_ = std::make_unique<FieldTtls>();
    }
  }
  // Sets the expiry of an existing field (at_ms > 0).
  void SetExpireAt(std::string_view field, int64_t at_ms);
  // Removes the field's TTL; returns whether it had one.
  bool Persist(std::string_view field);
  // Up to `limit` fields whose time has come, earliest first.
  std::vector<std::string> DueFields(int64_t now_ms, size_t limit) const {
    return ttls_ ? ttls_->Due(now_ms, limit) : std::vector<std::string>();
  }
  // Visits every field, value and expiry (0: none) until `visit` returns false.
  void ForEachWithTtl(
      FunctionRef<bool(std::string_view field, std::string_view value, int64_t at_ms)> visit)
      const;
  // ForEach without the fields whose time has come.
  void ForEachLive(int64_t now_ms,
                   FunctionRef<bool(std::string_view field, std::string_view value)> visit) const;

  // Visits every field and value until `visit` returns false.
  void ForEach(FunctionRef<bool(std::string_view field, std::string_view value)> visit) const;
  // One HSCAN step; returns the next cursor (0 = done). See StringTable::Scan.
  uint64_t Scan(uint64_t cursor, size_t count,
                FunctionRef<void(std::string_view field, std::string_view value)> emit) const;
  // HRANDFIELD with a count: count > 0 emits min(count, size()) distinct fields,
  // count < 0 emits -count fields that may repeat (callers bound -count). Without a
  // count, HRANDFIELD is RandomFields(1, ...).
  void RandomFields(int64_t count, Rng& rng,
                    FunctionRef<void(std::string_view field, std::string_view value)> emit) const;

 private:
  bool Put(std::string_view field, std::string_view value, bool overwrite, bool keep_ttl,
           const EncodingLimits& limits);
  // listpackex order: moves the field's pair to where its expiry (0: none) belongs.
  void Reposition(std::string_view field, int64_t at_ms);
  void ConvertToTable(size_t expected);
  // Position of `field` in the listpack, or End().
  PackedArray::Pos FindField(std::string_view field) const;

  PackedArray listpack_;                // "listpack" encoding: field, value, field, ...
  std::unique_ptr<StringTable> table_;  // "hashtable" encoding when set
  std::unique_ptr<FieldTtls> ttls_;     // field expiry, once a field got a TTL
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_HASH_VALUE_H_

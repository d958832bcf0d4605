// FieldTtls: the expiry times of the fields of one hash that have one (HEXPIRE & co.).
//
// A side index owned by HashValue only once a field of that hash got a TTL, so hashes
// that never had one pay nothing per field (one null pointer per hash). Two ordered
// views of the same pairs:
//   by field  field -> absolute expiry in Unix ms   (HTTL, HPERSIST, lazy checks)
//   by time   (expiry, field) ascending             (the earliest expiry for the active
//                                                    expiry cycle, the fields that are due)
// The by-time view refers to the by-field node's key (std::map nodes do not move), so a
// field's name is stored once. Cost per field with a TTL: two tree nodes (~130 bytes with
// the field name inline up to 15 bytes), against Redis's 24-byte ExpireMeta — accepted for
// simplicity; TTL-less hashes (the common case) are not affected.
//
// Thread safety: none; the engine holds the key's shard lock around every call.

#ifndef HOTKV_TYPES_FIELD_TTLS_H_
#define HOTKV_TYPES_FIELD_TTLS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "types/function_ref.h"

namespace hotkv::types {

class FieldTtls {
 public:
  FieldTtls() = default;
  FieldTtls(const FieldTtls& other) { *this = other; }
  FieldTtls& operator=(const FieldTtls& other);

  size_t size() const { return by_field_.size(); }
  bool empty() const { return by_field_.empty(); }

  // The expiry of `field` in Unix ms, 0 when it has none.
  int64_t Get(std::string_view field) const;
  // Sets (or replaces) the expiry of `field`; `at_ms` > 0.
  void Set(std::string_view field, int64_t at_ms);
  // Removes the expiry of `field`; returns whether it had one.
  bool Erase(std::string_view field);
  // The earliest expiry, 0 when empty.
  int64_t Min() const { return by_time_.empty() ? 0 : by_time_.begin()->first; }
  // Up to `limit` fields whose expiry is <= now_ms, earliest first.
  std::vector<std::string> Due(int64_t now_ms, size_t limit) const;
  // Visits every (field, expiry) in field order.
  void ForEach(FunctionRef<void(std::string_view field, int64_t at_ms)> visit) const;
  // Heap bytes (estimated from node sizes; long field names counted too).
  size_t MemoryUsage() const;

 private:
  std::map<std::string, int64_t, std::less<>> by_field_;
  std::set<std::pair<int64_t, std::string_view>> by_time_;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_FIELD_TTLS_H_

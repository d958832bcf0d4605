// SetValue: the value of a Redis set (distinct binary-safe strings).
//
// Encodings, named as Redis 7.2 names them (OBJECT ENCODING):
//   "intset"    — an IntSet, while every member is a canonical integer (see
//                 ParseCanonicalInt) and there are at most set-max-intset-entries.
//   "listpack"  — a forward PackedArray of members, while there are at most
//                 set-max-listpack-entries members of at most set-max-listpack-value bytes.
//   "hashtable" — a key-only StringTable.
// Conversions follow Redis: an intset that grows past its limit becomes a hashtable; a
// non-integer member turns an intset into a listpack if it fits the listpack limits
// (counting the intset's longest integer text), else into a hashtable; a listpack that
// outgrows its limits becomes a hashtable. Never back.
//
// Commands as thin wrappers:
//   SADD SREM SISMEMBER SMISMEMBER SCARD   Add(member, limits), Remove, Contains, size;
//                       for a new key SADD uses SetValue::ForMembers(first, count, limits)
//                       and for an existing one ReserveFor(count, limits), as Redis does
//   SMEMBERS            ForEach
//   SPOP [count]        Pop(rng) / Pop(count, rng) — removes and returns copies
//   SRANDMEMBER [count] RandomMembers(count, rng, emit): > 0 distinct, < 0 may repeat
//   SMOVE               src.Remove(m) then dst.Add(m, limits)
//   SSCAN               Scan(cursor, count, emit) -> next cursor; intset and listpack
//                       return everything in one call with cursor 0, as Redis does
//   SINTER SUNION SDIFF SINTERCARD (and *STORE)  ForEach over one set + Contains on
//                       the others + Add into the destination
// Views handed to callbacks are valid during the call only, and callbacks must not
// modify the set.
//
// Thread safety: none; the engine holds the key's shard lock around every call.

#ifndef HOTKV_TYPES_SET_VALUE_H_
#define HOTKV_TYPES_SET_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "types/encoding_limits.h"
#include "types/function_ref.h"
#include "types/intset.h"
#include "types/packed_array.h"
#include "common/random.h"
#include "types/string_table.h"

namespace hotkv::types {

class SetValue {
 public:
  enum class Encoding : uint8_t { kIntset, kListpack, kHashtable };

  // An empty set in the "intset" encoding (the first non-integer member moves it on).
  SetValue() = default;
  // An empty set in the encoding Redis picks for a new key about to receive
  // `size_hint` members, the first being `first_member` (SADD, SMOVE, *STORE).
  static SetValue ForMembers(std::string_view first_member, size_t size_hint,
                             const EncodingLimits& limits);

  SetValue(SetValue&&) noexcept = default;
  SetValue& operator=(SetValue&&) noexcept = default;

  // A deep copy (COPY).
  SetValue Clone() const;

  size_t size() const;
  bool empty() const { return size() == 0; }
  Encoding encoding() const { return static_cast<Encoding>(rep_.index()); }
  // "intset", "listpack" or "hashtable".
  const char* EncodingName() const;
  // Heap bytes this set owns (not counting sizeof(SetValue)).
  size_t MemoryUsage() const;

  bool Contains(std::string_view member) const;
  // Returns true if the member was added (false: already present).
  bool Add(std::string_view member, const EncodingLimits& limits);
  // Returns true if the member was removed (false: absent).
  bool Remove(std::string_view member);
  // Converts to "hashtable" up front when a command is about to add `new_members`
  // members beyond what the compact encoding may hold (Redis's SADD does this).
  void ReserveFor(size_t new_members, const EncodingLimits& limits);

  // Visits every member until `visit` returns false. Order: ascending for "intset",
  // insertion order for "listpack", unspecified for "hashtable".
  void ForEach(FunctionRef<bool(std::string_view member)> visit) const;
  // One SSCAN step; returns the next cursor (0 = done).
  uint64_t Scan(uint64_t cursor, size_t count,
                FunctionRef<void(std::string_view member)> emit) const;
  // SRANDMEMBER with a count: count > 0 emits min(count, size()) distinct members,
  // count < 0 emits -count members that may repeat (callers bound -count).
  void RandomMembers(int64_t count, Rng& rng,
                     FunctionRef<void(std::string_view member)> emit) const;
  // SPOP without a count: removes and returns a random member; nullopt if empty.
  std::optional<std::string> Pop(Rng& rng);
  // SPOP with a count: removes and returns min(count, size()) distinct random members.
  std::vector<std::string> Pop(size_t count, Rng& rng);

 private:
  using Rep = std::variant<IntSet, PackedArray, std::unique_ptr<StringTable>>;

  explicit SetValue(Rep rep) : rep_(std::move(rep)) {}
  void ConvertToTable(size_t expected);
  void ConvertToListpack();

  Rep rep_;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_SET_VALUE_H_

// StringTable: the memory-compact hash table behind the "hashtable" encodings of hashes
// (field -> value) and sets (member only).
//
// Layout. Each element is ONE allocation, the entry: [varint key length][key] followed,
// in tables with values, by [varint value length][value]. The table is an open-addressing
// array of 8-byte slots with Robin Hood linear probing; a slot is 0 (empty) or
//
//   bits 0..47  the entry's address        (user-space addresses fit in 48 bits)
//   bits 48..55 8 bits of the key's hash   (rejects most non-matching slots unread)
//   bits 56..63 distance from the home slot (Robin Hood order, early exit, no tombstones)
//
// The home slot of a key is the top log2(capacity) bits of its hash. The table doubles
// past 3/4 load and halves below 1/8, so one element costs its entry (a 6-byte field with
// an 8-byte value is a 16-byte entry) plus 8/load bytes of slots: measured 41 bytes per
// field of a 1,000,000-field hash under glibc (47 under mimalloc's 32-byte class for
// 17-byte entries), where Redis 7.0 spends a dictEntry, two sds strings and a bucket
// pointer (64-71 bytes). See bench/notes/2026-11-30-collection-types-memory-and-ops.md.
// Deletion shifts the following cluster back (no tombstones). Resizing rehashes in one go
// (no incremental rehash yet).
//
// Scan. Because the home slot is a prefix of the hash, a cursor is a position in hash
// space: Scan(c) visits the home buckets from the one containing c onwards and returns
// the start of the next unvisited bucket, 0 when done. A resize between calls only
// splits or merges buckets around that position, so an element present for the whole
// scan is returned at least once (possibly twice after a shrink) — Redis's guarantee.
//
// Per-field expiry lives beside the table (types/field_ttls.h); the entries could also
// carry it: they are at least 8-byte aligned, so the low bits of a slot are free to mark
// entries with an expiry timestamp in front of the key.
//
// Thread safety: none; callers serialise access.

#ifndef HOTKV_TYPES_STRING_TABLE_H_
#define HOTKV_TYPES_STRING_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/function_ref.h"
#include "common/random.h"

namespace hotkv::types {

class StringTable {
 public:
  // `with_values`: entries hold a value after the key (hashes) or only the key (sets).
  // `expected`: sizes the slot array for that many elements up front.
  explicit StringTable(bool with_values, size_t expected = 0);
  ~StringTable();
  StringTable(StringTable&& other) noexcept;
  StringTable& operator=(StringTable&& other) noexcept;
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  StringTable Clone() const;

  size_t size() const { return size_; }
  size_t capacity() const { return size_t{1} << log2_capacity_; }
  // Slot array plus every entry's usable allocation size.
  size_t MemoryUsage() const;

  bool Contains(std::string_view key) const { return FindSlot(key) != kNone; }
  // The value stored for `key` (tables with values).
  std::optional<std::string_view> Find(std::string_view key) const;

  // Adds `key` (key-only tables); false if it was present.
  bool Insert(std::string_view key);
  // Adds key -> value, or replaces the value when `key` is present and `overwrite`;
  // returns true if the key was added.
  bool Set(std::string_view key, std::string_view value, bool overwrite = true);
  // Returns false if `key` was absent.
  bool Erase(std::string_view key);
  // Removes a uniformly random element and returns its key (size() > 0).
  std::string PopRandom(Rng& rng);

  // Visits every element (value is empty in key-only tables) until `visit` returns false.
  void ForEach(FunctionRef<bool(std::string_view key, std::string_view value)> visit) const;
  // One step of a cursor scan (see the overview): visits home buckets from `cursor` until
  // about `count` elements were emitted or 10 * count buckets were visited; returns the
  // next cursor, 0 when the scan is complete.
  uint64_t Scan(uint64_t cursor, size_t count,
                FunctionRef<void(std::string_view key, std::string_view value)> emit) const;
  // Random elements with HRANDFIELD/SRANDMEMBER semantics: count > 0 gives
  // min(count, size()) distinct elements, count < 0 gives -count elements that may repeat.
  void Sample(int64_t count, Rng& rng,
              FunctionRef<void(std::string_view key, std::string_view value)> emit) const;

 private:
  static constexpr size_t kNone = SIZE_MAX;

  size_t mask() const { return capacity() - 1; }
  size_t Home(uint64_t hash) const { return static_cast<size_t>(hash >> (64 - log2_capacity_)); }
  size_t FindSlot(std::string_view key) const;
  size_t FindSlot(std::string_view key, uint64_t hash) const;
  size_t RandomSlot(Rng& rng) const;
  std::string_view KeyAt(size_t slot) const;
  std::string_view ValueAt(size_t slot) const;
  char* MakeEntry(std::string_view key, std::string_view value) const;
  size_t EntrySize(const char* entry) const;
  // Places an entry known to be absent; grows first if the table is full.
  void Add(char* entry, uint64_t hash);
  void Place(char* entry, uint64_t hash);
  void EraseSlot(size_t slot);
  void Rehash(uint8_t log2_capacity);

  uint64_t* slots_ = nullptr;
  size_t size_ = 0;
  size_t entry_bytes_ = 0;  // sum of the entries' usable allocation sizes
  uint8_t log2_capacity_ = 0;
  bool with_values_;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_STRING_TABLE_H_

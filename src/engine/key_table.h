// KeyTable: the hash table of one shard's keys in one database.
//
// Open addressing with linear probing over 8-byte slots. A slot holds the Entry pointer
// in its low 48 bits and the top 16 bits of the key's hash in the high bits, so most
// probes that hit another key are rejected without touching that key's memory. Deletion
// shifts later members of the probe run back (no tombstones). Capacity is a power of two,
// grown at 3/4 load and shrunk below 1/8; shards are small (the keyspace is split into
// many), so a resize moves a few thousand pointers, never millions.
//
// A key's home bucket is the TOP log2(capacity) bits of its hash. Up to 65536 slots
// those bits are in the slot's tag, so growing, shrinking, deleting (backward shift) and
// scanning compute every home from the slots alone and never read an entry (a cache
// miss per key, and a hash of its bytes) — inserts of new keys pay for resizes.
//
// Scan() iterates by home bucket in increasing order with the cursor kept as a 32-bit
// hash prefix (home << (32 - bits)). When the table doubles, bucket h becomes 2h and
// 2h+1, so a key present for the whole iteration is returned at least once even if the
// table grows or shrinks in between, and never from two cursors of the same table size.
//
// Thread safety: none; the shard lock protects it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/entry.h"

namespace hotkv {

class KeyTable {
 public:
  static constexpr size_t kNotFound = ~size_t{0};

  KeyTable() = default;
  ~KeyTable();
  KeyTable(const KeyTable&) = delete;
  KeyTable& operator=(const KeyTable&) = delete;
  KeyTable(KeyTable&& o) noexcept;
  KeyTable& operator=(KeyTable&& o) noexcept;

  size_t size() const { return size_; }
  size_t capacity() const { return mask_ ? mask_ + 1 : 0; }
  bool empty() const { return size_ == 0; }

  // Position of `key` or kNotFound. `hash` is HashKey(key).
  size_t Find(std::string_view key, uint64_t hash) const;
  Entry* At(size_t pos) const { return Pointer(slots_[pos]); }
  // Replaces the entry at pos with a re-allocated block of the same key.
  void Replace(size_t pos, Entry* e) { slots_[pos] = (slots_[pos] & kTagMask) | Bits(e); }
  // Position of the slot holding exactly the pointer `e` (inserted with `hash`), or
  // kNotFound. Reads no entry: `e` may be a block already freed (compared only).
  size_t FindPointer(uint64_t hash, const Entry* e) const;
  // Inserts an entry whose key is not present. Returns its position.
  size_t Insert(uint64_t hash, Entry* e);
  // Removes the entry at pos (does not free it). Positions of others may change.
  void EraseAt(size_t pos);
  // Removes every entry, calling free_fn(Entry*) on each.
  template <typename F>
  void Clear(F free_fn);

  // Calls fn(Entry*) for the keys of one scan step; returns the next cursor (0 = done).
  template <typename F>
  uint64_t Scan(uint64_t cursor, F fn) const;

  // Calls fn(Entry*) on entries until it returns false.
  template <typename F>
  void ForEachWhile(F fn) const {
    for (size_t i = 0; i <= mask_ && slots_ != nullptr; i++) {
      if (slots_[i] != 0 && !fn(Pointer(slots_[i]))) {
        return;
      }
    }
  }

  template <typename F>
  void ForEach(F fn) const {
    for (size_t i = 0; i <= mask_ && slots_ != nullptr; i++) {
      if (slots_[i] != 0) {
        fn(Pointer(slots_[i]));
      }
    }
  }

  // A random occupied position (table must be non-empty); `rnd` is a random number.
  size_t RandomPosition(uint64_t rnd) const;

  // Bytes of slot memory (for INFO memory accounting).
  size_t SlotBytes() const { return capacity() * sizeof(uint64_t); }

  // Position of the entry at the given slot index, or kNotFound if empty (for sampling).
  bool Occupied(size_t pos) const { return slots_[pos] != 0; }

  // ---- prefetch support (lookups, MGET, pipeline-prefetch) ----
  // The lines a read of the entry at `e` touches: header and key, then a string value
  // of up to ~250 bytes (a 256-byte value ends in the fifth line). Fetched together they
  // cost one memory latency instead of two (~400 ns a miss on the bench VM); lines past
  // a small entry are wasted bandwidth, nothing more.
  static void PrefetchEntryLines(const void* e) {
    for (int line = 0; line < 5; line++) {
      __builtin_prefetch(static_cast<const char*>(e) + 64 * line);
    }
  }
  // The two below may run WITHOUT the shard lock, racing with writers: they read with
  // relaxed atomic loads, may see stale values, and their results are only ever handed
  // to __builtin_prefetch, which never faults and never changes behaviour.
  const void* PrefetchSlotAddress(uint64_t hash) const {
    uint64_t* slots = __atomic_load_n(&slots_, __ATOMIC_RELAXED);
    size_t mask = __atomic_load_n(&mask_, __ATOMIC_RELAXED);
    unsigned shift = __atomic_load_n(&shift_, __ATOMIC_RELAXED);
    return slots == nullptr || shift >= 64 ? nullptr : slots + ((hash >> shift) & mask);
  }
  // The entry in the key's home slot if its hash tag matches (likely the key).
  const void* PrefetchEntryAddress(uint64_t hash) const {
    uint64_t* slots = __atomic_load_n(&slots_, __ATOMIC_RELAXED);
    size_t mask = __atomic_load_n(&mask_, __ATOMIC_RELAXED);
    unsigned shift = __atomic_load_n(&shift_, __ATOMIC_RELAXED);
    if (slots == nullptr || shift >= 64) {
      return nullptr;
    }
    uint64_t s = __atomic_load_n(slots + ((hash >> shift) & mask), __ATOMIC_RELAXED);
    return (s & kTagMask) == Tag(hash) ? reinterpret_cast<const void*>(s & kPtrMask) : nullptr;
  }

 private:
  static constexpr uint64_t kPtrMask = (uint64_t{1} << 48) - 1;
  static constexpr uint64_t kTagMask = ~kPtrMask;
  static uint64_t Tag(uint64_t hash) { return hash & kTagMask; }
  static uint64_t Bits(Entry* e) { return reinterpret_cast<uint64_t>(e); }
  static Entry* Pointer(uint64_t slot) { return reinterpret_cast<Entry*>(slot & kPtrMask); }
  size_t Home(uint64_t hash) const { return shift_ >= 64 ? 0 : static_cast<size_t>(hash >> shift_); }
  // The home bucket of an occupied slot: from its tag while the home bits fit in it.
  size_t HomeOfSlot(uint64_t slot) const {
    return shift_ >= 48 ? Home(slot) : Home(HashOf(Pointer(slot)));
  }
  static uint64_t HashOf(const Entry* e);
  void Resize(size_t new_capacity);
  void SetCapacity(size_t capacity);

  uint64_t* slots_ = nullptr;
  size_t mask_ = 0;
  size_t size_ = 0;
  unsigned shift_ = 64;  // 64 - log2(capacity)
};

template <typename F>
void KeyTable::Clear(F free_fn) {
  if (slots_ != nullptr) {
    for (size_t i = 0; i <= mask_; i++) {
      if (slots_[i] != 0) {
        free_fn(Pointer(slots_[i]));
      }
    }
  }
  delete[] slots_;
  slots_ = nullptr;
  mask_ = 0;
  size_ = 0;
  shift_ = 64;
}

template <typename F>
uint64_t KeyTable::Scan(uint64_t cursor, F fn) const {
  if (size_ == 0) {
    return 0;
  }
  const unsigned bits = 64 - shift_;  // log2(capacity), at most 32 in practice
  const unsigned down = bits >= 32 ? 0 : 32 - bits;
  const size_t home = static_cast<size_t>((cursor & 0xffffffffu) >> down) & mask_;
  // Every member of home bucket `home` lies in the probe run that starts at `home`.
  for (size_t i = home;; i = (i + 1) & mask_) {
    uint64_t s = slots_[i];
    if (s == 0) {
      break;
    }
    if (HomeOfSlot(s) == home) {
      fn(Pointer(s));
    }
    if (((i + 1) & mask_) == home) {
      break;
    }
  }
  const uint64_t next = (static_cast<uint64_t>(home) + 1) << down;
  return next >= (uint64_t{1} << 32) ? 0 : next;
}

}  // namespace hotkv

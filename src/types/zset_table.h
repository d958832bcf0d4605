// ZMemberTable: the member -> entry index of a large zset (ZSCORE, ZADD, ZREM in O(1)).
//
// Open addressing with linear probing and Robin Hood placement. A slot is 8 bytes:
// the entry pointer (low 48 bits), the distance from the entry's home slot (8 bits)
// and 8 bits of the member hash as a tag, so a probe dereferences an entry only when
// the tag matches. The table does not own the entries.
//
// The home slot is fastrange(hash, capacity) = (hash * capacity) >> 64, which is
// monotone in the hash, and there is no wrap-around (a few overflow slots follow the
// last home slot). Robin Hood placement keeps the slots sorted by home, hence by
// hash. That gives:
//   * any capacity, not just powers of two: the table grows by 1.5x at 90% load and
//     averages ~75% full (about 11 bytes per member);
//   * a SCAN cursor that is a position in hash space, not a slot index: a call
//     returns every member whose hash lies in [cursor, next_cursor). Resizes between
//     calls cannot make it miss or repeat a member that stays in the table (stronger
//     than Redis's guarantee, which allows repeats).
//
// Thread safety: none; the owning zset's caller serializes access.

#ifndef HOTKV_TYPES_ZSET_TABLE_H_
#define HOTKV_TYPES_ZSET_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "types/zset_defs.h"
#include "types/zset_entry.h"

namespace hotkv::types {

class ZMemberTable {
 public:
  ZMemberTable() = default;
  ~ZMemberTable();
  ZMemberTable(ZMemberTable&& other) noexcept;
  ZMemberTable& operator=(ZMemberTable&& other) noexcept;
  ZMemberTable(const ZMemberTable&) = delete;
  ZMemberTable& operator=(const ZMemberTable&) = delete;

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }  // home slots

  // `hash` must be ZHashMember(member) (callers compute it once per operation).
  ZEntry* Find(std::string_view member, uint64_t hash) const;

  // Precondition: no entry with the same member is in the table.
  void Insert(ZEntry* entry, uint64_t hash);

  // Removes and returns the entry for `member`, or null if absent. May shrink.
  ZEntry* Erase(std::string_view member, uint64_t hash);

  // Makes room for `n` members without further growth.
  void Reserve(size_t n);

  // Visits the members whose hash is >= cursor in hash order, at least `count` of
  // them (fewer at the end), stopping only between hash buckets. Returns the cursor
  // for the next call, 0 when the scan is complete. Start with cursor 0.
  uint64_t Scan(uint64_t cursor, size_t count, ZFunctionRef<void(const ZEntry*)> visit) const;

  // Visits every entry once, in slot order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t i = 0; i < slot_count_; ++i) {
      if (slots_[i] != 0) {
        f(EntryOf(slots_[i]));
      }
    }
  }

  // Bytes allocated for the slot array.
  size_t MemoryUsage() const { return ZAllocatedBytes(slots_); }

  // Largest displacement of any member from its home slot (tests, diagnostics).
  size_t MaxDisplacement() const;

 private:
  static constexpr uint64_t kPointerMask = (uint64_t{1} << 48) - 1;
  static constexpr int kDistShift = 48;
  static constexpr int kTagShift = 56;
  static constexpr uint64_t kMaxDist = 255;

  static ZEntry* EntryOf(uint64_t slot) {
    return reinterpret_cast<ZEntry*>(static_cast<uintptr_t>(slot & kPointerMask));
  }
  static uint64_t DistOf(uint64_t slot) { return (slot >> kDistShift) & 0xff; }
  static uint64_t TagOf(uint64_t hash) { return hash & 0xff; }
  static uint64_t MakeSlot(const ZEntry* entry, uint64_t hash);

  size_t HomeOf(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * capacity_) >> 64);
  }
  // Smallest hash whose home is >= `home`; 0 (end of scan) for home == capacity_.
  uint64_t BucketStart(size_t home) const;
  // Index of the slot holding `member`, or slot_count_ if absent.
  size_t FindSlot(std::string_view member, uint64_t hash) const;
  // Places `slot` (distance bits zero) at or after `home`; false if a displacement
  // would exceed kMaxDist or run past the overflow slots.
  bool TryPlace(uint64_t slot, size_t home);
  void Rehash(size_t min_capacity);
  static size_t OverflowSlots(size_t capacity);

  uint64_t* slots_ = nullptr;
  size_t capacity_ = 0;    // home slots
  size_t slot_count_ = 0;  // capacity_ + overflow slots
  size_t size_ = 0;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_TABLE_H_

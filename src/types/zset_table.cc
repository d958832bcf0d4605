#include "types/zset_table.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace hotkv::types {

namespace {

constexpr size_t kMinCapacity = 8;

// Capacity giving a 60% load for n members; growing at 90% makes each resize 1.5x.
size_t CapacityFor(size_t n) { return n + n * 2 / 3 + 1; }

bool OverLoaded(size_t n, size_t capacity) { return n * 10 > capacity * 9; }

}  // namespace

ZMemberTable::~ZMemberTable() { std::free(slots_); }

ZMemberTable::ZMemberTable(ZMemberTable&& other) noexcept
    : slots_(std::exchange(other.slots_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)),
      slot_count_(std::exchange(other.slot_count_, 0)),
      size_(std::exchange(other.size_, 0)) {}

ZMemberTable& ZMemberTable::operator=(ZMemberTable&& other) noexcept {
  if (this != &other) {
    std::free(slots_);
    slots_ = std::exchange(other.slots_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    slot_count_ = std::exchange(other.slot_count_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

uint64_t ZMemberTable::MakeSlot(const ZEntry* entry, uint64_t hash) {
  const auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(entry));
  if ((bits & ~kPointerMask) != 0) {
    // User-space pointers fit in 47 bits on x86-64 and (with 48-bit VAs) arm64.
    std::fprintf(stderr, "hotkv: zset: heap pointer %p does not fit in 48 bits\n",
                 static_cast<const void*>(entry));
    std::abort();
  }
  return bits | (TagOf(hash) << kTagShift);
}

size_t ZMemberTable::OverflowSlots(size_t capacity) {
  size_t n = capacity / 8;
  if (n < 8) {
    n = 8;
  }
  return n > 64 ? 64 : n;
}

uint64_t ZMemberTable::BucketStart(size_t home) const {
  if (home >= capacity_) {
    return 0;
  }
  const unsigned __int128 numerator = (static_cast<unsigned __int128>(home) << 64) + capacity_ - 1;
  return static_cast<uint64_t>(numerator / capacity_);
}

size_t ZMemberTable::FindSlot(std::string_view member, uint64_t hash) const {
  if (size_ == 0) {
    return slot_count_;
  }
  const uint64_t tag = TagOf(hash);
  size_t p = HomeOf(hash);
  for (uint64_t d = 0; p < slot_count_; ++p, ++d) {
    const uint64_t s = slots_[p];
    if (s == 0 || DistOf(s) < d) {
      return slot_count_;  // Robin Hood: a member homed here would have been placed earlier
    }
    if (DistOf(s) == d && (s >> kTagShift) == tag && EntryOf(s)->member() == member) {
      return p;
    }
  }
  return slot_count_;
}

ZEntry* ZMemberTable::Find(std::string_view member, uint64_t hash) const {
  const size_t p = FindSlot(member, hash);
  return p == slot_count_ ? nullptr : EntryOf(slots_[p]);
}

bool ZMemberTable::TryPlace(uint64_t slot, size_t home) {
  size_t p = home;
  uint64_t d = 0;
  while (true) {
    if (p >= slot_count_) {
      return false;
    }
    const uint64_t cur = slots_[p];
    if (cur == 0) {
      slots_[p] = slot | (d << kDistShift);
      return true;
    }
    if (DistOf(cur) < d) {
      break;  // `cur` is homed after us: take its place and shift the run right
    }
    ++p;
    ++d;
    if (d > kMaxDist) {
      return false;
    }
  }
  size_t q = p;
  while (q < slot_count_ && slots_[q] != 0) {
    if (DistOf(slots_[q]) >= kMaxDist) {
      return false;
    }
    ++q;
  }
  if (q >= slot_count_) {
    return false;
  }
  for (size_t i = q; i > p; --i) {
    slots_[i] = slots_[i - 1] + (uint64_t{1} << kDistShift);
  }
  slots_[p] = slot | (d << kDistShift);
  return true;
}

void ZMemberTable::Rehash(size_t min_capacity) {
  if (size_ == 0 && min_capacity == 0) {
    std::free(slots_);
    slots_ = nullptr;
    capacity_ = slot_count_ = 0;
    return;
  }
  size_t capacity = min_capacity < kMinCapacity ? kMinCapacity : min_capacity;
  while (true) {
    const size_t slot_count = capacity + OverflowSlots(capacity);
    auto* old_slots = slots_;
    const size_t old_count = slot_count_;
    slots_ = static_cast<uint64_t*>(ZCalloc(slot_count, sizeof(uint64_t)));
    capacity_ = capacity;
    slot_count_ = slot_count;
    bool ok = true;
    for (size_t i = 0; i < old_count && ok; ++i) {
      const uint64_t s = old_slots[i];
      if (s != 0) {
        const uint64_t hash = ZHashMember(EntryOf(s)->member());
        ok = TryPlace(s & ~(uint64_t{0xff} << kDistShift), HomeOf(hash));
      }
    }
    if (ok) {
      std::free(old_slots);
      return;
    }
    // Extremely unlikely (a cluster ran past the overflow slots): try a bigger table.
    std::free(slots_);
    slots_ = old_slots;
    slot_count_ = old_count;
    capacity = capacity + capacity / 4 + 1;
  }
}

void ZMemberTable::Reserve(size_t n) {
  if (OverLoaded(n, capacity_)) {
    Rehash(n + n / 8 + 1);
  }
}

void ZMemberTable::Insert(ZEntry* entry, uint64_t hash) {
  if (OverLoaded(size_ + 1, capacity_)) {
    Rehash(CapacityFor(size_ + 1));
  }
  const uint64_t slot = MakeSlot(entry, hash);
  while (!TryPlace(slot, HomeOf(hash))) {
    Rehash(capacity_ + capacity_ / 4 + 1);
  }
  ++size_;
}

ZEntry* ZMemberTable::Erase(std::string_view member, uint64_t hash) {
  const size_t p = FindSlot(member, hash);
  if (p == slot_count_) {
    return nullptr;
  }
  ZEntry* entry = EntryOf(slots_[p]);
  // Backward-shift deletion: pull the following displaced members one slot closer
  // to home. No tombstones, and the slots stay sorted by home.
  size_t q = p + 1;
  while (q < slot_count_ && slots_[q] != 0 && DistOf(slots_[q]) > 0) {
    slots_[q - 1] = slots_[q] - (uint64_t{1} << kDistShift);
    ++q;
  }
  slots_[q - 1] = 0;
  --size_;
  if (size_ == 0) {
    Rehash(0);
  } else if (capacity_ > kMinCapacity && size_ * 5 < capacity_) {
    Rehash(CapacityFor(size_));
  }
  return entry;
}

uint64_t ZMemberTable::Scan(uint64_t cursor, size_t count,
                            ZFunctionRef<void(const ZEntry*)> visit) const {
  if (size_ == 0) {
    return 0;
  }
  if (count == 0) {
    count = 1;
  }
  const size_t start = HomeOf(cursor);
  // After a resize the cursor may fall inside a bucket: members of that bucket whose
  // hash is below the cursor were returned by an earlier call.
  const bool aligned = BucketStart(start) == cursor;
  const size_t budget = count * 10;  // slots to look at before giving up on `count`
  size_t emitted = 0;
  size_t visited = 0;
  size_t current_home = SIZE_MAX;
  for (size_t p = start; p < slot_count_; ++p) {
    const uint64_t s = slots_[p];
    const bool enough = emitted >= count || visited >= budget;
    ++visited;
    if (s == 0) {
      if (enough) {
        // Every member homed at or before p sits at or before p.
        return p + 1 < capacity_ ? BucketStart(p + 1) : 0;
      }
      continue;
    }
    const size_t home = p - DistOf(s);
    if (home < start) {
      continue;  // displaced from an earlier bucket: already covered
    }
    if (enough && home > start && home != current_home) {
      return BucketStart(home);  // stop between buckets
    }
    const ZEntry* entry = EntryOf(s);
    if (home == start && !aligned && ZHashMember(entry->member()) < cursor) {
      continue;
    }
    visit(entry);
    ++emitted;
    current_home = home;
  }
  return 0;
}

size_t ZMemberTable::MaxDisplacement() const {
  size_t max = 0;
  for (size_t i = 0; i < slot_count_; ++i) {
    if (slots_[i] != 0 && DistOf(slots_[i]) > max) {
      max = DistOf(slots_[i]);
    }
  }
  return max;
}

}  // namespace hotkv::types

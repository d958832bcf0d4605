#include "engine/key_table.h"

#include <cstring>
#include <utility>

#include "common/key_hash.h"

namespace hotkv {

KeyTable::~KeyTable() { delete[] slots_; }

KeyTable::KeyTable(KeyTable&& o) noexcept
    : slots_(o.slots_), mask_(o.mask_), size_(o.size_), shift_(o.shift_) {
  o.slots_ = nullptr;
  o.mask_ = 0;
  o.size_ = 0;
  o.shift_ = 64;
}

KeyTable& KeyTable::operator=(KeyTable&& o) noexcept {
  std::swap(slots_, o.slots_);
  std::swap(mask_, o.mask_);
  std::swap(size_, o.size_);
  std::swap(shift_, o.shift_);
  return *this;
}

void KeyTable::SetCapacity(size_t capacity) {
  mask_ = capacity - 1;
  shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
}

uint64_t KeyTable::HashOf(const Entry* e) { return HashKey(e->key()); }

size_t KeyTable::Find(std::string_view key, uint64_t hash) const {
  if (size_ == 0) {
    return kNotFound;
  }
  const uint64_t tag = Tag(hash);
  for (size_t i = Home(hash);; i = (i + 1) & mask_) {
    uint64_t s = slots_[i];
    if (s == 0) {
      return kNotFound;
    }
    if ((s & kTagMask) == tag) {
      // Most likely our key: fetch the value's lines along with the one the comparison
      // needs, so that a read's copy of it does not wait for a second miss (GET on 1M
      // keys used 7-18 % less CPU with it, bench/notes/2026-11-30-page-faults-hugepages.md).
      PrefetchEntryLines(Pointer(s));
      std::string_view k = Pointer(s)->key();
      if (k.size() == key.size() && memcmp(k.data(), key.data(), key.size()) == 0) {
        return i;
      }
    }
  }
}

size_t KeyTable::FindPointer(uint64_t hash, const Entry* e) const {
  if (size_ == 0) {
    return kNotFound;
  }
  const uint64_t want = Tag(hash) | Bits(const_cast<Entry*>(e));
  for (size_t i = Home(hash);; i = (i + 1) & mask_) {
    uint64_t s = slots_[i];
    if (s == 0) {
      return kNotFound;
    }
    if (s == want) {
      return i;
    }
  }
}

size_t KeyTable::Insert(uint64_t hash, Entry* e) {
  if ((size_ + 1) * 4 > capacity() * 3) {
    Resize(capacity() ? capacity() * 2 : 8);
  }
  size_t i = Home(hash);
  while (slots_[i] != 0) {
    i = (i + 1) & mask_;
  }
  slots_[i] = Tag(hash) | Bits(e);
  size_++;
  return i;
}

void KeyTable::EraseAt(size_t pos) {
  // Backward-shift deletion: move later members of the run into the hole when their home
  // bucket does not lie cyclically in (hole, j].
  size_t hole = pos;
  size_t j = pos;
  for (;;) {
    j = (j + 1) & mask_;
    uint64_t s = slots_[j];
    if (s == 0) {
      break;
    }
    size_t home = HomeOfSlot(s);
    bool between = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      slots_[hole] = s;
      hole = j;
    }
  }
  slots_[hole] = 0;
  size_--;
  if (capacity() > 64 && size_ * 8 < capacity()) {
    Resize(capacity() / 4);
  }
}

void KeyTable::Resize(size_t new_capacity) {
  uint64_t* old = slots_;
  size_t old_cap = capacity();
  slots_ = new uint64_t[new_capacity]();
  SetCapacity(new_capacity);
  for (size_t i = 0; i < old_cap; i++) {
    if (old[i] != 0) {
      size_t j = HomeOfSlot(old[i]);
      while (slots_[j] != 0) {
        j = (j + 1) & mask_;
      }
      slots_[j] = old[i];
    }
  }
  delete[] old;
}

size_t KeyTable::RandomPosition(uint64_t rnd) const {
  // Occupancy is at least 1/8 except in tiny tables, so probing forward from a random
  // slot finds an entry quickly.
  size_t i = rnd & mask_;
  while (slots_[i] == 0) {
    i = (i + 1) & mask_;
  }
  return i;
}

}  // namespace hotkv

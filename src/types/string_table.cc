#include "types/string_table.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "types/member_hash.h"
#include "types/sampling.h"

namespace hotkv::types {
namespace {

constexpr uint64_t kAddressMask = (uint64_t{1} << 48) - 1;
constexpr int kTagShift = 48;        // fingerprint in bits 48..55, distance in 56..63
constexpr uint32_t kMaxDistance = 255;
constexpr uint8_t kMinLog2Capacity = 2;

char* EntryOf(uint64_t slot) { return reinterpret_cast<char*>(slot & kAddressMask); }
uint32_t DistanceOf(uint64_t slot) { return static_cast<uint32_t>(slot >> 56); }
uint64_t Tag(uint64_t hash, uint32_t distance) {
  return (static_cast<uint64_t>(distance) << 8) | (hash & 0xff);
}
uint64_t MakeSlot(const char* entry, uint64_t tag) {
  const auto address = reinterpret_cast<uint64_t>(entry);
  if ((address & ~kAddressMask) != 0) {
    std::fprintf(stderr, "hotkv: string table: address %p does not fit in 48 bits\n",
                 static_cast<const void*>(entry));
    std::abort();
  }
  return address | (tag << kTagShift);
}

size_t VarintSize(size_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

char* WriteVarint(char* p, size_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Reads a length-prefixed string at `p`; returns it and advances `p` past it.
std::string_view ReadString(const char*& p) {
  size_t len = 0;
  int shift = 0;
  while (true) {
    const auto b = static_cast<unsigned char>(*p++);
    len |= static_cast<size_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      break;
    }
    shift += 7;
  }
  std::string_view s(p, len);
  p += len;
  return s;
}

std::string_view KeyOf(const char* entry) { return ReadString(entry); }

uint8_t Log2CapacityFor(size_t elements) {
  // Smallest power of two holding `elements` at no more than 3/4 load.
  uint8_t log2 = kMinLog2Capacity;
  while ((size_t{1} << log2) * 3 < elements * 4) {
    ++log2;
  }
  return log2;
}

void* CheckedAlloc(void* p, size_t n) {
  if (p == nullptr) {
    std::fprintf(stderr, "hotkv: string table: cannot allocate %zu bytes\n", n);
    std::abort();
  }
  return p;
}

}  // namespace

StringTable::StringTable(bool with_values, size_t expected) : with_values_(with_values) {
  log2_capacity_ = Log2CapacityFor(expected);
  slots_ = static_cast<uint64_t*>(
      CheckedAlloc(std::calloc(capacity(), sizeof(uint64_t)), capacity() * sizeof(uint64_t)));
}

StringTable::~StringTable() {
  if (slots_ == nullptr) {
    return;
  }
  for (size_t i = 0; i < capacity(); ++i) {
    if (slots_[i] != 0) {
      std::free(EntryOf(slots_[i]));
    }
  }
  std::free(slots_);
}

StringTable::StringTable(StringTable&& other) noexcept
    : slots_(other.slots_),
      size_(other.size_),
      entry_bytes_(other.entry_bytes_),
      log2_capacity_(other.log2_capacity_),
      with_values_(other.with_values_) {
  other.slots_ = nullptr;
  other.size_ = 0;
  other.entry_bytes_ = 0;
}

StringTable& StringTable::operator=(StringTable&& other) noexcept {
  StringTable moved(std::move(other));
  std::swap(slots_, moved.slots_);
  std::swap(size_, moved.size_);
  std::swap(entry_bytes_, moved.entry_bytes_);
  std::swap(log2_capacity_, moved.log2_capacity_);
  std::swap(with_values_, moved.with_values_);
  return *this;
}

StringTable StringTable::Clone() const {
  StringTable copy(with_values_);
  std::free(copy.slots_);
  copy.log2_capacity_ = log2_capacity_;
  copy.slots_ = static_cast<uint64_t*>(
      CheckedAlloc(std::calloc(capacity(), sizeof(uint64_t)), capacity() * sizeof(uint64_t)));
  for (size_t i = 0; i < capacity(); ++i) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      continue;
    }
    const char* entry = EntryOf(slot);
    const size_t bytes = EntrySize(entry);
    char* dup = static_cast<char*>(CheckedAlloc(std::malloc(bytes), bytes));
    std::memcpy(dup, entry, bytes);
    copy.slots_[i] = MakeSlot(dup, slot >> kTagShift);
    copy.entry_bytes_ += malloc_usable_size(dup);
  }
  copy.size_ = size_;
  return copy;
}

size_t StringTable::MemoryUsage() const {
  return (slots_ == nullptr ? 0 : malloc_usable_size(slots_)) + entry_bytes_;
}

size_t StringTable::EntrySize(const char* entry) const {
  const char* p = entry;
  ReadString(p);
  if (with_values_) {
    ReadString(p);
  }
  return static_cast<size_t>(p - entry);
}

char* StringTable::MakeEntry(std::string_view key, std::string_view value) const {
  size_t bytes = VarintSize(key.size()) + key.size();
  if (with_values_) {
    bytes += VarintSize(value.size()) + value.size();
  }
  char* entry = static_cast<char*>(CheckedAlloc(std::malloc(bytes), bytes));
  char* p = WriteVarint(entry, key.size());
  std::memcpy(p, key.data(), key.size());
  if (with_values_) {
    p = WriteVarint(p + key.size(), value.size());
    std::memcpy(p, value.data(), value.size());
  }
  return entry;
}

std::string_view StringTable::KeyAt(size_t slot) const { return KeyOf(EntryOf(slots_[slot])); }

std::string_view StringTable::ValueAt(size_t slot) const {
  if (!with_values_) {
    return {};
  }
  const char* p = EntryOf(slots_[slot]);
  ReadString(p);
  return ReadString(p);
}

size_t StringTable::FindSlot(std::string_view key) const {
  if (size_ == 0) {
    return kNone;
  }
  return FindSlot(key, HashString(key));
}

size_t StringTable::FindSlot(std::string_view key, uint64_t hash) const {
  size_t i = Home(hash);
  for (uint32_t distance = 0;; ++distance, i = (i + 1) & mask()) {
    const uint64_t slot = slots_[i];
    // Robin Hood order: a slot nearer its home than we are to ours ends the search.
    if (slot == 0 || DistanceOf(slot) < distance) {
      return kNone;
    }
    if ((slot >> kTagShift) == Tag(hash, distance) && KeyOf(EntryOf(slot)) == key) {
      return i;
    }
  }
}

std::optional<std::string_view> StringTable::Find(std::string_view key) const {
  const size_t slot = FindSlot(key);
  if (slot == kNone) {
    return std::nullopt;
  }
  return ValueAt(slot);
}

void StringTable::Place(char* entry, uint64_t hash) {
  uint64_t carried = MakeSlot(entry, Tag(hash, 0));
  uint32_t distance = 0;
  size_t i = Home(hash);
  while (true) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      slots_[i] = (carried & kAddressMask) | (Tag(carried >> kTagShift, distance) << kTagShift);
      return;
    }
    if (DistanceOf(slot) < distance) {
      // Take the slot from the richer element and carry it on.
      slots_[i] = (carried & kAddressMask) | (Tag(carried >> kTagShift, distance) << kTagShift);
      carried = slot;
      distance = DistanceOf(slot);
    }
    ++distance;
    i = (i + 1) & mask();
    if (distance > kMaxDistance) {
      // Only a pathological hash gets here: double the table and place what we carry.
      char* carried_entry = EntryOf(carried);
      Rehash(static_cast<uint8_t>(log2_capacity_ + 1));
      Place(carried_entry, HashString(KeyOf(carried_entry)));
      return;
    }
  }
}

void StringTable::Add(char* entry, uint64_t hash) {
  if ((size_ + 1) * 4 > capacity() * 3) {
    Rehash(static_cast<uint8_t>(log2_capacity_ + 1));
  }
  Place(entry, hash);
  ++size_;
  entry_bytes_ += malloc_usable_size(entry);
}

void StringTable::Rehash(uint8_t log2_capacity) {
  uint64_t* old_slots = slots_;
  const size_t old_capacity = capacity();
  log2_capacity_ = log2_capacity;
  slots_ = static_cast<uint64_t*>(
      CheckedAlloc(std::calloc(capacity(), sizeof(uint64_t)), capacity() * sizeof(uint64_t)));
  // The entries are separate allocations met in hash order, i.e. in no memory order:
  // reading each key to hash it is a cache miss. The entry kEntryAhead slots on is
  // prefetched (filling a 167k-field hash with 256-byte values: -15-25 % CPU time;
  // bench/notes/2026-12-03-cluster-cpu2.md).
  constexpr size_t kEntryAhead = 16;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (i + kEntryAhead < old_capacity && old_slots[i + kEntryAhead] != 0) {
      __builtin_prefetch(EntryOf(old_slots[i + kEntryAhead]));
    }
    if (old_slots[i] != 0) {
      char* entry = EntryOf(old_slots[i]);
      Place(entry, HashString(KeyOf(entry)));
    }
  }
  std::free(old_slots);
}

bool StringTable::Insert(std::string_view key) {
  const uint64_t hash = HashString(key);
  if (size_ != 0 && FindSlot(key, hash) != kNone) {
    return false;
  }
  Add(MakeEntry(key, {}), hash);
  return true;
}

bool StringTable::Set(std::string_view key, std::string_view value, bool overwrite) {
  const uint64_t hash = HashString(key);
  const size_t slot = size_ == 0 ? kNone : FindSlot(key, hash);
  if (slot == kNone) {
    Add(MakeEntry(key, value), hash);
    return true;
  }
  if (!overwrite) {
    return false;
  }
  char* old_entry = EntryOf(slots_[slot]);
  const std::string_view old_value = ValueAt(slot);
  if (old_value.size() == value.size()) {
    // Same length: rewrite the bytes in place.
    std::memmove(const_cast<char*>(old_value.data()), value.data(), value.size());
    return false;
  }
  char* entry = MakeEntry(key, value);
  entry_bytes_ += malloc_usable_size(entry);
  entry_bytes_ -= malloc_usable_size(old_entry);
  slots_[slot] = MakeSlot(entry, slots_[slot] >> kTagShift);
  std::free(old_entry);
  return false;
}

void StringTable::EraseSlot(size_t slot) {
  char* entry = EntryOf(slots_[slot]);
  entry_bytes_ -= malloc_usable_size(entry);
  std::free(entry);
  // Shift the rest of the cluster one step back towards home.
  size_t i = slot;
  while (true) {
    const size_t next = (i + 1) & mask();
    const uint64_t s = slots_[next];
    if (s == 0 || DistanceOf(s) == 0) {
      slots_[i] = 0;
      break;
    }
    slots_[i] = s - (uint64_t{1} << 56);
    i = next;
  }
  --size_;
  if (log2_capacity_ > kMinLog2Capacity && size_ * 8 < capacity()) {
    Rehash(Log2CapacityFor(size_ * 2));
  }
}

bool StringTable::Erase(std::string_view key) {
  const size_t slot = FindSlot(key);
  if (slot == kNone) {
    return false;
  }
  EraseSlot(slot);
  return true;
}

size_t StringTable::RandomSlot(Rng& rng) const {
  // Load stays at or above 1/8 (except in the smallest tables), so rejection sampling
  // takes a few tries and picks every element with the same probability.
  while (true) {
    const size_t i = static_cast<size_t>(rng.Below(capacity()));
    if (slots_[i] != 0) {
      return i;
    }
  }
}

std::string StringTable::PopRandom(Rng& rng) {
  const size_t slot = RandomSlot(rng);
  std::string key(KeyAt(slot));
  EraseSlot(slot);
  return key;
}

void StringTable::ForEach(
    FunctionRef<bool(std::string_view key, std::string_view value)> visit) const {
  for (size_t i = 0; i < capacity() && size_ != 0; ++i) {
    if (slots_[i] != 0 && !visit(KeyAt(i), ValueAt(i))) {
      return;
    }
  }
}

uint64_t StringTable::Scan(
    uint64_t cursor, size_t count,
    FunctionRef<void(std::string_view key, std::string_view value)> emit) const {
  if (size_ == 0) {
    return 0;
  }
  const int shift = 64 - log2_capacity_;
  size_t bucket = static_cast<size_t>(cursor >> shift);
  size_t emitted = 0;
  // Like Redis: stop after `count` elements or 10 * count buckets, whichever is first.
  size_t budget = count == 0 ? 10 : (count > SIZE_MAX / 10 ? SIZE_MAX : count * 10);
  while (true) {
    // Elements whose home is `bucket` sit at distance t in slot bucket + t; the cluster
    // stops being theirs at an empty slot or an element from a later home.
    for (size_t t = 0;; ++t) {
      const size_t i = (bucket + t) & mask();
      const uint64_t slot = slots_[i];
      if (slot == 0 || DistanceOf(slot) < t) {
        break;
      }
      if (DistanceOf(slot) == t) {
        emit(KeyAt(i), ValueAt(i));
        ++emitted;
      }
    }
    ++bucket;
    if (bucket == capacity()) {
      return 0;
    }
    if (emitted >= count || --budget == 0) {
      return static_cast<uint64_t>(bucket) << shift;
    }
  }
}

void StringTable::Sample(
    int64_t count, Rng& rng,
    FunctionRef<void(std::string_view key, std::string_view value)> emit) const {
  auto random_id = [&] { return RandomSlot(rng); };
  auto all_ids = [&] {
    std::vector<size_t> ids;
    ids.reserve(size_);
    for (size_t i = 0; i < capacity(); ++i) {
      if (slots_[i] != 0) {
        ids.push_back(i);
      }
    }
    return ids;
  };
  SampleIds(count, rng, SampleSource{size_, random_id, all_ids},
            [&](size_t slot) { emit(KeyAt(slot), ValueAt(slot)); });
}

}  // namespace hotkv::types

#include "vector/label_map.h"

#include <functional>
#include <mutex>

namespace hotkv::vector::internal {

uint64_t LabelMap::Hash(std::string_view label) {
  uint64_t h = std::hash<std::string_view>()(label);
  // Final avalanche so both the top bits (shard) and low bits (slot) are well mixed.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

int64_t LabelMap::Probe(const Shard& s, std::string_view label, uint64_t hash) const {
  if (s.slots.empty()) {
    return -1;
  }
  const size_t mask = s.slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    uint32_t id = s.slots[i];
    if (id == kEmpty) {
      return -1;
    }
    if (label_of_(ctx_, id) == label) {
      return static_cast<int64_t>(i);
    }
  }
}

std::optional<uint32_t> LabelMap::Find(std::string_view label) const {
  const uint64_t hash = Hash(label);
  const Shard& s = ShardFor(hash);
  std::shared_lock lock(s.mu);
  int64_t i = Probe(s, label, hash);
  if (i < 0) {
    return std::nullopt;
  }
  return s.slots[static_cast<size_t>(i)];
}

void LabelMap::Grow(Shard& s) {
  std::vector<uint32_t> old = std::move(s.slots);
  s.slots.assign(old.empty() ? 8 : old.size() * 2, kEmpty);
  const size_t mask = s.slots.size() - 1;
  for (uint32_t id : old) {
    if (id == kEmpty) {
      continue;
    }
    size_t i = Hash(label_of_(ctx_, id)) & mask;
    while (s.slots[i] != kEmpty) {
      i = (i + 1) & mask;
    }
    s.slots[i] = id;
  }
}

bool LabelMap::Insert(std::string_view label, uint32_t id) {
  const uint64_t hash = Hash(label);
  Shard& s = ShardFor(hash);
  std::unique_lock lock(s.mu);
  if (Probe(s, label, hash) >= 0) {
    return false;
  }
  // Keep the load factor <= 3/4.
  if ((s.used + 1) * 4 > s.slots.size() * 3) {
    Grow(s);
  }
  const size_t mask = s.slots.size() - 1;
  size_t i = hash & mask;
  while (s.slots[i] != kEmpty) {
    i = (i + 1) & mask;
  }
  s.slots[i] = id;
  ++s.used;
  size_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool LabelMap::Replace(std::string_view label, uint32_t id) {
  const uint64_t hash = Hash(label);
  Shard& s = ShardFor(hash);
  std::unique_lock lock(s.mu);
  int64_t i = Probe(s, label, hash);
  if (i < 0) {
    return false;
  }
  s.slots[static_cast<size_t>(i)] = id;
  return true;
}

std::optional<uint32_t> LabelMap::Erase(std::string_view label) {
  const uint64_t hash = Hash(label);
  Shard& s = ShardFor(hash);
  std::unique_lock lock(s.mu);
  int64_t found = Probe(s, label, hash);
  if (found < 0) {
    return std::nullopt;
  }
  const size_t mask = s.slots.size() - 1;
  size_t hole = static_cast<size_t>(found);
  const uint32_t id = s.slots[hole];
  // Backward-shift deletion: pull later entries of the probe run into the hole when
  // their home slot does not lie (cyclically) between the hole and their position.
  for (size_t j = (hole + 1) & mask;; j = (j + 1) & mask) {
    uint32_t other = s.slots[j];
    if (other == kEmpty) {
      break;
    }
    size_t home = Hash(label_of_(ctx_, other)) & mask;
    bool stays = (j > hole) ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      s.slots[hole] = other;
      hole = j;
    }
  }
  s.slots[hole] = kEmpty;
  --s.used;
  size_.fetch_sub(1, std::memory_order_relaxed);
  return id;
}

size_t LabelMap::MemoryBytes() const {
  size_t bytes = sizeof(*this);
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mu);
    bytes += s.slots.capacity() * sizeof(uint32_t);
  }
  return bytes;
}

void LabelMap::CopyFrom(const LabelMap& other) {
  for (int i = 0; i < kShards; ++i) {
    shards_[i].slots = other.shards_[i].slots;
    shards_[i].used = other.shards_[i].used;
  }
  size_.store(other.size(), std::memory_order_relaxed);
}

}  // namespace hotkv::vector::internal

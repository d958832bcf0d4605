// Internal to the HNSW index: the label -> node id map.
//
// 16 shards, each an open-addressing table (linear probing, backward-shift deletion)
// of 32-bit node ids under its own shared_mutex. The labels themselves are not
// copied: a slot holds only the node id, and keys are compared through a callback
// that returns the label stored in the node. That keeps the map at about 6-10 bytes
// per element.
//
// Thread safety: all methods are thread-safe. The label callback reads node memory,
// so callers must hold an EpochGuard (nodes referenced by the map stay valid while it
// is held).
#ifndef HOTKV_VECTOR_LABEL_MAP_H_
#define HOTKV_VECTOR_LABEL_MAP_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <vector>

namespace hotkv::vector::internal {

class LabelMap {
 public:
  // Returns the label of node `id`.
  using LabelFn = std::string_view (*)(const void* ctx, uint32_t id);

  LabelMap(LabelFn label_of, const void* ctx) : label_of_(label_of), ctx_(ctx) {}

  static uint64_t Hash(std::string_view label);

  std::optional<uint32_t> Find(std::string_view label) const;
  // Adds label -> id; returns false (and changes nothing) if the label is present.
  bool Insert(std::string_view label, uint32_t id);
  // Points an existing label at `id` (whose node carries the same label); returns
  // false if the label is absent.
  bool Replace(std::string_view label, uint32_t id);
  // Removes the label; returns the id it mapped to.
  std::optional<uint32_t> Erase(std::string_view label);

  size_t size() const { return size_.load(std::memory_order_relaxed); }
  size_t MemoryBytes() const;

  // Copies the tables of `other` (same ids). Not thread-safe w.r.t. writers of either
  // map.
  void CopyFrom(const LabelMap& other);

 private:
  static constexpr int kShardBits = 4;
  static constexpr int kShards = 1 << kShardBits;
  static constexpr uint32_t kEmpty = UINT32_MAX;

  struct alignas(64) Shard {
    mutable std::shared_mutex mu;
    std::vector<uint32_t> slots;  // Power-of-two size, or empty.
    size_t used = 0;
  };

  Shard& ShardFor(uint64_t hash) const { return shards_[hash >> (64 - kShardBits)]; }
  // Slot index holding `label` in `s`, or -1.
  int64_t Probe(const Shard& s, std::string_view label, uint64_t hash) const;
  void Grow(Shard& s);

  LabelFn label_of_;
  const void* ctx_;
  mutable std::array<Shard, kShards> shards_;
  std::atomic<size_t> size_{0};
};

}  // namespace hotkv::vector::internal

#endif  // HOTKV_VECTOR_LABEL_MAP_H_

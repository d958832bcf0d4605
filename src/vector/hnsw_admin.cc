// HnswIndex: introspection and whole-index operations — random members, links,
// info, memory usage, iteration, cloning.
#include <malloc.h>

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "common/random.h"
#include "vector/epoch.h"
#include "vector/hnsw_index.h"

namespace hotkv::vector {

using internal::kFree;
using internal::kLive;
using internal::Meta;

namespace {

}  // namespace

std::optional<std::string> HnswIndex::RandomLabel() const {
  EpochGuard guard;
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  if (hw == 0 || size() == 0) {
    return std::nullopt;
  }
  Rng& rng = ThreadRng();
  // Rejection sampling over slots is uniform; fall back to a scan from a random
  // point when the slots are mostly free.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const uint32_t id = static_cast<uint32_t>(rng.Below(hw));
    const uint8_t* node = Node(id);
    if (internal::LoadState(node, layout_) == kLive) {
      return std::string(internal::NodeLabel(node, layout_));
    }
  }
  const uint32_t start = static_cast<uint32_t>(rng.Below(hw));
  for (uint32_t i = 0; i < hw; ++i) {
    const uint8_t* node = Node((start + i) % hw);
    if (internal::LoadState(node, layout_) == kLive) {
      return std::string(internal::NodeLabel(node, layout_));
    }
  }
  return std::nullopt;
}

std::vector<std::string> HnswIndex::RandomLabels(size_t count, bool allow_duplicates) const {
  std::vector<std::string> out;
  if (count == 0) {
    return out;
  }
  if (allow_duplicates) {
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      std::optional<std::string> label = RandomLabel();
      if (!label.has_value()) {
        break;
      }
      out.push_back(std::move(*label));
    }
    return out;
  }
  EpochGuard guard;
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  Rng& rng = ThreadRng();
  const size_t n = size();
  if (count * 4 < n) {
    // Few of many: sample slots without replacement.
    std::unordered_set<uint32_t> seen;
    size_t attempts = 0;
    while (out.size() < count && attempts < count * 64 + 1024) {
      ++attempts;
      const uint32_t id = static_cast<uint32_t>(rng.Below(hw));
      const uint8_t* node = Node(id);
      if (internal::LoadState(node, layout_) == kLive && seen.insert(id).second) {
        out.emplace_back(internal::NodeLabel(node, layout_));
      }
    }
    if (out.size() == count) {
      return out;
    }
    out.clear();
  }
  // Many (or sampling failed): collect all live ids and take a random subset.
  std::vector<uint32_t> ids;
  ids.reserve(n);
  for (uint32_t id = 0; id < hw; ++id) {
    if (internal::LoadState(Node(id), layout_) == kLive) {
      ids.push_back(id);
    }
  }
  const size_t take = std::min(count, ids.size());
  for (size_t i = 0; i < take; ++i) {
    std::swap(ids[i], ids[i + rng.Below(ids.size() - i)]);
    out.emplace_back(internal::NodeLabel(Node(ids[i]), layout_));
  }
  return out;
}

std::optional<std::vector<std::vector<Link>>> HnswIndex::GetLinks(std::string_view label) const {
  EpochGuard guard;
  std::optional<uint32_t> id = labels_.Find(label);
  if (!id.has_value()) {
    return std::nullopt;
  }
  uint8_t* node = Node(*id);
  const uint8_t* rec = internal::Record(node, layout_);
  std::vector<std::vector<Link>> levels(internal::NodeLevel(node) + 1);
  for (uint32_t l = 0; l < levels.size(); ++l) {
    const uint8_t* list = internal::ListPtr(node, l, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), internal::ListCapacity(l, layout_));
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t nb_id = internal::LoadId(list, i);
      const uint8_t* nb = Node(nb_id);
      if (internal::LoadState(nb, layout_) != kLive) {
        continue;
      }
      Link link;
      link.label.assign(internal::NodeLabel(nb, layout_));
      link.distance = space_.Distance(rec, internal::Record(nb, layout_));
      levels[l].push_back(std::move(link));
    }
  }
  return levels;
}

IndexInfo HnswIndex::Info() const {
  IndexInfo info;
  info.quant = options_.quant;
  info.metric = options_.metric;
  info.dim = options_.dim;
  info.size = size();
  info.max_level = LoadEntry().level;
  info.m = options_.m;
  info.ef_construction = options_.ef_construction;
  {
    std::lock_guard lock(alloc_mu_);
    info.num_nodes = high_water_.load(std::memory_order_relaxed) - free_ids_.size();
  }
  info.capacity = store_.capacity();
  info.node_bytes = layout_.node_bytes;
  info.memory_bytes = MemoryUsage();
  info.mapped_bytes = store_.MappedBytes();
  return info;
}

size_t HnswIndex::MemoryUsage() const {
  size_t bytes = sizeof(*this) + store_.AllocatedBytes() +
                 meta_bytes_.load(std::memory_order_relaxed) + labels_.MemoryBytes();
  {
    std::lock_guard lock(alloc_mu_);
    bytes += free_ids_.capacity() * sizeof(uint32_t);
  }
  {
    std::lock_guard lock(retire_mu_);
    bytes += retired_nodes_.capacity() * sizeof(RetiredNode) +
             retired_metas_.capacity() * sizeof(RetiredMeta);
  }
  return bytes;
}

void HnswIndex::ForEachElement(const std::function<void(const ElementView&)>& fn) const {
  EpochGuard guard;
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  for (uint32_t id = 0; id < hw; ++id) {
    const uint8_t* node = Node(id);
    if (internal::LoadState(node, layout_) != kLive) {
      continue;
    }
    const Meta* meta = internal::LoadMeta(node);
    std::vector<float> vec = space_.Decode(internal::Record(node, layout_), meta->norm);
    ElementView view;
    view.label = internal::MetaLabel(meta, internal::NodeLevel(node), layout_);
    view.attributes = internal::MetaAttributes(meta, internal::NodeLevel(node), layout_);
    view.vector = vec;
    fn(view);
  }
}

ScanPage HnswIndex::Scan(uint64_t cursor, size_t count) const {
  EpochGuard guard;
  ScanPage page;
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  uint64_t id = cursor;
  for (; id < hw && page.labels.size() < std::max<size_t>(count, 1); ++id) {
    const uint8_t* node = Node(static_cast<uint32_t>(id));
    if (internal::LoadState(node, layout_) == kLive) {
      page.labels.emplace_back(internal::NodeLabel(node, layout_));
    }
  }
  page.next_cursor = id >= hw ? 0 : id;
  return page;
}

std::unique_ptr<HnswIndex> HnswIndex::Clone() const {
  std::unique_lock writers(writers_mu_);
  EpochGuard guard;
  auto copy = std::make_unique<HnswIndex>(options_);
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  if (hw > 0) {
    copy->store_.EnsureCapacity(hw);
  }
  for (uint32_t id = 0; id < hw; ++id) {
    const uint8_t* src = Node(id);
    uint8_t* dst = copy->Node(id);
    // No writer runs (writers_mu_ is held exclusively), so the copy is consistent.
    std::memcpy(dst, src, layout_.node_bytes);
    if (internal::LoadState(src, layout_) == kLive) {
      const Meta* meta = internal::LoadMeta(src);
      const uint32_t level = internal::NodeLevel(src);
      const size_t bytes =
          layout_.MetaBytes(level, meta->label_len(),
                            internal::MetaAttributes(meta, level, layout_).size());
      auto* meta_copy = static_cast<Meta*>(::operator new(bytes));
      std::memcpy(meta_copy, meta, bytes);
      copy->meta_bytes_.fetch_add(malloc_usable_size(meta_copy), std::memory_order_relaxed);
      internal::MetaRef(dst).store(meta_copy, std::memory_order_relaxed);
    } else {
      internal::MetaRef(dst).store(nullptr, std::memory_order_relaxed);
      internal::StateRef(dst, layout_).store(kFree, std::memory_order_relaxed);
      copy->free_ids_.push_back(id);
    }
    dst[8] = 0;  // Lock byte.
  }
  copy->high_water_.store(hw, std::memory_order_release);
  copy->labels_.CopyFrom(labels_);
  copy->entry_.store(entry_.load(std::memory_order_acquire), std::memory_order_release);
  copy->level_counter_.store(level_counter_.load());
  return copy;
}

}  // namespace hotkv::vector

// HnswIndex: construction, insertion, and per-element accessors.
#include "vector/hnsw_index.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "vector/epoch.h"
#include "vector/hnsw_internal.h"
#include "vector/visited.h"

namespace hotkv::vector {

using internal::Cand;
using internal::kDeleted;
using internal::kInit;
using internal::kLive;
using internal::Meta;
using internal::NodeLock;

namespace internal {
SearchScratch& ThreadScratch() {
  thread_local SearchScratch scratch;
  return scratch;
}
}  // namespace internal

VisitedTable& ThreadVisitedTable() {
  thread_local VisitedTable table;
  return table;
}

namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The storage form of an index's sketches (its own form when it keeps none).
Quantization SketchQuant(const IndexOptions& o) {
  switch (o.sketch) {
    case IndexOptions::Sketch::kQ8:
      return Quantization::kQ8;
    case IndexOptions::Sketch::kBinary:
      return Quantization::kBinary;
    case IndexOptions::Sketch::kNone:
      break;
  }
  return o.quant;
}

// Encoded-record buffer for Add, separate from the search scratch (which the insert
// itself uses).
std::vector<uint8_t>& ThreadAddBuffer() {
  thread_local std::vector<uint8_t> buffer;
  return buffer;
}

}  // namespace

Result<std::unique_ptr<HnswIndex>> HnswIndex::Create(const IndexOptions& options) {
  Status st = VectorSpace::Validate(options.dim, options.metric, options.quant);
  if (!st.ok()) {
    return st;
  }
  if (options.m < 2 || options.m > 255) {
    return Status::InvalidArgument("M must be between 2 and 255");
  }
  if (options.ef_construction == 0) {
    return Status::InvalidArgument("ef_construction must be positive");
  }
  if (options.sketch != IndexOptions::Sketch::kNone) {
    if (options.quant != Quantization::kFloat32) {
      return Status::InvalidArgument("a sketch needs float32 storage");
    }
    if (options.sketch == IndexOptions::Sketch::kBinary && options.metric != Metric::kCosine) {
      return Status::InvalidArgument("a binary sketch needs the cosine metric");
    }
  }
  return std::make_unique<HnswIndex>(options);
}

HnswIndex::HnswIndex(const IndexOptions& options)
    : options_(options),
      space_(options.dim, options.metric, options.quant),
      sketch_space_(options.dim, options.metric, SketchQuant(options)),
      layout_(internal::NodeLayout::Make(
          options.m, space_.record_bytes(),
          options.sketch == IndexOptions::Sketch::kNone ? 0 : sketch_space_.record_bytes())),
      // P(level >= l) = 4^-l, as Redis vector sets draw it (HNSW_P 0.25), rather than the
      // paper's M^-l: more nodes on the upper layers give the descent and the inserts a
      // better start (recall@10 at EF 150 on Fashion-MNIST 20k: 0.9991 -> 0.9993).
      level_mult_(1.0 / std::log(4.0)),
      prefetch_lines_(static_cast<uint32_t>(
          std::min<size_t>(8, (space_.record_bytes() + 4 + 63) / 64 + 1))),
      sketch_lines_(static_cast<uint32_t>(
          std::min<size_t>(8, (layout_.sketch_bytes + 63) / 64 + 1))),
      store_(layout_.node_bytes),
      labels_(&HnswIndex::LabelOfNode, this) {}

HnswIndex::~HnswIndex() {
  // No reader may be running: free everything directly.
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  for (uint32_t id = 0; id < hw; ++id) {
    Meta* meta = internal::LoadMeta(Node(id));
    if (meta != nullptr) {
      ::operator delete(meta);
    }
  }
  for (const RetiredMeta& r : retired_metas_) {
    ::operator delete(r.meta);
  }
}

std::string_view HnswIndex::LabelOfNode(const void* ctx, uint32_t id) {
  const auto* self = static_cast<const HnswIndex*>(ctx);
  return internal::NodeLabel(self->Node(id), self->layout_);
}

std::mutex& HnswIndex::LabelLock(std::string_view label) {
  return label_locks_[internal::LabelMap::Hash(label) % kLabelLocks];
}

HnswIndex::Entry HnswIndex::LoadEntry() const {
  uint64_t v = entry_.load(std::memory_order_acquire);
  if (v == 0) {
    return Entry{0, -1};
  }
  return Entry{static_cast<uint32_t>(v), static_cast<int>(v >> 32) - 1};
}

void HnswIndex::StoreEntry(uint32_t id, int level) {
  uint64_t v = level < 0 ? 0 : (static_cast<uint64_t>(level + 1) << 32) | id;
  entry_.store(v, std::memory_order_release);
}

uint32_t HnswIndex::RandomLevel() {
  uint64_t r = SplitMix64(options_.seed ^ SplitMix64(level_counter_.fetch_add(1)));
  double u = (static_cast<double>(r >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  double level = -std::log(u) * level_mult_;
  return static_cast<uint32_t>(std::min(level, 63.0));
}

uint32_t HnswIndex::AllocateSlot() {
  std::lock_guard lock(alloc_mu_);
  if (!free_ids_.empty()) {
    uint32_t id = free_ids_.back();
    free_ids_.pop_back();
    return id;
  }
  uint32_t id = high_water_.load(std::memory_order_relaxed);
  store_.EnsureCapacity(id + 1);
  high_water_.store(id + 1, std::memory_order_release);
  return id;
}

Meta* HnswIndex::NewMeta(uint32_t level, std::string_view label, std::string_view attrs,
                         float norm) {
  size_t bytes = layout_.MetaBytes(level, label.size(), attrs.size());
  auto* meta = static_cast<Meta*>(::operator new(bytes));
  meta->label_bits = static_cast<uint32_t>(label.size()) | (attrs.empty() ? 0 : Meta::kHasAttributes);
  meta->norm = norm;
  std::memset(meta->upper_lists(), 0, level * layout_.upper_list_bytes);
  char* text = reinterpret_cast<char*>(meta->upper_lists() + level * layout_.upper_list_bytes);
  if (!label.empty()) {
    std::memcpy(text, label.data(), label.size());
  }
  if (!attrs.empty()) {
    const uint32_t len = static_cast<uint32_t>(attrs.size());
    std::memcpy(text + label.size(), &len, sizeof(len));
    std::memcpy(text + label.size() + sizeof(len), attrs.data(), attrs.size());
  }
  meta_bytes_.fetch_add(malloc_usable_size(meta), std::memory_order_relaxed);
  return meta;
}

void HnswIndex::FreeMeta(Meta* meta) {
  meta_bytes_.fetch_sub(malloc_usable_size(meta), std::memory_order_relaxed);
  ::operator delete(meta);
}

// ------------------------------------------------------------------------- Add

Result<bool> HnswIndex::Add(std::string_view label, std::span<const float> vec,
                            std::optional<std::string_view> attributes,
                            uint32_t ef_construction_override) {
  Status st = space_.CheckInput(vec);
  if (!st.ok()) {
    return st;
  }
  if (label.size() > internal::Meta::kMaxLabelLen) {
    return Status::InvalidArgument("element name too long");
  }
  std::vector<uint8_t>& record = ThreadAddBuffer();
  record.resize(space_.record_bytes());
  const float norm = space_.Encode(vec, record.data());
  const uint32_t ef_c =
      ef_construction_override > 0 ? ef_construction_override : options_.ef_construction;
  Result<bool> result = AddEncoded(label, record, norm, attributes, ef_c);
  // Outside the epoch guard, so what this call retired can be freed right away.
  if (retired_count_.load(std::memory_order_relaxed) > 0) {
    Reclaim();
  }
  return result;
}

Result<bool> HnswIndex::AddEncoded(std::string_view label, const std::vector<uint8_t>& record,
                                   float norm, std::optional<std::string_view> attributes,
                                   uint32_t ef_c) {
  std::shared_lock writers(writers_mu_);
  std::lock_guard label_lock(LabelLock(label));
  EpochGuard guard;

  std::optional<uint32_t> old_id = labels_.Find(label);
  std::string kept_attrs;
  if (old_id.has_value()) {
    uint8_t* old_node = Node(*old_id);
    Meta* old_meta = internal::LoadMeta(old_node);
    if (std::memcmp(internal::Record(old_node, layout_), record.data(), record.size()) == 0 &&
        old_meta->norm == norm) {
      // Same vector: only the attributes may change.
      if (attributes.has_value()) {
        SetAttributesLocked(*old_id, attributes);
      }
      return false;
    }
    if (!attributes.has_value()) {
      kept_attrs.assign(internal::MetaAttributes(old_meta, internal::NodeLevel(old_node), layout_));
    }
  }
  std::string_view attrs = attributes.has_value() ? *attributes : std::string_view(kept_attrs);

  const uint32_t level = RandomLevel();
  const uint32_t id = AllocateSlot();
  uint8_t* node = Node(id);
  {
    // A recycled slot may still be the target of a stale link; its lock byte and
    // state word are the only fields such a reader touches before seeing kInit.
    NodeLock lock(node);
    internal::StateRef(node, layout_).store(kInit, std::memory_order_release);
    node[9] = static_cast<uint8_t>(level);
    internal::StoreCount(node + 10, 0);
    std::memcpy(node + layout_.record_offset, record.data(), record.size());
    if (layout_.sketch_bytes > 0) {
      // From the stored (normalised) floats, as SearchNear encodes its query.
      sketch_space_.Encode(
          std::span<const float>(reinterpret_cast<const float*>(record.data()), options_.dim),
          node + layout_.sketch_offset, /*want_norm=*/false);
    }
    internal::MetaRef(node).store(NewMeta(level, label, attrs, norm), std::memory_order_release);
    // Stays kInit until InsertNode has written its links.
  }
  InsertNode(id, ef_c);

  if (old_id.has_value()) {
    labels_.Replace(label, id);
    RemoveNode(*old_id);
    return false;
  }
  labels_.Insert(label, id);
  return true;
}

void HnswIndex::InsertNode(uint32_t id, uint32_t ef_construction) {
  // The node arrives in state kInit: nothing walks through it, nobody links to it.
  uint8_t* node = Node(id);
  const uint32_t level = internal::NodeLevel(node);
  const uint8_t* record = internal::Record(node, layout_);

  Entry entry;
  {
    std::lock_guard lock(entry_mu_);
    entry = LoadEntry();
    if (entry.level < 0) {
      internal::StateRef(node, layout_).store(kLive, std::memory_order_release);
      StoreEntry(id, static_cast<int>(level));
      return;
    }
  }

  // 1. Choose neighbours on every layer, top-down (the paper's search phase). The
  // per-layer lists are this thread's, reused across inserts.
  const int top = std::min(static_cast<int>(level), entry.level);
  thread_local std::vector<std::vector<std::pair<float, uint32_t>>> chosen_buf;
  thread_local std::vector<uint32_t> clean_buf;
  auto& chosen = chosen_buf;
  auto& clean = clean_buf;
  if (chosen.size() < static_cast<size_t>(top) + 1) {
    chosen.resize(static_cast<size_t>(top) + 1);
  }
  clean.assign(static_cast<size_t>(top) + 1, 0);
  const uint32_t layers = static_cast<uint32_t>(top) + 1;
  for (uint32_t l = 0; l < layers; ++l) {
    chosen[l].clear();
  }
  auto [cur, cur_dist] = GreedyDescent(record, entry, static_cast<int>(level));
  internal::SearchScratch& s = internal::ThreadScratch();
  for (int l = top; l >= 0; --l) {
    const uint32_t lvl = static_cast<uint32_t>(l);
    SearchLayer(record, cur, cur_dist, ef_construction, lvl, s);
    auto& cands = chosen[lvl];
    for (const Cand& c : s.top.items()) {
      if (c.id != id) {
        cands.emplace_back(c.dist, c.id);
      }
    }
    s.top.clear();
    if (cands.empty()) {
      continue;
    }
    std::sort(cands.begin(), cands.end());
    cur = cands.front().second;
    cur_dist = cands.front().first;
    // The diverse neighbours first, then (when the heuristic kept fewer than M) the
    // nearest of those it pruned, up to M: as Redis vector sets relink a new node that
    // got too few links. Every one of them links back, so the node is reached from more
    // directions; on clustered data the heuristic alone often keeps only 4-8.
    clean[lvl] = SelectNeighbors(cands, layout_.m, /*fill=*/true);
  }

  // 2. Write the node's own lists on all layers, then make it live. Only now can it
  // become reachable (through the back-links below), so a search that reaches it on
  // some layer always finds its lists on the layers beneath filled in. The diverse
  // neighbours lead each list: they are its clean prefix (node_store.h).
  {
    NodeLock lock(node);
    for (uint32_t l = 0; l < layers; ++l) {
      uint8_t* list = internal::ListPtr(node, l, layout_);
      for (size_t i = 0; i < chosen[l].size(); ++i) {
        internal::StoreId(list, static_cast<uint32_t>(i), chosen[l][i].second);
      }
      internal::StoreCount(list, static_cast<uint32_t>(chosen[l].size()), clean[l]);
    }
    internal::StateRef(node, layout_).store(kLive, std::memory_order_release);
  }

  // 3. Back-links, bottom-up (distances are symmetric: the search's serve both ends).
  for (uint32_t l = 0; l < layers; ++l) {
    for (const auto& [dist, nb] : chosen[l]) {
      AddBacklink(nb, id, l, dist);
    }
  }

  if (static_cast<int>(level) > entry.level) {
    std::lock_guard lock(entry_mu_);
    Entry now = LoadEntry();
    if (static_cast<int>(level) > now.level &&
        internal::LoadState(node, layout_) == kLive) {
      StoreEntry(id, static_cast<int>(level));
    }
  }
}

uint32_t HnswIndex::SelectNeighbors(std::vector<std::pair<float, uint32_t>>& cands,
                                    uint32_t max, bool fill) const {
  size_t kept = 0;
  thread_local std::vector<std::pair<float, uint32_t>> pruned;
  pruned.clear();
  // Like the paper (and hnswlib): fewer than `max` candidates are all kept.
  const bool take_all = cands.size() < max;
  uint32_t order[kMaxLinks];  // Positions of the kept ones, in the order they are asked.
  for (size_t i = 0; i < cands.size() && kept < max; ++i) {
    const auto [dist, id] = cands[i];
    const uint8_t* nb = Node(id);
    if (i + 1 < cands.size()) {
      internal::PrefetchRecord(Node(cands[i + 1].second), layout_, prefetch_lines_);
    }
    if (internal::LoadState(nb, layout_) != kLive) {
      continue;
    }
    bool good = true;
    if (!take_all) {
      // Whether some kept neighbour is nearer to the candidate than the base node is
      // does not depend on the order of the checks, so the kept neighbour that pruned
      // the last candidate is asked first (move to front): the same result with fewer
      // distances (Fashion-MNIST 20k: 411 -> 360 per insert; the graph is identical).
      const uint8_t* rec = internal::Record(nb, layout_);
      for (size_t j = 0; j < kept; ++j) {
        const uint32_t at = order[j];
        if (Distance(rec, cands[at].second) < dist) {
          good = false;
          for (size_t t = j; t > 0; --t) {
            order[t] = order[t - 1];
          }
          order[0] = at;
          break;
        }
      }
    }
    if (good) {
      order[kept] = static_cast<uint32_t>(kept);
      cands[kept++] = cands[i];
    } else if (fill && pruned.size() < max) {
      pruned.push_back(cands[i]);
    }
  }
  cands.resize(kept);
  for (size_t i = 0; i < pruned.size() && cands.size() < max; ++i) {
    cands.push_back(pruned[i]);
  }
  return take_all ? 0 : static_cast<uint32_t>(kept);
}

void HnswIndex::AddBacklink(uint32_t target, uint32_t source, uint32_t level, float dist) {
  uint8_t* node = Node(target);
  bool linked = true;
  {
    NodeLock lock(node);
    if (internal::LoadState(node, layout_) != kLive ||
        internal::NodeLevel(node) < level) {
      linked = false;
    } else {
      uint8_t* list = internal::ListPtr(node, level, layout_);
      const uint32_t cap = internal::ListCapacity(level, layout_);
      const uint32_t count = std::min(internal::LoadCount(list), cap);
      const uint32_t clean = std::min(internal::LoadCleanPrefix(list), count);
      for (uint32_t i = 0; i < count; ++i) {
        if (internal::LoadId(list, i) == source) {
          return;
        }
      }
      if (count < cap) {
        internal::StoreId(list, count, source);
        internal::StoreCount(list, count + 1, clean);
        return;
      }
      PruneFullList(node, list, cap, clean, source, dist);
      return;
    }
  }
  if (!linked) {
    // The target is going away: drop it from the source's own list too (what stays of
    // its clean prefix is still clean).
    uint8_t* src = Node(source);
    NodeLock lock(src);
    uint8_t* list = internal::ListPtr(src, level, layout_);
    uint32_t count = std::min(internal::LoadCount(list), internal::ListCapacity(level, layout_));
    const uint32_t clean = std::min(internal::LoadCleanPrefix(list), count);
    uint32_t out = 0;
    uint32_t out_clean = 0;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t nb = internal::LoadId(list, i);
      if (nb != target) {
        internal::StoreId(list, out++, nb);
        out_clean += i < clean ? 1 : 0;
      }
    }
    internal::StoreCount(list, out, out_clean);
  }
}

void HnswIndex::PruneFullList(uint8_t* node, uint8_t* list, uint32_t cap, uint32_t clean,
                              uint32_t source, float dist) {
  // Keep the most diverse `cap` of the current links plus the new one (the paper's
  // heuristic alone: filling these lists up too, or Redis's "replace the farthest
  // link", measured lower recall at every EF). Two links of the clean prefix are known
  // to pass each other's check (node_store.h), so only pairs involving the new link or
  // a tail link cost a distance; the result is what the plain heuristic keeps, and
  // forms a clean list.
  const uint8_t* rec = internal::Record(node, layout_);
  const uint32_t count = cap;
  uint32_t ids[kMaxLinks];
  bool all_live = true;
  for (uint32_t i = 0; i < count; ++i) {
    ids[i] = internal::LoadId(list, i);
    internal::PrefetchRecord(Node(ids[i]), layout_, 1);
  }
  for (uint32_t i = 0; i < count && all_live; ++i) {
    all_live = internal::LoadState(Node(ids[i]), layout_) == kLive;
  }
  if (clean == count && all_live) {
    // The whole list is clean: only where the new link goes, its checks against the
    // links before it and (if it stays) the checks of the links after it against it.
    // Distances to the owner are computed only for the links these need.
    float to_owner[kMaxLinks];
    bool known[kMaxLinks] = {};
    auto owner_dist = [&](uint32_t i) {
      if (!known[i]) {
        to_owner[i] = Distance(rec, ids[i]);
        known[i] = true;
      }
      return to_owner[i];
    };
    uint32_t lo = 0;
    uint32_t hi = count;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      const float d = owner_dist(mid);
      if (d < dist || (d == dist && ids[mid] < source)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const uint32_t pos = lo;
    if (pos >= cap) {
      return;  // Farther than all `cap` kept links: the heuristic stops before it.
    }
    const uint8_t* src_rec = internal::Record(Node(source), layout_);
    if (internal::LoadState(Node(source), layout_) != kLive) {
      return;  // Skipped by the heuristic: the list stays as it is.
    }
    for (uint32_t j = 0; j < pos; ++j) {
      if (j + 1 < pos) {
        internal::PrefetchRecord(Node(ids[j + 1]), layout_, prefetch_lines_);
      }
      if (space_.Distance(src_rec, internal::Record(Node(ids[j]), layout_)) < dist) {
        return;  // Pruned: every old link stays (they all passed before).
      }
    }
    uint32_t out[kMaxLinks];
    uint32_t kept = 0;
    for (uint32_t j = 0; j < pos; ++j) {
      out[kept++] = ids[j];
    }
    out[kept++] = source;
    for (uint32_t i = pos; i < count && kept < cap; ++i) {
      if (i + 1 < count) {
        internal::PrefetchRecord(Node(ids[i + 1]), layout_, prefetch_lines_);
      }
      if (Distance(internal::Record(Node(ids[i]), layout_), source) < owner_dist(i)) {
        continue;
      }
      out[kept++] = ids[i];
    }
    for (uint32_t i = 0; i < kept; ++i) {
      internal::StoreId(list, i, out[i]);
    }
    internal::StoreCount(list, kept, kept);
    return;
  }

  struct PruneCand {
    float dist;
    uint32_t id;
    bool clean;
  };
  thread_local std::vector<PruneCand> cands;
  cands.clear();
  cands.push_back({dist, source, false});
  for (uint32_t i = 0; i < count; ++i) {
    if (i + 1 < count) {
      internal::PrefetchRecord(Node(ids[i + 1]), layout_, prefetch_lines_);
    }
    cands.push_back({Distance(rec, ids[i]), ids[i], i < clean});
  }
  std::sort(cands.begin(), cands.end(), [](const PruneCand& a, const PruneCand& b) {
    return a.dist < b.dist || (a.dist == b.dist && a.id < b.id);
  });
  size_t kept = 0;
  for (size_t i = 0; i < cands.size() && kept < cap; ++i) {
    const PruneCand c = cands[i];
    const uint8_t* nb = Node(c.id);
    if (internal::LoadState(nb, layout_) != kLive) {
      continue;
    }
    const uint8_t* nb_rec = internal::Record(nb, layout_);
    bool good = true;
    for (size_t j = 0; j < kept; ++j) {
      if (c.clean && cands[j].clean) {
        continue;
      }
      if (Distance(nb_rec, cands[j].id) < c.dist) {
        good = false;
        break;
      }
    }
    if (good) {
      cands[kept++] = c;
    }
  }
  for (size_t i = 0; i < kept; ++i) {
    internal::StoreId(list, static_cast<uint32_t>(i), cands[i].id);
  }
  internal::StoreCount(list, static_cast<uint32_t>(kept), static_cast<uint32_t>(kept));
}

// ---------------------------------------------------------------- accessors

bool HnswIndex::Contains(std::string_view label) const {
  EpochGuard guard;
  return labels_.Find(label).has_value();
}

std::optional<std::vector<float>> HnswIndex::GetVector(std::string_view label) const {
  EpochGuard guard;
  std::optional<uint32_t> id = labels_.Find(label);
  if (!id.has_value()) {
    return std::nullopt;
  }
  const uint8_t* node = Node(*id);
  return space_.Decode(internal::Record(node, layout_), internal::LoadMeta(node)->norm);
}

std::optional<RawVector> HnswIndex::GetRawVector(std::string_view label) const {
  EpochGuard guard;
  std::optional<uint32_t> id = labels_.Find(label);
  if (!id.has_value()) {
    return std::nullopt;
  }
  const uint8_t* node = Node(*id);
  const uint8_t* rec = internal::Record(node, layout_);
  RawVector raw;
  raw.quant = options_.quant;
  raw.norm = internal::LoadMeta(node)->norm;
  if (options_.quant == Quantization::kQ8) {
    float scale = 0.0f;
    std::memcpy(&scale, rec, sizeof(scale));
    raw.q8_range = scale * 127.0f;
    raw.data.assign(reinterpret_cast<const char*>(rec) + 2 * sizeof(float), options_.dim);
  } else {
    raw.data.assign(reinterpret_cast<const char*>(rec), space_.record_bytes());
  }
  return raw;
}

std::optional<std::string> HnswIndex::GetAttributes(std::string_view label) const {
  EpochGuard guard;
  std::optional<uint32_t> id = labels_.Find(label);
  if (!id.has_value()) {
    return std::nullopt;
  }
  const uint8_t* node = Node(*id);
  if (!internal::LoadMeta(node)->has_attributes()) {
    return std::nullopt;
  }
  return std::string(internal::NodeAttributes(node, layout_));
}

bool HnswIndex::SetAttributes(std::string_view label, std::string_view attributes) {
  {
    std::shared_lock writers(writers_mu_);
    std::lock_guard label_lock(LabelLock(label));
    EpochGuard guard;
    std::optional<uint32_t> id = labels_.Find(label);
    if (!id.has_value()) {
      return false;
    }
    SetAttributesLocked(*id, attributes);
  }
  Reclaim();
  return true;
}

bool HnswIndex::SetAttributesLocked(uint32_t id, std::optional<std::string_view> attrs) {
  uint8_t* node = Node(id);
  Meta* old_meta;
  {
    NodeLock lock(node);
    old_meta = internal::LoadMeta(node);
    const uint32_t level = internal::NodeLevel(node);
    Meta* meta = NewMeta(level, internal::MetaLabel(old_meta, level, layout_),
                         attrs.value_or(std::string_view()), old_meta->norm);
    std::memcpy(meta->upper_lists(), old_meta->upper_lists(), level * layout_.upper_list_bytes);
    internal::MetaRef(node).store(meta, std::memory_order_release);
  }
  RetireMeta(old_meta);
  return true;
}

}  // namespace hotkv::vector

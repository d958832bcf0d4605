// HnswIndex: graph walks (greedy descent, beam search) and the query entry points.
//
// All walks run inside an EpochGuard held by the caller and read link lists without
// locks (see node_store.h). A neighbour is used only if its state word says kLive or
// kDeleted; kDeleted nodes guide the walk but are never results.
#include <algorithm>
#include <cmath>
#include <limits>

#include "vector/epoch.h"
#include "vector/hnsw_index.h"
#include "vector/hnsw_internal.h"
#include "vector/visited.h"

namespace hotkv::vector {

using internal::Cand;
using internal::kDeleted;
using internal::kLive;
using internal::PrefetchRecord;

namespace {

inline bool Traversable(uint32_t state) { return state == kLive || state == kDeleted; }

// Most neighbours a list can hold (m0 <= 510).
constexpr size_t kMaxBatch = 512;

// Prefetches the layer-0 list (count and ids) of the node expanded next.
inline void PrefetchList0(const uint8_t* node) {
  __builtin_prefetch(node + 8);
  __builtin_prefetch(node + 72);
}

}  // namespace

std::pair<uint32_t, float> HnswIndex::GreedyDescent(const uint8_t* record, Entry entry,
                                                    int stop_level) const {
  uint32_t cur = entry.id;
  float cur_dist = Distance(record, cur);
  if (entry.level <= stop_level) {
    return {cur, cur_dist};
  }
  // A node measured once is never measured again, on this layer or a lower one (upper
  // layers' nodes are on every layer below): its distance was not below the best one
  // then, and the best one only improves, so it could not be chosen. Same walk, fewer
  // distances: consecutive nodes of a walk share many neighbours.
  VisitedTable& visited = ThreadVisitedTable();
  visited.Reset(high_water_.load(std::memory_order_acquire));
  visited.TestAndSet(cur);
  uint32_t ids[kMaxBatch];
  for (int l = entry.level; l > stop_level; --l) {
    const uint32_t lvl = static_cast<uint32_t>(l);
    const uint32_t cap = internal::ListCapacity(lvl, layout_);
    for (bool changed = true; changed;) {
      changed = false;
      uint8_t* list = internal::ListPtr(Node(cur), lvl, layout_);
      const uint32_t n = std::min(internal::LoadCount(list), cap);
      // The new neighbours' headers and records are requested before the first
      // distance, so their misses overlap (as in SearchLayer).
      uint32_t k = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t id = internal::LoadId(list, i);
        if (visited.Test(id)) {
          continue;
        }
        const uint8_t* nb = Node(id);
        __builtin_prefetch(nb);
        PrefetchRecord(nb, layout_, prefetch_lines_);
        ids[k++] = id;
      }
      for (uint32_t j = 0; j < k; ++j) {
        const uint32_t id = ids[j];
        const uint8_t* nb = Node(id);
        if (!Traversable(internal::LoadState(nb, layout_)) || internal::NodeLevel(nb) < lvl) {
          continue;  // Not marked: it may be traversable on a lower layer or later.
        }
        visited.TestAndSet(id);
        const float d = space_.Distance(record, internal::Record(nb, layout_));
        if (d < cur_dist) {
          cur = id;
          cur_dist = d;
          changed = true;
        }
      }
    }
  }
  return {cur, cur_dist};
}

void HnswIndex::SearchLayer(const uint8_t* record, uint32_t start, float start_dist, size_t ef,
                            uint32_t level, Scratch& s, uint32_t watch) const {
  VisitedTable& visited = ThreadVisitedTable();
  visited.Reset(high_water_.load(std::memory_order_acquire));
  s.candidates.clear();
  s.top.clear();

  visited.TestAndSet(start);
  s.candidates.push({start_dist, start});
  float bound = std::numeric_limits<float>::max();
  if (internal::LoadState(Node(start), layout_) == kLive) {
    s.top.push({start_dist, start});
    bound = start_dist;
  }

  const uint32_t cap = internal::ListCapacity(level, layout_);
  uint32_t ids[kMaxBatch];
  const uint8_t* nodes[kMaxBatch];
  while (!s.candidates.empty()) {
    const Cand c = s.candidates.top();
    if (c.dist > bound && s.top.size() >= ef) {
      break;
    }
    s.candidates.pop();

    uint8_t* list = internal::ListPtr(Node(c.id), level, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), cap);
    for (uint32_t i = 0; i < n; ++i) {
      ids[i] = internal::LoadId(list, i);
      visited.Prefetch(ids[i]);
    }
    if (watch != UINT32_MAX) {
      for (uint32_t i = 0; i < n; ++i) {
        if (ids[i] == watch) {
          s.referrers.push_back(c.id);
          break;
        }
      }
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (visited.TestAndSet(ids[i])) {
        continue;
      }
      const uint8_t* nb = Node(ids[i]);
      PrefetchRecord(nb, layout_, prefetch_lines_);
      ids[k] = ids[i];
      nodes[k++] = nb;
    }
    for (uint32_t j = 0; j < k; ++j) {
      const uint8_t* nb = nodes[j];
      const uint32_t state = internal::LoadState(nb, layout_);
      if (!Traversable(state) || (level > 0 && internal::NodeLevel(nb) < level)) {
        continue;
      }
      const float d = space_.Distance(record, internal::Record(nb, layout_));
      if (s.top.size() < ef || d < bound) {
        s.candidates.push({d, ids[j]});
        if (state == kLive) {
          s.top.push({d, ids[j]});
          if (s.top.size() > ef) {
            s.top.pop();
          }
          bound = s.top.top().dist;
        }
      }
    }
    if (level == 0 && !s.candidates.empty()) {
      PrefetchList0(Node(s.candidates.top().id));
    }
  }
}

void HnswIndex::SearchBase(const uint8_t* record, uint32_t start, float start_dist,
                           const SearchParams& p, size_t ef, Scratch& s) const {
  VisitedTable& visited = ThreadVisitedTable();
  visited.Reset(high_water_.load(std::memory_order_acquire));
  s.candidates.clear();
  s.top.clear();
  s.filtered.clear();

  const size_t k = p.k;
  const float max_dist = p.max_distance.value_or(std::numeric_limits<float>::infinity());
  uint64_t limit = p.filter_ef == 0 ? uint64_t{p.k} * 100 : uint64_t{p.filter_ef};
  uint64_t examined = 0;
  auto consider = [&](uint32_t id, const uint8_t* node, float d) {
    // A filter-passing result candidate? Evaluate the filter only when it could enter.
    if (d > max_dist || (s.filtered.size() >= k && d >= s.filtered.top().dist)) {
      return;
    }
    ++examined;
    const internal::Meta* meta = internal::LoadMeta(node);
    if (!p.filter->Matches(internal::MetaAttributes(meta, internal::NodeLevel(node), layout_))) {
      return;
    }
    s.filtered.push({d, id});
    if (s.filtered.size() > k) {
      s.filtered.pop();
    }
  };

  visited.TestAndSet(start);
  s.candidates.push({start_dist, start});
  const uint8_t* start_node = Node(start);
  if (internal::LoadState(start_node, layout_) == kLive) {
    s.top.push({start_dist, start});
    consider(start, start_node, start_dist);
  }

  uint32_t ids[kMaxBatch];
  const uint8_t* nodes[kMaxBatch];
  while (!s.candidates.empty() && examined < limit) {
    const Cand c = s.candidates.top();
    const bool walk_done = s.top.size() >= ef && c.dist > s.top.top().dist;
    // Past the point where plain HNSW stops, keep going only while results are
    // missing and could still be within max_distance.
    if (walk_done && (s.filtered.size() >= k || c.dist > max_dist)) {
      break;
    }
    s.candidates.pop();

    uint8_t* list = internal::ListPtr(Node(c.id), 0, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), layout_.m0);
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = internal::LoadId(list, i);
      if (visited.TestAndSet(id)) {
        continue;
      }
      const uint8_t* nb = Node(id);
      PrefetchRecord(nb, layout_, prefetch_lines_);
      ids[cnt] = id;
      nodes[cnt++] = nb;
    }
    for (uint32_t j = 0; j < cnt; ++j) {
      const uint8_t* nb = nodes[j];
      const uint32_t state = internal::LoadState(nb, layout_);
      if (!Traversable(state)) {
        continue;
      }
      const float d = space_.Distance(record, internal::Record(nb, layout_));
      const bool admit = s.top.size() < ef || d < s.top.top().dist ||
                         (s.filtered.size() < k && d <= max_dist);
      if (!admit) {
        continue;
      }
      s.candidates.push({d, ids[j]});
      if (state == kLive) {
        s.top.push({d, ids[j]});
        if (s.top.size() > ef) {
          s.top.pop();
        }
        consider(ids[j], nb, d);
      }
    }
    if (!s.candidates.empty()) {
      PrefetchList0(Node(s.candidates.top().id));
    }
  }
}

void HnswIndex::SearchExact(const uint8_t* record, const SearchParams& p, Scratch& s) const {
  s.filtered.clear();
  const size_t k = p.k;
  const float max_dist = p.max_distance.value_or(std::numeric_limits<float>::infinity());
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  for (uint32_t id = 0; id < hw; ++id) {
    const uint8_t* node = Node(id);
    if (internal::LoadState(node, layout_) != kLive) {
      continue;
    }
    const float d = space_.Distance(record, internal::Record(node, layout_));
    if (d > max_dist || (s.filtered.size() >= k && d >= s.filtered.top().dist)) {
      continue;
    }
    if (p.filter != nullptr &&
        !p.filter->Matches(internal::NodeAttributes(node, layout_))) {
      continue;
    }
    s.filtered.push({d, id});
    if (s.filtered.size() > k) {
      s.filtered.pop();
    }
  }
}

void HnswIndex::SearchRangeBase(const uint8_t* record, uint32_t start, float start_dist,
                                float radius, const StopCheck* stop, double epsilon, size_t ef,
                                const AttributePredicate* filter, Scratch& s) const {
  VisitedTable& visited = ThreadVisitedTable();
  visited.Reset(high_water_.load(std::memory_order_acquire));
  s.candidates.clear();
  s.top.clear();
  s.sorted.clear();
  const double eps = epsilon > 0.0 ? epsilon : 0.0;
  auto boundary_of = [eps](float range) {
    return static_cast<float>(range + std::fabs(static_cast<double>(range)) * eps);
  };
  auto result = [&](uint32_t id, const uint8_t* node, float d) {
    if (filter == nullptr ||
        filter->Matches(internal::MetaAttributes(internal::LoadMeta(node),
                                                 internal::NodeLevel(node), layout_))) {
      s.sorted.push_back({d, id});
    }
  };

  // The dynamic range starts at the entry node's distance (the radius once inside).
  float range = start_dist;
  const uint8_t* start_node = Node(start);
  if (start_dist <= radius) {
    range = radius;
    if (internal::LoadState(start_node, layout_) == kLive) {
      result(start, start_node, start_dist);
    }
  }
  float boundary = boundary_of(range);
  // The beam: the best `ef` nodes met. Expansion also continues while a candidate could
  // enter it, as a KNN walk does, so a small ball is not missed by a greedy walk stuck
  // in a local minimum.
  auto beam_bound = [&] {
    return s.top.size() < ef ? std::numeric_limits<float>::infinity() : s.top.top().dist;
  };
  auto offer_beam = [&](uint32_t id, float d) {
    if (ef == 0) {
      return;
    }
    if (s.top.size() < ef || d < s.top.top().dist) {
      s.top.push({d, id});
      if (s.top.size() > ef) {
        s.top.pop();
      }
    }
  };
  visited.TestAndSet(start);
  s.candidates.push({start_dist, start});
  offer_beam(start, start_dist);

  uint32_t ids[kMaxBatch];
  const uint8_t* nodes[kMaxBatch];
  uint32_t expanded = 0;
  while (!s.candidates.empty()) {
    const Cand c = s.candidates.top();
    if (c.dist > boundary && (ef == 0 || c.dist > beam_bound())) {
      break;
    }
    if (stop != nullptr && (++expanded & 31u) == 0 && stop->ShouldStop()) {
      break;
    }
    s.candidates.pop();
    // Narrow the range towards the best node met, never below the radius.
    if (c.dist < range) {
      range = std::max(c.dist, radius);
      boundary = boundary_of(range);
    }
    uint8_t* list = internal::ListPtr(Node(c.id), 0, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), layout_.m0);
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = internal::LoadId(list, i);
      if (visited.TestAndSet(id)) {
        continue;
      }
      const uint8_t* nb = Node(id);
      PrefetchRecord(nb, layout_, prefetch_lines_);
      ids[cnt] = id;
      nodes[cnt++] = nb;
    }
    for (uint32_t j = 0; j < cnt; ++j) {
      const uint8_t* nb = nodes[j];
      const uint32_t state = internal::LoadState(nb, layout_);
      if (!Traversable(state)) {
        continue;
      }
      const float d = space_.Distance(record, internal::Record(nb, layout_));
      if (d < boundary || (ef != 0 && d < beam_bound())) {
        s.candidates.push({d, ids[j]});
        offer_beam(ids[j], d);
      }
      if (d <= radius && state == kLive) {
        result(ids[j], nb, d);
      }
    }
    if (!s.candidates.empty()) {
      PrefetchList0(Node(s.candidates.top().id));
    }
  }
}

Result<std::vector<SearchHit>> HnswIndex::SearchRange(std::span<const float> query, float radius,
                                                      double epsilon, size_t ef,
                                                      const AttributePredicate* filter,
                                                      const StopCheck* stop) const {
  Status st = space_.CheckInput(query);
  if (!st.ok()) {
    return st;
  }
  Scratch& s = internal::ThreadScratch();
  s.record.resize(space_.record_bytes());
  space_.Encode(query, s.record.data(), /*want_norm=*/false);
  const uint8_t* record = s.record.data();
  EpochGuard guard;
  std::vector<SearchHit> hits;
  Entry entry = LoadEntry();
  if (entry.level < 0 || std::isnan(radius)) {
    return hits;
  }
  auto [start, start_dist] = GreedyDescent(record, entry, 0);
  SearchRangeBase(record, start, start_dist, radius, stop, epsilon, ef, filter, s);
  std::sort(s.sorted.begin(), s.sorted.end(), [](const Cand& a, const Cand& b) {
    return a.dist < b.dist || (a.dist == b.dist && a.id < b.id);
  });
  SearchParams p;
  p.k = static_cast<uint32_t>(std::min<size_t>(s.sorted.size(), UINT32_MAX));
  return CollectHits(p, s);
}

Result<std::vector<SearchHit>> HnswIndex::SearchRecord(const uint8_t* record,
                                                       const SearchParams& p) const {
  std::vector<SearchHit> hits;
  if (p.k == 0) {
    return hits;
  }
  Scratch& s = internal::ThreadScratch();
  if (p.exact) {
    SearchExact(record, p, s);
    s.filtered.DrainSorted(s.sorted);
  } else {
    Entry entry = LoadEntry();
    if (entry.level < 0) {
      return hits;
    }
    auto [start, start_dist] = GreedyDescent(record, entry, 0);
    size_t ef = p.ef == 0 ? std::max<size_t>(p.k, kDefaultEf) : std::max<size_t>(p.ef, p.k);
    if (p.filter != nullptr) {
      SearchBase(record, start, start_dist, p, ef, s);
      s.filtered.DrainSorted(s.sorted);
    } else {
      SearchLayer(record, start, start_dist, ef, 0, s);
      s.top.DrainSorted(s.sorted);
    }
  }

  return CollectHits(p, s);
}

std::vector<SearchHit> HnswIndex::CollectHits(const SearchParams& p, Scratch& s) const {
  std::vector<SearchHit> hits;
  hits.reserve(std::min<size_t>(p.k, s.sorted.size()));
  for (const Cand& c : s.sorted) {
    if (hits.size() >= p.k) {
      break;
    }
    if (p.max_distance.has_value() && c.dist > *p.max_distance) {
      break;
    }
    const uint8_t* node = Node(c.id);
    const internal::Meta* meta = internal::LoadMeta(node);
    const uint32_t level = internal::NodeLevel(node);
    SearchHit hit;
    hit.label.assign(internal::MetaLabel(meta, level, layout_));
    hit.distance = c.dist;
    if (p.with_attributes && meta->has_attributes()) {
      hit.attributes.emplace(internal::MetaAttributes(meta, level, layout_));
    }
    hits.push_back(std::move(hit));
  }
  return hits;
}

Result<std::vector<SearchHit>> HnswIndex::Search(std::span<const float> query,
                                                 const SearchParams& params) const {
  Status st = space_.CheckInput(query);
  if (!st.ok()) {
    return st;
  }
  Scratch& s = internal::ThreadScratch();
  s.record.resize(space_.record_bytes());
  space_.Encode(query, s.record.data(), /*want_norm=*/false);
  EpochGuard guard;
  return SearchRecord(s.record.data(), params);
}

Result<std::vector<SearchHit>> HnswIndex::SearchFloats(std::span<const float> query,
                                                       const SearchParams& params) const {
  if (options_.quant != Quantization::kFloat32 || options_.metric == Metric::kCosine ||
      query.size() != options_.dim) {
    return Search(query, params);
  }
  // Encode() of a float32 L2 / IP record multiplies by 1: the floats are the record.
  EpochGuard guard;
  return SearchRecord(reinterpret_cast<const uint8_t*>(query.data()), params);
}

Result<std::vector<SearchHit>> HnswIndex::SearchAmong(std::span<const float> query,
                                                      std::span<const std::string_view> labels,
                                                      const SearchParams& p) const {
  Status st = space_.CheckInput(query);
  if (!st.ok()) {
    return st;
  }
  if (p.k == 0) {
    return std::vector<SearchHit>{};
  }
  Scratch& s = internal::ThreadScratch();
  s.record.resize(space_.record_bytes());
  space_.Encode(query, s.record.data(), /*want_norm=*/false);
  const uint8_t* record = s.record.data();
  EpochGuard guard;
  s.filtered.clear();
  const size_t k = p.k;
  const float max_dist = p.max_distance.value_or(std::numeric_limits<float>::infinity());
  for (std::string_view label : labels) {
    std::optional<uint32_t> id = labels_.Find(label);
    if (!id.has_value()) {
      continue;
    }
    const uint8_t* node = Node(*id);
    if (internal::LoadState(node, layout_) != kLive) {
      continue;
    }
    const float d = space_.Distance(record, internal::Record(node, layout_));
    if (d > max_dist || (s.filtered.size() >= k && d >= s.filtered.top().dist)) {
      continue;
    }
    if (p.filter != nullptr && !p.filter->Matches(internal::NodeAttributes(node, layout_))) {
      continue;
    }
    s.filtered.push({d, *id});
    if (s.filtered.size() > k) {
      s.filtered.pop();
    }
  }
  s.filtered.DrainSorted(s.sorted);
  return CollectHits(p, s);
}

Result<std::vector<SearchHit>> HnswIndex::SearchByLabel(std::string_view label,
                                                        const SearchParams& params) const {
  EpochGuard guard;
  std::optional<uint32_t> id = labels_.Find(label);
  if (!id.has_value()) {
    return Status::NotFound("element not found");
  }
  Scratch& s = internal::ThreadScratch();
  const uint8_t* rec = internal::Record(Node(*id), layout_);
  s.record.assign(rec, rec + space_.record_bytes());
  return SearchRecord(s.record.data(), params);
}

}  // namespace hotkv::vector

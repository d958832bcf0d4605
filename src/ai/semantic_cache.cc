// SemanticCache (see semantic_cache.h).
#include "ai/semantic_cache.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace hotkv::ai {
namespace {

constexpr size_t kSweepPerCall = 16;   // expired entries removed by one Set/Get at most
constexpr uint32_t kCandidates = 8;    // nearest entries one semantic lookup considers
// Beam width of a semantic lookup: min(EF, kLookupEf). A lookup wants the one nearest
// entry, and a hit is a near-duplicate that a narrow beam finds; the insert beam (EF,
// 200 by default) made every lookup ~9x an FT.SEARCH KNN 1 (EF_RUNTIME 10) on the same
// data (bench/results/ai-scache_2026-12-03_070553).
constexpr uint32_t kLookupEf = 40;
constexpr double kScoreSlack = 1e-6;   // float distances: a similarity this close counts
// The first walk of a semantic lookup (HnswIndex::SearchNear): a beam of kNearEf nodes
// measured on the nodes' Q8 sketches (a quarter of a float32 record's bytes: a walk
// through 1536-d records is memory-bound), then the kNearRerank nearest met measured
// exactly. A hit is a near-duplicate, which the narrow walk reaches (bench/ai_scache.py's
// data, 10,000 x 1536: ef 1 missed 77 of 300 hit queries, 4: 14, 8: 3, 16: 0); only when
// it returns no live entry within the threshold does the wider beam search decide.
constexpr uint32_t kNearEf = 8;
constexpr uint32_t kNearRerank = 4;
constexpr size_t kItemOverhead = 160;  // maps, list and set nodes per entry (estimate)

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::optional<uint64_t> IdOfLabel(std::string_view label) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(label.data(), label.data() + label.size(), v);
  if (ec != std::errc() || p != label.data() + label.size()) {
    return std::nullopt;
  }
  return v;
}

Result<std::shared_ptr<vector::HnswIndex>> MakeIndex(const SemanticCacheOptions& o) {
  vector::IndexOptions io;
  io.dim = o.dim;
  io.metric = o.metric;
  io.quant = o.quant;
  io.m = o.m;
  io.ef_construction = o.ef;
  // Lookups walk on Q8 sketches (SearchNear) and re-measure the few nearest exactly.
  if (o.quant == vector::Quantization::kFloat32) {
    io.sketch = vector::IndexOptions::Sketch::kQ8;
  }
  auto index = vector::HnswIndex::Create(io);
  if (!index.ok()) {
    return index.status();
  }
  return std::shared_ptr<vector::HnswIndex>(std::move(index.value()));
}

Status CheckVector(std::span<const float> v, uint32_t dim) {
  if (v.size() != dim) {
    return Status::InvalidArgument("vector dimension mismatch - got " + std::to_string(v.size()) +
                                   " but cache has " + std::to_string(dim));
  }
  for (float f : v) {
    if (!std::isfinite(f)) {
      return Status::InvalidArgument("vector components must be finite numbers");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string NormalizePrompt(std::string_view prompt) {
  std::string out;
  out.reserve(prompt.size());
  bool pending_space = false;
  for (char c : prompt) {
    if (IsSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) {
      out.push_back(' ');
      pending_space = false;
    }
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

Result<std::shared_ptr<SemanticCache>> SemanticCache::Create(const SemanticCacheOptions& options) {
  if (options.dim < 1 || options.dim > 65536) {
    return Status::InvalidArgument("DIM must be between 1 and 65536");
  }
  if (!(options.threshold >= 0.0 && options.threshold <= 1.0)) {
    return Status::InvalidArgument("THRESHOLD must be between 0 and 1");
  }
  if (options.ttl_ms < 0) {
    return Status::InvalidArgument("TTL must not be negative");
  }
  auto index = MakeIndex(options);
  if (!index.ok()) {
    return index.status();
  }
  return std::shared_ptr<SemanticCache>(new SemanticCache(options, std::move(index.value())));
}

SemanticCache::SemanticCache(const SemanticCacheOptions& options,
                             std::shared_ptr<vector::HnswIndex> index)
    : options_(options), index_(std::move(index)) {}

std::shared_ptr<vector::HnswIndex> SemanticCache::IndexRef() const {
  std::lock_guard lock(mu_);
  return index_;
}

void SemanticCache::RemoveLabels(vector::HnswIndex& index, const std::vector<std::string>& labels) {
  for (const std::string& l : labels) {
    index.Remove(l);
  }
}

void SemanticCache::SetExpiryLocked(Item& it, int64_t expire_at_ms) {
  if (it.expire_at_ms != 0) {
    expiry_.erase({it.expire_at_ms, it.id});
  }
  it.expire_at_ms = expire_at_ms;
  if (expire_at_ms != 0) {
    expiry_.insert({expire_at_ms, it.id});
  }
}

void SemanticCache::UnlinkLocked(uint64_t id, std::vector<std::string>* victims) {
  auto found = items_.find(id);
  if (found == items_.end()) {
    return;
  }
  Item& it = found->second;
  if (it.expire_at_ms != 0) {
    expiry_.erase({it.expire_at_ms, id});
  }
  if (it.has_prompt) {
    auto [b, e] = exact_.equal_range(it.norm_prompt);
    for (auto i = b; i != e; ++i) {
      if (i->second == id) {
        exact_.erase(i);
        break;
      }
    }
  }
  lru_.erase(it.lru);
  text_bytes_ -= it.response.size() + it.prompt.size() + it.norm_prompt.size() + it.attrs.size();
  items_.erase(found);
  victims->push_back(Label(id));
}

void SemanticCache::SweepLocked(int64_t now_ms, size_t limit, std::vector<std::string>* victims) {
  while (limit-- > 0 && !expiry_.empty() && expiry_.begin()->first <= now_ms) {
    const uint64_t id = expiry_.begin()->second;
    UnlinkLocked(id, victims);
    expirations_++;
  }
}

SemanticCache::Hit SemanticCache::HitLocked(Item& it, Strategy s, double similarity, int64_t now_ms,
                                            const ChangeFn& changes) {
  lru_.splice(lru_.begin(), lru_, it.lru);
  if (it.ttl_ms > 0) {
    SetExpiryLocked(it, now_ms + it.ttl_ms);
  }
  if (changes) {
    changes({Change::Kind::kTouch, it.id, it.expire_at_ms});
  }
  if (s == Strategy::kExact) {
    hits_exact_++;
  } else {
    hits_semantic_++;
  }
  Hit h{it.id, s, similarity, it.response, std::nullopt, std::nullopt};
  if (it.has_prompt) {
    h.prompt = it.prompt;
  }
  if (it.has_attrs) {
    h.attrs = it.attrs;
  }
  return h;
}

Result<uint64_t> SemanticCache::Set(const SetRequest& req, int64_t now_ms, const ChangeFn& changes) {
  if (Status st = CheckVector(req.vec, options_.dim); !st.ok()) {
    return st;
  }
  uint64_t id;
  uint64_t generation;
  std::shared_ptr<vector::HnswIndex> index;
  {
    std::lock_guard lock(mu_);
    if (req.id.has_value()) {
      if (*req.id == 0 || items_.count(*req.id) != 0) {
        return Status::InvalidArgument("entry id " + std::to_string(*req.id) + " is in use");
      }
      id = *req.id;
      next_id_ = std::max(next_id_, id + 1);
    } else {
      id = next_id_++;
    }
    generation = generation_;
    index = index_;
  }
  const std::string label = Label(id);
  Result<bool> added = index->Add(label, req.vec, req.attrs, options_.ef);
  if (!added.ok()) {
    return added.status();
  }
  std::vector<std::string> victims;
  {
    std::lock_guard lock(mu_);
    if (generation != generation_) {
      return id;  // a FLUSH ran meanwhile: the entry went with it
    }
    if (items_.count(id) != 0) {
      // Only with explicit ids: another SET of the same id registered first.
      return Status::InvalidArgument("entry id " + std::to_string(id) + " is in use");
    }
    SweepLocked(now_ms, kSweepPerCall, &victims);
    const int64_t ttl = req.ttl_ms.value_or(options_.ttl_ms);
    const int64_t expire_at = req.expire_at_ms.has_value() ? *req.expire_at_ms
                              : ttl > 0                    ? now_ms + ttl
                                                           : 0;
    if (expire_at != 0 && expire_at <= now_ms) {
      victims.push_back(label);  // replayed after its expiry: never visible
    } else {
      Item it;
      it.id = id;
      it.response.assign(req.response);
      it.has_prompt = req.prompt.has_value();
      if (it.has_prompt) {
        it.prompt.assign(*req.prompt);
        it.norm_prompt = NormalizePrompt(*req.prompt);
      }
      it.has_attrs = req.attrs.has_value();
      if (it.has_attrs) {
        it.attrs.assign(*req.attrs);
      }
      it.ttl_ms = ttl;
      // The same normalised prompt with the same attributes replaces the older entry.
      if (it.has_prompt) {
        std::vector<uint64_t> same;
        auto [b, e] = exact_.equal_range(it.norm_prompt);
        for (auto i = b; i != e; ++i) {
          const Item& other = items_.at(i->second);
          if (other.has_attrs == it.has_attrs && other.attrs == it.attrs) {
            same.push_back(i->second);
          }
        }
        for (uint64_t o : same) {
          UnlinkLocked(o, &victims);
        }
      }
      text_bytes_ += it.response.size() + it.prompt.size() + it.norm_prompt.size() + it.attrs.size();
      lru_.push_front(id);
      it.lru = lru_.begin();
      auto [pos, inserted] = items_.emplace(id, std::move(it));
      SetExpiryLocked(pos->second, expire_at);
      if (pos->second.has_prompt) {
        exact_.emplace(pos->second.norm_prompt, id);
      }
      while (options_.max_entries != 0 && items_.size() > options_.max_entries) {
        const uint64_t oldest = lru_.back();
        UnlinkLocked(oldest, &victims);
        evictions_++;
        if (changes) {
          changes({Change::Kind::kDel, oldest, 0});
        }
      }
      if (changes) {
        changes({Change::Kind::kSet, id, expire_at});
      }
    }
  }
  RemoveLabels(*index, victims);
  return id;
}

Result<std::optional<SemanticCache::Hit>> SemanticCache::Get(const GetRequest& req, int64_t now_ms,
                                                             const ChangeFn& changes) {
  if (Status st = CheckVector(req.vec, options_.dim); !st.ok()) {
    return st;
  }
  const double threshold = req.threshold.value_or(options_.threshold);
  std::vector<std::string> victims;
  std::shared_ptr<vector::HnswIndex> index;
  // 1. The exact strategy: no vector search when it hits.
  std::optional<Hit> exact_hit;
  {
    std::optional<std::string> norm;
    if (req.prompt.has_value()) {
      norm = NormalizePrompt(*req.prompt);
    }
    std::lock_guard lock(mu_);
    index = index_;
    SweepLocked(now_ms, kSweepPerCall, &victims);
    if (norm.has_value()) {
      Item* best = nullptr;
      std::vector<uint64_t> expired;
      auto [b, e] = exact_.equal_range(*norm);
      for (auto i = b; i != e; ++i) {
        Item& it = items_.at(i->second);
        if (Expired(it, now_ms)) {
          expired.push_back(it.id);
        } else if ((req.filter == nullptr || req.filter->Matches(it.has_attrs ? it.attrs : "")) &&
                   (best == nullptr || it.id > best->id)) {
          best = &it;
        }
      }
      if (best != nullptr) {
        exact_hit = HitLocked(*best, Strategy::kExact, 1.0, now_ms, changes);
      }
      for (uint64_t id : expired) {
        UnlinkLocked(id, &victims);
        expirations_++;
      }
    }
  }
  RemoveLabels(*index, victims);
  victims.clear();
  if (exact_hit.has_value()) {
    return exact_hit;
  }
  // 2. The semantic strategy. First a narrow walk on the nodes' Q8 sketches whose few
  // nearest nodes are then measured exactly (HnswIndex::SearchNear): a semantic hit is
  // a near-duplicate, which that walk reaches for a fraction of a beam search's memory
  // traffic, and the nearest live entry (passing FILTER) within the radius by its exact
  // distance is the hit. When it returns none (a miss, a walk stuck short of the ball,
  // or only expired entries), the beam search of width min(EF, 40) below decides, as
  // before (on the sketches too, unless FILTER is given); a miss costs the narrow walk more.
  const float radius =
      threshold > 0.0
          ? static_cast<float>(vector::DistanceFromSimilarity(options_.metric, threshold - kScoreSlack))
          : std::numeric_limits<float>::infinity();
  {
    Result<std::vector<vector::SearchHit>> found =
        index->SearchNear(req.vec, radius, kNearEf, kNearRerank, req.filter);
    if (!found.ok()) {
      return found.status();
    }
    if (!found->empty()) {
      std::optional<Hit> hit;
      {
        std::lock_guard lock(mu_);
        if (index_ == index) {
          hit = PickLocked(*found, threshold, now_ms, changes, &victims);
        }
      }
      RemoveLabels(*index, victims);
      victims.clear();
      if (hit.has_value()) {
        return hit;
      }
    }
  }
  vector::SearchParams params;
  params.k = kCandidates;
  params.ef = std::max(std::min(options_.ef, kLookupEf), kCandidates);
  params.filter = req.filter;
  if (std::isfinite(radius)) {
    params.max_distance = radius;
  }
  for (int round = 0; round < 2; round++) {
    // Without FILTER, the same beam measured on the sketches (its kCandidates nearest
    // re-measured exactly): the exact beam's answers for ~0.55x its CPU on a miss
    // (bench/notes/2026-12-03-scache-cpu.md). With FILTER the exact filtered search,
    // which goes on past the beam while the ball may still hold an entry that passes.
    Result<std::vector<vector::SearchHit>> found =
        req.filter == nullptr && index->has_sketch()
            ? index->SearchNear(req.vec, radius, params.ef, kCandidates, nullptr)
            : index->Search(req.vec, params);
    if (!found.ok()) {
      return found.status();
    }
    std::optional<Hit> hit;
    {
      std::lock_guard lock(mu_);
      if (index_ == index) {
        hit = PickLocked(*found, threshold, now_ms, changes, &victims);
      }
      if (!hit.has_value() && (victims.empty() || round == 1)) {
        misses_++;
      }
    }
    const bool retry = !hit.has_value() && !victims.empty();
    RemoveLabels(*index, victims);
    victims.clear();
    if (hit.has_value() || !retry) {
      return hit;
    }
  }
  return std::optional<Hit>();
}

std::optional<SemanticCache::Hit> SemanticCache::PickLocked(
    const std::vector<vector::SearchHit>& found, double threshold, int64_t now_ms,
    const ChangeFn& changes, std::vector<std::string>* victims) {
  for (const vector::SearchHit& h : found) {
    const double sim = vector::SimilarityFromDistance(options_.metric, h.distance);
    if (sim + kScoreSlack < threshold) {
      break;
    }
    std::optional<uint64_t> id = IdOfLabel(h.label);
    if (!id) {
      continue;
    }
    auto it = items_.find(*id);
    if (it == items_.end()) {
      continue;  // being inserted or removed
    }
    if (Expired(it->second, now_ms)) {
      UnlinkLocked(*id, victims);
      expirations_++;
      continue;
    }
    return HitLocked(it->second, Strategy::kSemantic, std::min(sim, 1.0), now_ms, changes);
  }
  return std::nullopt;
}

bool SemanticCache::Touch(uint64_t id, int64_t expire_at_ms, int64_t now_ms, const ChangeFn& changes) {
  std::vector<std::string> victims;
  std::shared_ptr<vector::HnswIndex> index;
  bool found = false;
  {
    std::lock_guard lock(mu_);
    index = index_;
    auto it = items_.find(id);
    if (it != items_.end() && Expired(it->second, now_ms)) {
      UnlinkLocked(id, &victims);
      expirations_++;
    } else if (it != items_.end()) {
      found = true;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      SetExpiryLocked(it->second, expire_at_ms);
      if (changes) {
        changes({Change::Kind::kTouch, id, expire_at_ms});
      }
    }
  }
  RemoveLabels(*index, victims);
  return found;
}

bool SemanticCache::Delete(uint64_t id, int64_t now_ms, const ChangeFn& changes) {
  std::vector<std::string> victims;
  std::shared_ptr<vector::HnswIndex> index;
  bool found = false;
  {
    std::lock_guard lock(mu_);
    index = index_;
    auto it = items_.find(id);
    if (it != items_.end()) {
      found = !Expired(it->second, now_ms);
      if (!found) {
        expirations_++;
      }
      UnlinkLocked(id, &victims);
      if (found && changes) {
        changes({Change::Kind::kDel, id, 0});
      }
    }
  }
  RemoveLabels(*index, victims);
  return found;
}

size_t SemanticCache::Flush(const std::function<void()>& record) {
  auto fresh = MakeIndex(options_);  // the options were validated by Create
  std::shared_ptr<vector::HnswIndex> old;
  size_t n;
  {
    std::lock_guard lock(mu_);
    n = items_.size();
    items_.clear();
    exact_.clear();
    expiry_.clear();
    lru_.clear();
    text_bytes_ = 0;
    old = std::move(index_);
    index_ = std::move(fresh.value());
    generation_++;
    if (record) {
      record();
    }
  }
  return n;  // `old` is freed here, or by the last command still using it
}

SemanticCache::Stats SemanticCache::GetStats() const {
  std::lock_guard lock(mu_);
  const size_t memory = sizeof(*this) + index_->MemoryUsage() + text_bytes_ +
                        items_.size() * (sizeof(Item) + kItemOverhead);
  return {items_.size(), hits_exact_, hits_semantic_, misses_, evictions_, expirations_, memory};
}

size_t SemanticCache::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

size_t SemanticCache::MemoryUsage() const { return GetStats().memory; }

std::shared_ptr<SemanticCache> SemanticCache::Clone() const {
  std::lock_guard lock(mu_);
  auto c = std::shared_ptr<SemanticCache>(
      new SemanticCache(options_, std::shared_ptr<vector::HnswIndex>(index_->Clone())));
  c->next_id_ = next_id_;
  c->items_ = items_;
  c->exact_ = exact_;
  c->expiry_ = expiry_;
  c->text_bytes_ = text_bytes_;
  c->hits_exact_ = hits_exact_;
  c->hits_semantic_ = hits_semantic_;
  c->misses_ = misses_;
  c->evictions_ = evictions_;
  c->expirations_ = expirations_;
  for (uint64_t id : lru_) {
    c->lru_.push_back(id);
    c->items_.at(id).lru = std::prev(c->lru_.end());
  }
  return c;
}

SemanticCache::Snapshot SemanticCache::TakeSnapshot() const {
  std::lock_guard lock(mu_);
  Snapshot s;
  s.next_id = next_id_;
  s.stats = {items_.size(), hits_exact_, hits_semantic_, misses_, evictions_, expirations_, 0};
  s.entries.reserve(items_.size());
  for (auto r = lru_.rbegin(); r != lru_.rend(); ++r) {
    const Item& it = items_.at(*r);
    std::optional<std::vector<float>> v = index_->GetVector(Label(it.id));
    if (!v.has_value()) {
      continue;
    }
    s.entries.push_back({it.id, it.expire_at_ms, it.ttl_ms, it.response, it.prompt, it.attrs,
                         it.has_prompt, it.has_attrs, std::move(*v)});
  }
  return s;
}

Status SemanticCache::Restore(Snapshot snap) {
  std::lock_guard lock(mu_);
  for (SavedEntry& e : snap.entries) {
    if (Status st = CheckVector(e.vec, options_.dim); !st.ok()) {
      return st;
    }
    if (e.id == 0 || items_.count(e.id) != 0) {
      return Status::InvalidArgument("duplicate entry id " + std::to_string(e.id));
    }
    std::optional<std::string_view> attrs;
    if (e.has_attrs) {
      attrs = e.attrs;
    }
    Result<bool> added = index_->Add(Label(e.id), e.vec, attrs, options_.ef);
    if (!added.ok()) {
      return added.status();
    }
    Item it;
    it.id = e.id;
    it.response = std::move(e.response);
    it.has_prompt = e.has_prompt;
    it.prompt = std::move(e.prompt);
    if (it.has_prompt) {
      it.norm_prompt = NormalizePrompt(it.prompt);
    }
    it.has_attrs = e.has_attrs;
    it.attrs = std::move(e.attrs);
    it.ttl_ms = e.ttl_ms;
    text_bytes_ += it.response.size() + it.prompt.size() + it.norm_prompt.size() + it.attrs.size();
    lru_.push_front(e.id);
    it.lru = lru_.begin();
    auto [pos, inserted] = items_.emplace(e.id, std::move(it));
    SetExpiryLocked(pos->second, e.expire_at_ms);
    if (pos->second.has_prompt) {
      exact_.emplace(pos->second.norm_prompt, e.id);
    }
    next_id_ = std::max(next_id_, e.id + 1);
  }
  next_id_ = std::max(next_id_, snap.next_id);
  hits_exact_ = snap.stats.hits_exact;
  hits_semantic_ = snap.stats.hits_semantic;
  misses_ = snap.stats.misses;
  evictions_ = snap.stats.evictions;
  expirations_ = snap.stats.expirations;
  return Status::Ok();
}

}  // namespace hotkv::ai

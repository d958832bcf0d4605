// HnswIndex: a concurrent HNSW (Malkov & Yashunin) vector index keyed by binary-safe
// string labels, with optional JSON attributes per element — the engine behind
// HotKV's VSIM.* commands and Redis 8 vector sets (VADD, VSIM, VREM, VEMB, VLINKS,
// VINFO, VRANDMEMBER, VSETATTR/VGETATTR, ...).
//
//   auto index = HnswIndex::Create({.dim = 128, .metric = Metric::kCosine});
//   if (!index.ok()) { ... index.status().message() ... }
//   (*index)->Add("doc:1", vec, R"({"year": 1984})");
//   auto hits = (*index)->Search(query, {.k = 10, .ef = 100});
//
// Graph. Layer 0 keeps up to 2*M links per node, upper layers M; a node's level is
// drawn as floor(-ln(U) / ln(4)) (P(level >= l) = 4^-l, as Redis vector sets). Insertion
// follows the paper (greedy descent, beam search with ef_construction, heuristic
// neighbour selection, back-links pruned with the same heuristic — computing only the
// distances a list's clean prefix does not make known, see node_store.h), except that a new
// node whose heuristic selection kept fewer than M neighbours on a layer is also linked
// to the nearest pruned candidates, up to M (as Redis relinks such a node). Removal repairs the graph: every node that linked to the
// removed node (its neighbours, plus referrers found by a local search) drops the link
// and gains diverse replacements among the removed node's neighbours, so recall and
// connectivity survive heavy churn. An update (Add of an existing label with a new
// vector) is a removal followed by an insertion.
//
// Storage. Nodes are fixed-size blocks in chunks that never move (node_store.h), so
// readers never chase a reallocated pointer. A removed node's slot, label and link
// memory are reclaimed once no search that could have seen it is still running
// (epoch-based reclamation, epoch.h), and the slot is then reused.
//
// For the command layer (Redis vector sets): VADD -> Create + Add (SETATTR, EF, M,
// NOQUANT/Q8/BIN via IndexOptions); VSIM -> Search / SearchByLabel (COUNT = k, EF,
// EPSILON via max_distance = DistanceFromSimilarity(metric, 1 - epsilon), FILTER =
// FilterExpression, FILTER-EF = filter_ef with Redis's 0 = kUnlimitedFilterEf, TRUTH =
// exact, WITHATTRIBS = with_attributes, WITHSCORES = SimilarityFromDistance); VREM ->
// Remove; VEMB -> GetVector / GetRawVector; VLINKS -> GetLinks; VINFO -> Info; VCARD ->
// size; VDIM -> dim; VISMEMBER -> Contains; VSETATTR / VGETATTR -> SetAttributes /
// GetAttributes; VRANDMEMBER -> RandomLabel(s); COPY -> Clone; SCAN / persistence ->
// Scan / ForEachElement. Not provided: REDUCE (random projection) and sorted label
// ranges (VRANGE).
//
// Thread safety. Every method may be called concurrently from any number of threads,
// except the destructor (no other call may be in flight). Searches take no locks:
// they read link lists atomically under an epoch guard. Writers lock one node at a
// time while rewriting its links, a per-label stripe lock serialises Add/Remove of the
// same label, and a small mutex guards the entry point. Add returns after the vector
// is linked, so it is visible to every search that starts afterwards; a search
// running concurrently with Add/Remove may or may not see that element. Clone()
// waits for running Add/Remove calls and blocks new ones while it copies.
#ifndef HOTKV_VECTOR_HNSW_INDEX_H_
#define HOTKV_VECTOR_HNSW_INDEX_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vector/label_map.h"
#include "vector/node_store.h"
#include "common/status.h"
#include "vector/types.h"
#include "vector/vector_space.h"

namespace hotkv::vector {

namespace internal {
struct SearchScratch;
}  // namespace internal

// One element as ForEachElement() presents it. Views are valid during the callback.
struct ElementView {
  std::string_view label;
  std::string_view attributes;  // Empty when the element has none.
  std::span<const float> vector;  // Dequantised (and de-normalised for cosine).
};

struct ScanPage {
  uint64_t next_cursor = 0;  // 0 when the scan is complete.
  std::vector<std::string> labels;
};

class HnswIndex {
 public:
  // Validates the options (dim in 1..65536, m in 2..255, binary => cosine, ...).
  static Result<std::unique_ptr<HnswIndex>> Create(const IndexOptions& options);

  // Prefer Create(); options must be valid.
  explicit HnswIndex(const IndexOptions& options);
  ~HnswIndex();
  HnswIndex(const HnswIndex&) = delete;
  HnswIndex& operator=(const HnswIndex&) = delete;

  // Adds `label` with `vec`, or updates it when present. `attributes`: nullopt keeps
  // the current attributes (none for a new element), an empty string removes them,
  // anything else replaces them (stored as given; see json.h to validate).
  // `ef_construction_override` > 0 replaces the index's ef_construction for this call.
  // Returns true when the element was newly added, false when an existing one was
  // updated. Errors (index unchanged): dimension mismatch, NaN/inf component.
  Result<bool> Add(std::string_view label, std::span<const float> vec,
                   std::optional<std::string_view> attributes = std::nullopt,
                   uint32_t ef_construction_override = 0);

  // Removes `label`; returns whether it was present.
  bool Remove(std::string_view label);

  // The k nearest elements to `query`, nearest first. Errors: dimension mismatch,
  // NaN/inf component.
  Result<std::vector<SearchHit>> Search(std::span<const float> query,
                                        const SearchParams& params) const;
  // Search() for a query already in the stored form, which for Quantization::kFloat32
  // with the L2 or inner-product metric is the dim floats themselves: no second check and
  // no copy (FT.SEARCH's KNN decodes, normalises and checks its query blob itself). The
  // caller guarantees dim components, every one finite. Other spaces (cosine, Q8,
  // binary) go through Search().
  Result<std::vector<SearchHit>> SearchFloats(std::span<const float> query,
                                              const SearchParams& params) const;
  // Exact search among `labels` only (absent labels are skipped): the k nearest of
  // them, nearest first; max_distance and filter apply, ef/exact are ignored. For
  // pre-filtered queries whose candidate set is small (FT.SEARCH hybrid KNN).
  Result<std::vector<SearchHit>> SearchAmong(std::span<const float> query,
                                             std::span<const std::string_view> labels,
                                             const SearchParams& params) const;
  // Every element within `radius` (a distance) of `query`, nearest first: RediSearch's
  // HNSW range search. Greedy descent to layer 0, then a best-first walk that expands
  // every reached node within the dynamic range's boundary: the dynamic range starts at
  // the entry node's distance, shrinks to the best distance met (never below
  // `radius`), and the boundary is range + |range| * epsilon (epsilon >= 0; a larger
  // one explores more of the ball's surroundings and raises recall). `filter`, when
  // set, restricts the results, not the walk. Cost grows with the number of results,
  // not with the index size. `ef` > 0 adds a KNN-like beam: the walk also goes on
  // while a candidate could enter the best `ef` nodes met, so a small ball is found as
  // reliably as KNN with that ef finds its nearest (0: RediSearch's walk exactly).
  // `stop`, when set, is polled every few dozen expanded nodes: once it says so the walk
  // ends and the results met so far come back.
  // Errors: dimension mismatch, NaN/inf component.
  Result<std::vector<SearchHit>> SearchRange(std::span<const float> query, float radius,
                                             double epsilon, size_t ef = 0,
                                             const AttributePredicate* filter = nullptr,
                                             const StopCheck* stop = nullptr) const;
  // Same, with the stored vector of `label` as the query (Redis VSIM ELE); the
  // element itself is part of the results. NotFound if the label is absent.
  Result<std::vector<SearchHit>> SearchByLabel(std::string_view label,
                                               const SearchParams& params) const;

  size_t size() const { return labels_.size(); }
  uint32_t dim() const { return options_.dim; }
  const IndexOptions& options() const { return options_; }

  bool Contains(std::string_view label) const;
  // The stored vector, dequantised and (cosine) de-normalised; nullopt if absent.
  std::optional<std::vector<float>> GetVector(std::string_view label) const;
  // The stored (normalised / quantised) form; nullopt if absent.
  std::optional<RawVector> GetRawVector(std::string_view label) const;
  // nullopt when the element is absent or has no attributes.
  std::optional<std::string> GetAttributes(std::string_view label) const;
  // Sets (empty string: removes) the attributes; returns false if the label is absent.
  bool SetAttributes(std::string_view label, std::string_view attributes);

  // A uniformly random element; nullopt when empty.
  std::optional<std::string> RandomLabel() const;
  // `count` random elements: distinct ones (all of them when count >= size()) unless
  // allow_duplicates, in which case exactly `count` independent draws.
  std::vector<std::string> RandomLabels(size_t count, bool allow_duplicates) const;

  // The links of `label` per level (index 0 = layer 0), with the distance from the
  // element to each neighbour; nullopt if absent.
  std::optional<std::vector<std::vector<Link>>> GetLinks(std::string_view label) const;

  IndexInfo Info() const;
  // Bytes allocated for the index: node chunks, label/attribute/upper-link blobs (as
  // reported by malloc_usable_size), the label map, and bookkeeping.
  size_t MemoryUsage() const;

  // Calls `fn` for every element (order unspecified). Elements added or removed
  // during the walk may or may not be seen; the others are seen exactly once.
  void ForEachElement(const std::function<void(const ElementView&)>& fn) const;
  // Cursor-based iteration over labels (like SCAN): start with cursor 0, stop when
  // next_cursor is 0. Elements present (and not re-added with a new vector) for the
  // whole scan are returned exactly once.
  ScanPage Scan(uint64_t cursor, size_t count) const;

  // A deep copy (Redis COPY).
  std::unique_ptr<HnswIndex> Clone() const;

 private:
  friend struct HnswTestPeer;
  using Scratch = internal::SearchScratch;

  struct Entry {
    uint32_t id;
    int level;  // -1 = empty index.
  };
  struct RetiredNode {
    uint32_t id;
    uint64_t tag;
  };
  struct RetiredMeta {
    internal::Meta* meta;
    uint64_t tag;
  };

  // --- nodes (hnsw_index.cc)
  uint8_t* Node(uint32_t id) const { return store_.Node(id); }
  uint32_t RandomLevel();
  uint32_t AllocateSlot();
  internal::Meta* NewMeta(uint32_t level, std::string_view label, std::string_view attrs,
                          float norm);
  void FreeMeta(internal::Meta* meta);
  static std::string_view LabelOfNode(const void* ctx, uint32_t id);
  std::mutex& LabelLock(std::string_view label);
  Entry LoadEntry() const;
  void StoreEntry(uint32_t id, int level);
  Result<bool> AddEncoded(std::string_view label, const std::vector<uint8_t>& record, float norm,
                          std::optional<std::string_view> attributes, uint32_t ef_c);
  void InsertNode(uint32_t id, uint32_t ef_construction);
  // Selects up to `max` diverse neighbours (the paper's heuristic) from `cands`
  // (sorted by distance to the base node, nearest first); Live nodes only. `fill`:
  // when fewer than `max` pass, the nearest of the rejected ones follow, up to `max`.
  // Returns how many leading entries passed the heuristic's check (0 when there were
  // fewer than `max` candidates and all were taken unchecked): a clean prefix.
  uint32_t SelectNeighbors(std::vector<std::pair<float, uint32_t>>& cands, uint32_t max,
                           bool fill = false) const;
  // Links `target` to `source` on `level`; `dist` is their distance. A full list is
  // pruned with the heuristic (skipping the checks its clean prefix makes known).
  void AddBacklink(uint32_t target, uint32_t source, uint32_t level, float dist);
  // Under `node`'s lock: its full list `list` (cap links, the first `clean` a clean
  // prefix) gains `source` at distance `dist` and is pruned with the heuristic.
  void PruneFullList(uint8_t* node, uint8_t* list, uint32_t cap, uint32_t clean,
                     uint32_t source, float dist);
  static constexpr uint32_t kMaxLinks = 512;  // >= 2 * 255, the longest list.
  bool SetAttributesLocked(uint32_t id, std::optional<std::string_view> attrs);

  // --- search (hnsw_search.cc)
  float Distance(const uint8_t* record, uint32_t id) const {
    return space_.Distance(record, internal::Record(Node(id), layout_));
  }
  // Greedy walk at layers > `stop_level`, starting from the entry point. Returns the
  // closest node found and its distance.
  std::pair<uint32_t, float> GreedyDescent(const uint8_t* record, Entry entry,
                                           int stop_level) const;
  // Beam search at `level` from `start`; leaves up to `ef` nearest Live nodes as a
  // max-heap in scratch.top. When `watch` != UINT32_MAX, records into
  // scratch.referrers every expanded node whose list at `level` contains `watch`.
  void SearchLayer(const uint8_t* record, uint32_t start, float start_dist, size_t ef,
                   uint32_t level, Scratch& s, uint32_t watch = UINT32_MAX) const;
  // Layer-0 query search with filter / epsilon handling; results in scratch.results.
  void SearchBase(const uint8_t* record, uint32_t start, float start_dist,
                  const SearchParams& p, size_t ef, Scratch& s) const;
  void SearchExact(const uint8_t* record, const SearchParams& p, Scratch& s) const;
  // Layer-0 range walk of SearchRange; results (unsorted) in scratch.sorted.
  void SearchRangeBase(const uint8_t* record, uint32_t start, float start_dist, float radius,
                       const StopCheck* stop,
                       double epsilon, size_t ef, const AttributePredicate* filter,
                       Scratch& s) const;
  Result<std::vector<SearchHit>> SearchRecord(const uint8_t* record,
                                              const SearchParams& p) const;
  // The hits of scratch.sorted (at most p.k, within p.max_distance).
  std::vector<SearchHit> CollectHits(const SearchParams& p, Scratch& s) const;

  // --- removal (hnsw_remove.cc)
  void RemoveNode(uint32_t id);
  void RepairLevel(uint32_t removed, uint32_t level, const std::vector<uint32_t>& out,
                   const std::vector<uint32_t>& referrers);
  void ReplaceEntryPoint(uint32_t removed);
  void RetireNode(uint32_t id);
  void RetireMeta(internal::Meta* meta);
  void Reclaim();

  const IndexOptions options_;
  const VectorSpace space_;
  const internal::NodeLayout layout_;
  const double level_mult_;
  const uint32_t prefetch_lines_;  // Cache lines of a neighbour's record to prefetch.
  internal::NodeStore store_;
  internal::LabelMap labels_;

  // Entry point: (level + 1) << 32 | id, 0 when empty. Written under entry_mu_.
  std::atomic<uint64_t> entry_{0};
  std::mutex entry_mu_;

  mutable std::mutex alloc_mu_;
  std::vector<uint32_t> free_ids_;           // Guarded by alloc_mu_.
  std::atomic<uint32_t> high_water_{0};      // Ids < high_water_ have been used.
  std::atomic<uint64_t> level_counter_{0};
  std::atomic<size_t> meta_bytes_{0};

  // Add/Remove hold it shared; Clone exclusively.
  mutable std::shared_mutex writers_mu_;
  static constexpr size_t kLabelLocks = 64;
  std::array<std::mutex, kLabelLocks> label_locks_;

  mutable std::mutex retire_mu_;
  std::vector<RetiredNode> retired_nodes_;  // Guarded by retire_mu_.
  std::vector<RetiredMeta> retired_metas_;  // Guarded by retire_mu_.
  std::atomic<size_t> retired_count_{0};    // Size of both lists (read without lock).
};

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_HNSW_INDEX_H_

// SemanticCache: the value of an "scache" key (SCACHE.*, docs/ai.md): cached LLM
// responses looked up first by the exact normalised prompt, then by the similarity of
// the prompt's embedding (an HNSW index, vector/hnsw_index.h).
//
//   Entry (kValueTypeExtension) -> ScacheValue (an ExtensionValue, owned by the entry)
//                           -> std::shared_ptr<SemanticCache> (shared with the commands
//                              in flight, as vector sets share their VectorSet)
//                                -> HnswIndex (labels: entry ids in decimal)
//                                -> entries (response, prompt, attributes, expiry),
//                                   exact-prompt map, LRU list, expiry order, counters
//
// Locking. The commands run without the shard lock (self_locking): the HNSW search or
// insert runs with no lock at all (the index is thread-safe); everything else — the
// entry maps, LRU, counters — is guarded by the cache's own mutex, held briefly. An entry
// becomes visible when it is registered in the maps after its vector was inserted, and
// stops being visible when it leaves the maps before its vector is removed, so a search
// hit whose label is not in the maps is simply skipped. FLUSH replaces the index with a
// new one (a generation number makes an insert racing with it drop its entry). Never take
// a shard lock while holding the mutex; taking the mutex under a shard lock is fine.
//
// Time. Every call takes `now_ms` (the worker's cached clock plus the AI test offset,
// ai/ai_clock.h); entry expiries are absolute milliseconds (0: none). A hit moves the
// entry to the front of the LRU and, when the entry has a TTL, sets its expiry to now +
// TTL. Expired entries are removed when a lookup meets them and by a bounded sweep in
// every Set/Get.
//
// Changes the write stream must replay are reported through a ChangeFn called under the
// mutex, in the order they applied (so a caller can append and commit them there).
//
// Thread safety: every public method is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "vector/hnsw_index.h"

namespace hotkv::ai {

struct SemanticCacheOptions {
  uint32_t dim = 0;
  vector::Metric metric = vector::Metric::kCosine;
  vector::Quantization quant = vector::Quantization::kFloat32;
  double threshold = 0.9;   // default similarity needed for a semantic hit, 0..1
  int64_t ttl_ms = 0;       // default entry TTL, 0: none
  uint64_t max_entries = 0; // 0: unbounded
  uint32_t m = 16;
  uint32_t ef = 200;        // beam width of inserts; lookups use min(ef, 40)
};

// Prompt normalisation for the exact strategy: ASCII letters lower-cased, leading and
// trailing whitespace dropped, runs of whitespace made one space.
std::string NormalizePrompt(std::string_view prompt);

class SemanticCache {
 public:
  // A change the write stream must carry, reported in apply order under the mutex.
  struct Change {
    enum class Kind { kSet, kTouch, kDel };
    Kind kind;
    uint64_t id;
    int64_t expire_at_ms;  // kSet, kTouch: the entry's absolute expiry (0: none)
  };
  using ChangeFn = std::function<void(const Change&)>;

  struct SetRequest {
    std::span<const float> vec;
    std::string_view response;
    std::optional<std::string_view> prompt;
    std::optional<std::string_view> attrs;   // a JSON object (validated by the caller)
    std::optional<int64_t> ttl_ms;           // nullopt: the cache's default
    std::optional<uint64_t> id;              // replay: this id (must be new)
    std::optional<int64_t> expire_at_ms;     // replay: absolute expiry, 0 none
  };
  struct GetRequest {
    std::span<const float> vec;
    std::optional<std::string_view> prompt;  // normalised by Get
    std::optional<double> threshold;         // nullopt: the cache's
    const vector::AttributePredicate* filter = nullptr;
  };
  enum class Strategy { kExact, kSemantic };
  struct Hit {
    uint64_t id;
    Strategy strategy;
    double similarity;  // 1 for exact hits
    std::string response;
    std::optional<std::string> prompt;
    std::optional<std::string> attrs;
  };
  struct Stats {
    size_t entries;
    uint64_t hits_exact, hits_semantic, misses, evictions, expirations;
    size_t memory;
  };

  // Validates the options (dim 1..65536, threshold 0..1, ...) and builds an empty cache.
  static Result<std::shared_ptr<SemanticCache>> Create(const SemanticCacheOptions& options);

  const SemanticCacheOptions& options() const { return options_; }

  // Adds an entry; returns its id. Errors (nothing changed): dimension mismatch,
  // non-finite component, an explicit id already present.
  Result<uint64_t> Set(const SetRequest& req, int64_t now_ms, const ChangeFn& changes);
  // The best entry: exact prompt first, then the nearest vector at or above the
  // threshold (both passing `filter`); nullopt on a miss. Errors: dimension mismatch.
  Result<std::optional<Hit>> Get(const GetRequest& req, int64_t now_ms, const ChangeFn& changes);
  // Sets an entry's expiry (0: none) and moves it to the LRU front; false when absent.
  bool Touch(uint64_t id, int64_t expire_at_ms, int64_t now_ms, const ChangeFn& changes);
  // Removes an entry; false when absent (or expired).
  bool Delete(uint64_t id, int64_t now_ms, const ChangeFn& changes);
  // Removes every entry (counters kept); returns how many there were. `record` (if set)
  // is called under the mutex once they are gone.
  size_t Flush(const std::function<void()>& record = {});

  Stats GetStats() const;
  size_t size() const;
  size_t MemoryUsage() const;

  // A deep copy (COPY).
  std::shared_ptr<SemanticCache> Clone() const;

  // Persistence: every live entry (expired ones too: they expire again on load), oldest
  // LRU position first.
  struct SavedEntry {
    uint64_t id;
    int64_t expire_at_ms;
    int64_t ttl_ms;  // the TTL a hit renews (0: none)
    std::string response, prompt, attrs;
    bool has_prompt, has_attrs;
    std::vector<float> vec;
  };
  struct Snapshot {
    uint64_t next_id;
    Stats stats;
    std::vector<SavedEntry> entries;
  };
  Snapshot TakeSnapshot() const;
  // Rebuilds the state a snapshot describes into this (empty) cache.
  Status Restore(Snapshot snap);

 private:
  explicit SemanticCache(const SemanticCacheOptions& options,
                         std::shared_ptr<vector::HnswIndex> index);

  struct Item {
    uint64_t id;
    std::string response;
    std::string prompt, norm_prompt, attrs;
    bool has_prompt = false, has_attrs = false;
    int64_t expire_at_ms = 0;
    int64_t ttl_ms = 0;
    std::list<uint64_t>::iterator lru;  // front: most recently hit or set
  };

  static std::string Label(uint64_t id) { return std::to_string(id); }
  bool Expired(const Item& it, int64_t now_ms) const {
    return it.expire_at_ms != 0 && it.expire_at_ms <= now_ms;
  }
  // Under mu_: unlinks an entry from every map; its label goes to `victims`.
  void UnlinkLocked(uint64_t id, std::vector<std::string>* victims);
  // Under mu_: removes up to `limit` expired entries.
  void SweepLocked(int64_t now_ms, size_t limit, std::vector<std::string>* victims);
  // Under mu_: the first search result (nearest first) at or above `threshold` that is a
  // live entry, recorded as a semantic hit; expired ones met are unlinked (labels to
  // `victims`). nullopt when none.
  std::optional<Hit> PickLocked(const std::vector<vector::SearchHit>& found, double threshold,
                                int64_t now_ms, const ChangeFn& changes,
                                std::vector<std::string>* victims);
  // Under mu_: records a hit on `it`.
  Hit HitLocked(Item& it, Strategy s, double similarity, int64_t now_ms, const ChangeFn& changes);
  void SetExpiryLocked(Item& it, int64_t expire_at_ms);
  // Removes labels from `index` (no lock held).
  static void RemoveLabels(vector::HnswIndex& index, const std::vector<std::string>& labels);
  std::shared_ptr<vector::HnswIndex> IndexRef() const;

  const SemanticCacheOptions options_;
  mutable std::mutex mu_;
  std::shared_ptr<vector::HnswIndex> index_;  // replaced by Flush
  uint64_t generation_ = 0;                   // bumped by Flush
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Item> items_;
  std::unordered_multimap<std::string, uint64_t> exact_;
  std::set<std::pair<int64_t, uint64_t>> expiry_;
  std::list<uint64_t> lru_;
  size_t text_bytes_ = 0;
  uint64_t hits_exact_ = 0, hits_semantic_ = 0, misses_ = 0, evictions_ = 0, expirations_ = 0;
};

}  // namespace hotkv::ai

// AgentMemory: the value of a "memory" key (MEM.*, docs/ai.md): an agent's long-term
// memories (text + embedding + user/session/type/topics/entities + JSON attributes, with
// creation, update and last-access times) searched by similarity re-ranked by recency,
// and its working memory (per-session message lists with a sliding TTL).
//
//   Entry (kValueTypeExtension) -> MemoryValue (an ExtensionValue, owned by the entry)
//                           -> std::shared_ptr<AgentMemory> (shared with commands in flight)
//                                -> HnswIndex (labels: memory ids; attributes: the
//                                   memory's filter document, see below), created by
//                                   the first vector when the namespace has no DIM yet
//                                -> memories (by id, by insertion sequence for LIST
//                                   cursors, by exact key for dedup), sessions
//
// Filter document. Each memory is indexed with a JSON object that FILTER expressions
// (vector/filter_expr.h) read: {"type":..,"user":..,"session":..,"topics":[..],
// "entities":[..], <the members of its ATTRS object>} (user/session omitted when unset).
// USER/SESSION/TYPE/TOPICS/ENTITIES options are compiled into the same expression, so
// the HNSW search filters while it walks the graph.
//
// Locking. Commands run without the shard lock (self_locking). Writers of one namespace
// (add, update, delete, forget) are serialised by write_mu_, held across their HNSW
// insert; the maps, sessions and counters are guarded by mu_, held briefly; a search
// takes only mu_, twice, and runs the HNSW search with no lock at all. A memory is
// visible once registered in the maps after its vector was inserted, and stops being
// visible when it leaves the maps before its vector is removed: a search hit whose label
// is not in the maps is skipped. Never take a shard lock while holding either mutex.
//
// Time. Every call takes `now_ms` (the AI clock, ai/ai_clock.h).
//
// Changes the write stream must replay are reported through a ChangeFn called under mu_
// in apply order (a full memory after each add/update/dedup, a touch, a delete, a
// session append or clear).
//
// Thread safety: every public method is thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "vector/hnsw_index.h"

namespace hotkv::ai {

struct AgentMemoryOptions {
  uint32_t dim = 0;  // 0: fixed by the first vector added
  vector::Metric metric = vector::Metric::kCosine;
  // score = similarity_weight * similarity + recency_weight * recency
  double similarity_weight = 0.8, recency_weight = 0.2;
  // recency = freshness_weight * 2^(-since_last_access / freshness_halflife)
  //         + novelty_weight   * 2^(-since_creation / novelty_halflife)
  double freshness_weight = 0.6, novelty_weight = 0.4;
  int64_t freshness_halflife_ms = int64_t{7} * 86400 * 1000;
  int64_t novelty_halflife_ms = int64_t{30} * 86400 * 1000;
  // A returned memory's last access / access count change at most this often.
  int64_t touch_interval_ms = 60 * 1000;
  int64_t session_ttl_ms = 0;  // default session TTL, 0: none
  uint32_t m = 16;
  uint32_t ef = 200;
};

// The memory types MEM.ADD accepts.
bool ValidMemoryType(std::string_view t);

struct Memory {
  std::string id, text;
  std::string user, session;  // "" : unset
  std::string type = "semantic";
  std::vector<std::string> topics, entities;
  std::string attrs;  // a JSON object, "" when none
  int64_t created_ms = 0, updated_ms = 0, accessed_ms = 0;
  uint64_t accesses = 0;
  // Internal.
  uint64_t seq = 0;
  std::string doc;  // the filter document (see the file comment)
};

// The filter document of `m` (attrs validated as a JSON object without reserved keys).
std::string MemoryDocument(const Memory& m);

struct SessionMessage {
  std::string role, content;
  int64_t at_ms;
};

class AgentMemory {
 public:
  struct Change {
    enum class Kind { kPut, kTouch, kDel, kAppend, kClear };
    Kind kind;
    const Memory* memory = nullptr;          // kPut, kTouch, kDel (id only)
    std::span<const float> vec;              // kPut
    std::string_view session;                // kAppend, kClear
    const SessionMessage* message = nullptr;  // kAppend
    int64_t session_expire_ms = 0;           // kAppend: the session's expiry (0: none)
    int64_t session_ttl_ms = 0;              // kAppend: the session's TTL (0: none)
  };
  using ChangeFn = std::function<void(const Change&)>;

  struct AddRequest {
    std::span<const float> vec;
    Memory fields;                      // text, user, session, type, topics, entities, attrs
    bool explicit_id = false;           // fields.id given: create or replace it, no dedup
    std::optional<double> dedup;        // similarity at or above which a memory is updated
    // Replay (AOF): the stored times and count.
    std::optional<int64_t> created_ms, updated_ms, accessed_ms;
    std::optional<uint64_t> accesses;
  };
  struct AddResult {
    std::string id;
    bool added;  // false: an existing memory was updated (explicit id or dedup)
  };

  struct UpdateRequest {
    std::optional<std::span<const float>> vec;
    std::optional<std::string> text, user, session, type, attrs;
    std::optional<std::vector<std::string>> topics, entities;
  };

  struct SearchRequest {
    std::span<const float> vec;
    uint32_t k = 10;
    const vector::AttributePredicate* filter = nullptr;
    std::optional<double> threshold;  // minimum similarity
    std::optional<double> recency_weight;  // similarity weight is 1 - it
    std::optional<int64_t> freshness_halflife_ms, novelty_halflife_ms;
    std::optional<uint32_t> ef;  // beam width; nullopt: the namespace's EF
    // The USER the filter requires (it is also in `filter`): when that user has few
    // memories, they are compared exactly (HnswIndex::SearchAmong) instead of walking
    // the graph with a selective filter.
    std::optional<std::string> user;
    bool filter_is_user_only = false;  // `filter` tests nothing but that USER
  };
  struct Found {
    Memory memory;
    double similarity, score;
  };

  // Validates the options and builds an empty namespace.
  static Result<std::shared_ptr<AgentMemory>> Create(const AgentMemoryOptions& options);

  AgentMemoryOptions options() const;
  // MEM.CONFIG: new ranking weights, half-lives, touch interval, default session TTL
  // (for sessions started later) and EF; dim, metric and M stay as created.
  Status Reconfigure(const AgentMemoryOptions& options);
  uint32_t dim() const;

  // Errors (nothing changed): dimension mismatch, non-finite component.
  Result<AddResult> Add(const AddRequest& req, int64_t now_ms, const ChangeFn& changes);
  // false when absent. Errors: dimension mismatch.
  Result<bool> Update(std::string_view id, const UpdateRequest& req, int64_t now_ms,
                      const ChangeFn& changes);
  bool Delete(std::string_view id, const ChangeFn& changes);
  std::optional<Memory> Get(std::string_view id) const;
  // The best k memories by score among the nearest candidates passing the filter, best
  // first; a returned memory's access is recorded (at most once per touch interval).
  Result<std::vector<Found>> Search(const SearchRequest& req, int64_t now_ms,
                                    const ChangeFn& changes);
  // Replay of an access.
  bool Touch(std::string_view id, int64_t accessed_ms, uint64_t accesses, const ChangeFn& changes);

  // Memories in insertion order from `cursor` (0: the start): up to `count` that pass
  // `filter`, looking at no more than 10 * count; the next cursor (0: done).
  std::vector<Memory> List(uint64_t cursor, size_t count, const vector::AttributePredicate* filter,
                           uint64_t* next_cursor) const;
  size_t Count(const vector::AttributePredicate* filter) const;
  // Removes the memories created before `created_before_ms` / last accessed before
  // `accessed_before_ms` (when given) that pass `filter`; returns how many.
  size_t Forget(std::optional<int64_t> created_before_ms, std::optional<int64_t> accessed_before_ms,
                const vector::AttributePredicate* filter, const ChangeFn& changes);

  // Working memory. Append returns the session's message count. `ttl_ms`: nullopt keeps
  // the session's TTL (the namespace default for a new session), 0 removes it; the
  // expiry slides to now + TTL. Replay passes at_ms and expire_ms.
  size_t Append(std::string_view session, std::string_view role, std::string_view content,
                std::optional<int64_t> ttl_ms, int64_t now_ms, std::optional<int64_t> at_ms,
                std::optional<int64_t> expire_ms, const ChangeFn& changes);
  // The last `last` messages (all when 0), oldest first; the session's TTL left in *ttl_ms
  // (-1: none, -2: no session).
  std::vector<SessionMessage> SessionMessages(std::string_view session, size_t last,
                                              int64_t now_ms, int64_t* ttl_ms) const;
  bool ClearSession(std::string_view session, int64_t now_ms, const ChangeFn& changes);

  size_t size() const;
  size_t session_count(int64_t now_ms) const;
  size_t MemoryUsage() const;
  std::shared_ptr<AgentMemory> Clone() const;

  struct Session {
    std::deque<SessionMessage> messages;
    int64_t expire_ms = 0;  // 0: none
    int64_t ttl_ms = 0;
  };
  struct Snapshot {
    AgentMemoryOptions options;
    uint64_t next_id = 1;
    std::vector<std::pair<Memory, std::vector<float>>> memories;  // insertion order
    std::vector<std::pair<std::string, Session>> sessions;
  };
  Snapshot TakeSnapshot() const;
  // Into an empty namespace.
  Status Restore(Snapshot snap);

 private:
  explicit AgentMemory(const AgentMemoryOptions& options) : options_(options) {}

  static std::string ExactKey(const Memory& m);
  Status CheckVectorLocked(std::span<const float> v) const;
  // Under write_mu_ (not mu_): the index, created for `dim` when missing.
  Result<std::shared_ptr<vector::HnswIndex>> IndexFor(uint32_t dim);
  // Under mu_: registers (or replaces) m.
  void PutLocked(Memory m, std::span<const float> vec, const ChangeFn& changes);
  void UnlinkLocked(const std::string& id);
  bool SessionExpired(const Session& s, int64_t now_ms) const {
    return s.expire_ms != 0 && s.expire_ms <= now_ms;
  }

  mutable std::mutex write_mu_;
  mutable std::mutex mu_;
  AgentMemoryOptions options_;  // dim set under both mutexes
  std::shared_ptr<vector::HnswIndex> index_;
  uint64_t next_id_ = 1;
  uint64_t next_seq_ = 1;
  std::unordered_map<std::string, Memory> items_;
  std::map<uint64_t, std::string> by_seq_;
  std::unordered_map<std::string, std::string> exact_;
  // user -> ids, copied on write: a search takes a reference under mu_ and reads the
  // list outside it.
  using IdList = std::vector<std::string>;
  std::unordered_map<std::string, std::shared_ptr<IdList>> by_user_;
  std::unordered_map<std::string, Session> sessions_;
  size_t text_bytes_ = 0;
};

}  // namespace hotkv::ai

// Shared by the two vector command dialects (vector_set_family.cc: Redis 8's VADD/VSIM/...,
// vsim_family.cc: HotKV's VSIM.*): key locking for self_locking commands, vector argument
// parsing, FILTER compilation, element writes that keep the attribute count, and the
// search reply.
//
// Locking. Commands flagged self_locking get no shard lock from the dispatcher. They
// use KeyShardLock around their keyspace accesses only:
//
//   std::shared_ptr<VectorSet> set;
//   {
//     KeyShardLock lock(ctx, key);              // no-op inside EXEC (locks held)
//     if (!FindVectorSet(ctx, key, ...)) ...    // copies the shared_ptr
//   }                                           // unlocked: engine call below
//   auto hits = set->index().Search(...);
//
// Writes call BeginVectorWrite() under the lock and FinishVectorWrite() afterwards,
// which re-locks to record the change (KeyModified) and to delete a set that the write
// left empty (see engine/vector_set_value.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/spin_lock.h"
#include "engine/vector_set_value.h"
#include "server/command_context.h"
#include "vector/filter_expr.h"

namespace hotkv {

// The shard lock of `key` for a self_locking command. Locks on construction and unlocks
// on destruction, unless this thread already holds that shard (inside EXEC, which locks
// every queued command's key shards from the key specs): then it never locks.
class KeyShardLock {
 public:
  KeyShardLock(CommandContext& ctx, std::string_view key);
  ~KeyShardLock() { Unlock(); }
  KeyShardLock(const KeyShardLock&) = delete;
  KeyShardLock& operator=(const KeyShardLock&) = delete;

  void Lock();
  void Unlock();

 private:
  ShardLock* lock_ = nullptr;  // null when the caller's caller holds it
  bool locked_ = false;
};

// Under the key's shard lock: the vector set stored at `key`, or null when the key is
// missing. Replies WRONGTYPE and returns false when the key holds another type. `read`
// does a read lookup (keyspace hits/misses, keymiss event, access time).
bool FindVectorSet(CommandContext& ctx, std::string_view key, bool read,
                   std::shared_ptr<VectorSet>* out);

// Under the key's shard lock: inserts a new vectorset key holding `set`.
void InsertVectorSet(CommandContext& ctx, std::string_view key, std::shared_ptr<VectorSet> set);

// A write that will run on `set` (held by `key` in the client's database) without the
// shard lock. Call under the lock. The first write in flight records where the set is
// (VectorSet::SetLocationForWrites): a RENAME, MOVE or SWAPDB while writes run moves
// it, and their records name the set where it is then.
void BeginVectorWrite(CommandContext& ctx, std::string_view key, VectorSet& set);
// After such a write (the lock not held): takes the key's shard lock, ends the write,
// records the change of `key` as `event` (class `notify_class`) when `modified`, and
// deletes the key (with a "del" event) when it still holds `set`, the set is empty and
// not persistent, and no other write is in flight.
void FinishVectorWrite(CommandContext& ctx, std::string_view key, VectorSet& set, bool modified,
                       int64_t notify_class, std::string_view event);

// A vector given as "FP32 <blob>" or "VALUES <n> <v1> ... <vn>" starting at args[i].
struct VectorArg {
  std::vector<float> values;
  size_t consumed = 0;  // arguments used, the FP32/VALUES token included
};
// Parses it as Redis does: the blob length a positive multiple of 4, n in 1..65536, n
// numbers present, each a valid double. HotKV also rejects components that are not
// finite as float32 (NaN, inf, or beyond float's range). nullopt on any problem, or
// when args[i] is neither FP32 nor VALUES.
std::optional<VectorArg> ParseVectorArg(const CommandContext& ctx, size_t i);

// The vector to give the engine for `set`: a REDUCE set projects vectors of its input
// dimension; anything else is passed as is (the engine checks the dimension).
std::vector<float> ProjectIfNeeded(const VectorSet& set, std::vector<float> v);

// A compiled FILTER with Redis's rule that an element without attributes never matches
// (the engine evaluates an expression without selectors, such as "1", as true for them).
class VectorFilter : public vector::AttributePredicate {
 public:
  explicit VectorFilter(std::unique_ptr<vector::FilterExpression> expr) : expr_(std::move(expr)) {}
  bool Matches(std::string_view attributes_json) const override {
    return !attributes_json.empty() && expr_->Matches(attributes_json);
  }

 private:
  std::unique_ptr<vector::FilterExpression> expr_;
};

// Compiles a FILTER expression; on error replies Redis's "ERR syntax error in FILTER
// expression near: <rest of the expression>" and returns null.
std::unique_ptr<VectorFilter> CompileFilter(CommandContext& ctx, std::string_view expr);

// Element writes that keep VectorSet's attribute count (see vector_set_value.h).
// `attributes`: nullopt keeps the element's attributes, "" removes them.
//
// Write stream order. These run outside the shard lock, so the dispatcher's commit after
// the command could record two writes of one element in the other order than they
// applied. With `record` given and the stream active, the change is recorded (`record`
// args in the command's database) and committed while the element's label lock is held,
// right after it applied: writes of the same element are recorded in their apply order,
// and writes of different elements commute. The command is then marked as propagated.
using ElementRecord = std::vector<std::string_view>;
Result<bool> AddElement(VectorSet& set, std::string_view label, std::span<const float> v,
                        std::optional<std::string_view> attributes, uint32_t ef = 0,
                        CommandContext* ctx = nullptr, const ElementRecord* record = nullptr);
bool RemoveElement(VectorSet& set, std::string_view label, CommandContext* ctx = nullptr,
                   const ElementRecord* record = nullptr);
bool SetElementAttributes(VectorSet& set, std::string_view label, std::string_view attributes,
                          CommandContext* ctx = nullptr, const ElementRecord* record = nullptr);

// The reply of a similarity search: RESP2 a flat array (element, then score and/or
// attributes when asked); RESP3 a map element -> score | attributes |
// [score, attributes] when either is asked, else an array. Scores are Redis's
// similarity (kSimilarity) or the engine's distance (kDistance).
enum class ScoreKind { kSimilarity, kDistance };
void ReplySearchHits(CommandContext& ctx, const std::vector<vector::SearchHit>& hits,
                     vector::Metric metric, ScoreKind kind, bool with_scores, bool with_attributes);

// "ERR Vector dimension mismatch - got <got> but set has <has>" (Redis's text).
void ReplyDimensionMismatch(CommandContext& ctx, size_t got, size_t has);

// Registers VCARD VDIM VEMB VLINKS VINFO VGETATTR VRANDMEMBER VISMEMBER
// (vector_set_family_read.cc); called by RegisterVectorSetCommands.
void RegisterVectorSetReadCommands(CommandTable& t);

// Lower-case names used in replies and docs.
const char* MetricReplyName(vector::Metric m);    // "cosine", "l2", "ip"
const char* RedisQuantName(vector::Quantization q);  // VINFO quant-type: "f32", "int8", "bin"

}  // namespace hotkv

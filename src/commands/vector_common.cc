#include "commands/vector_common.h"

#include <cmath>
#include <cstring>
#include <mutex>

#include "commands/helpers.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/entry.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "server/write_stream.h"

namespace hotkv {

namespace {
// Redis's VSET_MAX_VECTOR_DIM; the engine accepts the same range.
constexpr int64_t kMaxVectorDim = int64_t{1} << 16;
}  // namespace

KeyShardLock::KeyShardLock(CommandContext& ctx, std::string_view key) {
  const uint32_t shard = Keyspace::ShardOf(key);
  if (!ThisThreadHoldsShard(shard)) {
    lock_ = &ctx.keyspace().shard(shard).lock;
  }
  Lock();
}

void KeyShardLock::Lock() {
  if (lock_ != nullptr && !locked_) {
    lock_->lock();
    locked_ = true;
  }
}

void KeyShardLock::Unlock() {
  if (lock_ != nullptr && locked_) {
    lock_->unlock();
    locked_ = false;
  }
}

bool FindVectorSet(CommandContext& ctx, std::string_view key, bool read,
                   std::shared_ptr<VectorSet>* out) {
  out->reset();
  Entry* e;
  if (read) {
    e = LookupRead(ctx, key);
  } else {
    e = ctx.db().Find(key);
    if (e != nullptr) {
      ctx.TouchEntry(e);
    }
  }
  if (!CheckType(ctx, e, ValueType::kVectorSet)) {
    return false;
  }
  if (e != nullptr) {
    *out = e->As<VectorSetValue>()->set;
  }
  return true;
}

void InsertVectorSet(CommandContext& ctx, std::string_view key, std::shared_ptr<VectorSet> set) {
  KeyRef ref = ctx.db().Lookup(key);
  auto* value = new VectorSetValue{std::move(set)};
  ctx.db().Insert(ref, Entry::NewObject(key, ValueType::kVectorSet, value, false));
}

void BeginVectorWrite(CommandContext& ctx, std::string_view key, VectorSet& set) {
  if (set.BeginWrite() == 0) {
    set.SetLocationForWrites(ctx.db().index(), key);
  }
  g_vector_writes_outside_lock.fetch_add(1, std::memory_order_acq_rel);
}

void FinishVectorWrite(CommandContext& ctx, std::string_view key, VectorSet& set, bool modified,
                       int64_t notify_class, std::string_view event) {
  g_vector_writes_outside_lock.fetch_sub(1, std::memory_order_acq_rel);
  KeyShardLock lock(ctx, key);
  const int still_running = set.EndWrite();
  // The key may have been deleted, renamed or replaced while the engine call ran outside
  // the lock: the change then went to a set the key no longer holds.
  KeyRef ref = ctx.db().Lookup(key);
  const bool still_ours = ref && ref.entry()->type() == ValueType::kVectorSet &&
                          ref.entry()->As<VectorSetValue>()->set.get() == &set;
  if (modified && still_ours) {
    ctx.KeyModified(key, notify_class, event);
  }
  if (still_running > 0 || set.persistent() || set.index().size() != 0 || !still_ours) {
    return;
  }
  // Emptied by this write: the key goes (a set renamed while a write ran on it and then
  // emptied by that write stays as an empty key under its new name).
  ctx.db().Erase(ref);
  ctx.KeyModified(key, notify::kGeneric, "del");
}

std::optional<VectorArg> ParseVectorArg(const CommandContext& ctx, size_t i) {
  if (i + 1 >= ctx.argc()) {
    return std::nullopt;
  }
  VectorArg out;
  std::string_view format = ctx.arg(i);
  if (EqualsIgnoreCase(format, "FP32")) {
    std::string_view blob = ctx.arg(i + 1);
    if (blob.size() < 4 || blob.size() % 4 != 0 ||
        static_cast<int64_t>(blob.size() / 4) > kMaxVectorDim) {
      return std::nullopt;
    }
    out.values.resize(blob.size() / 4);
    std::memcpy(out.values.data(), blob.data(), blob.size());  // little-endian, as Redis
    out.consumed = 2;
  } else if (EqualsIgnoreCase(format, "VALUES")) {
    std::optional<int64_t> n = ParseInt64(ctx.arg(i + 1));
    if (!n || *n < 1 || *n > kMaxVectorDim || ctx.argc() < i + 2 + static_cast<size_t>(*n)) {
      return std::nullopt;
    }
    out.values.reserve(static_cast<size_t>(*n));
    for (size_t j = 0; j < static_cast<size_t>(*n); j++) {
      std::optional<double> d = ParseDouble(ctx.arg(i + 2 + j));
      if (!d) {
        return std::nullopt;
      }
      out.values.push_back(static_cast<float>(*d));
    }
    out.consumed = 2 + static_cast<size_t>(*n);
  } else {
    return std::nullopt;
  }
  for (float f : out.values) {
    if (!std::isfinite(f)) {
      return std::nullopt;
    }
  }
  return out;
}

std::vector<float> ProjectIfNeeded(const VectorSet& set, std::vector<float> v) {
  if (set.projection_input_dim() != 0 && v.size() == set.projection_input_dim() &&
      v.size() != set.dim()) {
    return set.Project(v);
  }
  return v;
}

std::unique_ptr<VectorFilter> CompileFilter(CommandContext& ctx, std::string_view expr) {
  auto compiled = vector::FilterExpression::Compile(expr);
  if (compiled.ok()) {
    return std::make_unique<VectorFilter>(std::move(compiled.value()));
  }
  // The engine reports "syntax error in FILTER expression at offset N: what"; Redis
  // replies with the expression from the error on (all of it when the error is at the
  // end).
  const std::string& msg = compiled.status().message();
  constexpr std::string_view kAt = "at offset ";
  size_t at = msg.find(kAt);
  if (at == std::string::npos) {
    ctx.rb().Error("ERR " + msg);
    return nullptr;
  }
  size_t offset = std::strtoull(msg.c_str() + at + kAt.size(), nullptr, 10);
  if (offset >= expr.size()) {
    offset = 0;
  }
  std::string reply = "ERR syntax error in FILTER expression near: ";
  reply.append(expr.substr(offset));
  ctx.rb().Error(reply);
  return nullptr;
}

namespace {

bool Recording(CommandContext* ctx, const ElementRecord* record) {
  return ctx != nullptr && record != nullptr && ctx->server().write_stream().active();
}

// Under the label lock, right after the change applied (see vector_common.h). Not when
// the key no longer holds the set (DEL, expiry, overwrite, FLUSHDB/FLUSHALL dropped it
// while this write ran outside the shard lock: VectorSet::MarkDetached takes every label
// lock, so this check and the record are one step against it): the write changed no
// key, and a record after that DEL would make the replay keep a set the server dropped.
// A set renamed, moved or swapped to another database meanwhile is recorded where it is
// now (VectorSet::Relocate takes every label lock too), not under the name the command
// gave: a record after the RENAME under the old name would recreate the old key.
void RecordElementWrite(CommandContext* ctx, const ElementRecord* record, const VectorSet& set) {
  if (!Recording(ctx, record)) {
    return;
  }
  WriteStream& ws = ctx->server().write_stream();
  if (!set.detached()) {
    const int db = set.location_db();
    if (db >= 0 && record->size() > 1 &&
        (db != ctx->db().index() || set.location_key() != (*record)[1])) {
      ElementRecord moved = *record;
      moved[1] = set.location_key();
      ws.Append(db, moved);
    } else {
      ws.Append(ctx->db().index(), *record);
    }
    ws.Commit();  // inside EXEC: waits for the transaction's EndMulti, under its locks
  }
  ws.MarkRewritten();
}

}  // namespace

Result<bool> AddElement(VectorSet& set, std::string_view label, std::span<const float> v,
                        std::optional<std::string_view> attributes, uint32_t ef,
                        CommandContext* ctx, const ElementRecord* record) {
  if (!attributes.has_value() && !Recording(ctx, record)) {
    // Keeps the attributes of an existing element, adds none: the count is unchanged.
    return set.index().Add(label, v, std::nullopt, ef);
  }
  std::lock_guard guard(set.AttributeLock(label));
  const bool had = attributes.has_value() && set.index().GetAttributes(label).has_value();
  Result<bool> result = set.index().Add(label, v, attributes, ef);
  if (result.ok()) {
    if (attributes.has_value()) {
      set.AddAttributeCount(static_cast<int64_t>(!attributes->empty()) - static_cast<int64_t>(had));
    }
    RecordElementWrite(ctx, record, set);
  }
  return result;
}

bool RemoveElement(VectorSet& set, std::string_view label, CommandContext* ctx,
                   const ElementRecord* record) {
  std::lock_guard guard(set.AttributeLock(label));
  const bool had = set.index().GetAttributes(label).has_value();
  const bool removed = set.index().Remove(label);
  if (removed && had) {
    set.AddAttributeCount(-1);
  }
  if (removed) {
    RecordElementWrite(ctx, record, set);
  }
  return removed;
}

bool SetElementAttributes(VectorSet& set, std::string_view label, std::string_view attributes,
                          CommandContext* ctx, const ElementRecord* record) {
  std::lock_guard guard(set.AttributeLock(label));
  const bool had = set.index().GetAttributes(label).has_value();
  if (!set.index().SetAttributes(label, attributes)) {
    return false;
  }
  set.AddAttributeCount(static_cast<int64_t>(!attributes.empty()) - static_cast<int64_t>(had));
  RecordElementWrite(ctx, record, set);
  return true;
}

void ReplySearchHits(CommandContext& ctx, const std::vector<vector::SearchHit>& hits,
                     vector::Metric metric, ScoreKind kind, bool with_scores, bool with_attributes) {
  ReplyBuilder& rb = ctx.rb();
  const bool resp3 = rb.resp3();
  if (resp3 && (with_scores || with_attributes)) {
    rb.Map(hits.size());
  } else {
    rb.Array(hits.size() * (1 + (with_scores ? 1 : 0) + (with_attributes ? 1 : 0)));
  }
  for (const vector::SearchHit& hit : hits) {
    rb.Bulk(hit.label);
    if (resp3 && with_scores && with_attributes) {
      rb.Array(2);
    }
    if (with_scores) {
      rb.Double(kind == ScoreKind::kSimilarity
                    ? vector::SimilarityFromDistance(metric, hit.distance)
                    : static_cast<double>(hit.distance));
    }
    if (with_attributes) {
      if (hit.attributes.has_value()) {
        rb.Bulk(*hit.attributes);
      } else {
        rb.Null();
      }
    }
  }
}

void ReplyDimensionMismatch(CommandContext& ctx, size_t got, size_t has) {
  ctx.rb().Error("ERR Vector dimension mismatch - got " + std::to_string(got) + " but set has " +
                 std::to_string(has));
}

const char* MetricReplyName(vector::Metric m) {
  switch (m) {
    case vector::Metric::kCosine:
      return "cosine";
    case vector::Metric::kL2:
      return "l2";
    case vector::Metric::kInnerProduct:
      return "ip";
  }
  return "unknown";
}

const char* RedisQuantName(vector::Quantization q) {
  switch (q) {
    case vector::Quantization::kFloat32:
      return "f32";
    case vector::Quantization::kQ8:
      return "int8";
    case vector::Quantization::kBinary:
      return "bin";
  }
  return "unknown";
}

}  // namespace hotkv

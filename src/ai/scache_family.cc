// SCACHE.*: the semantic cache (docs/ai.md). A cache is a key of type "scache"
// (ai/scache_value.h) holding a SemanticCache (ai/semantic_cache.h).
//
//   SCACHE.CREATE name DIM d [METRIC COSINE|L2|IP] [TYPE FLOAT32|Q8] [THRESHOLD sim]
//                 [TTL s] [MAXENTRIES n] [M m] [EF ef]
//   SCACHE.SET name (FP32 blob | VALUES n v...) response [PROMPT text] [ATTRS json] [TTL s]
//              [ID id] [PXAT ms]                         -> entry id
//   SCACHE.GET name (FP32 blob | VALUES n v...) [PROMPT text] [THRESHOLD sim]
//              [FILTER expr] [WITHSCORE] [WITHPROMPT] [WITHATTRS] -> response | map | nil
//   SCACHE.DEL name id / SCACHE.TOUCH name id PXAT ms / SCACHE.FLUSH name / SCACHE.INFO name
//
// Locking: SET, GET and DEL are self_locking like the vector commands (commands/
// vector_common.h): the key's shard is locked only to find the cache and copy its
// shared_ptr, and again after a write for KeyModified; the search or insert runs with no
// keyspace lock. A write outside the lock raises g_vector_writes_outside_lock from before
// the shard is unlocked until the cache is no longer touched, so a snapshot's fork barrier
// never forks while a cache's mutex is held.
//
// Write stream: what the cache reports as changed (SemanticCache::ChangeFn) is appended
// and committed under the cache's mutex, in apply order: SET as SCACHE.SET with its ID,
// TTL and absolute PXAT (and SCACHE.DEL for each entry it evicted, before it), a hit as
// SCACHE.TOUCH id PXAT, DEL as itself; FLUSH under the mutex too. Replaying the AOF then
// rebuilds the same entries, LRU order and expiries.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ai/ai.h"
#include "ai/ai_clock.h"
#include "ai/ai_keys.h"
#include "ai/scache_value.h"
#include "commands/helpers.h"
#include "commands/vector_common.h"
#include "common/string_util.h"
#include "engine/extension_value.h"
#include "json/json_node.h"
#include "server/server.h"
#include "server/write_stream.h"

namespace hotkv::ai {
namespace {

constexpr std::string_view kNoSuchCache = "ERR no such cache";
// Response + prompt + attributes of one entry.
constexpr size_t kMaxEntryBytes = size_t{16} << 20;
constexpr int64_t kMaxTtlSeconds = int64_t{1} << 40;
constexpr int64_t kMaxEf = 1000000;

// The cache for a command, or null after replying (missing, wrong type).
std::shared_ptr<SemanticCache> CacheOrReply(CommandContext& ctx, std::string_view key, bool read) {
  return NamespaceOrReply<ScacheValue>(ctx, key, read, ScacheType(), kNoSuchCache);
}

std::optional<double> ThresholdArg(CommandContext& ctx, size_t i) {
  std::optional<double> v = ParseDouble(ctx.arg(i));
  if (!v || !(*v >= 0.0 && *v <= 1.0)) {
    ctx.rb().Error("ERR THRESHOLD must be a number between 0 and 1");
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> RangeArg(CommandContext& ctx, size_t i, int64_t lo, int64_t hi,
                                std::string_view err) {
  std::optional<int64_t> v = ParseInt64(ctx.arg(i));
  if (!v || *v < lo || *v > hi) {
    ctx.rb().Error(err);
    return std::nullopt;
  }
  return v;
}

std::string FloatBlob(std::span<const float> v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

// Appends one record and, when `commit`, commits the pending record (under the cache's
// mutex: apply order).
void Record(CommandContext& ctx, const std::vector<std::string_view>& args, bool commit) {
  WriteStream& ws = ctx.server().write_stream();
  ws.Append(ctx.db().index(), args);
  if (commit) {
    ws.Commit();
    ws.MarkRewritten();
  }
}

// After a write outside the lock: KeyModified under the shard lock.
void FinishWrite(CommandContext& ctx, std::string_view key, std::string_view event) {
  KeyShardLock lock(ctx, key);
  ctx.KeyModified(key, notify::kModule, event);
}

// SCACHE.CREATE name DIM d [METRIC ..] [TYPE ..] [THRESHOLD sim] [TTL s] [MAXENTRIES n]
//               [M m] [EF ef]
void CreateCommand(CommandContext& ctx) {
  SemanticCacheOptions o;
  for (size_t j = 2; j < ctx.argc(); j += 2) {
    std::string_view opt = ctx.arg(j);
    if (j + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    std::string_view value = ctx.arg(j + 1);
    if (EqualsIgnoreCase(opt, "DIM")) {
      auto v = RangeArg(ctx, j + 1, 1, 65536, "ERR DIM must be between 1 and 65536");
      if (!v) return;
      o.dim = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "METRIC")) {
      if (EqualsIgnoreCase(value, "COSINE")) {
        o.metric = vector::Metric::kCosine;
      } else if (EqualsIgnoreCase(value, "L2")) {
        o.metric = vector::Metric::kL2;
      } else if (EqualsIgnoreCase(value, "IP")) {
        o.metric = vector::Metric::kInnerProduct;
      } else {
        return ctx.rb().Error("ERR METRIC must be COSINE, L2 or IP");
      }
    } else if (EqualsIgnoreCase(opt, "TYPE")) {
      if (EqualsIgnoreCase(value, "FLOAT32")) {
        o.quant = vector::Quantization::kFloat32;
      } else if (EqualsIgnoreCase(value, "Q8")) {
        o.quant = vector::Quantization::kQ8;
      } else {
        return ctx.rb().Error("ERR TYPE must be FLOAT32 or Q8");
      }
    } else if (EqualsIgnoreCase(opt, "THRESHOLD")) {
      auto v = ThresholdArg(ctx, j + 1);
      if (!v) return;
      o.threshold = *v;
    } else if (EqualsIgnoreCase(opt, "TTL")) {
      auto v = RangeArg(ctx, j + 1, 0, kMaxTtlSeconds, "ERR invalid TTL");
      if (!v) return;
      o.ttl_ms = *v * 1000;
    } else if (EqualsIgnoreCase(opt, "MAXENTRIES")) {
      auto v = RangeArg(ctx, j + 1, 0, INT64_MAX, "ERR invalid MAXENTRIES");
      if (!v) return;
      o.max_entries = static_cast<uint64_t>(*v);
    } else if (EqualsIgnoreCase(opt, "M")) {
      auto v = RangeArg(ctx, j + 1, 2, 255, "ERR M must be between 2 and 255");
      if (!v) return;
      o.m = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "EF")) {
      auto v = RangeArg(ctx, j + 1, 1, kMaxEf, "ERR EF must be between 1 and 1000000");
      if (!v) return;
      o.ef = static_cast<uint32_t>(*v);
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (o.dim == 0) {
    return ctx.rb().Error("ERR DIM is required");
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) {
    return ctx.rb().Error("ERR key already exists");
  }
  auto cache = SemanticCache::Create(o);
  if (!cache.ok()) {
    return ctx.rb().Error("ERR " + cache.status().message());
  }
  ctx.db().Insert(ref, NewExtensionEntry(key, std::make_unique<ScacheValue>(std::move(cache.value())),
                                         false));
  ctx.KeyModified(key, notify::kModule, "scache.create");
  ctx.rb().Ok();
}

// SCACHE.SET name vector response [PROMPT text] [ATTRS json] [TTL s] [ID id] [PXAT ms]
void SetCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  size_t j;
  std::optional<std::vector<float>> vec = VectorArgOrReply(ctx, 2, &j);
  if (!vec) return;
  if (j >= ctx.argc()) {
    return ctx.rb().Error(errors::kSyntax);
  }
  SemanticCache::SetRequest req;
  req.response = ctx.arg(j++);
  for (; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    if (j + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    if (EqualsIgnoreCase(opt, "PROMPT")) {
      req.prompt = ctx.arg(++j);
    } else if (EqualsIgnoreCase(opt, "ATTRS")) {
      req.attrs = ctx.arg(++j);
      if (Result<json::Node> doc = json::Parse(*req.attrs); !doc.ok() || !doc->is_object()) {
        return ctx.rb().Error("ERR ATTRS must be a JSON object");
      }
    } else if (EqualsIgnoreCase(opt, "TTL")) {
      auto v = RangeArg(ctx, ++j, 0, kMaxTtlSeconds, "ERR invalid TTL");
      if (!v) return;
      req.ttl_ms = *v * 1000;
    } else if (EqualsIgnoreCase(opt, "ID")) {
      auto v = RangeArg(ctx, ++j, 1, INT64_MAX, "ERR invalid ID");
      if (!v) return;
      req.id = static_cast<uint64_t>(*v);
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      auto v = RangeArg(ctx, ++j, 0, INT64_MAX, "ERR invalid PXAT");
      if (!v) return;
      req.expire_at_ms = *v;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  const size_t bytes = req.response.size() + (req.prompt ? req.prompt->size() : 0) +
                       (req.attrs ? req.attrs->size() : 0);
  if (bytes > kMaxEntryBytes) {
    return ctx.rb().Error("ERR entry too large: response, prompt and attributes exceed " +
                          std::to_string(kMaxEntryBytes) + " bytes");
  }
  req.vec = *vec;

  KeyShardLock lock(ctx, key);
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, false);
  if (cache == nullptr) return;
  if (vec->size() != cache->options().dim) {
    return ctx.rb().Error("ERR vector dimension mismatch - got " + std::to_string(vec->size()) +
                          " but cache has " + std::to_string(cache->options().dim));
  }
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();

  const bool recording = ctx.server().write_stream().active();
  const int64_t ttl_ms = req.ttl_ms.value_or(cache->options().ttl_ms);
  SemanticCache::ChangeFn changes;
  if (recording) {
    changes = [&](const SemanticCache::Change& c) {
      const std::string id = std::to_string(c.id);
      if (c.kind == SemanticCache::Change::Kind::kDel) {
        Record(ctx, {"SCACHE.DEL", key, id}, false);
        return;
      }
      const std::string blob = FloatBlob(req.vec);
      const std::string ttl = std::to_string(ttl_ms / 1000);
      const std::string at = std::to_string(c.expire_at_ms);
      std::vector<std::string_view> args = {"SCACHE.SET", key, "FP32", blob, req.response};
      if (req.prompt) {
        args.insert(args.end(), {"PROMPT", *req.prompt});
      }
      if (req.attrs) {
        args.insert(args.end(), {"ATTRS", *req.attrs});
      }
      args.insert(args.end(), {"ID", id, "TTL", ttl, "PXAT", at});
      Record(ctx, args, true);
    };
  }
  Result<uint64_t> id = cache->Set(req, AiNowMs(ctx), changes);
  outside.reset();
  if (!id.ok()) {
    return ctx.rb().Error("ERR " + id.status().message());
  }
  FinishWrite(ctx, key, "scache.set");
  ctx.rb().Integer(static_cast<int64_t>(*id));
}

// SCACHE.GET name vector [PROMPT text] [THRESHOLD sim] [FILTER expr] [WITHSCORE]
//            [WITHPROMPT] [WITHATTRS]
void GetCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  size_t j;
  std::optional<std::vector<float>> vec = VectorArgOrReply(ctx, 2, &j);
  if (!vec) return;
  SemanticCache::GetRequest req;
  std::unique_ptr<VectorFilter> filter;
  bool with_score = false, with_prompt = false, with_attrs = false;
  for (; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "PROMPT") && has_value) {
      req.prompt = ctx.arg(++j);
    } else if (EqualsIgnoreCase(opt, "THRESHOLD") && has_value) {
      req.threshold = ThresholdArg(ctx, ++j);
      if (!req.threshold) return;
    } else if (EqualsIgnoreCase(opt, "FILTER") && has_value) {
      filter = CompileFilter(ctx, ctx.arg(++j));
      if (filter == nullptr) return;
    } else if (EqualsIgnoreCase(opt, "WITHSCORE")) {
      with_score = true;
    } else if (EqualsIgnoreCase(opt, "WITHPROMPT")) {
      with_prompt = true;
    } else if (EqualsIgnoreCase(opt, "WITHATTRS")) {
      with_attrs = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  req.vec = *vec;
  req.filter = filter.get();

  KeyShardLock lock(ctx, key);
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, true);
  if (cache == nullptr) return;
  if (vec->size() != cache->options().dim) {
    return ctx.rb().Error("ERR vector dimension mismatch - got " + std::to_string(vec->size()) +
                          " but cache has " + std::to_string(cache->options().dim));
  }
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();

  SemanticCache::ChangeFn changes;
  if (ctx.server().write_stream().active()) {
    changes = [&](const SemanticCache::Change& c) {
      const std::string id = std::to_string(c.id);
      const std::string at = std::to_string(c.expire_at_ms);
      Record(ctx, {"SCACHE.TOUCH", key, id, "PXAT", at}, true);
    };
  }
  Result<std::optional<SemanticCache::Hit>> hit = cache->Get(req, AiNowMs(ctx), changes);
  outside.reset();
  if (!hit.ok()) {
    return ctx.rb().Error("ERR " + hit.status().message());
  }
  ReplyBuilder& rb = ctx.rb();
  if (!hit->has_value()) {
    return rb.Null();
  }
  const SemanticCache::Hit& h = **hit;
  if (!with_score && !with_prompt && !with_attrs) {
    return rb.Bulk(h.response);
  }
  rb.Map(3 + (with_score ? 1 : 0) + (with_prompt ? 1 : 0) + (with_attrs ? 1 : 0));
  rb.Bulk("response");
  rb.Bulk(h.response);
  rb.Bulk("id");
  rb.Integer(static_cast<int64_t>(h.id));
  rb.Bulk("strategy");
  rb.Bulk(h.strategy == SemanticCache::Strategy::kExact ? "exact" : "semantic");
  if (with_score) {
    rb.Bulk("score");
    rb.Double(h.similarity);
  }
  if (with_prompt) {
    rb.Bulk("prompt");
    h.prompt ? rb.Bulk(*h.prompt) : rb.Null();
  }
  if (with_attrs) {
    rb.Bulk("attrs");
    h.attrs ? rb.Bulk(*h.attrs) : rb.Null();
  }
}

std::optional<uint64_t> IdArg(CommandContext& ctx, size_t i) {
  std::optional<int64_t> v = ParseInt64(ctx.arg(i));
  if (!v || *v < 1) {
    ctx.rb().Error("ERR invalid entry id");
    return std::nullopt;
  }
  return static_cast<uint64_t>(*v);
}

// SCACHE.DEL name id -> 1 when the entry existed, else 0.
void DelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::optional<uint64_t> id = IdArg(ctx, 2);
  if (!id) return;
  KeyShardLock lock(ctx, key);
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, false);
  if (cache == nullptr) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  SemanticCache::ChangeFn changes;
  if (ctx.server().write_stream().active()) {
    changes = [&](const SemanticCache::Change&) { Record(ctx, ctx.args(), true); };
  }
  const bool removed = cache->Delete(*id, AiNowMs(ctx), changes);
  outside.reset();
  if (removed) {
    FinishWrite(ctx, key, "scache.del");
  }
  ctx.rb().Integer(removed ? 1 : 0);
}

// SCACHE.TOUCH name id PXAT ms -> 1 when the entry exists: its expiry set (0: none) and
// its LRU position refreshed. What a hit does; the AOF replays hits with it.
void TouchCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::optional<uint64_t> id = IdArg(ctx, 2);
  if (!id) return;
  if (!EqualsIgnoreCase(ctx.arg(3), "PXAT")) {
    return ctx.rb().Error(errors::kSyntax);
  }
  auto at = RangeArg(ctx, 4, 0, INT64_MAX, "ERR invalid PXAT");
  if (!at) return;
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, false);
  if (cache == nullptr) return;
  SemanticCache::ChangeFn changes;
  if (ctx.server().write_stream().active()) {
    changes = [&](const SemanticCache::Change&) { Record(ctx, ctx.args(), true); };
  }
  const bool found = cache->Touch(*id, *at, AiNowMs(ctx), changes);
  if (found) {
    ctx.KeyModified(key, notify::kModule, "scache.touch");
  }
  ctx.rb().Integer(found ? 1 : 0);
}

// SCACHE.FLUSH name -> the number of entries removed (the counters are kept).
void FlushCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, false);
  if (cache == nullptr) return;
  std::function<void()> record;
  if (ctx.server().write_stream().active()) {
    record = [&] { Record(ctx, ctx.args(), true); };
  }
  const size_t n = cache->Flush(record);
  ctx.KeyModified(key, notify::kModule, "scache.flush");
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// SCACHE.INFO name -> a map of the options and counters.
void InfoCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<SemanticCache> cache = CacheOrReply(ctx, key, true);
  if (cache == nullptr) return;
  const SemanticCacheOptions& o = cache->options();
  const SemanticCache::Stats s = cache->GetStats();
  const uint64_t hits = s.hits_exact + s.hits_semantic;
  const uint64_t lookups = hits + s.misses;
  ReplyBuilder& rb = ctx.rb();
  rb.Map(17);
  rb.Bulk("entries");
  rb.Integer(static_cast<int64_t>(s.entries));
  rb.Bulk("dim");
  rb.Integer(o.dim);
  rb.Bulk("metric");
  rb.Bulk(MetricOptionName(o.metric));
  rb.Bulk("type");
  rb.Bulk(TypeOptionName(o.quant));
  rb.Bulk("threshold");
  rb.Double(o.threshold);
  rb.Bulk("ttl");
  rb.Integer(o.ttl_ms / 1000);
  rb.Bulk("maxentries");
  rb.Integer(static_cast<int64_t>(o.max_entries));
  rb.Bulk("m");
  rb.Integer(o.m);
  rb.Bulk("ef");
  rb.Integer(o.ef);
  rb.Bulk("hits");
  rb.Integer(static_cast<int64_t>(hits));
  rb.Bulk("hits_exact");
  rb.Integer(static_cast<int64_t>(s.hits_exact));
  rb.Bulk("hits_semantic");
  rb.Integer(static_cast<int64_t>(s.hits_semantic));
  rb.Bulk("misses");
  rb.Integer(static_cast<int64_t>(s.misses));
  rb.Bulk("hit_ratio");
  rb.Double(lookups == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(lookups));
  rb.Bulk("evictions");
  rb.Integer(static_cast<int64_t>(s.evictions));
  rb.Bulk("expirations");
  rb.Integer(static_cast<int64_t>(s.expirations));
  rb.Bulk("memory");
  rb.Integer(static_cast<int64_t>(s.memory));
}

}  // namespace

void RegisterScacheCommands(CommandTable& t) {
  RegisterExtensionType(&ScacheType());
  t.Add({.name = "scache.create", .arity = -4, .flags = "write denyoom", .acl = "@write @slow",
         .keys = {KeyAt(1, "OW INSERT")}, .handler = CreateCommand,
         .doc = {"scache", "0.1.0", "O(1)",
                 "Creates an empty semantic cache (vector dimension, metric, storage, similarity threshold, entry TTL, size bound) under a new key.",
                 "key DIM dim [METRIC <COSINE | L2 | IP>] [TYPE <FLOAT32 | Q8>] [THRESHOLD similarity] [TTL seconds] [MAXENTRIES count] [M m] [EF ef]"}});
  t.Add({.name = "scache.set", .arity = -5, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = SetCommand,
         .doc = {"scache", "0.1.0", "O(log(N)) where N is the number of entries.",
                 "Caches a response under a prompt embedding (and optionally its text and JSON attributes); returns the entry id.",
                 "key <FP32 | VALUES dim> vector response [PROMPT text] [ATTRS json] [TTL seconds] [ID id] [PXAT unix-time-milliseconds]"}});
  t.Add({.name = "scache.get", .arity = -4, .flags = "readonly self_locking", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetCommand,
         .doc = {"scache", "0.1.0", "O(1) for an exact hit, else O(log(N)) where N is the number of entries.",
                 "Returns the cached response for an exact prompt match, else for the nearest embedding at or above the similarity threshold, or nil.",
                 "key <FP32 | VALUES dim> vector [PROMPT text] [THRESHOLD similarity] [FILTER expression] [WITHSCORE] [WITHPROMPT] [WITHATTRS]"}});
  t.Add({.name = "scache.del", .arity = 3, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = DelCommand,
         .doc = {"scache", "0.1.0", "O(log(N)) where N is the number of entries.",
                 "Removes an entry of a semantic cache; returns 1 if it existed.", "key id"}});
  t.Add({.name = "scache.touch", .arity = 5, .flags = "write fast", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = TouchCommand,
         .doc = {"scache", "0.1.0", "O(log(N)) where N is the number of entries.",
                 "Sets an entry's expiry and makes it the most recently used (what a hit does; the AOF replays hits with it).",
                 "key id PXAT unix-time-milliseconds"}});
  t.Add({.name = "scache.flush", .arity = 2, .flags = "write", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = FlushCommand,
         .doc = {"scache", "0.1.0", "O(N) where N is the number of entries.",
                 "Removes every entry of a semantic cache (the cache and its counters stay); returns how many there were.",
                 "key"}});
  t.Add({.name = "scache.info", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = InfoCommand,
         .doc = {"scache", "0.1.0", "O(1)",
                 "Returns a semantic cache's options and counters: entries, hits by strategy, misses, hit ratio, evictions, expirations, memory.",
                 "key"}});
}

}  // namespace hotkv::ai

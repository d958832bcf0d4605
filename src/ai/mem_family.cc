// MEM.*: agent memory (docs/ai.md). A namespace is a key of type "memory"
// (ai/memory_value.h) holding an AgentMemory (ai/agent_memory.h).
//
//   MEM.CREATE ns [DIM d] [METRIC COSINE|L2|IP] [WEIGHTS similarity recency]
//              [FRESHNESS weight halflife_s] [NOVELTY weight halflife_s]
//              [TOUCH-INTERVAL s] [SESSION-TTL s] [M m] [EF ef]
//   MEM.CONFIG ns [WEIGHTS ..] [FRESHNESS ..] [NOVELTY ..] [TOUCH-INTERVAL s] [SESSION-TTL s]
//              [EF ef]                                                    -> OK
//   MEM.ADD ns vector text [USER u] [SESSION s] [TYPE t] [TOPICS a,b] [ENTITIES x,y]
//           [ATTRS json] [ID id] [DEDUP sim]                                   -> id
//   MEM.SEARCH ns vector [K k] [filters] [THRESHOLD sim] [RECENCY w fresh_s novelty_s]
//              [EF ef]
//   MEM.GET ns id / MEM.UPDATE ns id [TEXT t] [vector] [fields] / MEM.DEL ns id [id ..]
//   MEM.LIST ns [filters] [CURSOR c] [COUNT n] / MEM.COUNT ns [filters]
//   MEM.FORGET ns [OLDER s] [INACTIVE s] [filters] / MEM.INFO ns
//   MEM.SESSION.APPEND ns session role content [TTL s] [USER u] [PROMOTE vector]
//   MEM.SESSION.GET ns session [LAST n] / MEM.SESSION.CLEAR ns session
//   filters: [USER u] [SESSION s] [TYPE t] [TOPICS a,b] [ENTITIES x,y] [FILTER expr]
//
// Locking: ADD, SEARCH, UPDATE, DEL, FORGET and SESSION.APPEND are self_locking like the
// vector commands: the key's shard is locked only to find (or create) the namespace and
// copy its shared_ptr, and again after a write for KeyModified; the HNSW search or insert
// runs with no keyspace lock (g_vector_writes_outside_lock raised meanwhile, as SCACHE).
//
// Write stream: the changes the namespace reports (AgentMemory::ChangeFn) are appended
// and committed under its mutex, in apply order: a memory added or changed as a full
// MEM.ADD with its ID and times, an access as MEM.TOUCH, a removal as MEM.DEL, a session
// message as MEM.SESSION.APPEND with AT and PXAT, a clear as itself.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ai/ai.h"
#include "ai/ai_clock.h"
#include "ai/ai_keys.h"
#include "ai/memory_value.h"
#include "ai/scache_value.h"
#include "commands/helpers.h"
#include "commands/vector_common.h"
#include "common/string_util.h"
#include "engine/extension_value.h"
#include "json/json_node.h"
#include "server/server.h"
#include "server/write_stream.h"
#include "vector/filter_expr.h"

namespace hotkv::ai {
namespace {

constexpr std::string_view kNoSuchNamespace = "ERR no such memory namespace";
constexpr size_t kMaxTextBytes = size_t{16} << 20;
constexpr size_t kMaxIdBytes = 512;
constexpr int64_t kMaxSeconds = int64_t{1} << 40;
constexpr int64_t kMaxK = 4096;

// Under the key's shard lock: the namespace or null when missing; WRONGTYPE replied
// (false) for another type.
bool FindMemory(CommandContext& ctx, std::string_view key, bool read,
                std::shared_ptr<AgentMemory>* out) {
  return FindNamespace<MemoryValue>(ctx, key, read, MemoryType(), out);
}

std::shared_ptr<AgentMemory> MemoryOrReply(CommandContext& ctx, std::string_view key, bool read) {
  return NamespaceOrReply<MemoryValue>(ctx, key, read, MemoryType(), kNoSuchNamespace);
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

std::optional<double> UnitArg(CommandContext& ctx, size_t i, std::string_view name) {
  std::optional<double> v = ParseDouble(ctx.arg(i));
  if (!v || !(*v >= 0.0 && *v <= 1.0)) {
    ctx.rb().Error("ERR " + std::string(name) + " must be a number between 0 and 1");
    return std::nullopt;
  }
  return v;
}

std::optional<double> WeightArg(CommandContext& ctx, size_t i) {
  std::optional<double> v = ParseDouble(ctx.arg(i));
  if (!v || !std::isfinite(*v) || *v < 0) {
    ctx.rb().Error("ERR weights must be non-negative numbers");
    return std::nullopt;
  }
  return v;
}

bool IsVectorToken(std::string_view s) {
  return EqualsIgnoreCase(s, "FP32") || EqualsIgnoreCase(s, "VALUES");
}

std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string_view::npos) comma = s.size();
    std::string_view part = s.substr(start, comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    start = comma + 1;
  }
  return out;
}

// ATTRS: a JSON object whose keys are not the reserved fields of the filter document.
bool CheckAttrs(CommandContext& ctx, std::string_view attrs) {
  Result<json::Node> doc = json::Parse(attrs);
  if (!doc.ok() || !doc->is_object()) {
    ctx.rb().Error("ERR ATTRS must be a JSON object");
    return false;
  }
  for (const json::Member& m : doc->members()) {
    std::string_view k = m.key.str();
    if (k == "user" || k == "session" || k == "type" || k == "topics" || k == "entities") {
      ctx.rb().Error("ERR ATTRS must not use the reserved field '" + std::string(k) + "'");
      return false;
    }
  }
  return true;
}

bool TypeArgOrReply(CommandContext& ctx, size_t i, std::string* out) {
  std::string t = ToLower(ctx.arg(i));
  if (!ValidMemoryType(t)) {
    ctx.rb().Error("ERR TYPE must be episodic, semantic or message");
    return false;
  }
  *out = std::move(t);
  return true;
}

void AppendFilterString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

// The filter options shared by SEARCH, LIST, COUNT and FORGET, compiled into one
// FILTER expression over the memory's filter document (agent_memory.h).
class Filters {
 public:
  // Parses the option at args[*j] if it is one; false when it is not. Sets *error after
  // replying to a bad value.
  bool Parse(CommandContext& ctx, size_t* j, bool* error) {
    std::string_view opt = ctx.arg(*j);
    if (*j + 1 >= ctx.argc()) return false;
    std::string_view v = ctx.arg(*j + 1);
    std::string part;
    if (EqualsIgnoreCase(opt, "USER")) {
      part = ".user == ";
      AppendFilterString(&part, v);
      user_ = std::string(v);
    } else if (EqualsIgnoreCase(opt, "SESSION")) {
      part = ".session == ";
      AppendFilterString(&part, v);
    } else if (EqualsIgnoreCase(opt, "TYPE")) {
      std::string t;
      if (!TypeArgOrReply(ctx, *j + 1, &t)) {
        *error = true;
        return true;
      }
      part = ".type == ";
      AppendFilterString(&part, t);
    } else if (EqualsIgnoreCase(opt, "TOPICS") || EqualsIgnoreCase(opt, "ENTITIES")) {
      const char* field = EqualsIgnoreCase(opt, "TOPICS") ? ".topics" : ".entities";
      std::vector<std::string> items = SplitList(v);
      if (items.empty()) {
        ctx.rb().Error("ERR " + ToUpper(opt) + " needs at least one name");
        *error = true;
        return true;
      }
      part = "(";
      for (size_t i = 0; i < items.size(); i++) {
        if (i > 0) part += " or ";
        AppendFilterString(&part, items[i]);
        part += " in ";
        part += field;
      }
      part += ")";
    } else if (EqualsIgnoreCase(opt, "FILTER")) {
      // Compiled alone first, for the error message's position.
      if (CompileFilter(ctx, v) == nullptr) {
        *error = true;
        return true;
      }
      part = "(" + std::string(v) + ")";
    } else {
      return false;
    }
    if (!expr_.empty()) expr_ += " and ";
    expr_ += part;
    parts_++;
    *j += 1;
    return true;
  }

  // The compiled predicate (null when no filter option was given); false after replying.
  bool Compile(CommandContext& ctx) {
    if (expr_.empty()) return true;
    auto f = vector::FilterExpression::Compile(expr_);
    if (!f.ok()) {
      ctx.rb().Error("ERR filter too complex: " + f.status().message());
      return false;
    }
    filter_ = std::move(f.value());
    return true;
  }
  const vector::AttributePredicate* get() const { return filter_.get(); }
  const std::optional<std::string>& user() const { return user_; }
  // True when USER was the only filter option (given once).
  bool user_only() const { return parts_ == 1 && user_.has_value(); }

 private:
  std::optional<std::string> user_;  // the last USER given
  int parts_ = 0;
  std::string expr_;
  std::unique_ptr<vector::FilterExpression> filter_;
};

void RecordArgs(CommandContext& ctx, const std::vector<std::string>& args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  WriteStream& ws = ctx.server().write_stream();
  ws.Append(ctx.db().index(), views);
  ws.Commit();
  ws.MarkRewritten();
}

// The change recorder of a command on `key` (null when nothing records).
AgentMemory::ChangeFn Recorder(CommandContext& ctx, std::string_view key) {
  WriteStream& ws = ctx.server().write_stream();
  if (!ws.active()) return nullptr;
  ws.MarkRewritten();
  return [&ctx, key](const AgentMemory::Change& c) {
    using K = AgentMemory::Change::Kind;
    switch (c.kind) {
      case K::kPut:
        RecordArgs(ctx, MemoryAddArgs(key, *c.memory, c.vec));
        break;
      case K::kTouch:
        RecordArgs(ctx, {"MEM.TOUCH", std::string(key), c.memory->id, "ACCESSED",
                         std::to_string(c.memory->accessed_ms), "ACCESSES",
                         std::to_string(c.memory->accesses)});
        break;
      case K::kDel:
        RecordArgs(ctx, {"MEM.DEL", std::string(key), c.memory->id});
        break;
      case K::kAppend:
        RecordArgs(ctx, {"MEM.SESSION.APPEND", std::string(key), std::string(c.session),
                         c.message->role, c.message->content, "TTL",
                         std::to_string(c.session_ttl_ms / 1000), "AT",
                         std::to_string(c.message->at_ms), "PXAT",
                         std::to_string(c.session_expire_ms)});
        break;
      case K::kClear:
        RecordArgs(ctx, {"MEM.SESSION.CLEAR", std::string(key), std::string(c.session)});
        break;
    }
  };
}

void FinishWrite(CommandContext& ctx, std::string_view key, std::string_view event) {
  KeyShardLock lock(ctx, key);
  ctx.KeyModified(key, notify::kModule, event);
}

// Under the shard lock: the namespace at `key`, created with defaults when missing (the
// creation recorded as MEM.CREATE). Null after replying.
std::shared_ptr<AgentMemory> FindOrCreate(CommandContext& ctx, std::string_view key) {
  std::shared_ptr<AgentMemory> mem;
  if (!FindMemory(ctx, key, false, &mem)) return nullptr;
  if (mem != nullptr) return mem;
  auto created = AgentMemory::Create(AgentMemoryOptions{});
  if (!created.ok()) {
    ctx.rb().Error("ERR " + created.status().message());
    return nullptr;
  }
  mem = created.value();
  KeyRef ref = ctx.db().Lookup(key);
  ctx.db().Insert(ref, NewExtensionEntry(key, std::make_unique<MemoryValue>(mem), false));
  ctx.KeyModified(key, notify::kModule, "mem.create");
  if (ctx.server().write_stream().active()) {
    RecordArgs(ctx, MemoryCreateArgs(key, AgentMemoryOptions{}));
  }
  return mem;
}

void ReplyList(ReplyBuilder& rb, const std::vector<std::string>& v) {
  rb.Array(v.size());
  for (const auto& s : v) rb.Bulk(s);
}

void ReplyOptional(ReplyBuilder& rb, const std::string& s) { s.empty() ? rb.Null() : rb.Bulk(s); }

void ReplyMemory(ReplyBuilder& rb, const Memory& m, const double* similarity, const double* score) {
  rb.Map(12 + (similarity ? 2 : 0));
  rb.Bulk("id");
  rb.Bulk(m.id);
  rb.Bulk("text");
  rb.Bulk(m.text);
  if (similarity) {
    rb.Bulk("similarity");
    rb.Double(*similarity);
    rb.Bulk("score");
    rb.Double(*score);
  }
  rb.Bulk("user");
  ReplyOptional(rb, m.user);
  rb.Bulk("session");
  ReplyOptional(rb, m.session);
  rb.Bulk("type");
  rb.Bulk(m.type);
  rb.Bulk("topics");
  ReplyList(rb, m.topics);
  rb.Bulk("entities");
  ReplyList(rb, m.entities);
  rb.Bulk("attrs");
  ReplyOptional(rb, m.attrs);
  rb.Bulk("created_at");
  rb.Integer(m.created_ms);
  rb.Bulk("updated_at");
  rb.Integer(m.updated_ms);
  rb.Bulk("last_accessed");
  rb.Integer(m.accessed_ms);
  rb.Bulk("access_count");
  rb.Integer(static_cast<int64_t>(m.accesses));
}

bool CheckText(CommandContext& ctx, std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    ctx.rb().Error("ERR text too large: more than " + std::to_string(kMaxTextBytes) + " bytes");
    return false;
  }
  return true;
}

bool CheckDim(CommandContext& ctx, const AgentMemory& mem, size_t got) {
  const uint32_t dim = mem.dim();
  if (dim != 0 && got != dim) {
    ctx.rb().Error("ERR vector dimension mismatch - got " + std::to_string(got) +
                   " but namespace has " + std::to_string(dim));
    return false;
  }
  return true;
}

// The options of MEM.CREATE (from args[from]) into *o; with `reconfigure` (MEM.CONFIG)
// the ones fixed at creation (DIM, METRIC, M) are refused. False after replying.
bool ParseOptions(CommandContext& ctx, size_t from, bool reconfigure, AgentMemoryOptions* out) {
  AgentMemoryOptions& o = *out;
  for (size_t j = from; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    auto need = [&](size_t n) { return j + n < ctx.argc(); };
    if (reconfigure && (EqualsIgnoreCase(opt, "DIM") || EqualsIgnoreCase(opt, "METRIC") ||
                        EqualsIgnoreCase(opt, "M"))) {
      ctx.rb().Error("ERR " + ToUpper(opt) + " cannot be changed after the namespace is created");
      return false;
    }
    if (EqualsIgnoreCase(opt, "DIM") && need(1)) {
      auto v = RangeArg(ctx, ++j, 1, 65536, "ERR DIM must be between 1 and 65536");
      if (!v) return false;
      o.dim = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "METRIC") && need(1)) {
      std::string_view v = ctx.arg(++j);
      if (EqualsIgnoreCase(v, "COSINE")) {
        o.metric = vector::Metric::kCosine;
      } else if (EqualsIgnoreCase(v, "L2")) {
        o.metric = vector::Metric::kL2;
      } else if (EqualsIgnoreCase(v, "IP")) {
        o.metric = vector::Metric::kInnerProduct;
      } else {
        ctx.rb().Error("ERR METRIC must be COSINE, L2 or IP");
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "WEIGHTS") && need(2)) {
      auto s = WeightArg(ctx, ++j);
      if (!s) return false;
      auto r = WeightArg(ctx, ++j);
      if (!r) return false;
      o.similarity_weight = *s;
      o.recency_weight = *r;
    } else if ((EqualsIgnoreCase(opt, "FRESHNESS") || EqualsIgnoreCase(opt, "NOVELTY")) && need(2)) {
      auto w = WeightArg(ctx, ++j);
      if (!w) return false;
      auto hl = RangeArg(ctx, ++j, 1, kMaxSeconds, "ERR half-life must be a positive number of seconds");
      if (!hl) return false;
      if (EqualsIgnoreCase(opt, "FRESHNESS")) {
        o.freshness_weight = *w;
        o.freshness_halflife_ms = *hl * 1000;
      } else {
        o.novelty_weight = *w;
        o.novelty_halflife_ms = *hl * 1000;
      }
    } else if (EqualsIgnoreCase(opt, "TOUCH-INTERVAL") && need(1)) {
      auto v = RangeArg(ctx, ++j, 0, kMaxSeconds, "ERR invalid TOUCH-INTERVAL");
      if (!v) return false;
      o.touch_interval_ms = *v * 1000;
    } else if (EqualsIgnoreCase(opt, "SESSION-TTL") && need(1)) {
      auto v = RangeArg(ctx, ++j, 0, kMaxSeconds, "ERR invalid SESSION-TTL");
      if (!v) return false;
      o.session_ttl_ms = *v * 1000;
    } else if (EqualsIgnoreCase(opt, "M") && need(1)) {
      auto v = RangeArg(ctx, ++j, 2, 255, "ERR M must be between 2 and 255");
      if (!v) return false;
      o.m = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "EF") && need(1)) {
      auto v = RangeArg(ctx, ++j, 1, 1000000, "ERR EF must be between 1 and 1000000");
      if (!v) return false;
      o.ef = static_cast<uint32_t>(*v);
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// MEM.CREATE ns [DIM d] [METRIC m] [WEIGHTS s r] [FRESHNESS w hl] [NOVELTY w hl]
//            [TOUCH-INTERVAL s] [SESSION-TTL s] [M m] [EF ef]
void CreateCommand(CommandContext& ctx) {
  AgentMemoryOptions o;
  if (!ParseOptions(ctx, 2, false, &o)) return;
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) return ctx.rb().Error("ERR key already exists");
  auto mem = AgentMemory::Create(o);
  if (!mem.ok()) return ctx.rb().Error("ERR " + mem.status().message());
  ctx.db().Insert(ref, NewExtensionEntry(key, std::make_unique<MemoryValue>(std::move(mem.value())),
                                         false));
  ctx.KeyModified(key, notify::kModule, "mem.create");
  ctx.rb().Ok();
}

// MEM.CONFIG ns [WEIGHTS s r] [FRESHNESS w hl] [NOVELTY w hl] [TOUCH-INTERVAL s]
//            [SESSION-TTL s] [EF ef]: changes a namespace's ranking and upkeep options;
// DIM, METRIC and M are fixed at creation. The write stream records the command as sent.
void ConfigCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  AgentMemoryOptions o = mem->options();
  if (!ParseOptions(ctx, 2, true, &o)) return;
  if (Status st = mem->Reconfigure(o); !st.ok()) return ctx.rb().Error("ERR " + st.message());
  ctx.KeyModified(key, notify::kModule, "mem.config");
  ctx.rb().Ok();
}

// Fields of ADD / UPDATE / SESSION.APPEND's promotion: USER SESSION TYPE TOPICS ENTITIES
// ATTRS. true when args[*j] was one (consumed); *error after replying.
bool ParseField(CommandContext& ctx, size_t* j, Memory* m, bool* error,
                std::vector<std::string_view>* seen = nullptr) {
  if (*j + 1 >= ctx.argc()) return false;
  std::string_view opt = ctx.arg(*j);
  std::string_view v = ctx.arg(*j + 1);
  if (EqualsIgnoreCase(opt, "USER")) {
    m->user = v;
  } else if (EqualsIgnoreCase(opt, "SESSION")) {
    m->session = v;
  } else if (EqualsIgnoreCase(opt, "TYPE")) {
    if (!TypeArgOrReply(ctx, *j + 1, &m->type)) {
      *error = true;
      return true;
    }
  } else if (EqualsIgnoreCase(opt, "TOPICS")) {
    m->topics = SplitList(v);
  } else if (EqualsIgnoreCase(opt, "ENTITIES")) {
    m->entities = SplitList(v);
  } else if (EqualsIgnoreCase(opt, "ATTRS")) {
    if (!CheckAttrs(ctx, v)) {
      *error = true;
      return true;
    }
    m->attrs = v;
  } else {
    return false;
  }
  if (seen) seen->push_back(opt);
  *j += 1;
  return true;
}

// MEM.ADD ns vector text [fields] [ID id] [DEDUP sim]
//         [CREATED ms] [UPDATED ms] [ACCESSED ms] [ACCESSES n]   (the last four: replay)
void AddCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  size_t j;
  std::optional<std::vector<float>> vec = VectorArgOrReply(ctx, 2, &j);
  if (!vec) return;
  if (j >= ctx.argc()) return ctx.rb().Error(errors::kSyntax);
  AgentMemory::AddRequest req;
  req.fields.text = ctx.arg(j++);
  if (!CheckText(ctx, req.fields.text)) return;
  for (; j < ctx.argc(); j++) {
    bool error = false;
    if (ParseField(ctx, &j, &req.fields, &error)) {
      if (error) return;
      continue;
    }
    std::string_view opt = ctx.arg(j);
    if (j + 1 >= ctx.argc()) return ctx.rb().Error(errors::kSyntax);
    if (EqualsIgnoreCase(opt, "ID")) {
      std::string_view id = ctx.arg(++j);
      if (id.empty() || id.size() > kMaxIdBytes) {
        return ctx.rb().Error("ERR invalid ID: 1 to 512 bytes");
      }
      req.fields.id = id;
      req.explicit_id = true;
    } else if (EqualsIgnoreCase(opt, "DEDUP")) {
      req.dedup = UnitArg(ctx, ++j, "DEDUP");
      if (!req.dedup) return;
    } else if (EqualsIgnoreCase(opt, "CREATED") || EqualsIgnoreCase(opt, "UPDATED") ||
               EqualsIgnoreCase(opt, "ACCESSED") || EqualsIgnoreCase(opt, "ACCESSES")) {
      auto v = RangeArg(ctx, ++j, 0, INT64_MAX, "ERR invalid " + ToUpper(opt));
      if (!v) return;
      if (EqualsIgnoreCase(opt, "CREATED")) req.created_ms = *v;
      if (EqualsIgnoreCase(opt, "UPDATED")) req.updated_ms = *v;
      if (EqualsIgnoreCase(opt, "ACCESSED")) req.accessed_ms = *v;
      if (EqualsIgnoreCase(opt, "ACCESSES")) req.accesses = static_cast<uint64_t>(*v);
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  req.vec = *vec;

  KeyShardLock lock(ctx, key);
  {
    std::shared_ptr<AgentMemory> existing;
    if (!FindMemory(ctx, key, false, &existing)) return;
    if (existing != nullptr && !CheckDim(ctx, *existing, vec->size())) return;
  }
  std::shared_ptr<AgentMemory> mem = FindOrCreate(ctx, key);
  if (mem == nullptr) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  Result<AgentMemory::AddResult> r = mem->Add(req, AiNowMs(ctx), Recorder(ctx, key));
  outside.reset();
  if (!r.ok()) return ctx.rb().Error("ERR " + r.status().message());
  FinishWrite(ctx, key, "mem.add");
  ctx.rb().Bulk(r->id);
}

// MEM.SEARCH ns vector [K k] [filters] [THRESHOLD sim] [RECENCY w fresh_s novelty_s]
void SearchCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  size_t j;
  std::optional<std::vector<float>> vec = VectorArgOrReply(ctx, 2, &j);
  if (!vec) return;
  AgentMemory::SearchRequest req;
  Filters filters;
  for (; j < ctx.argc(); j++) {
    bool error = false;
    if (filters.Parse(ctx, &j, &error)) {
      if (error) return;
      continue;
    }
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "K") && j + 1 < ctx.argc()) {
      auto v = RangeArg(ctx, ++j, 1, kMaxK, "ERR K must be between 1 and 4096");
      if (!v) return;
      req.k = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "THRESHOLD") && j + 1 < ctx.argc()) {
      req.threshold = UnitArg(ctx, ++j, "THRESHOLD");
      if (!req.threshold) return;
    } else if (EqualsIgnoreCase(opt, "EF") && j + 1 < ctx.argc()) {
      auto v = RangeArg(ctx, ++j, 1, 1000000, "ERR EF must be between 1 and 1000000");
      if (!v) return;
      req.ef = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "RECENCY") && j + 3 < ctx.argc()) {
      req.recency_weight = UnitArg(ctx, ++j, "RECENCY weight");
      if (!req.recency_weight) return;
      auto f = RangeArg(ctx, ++j, 1, kMaxSeconds, "ERR half-life must be a positive number of seconds");
      if (!f) return;
      auto n = RangeArg(ctx, ++j, 1, kMaxSeconds, "ERR half-life must be a positive number of seconds");
      if (!n) return;
      req.freshness_halflife_ms = *f * 1000;
      req.novelty_halflife_ms = *n * 1000;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (!filters.Compile(ctx)) return;
  req.vec = *vec;
  req.filter = filters.get();
  req.user = filters.user();
  req.filter_is_user_only = filters.user_only();

  KeyShardLock lock(ctx, key);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, true);
  if (mem == nullptr) return;
  if (!CheckDim(ctx, *mem, vec->size())) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  AgentMemory::ChangeFn changes;
  if (ctx.server().write_stream().active()) {
    changes = [&ctx, key](const AgentMemory::Change& c) {
      RecordArgs(ctx, {"MEM.TOUCH", std::string(key), c.memory->id, "ACCESSED",
                       std::to_string(c.memory->accessed_ms), "ACCESSES",
                       std::to_string(c.memory->accesses)});
    };
  }
  Result<std::vector<AgentMemory::Found>> found = mem->Search(req, AiNowMs(ctx), changes);
  outside.reset();
  if (!found.ok()) return ctx.rb().Error("ERR " + found.status().message());
  ReplyBuilder& rb = ctx.rb();
  rb.Array(found->size());
  for (const AgentMemory::Found& f : *found) ReplyMemory(rb, f.memory, &f.similarity, &f.score);
}

// MEM.GET ns id -> the memory (a map) or nil.
void GetCommand(CommandContext& ctx) {
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, ctx.arg(1), true);
  if (mem == nullptr) return;
  std::optional<Memory> m = mem->Get(ctx.arg(2));
  if (!m) return ctx.rb().Null();
  ReplyMemory(ctx.rb(), *m, nullptr, nullptr);
}

// MEM.UPDATE ns id [TEXT t] [vector] [fields] -> 1, or 0 when absent.
void UpdateCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::string_view id = ctx.arg(2);
  AgentMemory::UpdateRequest req;
  std::optional<std::vector<float>> vec;
  Memory fields;
  std::vector<std::string_view> seen;
  for (size_t j = 3; j < ctx.argc(); j++) {
    bool error = false;
    if (ParseField(ctx, &j, &fields, &error, &seen)) {
      if (error) return;
      continue;
    }
    std::string_view opt = ctx.arg(j);
    if (IsVectorToken(opt)) {
      size_t next;
      vec = VectorArgOrReply(ctx, j, &next);
      if (!vec) return;
      j = next - 1;
    } else if (EqualsIgnoreCase(opt, "TEXT") && j + 1 < ctx.argc()) {
      req.text = std::string(ctx.arg(++j));
      if (!CheckText(ctx, *req.text)) return;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  for (std::string_view f : seen) {
    if (EqualsIgnoreCase(f, "USER")) req.user = fields.user;
    if (EqualsIgnoreCase(f, "SESSION")) req.session = fields.session;
    if (EqualsIgnoreCase(f, "TYPE")) req.type = fields.type;
    if (EqualsIgnoreCase(f, "TOPICS")) req.topics = fields.topics;
    if (EqualsIgnoreCase(f, "ENTITIES")) req.entities = fields.entities;
    if (EqualsIgnoreCase(f, "ATTRS")) req.attrs = fields.attrs;
  }
  if (vec) req.vec = std::span<const float>(*vec);

  KeyShardLock lock(ctx, key);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  if (vec && !CheckDim(ctx, *mem, vec->size())) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  Result<bool> r = mem->Update(id, req, AiNowMs(ctx), Recorder(ctx, key));
  outside.reset();
  if (!r.ok()) return ctx.rb().Error("ERR " + r.status().message());
  if (*r) FinishWrite(ctx, key, "mem.update");
  ctx.rb().Integer(*r ? 1 : 0);
}

// MEM.DEL ns id [id ...] -> how many existed.
void DelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  KeyShardLock lock(ctx, key);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  AgentMemory::ChangeFn changes = Recorder(ctx, key);
  int64_t n = 0;
  for (size_t j = 2; j < ctx.argc(); j++) {
    if (mem->Delete(ctx.arg(j), changes)) n++;
  }
  outside.reset();
  if (n > 0) FinishWrite(ctx, key, "mem.del");
  ctx.rb().Integer(n);
}

// MEM.LIST ns [filters] [CURSOR c] [COUNT n] -> [next cursor, [memory ...]]
void ListCommand(CommandContext& ctx) {
  Filters filters;
  uint64_t cursor = 0;
  size_t count = 10;
  for (size_t j = 2; j < ctx.argc(); j++) {
    bool error = false;
    if (filters.Parse(ctx, &j, &error)) {
      if (error) return;
      continue;
    }
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "CURSOR") && j + 1 < ctx.argc()) {
      std::optional<uint64_t> c = ParseUint64(ctx.arg(++j));
      if (!c) return ctx.rb().Error("ERR invalid cursor");
      cursor = *c;
    } else if (EqualsIgnoreCase(opt, "COUNT") && j + 1 < ctx.argc()) {
      auto v = RangeArg(ctx, ++j, 1, 100000, "ERR COUNT must be between 1 and 100000");
      if (!v) return;
      count = static_cast<size_t>(*v);
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (!filters.Compile(ctx)) return;
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, ctx.arg(1), true);
  if (mem == nullptr) return;
  uint64_t next = 0;
  std::vector<Memory> page = mem->List(cursor, count, filters.get(), &next);
  ReplyBuilder& rb = ctx.rb();
  rb.Array(2);
  rb.Bulk(std::to_string(next));
  rb.Array(page.size());
  for (const Memory& m : page) ReplyMemory(rb, m, nullptr, nullptr);
}

// MEM.COUNT ns [filters]
void CountCommand(CommandContext& ctx) {
  Filters filters;
  for (size_t j = 2; j < ctx.argc(); j++) {
    bool error = false;
    if (!filters.Parse(ctx, &j, &error)) return ctx.rb().Error(errors::kSyntax);
    if (error) return;
  }
  if (!filters.Compile(ctx)) return;
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, ctx.arg(1), true);
  if (mem == nullptr) return;
  ctx.rb().Integer(static_cast<int64_t>(mem->Count(filters.get())));
}

// MEM.FORGET ns [OLDER s] [INACTIVE s] [filters] -> how many were removed. At least one
// criterion is required.
void ForgetCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Filters filters;
  std::optional<int64_t> older, inactive;
  bool any_filter = false;
  for (size_t j = 2; j < ctx.argc(); j++) {
    bool error = false;
    if (filters.Parse(ctx, &j, &error)) {
      if (error) return;
      any_filter = true;
      continue;
    }
    std::string_view opt = ctx.arg(j);
    if ((EqualsIgnoreCase(opt, "OLDER") || EqualsIgnoreCase(opt, "INACTIVE")) && j + 1 < ctx.argc()) {
      auto v = RangeArg(ctx, ++j, 0, kMaxSeconds, "ERR invalid " + ToUpper(opt) + " seconds");
      if (!v) return;
      (EqualsIgnoreCase(opt, "OLDER") ? older : inactive) = *v * 1000;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (!older && !inactive && !any_filter) {
    return ctx.rb().Error("ERR MEM.FORGET needs OLDER, INACTIVE or a filter");
  }
  if (!filters.Compile(ctx)) return;
  KeyShardLock lock(ctx, key);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  const int64_t now = AiNowMs(ctx);
  std::optional<int64_t> created_before, accessed_before;
  if (older) created_before = now - *older;
  if (inactive) accessed_before = now - *inactive;
  const size_t n = mem->Forget(created_before, accessed_before, filters.get(), Recorder(ctx, key));
  outside.reset();
  if (n > 0) FinishWrite(ctx, key, "mem.forget");
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// MEM.TOUCH ns id ACCESSED ms ACCESSES n -> 1 when the memory exists (its last access and
// access count set: the AOF replays accesses with it).
void TouchCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  if (!EqualsIgnoreCase(ctx.arg(3), "ACCESSED") || !EqualsIgnoreCase(ctx.arg(5), "ACCESSES")) {
    return ctx.rb().Error(errors::kSyntax);
  }
  auto at = RangeArg(ctx, 4, 0, INT64_MAX, "ERR invalid ACCESSED");
  if (!at) return;
  auto n = RangeArg(ctx, 6, 0, INT64_MAX, "ERR invalid ACCESSES");
  if (!n) return;
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  const bool found = mem->Touch(ctx.arg(2), *at, static_cast<uint64_t>(*n), Recorder(ctx, key));
  if (found) ctx.KeyModified(key, notify::kModule, "mem.touch");
  ctx.rb().Integer(found ? 1 : 0);
}

// MEM.INFO ns -> a map of the options and counts.
void InfoCommand(CommandContext& ctx) {
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, ctx.arg(1), true);
  if (mem == nullptr) return;
  const AgentMemoryOptions o = mem->options();
  ReplyBuilder& rb = ctx.rb();
  rb.Map(15);
  rb.Bulk("memories");
  rb.Integer(static_cast<int64_t>(mem->size()));
  rb.Bulk("sessions");
  rb.Integer(static_cast<int64_t>(mem->session_count(AiNowMs(ctx))));
  rb.Bulk("dim");
  rb.Integer(o.dim);
  rb.Bulk("metric");
  rb.Bulk(MetricOptionName(o.metric));
  rb.Bulk("similarity_weight");
  rb.Double(o.similarity_weight);
  rb.Bulk("recency_weight");
  rb.Double(o.recency_weight);
  rb.Bulk("freshness_weight");
  rb.Double(o.freshness_weight);
  rb.Bulk("freshness_halflife");
  rb.Integer(o.freshness_halflife_ms / 1000);
  rb.Bulk("novelty_weight");
  rb.Double(o.novelty_weight);
  rb.Bulk("novelty_halflife");
  rb.Integer(o.novelty_halflife_ms / 1000);
  rb.Bulk("touch_interval");
  rb.Integer(o.touch_interval_ms / 1000);
  rb.Bulk("session_ttl");
  rb.Integer(o.session_ttl_ms / 1000);
  rb.Bulk("m");
  rb.Integer(o.m);
  rb.Bulk("ef");
  rb.Integer(o.ef);
  rb.Bulk("memory");
  rb.Integer(static_cast<int64_t>(mem->MemoryUsage()));
}

// MEM.SESSION.APPEND ns session role content [TTL s] [USER u] [PROMOTE vector]
//                    [AT ms] [PXAT ms]   (the last two: replay)
// -> the session's message count, or [count, memory id] with PROMOTE.
void SessionAppendCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::string_view session = ctx.arg(2);
  std::string_view role = ctx.arg(3);
  std::string_view content = ctx.arg(4);
  if (!CheckText(ctx, content)) return;
  std::optional<int64_t> ttl, at, pxat;
  std::optional<std::vector<float>> promote;
  std::string user;
  for (size_t j = 5; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "PROMOTE") && j + 1 < ctx.argc()) {
      size_t next;
      promote = VectorArgOrReply(ctx, j + 1, &next);
      if (!promote) return;
      j = next - 1;
      continue;
    }
    if (j + 1 >= ctx.argc()) return ctx.rb().Error(errors::kSyntax);
    if (EqualsIgnoreCase(opt, "TTL")) {
      ttl = RangeArg(ctx, ++j, 0, kMaxSeconds, "ERR invalid TTL");
      if (!ttl) return;
      *ttl *= 1000;
    } else if (EqualsIgnoreCase(opt, "USER")) {
      user = ctx.arg(++j);
    } else if (EqualsIgnoreCase(opt, "AT")) {
      at = RangeArg(ctx, ++j, 0, INT64_MAX, "ERR invalid AT");
      if (!at) return;
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      pxat = RangeArg(ctx, ++j, 0, INT64_MAX, "ERR invalid PXAT");
      if (!pxat) return;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  KeyShardLock lock(ctx, key);
  {
    std::shared_ptr<AgentMemory> existing;
    if (!FindMemory(ctx, key, false, &existing)) return;
    if (existing != nullptr && promote && !CheckDim(ctx, *existing, promote->size())) return;
  }
  std::shared_ptr<AgentMemory> mem = FindOrCreate(ctx, key);
  if (mem == nullptr) return;
  std::optional<OutsideLock> outside(std::in_place);
  lock.Unlock();
  const int64_t now = AiNowMs(ctx);
  AgentMemory::ChangeFn changes = Recorder(ctx, key);
  const size_t n = mem->Append(session, role, content, ttl, now, at, pxat, changes);
  std::optional<std::string> id;
  if (promote) {
    AgentMemory::AddRequest req;
    req.vec = *promote;
    req.fields.text = content;
    req.fields.user = user;
    req.fields.session = session;
    req.fields.type = "message";
    std::string attrs = "{\"role\":";
    json::AppendQuoted(role, &attrs);
    attrs += "}";
    req.fields.attrs = std::move(attrs);
    Result<AgentMemory::AddResult> r = mem->Add(req, now, changes);
    if (!r.ok()) {
      outside.reset();
      return ctx.rb().Error("ERR " + r.status().message());
    }
    id = r->id;
  }
  outside.reset();
  FinishWrite(ctx, key, "mem.session.append");
  if (!id) return ctx.rb().Integer(static_cast<int64_t>(n));
  ctx.rb().Array(2);
  ctx.rb().Integer(static_cast<int64_t>(n));
  ctx.rb().Bulk(*id);
}

// MEM.SESSION.GET ns session [LAST n] -> the messages, oldest first: maps of role,
// content, at (ms).
void SessionGetCommand(CommandContext& ctx) {
  size_t last = 0;
  if (ctx.argc() == 5 && EqualsIgnoreCase(ctx.arg(3), "LAST")) {
    auto v = RangeArg(ctx, 4, 1, INT64_MAX, "ERR LAST must be a positive integer");
    if (!v) return;
    last = static_cast<size_t>(*v);
  } else if (ctx.argc() != 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, ctx.arg(1), true);
  if (mem == nullptr) return;
  int64_t ttl;
  std::vector<SessionMessage> msgs = mem->SessionMessages(ctx.arg(2), last, AiNowMs(ctx), &ttl);
  ReplyBuilder& rb = ctx.rb();
  rb.Array(msgs.size());
  for (const SessionMessage& m : msgs) {
    rb.Map(3);
    rb.Bulk("role");
    rb.Bulk(m.role);
    rb.Bulk("content");
    rb.Bulk(m.content);
    rb.Bulk("at");
    rb.Integer(m.at_ms);
  }
}

// MEM.SESSION.CLEAR ns session -> 1 when the session existed.
void SessionClearCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<AgentMemory> mem = MemoryOrReply(ctx, key, false);
  if (mem == nullptr) return;
  const bool found = mem->ClearSession(ctx.arg(2), AiNowMs(ctx), Recorder(ctx, key));
  if (found) ctx.KeyModified(key, notify::kModule, "mem.session.clear");
  ctx.rb().Integer(found ? 1 : 0);
}

constexpr const char* kFiltersSyntax =
    "[USER user] [SESSION session] [TYPE <episodic | semantic | message>] [TOPICS topic[,topic...]] [ENTITIES entity[,entity...]] [FILTER expression]";

}  // namespace

void RegisterMemCommands(CommandTable& t) {
  RegisterExtensionType(&MemoryType());
  const std::string filters = kFiltersSyntax;
  t.Add({.name = "mem.create", .arity = -2, .flags = "write denyoom", .acl = "@write @slow",
         .keys = {KeyAt(1, "OW INSERT")}, .handler = CreateCommand,
         .doc = {"mem", "0.1.0", "O(1)",
                 "Creates an empty agent-memory namespace (dimension, metric, ranking weights and half-lives, touch interval, session TTL).",
                 "key [DIM dim] [METRIC <COSINE | L2 | IP>] [WEIGHTS similarity recency] [FRESHNESS weight halflife] [NOVELTY weight halflife] [TOUCH-INTERVAL seconds] [SESSION-TTL seconds] [M m] [EF ef]"}});
  t.Add({.name = "mem.config", .arity = -4, .flags = "write", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ConfigCommand,
         .doc = {"mem", "0.1.0", "O(1)",
                 "Changes an agent-memory namespace's ranking weights, half-lives, touch interval, default session TTL or search EF.",
                 "key [WEIGHTS similarity recency] [FRESHNESS weight halflife] [NOVELTY weight halflife] [TOUCH-INTERVAL seconds] [SESSION-TTL seconds] [EF ef]"}});
  t.Add({.name = "mem.add", .arity = -5, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = AddCommand,
         .doc = {"mem", "0.1.0", "O(log(N)) where N is the number of memories.",
                 "Adds a long-term memory (or updates an exact or semantic duplicate); returns its id. Creates the namespace when missing.",
                 "key <FP32 | VALUES dim> vector text [USER user] [SESSION session] [TYPE <episodic | semantic | message>] [TOPICS topics] [ENTITIES entities] [ATTRS json] [ID id] [DEDUP similarity]"}});
  t.Add({.name = "mem.search", .arity = -4, .flags = "readonly self_locking", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SearchCommand,
         .doc = {"mem", "0.1.0", "O(log(N)) where N is the number of memories.",
                 "Returns the memories nearest to a vector, ranked by similarity and recency, with their text, attributes, similarity and score.",
                 "key <FP32 | VALUES dim> vector [K k] " + filters + " [THRESHOLD similarity] [RECENCY weight freshness-halflife novelty-halflife] [EF ef]"}});
  t.Add({.name = "mem.get", .arity = 3, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetCommand,
         .doc = {"mem", "0.1.0", "O(1)", "Returns a memory by id, or nil.", "key id"}});
  t.Add({.name = "mem.update", .arity = -4, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = UpdateCommand,
         .doc = {"mem", "0.1.0", "O(log(N)) where N is the number of memories.",
                 "Changes a memory's text, vector or fields; returns 1, or 0 when it does not exist.",
                 "key id [TEXT text] [<FP32 | VALUES dim> vector] [USER user] [SESSION session] [TYPE type] [TOPICS topics] [ENTITIES entities] [ATTRS json]"}});
  t.Add({.name = "mem.del", .arity = -3, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = DelCommand,
         .doc = {"mem", "0.1.0", "O(log(N)) per memory.", "Removes memories by id; returns how many existed.",
                 "key id [id ...]"}});
  t.Add({.name = "mem.list", .arity = -2, .flags = "readonly", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ListCommand,
         .doc = {"mem", "0.1.0", "O(COUNT)", "Pages through the memories (insertion order) that pass the filters.",
                 "key " + filters + " [CURSOR cursor] [COUNT count]"}});
  t.Add({.name = "mem.count", .arity = -2, .flags = "readonly", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = CountCommand,
         .doc = {"mem", "0.1.0", "O(1) without filters, else O(N)", "Counts the memories that pass the filters.",
                 "key " + filters}});
  t.Add({.name = "mem.forget", .arity = -2, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = ForgetCommand,
         .doc = {"mem", "0.1.0", "O(N)", "Removes the memories older than / not accessed for a time that pass the filters; returns how many.",
                 "key [OLDER seconds] [INACTIVE seconds] " + filters}});
  t.Add({.name = "mem.touch", .arity = 7, .flags = "write fast", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = TouchCommand,
         .doc = {"mem", "0.1.0", "O(1)", "Sets a memory's last access time and access count (the AOF replays accesses with it).",
                 "key id ACCESSED unix-time-milliseconds ACCESSES count"}});
  t.Add({.name = "mem.info", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = InfoCommand,
         .doc = {"mem", "0.1.0", "O(1)", "Returns a memory namespace's options and counts.", "key"}});
  t.Add({.name = "mem.session.append", .arity = -5, .flags = "write denyoom self_locking", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = SessionAppendCommand,
         .doc = {"mem", "0.1.0", "O(1), O(log(N)) with PROMOTE",
                 "Appends a message to a session's working memory (sliding TTL); with PROMOTE also adds it as a long-term memory.",
                 "key session role content [TTL seconds] [USER user] [PROMOTE <FP32 | VALUES dim> vector]"}});
  t.Add({.name = "mem.session.get", .arity = -3, .flags = "readonly", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SessionGetCommand,
         .doc = {"mem", "0.1.0", "O(N) where N is the number of messages returned.",
                 "Returns a session's messages (the last n), oldest first.", "key session [LAST n]"}});
  t.Add({.name = "mem.session.clear", .arity = 3, .flags = "write", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = SessionClearCommand,
         .doc = {"mem", "0.1.0", "O(N)", "Removes a session's messages; returns 1 if it existed.", "key session"}});
}

}  // namespace hotkv::ai

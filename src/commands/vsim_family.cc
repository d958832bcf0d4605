// HotKV's own vector dialect: VSIM.CREATEINDEX VSIM.SET VSIM.SEARCH VSIM.GET VSIM.DEL
// VSIM.INFO VSIM.CARD, defined in docs/vector.md. It works on the same "vectorset" keys
// as Redis 8's VADD/VSIM (vector_set_family.cc): an index made here can be read with VSIM and
// written with VADD, and the other way round.
//
// Differences from the Redis dialect, on purpose: the index is created explicitly (DIM,
// METRIC, M, EF_CONSTRUCTION, TYPE; float32 storage by default) and stays when emptied;
// VSIM.SET / VSIM.SEARCH / VSIM.INFO on a missing key are errors ("ERR no such index");
// VSIM.SEARCH's WITHSCORES is the engine's distance (smaller is closer) for every metric.
//
// Locking: VSIM.SET, VSIM.SEARCH and VSIM.DEL are self_locking (see vector_common.h).
#include <algorithm>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/vector_common.h"
#include "engine/entry.h"
#include "json/json_node.h"

namespace hotkv {

namespace {

using vector::HnswIndex;
using vector::Metric;
using vector::Quantization;

constexpr std::string_view kNoSuchIndex = "ERR no such index";
constexpr std::string_view kInvalidVector = "ERR invalid vector specification";
constexpr int64_t kMaxDim = int64_t{1} << 16;
constexpr int64_t kMaxEf = 1000000;
constexpr int64_t kMaxK = 1000000;

// ATTRS must be a well-formed JSON object (json/'s parser).
bool IsJsonObject(std::string_view text) {
  Result<json::Node> doc = json::Parse(text);
  return doc.ok() && doc->is_object();
}

const char* TypeReplyName(Quantization q) {
  switch (q) {
    case Quantization::kFloat32:
      return "float32";
    case Quantization::kQ8:
      return "q8";
    case Quantization::kBinary:
      return "binary";
  }
  return "unknown";
}

// Parses an integer option value in [lo, hi]; replies `err` and returns nullopt otherwise.
std::optional<int64_t> RangeArg(CommandContext& ctx, size_t i, int64_t lo, int64_t hi,
                                std::string_view err) {
  std::optional<int64_t> v = ParseInt64(ctx.arg(i));
  if (!v || *v < lo || *v > hi) {
    ctx.rb().Error(err);
    return std::nullopt;
  }
  return v;
}

// The vector to store or search with in `set`: projected for a REDUCE set when given
// with the input dimension; replies the dimension error and returns false on mismatch.
bool FitVector(CommandContext& ctx, const VectorSet& set, std::vector<float>* v) {
  *v = ProjectIfNeeded(set, std::move(*v));
  if (v->size() != set.dim()) {
    ReplyDimensionMismatch(ctx, v->size(), set.dim());
    return false;
  }
  return true;
}

// VSIM.CREATEINDEX key DIM d [METRIC COSINE|L2|IP] [M m] [EF_CONSTRUCTION n]
//                  [TYPE FLOAT32|Q8]
void CreateIndexCommand(CommandContext& ctx) {
  vector::IndexOptions options;
  options.quant = Quantization::kFloat32;
  for (size_t j = 2; j < ctx.argc(); j += 2) {
    std::string_view opt = ctx.arg(j);
    if (j + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    std::string_view value = ctx.arg(j + 1);
    if (EqualsIgnoreCase(opt, "DIM")) {
      auto v = RangeArg(ctx, j + 1, 1, kMaxDim, "ERR invalid DIM");
      if (!v) {
        return;
      }
      options.dim = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "METRIC")) {
      if (EqualsIgnoreCase(value, "COSINE")) {
        options.metric = Metric::kCosine;
      } else if (EqualsIgnoreCase(value, "L2")) {
        options.metric = Metric::kL2;
      } else if (EqualsIgnoreCase(value, "IP")) {
        options.metric = Metric::kInnerProduct;
      } else {
        return ctx.rb().Error("ERR invalid METRIC");
      }
    } else if (EqualsIgnoreCase(opt, "M")) {
      auto v = RangeArg(ctx, j + 1, 2, 255, "ERR invalid M");
      if (!v) {
        return;
      }
      options.m = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "EF_CONSTRUCTION")) {
      auto v = RangeArg(ctx, j + 1, 1, kMaxEf, "ERR invalid EF_CONSTRUCTION");
      if (!v) {
        return;
      }
      options.ef_construction = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "TYPE")) {
      if (EqualsIgnoreCase(value, "FLOAT32")) {
        options.quant = Quantization::kFloat32;
      } else if (EqualsIgnoreCase(value, "Q8")) {
        options.quant = Quantization::kQ8;
      } else {
        return ctx.rb().Error("ERR invalid TYPE");
      }
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (options.dim == 0) {
    return ctx.rb().Error("ERR DIM is required");
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) {
    return ctx.rb().Error("ERR key already exists");
  }
  auto index = HnswIndex::Create(options);
  if (!index.ok()) {
    return ctx.rb().Error("ERR " + index.status().message());
  }
  VectorSetFlags flags;
  flags.persistent = true;
  InsertVectorSet(ctx, key, std::make_shared<VectorSet>(std::move(index.value()), flags));
  ctx.KeyModified(key, notify::kModule, "vsim.createindex");
  ctx.rb().Ok();
}

// VSIM.SET key id (FP32 blob | VALUES d v...) [ATTRS json]
void SetCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::string_view id = ctx.arg(2);
  std::optional<VectorArg> vec = ParseVectorArg(ctx, 3);
  if (!vec) {
    return ctx.rb().Error(kInvalidVector);
  }
  std::optional<std::string_view> attributes;
  for (size_t j = 3 + vec->consumed; j < ctx.argc(); j++) {
    if (EqualsIgnoreCase(ctx.arg(j), "ATTRS") && j + 1 < ctx.argc()) {
      attributes = ctx.arg(++j);
      if (!attributes->empty() && !IsJsonObject(*attributes)) {
        return ctx.rb().Error("ERR ATTRS must be a JSON object (or empty to remove)");
      }
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  KeyShardLock lock(ctx, key);
  std::shared_ptr<VectorSet> set;
  if (!FindVectorSet(ctx, key, false, &set)) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Error(kNoSuchIndex);
  }
  if (!FitVector(ctx, *set, &vec->values)) {
    return;
  }
  BeginVectorWrite(ctx, key, *set);
  lock.Unlock();
  Result<bool> added = AddElement(*set, id, vec->values, attributes, 0, &ctx, &ctx.args());
  FinishVectorWrite(ctx, key, *set, added.ok(), notify::kModule, "vsim.set");
  if (!added.ok()) {
    return ctx.rb().Error("ERR " + added.status().message());
  }
  ctx.rb().Integer(*added ? 1 : 0);
}

// VSIM.SEARCH key (FP32 blob | VALUES d v...) [K k] [EF ef] [FILTER expr] [WITHSCORES]
//             [WITHATTRS]
void SearchCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::optional<VectorArg> vec = ParseVectorArg(ctx, 2);
  if (!vec) {
    return ctx.rb().Error(kInvalidVector);
  }
  vector::SearchParams params;
  bool with_scores = false;
  std::unique_ptr<VectorFilter> filter;
  for (size_t j = 2 + vec->consumed; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "K") && has_value) {
      auto v = RangeArg(ctx, ++j, 1, kMaxK, "ERR invalid K");
      if (!v) {
        return;
      }
      params.k = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "EF") && has_value) {
      auto v = RangeArg(ctx, ++j, 1, kMaxEf, "ERR invalid EF");
      if (!v) {
        return;
      }
      params.ef = static_cast<uint32_t>(*v);
    } else if (EqualsIgnoreCase(opt, "FILTER") && has_value) {
      filter = CompileFilter(ctx, ctx.arg(++j));
      if (filter == nullptr) {
        return;
      }
    } else if (EqualsIgnoreCase(opt, "WITHSCORES")) {
      with_scores = true;
    } else if (EqualsIgnoreCase(opt, "WITHATTRS")) {
      params.with_attributes = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::shared_ptr<VectorSet> set;
  {
    KeyShardLock lock(ctx, key);
    if (!FindVectorSet(ctx, key, true, &set)) {
      return;
    }
  }
  if (set == nullptr) {
    return ctx.rb().Error(kNoSuchIndex);
  }
  if (!FitVector(ctx, *set, &vec->values)) {
    return;
  }
  // No more results than elements: a large K allocates nothing large.
  params.k = static_cast<uint32_t>(
      std::min<size_t>(params.k, std::max<size_t>(1, set->index().size())));
  params.filter = filter.get();
  auto hits = set->index().Search(vec->values, params);
  if (!hits.ok()) {
    return ctx.rb().Error("ERR " + hits.status().message());
  }
  ReplySearchHits(ctx, *hits, set->options().metric, ScoreKind::kDistance, with_scores,
                  params.with_attributes);
}

// VSIM.GET key id: {vector: [...], attributes: json | nil}, or nil.
void GetCommand(CommandContext& ctx) {
  Entry* e = LookupRead(ctx, ctx.arg(1));
  if (!CheckType(ctx, e, ValueType::kVectorSet)) {
    return;
  }
  std::optional<std::vector<float>> v;
  std::optional<std::string> attributes;
  if (e != nullptr) {
    HnswIndex& index = e->As<VectorSetValue>()->set->index();
    v = index.GetVector(ctx.arg(2));
    attributes = index.GetAttributes(ctx.arg(2));
  }
  if (!v.has_value()) {
    return ctx.rb().Null();
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Map(2);
  rb.Bulk("vector");
  rb.Array(v->size());
  for (float x : *v) {
    rb.Double(x);
  }
  rb.Bulk("attributes");
  if (attributes.has_value()) {
    rb.Bulk(*attributes);
  } else {
    rb.Null();
  }
}

// VSIM.DEL key id [id ...]: the number of elements removed.
void DelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  KeyShardLock lock(ctx, key);
  std::shared_ptr<VectorSet> set;
  if (!FindVectorSet(ctx, key, false, &set)) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Integer(0);
  }
  BeginVectorWrite(ctx, key, *set);
  lock.Unlock();
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.argc(); i++) {
    // Recorded element by element, each under its label lock (vector_common.h).
    const ElementRecord record{ctx.arg(0), key, ctx.arg(i)};
    removed += RemoveElement(*set, ctx.arg(i), &ctx, &record) ? 1 : 0;
  }
  FinishVectorWrite(ctx, key, *set, removed > 0, notify::kModule, "vsim.del");
  ctx.rb().Integer(removed);
}

void InfoCommand(CommandContext& ctx) {
  Entry* e = LookupRead(ctx, ctx.arg(1));
  if (!CheckType(ctx, e, ValueType::kVectorSet)) {
    return;
  }
  if (e == nullptr) {
    return ctx.rb().Error(kNoSuchIndex);
  }
  const VectorSet& set = *e->As<VectorSetValue>()->set;
  vector::IndexInfo info = set.index().Info();
  ReplyBuilder& rb = ctx.rb();
  rb.Map(11);
  rb.Bulk("dim");
  rb.Integer(info.dim);
  rb.Bulk("metric");
  rb.Bulk(MetricReplyName(info.metric));
  rb.Bulk("type");
  rb.Bulk(TypeReplyName(info.quant));
  rb.Bulk("m");
  rb.Integer(info.m);
  rb.Bulk("ef_construction");
  rb.Integer(info.ef_construction);
  rb.Bulk("size");
  rb.Integer(static_cast<int64_t>(info.size));
  rb.Bulk("max_level");
  rb.Integer(info.max_level);
  rb.Bulk("attributes");
  rb.Integer(set.attribute_count());
  rb.Bulk("projection_input_dim");
  rb.Integer(set.projection_input_dim());
  rb.Bulk("persistent");
  rb.Integer(set.persistent() ? 1 : 0);
  rb.Bulk("memory_bytes");
  rb.Integer(static_cast<int64_t>(info.memory_bytes));
}

void CardCommand(CommandContext& ctx) {
  Entry* e = LookupRead(ctx, ctx.arg(1));
  if (!CheckType(ctx, e, ValueType::kVectorSet)) {
    return;
  }
  ctx.rb().Integer(e == nullptr ? 0
                                : static_cast<int64_t>(e->As<VectorSetValue>()->set->index().size()));
}

}  // namespace

void RegisterVsimCommands(CommandTable& t) {
  t.Add({.name = "vsim.createindex", .arity = -4, .flags = "write denyoom", .acl = "@write @slow",
         .keys = {KeyAt(1, "OW INSERT")}, .handler = CreateIndexCommand,
         .doc = {"vector", "0.1.0", "O(1)",
                 "Creates an empty vector index (dimension, metric, graph and storage options) under a new key.",
                 "key DIM dim [METRIC <COSINE | L2 | IP>] [M m] [EF_CONSTRUCTION ef] [TYPE <FLOAT32 | Q8>]"}});
  t.Add({.name = "vsim.set", .arity = -5, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = SetCommand,
         .doc = {"vector", "0.1.0", "O(log(N)) where N is the number of elements in the index.",
                 "Adds an element to a vector index or replaces its vector, optionally setting its JSON attributes.",
                 "key id <FP32 | VALUES dim> vector [ATTRS json]"}});
  t.Add({.name = "vsim.search", .arity = -4, .flags = "readonly self_locking", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SearchCommand,
         .doc = {"vector", "0.1.0", "O(log(N)) where N is the number of elements in the index.",
                 "Returns the K elements of a vector index nearest to a vector, optionally filtered by attributes, with distances.",
                 "key <FP32 | VALUES dim> vector [K k] [EF ef] [FILTER expression] [WITHSCORES] [WITHATTRS]"}});
  t.Add({.name = "vsim.get", .arity = 3, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetCommand,
         .doc = {"vector", "0.1.0", "O(1)", "Returns the vector and attributes of an element of a vector index.", "key id"}});
  t.Add({.name = "vsim.del", .arity = -3, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = DelCommand,
         .doc = {"vector", "0.1.0", "O(M log(N)) where M is the number of ids and N the number of elements.",
                 "Removes elements from a vector index and returns how many existed.", "key id [id ...]"}});
  t.Add({.name = "vsim.info", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = InfoCommand,
         .doc = {"vector", "0.1.0", "O(1)", "Returns the options, size and memory of a vector index.", "key"}});
  t.Add({.name = "vsim.card", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = CardCommand,
         .doc = {"vector", "0.1.0", "O(1)", "Returns the number of elements of a vector index.", "key"}});
}

}  // namespace hotkv

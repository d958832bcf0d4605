// Redis 8 vector-set commands, writes and search: VADD VSIM VREM VSETATTR (the reads
// are in vector_set_family_read.cc), over the HNSW engine (vector/hnsw_index.h) through
// engine/vector_set_value.h. Syntax, replies, error texts and scores follow Redis 8's
// vector-set module (modules/vector-sets/vset.c); deviations are listed in docs/vector.md.
//
// Locking: all four are self_locking: no shard lock is held while the engine inserts,
// searches or repairs the graph (see vector_common.h).
//
// Edge cases honoured (as Redis): a missing key is an empty VSIM reply and VREM /
// VSETATTR false; VADD's quantisation and M must match an existing set (defaults Q8 and
// 16) and REDUCE must be repeated with its dimension; a set emptied by VREM is deleted;
// scores are similarities in [0, 1]; option errors leave the set unchanged.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/vector_common.h"
#include "server/server.h"
#include "server/write_stream.h"
#include "engine/entry.h"

namespace hotkv {

namespace {

using vector::HnswIndex;
using vector::Quantization;

// Redis's limits: HNSW_MIN_M / HNSW_MAX_M, EF up to 1000000. The engine stores at most
// 255 links per layer, so HotKV accepts M up to 255.
constexpr int64_t kMinM = 4;
constexpr int64_t kMaxEngineM = 255;
constexpr int64_t kMaxEf = 1000000;

constexpr std::string_view kInvalidVector = "ERR invalid vector specification";

// VADD key [REDUCE dim] (FP32 blob | VALUES n v...) element [CAS] [NOQUANT | Q8 | BIN]
//      [EF build-ef] [SETATTR json] [M numlinks]
void VAddCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  size_t i = 2;
  int64_t reduce = 0;
  if (ctx.argc() > 4 && EqualsIgnoreCase(ctx.arg(2), "REDUCE")) {
    std::optional<int64_t> r = ParseInt64(ctx.arg(3));
    if (!r || *r <= 0) {
      return ctx.rb().Error(kInvalidVector);
    }
    reduce = *r;
    i = 4;
  }
  std::optional<VectorArg> vec = ParseVectorArg(ctx, i);
  if (!vec || reduce > static_cast<int64_t>(vec->values.size())) {
    return ctx.rb().Error(kInvalidVector);
  }
  const size_t dim = vec->values.size();
  const size_t element_at = i + vec->consumed;
  if (element_at >= ctx.argc()) {
    return ReplyWrongArity(ctx);
  }
  std::string_view element = ctx.arg(element_at);
  Quantization quant = Quantization::kQ8;
  int64_t ef = 0;  // 0: the set's ef_construction (200 for sets VADD creates)
  int64_t m = 16;
  std::optional<std::string_view> attributes;
  for (size_t j = element_at + 1; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "CAS")) {
      // Redis collects the neighbours in a thread, then links in the main thread; HotKV
      // inserts without any shard lock anyway, so CAS needs nothing more.
    } else if (EqualsIgnoreCase(opt, "EF") && has_value) {
      std::optional<int64_t> v = ParseInt64(ctx.arg(++j));
      if (!v || *v <= 0 || *v > kMaxEf) {
        return ctx.rb().Error("ERR invalid EF");
      }
      ef = *v;
    } else if (EqualsIgnoreCase(opt, "M") && has_value) {
      std::optional<int64_t> v = ParseInt64(ctx.arg(++j));
      if (!v || *v < kMinM || *v > kMaxEngineM) {
        return ctx.rb().Error("ERR invalid M");
      }
      m = *v;
    } else if (EqualsIgnoreCase(opt, "SETATTR") && has_value) {
      attributes = ctx.arg(++j);
    } else if (EqualsIgnoreCase(opt, "NOQUANT")) {
      quant = Quantization::kFloat32;
    } else if (EqualsIgnoreCase(opt, "BIN")) {
      quant = Quantization::kBinary;
    } else if (EqualsIgnoreCase(opt, "Q8")) {
      quant = Quantization::kQ8;
    } else {
      return ctx.rb().Error("ERR invalid option after element");
    }
  }

  KeyShardLock lock(ctx, key);
  std::shared_ptr<VectorSet> set;
  if (!FindVectorSet(ctx, key, false, &set)) {
    return;
  }
  if (set == nullptr) {
    // A new set: its first insert touches no other node, so it runs here, under the
    // lock, and the key never exists empty.
    vector::IndexOptions options;
    options.dim = static_cast<uint32_t>(reduce != 0 ? reduce : static_cast<int64_t>(dim));
    options.metric = vector::Metric::kCosine;
    options.m = static_cast<uint32_t>(m);
    options.quant = quant;
    auto index = HnswIndex::Create(options);
    if (!index.ok()) {
      return ctx.rb().Error("ERR " + index.status().message());
    }
    VectorSetFlags flags;
    flags.projection_input_dim = reduce != 0 ? static_cast<uint32_t>(dim) : 0;
    set = std::make_shared<VectorSet>(std::move(index.value()), flags);
    std::vector<float> values = reduce != 0 ? set->Project(vec->values) : std::move(vec->values);
    // Not recorded by AddElement (which records only writes to a set the key holds, and
    // would lock the shard this thread holds): recorded below, under the lock.
    Result<bool> added = AddElement(*set, element, values, attributes, static_cast<uint32_t>(ef));
    if (!added.ok()) {
      return ctx.rb().Error("ERR " + added.status().message());
    }
    InsertVectorSet(ctx, key, set);
    ctx.KeyModified(key, notify::kModule, "vadd");
    if (ctx.propagating()) {
      ctx.PropagateAs(ctx.args());
      ctx.server().write_stream().Commit();  // before the lock goes: ordered with a DEL
    }
    return ctx.rb().Bool(true);
  }
  if (set->options().quant != quant) {
    return ctx.rb().Error("ERR asked quantization mismatch with existing vector set");
  }
  if (set->options().m != static_cast<uint32_t>(m)) {
    return ctx.rb().Error("ERR asked M value mismatch with existing vector set");
  }
  const uint32_t proj_in = set->projection_input_dim();
  if ((proj_in == 0 && set->dim() != dim) ||
      (proj_in != 0 && set->dim() != static_cast<uint64_t>(reduce))) {
    return ReplyDimensionMismatch(ctx, dim, set->dim());
  }
  if (reduce != 0 && proj_in == 0) {
    return ctx.rb().Error("ERR cannot add projection to existing set without projection");
  }
  if (proj_in != 0 && dim != proj_in) {
    return ctx.rb().Error("ERR Input dimension mismatch for projection - got " +
                          std::to_string(dim) + " but projection expects " +
                          std::to_string(proj_in));
  }
  BeginVectorWrite(ctx, key, *set);
  lock.Unlock();

  std::vector<float> values = proj_in != 0 ? set->Project(vec->values) : std::move(vec->values);
  Result<bool> added = AddElement(*set, element, values, attributes, static_cast<uint32_t>(ef),
                                  &ctx, &ctx.args());
  FinishVectorWrite(ctx, key, *set, added.ok(), notify::kModule, "vadd");
  if (!added.ok()) {
    return ctx.rb().Error("ERR " + added.status().message());
  }
  ctx.rb().Bool(*added);
}

// VSIM key (ELE element | FP32 blob | VALUES n v...) [WITHSCORES] [WITHATTRIBS]
//      [COUNT n] [EPSILON d] [EF ef] [FILTER expr] [FILTER-EF n] [TRUTH] [NOTHREAD]
void VSimCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<VectorSet> set;
  {
    KeyShardLock lock(ctx, key);
    if (!FindVectorSet(ctx, key, true, &set)) {
      return;
    }
  }
  if (set == nullptr) {
    return ctx.rb().EmptyArray();
  }
  HnswIndex& index = set->index();

  std::string_view element;
  bool by_element = false;
  std::vector<float> query;
  size_t j;
  if (EqualsIgnoreCase(ctx.arg(2), "ELE")) {
    element = ctx.arg(3);
    if (!index.Contains(element)) {
      return ctx.rb().Error("ERR element not found in set");
    }
    by_element = true;
    j = 4;
  } else {
    std::optional<VectorArg> vec = ParseVectorArg(ctx, 2);
    if (!vec) {
      return ctx.rb().Error(kInvalidVector);
    }
    j = 2 + vec->consumed;
    const uint32_t proj_in = set->projection_input_dim();
    if (proj_in != 0 && vec->values.size() != set->dim()) {
      if (vec->values.size() != proj_in) {
        return ctx.rb().Error("ERR Input dimension mismatch for projection - got " +
                              std::to_string(vec->values.size()) + " but projection expects " +
                              std::to_string(proj_in));
      }
      vec->values = set->Project(vec->values);
    }
    if (vec->values.size() != set->dim()) {
      return ReplyDimensionMismatch(ctx, vec->values.size(), set->dim());
    }
    query = std::move(vec->values);
  }

  bool with_scores = false;
  bool with_attributes = false;
  int64_t count = 10;
  int64_t ef = 0;
  int64_t filter_ef = 0;
  std::optional<double> epsilon;
  bool truth = false;
  std::unique_ptr<VectorFilter> filter;
  for (; j < ctx.argc(); j++) {
    std::string_view opt = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "WITHSCORES")) {
      with_scores = true;
    } else if (EqualsIgnoreCase(opt, "WITHATTRIBS")) {
      with_attributes = true;
    } else if (EqualsIgnoreCase(opt, "TRUTH")) {
      truth = true;
    } else if (EqualsIgnoreCase(opt, "NOTHREAD")) {
      // Redis runs VSIM on a thread unless NOTHREAD; HotKV always runs it on the
      // connection's worker, without shard locks.
    } else if (EqualsIgnoreCase(opt, "COUNT") && has_value) {
      std::optional<int64_t> v = ParseInt64(ctx.arg(++j));
      if (!v || *v <= 0) {
        return ctx.rb().Error("ERR invalid COUNT");
      }
      count = *v;
    } else if (EqualsIgnoreCase(opt, "EPSILON") && has_value) {
      std::optional<double> v = ParseDouble(ctx.arg(++j));
      if (!v || *v <= 0) {
        return ctx.rb().Error("ERR invalid EPSILON");
      }
      epsilon = *v;
    } else if (EqualsIgnoreCase(opt, "EF") && has_value) {
      std::optional<int64_t> v = ParseInt64(ctx.arg(++j));
      if (!v || *v <= 0 || *v > kMaxEf) {
        return ctx.rb().Error("ERR invalid EF");
      }
      ef = *v;
    } else if (EqualsIgnoreCase(opt, "FILTER-EF") && has_value) {
      std::optional<int64_t> v = ParseInt64(ctx.arg(++j));
      if (!v || *v <= 0) {
        return ctx.rb().Error("ERR invalid FILTER-EF");
      }
      filter_ef = *v;
    } else if (EqualsIgnoreCase(opt, "FILTER") && has_value) {
      filter = CompileFilter(ctx, ctx.arg(++j));
      if (filter == nullptr) {
        return;
      }
    } else {
      return ctx.rb().Error("ERR syntax error in VSIM command");
    }
  }

  // Results cannot outnumber the elements: bound COUNT and EF by the size (as Redis
  // bounds EF) so a huge COUNT allocates nothing huge.
  const int64_t size_bound = std::max<int64_t>(1, static_cast<int64_t>(index.size()));
  vector::SearchParams params;
  params.k = static_cast<uint32_t>(std::min(count, size_bound));
  params.ef = static_cast<uint32_t>(std::min(ef, size_bound));
  if (epsilon.has_value()) {
    params.max_distance = static_cast<float>(
        vector::DistanceFromSimilarity(set->options().metric, 1.0 - *epsilon));
  }
  params.filter = filter.get();
  params.filter_ef = static_cast<uint32_t>(
      std::min<int64_t>(filter_ef, std::numeric_limits<uint32_t>::max() - 1));
  params.filter_beam = vector::kFilterBeamEf;  // Redis's filtered walk keeps EF matches.
  params.exact = truth;
  params.with_attributes = with_attributes;
  auto hits = by_element ? index.SearchByLabel(element, params) : index.Search(query, params);
  if (!hits.ok()) {
    if (hits.status().code() == StatusCode::kNotFound) {
      return ctx.rb().Error("ERR element not found in set");
    }
    return ctx.rb().Error("ERR " + hits.status().message());
  }
  ReplySearchHits(ctx, *hits, set->options().metric, ScoreKind::kSimilarity, with_scores,
                  with_attributes);
}

// VREM key element
void VRemCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  KeyShardLock lock(ctx, key);
  std::shared_ptr<VectorSet> set;
  if (!FindVectorSet(ctx, key, false, &set)) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Bool(false);
  }
  BeginVectorWrite(ctx, key, *set);
  lock.Unlock();
  const bool removed = RemoveElement(*set, ctx.arg(2), &ctx, &ctx.args());
  FinishVectorWrite(ctx, key, *set, removed, notify::kModule, "vrem");
  ctx.rb().Bool(removed);
}

// VSETATTR key element json ("" removes the attributes). Like Redis, the JSON is stored
// as given; an element whose attributes are not a JSON object matches no FILTER.
// self_locking: the attribute count's per-label lock may have to wait for a VADD of the
// same label, which must not happen with the shard locked.
void VSetAttrCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  KeyShardLock lock(ctx, key);
  std::shared_ptr<VectorSet> set;
  if (!FindVectorSet(ctx, key, false, &set)) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Bool(false);
  }
  BeginVectorWrite(ctx, key, *set);  // counted: a snapshot barrier waits for it
  lock.Unlock();
  const bool updated = SetElementAttributes(*set, ctx.arg(2), ctx.arg(3), &ctx, &ctx.args());
  FinishVectorWrite(ctx, key, *set, updated, notify::kModule, "vsetattr");
  ctx.rb().Bool(updated);
}

}  // namespace

void RegisterVectorSetCommands(CommandTable& t) {
  t.Add({.name = "vadd", .arity = -5, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = VAddCommand,
         .doc = {"vector", "8.0.0", "O(log(N)) for each element added, where N is the number of elements in the vector set.",
                 "Adds an element with its vector to a vector set (created on first use), or replaces the vector of an existing element.",
                 "key [REDUCE dim] <FP32 | VALUES num> vector element [CAS] [NOQUANT | Q8 | BIN] [EF build-exploration-factor] [SETATTR attributes] [M numlinks]"}});
  t.Add({.name = "vsim", .arity = -4, .flags = "readonly self_locking", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = VSimCommand,
         .doc = {"vector", "8.0.0", "O(log(N)) where N is the number of elements in the vector set.",
                 "Finds the elements of a vector set most similar to a vector or to one of its elements, optionally filtered by their attributes.",
                 "key <ELE | FP32 | VALUES num> vector_or_element [WITHSCORES] [WITHATTRIBS] [COUNT num] [EPSILON max_distance] [EF search-exploration-factor] [FILTER expression] [FILTER-EF max-filtering-effort] [TRUTH] [NOTHREAD]"}});
  t.Add({.name = "vrem", .arity = 3, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = VRemCommand,
         .doc = {"vector", "8.0.0", "O(log(N)) where N is the number of elements in the vector set.",
                 "Removes an element from a vector set, deleting the set when it becomes empty.", "key element"}});
  t.Add({.name = "vsetattr", .arity = 4, .flags = "write fast self_locking", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = VSetAttrCommand,
         .doc = {"vector", "8.0.0", "O(1)",
                 "Sets (or, with an empty string, removes) the JSON attributes of an element of a vector set.",
                 "key element json"}});
  RegisterVectorSetReadCommands(t);
}

}  // namespace hotkv

// Redis 8 vector-set commands: VADD VSIM VREM VCARD VDIM VEMB VINFO VLINKS VGETATTR
// VSETATTR VRANDMEMBER VISMEMBER, over the HNSW engine (vector/hnsw_index.h) through
// engine/vector_set_value.h. Syntax, replies, error texts and scores follow Redis 8's
// vector-set module (modules/vector-sets/vset.c); deviations are listed in docs/vector.md.
//
// Locking: VADD, VSIM, VREM, VSETATTR and VRANDMEMBER are self_locking (no shard lock
// while the engine inserts, searches, repairs the graph or samples); see
// vector_common.h. The others make O(1)-ish engine calls under the dispatcher's lock.
//
// Edge cases honoured (as Redis): a missing key is an empty VSIM reply, VCARD 0, VREM /
// VSETATTR / VISMEMBER false, VEMB / VGETATTR / VLINKS / VRANDMEMBER nil, VINFO a null
// array, and VDIM "ERR key does not exist"; VADD's quantisation and M must match an
// existing set (defaults Q8 and 16); a set emptied by VREM is deleted; VRANDMEMBER 0 is
// an empty array whatever the key; scores are similarities in [0, 1].
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/vector_common.h"
#include "engine/entry.h"
#include "vector/vector_space.h"

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

// The vectorset of a read lookup under the dispatcher's lock (null when missing).
VectorSet* ReadSet(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = LookupRead(ctx, key);
  *wrong_type = !CheckType(ctx, e, ValueType::kVectorSet);
  return e != nullptr && !*wrong_type ? e->As<VectorSetValue>()->set.get() : nullptr;
}

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
    vector::Result<bool> added = AddElement(*set, element, values, attributes, static_cast<uint32_t>(ef));
    if (!added.ok()) {
      return ctx.rb().Error("ERR " + added.status().message());
    }
    InsertVectorSet(ctx, key, set);
    ctx.KeyModified(key, notify::kModule, "vadd");
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
  BeginVectorWrite(*set);
  lock.Unlock();

  std::vector<float> values = proj_in != 0 ? set->Project(vec->values) : std::move(vec->values);
  vector::Result<bool> added = AddElement(*set, element, values, attributes, static_cast<uint32_t>(ef));
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
  params.exact = truth;
  params.with_attributes = with_attributes;
  auto hits = by_element ? index.SearchByLabel(element, params) : index.Search(query, params);
  if (!hits.ok()) {
    if (hits.status().code() == vector::StatusCode::kNotFound) {
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
  BeginVectorWrite(*set);
  lock.Unlock();
  const bool removed = RemoveElement(*set, ctx.arg(2));
  FinishVectorWrite(ctx, key, *set, removed, notify::kModule, "vrem");
  ctx.rb().Bool(removed);
}

void VCardCommand(CommandContext& ctx) {
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (!wrong_type) {
    ctx.rb().Integer(set == nullptr ? 0 : static_cast<int64_t>(set->index().size()));
  }
}

void VDimCommand(CommandContext& ctx) {
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Error("ERR key does not exist");
  }
  ctx.rb().Integer(set->dim());
}

// VEMB RAW: the stored form, rebuilt by encoding the decoded vector again (the engine
// does not hand out its records): f32 floats (unit length for cosine), Q8 int8 codes
// plus their range (Redis's quants_range: the value code 127 stands for), binary sign
// bits (one per component, little-endian bit order), with the vector's L2 norm.
void ReplyRawEmbedding(CommandContext& ctx, const VectorSet& set, const std::vector<float>& v) {
  const vector::IndexOptions& o = set.options();
  vector::VectorSpace space(o.dim, o.metric, o.quant);
  std::vector<uint8_t> record(space.record_bytes());
  const float norm = space.Encode(v, record.data());
  std::string_view bytes;
  float range = 0;
  switch (o.quant) {
    case Quantization::kFloat32:
      bytes = {reinterpret_cast<const char*>(record.data()), record.size()};
      break;
    case Quantization::kQ8: {
      float scale;
      std::memcpy(&scale, record.data(), sizeof(scale));
      range = scale * 127.0f;
      bytes = {reinterpret_cast<const char*>(record.data()) + 2 * sizeof(float), o.dim};
      break;
    }
    case Quantization::kBinary:
      bytes = {reinterpret_cast<const char*>(record.data()), (o.dim + 7) / 8};
      break;
  }
  const bool q8 = o.quant == Quantization::kQ8;
  ctx.rb().Array(q8 ? 4 : 3);
  ctx.rb().SimpleString(RedisQuantName(o.quant));
  ctx.rb().Bulk(bytes);
  ctx.rb().Double(norm);
  if (q8) {
    ctx.rb().Double(range);
  }
}

// VEMB key element [RAW]
void VEmbCommand(CommandContext& ctx) {
  bool raw = false;
  for (size_t j = 3; j < ctx.argc(); j++) {
    if (!EqualsIgnoreCase(ctx.arg(j), "RAW")) {
      return ctx.rb().Error("ERR invalid option");
    }
    raw = true;
  }
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  std::optional<std::vector<float>> v;
  if (set != nullptr) {
    v = set->index().GetVector(ctx.arg(2));
  }
  if (!v.has_value()) {
    return ctx.rb().Null();
  }
  if (raw) {
    return ReplyRawEmbedding(ctx, *set, *v);
  }
  ctx.rb().Array(v->size());
  for (float x : *v) {
    ctx.rb().Double(x);
  }
}

// VLINKS key element [WITHSCORES]: the neighbours per layer, top layer first.
void VLinksCommand(CommandContext& ctx) {
  bool with_scores = false;
  if (ctx.argc() == 4) {
    if (!EqualsIgnoreCase(ctx.arg(3), "WITHSCORES")) {
      return ReplyWrongArity(ctx);
    }
    with_scores = true;
  } else if (ctx.argc() > 4) {
    return ReplyWrongArity(ctx);
  }
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  std::optional<std::vector<std::vector<vector::Link>>> links;
  if (set != nullptr) {
    links = set->index().GetLinks(ctx.arg(2));
  }
  if (!links.has_value()) {
    return ctx.rb().Null();
  }
  ctx.rb().Array(links->size());
  for (auto level = links->rbegin(); level != links->rend(); ++level) {
    if (with_scores) {
      ctx.rb().Map(level->size());
    } else {
      ctx.rb().Array(level->size());
    }
    for (const vector::Link& link : *level) {
      ctx.rb().Bulk(link.label);
      if (with_scores) {
        ctx.rb().Double(vector::SimilarityFromDistance(set->options().metric, link.distance));
      }
    }
  }
}

void VInfoCommand(CommandContext& ctx) {
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().NullArray();
  }
  vector::IndexInfo info = set->index().Info();
  ReplyBuilder& rb = ctx.rb();
  rb.Map(9);
  rb.SimpleString("quant-type");
  rb.SimpleString(RedisQuantName(info.quant));
  rb.SimpleString("hnsw-m");
  rb.Integer(info.m);
  rb.SimpleString("vector-dim");
  rb.Integer(info.dim);
  rb.SimpleString("projection-input-dim");
  rb.Integer(set->projection_input_dim());
  rb.SimpleString("size");
  rb.Integer(static_cast<int64_t>(info.size));
  rb.SimpleString("max-level");
  rb.Integer(std::max(info.max_level, 0));
  rb.SimpleString("attributes-count");
  rb.Integer(set->attribute_count());
  rb.SimpleString("vset-uid");
  rb.Integer(static_cast<int64_t>(set->uid()));
  rb.SimpleString("hnsw-max-node-uid");
  rb.Integer(static_cast<int64_t>(info.num_nodes));
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
  lock.Unlock();
  const bool updated = SetElementAttributes(*set, ctx.arg(2), ctx.arg(3));
  if (updated) {
    lock.Lock();
    ctx.KeyModified(key, notify::kModule, "vsetattr");
    lock.Unlock();
  }
  ctx.rb().Bool(updated);
}

void VGetAttrCommand(CommandContext& ctx) {
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  std::optional<std::string> attributes;
  if (set != nullptr) {
    attributes = set->index().GetAttributes(ctx.arg(2));
  }
  if (!attributes.has_value()) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(*attributes);
}

// VRANDMEMBER key [count]
void VRandMemberCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return ReplyWrongArity(ctx);
  }
  const bool with_count = ctx.argc() == 3;
  int64_t count = 1;
  if (with_count) {
    std::optional<int64_t> v = ParseInt64(ctx.arg(2));
    if (!v) {
      return ctx.rb().Error("ERR COUNT value is not an integer");
    }
    if (*v == 0) {
      return ctx.rb().EmptyArray();
    }
    count = *v;
  }
  std::string_view key = ctx.arg(1);
  std::shared_ptr<VectorSet> set;
  {
    KeyShardLock lock(ctx, key);
    if (!FindVectorSet(ctx, key, true, &set)) {
      return;
    }
  }
  if (set == nullptr || set->index().size() == 0) {
    return with_count ? ctx.rb().EmptyArray() : ctx.rb().Null();
  }
  HnswIndex& index = set->index();
  if (!with_count) {
    std::optional<std::string> label = index.RandomLabel();
    return label.has_value() ? ctx.rb().Bulk(*label) : ctx.rb().Null();
  }
  // The set may shrink while this runs (no lock), so the length is written at the end.
  const size_t start = ctx.rb().BeginDeferred();
  size_t written = 0;
  if (count > 0) {
    const size_t want = std::min<uint64_t>(static_cast<uint64_t>(count), index.size());
    for (const std::string& label : index.RandomLabels(want, false)) {
      ctx.rb().Bulk(label);
      written++;
    }
  } else {
    // Repeats allowed: |count| draws, in chunks, stopped like HRANDFIELD's when the reply
    // grows past kMaxRandomReplyBytes.
    uint64_t left = count == std::numeric_limits<int64_t>::min()
                        ? static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                        : static_cast<uint64_t>(-count);
    while (left > 0) {
      const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, 1000));
      std::vector<std::string> labels = index.RandomLabels(chunk, true);
      for (const std::string& label : labels) {
        ctx.rb().Bulk(label);
      }
      written += labels.size();
      left -= chunk;
      if (labels.size() < chunk || RandomReplyTooLarge(ctx, start)) {
        break;
      }
    }
  }
  ctx.rb().EndDeferredArray(start, written);
}

void VIsMemberCommand(CommandContext& ctx) {
  bool wrong_type;
  VectorSet* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (!wrong_type) {
    ctx.rb().Bool(set != nullptr && set->index().Contains(ctx.arg(2)));
  }
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
  t.Add({.name = "vcard", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = VCardCommand,
         .doc = {"vector", "8.0.0", "O(1)", "Returns the number of elements of a vector set.", "key"}});
  t.Add({.name = "vdim", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = VDimCommand,
         .doc = {"vector", "8.0.0", "O(1)", "Returns the number of components of the vectors of a vector set (after REDUCE).", "key"}});
  t.Add({.name = "vemb", .arity = -3, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = VEmbCommand,
         .doc = {"vector", "8.0.0", "O(1)",
                 "Returns the vector stored for an element (approximate after quantisation), or its raw stored form.",
                 "key element [RAW]"}});
  t.Add({.name = "vlinks", .arity = -3, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = VLinksCommand,
         .doc = {"vector", "8.0.0", "O(1)",
                 "Returns the graph neighbours of an element on each HNSW layer, top layer first.",
                 "key element [WITHSCORES]"}});
  t.Add({.name = "vinfo", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = VInfoCommand,
         .doc = {"vector", "8.0.0", "O(1)",
                 "Returns the configuration and size of a vector set and of its HNSW graph.", "key"}});
  t.Add({.name = "vsetattr", .arity = 4, .flags = "write fast self_locking", .acl = "@write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = VSetAttrCommand,
         .doc = {"vector", "8.0.0", "O(1)",
                 "Sets (or, with an empty string, removes) the JSON attributes of an element of a vector set.",
                 "key element json"}});
  t.Add({.name = "vgetattr", .arity = 3, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = VGetAttrCommand,
         .doc = {"vector", "8.0.0", "O(1)", "Returns the JSON attributes of an element of a vector set.", "key element"}});
  t.Add({.name = "vrandmember", .arity = -2, .flags = "readonly self_locking", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = VRandMemberCommand,
         .doc = {"vector", "8.0.0", "O(N) where N is the absolute value of the count argument.",
                 "Returns random elements of a vector set: distinct ones for a positive count, with repeats for a negative one.",
                 "key [count]"}});
  t.Add({.name = "vismember", .arity = 3, .flags = "readonly", .acl = "@read @slow",
         .keys = {KeyAt(1, "RO")}, .handler = VIsMemberCommand,
         .doc = {"vector", "8.2.0", "O(1)", "Tells whether an element belongs to a vector set.", "key element"}});
}

}  // namespace hotkv

// Redis 8 vector-set reads: VCARD VDIM VEMB VLINKS VINFO VGETATTR VRANDMEMBER VISMEMBER
// (the writes and VSIM are in vector_set_family.cc). Replies and errors as Redis 8's
// vector-set module; see docs/vector.md for the deviations (VEMB RAW, VINFO).
//
// All but VRANDMEMBER make O(1)-ish engine calls under the dispatcher's shard lock;
// VRANDMEMBER may walk the whole index, so it is self_locking (vector_common.h).
//
// Edge cases honoured (as Redis): a missing key is VCARD 0, VISMEMBER false, VEMB /
// VGETATTR / VLINKS / VRANDMEMBER nil (VRANDMEMBER with a count: empty array), VINFO a
// null array, and VDIM "ERR key does not exist"; VRANDMEMBER 0 is an empty array whatever
// the key holds.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/vector_common.h"
#include "engine/entry.h"

namespace hotkv {

namespace {

using vector::HnswIndex;
using vector::Quantization;

// The vectorset of a read lookup under the dispatcher's lock (null when missing).
VectorSet* ReadSet(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = LookupRead(ctx, key);
  *wrong_type = !CheckType(ctx, e, ValueType::kVectorSet);
  return e != nullptr && !*wrong_type ? e->As<VectorSetValue>()->set.get() : nullptr;
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

// VEMB RAW: the stored form — quantisation name, the stored bytes (f32: floats, unit
// length for cosine; Q8: int8 codes; binary: the sign bits, component i at bit i%8 of
// byte i/8), the L2 norm of the vector as given, and for Q8 the range the codes stand
// for (code 127 = +range).
void ReplyRawEmbedding(CommandContext& ctx, const VectorSet& set, const vector::RawVector& raw) {
  std::string_view bytes = raw.data;
  if (raw.quant == Quantization::kBinary) {
    // The engine keeps whole 64-bit little-endian words; Redis replies (dim + 7) / 8 bytes.
    bytes = bytes.substr(0, (set.dim() + 7) / 8);
  }
  const bool q8 = raw.quant == Quantization::kQ8;
  ctx.rb().Array(q8 ? 4 : 3);
  ctx.rb().SimpleString(RedisQuantName(raw.quant));
  ctx.rb().Bulk(bytes);
  ctx.rb().Double(raw.norm);
  if (q8) {
    ctx.rb().Double(raw.q8_range);
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
  if (raw) {
    std::optional<vector::RawVector> stored;
    if (set != nullptr) {
      stored = set->index().GetRawVector(ctx.arg(2));
    }
    return stored.has_value() ? ReplyRawEmbedding(ctx, *set, *stored) : ctx.rb().Null();
  }
  std::optional<std::vector<float>> v;
  if (set != nullptr) {
    v = set->index().GetVector(ctx.arg(2));
  }
  if (!v.has_value()) {
    return ctx.rb().Null();
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

void RegisterVectorSetReadCommands(CommandTable& t) {
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

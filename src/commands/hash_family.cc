// Hash commands: HSET HSETNX HMSET HGET HMGET HGETALL HKEYS HVALS HDEL HGETDEL HEXISTS
// HLEN HSTRLEN HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN. Each is a thin wrapper over
// types::HashValue (see its header for the mapping). Field expiry commands live in
// hash_family_expiry.cc; how these commands treat expired fields: hash_common.h.
//
// Edge cases honoured (as Redis): HSET/HMSET with an odd number of field/value arguments
// is an arity error; a hash whose last field is deleted is deleted ("hdel" then "del");
// HINCRBY rejects non-canonical integers in the field ("ERR hash value is not an
// integer") and overflow; HINCRBYFLOAT rejects a NaN/infinite increment ("ERR value is
// NaN or Infinity") and result, computes in long double and formats like INCRBYFLOAT;
// HRANDFIELD's count lies in [-LONG_MAX, LONG_MAX] (±LONG_MAX/2 with WITHVALUES), and with
// WITHVALUES replies a flat array in RESP2 and an array of [field, value] pairs in RESP3;
// HGETALL is a map in RESP3; HSCAN takes MATCH, COUNT and NOVALUES, and a missing key
// answers an empty scan whatever the options.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "commands/hash_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "engine/entry.h"
#include "server/server.h"
#include "types/hash_value.h"
#include "common/random.h"

namespace hotkv {

namespace {

using types::HashValue;

types::EncodingLimits Limits(CommandContext& ctx) { return HashLimits(ctx); }

// A hash for a read that names fields args [first, first + count): lazily expires those
// whose time has come first (hash_common.h). Null when missing (or gone with them).
HashValue* ReadHashFields(CommandContext& ctx, std::string_view key, bool* wrong_type,
                          size_t first, size_t count) {
  return ExpireDueFields(ctx, key, ReadHash(ctx, key, wrong_type), first, count);
}

// HSET key field value [field value ...] / HMSET (same, replies OK).
void HSetGeneric(CommandContext& ctx, bool hmset) {
  if (ctx.argc() % 2 != 0) {
    return ReplyWrongArity(ctx);
  }
  std::string_view key = ctx.arg(1);
  HashValue* hash = HashForWrite(ctx, key);
  if (hash == nullptr) {
    return;
  }
  const types::EncodingLimits limits = Limits(ctx);
  hash->ReserveFor((ctx.argc() - 2) / 2, limits);
  int64_t created = 0;
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    created += hash->Set(ctx.arg(i), ctx.arg(i + 1), limits) ? 1 : 0;
  }
  ctx.KeyModified(key, notify::kHash, "hset");
  ctx.AddDirty(static_cast<int64_t>(ctx.argc() - 2) / 2 - 1);  // Redis: one per pair
  if (hmset) {
    ctx.rb().Ok();
  } else {
    ctx.rb().Integer(created);
  }
}
void HSetCommand(CommandContext& ctx) { HSetGeneric(ctx, false); }
void HMSetCommand(CommandContext& ctx) { HSetGeneric(ctx, true); }

void HSetNxCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash)) {
    return;
  }
  HashValue* existing = ExpireDueFields(ctx, key, e ? e->As<HashValue>() : nullptr, 2, 1);
  if (existing != nullptr && existing->Contains(ctx.arg(2))) {
    return ctx.rb().Integer(0);
  }
  HashValue* hash = HashForWrite(ctx, key);
  hash->SetIfAbsent(ctx.arg(2), ctx.arg(3), Limits(ctx));
  ctx.KeyModified(key, notify::kHash, "hset");
  ctx.rb().Integer(1);
}

void HGetCommand(CommandContext& ctx) {
  bool wrong_type;
  HashValue* hash = ReadHashFields(ctx, ctx.arg(1), &wrong_type, 2, 1);
  if (wrong_type) {
    return;
  }
  std::optional<types::Element> v = hash ? hash->Get(ctx.arg(2)) : std::nullopt;
  if (!v) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(v->view());
}

void HMGetCommand(CommandContext& ctx) {
  bool wrong_type;
  HashValue* hash = ReadHashFields(ctx, ctx.arg(1), &wrong_type, 2, ctx.argc() - 2);
  if (wrong_type) {
    return;
  }
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::optional<types::Element> v = hash ? hash->Get(ctx.arg(i)) : std::nullopt;
    if (v) {
      ctx.rb().Bulk(v->view());
    } else {
      ctx.rb().Null();
    }
  }
}

// HGETALL (fields and values), HKEYS (fields), HVALS (values).
void HGetAllGeneric(CommandContext& ctx, bool fields, bool values) {
  bool wrong_type;
  HashValue* hash = ReadHash(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  size_t n = hash ? hash->size() : 0;
  if (hash != nullptr && hash->HasDueFields(ctx.now_ms())) {
    n = 0;  // expired fields are skipped, not deleted (as Redis)
    hash->ForEachLive(ctx.now_ms(), [&](std::string_view, std::string_view) {
      n++;
      return true;
    });
  }
  ReplyBuilder& rb = ctx.rb();
  if (fields && values) {
    rb.Map(n);
  } else {
    rb.Array(n);
  }
  if (hash == nullptr) {
    return;
  }
  hash->ForEachLive(ctx.now_ms(), [&](std::string_view field, std::string_view value) {
    if (fields) {
      rb.Bulk(field);
    }
    if (values) {
      rb.Bulk(value);
    }
    return true;
  });
}
void HGetAllCommand(CommandContext& ctx) { HGetAllGeneric(ctx, true, true); }
void HKeysCommand(CommandContext& ctx) { HGetAllGeneric(ctx, true, false); }
void HValsCommand(CommandContext& ctx) { HGetAllGeneric(ctx, false, true); }

void HDelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  if (!CheckType(ctx, ref.entry(), ValueType::kHash)) {
    return;
  }
  HashValue* hash = ref.entry()->As<HashValue>();
  int64_t deleted = 0;
  bool key_removed = false;
  for (size_t i = 2; i < ctx.argc(); i++) {
    if (hash->Erase(ctx.arg(i))) {
      deleted++;
      if (hash->empty()) {
        db.Erase(ref);
        key_removed = true;
        break;
      }
    }
  }
  if (deleted > 0) {
    ctx.KeyModified(key, notify::kHash, "hdel");
    ctx.AddDirty(deleted - 1);
    if (key_removed) {
      ctx.Notify(notify::kGeneric, "del", key);
    }
  }
  ctx.rb().Integer(deleted);
}

// HGETDEL key FIELDS numfields field [field ...]
void HGetDelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  if (ref && !CheckType(ctx, ref.entry(), ValueType::kHash)) {
    return;
  }
  if (!ParseTrailingFields(ctx)) {
    return;
  }
  HashValue* hash =
      ExpireDueFields(ctx, key, ref ? ref.entry()->As<HashValue>() : nullptr, 4, ctx.argc() - 4);
  ctx.rb().Array(ctx.argc() - 4);
  std::vector<std::string_view> hdel = {"HDEL", key};  // replayed as the HDEL it did (Redis)
  for (size_t i = 4; i < ctx.argc(); i++) {
    std::optional<types::Element> v = hash ? hash->Get(ctx.arg(i)) : std::nullopt;
    if (!v) {
      ctx.rb().Null();
      continue;
    }
    ctx.rb().Bulk(v->view());  // written before the field (and its bytes) go
    hash->Erase(ctx.arg(i));
    hdel.push_back(ctx.arg(i));
  }
  if (hdel.size() == 2) {
    return;
  }
  ctx.KeyModified(key, notify::kHash, "hdel");
  ctx.PropagateAs(hdel);
  if (hash->empty()) {
    ref = db.Lookup(key);
    db.Erase(ref);
    ctx.Notify(notify::kGeneric, "del", key);
  }
}

void HExistsCommand(CommandContext& ctx) {
  bool wrong_type;
  HashValue* hash = ReadHashFields(ctx, ctx.arg(1), &wrong_type, 2, 1);
  if (!wrong_type) {
    ctx.rb().Integer(hash != nullptr && hash->Contains(ctx.arg(2)) ? 1 : 0);
  }
}

void HLenCommand(CommandContext& ctx) {
  bool wrong_type;
  HashValue* hash = ReadHash(ctx, ctx.arg(1), &wrong_type);
  if (!wrong_type) {
    ctx.rb().Integer(hash ? static_cast<int64_t>(hash->size()) : 0);
  }
}

void HStrLenCommand(CommandContext& ctx) {
  bool wrong_type;
  HashValue* hash = ReadHashFields(ctx, ctx.arg(1), &wrong_type, 2, 1);
  if (!wrong_type) {
    ctx.rb().Integer(hash ? static_cast<int64_t>(hash->ValueLength(ctx.arg(2))) : 0);
  }
}

void HIncrByCommand(CommandContext& ctx) {
  auto incr = ctx.IntArg(3);
  if (!incr) {
    return;
  }
  std::string_view key = ctx.arg(1);
  std::string_view field = ctx.arg(2);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash)) {
    return;
  }
  int64_t value = 0;
  if (HashValue* h = ExpireDueFields(ctx, key, e ? e->As<HashValue>() : nullptr, 2, 1)) {
    if (std::optional<types::Element> old = h->Get(field)) {
      auto v = ParseInt64(old->view());
      if (!v) {
        return ctx.rb().Error("ERR hash value is not an integer");
      }
      value = *v;
    }
  }
  int64_t result;
  if (AddOverflow(value, *incr, &result)) {
    return ctx.rb().Error(errors::kOverflow);
  }
  char buf[kInt64Digits];
  const size_t n = FormatInt64(result, buf);
  HashForWrite(ctx, key)->Set(field, std::string_view(buf, n), Limits(ctx), /*keep_ttl=*/true);
  ctx.KeyModified(key, notify::kHash, "hincrby");
  ctx.rb().Integer(result);
}

void HIncrByFloatCommand(CommandContext& ctx) {
  auto incr = ParseLongDouble(ctx.arg(3));
  if (!incr) {
    return ctx.rb().Error(errors::kNotFloat);
  }
  if (!std::isfinite(*incr)) {
    return ctx.rb().Error("ERR value is NaN or Infinity");
  }
  std::string_view key = ctx.arg(1);
  std::string_view field = ctx.arg(2);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash)) {
    return;
  }
  long double value = 0;
  if (HashValue* h = ExpireDueFields(ctx, key, e ? e->As<HashValue>() : nullptr, 2, 1)) {
    if (std::optional<types::Element> old = h->Get(field)) {
      auto v = ParseLongDouble(old->view());
      if (!v) {
        return ctx.rb().Error("ERR hash value is not a float");
      }
      value = *v;
    }
  }
  const long double result = value + *incr;
  char buf[kLongDoubleChars];
  const size_t n = std::isfinite(result) ? FormatLongDoubleHuman(result, buf, sizeof(buf)) : 0;
  if (n == 0) {
    return ctx.rb().Error("ERR increment would produce NaN or Infinity");
  }
  const std::string_view text(buf, n);
  HashForWrite(ctx, key)->Set(field, text, Limits(ctx), /*keep_ttl=*/true);
  ctx.KeyModified(key, notify::kHash, "hincrbyfloat");
  ctx.PropagateAs({"HSET", key, field, text});  // the value it produced, as Redis
  if (const int64_t at = HashForWrite(ctx, key)->ExpireAt(field); at != 0 && ctx.propagating()) {
    // HSET on replay clears the field's TTL, which HINCRBYFLOAT kept: restore it.
    const std::string ms = std::to_string(at);
    ctx.PropagateAs({"HPEXPIREAT", key, ms, "FIELDS", "1", field});
  }
  ctx.rb().Bulk(text);
}

// The fields of `hash` whose time has not come, copied into *live when some has (rare:
// the active cycle reclaims them soon); null when none is left.
HashValue* LiveFields(CommandContext& ctx, HashValue* hash, HashValue* live) {
  if (hash == nullptr || !hash->HasDueFields(ctx.now_ms())) {
    return hash;
  }
  const types::EncodingLimits limits = Limits(ctx);
  hash->ForEachLive(ctx.now_ms(), [&](std::string_view field, std::string_view value) {
    live->Set(field, value, limits);
    return true;
  });
  return live->empty() ? nullptr : live;
}

// HRANDFIELD key [count [WITHVALUES]]
void HRandFieldCommand(CommandContext& ctx) {
  HashValue live;
  Rng& rng = ThreadRng();
  if (ctx.argc() == 2) {
    bool wrong_type;
    HashValue* hash = LiveFields(ctx, ReadHash(ctx, ctx.arg(1), &wrong_type), &live);
    if (wrong_type) {
      return;
    }
    if (hash == nullptr) {
      return ctx.rb().Null();
    }
    hash->RandomFields(1, rng,
                       [&](std::string_view field, std::string_view) { ctx.rb().Bulk(field); });
    return;
  }
  auto count = ParseRandomCount(ctx, 2);
  if (!count) {
    return;
  }
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !EqualsIgnoreCase(ctx.arg(3), "WITHVALUES"))) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const bool withvalues = ctx.argc() == 4;
  constexpr int64_t kHalf = std::numeric_limits<int64_t>::max() / 2;
  if (withvalues && (*count < -kHalf || *count > kHalf)) {
    return ctx.rb().Error("ERR value is out of range");
  }
  bool wrong_type;
  HashValue* hash = LiveFields(ctx, ReadHash(ctx, ctx.arg(1), &wrong_type), &live);
  if (wrong_type) {
    return;
  }
  if (hash == nullptr || *count == 0) {
    return ctx.rb().EmptyArray();
  }
  ReplyBuilder& rb = ctx.rb();
  // RESP2: one flat array (field, value, ...); RESP3: an array of [field, value] pairs.
  const bool pairs = withvalues && rb.resp3();
  auto emit = [&](std::string_view field, std::string_view value) {
    if (pairs) {
      rb.Array(2);
    }
    rb.Bulk(field);
    if (withvalues) {
      rb.Bulk(value);
    }
  };
  const uint64_t n =
      *count > 0 ? std::min<uint64_t>(*count, hash->size()) : 0 - static_cast<uint64_t>(*count);
  rb.Array(withvalues && !pairs ? n * 2 : n);
  if (*count > 0) {
    hash->RandomFields(*count, rng, emit);
    return;
  }
  // Repeats allowed: emit in chunks so that an absurd count cannot grow the reply forever.
  const size_t start = rb.buffer()->size();
  constexpr uint64_t kChunk = 1000;
  for (uint64_t left = n; left > 0;) {
    const uint64_t chunk = std::min(left, kChunk);
    hash->RandomFields(-static_cast<int64_t>(chunk), rng, emit);
    left -= chunk;
    if (RandomReplyTooLarge(ctx, start)) {
      return;
    }
  }
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
void HScanCommand(CommandContext& ctx) {
  auto cursor = ParseScanCursor(ctx, ctx.arg(2));
  if (!cursor) {
    return;
  }
  bool wrong_type;
  HashValue* hash = ReadHash(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  if (hash == nullptr) {
    rb.Array(2);
    rb.Bulk("0");
    return rb.EmptyArray();
  }
  auto opts = ParseCollectionScanOptions(ctx, 3, ValueType::kHash);
  if (!opts) {
    return;
  }
  std::vector<std::string> items;
  const bool skip_expired = hash->HasDueFields(ctx.now_ms());
  auto collect = [&](std::string_view field, std::string_view value) {
    if (opts->use_pattern && !GlobMatch(opts->pattern, field)) {
      return;
    }
    if (skip_expired && hash->IsExpired(field, ctx.now_ms())) {
      return;
    }
    items.emplace_back(field);
    if (!opts->only_keys) {
      items.emplace_back(value);
    }
  };
  const uint64_t next = hash->Scan(*cursor, static_cast<size_t>(opts->count), collect);
  rb.Array(2);
  rb.Bulk(std::to_string(next));
  rb.Array(items.size());
  for (const std::string& item : items) {
    rb.Bulk(item);
  }
}

}  // namespace

void RegisterHashCommands(CommandTable& t) {
  t.Add({.name = "hset", .arity = -4, .flags = "write denyoom fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = HSetCommand,
         .doc = {"hash", "2.0.0",
                 "O(1) for each field/value pair added, so O(N) to add N field/value pairs when "
                 "the command is called with multiple field/value pairs.",
                 "Sets fields of a hash, creating the key if needed; returns how many fields are "
                 "new.",
                 "key <data: field value> ..."}});
  t.Add({.name = "hsetnx", .arity = 4, .flags = "write denyoom fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = HSetNxCommand,
         .doc = {"hash", "2.0.0", "O(1)",
                 "Sets a field of a hash only if the field is not there yet.",
                 "key field value"}});
  t.Add({.name = "hmset", .arity = -4, .flags = "write denyoom fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = HMSetCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the number of fields being set.",
                 "Sets fields of a hash and replies OK.", "key <data: field value> ...",
                 "deprecated", "4.0.0", "`HSET` with multiple field-value pairs"}});
  t.Add({.name = "hget", .arity = 3, .flags = "readonly fast", .acl = "@read @hash @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HGetCommand,
         .doc = {"hash", "2.0.0", "O(1)", "Returns the value of one field of a hash.",
                 "key field"}});
  t.Add({.name = "hmget", .arity = -3, .flags = "readonly fast", .acl = "@read @hash @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HMGetCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the number of fields being requested.",
                 "Returns the values of several fields of a hash (nil for missing ones).",
                 "key field [field ...]"}});
  t.Add({.name = "hgetall", .arity = 2, .flags = "readonly", .acl = "@read @hash @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HGetAllCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the size of the hash.",
                 "Returns every field and value of a hash.", "key"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "hkeys", .arity = 2, .flags = "readonly", .acl = "@read @hash @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HKeysCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the size of the hash.",
                 "Returns every field name of a hash.", "key"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "hvals", .arity = 2, .flags = "readonly", .acl = "@read @hash @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HValsCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the size of the hash.",
                 "Returns every value of a hash.", "key"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "hdel", .arity = -3, .flags = "write fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = HDelCommand,
         .doc = {"hash", "2.0.0", "O(N) where N is the number of fields to be removed.",
                 "Removes fields from a hash (the key goes with the last one); returns how many "
                 "existed.",
                 "key field [field ...]"}});
  t.Add({.name = "hgetdel", .arity = -5, .flags = "write fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = HGetDelCommand,
         .doc = {"hash", "8.0.0", "O(N) where N is the number of specified fields",
                 "Returns the values of fields of a hash and deletes those fields (the key goes "
                 "with the last one).",
                 "key <fields: FIELDS numfields:integer field [field ...]>"}});
  t.Add({.name = "hexists", .arity = 3, .flags = "readonly fast", .acl = "@read @hash @fast",
         .keys = {KeyAt(1, "RO")}, .handler = HExistsCommand,
         .doc = {"hash", "2.0.0", "O(1)", "Tells whether a hash has a field.", "key field"}});
  t.Add({.name = "hlen", .arity = 2, .flags = "readonly fast", .acl = "@read @hash @fast",
         .keys = {KeyAt(1, "RO")}, .handler = HLenCommand,
         .doc = {"hash", "2.0.0", "O(1)", "Returns the number of fields of a hash.", "key"}});
  t.Add({.name = "hstrlen", .arity = 3, .flags = "readonly fast", .acl = "@read @hash @fast",
         .keys = {KeyAt(1, "RO")}, .handler = HStrLenCommand,
         .doc = {"hash", "3.2.0", "O(1)", "Returns the length of the value of a hash field.",
                 "key field"}});
  t.Add({.name = "hincrby", .arity = 4, .flags = "write denyoom fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = HIncrByCommand,
         .doc = {"hash", "2.0.0", "O(1)",
                 "Adds an integer to the integer value of a hash field (0 if missing).",
                 "key field increment"}});
  t.Add({.name = "hincrbyfloat", .arity = 4, .flags = "write denyoom fast",
         .acl = "@write @hash @fast", .keys = {KeyAt(1, "RW ACCESS UPDATE")},
         .handler = HIncrByFloatCommand,
         .doc = {"hash", "2.6.0", "O(1)",
                 "Adds a floating point number to the numeric value of a hash field.",
                 "key field increment:double"}});
  t.Add({.name = "hrandfield", .arity = -2, .flags = "readonly", .acl = "@read @hash @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HRandFieldCommand,
         .doc = {"hash", "6.2.0",
                 "O(N) where N is the number of fields returned",
                 "Returns random fields of a hash: distinct ones for a positive count, possibly "
                 "repeated ones for a negative count, optionally with their values.",
                 "key [options: count [WITHVALUES]]"},
         .tips = {"nondeterministic_output"}});
  RegisterHashExpiryCommands(t);
  t.Add({.name = "hscan", .arity = -3, .flags = "readonly", .acl = "@read @hash @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = HScanCommand,
         .doc = {"hash", "2.8.0",
                 "O(1) for every call. O(N) for a complete iteration, including enough command "
                 "calls for the cursor to return back to 0. N is the number of elements inside "
                 "the collection.",
                 "Iterates over the fields and values of a hash with a cursor.",
                 "key cursor [MATCH pattern] [COUNT count] [NOVALUES]"},
         .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv

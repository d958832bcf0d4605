// String commands that set and get whole values: GET SET SETNX SETEX PSETEX MGET MSET
// MSETNX GETSET GETDEL GETEX. (APPEND, INCR*, ranges and LCS: string_family_ops.cc.)
//
// Edge cases honoured (as Redis): SET's option conflicts are syntax errors; expiry values
// that are not positive or overflow when converted to an absolute time are "invalid
// expire time"; EXAT/PXAT in the past store nothing and delete a key that was there
// (Redis 8; 7.0 stored, then expired it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/string_common.h"
#include "server/dispatched_slots.h"
#include "server/server.h"

namespace hotkv {

namespace {

// SET key value [NX | XX | IFEQ v | IFNE v | IFDEQ digest | IFDNE digest] [GET]
//     [EX s | PX ms | EXAT ts | PXAT ts-ms | KEEPTTL]
// Option parsing follows Redis 8.8's: NX needs no XX, XX no NX; an IF* condition needs
// neither NX nor XX nor another kind of condition (the same one may repeat, the last value
// counts), yet NX/XX after a condition are taken; an expiry may repeat but not mix.
// Then: the expiry is checked, NX with the key present or XX/IFEQ/IFDEQ with it missing
// answer nil, a condition on a present key checks its type (WRONGTYPE) and the digest's
// length, and a failed condition answers nil. With GET, the old value is the answer
// instead of nil/OK. Redis 8.8 sends GET's value and then the digest error (two replies to
// one command); HotKV sends only the error.
void SetCommand(CommandContext& ctx) {
  bool nx = false, xx = false, get = false;
  ValueCond cond = ValueCond::kNone;
  std::string_view cond_arg;
  ExpireOpt exp;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NX") && !xx) {
      nx = true;
    } else if (EqualsIgnoreCase(a, "XX") && !nx) {
      xx = true;
    } else if (EqualsIgnoreCase(a, "GET")) {
      get = true;
    } else if (auto c = ParseValueCond(a);
               c && !nx && !xx && (cond == ValueCond::kNone || cond == *c) && i + 1 < ctx.argc()) {
      cond = *c;
      cond_arg = ctx.arg(++i);
    } else if (ParseSetExpiry(ctx, &i, &exp) != OptionParse::kOk) {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  int64_t expire_at = 0;
  bool has_expire = exp.kind != ExpireOpt::kNone && exp.kind != ExpireOpt::kKeepTtl;
  if (has_expire) {
    auto ms = ResolveExpire(ctx, exp);
    if (!ms) {
      return;
    }
    expire_at = *ms;
  }
  std::string_view key = ctx.arg(1);
  std::string_view value = ctx.arg(2);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  Entry* old = ref ? ref.entry() : nullptr;
  if (get && old != nullptr && !old->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  const bool needs_key = xx || cond == ValueCond::kIfEq || cond == ValueCond::kIfDeq;
  bool proceed = !((nx && old != nullptr) || (needs_key && old == nullptr));
  if (proceed && old != nullptr && cond != ValueCond::kNone) {
    if (!old->is_string()) {
      return ctx.rb().Error(errors::kWrongType);
    }
    auto pass = CheckValueCond(ctx, cond, cond_arg, old->str());
    if (!pass) {
      return;
    }
    proceed = *pass;
  }
  if (get) {
    if (old != nullptr) {
      ctx.rb().Bulk(old->str());  // written before the value is replaced
    } else {
      ctx.rb().Null();
    }
  }
  if (!proceed) {
    if (!get) {
      ctx.rb().Null();
    }
    return;
  }
  if (has_expire && expire_at <= ctx.now_ms()) [[unlikely]] {
    // As Redis 8 (7.0 stored the value, then expired it: "set", "expire", "expired"): an
    // EXAT/PXAT already past deletes a key that was there ("del", replayed as DEL) and
    // creates none.
    if (old != nullptr) {
      db.Erase(ref);
      ctx.KeyModified(key, notify::kGeneric, "del");
      ctx.PropagateAs({"DEL", key});
    }
    if (!get) {
      ctx.rb().Ok();
    }
    return;
  }
  if (old != nullptr) {
    ctx.KeyOverwritten(key, old->type(), ValueType::kString);
  }
  db.SetString(ref, key, value, exp.kind == ExpireOpt::kKeepTtl);
  ctx.KeyModified(key, notify::kString, "set");
  if (has_expire) {
    db.SetTtl(ref, expire_at);
    ctx.Notify(notify::kGeneric, "expire", key);
    if (ctx.propagating()) {
      // Replayed with the absolute time, as Redis rewrites it (NX/XX/GET dropped).
      const std::string at = Int64ToString(expire_at);
      ctx.PropagateAs({"SET", key, value, "PXAT", at});
    }
  }
  if (!get) {
    ctx.rb().Ok();
  }
}

void GetCommand(CommandContext& ctx) {
  bool wrongtype;
  Entry* e = LookupString(ctx, ctx.arg(1), &wrongtype);
  if (wrongtype) {
    return;
  }
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(e->str());
}

void SetNxCommand(CommandContext& ctx) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(ctx.arg(1));
  if (ref) {
    return ctx.rb().Integer(0);
  }
  db.SetString(ref, ctx.arg(1), ctx.arg(2), false);
  ctx.KeyModified(ctx.arg(1), notify::kString, "set");
  ctx.rb().Integer(1);
}

// SETEX key seconds value / PSETEX key milliseconds value
void SetExGeneric(CommandContext& ctx, bool seconds) {
  ExpireOpt opt{seconds ? ExpireOpt::kEx : ExpireOpt::kPx, ctx.arg(2)};
  auto at = ResolveExpire(ctx, opt);
  if (!at) {
    return;
  }
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(ctx.arg(1));
  if (ref) {
    ctx.KeyOverwritten(ctx.arg(1), ref.entry()->type(), ValueType::kString);
  }
  db.SetString(ref, ctx.arg(1), ctx.arg(3), false);
  db.SetTtl(ref, *at);
  ctx.KeyModified(ctx.arg(1), notify::kString, "set");
  ctx.Notify(notify::kGeneric, "expire", ctx.arg(1));
  if (ctx.propagating()) {
    const std::string ms = Int64ToString(*at);
    ctx.PropagateAs({"SET", ctx.arg(1), ctx.arg(3), "PXAT", ms});
  }
  ctx.rb().Ok();
}
void SetExCommand(CommandContext& ctx) { SetExGeneric(ctx, true); }
void PSetExCommand(CommandContext& ctx) { SetExGeneric(ctx, false); }

void MGetCommand(CommandContext& ctx) {
  ctx.rb().Array(ctx.argc() - 1);
  // Keys go in windows of 16: locate each and prefetch its slot, then its entry, then
  // look them up. Their cache misses (two per key, ~400 ns each on the bench VM)
  // overlap instead of queueing one after another.
  constexpr size_t kWindow = 16;
  uint32_t shards[kWindow];
  uint64_t hashes[kWindow];
  Database& db = ctx.db();
  for (size_t base = 1; base < ctx.argc(); base += kWindow) {
    const size_t n = std::min(kWindow, ctx.argc() - base);
    for (size_t i = 0; i < n; i++) {
      // The dispatcher's slot of the key (computed to lock its shard), when it kept it.
      const uint32_t slot = DispatchedKeySlot(ctx.args(), base + i);
      if (slot != kNoSlot) {
        shards[i] = Keyspace::ShardOfSlot(slot);
        hashes[i] = HashKey(ctx.arg(base + i));
      } else {
        LocateKey(ctx.arg(base + i), &shards[i], &hashes[i]);
      }
      db.PrefetchSlot(shards[i], hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
      db.PrefetchEntry(shards[i], hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
      Entry* e = LookupRead(ctx, ctx.arg(base + i), shards[i], hashes[i]);
      if (e == nullptr || !e->is_string()) {
        ctx.rb().Null();
      } else {
        ctx.rb().Bulk(e->str());
      }
    }
  }
}

void MSetGeneric(CommandContext& ctx, bool nx) {
  if (ctx.argc() % 2 == 0) {
    return ctx.rb().Error("ERR wrong number of arguments for '" + ctx.command()->full_name +
                          "' command");
  }
  Database& db = ctx.db();
  if (nx) {
    for (size_t i = 1; i < ctx.argc(); i += 2) {
      if (db.Find(ctx.arg(i)) != nullptr) {
        return ctx.rb().Integer(0);
      }
    }
  }
  // Keys in windows of 16, as MGET: locate each once (its slot too, for an insert's
  // per-slot count) and prefetch its table slot, then its entry, so the cache misses of
  // the window overlap; then set them in order (a key given twice ends with its last value).
  constexpr size_t kWindow = 16;
  uint32_t shards[kWindow], slots[kWindow];
  uint64_t hashes[kWindow];
  const size_t pairs = (ctx.argc() - 1) / 2;
  for (size_t base = 0; base < pairs; base += kWindow) {
    const size_t n = std::min(kWindow, pairs - base);
    for (size_t i = 0; i < n; i++) {
      const size_t k = 1 + 2 * (base + i);
      slots[i] = DispatchedKeySlot(ctx.args(), k);  // as MGET
      if (slots[i] != kNoSlot) {
        shards[i] = Keyspace::ShardOfSlot(slots[i]);
        hashes[i] = HashKey(ctx.arg(k));
      } else {
        LocateKey(ctx.arg(k), &shards[i], &hashes[i], &slots[i]);
      }
      db.PrefetchSlot(shards[i], hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
      db.PrefetchEntry(shards[i], hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
      const size_t k = 1 + 2 * (base + i);
      std::string_view key = ctx.arg(k);
      KeyRef ref = db.Lookup(key, shards[i], hashes[i], slots[i]);
      if (ref) {
        ctx.KeyOverwritten(key, ref.entry()->type(), ValueType::kString);
      }
      db.SetString(ref, key, ctx.arg(k + 1), false);
      ctx.KeyModified(key, notify::kString, "set");
    }
  }
  if (nx) {
    ctx.rb().Integer(1);
  } else {
    ctx.rb().Ok();
  }
}
void MSetCommand(CommandContext& ctx) { MSetGeneric(ctx, false); }
void MSetNxCommand(CommandContext& ctx) { MSetGeneric(ctx, true); }

void GetSetCommand(CommandContext& ctx) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(ctx.arg(1));
  if (ref && !ref.entry()->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  if (ref) {
    ctx.rb().Bulk(ref.entry()->str());
    ctx.KeyOverwritten(ctx.arg(1), ValueType::kString, ValueType::kString);
  } else {
    ctx.rb().Null();
  }
  db.SetString(ref, ctx.arg(1), ctx.arg(2), false);
  ctx.KeyModified(ctx.arg(1), notify::kString, "set");
}

void GetDelCommand(CommandContext& ctx) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(ctx.arg(1));
  ctx.CountLookup(static_cast<bool>(ref));
  if (!ref) {
    return ctx.rb().Null();
  }
  if (!ref.entry()->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  ctx.rb().Bulk(ref.entry()->str());
  db.Erase(ref);
  ctx.KeyModified(ctx.arg(1), notify::kGeneric, "del");
}

// GETEX key [EX s | PX ms | EXAT ts | PXAT ts-ms | PERSIST]
// As SET's, an option may repeat (the last value counts) but not mix with another.
void GetExCommand(CommandContext& ctx) {
  ExpireOpt exp;
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "PERSIST") &&
        (exp.kind == ExpireOpt::kNone || exp.kind == ExpireOpt::kPersist)) {
      exp.kind = ExpireOpt::kPersist;
    } else if (EqualsIgnoreCase(a, "KEEPTTL") || exp.kind == ExpireOpt::kPersist ||
               ParseSetExpiry(ctx, &i, &exp) != OptionParse::kOk) {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(ctx.arg(1));
  ctx.CountLookup(static_cast<bool>(ref));
  if (!ref) {
    return ctx.rb().Null();
  }
  Entry* e = ref.entry();
  if (!e->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  // As Redis: the expiry's value is checked only for a string that exists (a missing
  // key answers nil, another type WRONGTYPE, whatever the value).
  int64_t at = 0;
  if (exp.kind != ExpireOpt::kNone && exp.kind != ExpireOpt::kPersist) {
    auto ms = ResolveExpire(ctx, exp);
    if (!ms) {
      return;
    }
    at = *ms;
  }
  ctx.TouchEntry(e);
  ctx.rb().Bulk(e->str());
  if (exp.kind == ExpireOpt::kPersist) {
    if (db.ClearTtl(ref)) {
      ctx.KeyModified(ctx.arg(1), notify::kGeneric, "persist");
      ctx.PropagateAs({"PERSIST", ctx.arg(1)});
    }
  } else if (exp.kind != ExpireOpt::kNone) {
    if (at <= ctx.now_ms()) {
      db.Erase(ref);
      ctx.KeyModified(ctx.arg(1), notify::kGeneric, "del");
      ctx.PropagateAs({"DEL", ctx.arg(1)});
    } else {
      db.SetTtl(ref, at);
      ctx.KeyModified(ctx.arg(1), notify::kGeneric, "expire");
      if (ctx.propagating()) {
        const std::string ms = Int64ToString(at);
        ctx.PropagateAs({"PEXPIREAT", ctx.arg(1), ms});
      }
    }
  }
}

}  // namespace

void RegisterStringCommands(CommandTable& t) {
  t.Add({.name = "get", .arity = 2, .flags = "readonly fast", .acl = "@read @string @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetCommand,
         .doc = {"string", "1.0.0", "O(1)", "Returns the string value of a key.", "key"}});
  t.Add({.name = "set", .arity = -3, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyAt(1, "RW ACCESS UPDATE VARIABLE_FLAGS")}, .handler = SetCommand,
         .doc = {"string", "1.0.0", "O(1)",
                 "Stores a string value under a key, replacing any value of any type; "
                 "optionally only if the key exists or not or its value (or digest) matches, with "
                 "an expiry, returning the old value.",
                 "key value [condition: NX | XX | IFEQ ifeq-value | IFNE ifne-value | IFDEQ "
                 "ifdeq-digest:integer | IFDNE ifdne-digest:integer] [GET] [expiration: EX seconds | PX milliseconds | "
                 "EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]"}});
  t.Add({.name = "setnx", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "OW INSERT")}, .handler = SetNxCommand,
         .doc = {"string", "1.0.0", "O(1)", "Stores a value only when the key does not exist yet.",
                 "key value", "deprecated", "2.6.12", "`SET` with the `NX` argument"}});
  t.Add({.name = "setex", .arity = 4, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyAt(1, "OW UPDATE")}, .handler = SetExCommand,
         .doc = {"string", "2.0.0", "O(1)", "Stores a value with a time to live in seconds.",
                 "key seconds value", "deprecated", "2.6.12", "`SET` with the `EX` argument"}});
  t.Add({.name = "psetex", .arity = 4, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyAt(1, "OW UPDATE")}, .handler = PSetExCommand,
         .doc = {"string", "2.6.0", "O(1)", "Stores a value with a time to live in milliseconds.",
                 "key milliseconds value", "deprecated", "2.6.12", "`SET` with the `PX` argument"}});
  t.Add({.name = "mget", .arity = -2, .flags = "readonly fast", .acl = "@read @string @fast",
         .keys = {KeyRange(1, -1, 1, "RO ACCESS")}, .handler = MGetCommand,
         .doc = {"string", "1.0.0", "O(N) where N is the number of keys to retrieve.",
                 "Returns the values of several keys; nil for missing or non-string keys.", "key [key ...]"},
         .tips = {"request_policy:multi_shard"}});
  t.Add({.name = "mset", .arity = -3, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyRange(1, -1, 2, "OW UPDATE")}, .handler = MSetCommand,
         .doc = {"string", "1.0.1", "O(N) where N is the number of keys to set.",
                 "Sets several keys at once, atomically.", "<data: key value> ..."},
         .tips = {"request_policy:multi_shard", "response_policy:all_succeeded"}});
  t.Add({.name = "msetnx", .arity = -3, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyRange(1, -1, 2, "OW INSERT")}, .handler = MSetNxCommand,
         .doc = {"string", "1.0.1", "O(N) where N is the number of keys to set.",
                 "Sets several keys only if none of them exists.", "<data: key value> ..."}});
  t.Add({.name = "getset", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = GetSetCommand,
         .doc = {"string", "1.0.0", "O(1)", "Sets a value and returns the previous one.",
                 "key value", "deprecated", "6.2.0", "`SET` with the `!GET` argument"}});
  t.Add({.name = "getdel", .arity = 2, .flags = "write fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = GetDelCommand,
         .doc = {"string", "6.2.0", "O(1)", "Returns a string value and deletes its key.", "key"}});
  t.Add({.name = "getex", .arity = -2, .flags = "write fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = GetExCommand,
         .doc = {"string", "6.2.0", "O(1)", "Returns a string value and changes or removes its expiry.",
                 "key [expiration: EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT "
                 "unix-time-milliseconds | PERSIST]"}});
}

}  // namespace hotkv

// Hash field expiry (Redis 7.4 / 8.0): HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT, HTTL HPTTL
// HEXPIRETIME HPEXPIRETIME, HPERSIST, HGETEX, HSETEX. The TTLs live in the hash
// (types::HashValue, field_ttls.h); lazy and active expiry: hash_common.h.
//
// Edge cases honoured (checked against Redis 8.8):
// - Per-field reply codes: -2 no such field (or key), 0 NX/XX/GT/LT condition not met,
//   1 set, 2 deleted because the time is not in the future; HTTL & co.: -2 missing (or
//   expired), -1 no TTL; HPERSIST: -2 / -1 / 1. A field without TTL fails XX and GT and
//   passes NX and LT. HTTL rounds up to whole seconds.
// - Times: negative -> "invalid expire time, must be >= 0"; past 2^46 - 1 ms (absolute,
//   after adding the current time) or overflowing -> "invalid expire time in '<cmd>'".
// - HEXPIRE's `FIELDS numfields field...` may sit anywhere after the time, the condition
//   too; HTTL/HPERSIST/HGETDEL need FIELDS right after the key and exactly numfields
//   fields. WRONGTYPE comes before argument errors for the HEXPIRE family and HTTL.
// - Events: "hexpire", "hpersist", "hdel" (+ "del" when the key goes), HSETEX "hset"
//   then "hexpire"/"hdel". Write stream: HPEXPIREAT key <abs ms> [cond] FIELDS ... for
//   the fields set, HDEL for the fields deleted, HGETEX as HPERSIST/HPEXPIREAT/HDEL,
//   HSETEX with a time as HSETEX ... PXAT <abs ms> (or HDEL when the time has passed).
#include <bit>
#include <string>
#include <vector>

#include "commands/hash_common.h"
#include "commands/helpers.h"
#include "engine/entry.h"

namespace hotkv {

namespace {

using types::HashValue;

enum Cond : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

std::optional<unsigned> CondFlag(std::string_view a) {
  if (EqualsIgnoreCase(a, "NX")) return kNx;
  if (EqualsIgnoreCase(a, "XX")) return kXx;
  if (EqualsIgnoreCase(a, "GT")) return kGt;
  if (EqualsIgnoreCase(a, "LT")) return kLt;
  return std::nullopt;
}

// A parsed `FIELDS numfields field ...` block: the first field's argument index, count.
struct FieldsBlock {
  size_t first = 0;
  size_t count = 0;
};

// Absolute expiry in ms of `v` (already parsed, >= 0) given in seconds (`seconds`) and
// relative to now (`relative`); nullopt past HashValue::kMaxExpireMs or on overflow.
std::optional<int64_t> AbsoluteMs(CommandContext& ctx, int64_t v, bool seconds, bool relative) {
  int64_t ms = v;
  if (seconds && __builtin_mul_overflow(v, 1000, &ms)) {
    return std::nullopt;
  }
  if (relative && AddOverflow(ms, ctx.now_ms(), &ms)) {
    return std::nullopt;
  }
  if (ms > HashValue::kMaxExpireMs) {
    return std::nullopt;
  }
  return ms;
}

// Parses the time argument at `i`; replies and returns nullopt on error.
std::optional<int64_t> ParseTime(CommandContext& ctx, std::string_view arg, bool seconds,
                                 bool relative) {
  auto v = ParseInt64(arg);
  if (!v) {
    ctx.rb().Error(errors::kNotInteger);
    return std::nullopt;
  }
  if (*v < 0) {
    ctx.rb().Error("ERR invalid expire time, must be >= 0");
    return std::nullopt;
  }
  auto ms = AbsoluteMs(ctx, *v, seconds, relative);
  if (!ms) {
    ReplyInvalidExpire(ctx);
  }
  return ms;
}

// Deletes the key of `hash` once the command emptied it ("del").
void DeleteIfEmptied(CommandContext& ctx, std::string_view key, const HashValue* hash) {
  if (hash->empty()) {
    KeyRef ref = ctx.db().Lookup(key);
    DeleteIfEmpty(ctx, ref, key, true);
  }
}

// Records the fields a command deleted: "hdel" event, HDEL in the write stream, the key
// removed with its last field.
void FieldsDeleted(CommandContext& ctx, std::string_view key, const HashValue* hash,
                   const std::vector<std::string_view>& fields) {
  ctx.KeyModified(key, notify::kHash, "hdel");
  if (ctx.propagating()) {
    std::vector<std::string_view> args = {"HDEL", key};
    args.insert(args.end(), fields.begin(), fields.end());
    ctx.PropagateAs(args);
  }
  DeleteIfEmptied(ctx, key, hash);
}

// Gives existing `fields` the expiry at_ms (in the future): "hexpire" event, the key
// registered for the active cycle.
void SetFieldsExpiry(CommandContext& ctx, std::string_view key, HashValue* hash,
                     const std::vector<std::string_view>& fields, int64_t at_ms) {
  for (std::string_view f : fields) {
    hash->SetExpireAt(f, at_ms);
  }
  ctx.db().NoteFieldTtls(key);
  ctx.KeyModified(key, notify::kHash, "hexpire");
}

// HEXPIRE key seconds [NX|XX|GT|LT] FIELDS numfields field ... (and the P / AT forms).
void HExpireGeneric(CommandContext& ctx, bool seconds, bool relative) {
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  if (!CheckType(ctx, ref ? ref.entry() : nullptr, ValueType::kHash)) {
    return;
  }
  auto at = ParseTime(ctx, ctx.arg(2), seconds, relative);
  if (!at) {
    return;
  }
  FieldsBlock fields;
  unsigned cond = 0;
  std::string_view cond_arg;
  for (size_t i = 3; i < ctx.argc();) {
    if (EqualsIgnoreCase(ctx.arg(i), "FIELDS")) {
      if (fields.count != 0) {
        return ctx.rb().Error("ERR FIELDS keyword specified multiple times");
      }
      if (i + 2 >= ctx.argc()) {
        return ctx.rb().Error("ERR FIELDS requires at least numfields and one field argument");
      }
      auto n = ParseInt64(ctx.arg(i + 1));
      if (!n || *n < 1) {
        return ctx.rb().Error("ERR Parameter `numFields` should be greater than 0");
      }
      if (static_cast<uint64_t>(*n) > ctx.argc() - (i + 2)) {
        return ctx.rb().Error("ERR wrong number of arguments");
      }
      fields = {i + 2, static_cast<size_t>(*n)};
      i += 2 + fields.count;
    } else if (auto flag = CondFlag(ctx.arg(i))) {
      cond |= *flag;
      cond_arg = ctx.arg(i);
      i++;
    } else {
      return ctx.rb().Error("ERR unknown argument: " + std::string(ctx.arg(i)));
    }
  }
  if (fields.count == 0) {
    return ctx.rb().Error("ERR missing FIELDS argument");
  }
  if (std::popcount(cond) > 1) {
    return ctx.rb().Error("ERR Multiple condition flags specified");
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(fields.count);
  if (!ref) {
    for (size_t i = 0; i < fields.count; i++) {
      rb.Integer(-2);
    }
    return;
  }
  auto* hash = ref.entry()->As<HashValue>();
  hash->EnableFieldTtls();  // "listpackex" from now on, whatever changes (as Redis)
  std::vector<std::string_view> set, deleted;
  for (size_t i = fields.first; i < fields.first + fields.count; i++) {
    const std::string_view field = ctx.arg(i);
    if (!hash->Contains(field)) {
      rb.Integer(-2);
      continue;
    }
    const int64_t prev = hash->ExpireAt(field);  // may have passed: still counts (Redis)
    const bool fail = ((cond & kNx) && prev != 0) || ((cond & kXx) && prev == 0) ||
                      ((cond & kGt) && (prev == 0 || prev >= *at)) ||
                      ((cond & kLt) && prev != 0 && prev <= *at);
    if (fail) {
      rb.Integer(0);
    } else if (*at <= ctx.now_ms()) {
      hash->Erase(field);
      deleted.push_back(field);
      rb.Integer(2);
    } else {
      hash->SetExpireAt(field, *at);
      set.push_back(field);
      rb.Integer(1);
    }
  }
  ctx.PreventPropagation();  // what changed is recorded below
  if (!set.empty()) {
    ctx.db().NoteFieldTtls(key);
    ctx.KeyModified(key, notify::kHash, "hexpire");
    if (ctx.propagating()) {
      const std::string ms = std::to_string(*at), n = std::to_string(set.size());
      std::vector<std::string_view> args = {"HPEXPIREAT", key, ms};
      if (cond != 0) {
        args.push_back(cond_arg);
      }
      args.push_back("FIELDS");
      args.push_back(n);
      args.insert(args.end(), set.begin(), set.end());
      ctx.PropagateAs(args);
    }
  }
  if (!deleted.empty()) {
    FieldsDeleted(ctx, key, hash, deleted);
  }
}
void HExpireCommand(CommandContext& ctx) { HExpireGeneric(ctx, true, true); }
void HPExpireCommand(CommandContext& ctx) { HExpireGeneric(ctx, false, true); }
void HExpireAtCommand(CommandContext& ctx) { HExpireGeneric(ctx, true, false); }
void HPExpireAtCommand(CommandContext& ctx) { HExpireGeneric(ctx, false, false); }

enum class TtlReply { kTtl, kPTtl, kExpireTime, kPExpireTime };

// HTTL key FIELDS numfields field ... (and HPTTL, HEXPIRETIME, HPEXPIRETIME).
void HTtlGeneric(CommandContext& ctx, TtlReply what) {
  bool wrong_type;
  HashValue* hash = ReadHash(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type || !ParseTrailingFields(ctx)) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(ctx.argc() - 4);
  const int64_t now = ctx.now_ms();
  for (size_t i = 4; i < ctx.argc(); i++) {
    const std::string_view field = ctx.arg(i);
    if (hash == nullptr || !hash->Contains(field) || hash->IsExpired(field, now)) {
      rb.Integer(-2);
      continue;
    }
    const int64_t at = hash->ExpireAt(field);
    if (at == 0) {
      rb.Integer(-1);
      continue;
    }
    switch (what) {
      case TtlReply::kTtl: rb.Integer((at - now + 999) / 1000); break;
      case TtlReply::kPTtl: rb.Integer(at - now); break;
      case TtlReply::kExpireTime: rb.Integer(at / 1000); break;
      case TtlReply::kPExpireTime: rb.Integer(at); break;
    }
  }
}
void HTtlCommand(CommandContext& ctx) { HTtlGeneric(ctx, TtlReply::kTtl); }
void HPTtlCommand(CommandContext& ctx) { HTtlGeneric(ctx, TtlReply::kPTtl); }
void HExpireTimeCommand(CommandContext& ctx) { HTtlGeneric(ctx, TtlReply::kExpireTime); }
void HPExpireTimeCommand(CommandContext& ctx) { HTtlGeneric(ctx, TtlReply::kPExpireTime); }

// HPERSIST key FIELDS numfields field ...
void HPersistCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash) || !ParseTrailingFields(ctx)) {
    return;
  }
  HashValue* hash = e ? e->As<HashValue>() : nullptr;
  ReplyBuilder& rb = ctx.rb();
  rb.Array(ctx.argc() - 4);
  bool persisted = false;
  for (size_t i = 4; i < ctx.argc(); i++) {
    const std::string_view field = ctx.arg(i);
    if (hash == nullptr || !hash->Contains(field) || hash->IsExpired(field, ctx.now_ms())) {
      rb.Integer(-2);
    } else if (hash->Persist(field)) {
      persisted = true;
      rb.Integer(1);
    } else {
      rb.Integer(-1);
    }
  }
  if (persisted) {
    ctx.KeyModified(key, notify::kHash, "hpersist");
  }
}

// The options of HGETEX / HSETEX: [FNX|FXX] (HSETEX), one of EX PX EXAT PXAT and
// PERSIST (HGETEX) or KEEPTTL (HSETEX), and the FIELDS block, in any order.
struct ExOptions {
  FieldsBlock fields;
  bool fnx = false, fxx = false;
  bool persist = false, keepttl = false;
  std::optional<int64_t> at;  // absolute ms
};

std::optional<ExOptions> ParseExOptions(CommandContext& ctx, bool setex) {
  ExOptions o;
  const size_t per_field = setex ? 2 : 1;
  const char* only_one = setex
                             ? "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be "
                               "specified"
                             : "ERR Only one of EX, PX, EXAT, PXAT or PERSIST arguments can be "
                               "specified";
  bool expiration = false;
  auto fail = [&](std::string_view msg) -> std::optional<ExOptions> {
    ctx.rb().Error(msg);
    return std::nullopt;
  };
  for (size_t i = 2; i < ctx.argc();) {
    const std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "FIELDS")) {
      if (o.fields.count != 0) {
        return fail("ERR FIELDS keyword specified multiple times");
      }
      auto n = i + 1 < ctx.argc() ? ParseInt64(ctx.arg(i + 1)) : std::nullopt;
      if (!n || *n < 1 || static_cast<uint64_t>(*n) > ctx.argc()) {
        return fail("ERR invalid number of fields");
      }
      if (static_cast<uint64_t>(*n) * per_field > ctx.argc() - (i + 2)) {
        return fail("ERR wrong number of arguments");
      }
      o.fields = {i + 2, static_cast<size_t>(*n)};
      i += 2 + o.fields.count * per_field;
      continue;
    }
    if (setex && (EqualsIgnoreCase(a, "FNX") || EqualsIgnoreCase(a, "FXX"))) {
      if (o.fnx || o.fxx) {
        return fail("ERR Only one of FXX or FNX arguments can be specified");
      }
      (EqualsIgnoreCase(a, "FNX") ? o.fnx : o.fxx) = true;
      i++;
      continue;
    }
    const bool ex = EqualsIgnoreCase(a, "EX"), px = EqualsIgnoreCase(a, "PX");
    const bool exat = EqualsIgnoreCase(a, "EXAT"), pxat = EqualsIgnoreCase(a, "PXAT");
    const bool flag = setex ? EqualsIgnoreCase(a, "KEEPTTL") : EqualsIgnoreCase(a, "PERSIST");
    if (!ex && !px && !exat && !pxat && !flag) {
      return fail("ERR unknown argument: " + std::string(a));
    }
    if (expiration) {
      return fail(only_one);
    }
    expiration = true;
    if (flag) {
      (setex ? o.keepttl : o.persist) = true;
      i++;
      continue;
    }
    if (i + 1 >= ctx.argc()) {
      return fail(errors::kNotInteger);
    }
    o.at = ParseTime(ctx, ctx.arg(i + 1), ex || exat, ex || px);
    if (!o.at) {
      return std::nullopt;
    }
    i += 2;
  }
  if (o.fields.count == 0) {
    return fail("ERR missing FIELDS argument");
  }
  return o;
}

// HGETEX key [EX s | PX ms | EXAT t | PXAT t | PERSIST] FIELDS numfields field ...
void HGetExCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash)) {
    return;
  }
  auto o = ParseExOptions(ctx, false);
  if (!o) {
    return;
  }
  const size_t first = o->fields.first, n = o->fields.count;
  if (e != nullptr) {
    ctx.TouchEntry(e);
  }
  HashValue* hash = ExpireDueFields(ctx, key, e ? e->As<HashValue>() : nullptr, first, n);
  const bool changes = o->persist || o->at;
  if (hash != nullptr && changes) {
    hash->EnableFieldTtls();  // "listpackex" from now on (as Redis)
  }
  // A time already past deletes each field once its value is in the reply (so a repeated
  // field reads nil the second time, as in Redis).
  const bool remove = o->at && *o->at <= ctx.now_ms();
  ReplyBuilder& rb = ctx.rb();
  rb.Array(n);
  std::vector<std::string_view> present;
  for (size_t i = first; i < first + n; i++) {
    std::optional<types::Element> v = hash ? hash->Get(ctx.arg(i)) : std::nullopt;
    if (v) {
      rb.Bulk(v->view());
      present.push_back(ctx.arg(i));
      if (remove) {
        hash->Erase(ctx.arg(i));
      }
    } else {
      rb.Null();
    }
  }
  ctx.PreventPropagation();  // recorded below as the change it made, if any
  if (present.empty() || !changes) {
    return;
  }
  const std::string count = std::to_string(n);
  auto propagate = [&](std::vector<std::string_view> args) {
    args.push_back("FIELDS");
    args.push_back(count);
    for (size_t i = first; i < first + n; i++) {
      args.push_back(ctx.arg(i));
    }
    ctx.PropagateAs(args);
  };
  if (o->persist) {
    bool persisted = false;
    for (std::string_view f : present) {
      persisted |= hash->Persist(f);
    }
    if (persisted) {
      ctx.KeyModified(key, notify::kHash, "hpersist");
      propagate({"HPERSIST", key});
    }
    return;
  }
  if (remove) {
    FieldsDeleted(ctx, key, hash, present);
    return;
  }
  SetFieldsExpiry(ctx, key, hash, present, *o->at);
  const std::string ms = std::to_string(*o->at);
  propagate({"HPEXPIREAT", key, ms});
}

// HSETEX key [FNX|FXX] [EX s | PX ms | EXAT t | PXAT t | KEEPTTL] FIELDS numfields
// field value ...
void HSetExCommand(CommandContext& ctx) {
  auto o = ParseExOptions(ctx, true);
  if (!o) {
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db().Find(key);
  if (!CheckType(ctx, e, ValueType::kHash)) {
    return;
  }
  const size_t first = o->fields.first, n = o->fields.count;
  HashValue* existing = e ? e->As<HashValue>() : nullptr;
  if (o->fnx || o->fxx) {
    // Field by field, as Redis: an expired field is deleted and counts as absent; the
    // check stops at the first field that fails it (later ones are not touched).
    for (size_t i = first; i < first + 2 * n; i += 2) {
      existing = ExpireDueFields(ctx, key, existing, i, 1);
      const bool has = existing != nullptr && existing->Contains(ctx.arg(i));
      if (has == o->fnx) {
        return ctx.rb().Integer(0);
      }
    }
  }
  // Otherwise an expired field is overwritten like HSET does, and KEEPTTL keeps even a
  // passed TTL (the field stays expired), as in Redis.
  HashValue* hash = HashForWrite(ctx, key);
  const types::EncodingLimits limits = HashLimits(ctx);
  hash->ReserveFor(n, limits);
  for (size_t i = first; i < first + 2 * n; i += 2) {
    hash->Set(ctx.arg(i), ctx.arg(i + 1), limits, o->keepttl);
  }
  ctx.KeyModified(key, notify::kHash, "hset");
  ctx.rb().Integer(1);
  if (!o->at) {
    return;  // recorded as it ran
  }
  std::vector<std::string_view> fields;
  for (size_t i = first; i < first + 2 * n; i += 2) {
    fields.push_back(ctx.arg(i));
  }
  ctx.PreventPropagation();
  hash->EnableFieldTtls();  // "listpackex" even when the time has passed (as Redis)
  if (*o->at <= ctx.now_ms()) {
    for (std::string_view f : fields) {
      hash->Erase(f);
    }
    FieldsDeleted(ctx, key, hash, fields);
    return;
  }
  SetFieldsExpiry(ctx, key, hash, fields, *o->at);
  if (ctx.propagating()) {
    const std::string ms = std::to_string(*o->at), count = std::to_string(n);
    std::vector<std::string_view> args = {"HSETEX", key, "PXAT", ms, "FIELDS", count};
    args.insert(args.end(), ctx.args().begin() + first, ctx.args().begin() + first + 2 * n);
    ctx.PropagateAs(args);
  }
}

KeySpec GetExKeySpec() {
  KeySpec k = KeyAt(1, "RW ACCESS UPDATE");
  k.notes = "RW and UPDATE because it changes the TTL";
  return k;
}

}  // namespace

void RegisterHashExpiryCommands(CommandTable& t) {
  const std::string kFields = " <fields: FIELDS numfields:integer field [field ...]>";
  const std::string kCond = " [condition: NX | XX | GT | LT]";
  struct Expire {
    const char* name;
    CommandHandler handler;
    const char* arg;
    const char* summary;
  };
  const Expire kExpires[] = {
      {"hexpire", HExpireCommand, "seconds:integer",
       "Sets the time to live of hash fields in seconds."},
      {"hpexpire", HPExpireCommand, "milliseconds:integer",
       "Sets the time to live of hash fields in milliseconds."},
      {"hexpireat", HExpireAtCommand, "unix-time-seconds",
       "Sets the expiry of hash fields as a Unix time in seconds."},
      {"hpexpireat", HPExpireAtCommand, "unix-time-milliseconds",
       "Sets the expiry of hash fields as a Unix time in milliseconds."},
  };
  for (const Expire& x : kExpires) {
    t.Add({.name = x.name, .arity = -6, .flags = "write fast", .acl = "@write @hash @fast",
           .keys = {KeyAt(1, "RW UPDATE")}, .handler = x.handler,
           .doc = {"hash", "7.4.0", "O(N) where N is the number of specified fields", x.summary,
                   std::string("key ") + x.arg + kCond + kFields}});
  }
  struct Ttl {
    const char* name;
    CommandHandler handler;
    const char* summary;
    bool nondeterministic;
  };
  const Ttl kTtls[] = {
      {"httl", HTtlCommand, "Returns the time to live of hash fields in seconds.", true},
      {"hpttl", HPTtlCommand, "Returns the time to live of hash fields in milliseconds.", true},
      {"hexpiretime", HExpireTimeCommand,
       "Returns the expiry of hash fields as a Unix time in seconds.", false},
      {"hpexpiretime", HPExpireTimeCommand,
       "Returns the expiry of hash fields as a Unix time in milliseconds.", false},
  };
  for (const Ttl& x : kTtls) {
    CommandDef spec{.name = x.name, .arity = -5, .flags = "readonly fast",
                     .acl = "@read @hash @fast", .keys = {KeyAt(1, "RO ACCESS")},
                     .handler = x.handler,
                     .doc = {"hash", "7.4.0", "O(N) where N is the number of specified fields",
                             x.summary, "key" + kFields}};
    if (x.nondeterministic) {
      spec.tips = {"nondeterministic_output"};
    }
    t.Add(std::move(spec));
  }
  t.Add({.name = "hpersist", .arity = -5, .flags = "write fast", .acl = "@write @hash @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = HPersistCommand,
         .doc = {"hash", "7.4.0", "O(N) where N is the number of specified fields",
                 "Removes the time to live of hash fields.", "key" + kFields}});
  t.Add({.name = "hgetex", .arity = -5, .flags = "write fast", .acl = "@write @hash @fast",
         .keys = {GetExKeySpec()}, .handler = HGetExCommand,
         .doc = {"hash", "8.0.0", "O(N) where N is the number of specified fields",
                 "Returns the values of hash fields and optionally sets or removes their expiry.",
                 "key [expiration: EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT "
                 "unix-time-milliseconds | PERSIST]" +
                     kFields}});
  t.Add({.name = "hsetex", .arity = -6, .flags = "write denyoom fast",
         .acl = "@write @hash @fast", .keys = {KeyAt(1, "RW UPDATE")}, .handler = HSetExCommand,
         .doc = {"hash", "8.0.0", "O(N) where N is the number of fields being set.",
                 "Sets hash fields, optionally only if none or all exist, and optionally their "
                 "expiry.",
                 "key [condition: FNX | FXX] [expiration: EX seconds | PX milliseconds | EXAT "
                 "unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] <fields: FIELDS "
                 "numfields:integer <data: field value> ...>"}});
}

}  // namespace hotkv

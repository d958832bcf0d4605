// Redis 8.4's string and key additions: DIGEST, DELEX, MSETEX. (SET's IFEQ/IFNE/IFDEQ/
// IFDNE live with SET in string_family.cc; the conditions and the digest are shared in
// string_common.h.)
//
// Edge cases honoured (as Redis 8.8):
// - DIGEST: the XXH3-64 of a string value as 16 lower-case hex digits; nil for a missing
//   key, WRONGTYPE for another type.
// - DELEX key: DEL of one key of any type. DELEX key IFEQ|IFNE|IFDEQ|IFDNE arg: 0 for a
//   missing key (before anything is checked), then "ERR Key should be of string type if
//   conditions are specified", then "ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or
//   IFDNE", then a digest not 16 characters long; 1 when the key was deleted ("del").
//   Any other argument count is a wrong-number-of-arguments error.
// - MSETEX numkeys key value [key value ...] [NX | XX] [EX | PX | EXAT | PXAT | KEEPTTL]:
//   numkeys in 1..INT_MAX ("ERR invalid numkeys value"), then exactly numkeys pairs
//   before the options ("ERR wrong number of key-value pairs" when short, a syntax error
//   when long); options repeat as SET's do. NX fails (0) if any key exists, XX if any is
//   missing; otherwise every key is set (replacing any type; KEEPTTL keeps each TTL) and
//   the reply is 1. Events per key: "expire" then "set", in Redis's order. Relative
//   expiries are replayed as PXAT.
#include <climits>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/string_common.h"
#include "server/server.h"

namespace hotkv {

namespace {

void DigestCommand(CommandContext& ctx) {
  bool wrongtype;
  const Entry* e = LookupString(ctx, ctx.arg(1), &wrongtype);
  if (e != nullptr && !wrongtype) {
    ctx.rb().Bulk(ValueDigest(e->str()));
  } else if (e == nullptr) {
    ctx.rb().Null();
  }
}

void DelExCommand(CommandContext& ctx) {
  if (ctx.argc() != 2 && ctx.argc() != 4) {
    return ReplyWrongArity(ctx);
  }
  std::string_view key = ctx.arg(1);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  if (ctx.argc() == 4) {
    if (!ref.entry()->is_string()) {
      return ctx.rb().Error("ERR Key should be of string type if conditions are specified");
    }
    auto cond = ParseValueCond(ctx.arg(2));
    if (!cond) {
      return ctx.rb().Error("ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE");
    }
    auto pass = CheckValueCond(ctx, *cond, ctx.arg(3), ref.entry()->str());
    if (!pass) {
      return;
    }
    if (!*pass) {
      return ctx.rb().Integer(0);
    }
  }
  db.Erase(ref);
  ctx.KeyModified(key, notify::kGeneric, "del");
  ctx.rb().Integer(1);
}

void MSetExCommand(CommandContext& ctx) {
  auto numkeys = ParseInt64(ctx.arg(1));
  if (!numkeys || *numkeys < 1 || *numkeys > INT_MAX) {
    return ctx.rb().Error("ERR invalid numkeys value");
  }
  const size_t pairs = static_cast<size_t>(*numkeys);
  if (pairs > (ctx.argc() - 2) / 2) {
    return ctx.rb().Error("ERR wrong number of key-value pairs");
  }
  const size_t options = 2 + 2 * pairs;
  bool nx = false, xx = false;
  ExpireOpt exp;
  for (size_t i = options; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NX") && !xx) {
      nx = true;
    } else if (EqualsIgnoreCase(a, "XX") && !nx) {
      xx = true;
    } else if (ParseSetExpiry(ctx, &i, &exp) != OptionParse::kOk) {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  const bool keep_ttl = exp.kind == ExpireOpt::kKeepTtl;
  const bool has_expire = exp.kind != ExpireOpt::kNone && !keep_ttl;
  int64_t expire_at = 0;
  if (has_expire) {
    auto ms = ResolveExpire(ctx, exp);
    if (!ms) {
      return;
    }
    expire_at = *ms;
  }
  Database& db = ctx.db();
  if (nx || xx) {
    for (size_t i = 2; i < options; i += 2) {
      if ((db.Find(ctx.arg(i)) != nullptr) == nx) {
        return ctx.rb().Integer(0);
      }
    }
  }
  for (size_t i = 2; i < options; i += 2) {
    std::string_view key = ctx.arg(i);
    KeyRef ref = db.Lookup(key);
    if (ref) {
      ctx.KeyOverwritten(key, ref.entry()->type(), ValueType::kString);
    }
    db.SetString(ref, key, ctx.arg(i + 1), keep_ttl);
    if (has_expire) {
      db.SetTtl(ref, expire_at);
      ctx.Notify(notify::kGeneric, "expire", key);
    }
    ctx.KeyModified(key, notify::kString, "set");
  }
  if (has_expire && ctx.propagating()) {
    // Replayed with the absolute time; NX/XX held, so they are dropped.
    const std::string at = Int64ToString(expire_at);
    const auto& all = ctx.args();
    std::vector<std::string_view> args(all.begin(), all.begin() + static_cast<ptrdiff_t>(options));
    args.push_back("PXAT");
    args.push_back(at);
    ctx.PropagateAs(args);
  }
  ctx.rb().Integer(1);
}

}  // namespace

void RegisterStringCondCommands(CommandTable& t) {
  t.Add({.name = "digest", .arity = 2, .flags = "readonly fast", .acl = "@read @string @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = DigestCommand,
         .doc = {"string", "8.4.0", "O(N) where N is the length of the string value.",
                 "Returns the XXH3 hash of a string value, as 16 hex digits.", "key"}});
  t.Add({.name = "delex", .arity = -2, .flags = "write fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW DELETE VARIABLE_FLAGS")}, .handler = DelExCommand,
         .doc = {"string", "8.4.0",
                 "O(1) for IFEQ/IFNE, O(N) for IFDEQ/IFDNE where N is the length of the string value.",
                 "Deletes a key, optionally only if its string value (or its digest) matches.",
                 "key [condition: IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest:integer | "
                 "IFDNE ifdne-digest:integer]"}});
  t.Add({.name = "msetex", .arity = -4, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyNum(1, 0, 1, 2, "OW UPDATE")}, .handler = MSetExCommand,
         .doc = {"string", "8.4.0", "O(N) where N is the number of keys to set.",
                 "Sets several string keys at once with one shared expiry, optionally only if "
                 "none or all of them exist.",
                 "numkeys <data: key value> ... [condition: NX | XX] [expiration: EX seconds | "
                 "PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]"},
         .tips = {"request_policy:multi_shard", "response_policy:all_succeeded"}});
}

}  // namespace hotkv

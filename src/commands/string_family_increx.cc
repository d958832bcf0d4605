// INCREX (Redis 8.8): increments a number with optional bounds and expiry in one command.
//
//   INCREX key [BYFLOAT f | BYINT i] [SATURATE] [LBOUND lb] [UBOUND ub]
//              [EX s | PX ms | EXAT ts | PXAT ts-ms | PERSIST] [ENX]
//
// Replies [new value, applied increment]. A result outside [LBOUND, UBOUND] (defaults:
// the type's limits, int64 or long double) or one that overflows is refused — nothing
// changes and the reply is [current value, 0] — unless SATURATE, which clamps it to the
// bound it crossed (even one the current value is already beyond). BYINT (the default,
// by 1) works in int64 and replies integers; BYFLOAT works in long double like
// INCRBYFLOAT, stores and replies its human format (a bulk string in RESP2, a double in
// RESP3). ENX sets the expiry only when the key has none; an expiry already in the past
// deletes the key after computing the reply ("del" event only).
//
// Order of checks, all as Redis 8.8 does them (checked by hand): while scanning the options
// a repeated or conflicting option, an unknown word or a missing value is a syntax error
// and the increment is parsed at its token; then LBOUND, UBOUND (as the increment's type),
// LBOUND > UBOUND, the expiry's value, ENX without an expiry; only then the key (WRONGTYPE,
// a value that is not a number or is infinite), and finally the applied increment, which
// must itself fit the type ("applied increment would overflow / be Infinity").
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "commands/helpers.h"
#include "commands/register.h"

namespace hotkv {

namespace {

enum class Expiry { kNone, kEx, kPx, kExAt, kPxAt, kPersist };

struct IncrExArgs {
  bool by_float = false;
  int64_t int_incr = 1;
  long double float_incr = 1;
  bool saturate = false;
  bool has_lbound = false, has_ubound = false;
  std::string_view lbound, ubound;  // parsed once the increment's type is known
  Expiry expiry = Expiry::kNone;
  std::string_view expiry_value;
  bool enx = false;
};

// Scans the options; replies and returns false on error (see the header for the order).
bool ScanArgs(CommandContext& ctx, IncrExArgs* a) {
  bool has_incr = false;
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::string_view w = ctx.arg(i);
    const bool has_value = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(w, "BYINT") || EqualsIgnoreCase(w, "BYFLOAT")) {
      if (has_incr || !has_value) {
        ctx.rb().Error(errors::kSyntax);
        return false;
      }
      has_incr = true;
      a->by_float = EqualsIgnoreCase(w, "BYFLOAT");
      std::string_view v = ctx.arg(++i);
      if (a->by_float) {
        auto f = ParseLongDouble(v);
        if (!f) {
          ctx.rb().Error("ERR Increment is not a valid float");
          return false;
        }
        if (std::isinf(*f)) {
          ctx.rb().Error("ERR BYFLOAT increment cannot be Infinity");
          return false;
        }
        a->float_incr = *f;
      } else {
        auto n = ParseInt64(v);
        if (!n) {
          ctx.rb().Error("ERR Increment is not an integer or out of range");
          return false;
        }
        a->int_incr = *n;
      }
    } else if (EqualsIgnoreCase(w, "SATURATE") && !a->saturate) {
      a->saturate = true;
    } else if (EqualsIgnoreCase(w, "LBOUND") && !a->has_lbound && has_value) {
      a->has_lbound = true;
      a->lbound = ctx.arg(++i);
    } else if (EqualsIgnoreCase(w, "UBOUND") && !a->has_ubound && has_value) {
      a->has_ubound = true;
      a->ubound = ctx.arg(++i);
    } else if (EqualsIgnoreCase(w, "ENX") && !a->enx && a->expiry != Expiry::kPersist) {
      a->enx = true;
    } else if (EqualsIgnoreCase(w, "PERSIST") && a->expiry == Expiry::kNone && !a->enx) {
      a->expiry = Expiry::kPersist;
    } else {
      Expiry e = EqualsIgnoreCase(w, "EX")     ? Expiry::kEx
                 : EqualsIgnoreCase(w, "PX")   ? Expiry::kPx
                 : EqualsIgnoreCase(w, "EXAT") ? Expiry::kExAt
                 : EqualsIgnoreCase(w, "PXAT") ? Expiry::kPxAt
                                               : Expiry::kNone;
      if (e == Expiry::kNone || a->expiry != Expiry::kNone || !has_value) {
        ctx.rb().Error(errors::kSyntax);
        return false;
      }
      a->expiry = e;
      a->expiry_value = ctx.arg(++i);
    }
  }
  return true;
}

// The absolute expiry time in ms, as SET resolves EX/PX/EXAT/PXAT. Replies and returns
// nullopt on error.
std::optional<int64_t> ResolveExpiry(CommandContext& ctx, const IncrExArgs& a) {
  auto v = ParseInt64(a.expiry_value);
  if (!v) {
    ctx.rb().Error(errors::kNotInteger);
    return std::nullopt;
  }
  int64_t ms = *v;
  const bool seconds = a.expiry == Expiry::kEx || a.expiry == Expiry::kExAt;
  if (ms <= 0 || (seconds && ms > std::numeric_limits<int64_t>::max() / 1000)) {
    ReplyInvalidExpire(ctx);
    return std::nullopt;
  }
  if (seconds) {
    ms *= 1000;
  }
  if ((a.expiry == Expiry::kEx || a.expiry == Expiry::kPx) && AddOverflow(ms, ctx.now_ms(), &ms)) {
    ReplyInvalidExpire(ctx);
    return std::nullopt;
  }
  return ms;
}

// LBOUND / UBOUND in the increment's type.
template <typename T>
struct Bounds {
  T lo, hi;
};

bool ParseBound(CommandContext& ctx, std::string_view text, const char* name, bool by_float,
                long double* f, int64_t* n) {
  if (by_float) {
    auto v = ParseLongDouble(text);
    if (!v) {
      ctx.rb().Error(std::string("ERR ") + name + " is not a valid float");
      return false;
    }
    *f = *v;
  } else {
    auto v = ParseInt64(text);
    if (!v) {
      ctx.rb().Error(std::string("ERR ") + name + " is not an integer or out of range");
      return false;
    }
    *n = *v;
  }
  return true;
}

// The outcome of the arithmetic: refused (nothing changes, value is the current one and
// applied 0), or the new value and the increment actually applied; applied_overflows when
// a clamped value is too far from the current one for the type.
template <typename T>
struct Step {
  bool refused = false;
  bool applied_overflows = false;
  T value{};
  T applied{};
};

Step<int64_t> IntStep(int64_t cur, int64_t incr, Bounds<int64_t> b, bool saturate) {
  int64_t next;
  const bool overflow = AddOverflow(cur, incr, &next);
  Step<int64_t> s;
  if (!overflow && next >= b.lo && next <= b.hi) {
    s.value = next;
    s.applied = incr;
  } else if (!saturate) {
    s.refused = true;
    s.value = cur;
  } else {
    // Past a bound (an overflow is past the bound in its direction): clamp to it.
    s.value = (overflow ? incr > 0 : next > b.hi) ? b.hi : b.lo;
    s.applied_overflows = __builtin_sub_overflow(s.value, cur, &s.applied);
  }
  return s;
}

Step<long double> FloatStep(long double cur, long double incr, Bounds<long double> b,
                            bool saturate) {
  const long double next = cur + incr;  // never NaN: both are finite
  Step<long double> s;
  if (std::isfinite(next) && next >= b.lo && next <= b.hi) {
    s.value = next;
    s.applied = next - cur;
  } else if (!saturate) {
    s.refused = true;
    s.value = cur;
  } else {
    // An overflow to +inf crosses the upper bound whatever it is (UBOUND inf included).
    const bool above = std::isinf(next) ? next > 0 : next > b.hi;
    s.value = above ? b.hi : b.lo;
    s.applied = s.value - cur;
    s.applied_overflows = !std::isfinite(s.applied);
  }
  return s;
}

// Redis's addReplyHumanLongDouble: the human text, as a bulk (RESP2) or a double (RESP3).
void ReplyHumanLongDouble(ReplyBuilder& rb, std::string_view text) {
  if (!rb.resp3()) {
    return rb.Bulk(text);
  }
  std::string frame = ",";
  frame.append(text);
  frame += "\r\n";
  rb.Raw(frame);
}

std::string HumanText(long double v) {
  char buf[kLongDoubleChars];
  return std::string(buf, FormatLongDoubleHuman(v, buf, sizeof(buf)));
}

void IncrExCommand(CommandContext& ctx) {
  IncrExArgs a;
  if (!ScanArgs(ctx, &a)) {
    return;
  }
  Bounds<int64_t> ib{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  Bounds<long double> fb{-std::numeric_limits<long double>::max(),
                         std::numeric_limits<long double>::max()};
  if (a.has_lbound && !ParseBound(ctx, a.lbound, "LBOUND", a.by_float, &fb.lo, &ib.lo)) {
    return;
  }
  if (a.has_ubound && !ParseBound(ctx, a.ubound, "UBOUND", a.by_float, &fb.hi, &ib.hi)) {
    return;
  }
  if (a.by_float ? fb.lo > fb.hi : ib.lo > ib.hi) {
    return ctx.rb().Error("ERR LBOUND can't be greater than UBOUND");
  }
  int64_t expire_at = 0;
  const bool timed = a.expiry != Expiry::kNone && a.expiry != Expiry::kPersist;
  if (timed) {
    auto at = ResolveExpiry(ctx, a);
    if (!at) {
      return;
    }
    expire_at = *at;
  } else if (a.enx) {
    return ctx.rb().Error("ERR ENX flag requires an expiration");
  }

  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  if (ref && !ref.entry()->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  const bool existed = static_cast<bool>(ref);
  std::string text;     // what is stored
  std::string applied;  // BYFLOAT: the applied increment's human text
  int64_t int_value = 0, int_applied = 0;
  bool refused;
  if (a.by_float) {
    long double cur = 0;
    if (existed) {
      auto v = ParseLongDouble(ref.entry()->str());
      if (!v) {
        return ctx.rb().Error(errors::kNotFloat);
      }
      if (std::isinf(*v)) {
        return ctx.rb().Error("ERR value cannot be Infinity");
      }
      cur = *v;
    }
    Step<long double> s = FloatStep(cur, a.float_incr, fb, a.saturate);
    if (s.applied_overflows) {
      return ctx.rb().Error("ERR applied increment would be Infinity");
    }
    refused = s.refused;
    text = HumanText(s.value);
    applied = HumanText(s.applied);
  } else {
    int64_t cur = 0;
    if (existed) {
      auto v = ParseInt64(ref.entry()->str());
      if (!v) {
        return ctx.rb().Error(errors::kNotInteger);
      }
      cur = *v;
    }
    Step<int64_t> s = IntStep(cur, a.int_incr, ib, a.saturate);
    if (s.applied_overflows) {
      return ctx.rb().Error("ERR applied increment would overflow");
    }
    refused = s.refused;
    int_value = s.value;
    int_applied = s.applied;
    char buf[kInt64Digits];
    text.assign(buf, FormatInt64(int_value, buf));
  }

  ReplyBuilder& rb = ctx.rb();
  rb.Array(2);
  if (a.by_float) {
    ReplyHumanLongDouble(rb, text);
    ReplyHumanLongDouble(rb, refused ? std::string_view("0") : std::string_view(applied));
  } else {
    rb.Integer(int_value);
    rb.Integer(int_applied);
  }
  if (refused) {
    return;
  }
  const bool had_ttl = existed && ref.entry()->has_ttl();
  const bool set_expiry = timed && !(a.enx && had_ttl);
  if (set_expiry && expire_at <= ctx.now_ms()) {
    // Already expired: the key goes (if there was one); no increment event.
    if (existed) {
      db.Erase(ref);
      ctx.KeyModified(key, notify::kGeneric, "del");
      ctx.PropagateAs({"DEL", key});
    }
    return;
  }
  db.SetString(ref, key, text, true);
  ctx.KeyModified(key, notify::kString, a.by_float ? "incrbyfloat" : "incrby");
  // Replayed as the value and absolute expiry it produced.
  if (set_expiry) {
    db.SetTtl(ref, expire_at);
    ctx.Notify(notify::kGeneric, "expire", key);
    if (ctx.propagating()) {
      const std::string at = std::to_string(expire_at);
      ctx.PropagateAs({"SET", key, text, "PXAT", at});
    }
  } else if (a.expiry == Expiry::kPersist && db.ClearTtl(ref)) {
    ctx.Notify(notify::kGeneric, "persist", key);
    ctx.PropagateAs({"SET", key, text});
  } else {
    ctx.PropagateAs({"SET", key, text, "KEEPTTL"});
  }
}

}  // namespace

void RegisterIncrExCommand(CommandTable& t) {
  t.Add({.name = "increx", .arity = -2, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = IncrExCommand,
         .doc = {"string", "8.8.0", "O(1)",
                 "Increments a number by an integer or a float within optional bounds, "
                 "optionally changing its expiry; replies the new value and the applied "
                 "increment.",
                 "key [increment: BYFLOAT float:double | BYINT integer:integer] [SATURATE] "
                 "[LBOUND lowerbound:string] [UBOUND upperbound:string] "
                 "[expiration: EX seconds:integer | PX milliseconds:integer | "
                 "EXAT unix-time-seconds:unix-time | PXAT unix-time-milliseconds:unix-time | "
                 "PERSIST] [ENX]"}});
}

}  // namespace hotkv

// String commands that edit or compute on a value: APPEND STRLEN INCR DECR INCRBY DECRBY
// INCRBYFLOAT GETRANGE SUBSTR SETRANGE LCS.
//
// Edge cases honoured (as Redis): INCR* reject non-canonical integers ("01", " 1") and
// overflow; INCRBYFLOAT computes in long double and refuses NaN/Infinity results;
// APPEND/SETRANGE stop at proto-max-bulk-len; SETRANGE with an empty value does not
// create a key; GETRANGE clamps like Redis (a missing key is an empty string).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"

namespace hotkv {

namespace {

constexpr std::string_view kStringTooBig =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

void AppendCommand(CommandContext& ctx) {
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  std::string_view add = ctx.arg(2);
  KeyRef ref = db.Lookup(key);
  if (!ref) {
    db.Insert(ref, Entry::NewString(key, add, false));
    ctx.KeyModified(key, notify::kString, "append");
    return ctx.rb().Integer(static_cast<int64_t>(add.size()));
  }
  Entry* e = ref.entry();
  if (!e->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  size_t len = e->str_size();
  if (static_cast<int64_t>(len + add.size()) > ctx.server().config().proto_max_bulk_len()) {
    return ctx.rb().Error(kStringTooBig);
  }
  e = ReserveString(db, ref, len + add.size());
  memcpy(e->str_data() + len, add.data(), add.size());
  e->set_str_size(len + add.size());
  e->set_raw_forced();
  ctx.KeyModified(key, notify::kString, "append");
  ctx.rb().Integer(static_cast<int64_t>(len + add.size()));
}

void StrLenCommand(CommandContext& ctx) {
  bool wrongtype;
  Entry* e = LookupString(ctx, ctx.arg(1), &wrongtype);
  if (!wrongtype) {
    ctx.rb().Integer(e ? static_cast<int64_t>(e->str_size()) : 0);
  }
}

void IncrByGeneric(CommandContext& ctx, int64_t delta) {
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  int64_t value = 0;
  if (ref) {
    Entry* e = ref.entry();
    if (!e->is_string()) {
      return ctx.rb().Error(errors::kWrongType);
    }
    auto v = ParseInt64(e->str());
    if (!v) {
      return ctx.rb().Error(errors::kNotInteger);
    }
    value = *v;
  }
  int64_t result;
  if (AddOverflow(value, delta, &result)) {
    return ctx.rb().Error(errors::kOverflow);
  }
  char buf[kInt64Digits];
  size_t n = FormatInt64(result, buf);
  std::string_view text(buf, n);
  if (ref && ref.entry()->str_capacity() >= n) {
    ref.entry()->AssignString(text);  // in place: no allocation per INCR
  } else {
    db.SetString(ref, key, text, true);
  }
  ctx.KeyModified(key, notify::kString, "incrby");
  ctx.rb().Integer(result);
}

void IncrCommand(CommandContext& ctx) { IncrByGeneric(ctx, 1); }
void DecrCommand(CommandContext& ctx) { IncrByGeneric(ctx, -1); }
void IncrByCommand(CommandContext& ctx) {
  if (auto d = ctx.IntArg(2)) {
    IncrByGeneric(ctx, *d);
  }
}
void DecrByCommand(CommandContext& ctx) {
  auto d = ctx.IntArg(2);
  if (!d) {
    return;
  }
  if (*d == std::numeric_limits<int64_t>::min()) {
    return ctx.rb().Error("ERR decrement would overflow");
  }
  IncrByGeneric(ctx, -*d);
}

// As Redis, the key is checked first (WRONGTYPE, then a stored value that is not a
// number), the increment after.
void IncrByFloatCommand(CommandContext& ctx) {
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  long double value = 0;
  if (ref) {
    if (!ref.entry()->is_string()) {
      return ctx.rb().Error(errors::kWrongType);
    }
    auto v = ParseLongDouble(ref.entry()->str());
    if (!v) {
      return ctx.rb().Error(errors::kNotFloat);
    }
    value = *v;
  }
  auto incr = ParseLongDouble(ctx.arg(2));
  if (!incr) {
    return ctx.rb().Error(errors::kNotFloat);
  }
  long double result = value + *incr;
  char buf[kLongDoubleChars];
  size_t n = FormatLongDoubleHuman(result, buf, sizeof(buf));
  if (!std::isfinite(result) || n == 0) {
    return ctx.rb().Error("ERR increment would produce NaN or Infinity");
  }
  std::string_view text(buf, n);
  db.SetString(ref, key, text, true);
  ctx.KeyModified(key, notify::kString, "incrbyfloat");
  // Replayed as the value it produced (float formatting must not drift between builds).
  ctx.PropagateAs({"SET", key, text, "KEEPTTL"});
  ctx.rb().Bulk(text);
}

void GetRangeCommand(CommandContext& ctx) {
  auto start = ctx.IntArg(2);
  if (!start) {
    return;
  }
  auto end = ctx.IntArg(3);
  if (!end) {
    return;
  }
  bool wrongtype;
  Entry* e = LookupString(ctx, ctx.arg(1), &wrongtype);
  if (wrongtype) {
    return;
  }
  std::string_view s = e ? e->str() : std::string_view();
  int64_t len = static_cast<int64_t>(s.size());
  int64_t a = *start, b = *end;
  if (a < 0 && b < 0 && a > b) {
    return ctx.rb().Bulk("");
  }
  if (a < 0) {
    a += len;
  }
  if (b < 0) {
    b += len;
  }
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  if (b >= len) {
    b = len - 1;
  }
  if (len == 0 || a > b) {
    return ctx.rb().Bulk("");
  }
  ctx.rb().Bulk(s.substr(static_cast<size_t>(a), static_cast<size_t>(b - a + 1)));
}

void SetRangeCommand(CommandContext& ctx) {
  auto offset = ctx.IntArg(2);
  if (!offset) {
    return;
  }
  if (*offset < 0) {
    return ctx.rb().Error("ERR offset is out of range");
  }
  std::string_view key = ctx.arg(1);
  std::string_view value = ctx.arg(3);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  if (ref && !ref.entry()->is_string()) {
    return ctx.rb().Error(errors::kWrongType);
  }
  size_t cur = ref ? ref.entry()->str_size() : 0;
  if (value.empty()) {
    return ctx.rb().Integer(static_cast<int64_t>(cur));
  }
  // Written so that an offset near INT64_MAX cannot overflow past the check (it used to,
  // and the allocation that followed took the server down).
  if (*offset > ctx.server().config().proto_max_bulk_len() - static_cast<int64_t>(value.size())) {
    return ctx.rb().Error(kStringTooBig);
  }
  size_t off = static_cast<size_t>(*offset);
  size_t need = std::max(cur, off + value.size());
  if (!ref) {
    Entry* e = Entry::NewString(key, "", false, need);
    db.Insert(ref, e);
  }
  Entry* e = ref.entry();
  if (need > e->str_capacity()) {
    e = Entry::GrowString(e, need);
    db.Relocated(ref, e);
  }
  if (off > cur) {
    memset(e->str_data() + cur, 0, off - cur);
  }
  memcpy(e->str_data() + off, value.data(), value.size());
  e->set_str_size(need);
  e->set_raw_forced();
  ctx.KeyModified(key, notify::kString, "setrange");
  ctx.rb().Integer(static_cast<int64_t>(need));
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]
void LcsCommand(CommandContext& ctx) {
  bool want_len = false, want_idx = false, with_match_len = false;
  int64_t min_match = 0;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "LEN")) {
      want_len = true;
    } else if (EqualsIgnoreCase(a, "IDX")) {
      want_idx = true;
    } else if (EqualsIgnoreCase(a, "WITHMATCHLEN")) {
      with_match_len = true;
    } else if (EqualsIgnoreCase(a, "MINMATCHLEN") && i + 1 < ctx.argc()) {
      auto v = ctx.IntArg(++i);
      if (!v) {
        return;
      }
      min_match = *v < 0 ? 0 : *v;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  Entry* e1 = ctx.db().Find(ctx.arg(1));
  Entry* e2 = ctx.db().Find(ctx.arg(2));
  if ((e1 && !e1->is_string()) || (e2 && !e2->is_string())) {
    return ctx.rb().Error("ERR The specified keys must contain string values");
  }
  if (want_len && want_idx) {
    return ctx.rb().Error(
        "ERR If you want both the length and indexes, please just use IDX.");
  }
  std::string_view a = e1 ? e1->str() : std::string_view();
  std::string_view b = e2 ? e2->str() : std::string_view();
  const size_t alen = a.size(), blen = b.size();
  // The DP table is (alen+1)*(blen+1) 32-bit cells; refuse what would not fit.
  unsigned __int128 cells = static_cast<unsigned __int128>(alen + 1) * (blen + 1);
  if (cells * sizeof(uint32_t) > static_cast<unsigned __int128>(ctx.server().config().proto_max_bulk_len())) {
    return ctx.rb().Error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  std::vector<uint32_t> dp((alen + 1) * (blen + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return dp[j * (alen + 1) + i]; };
  for (size_t i = 1; i <= alen; i++) {
    for (size_t j = 1; j <= blen; j++) {
      if (a[i - 1] == b[j - 1]) {
        at(i, j) = at(i - 1, j - 1) + 1;
      } else {
        at(i, j) = std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  uint32_t idx = at(alen, blen);
  if (want_len) {
    return ctx.rb().Integer(idx);
  }
  std::string result(idx, '\0');
  struct Match {
    size_t a0, a1, b0, b1;
  };
  std::vector<Match> matches;
  // Walk back from the end (as Redis does), collecting contiguous matching ranges.
  size_t i = alen, j = blen;
  size_t arange_start = alen, arange_end = 0, brange_start = 0, brange_end = 0;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (arange_start == alen) {
        arange_start = arange_end = i - 1;
        brange_start = brange_end = j - 1;
      } else if (arange_start == i && brange_start == j) {
        arange_start--;
        brange_start--;
      } else {
        emit = true;
      }
      if (arange_start == 0 || brange_start == 0) {
        emit = true;
      }
      idx--;
      i--;
      j--;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        i--;
      } else {
        j--;
      }
      if (arange_start != alen) {
        emit = true;
      }
    }
    if (emit) {
      size_t match_len = arange_end - arange_start + 1;
      if (min_match == 0 || match_len >= static_cast<size_t>(min_match)) {
        matches.push_back({arange_start, arange_end, brange_start, brange_end});
      }
      arange_start = alen;
    }
  }
  if (!want_idx) {
    return ctx.rb().Bulk(result);
  }
  ctx.rb().Map(2);
  ctx.rb().Bulk("matches");
  ctx.rb().Array(matches.size());
  for (const Match& m : matches) {
    ctx.rb().Array(with_match_len ? 3 : 2);
    ctx.rb().Array(2);
    ctx.rb().Integer(static_cast<int64_t>(m.a0));
    ctx.rb().Integer(static_cast<int64_t>(m.a1));
    ctx.rb().Array(2);
    ctx.rb().Integer(static_cast<int64_t>(m.b0));
    ctx.rb().Integer(static_cast<int64_t>(m.b1));
    if (with_match_len) {
      ctx.rb().Integer(static_cast<int64_t>(m.a1 - m.a0 + 1));
    }
  }
  ctx.rb().Bulk("len");
  ctx.rb().Integer(static_cast<int64_t>(result.size()));
}

}  // namespace

void RegisterStringOpCommands(CommandTable& t) {
  t.Add({.name = "append", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = AppendCommand,
         .doc = {"string", "2.0.0", "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
                 "Appends bytes to a string value, creating the key if needed; returns the new length.",
                 "key value"}});
  t.Add({.name = "strlen", .arity = 2, .flags = "readonly fast", .acl = "@read @string @fast",
         .keys = {KeyAt(1, "RO")}, .handler = StrLenCommand,
         .doc = {"string", "2.2.0", "O(1)", "Returns the length of a string value.", "key"}});
  t.Add({.name = "incr", .arity = 2, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = IncrCommand,
         .doc = {"string", "1.0.0", "O(1)", "Adds one to the integer value of a key (0 if missing).", "key"}});
  t.Add({.name = "decr", .arity = 2, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = DecrCommand,
         .doc = {"string", "1.0.0", "O(1)", "Subtracts one from the integer value of a key.", "key"}});
  t.Add({.name = "incrby", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = IncrByCommand,
         .doc = {"string", "1.0.0", "O(1)", "Adds an integer to the integer value of a key.", "key increment"}});
  t.Add({.name = "decrby", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = DecrByCommand,
         .doc = {"string", "1.0.0", "O(1)", "Subtracts an integer from the integer value of a key.", "key decrement"}});
  t.Add({.name = "incrbyfloat", .arity = 3, .flags = "write denyoom fast", .acl = "@write @string @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = IncrByFloatCommand,
         .doc = {"string", "2.6.0", "O(1)", "Adds a floating point number to the numeric value of a key.",
                 "key increment:double"}});
  t.Add({.name = "getrange", .arity = 4, .flags = "readonly", .acl = "@read @string @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetRangeCommand,
         .doc = {"string", "2.4.0", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
                 "Returns a substring of a string value (negative offsets count from the end).",
                 "key start end"}});
  t.Add({.name = "substr", .arity = 4, .flags = "readonly", .acl = "@read @string @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetRangeCommand,
         .doc = {"string", "1.0.0", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
                 "Returns a substring of a string value (old name of GETRANGE).", "key start end",
                 "deprecated", "2.0.0", "`GETRANGE`"}});
  t.Add({.name = "setrange", .arity = 4, .flags = "write denyoom", .acl = "@write @string @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = SetRangeCommand,
         .doc = {"string", "2.2.0", "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
                 "Overwrites part of a string value from an offset, padding with zero bytes.",
                 "key offset value"}});
  t.Add({.name = "lcs", .arity = -3, .flags = "readonly", .acl = "@read @string @slow",
         .keys = {KeyRange(1, 1, 1, "RO ACCESS")}, .handler = LcsCommand,
         .doc = {"string", "7.0.0", "O(N*M) where N and M are the lengths of s1 and s2, respectively",
                 "Finds the longest common subsequence of two string values.",
                 "key1:key key2:key [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]"}});
}

}  // namespace hotkv

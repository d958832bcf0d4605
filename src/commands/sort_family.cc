// SORT and SORT_RO on lists, sets and sorted sets.
//
//   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA]
//        [STORE destination]          (SORT_RO: the same without STORE)
//
// Redis's rules, kept here:
// - Options are parsed first (a syntax error or a bad LIMIT number wins over WRONGTYPE);
//   the last ASC/DESC, BY, LIMIT and STORE win; GET accumulates.
// - A pattern's first '*' is replaced by the element; "->field" after the '*' reads a hash
//   field instead of a string (a key of another type reads as missing; a field whose TTL
//   has passed is deleted as it is read, "hexpired", SORT_RO too). A pattern without
//   '*' names no key: BY such a pattern ("nosort") skips sorting, GET of it returns nil;
//   "GET #" returns the element itself. Patterns are C strings to Redis: '*' and "->" are
//   looked for before the first NUL byte.
// - Without ALPHA every sort value must parse as a double as Redis 8 parses it (string2d:
//   the whole string, no leading space, no overflow, not NaN; a missing BY key counts as
//   0), else "ERR One or more scores can't be converted into double", reported after
//   everything else was computed. Equal scores order by the element's bytes. ALPHA
//   compares with strcoll (here: the C locale, byte order up to the first NUL) unless
//   STORE is given (then plain bytes); with BY, missing values sort first.
// - BY nosort keeps a list's order and a sorted set's score order (DESC reverses it, and
//   LIMIT reads only the requested range); a set is iterated in its own order, except with
//   STORE, where it is sorted ALPHA so that the stored result is deterministic.
// - STORE stores the result as a list (replacing any value and TTL; "sortstore" event)
//   or deletes the destination when the result is empty ("del"); replies the length. GET
//   values that are missing are stored as empty strings.
// - A listpack sorted set is converted to a skiplist, as Redis's SORT does (SORT_RO too).
// Ties between equal ALPHA BY values keep the source's order (a stable sort), as glibc's
// qsort (a merge sort) does for Redis; sets iterate in a different order than Redis's.
//
// Locking: the dispatcher locks the shards of the key and of STORE's destination (the
// getkeys proc). The keys BY and GET read are named by the data, so the handler first
// computes every key they can name and, for a shard it does not hold, asks the dispatcher
// for it (CommandContext::RequestShard) before changing or replying anything; the
// dispatcher then runs it again holding the union, taken in ascending order (deadlock
// free). Inside EXEC, a SORT with such patterns makes EXEC lock every shard
// (all_shards_in_exec), so the transaction stays atomic.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/hash_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "engine/keyspace.h"
#include "server/server.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace hotkv {

namespace {

using types::HashValue;
using types::ListValue;
using types::SetValue;
using types::ZSetValue;

struct SortArgs {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string_view> by;
  std::vector<std::string_view> gets;
  std::optional<std::string_view> store;
};

// The part of a pattern Redis sees (a C string).
std::string_view CPart(std::string_view s) { return s.substr(0, s.find('\0')); }

bool HasStar(std::string_view pattern) {
  return CPart(pattern).find('*') != std::string_view::npos;
}

// Parses the options; replies and returns false on error.
bool ParseSortArgs(CommandContext& ctx, bool readonly, SortArgs* a) {
  for (size_t j = 2; j < ctx.argc(); j++) {
    std::string_view w = ctx.arg(j);
    const size_t left = ctx.argc() - j - 1;
    if (EqualsIgnoreCase(w, "ASC")) {
      a->desc = false;
    } else if (EqualsIgnoreCase(w, "DESC")) {
      a->desc = true;
    } else if (EqualsIgnoreCase(w, "ALPHA")) {
      a->alpha = true;
    } else if (EqualsIgnoreCase(w, "LIMIT") && left >= 2) {
      auto start = ctx.IntArg(j + 1);
      if (!start) {
        return false;
      }
      auto count = ctx.IntArg(j + 2);
      if (!count) {
        return false;
      }
      a->limit_start = *start;
      a->limit_count = *count;
      j += 2;
    } else if (!readonly && EqualsIgnoreCase(w, "STORE") && left >= 1) {
      a->store = ctx.arg(++j);
    } else if (EqualsIgnoreCase(w, "BY") && left >= 1) {
      a->by = ctx.arg(++j);
      a->dontsort = !HasStar(*a->by);
    } else if (EqualsIgnoreCase(w, "GET") && left >= 1) {
      a->gets.push_back(ctx.arg(++j));
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// A pattern applied to an element: the element itself ("#"), nothing (no '*'), or a key
// and, with "->", a hash field.
struct PatternRef {
  enum Kind { kSelf, kNone, kKey } kind = kNone;
  std::string key;
  std::string_view field;
  bool has_field = false;
};

PatternRef Substitute(std::string_view pattern, std::string_view element) {
  PatternRef r;
  const std::string_view c = CPart(pattern);
  if (c == "#") {
    r.kind = PatternRef::kSelf;
    return r;
  }
  const size_t star = c.find('*');
  if (star == std::string_view::npos) {
    return r;
  }
  r.kind = PatternRef::kKey;
  const size_t arrow = c.find("->", star + 1);
  size_t fieldlen = 0;
  if (arrow != std::string_view::npos && arrow + 2 < c.size()) {
    fieldlen = pattern.size() - arrow - 2;
    r.field = pattern.substr(arrow + 2);
    r.has_field = true;
  }
  const size_t postfix = pattern.size() - (star + 1) - (fieldlen != 0 ? fieldlen + 2 : 0);
  r.key.reserve(star + element.size() + postfix);
  r.key.append(pattern.substr(0, star));
  r.key.append(element);
  r.key.append(pattern.substr(star + 1, postfix));
  return r;
}

// Redis's lookupKeyByPattern: the string (or hash field) a pattern names for an element.
std::optional<std::string> LookupByPattern(CommandContext& ctx, std::string_view pattern,
                                           std::string_view element) {
  PatternRef r = Substitute(pattern, element);
  if (r.kind == PatternRef::kSelf) {
    return std::string(element);
  }
  if (r.kind == PatternRef::kNone) {
    return std::nullopt;
  }
  Entry* e = LookupRead(ctx, r.key);
  if (e == nullptr) {
    return std::nullopt;
  }
  if (r.has_field) {
    if (e->type() != ValueType::kHash) {
      return std::nullopt;
    }
    // A field whose TTL has passed is deleted as it is read (lazy expiry, SORT_RO too:
    // "hexpired", or "del" with the last field), as Redis 8.8's lookupKeyByPattern does.
    HashValue* h = e->As<HashValue>();
    if (h->IsExpired(r.field, ctx.now_ms())) {
      ExpireDueField(ctx, r.key, h, r.field);
      return std::nullopt;
    }
    auto v = h->Get(r.field);
    if (!v) {
      return std::nullopt;
    }
    return v->ToString();
  }
  if (!e->is_string()) {
    return std::nullopt;
  }
  return std::string(e->str());
}

// Asks for the shard of every key `pattern` can name for `elements` that this command
// does not hold; returns whether it asked for any.
bool RequestPatternShards(CommandContext& ctx, std::string_view pattern,
                          const std::vector<std::string>& elements) {
  if (!HasStar(pattern)) {
    return false;
  }
  bool asked = false;
  for (const std::string& el : elements) {
    PatternRef r = Substitute(pattern, el);
    const uint32_t shard = Keyspace::ShardOf(r.key);
    if (!ctx.HoldsShard(shard)) {
      ctx.RequestShard(shard);
      asked = true;
    }
  }
  return asked;
}

struct SortItem {
  std::string_view obj;
  double score = 0;
  std::optional<std::string> cmp;
};

// A sort score as Redis 8 parses it (string2d): strtod over the whole value, no leading
// space, no NaN, no overflow to infinity or underflow to zero. (Redis 7.0 used a bare
// strtod that accepted a leading space or an empty value and could see a stale errno.)
bool ParseScore(const std::string& v, double* out) {
  if (v.empty() || isspace(static_cast<unsigned char>(v[0]))) {
    return false;
  }
  const char* s = v.c_str();
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(s, &end);
  if (static_cast<size_t>(end - s) != v.size() || std::isnan(*out)) {
    return false;
  }
  return !(errno == ERANGE && (*out == HUGE_VAL || *out == -HUGE_VAL || *out == 0));
}

int Collate(std::string_view a, std::string_view b) { return CPart(a).compare(CPart(b)); }

struct SortOrder {
  bool alpha, by_pattern, store, desc;
  int operator()(const SortItem& a, const SortItem& b) const {
    int cmp;
    if (!alpha) {
      if (a.score > b.score) {
        cmp = 1;
      } else if (a.score < b.score) {
        cmp = -1;
      } else {
        cmp = a.obj.compare(b.obj);
      }
    } else if (by_pattern) {
      if (!a.cmp || !b.cmp) {
        cmp = (!a.cmp && !b.cmp) ? 0 : (!a.cmp ? -1 : 1);
      } else {
        cmp = store ? a.cmp->compare(*b.cmp) : Collate(*a.cmp, *b.cmp);
      }
    } else {
      cmp = store ? a.obj.compare(b.obj) : Collate(a.obj, b.obj);
    }
    return desc ? -cmp : cmp;
  }
};

// Loads the elements to sort (for a nosort list or sorted set, only the LIMIT range) and
// computes [start, end] as Redis does.
std::vector<std::string> LoadElements(const Entry* src, const SortArgs& a, int64_t* start,
                                      int64_t* end) {
  std::vector<std::string> out;
  int64_t len = 0;
  if (src != nullptr) {
    switch (src->type()) {
      case ValueType::kList:
        len = static_cast<int64_t>(src->As<ListValue>()->size());
        break;
      case ValueType::kSet:
        len = static_cast<int64_t>(src->As<SetValue>()->size());
        break;
      default:
        len = static_cast<int64_t>(src->As<ZSetValue>()->Size());
        break;
    }
  }
  int64_t s = std::min(std::max<int64_t>(a.limit_start, 0), len);
  const int64_t count = std::min(std::max<int64_t>(a.limit_count, -1), len);
  int64_t e = count < 0 ? len - 1 : s + count - 1;
  if (s >= len) {
    s = len - 1;
    e = len - 2;
  }
  if (e >= len) {
    e = len - 1;
  }
  *start = s;
  *end = e;
  if (src == nullptr) {
    return out;
  }
  auto push = [&out](std::string_view v) { out.emplace_back(v); };
  const bool ranged = a.dontsort && src->type() != ValueType::kSet;
  if (ranged) {
    // Only the range, in the source's order (reversed for DESC).
    if (e >= s) {
      if (src->type() == ValueType::kList) {
        const auto* l = src->As<ListValue>();
        if (a.desc) {
          l->Range(len - 1 - e, len - 1 - s, push);
          std::reverse(out.begin(), out.end());
        } else {
          l->Range(s, e, push);
        }
      } else {
        const auto* z = src->As<ZSetValue>();
        z->Visit(z->RankSpan(s, e, a.desc),
                 [&out](std::string_view m, double) { out.emplace_back(m); });
      }
    }
    *end = e - s;
    *start = 0;
    return out;
  }
  out.reserve(static_cast<size_t>(len));
  switch (src->type()) {
    case ValueType::kList:
      src->As<ListValue>()->ForEach([&out](std::string_view v) {
        out.emplace_back(v);
        return true;
      });
      break;
    case ValueType::kSet:
      src->As<SetValue>()->ForEach([&out](std::string_view v) {
        out.emplace_back(v);
        return true;
      });
      break;
    default:
      src->As<ZSetValue>()->ForEach([&out](std::string_view m, double) { out.emplace_back(m); });
      break;
  }
  return out;
}

void StoreResult(CommandContext& ctx, std::string_view dst, std::vector<std::string> values) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(dst);
  const auto n = static_cast<int64_t>(values.size());
  if (values.empty()) {
    if (ref) {
      db.Erase(ref);
      ctx.KeyModified(dst, notify::kGeneric, "del");
    }
    return ctx.rb().Integer(0);
  }
  const types::EncodingLimits limits = EncodingLimitsFrom(ctx.server().config());
  auto* list = new ListValue();
  for (const std::string& v : values) {
    list->PushBack(v, limits);
  }
  std::optional<ValueType> old_type;
  if (ref) {
    old_type = ref.entry()->type();
    db.Erase(ref);
  }
  db.Insert(ref, Entry::NewObject(dst, ValueType::kList, list, false));
  if (old_type) {
    ctx.KeyOverwritten(dst, *old_type, ValueType::kList);
  }
  ctx.KeyModified(dst, notify::kList, "sortstore");
  ctx.rb().Integer(n);
}

void SortGeneric(CommandContext& ctx, bool readonly) {
  SortArgs a;
  if (!ParseSortArgs(ctx, readonly, &a)) {
    return;
  }
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  Entry* src = ref ? ref.entry() : nullptr;
  if (src != nullptr && src->type() != ValueType::kList && src->type() != ValueType::kSet &&
      src->type() != ValueType::kZSet) {
    ctx.CountLookup(true);
    ctx.TouchEntry(src);
    return ctx.rb().Error(errors::kWrongType);
  }
  if (src != nullptr && src->type() == ValueType::kZSet) {
    // Redis converts a listpack sorted set to a skiplist for SORT (OBJECT ENCODING shows it).
    src->As<ZSetValue>()->MaybeConvert(1, types::ZSetLimits{0, 64});
  }
  std::optional<std::string_view> by = a.by;
  if (a.dontsort && src != nullptr && src->type() == ValueType::kSet && a.store) {
    // A set has no order of its own: sort it so that what is stored is deterministic.
    a.dontsort = false;
    a.alpha = true;
    by.reset();
  }
  int64_t start, end;
  std::vector<std::string> elements = LoadElements(src, a, &start, &end);

  // Every key the patterns can name must be in a shard this command holds (and STORE's
  // destination, which the getkeys proc names: checked anyway).
  bool asked = false;
  if (a.store && !ctx.HoldsShard(Keyspace::ShardOf(*a.store))) {
    ctx.RequestShard(Keyspace::ShardOf(*a.store));
    asked = true;
  }
  if (by && !a.dontsort) {
    asked |= RequestPatternShards(ctx, *by, elements);
  }
  for (std::string_view g : a.gets) {
    asked |= RequestPatternShards(ctx, g, elements);
  }
  if (asked) {
    return;  // the dispatcher runs the command again with those shards locked
  }
  ctx.CountLookup(src != nullptr);
  if (src != nullptr) {
    ctx.TouchEntry(src);
  } else {
    ctx.Notify(notify::kKeyMiss, "keymiss", key);
  }

  std::vector<SortItem> items(elements.size());
  for (size_t j = 0; j < elements.size(); j++) {
    items[j].obj = elements[j];
  }
  bool conversion_error = false;
  if (!a.dontsort) {
    for (SortItem& it : items) {
      std::optional<std::string> byval;
      if (by) {
        byval = LookupByPattern(ctx, *by, it.obj);
        if (!byval) {
          continue;
        }
      }
      if (a.alpha) {
        if (by) {
          it.cmp = std::move(byval);
        }
      } else if (!ParseScore(by ? *byval : std::string(it.obj), &it.score)) {
        conversion_error = true;
      }
    }
    SortOrder order{a.alpha, by.has_value(), a.store.has_value(), a.desc};
    std::stable_sort(items.begin(), items.end(),
                     [&order](const SortItem& x, const SortItem& y) { return order(x, y) < 0; });
  }
  if (conversion_error) {
    return ctx.rb().Error("ERR One or more scores can't be converted into double");
  }
  const int64_t n = end >= start ? end - start + 1 : 0;
  if (!a.store) {
    ctx.rb().Array(
        static_cast<size_t>(a.gets.empty() ? n : n * static_cast<int64_t>(a.gets.size())));
    for (int64_t j = start; j <= end; j++) {
      const std::string_view obj = items[j].obj;
      if (a.gets.empty()) {
        ctx.rb().Bulk(obj);
      }
      for (std::string_view g : a.gets) {
        auto v = LookupByPattern(ctx, g, obj);
        if (v) {
          ctx.rb().Bulk(*v);
        } else {
          ctx.rb().Null();
        }
      }
    }
    return;
  }
  std::vector<std::string> values;
  for (int64_t j = start; j <= end; j++) {
    const std::string_view obj = items[j].obj;
    if (a.gets.empty()) {
      values.emplace_back(obj);
    }
    for (std::string_view g : a.gets) {
      values.push_back(LookupByPattern(ctx, g, obj).value_or(std::string()));
    }
  }
  StoreResult(ctx, *a.store, std::move(values));
}

void SortCommand(CommandContext& ctx) { SortGeneric(ctx, false); }
void SortRoCommand(CommandContext& ctx) { SortGeneric(ctx, true); }

// Redis's sortGetKeys: the key, and the last STORE's destination (options skipped with
// their arguments).
void SortGetKeys(const std::vector<std::string_view>& args, std::vector<int>* out) {
  out->push_back(1);
  int store = 0;
  for (size_t i = 2; i < args.size(); i++) {
    if (EqualsIgnoreCase(args[i], "LIMIT")) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "GET") || EqualsIgnoreCase(args[i], "BY")) {
      i += 1;
    } else if (EqualsIgnoreCase(args[i], "STORE") && i + 1 < args.size()) {
      store = static_cast<int>(i + 1);
    }
  }
  if (store != 0) {
    out->push_back(store);
  }
}

void SortRoGetKeys(const std::vector<std::string_view>& args, std::vector<int>* out) {
  (void)args;
  out->push_back(1);
}

// EXEC locks every shard for a SORT whose BY or GET pattern can name keys.
bool SortNeedsAllShards(const std::vector<std::string_view>& args) {
  for (size_t i = 2; i + 1 < args.size(); i++) {
    if (EqualsIgnoreCase(args[i], "BY") || EqualsIgnoreCase(args[i], "GET")) {
      if (HasStar(args[i + 1])) {
        return true;
      }
      i++;
    }
  }
  return false;
}

}  // namespace

void RegisterSortCommands(CommandTable& t) {
  const char* complexity =
      "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the "
      "number of returned elements. When the elements are not sorted, complexity is O(N).";
  const KeySpec pattern_keys = KeyUnknown(
      "RO ACCESS",
      "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive "
      "from the content of the key we sort");
  const std::string grammar =
      "key [BY by-pattern:pattern] [limit: LIMIT offset:integer count:integer] "
      "[GET get-pattern:pattern [GET get-pattern:pattern ...]] [order: ASC | DESC] "
      "[sorting: ALPHA]";
  t.Add({.name = "sort",
         .arity = -2,
         .flags = "write denyoom",
         .acl = "@write @set @sortedset @list @slow @dangerous",
         .keys = {KeyAt(1, "RO ACCESS"), pattern_keys,
                  KeyUnknown("OW UPDATE",
                             "For the optional STORE keyword. It is marked 'unknown' because "
                             "the keyword can appear anywhere in the argument array")},
         .handler = SortCommand,
         .doc = {"generic", "1.0.0", complexity,
                 "Sorts the elements of a list, set or sorted set, optionally by the values of "
                 "other keys, returning or storing the result.",
                 grammar + " [STORE destination:key]"},
         .getkeys = SortGetKeys,
         .all_shards_in_exec = SortNeedsAllShards});
  t.Add({.name = "sort_ro",
         .arity = -2,
         .flags = "readonly",
         .acl = "@read @set @sortedset @list @slow @dangerous",
         .keys = {KeyAt(1, "RO ACCESS"), pattern_keys},
         .handler = SortRoCommand,
         .doc = {"generic", "7.0.0", complexity,
                 "Sorts the elements of a list, set or sorted set, optionally by the values of "
                 "other keys (read-only SORT).",
                 grammar},
         .getkeys = SortRoGetKeys,
         .all_shards_in_exec = SortNeedsAllShards});
}

}  // namespace hotkv

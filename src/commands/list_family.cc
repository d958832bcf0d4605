// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LREM LTRIM
// LINSERT LPOS LMOVE RPOPLPUSH LMPOP. (Blocking forms: list_family_blocking.cc.)
//
// Edge cases honoured (as Redis): a list emptied by any command is deleted; LPOP/RPOP
// with a count reply a null array for a missing key and an empty array for count 0;
// LMOVE checks the destination's type before popping and rotates a list onto itself;
// LPOS rejects RANK 0 and negative COUNT/MAXLEN; blocking commands inside MULTI answer
// as if the timeout had passed; blocked clients are served in the order they blocked,
// right after the command that gave the key data.
#include <limits>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "commands/list_common.h"
#include "types/list_value.h"

namespace hotkv {

namespace list_internal {

std::optional<End> ParseEnd(std::string_view s) {
  if (EqualsIgnoreCase(s, "LEFT")) {
    return End::kLeft;
  }
  if (EqualsIgnoreCase(s, "RIGHT")) {
    return End::kRight;
  }
  return std::nullopt;
}

const char* PopEvent(End e) { return e == End::kLeft ? "lpop" : "rpop"; }
const char* PushEvent(End e) { return e == End::kLeft ? "lpush" : "rpush"; }

// Looks up a list for writing; replies WRONGTYPE (returns false) on another type.
bool ListRef(CommandContext& ctx, std::string_view key, KeyRef* ref) {
  *ref = ctx.db().Lookup(key);
  if (*ref && ref->entry()->type() != ValueType::kList) {
    ctx.rb().Error(errors::kWrongType);
    return false;
  }
  return true;
}

ListValue* ListOf(const KeyRef& ref) { return ref.entry()->As<ListValue>(); }

// Pushes onto `key` (creating the list), replying nothing. `ref` is a fresh lookup.
ListValue* GetOrCreate(CommandContext& ctx, std::string_view key, KeyRef& ref) {
  if (!ref) {
    ctx.db().Insert(ref, Entry::NewObject(key, ValueType::kList, new ListValue(), false));
  }
  return ListOf(ref);
}

void PushGeneric(CommandContext& ctx, End end, bool only_existing) {
  std::string_view key = ctx.arg(1);
  KeyRef ref;
  if (!ListRef(ctx, key, &ref)) {
    return;
  }
  if (!ref && only_existing) {
    return ctx.rb().Integer(0);
  }
  ListValue* list = GetOrCreate(ctx, key, ref);
  types::EncodingLimits limits = EncodingLimitsFrom(ctx.server().config());
  for (size_t i = 2; i < ctx.argc(); i++) {
    if (end == End::kLeft) {
      list->PushFront(ctx.arg(i), limits);
    } else {
      list->PushBack(ctx.arg(i), limits);
    }
  }
  ctx.KeyModified(key, notify::kList, PushEvent(end));
  ctx.AddDirty(static_cast<int64_t>(ctx.argc()) - 3);  // Redis: one per element
  ctx.rb().Integer(static_cast<int64_t>(list->size()));
}
void LPushCommand(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, false); }
void RPushCommand(CommandContext& ctx) { PushGeneric(ctx, End::kRight, false); }
void LPushXCommand(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, true); }
void RPushXCommand(CommandContext& ctx) { PushGeneric(ctx, End::kRight, true); }

// Pops `count` elements from `key` (which must be a non-empty list) writing them as an
// array (with_count) or a single bulk, then deletes the key if it emptied.
void PopAndReply(CommandContext& ctx, KeyRef& ref, std::string_view key, End end, bool with_count,
                 int64_t count) {
  ListValue* list = ListOf(ref);
  if (!with_count) {
    auto v = end == End::kLeft ? list->PopFront() : list->PopBack();
    ctx.rb().Bulk(*v);
  } else {
    size_t n = std::min<size_t>(static_cast<size_t>(count), list->size());
    ctx.rb().Array(n);
    ctx.AddDirty(static_cast<int64_t>(n) - 1);  // Redis: dirty += count popped
    auto emit = [&](std::string_view v) { ctx.rb().Bulk(v); };
    if (end == End::kLeft) {
      list->PopFront(n, emit);
    } else {
      list->PopBack(n, emit);
    }
  }
  ctx.KeyModified(key, notify::kList, PopEvent(end));
  DeleteIfEmpty(ctx, ref, key, list->empty());
  // LMPOP and the blocking pops are replayed as the plain pop they did (Redis: "[LR]POP
  // key [count]"); LPOP/RPOP go in as they ran.
  const std::string& name = ctx.command()->name;
  if (ctx.propagating() && name != "lpop" && name != "rpop") {
    const char* pop = end == End::kLeft ? "LPOP" : "RPOP";
    if (with_count) {
      const std::string n = std::to_string(count);
      ctx.PropagateAs({pop, key, n});
    } else {
      ctx.PropagateAs({pop, key});
    }
  }
}

void PopGeneric(CommandContext& ctx, End end) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error("ERR wrong number of arguments for '" + ctx.command()->full_name + "' command");
  }
  int64_t count = 0;
  bool with_count = ctx.argc() == 3;
  if (with_count) {
    auto v = ParseInt64(ctx.arg(2));
    if (!v || *v < 0) {
      return ctx.rb().Error(errors::kMustBePositive);
    }
    count = *v;
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref;
  if (!ListRef(ctx, key, &ref)) {
    return;
  }
  if (!ref) {
    return with_count ? ctx.rb().NullArray() : ctx.rb().Null();
  }
  if (with_count && count == 0) {
    return ctx.rb().EmptyArray();
  }
  PopAndReply(ctx, ref, key, end, with_count, count);
}
void LPopCommand(CommandContext& ctx) { PopGeneric(ctx, End::kLeft); }
void RPopCommand(CommandContext& ctx) { PopGeneric(ctx, End::kRight); }

// Read-only lookup: nullptr if missing; replies WRONGTYPE and sets *bad on another type.
const ListValue* ReadList(CommandContext& ctx, std::string_view key, bool* bad) {
  Entry* e = LookupRead(ctx, key);
  *bad = false;
  if (e == nullptr) {
    return nullptr;
  }
  if (e->type() != ValueType::kList) {
    *bad = true;
    ctx.rb().Error(errors::kWrongType);
    return nullptr;
  }
  return e->As<ListValue>();
}

void LLenCommand(CommandContext& ctx) {
  bool bad;
  const ListValue* l = ReadList(ctx, ctx.arg(1), &bad);
  if (!bad) {
    ctx.rb().Integer(l ? static_cast<int64_t>(l->size()) : 0);
  }
}

void LRangeCommand(CommandContext& ctx) {
  auto start = ctx.IntArg(2);
  if (!start) {
    return;
  }
  auto stop = ctx.IntArg(3);
  if (!stop) {
    return;
  }
  bool bad;
  const ListValue* l = ReadList(ctx, ctx.arg(1), &bad);
  if (bad) {
    return;
  }
  if (l == nullptr) {
    return ctx.rb().EmptyArray();
  }
  size_t pos = ctx.rb().BeginDeferred();
  size_t n = 0;
  l->Range(*start, *stop, [&](std::string_view v) {
    ctx.rb().Bulk(v);
    n++;
  });
  ctx.rb().EndDeferredArray(pos, n);
}

// LINDEX and LSET look the key up before parsing the index, as Redis does: a missing
// key answers nil (LSET: "no such key") and another type WRONGTYPE whatever the index.
void LIndexCommand(CommandContext& ctx) {
  bool bad;
  const ListValue* l = ReadList(ctx, ctx.arg(1), &bad);
  if (bad) {
    return;
  }
  if (l == nullptr) {
    return ctx.rb().Null();
  }
  auto index = ctx.IntArg(2);
  if (!index) {
    return;
  }
  auto v = l->Index(*index);
  if (!v) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(v->view());
}

void LSetCommand(CommandContext& ctx) {
  KeyRef ref;
  if (!ListRef(ctx, ctx.arg(1), &ref)) {
    return;
  }
  if (!ref) {
    return ctx.rb().Error(errors::kNoSuchKey);
  }
  auto index = ctx.IntArg(2);
  if (!index) {
    return;
  }
  if (!ListOf(ref)->Set(*index, ctx.arg(3), EncodingLimitsFrom(ctx.server().config()))) {
    return ctx.rb().Error(errors::kOutOfRange);
  }
  ctx.KeyModified(ctx.arg(1), notify::kList, "lset");
  ctx.rb().Ok();
}

void LRemCommand(CommandContext& ctx) {
  auto count = ParseRandomCount(ctx, 2);  // [-LONG_MAX, LONG_MAX], checked first, as Redis 8
  if (!count) {
    return;
  }
  KeyRef ref;
  if (!ListRef(ctx, ctx.arg(1), &ref)) {
    return;
  }
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  ListValue* l = ListOf(ref);
  size_t removed = l->Remove(ctx.arg(3), *count);
  if (removed > 0) {
    ctx.KeyModified(ctx.arg(1), notify::kList, "lrem");
    ctx.AddDirty(static_cast<int64_t>(removed) - 1);
    DeleteIfEmpty(ctx, ref, ctx.arg(1), l->empty());
  }
  ctx.rb().Integer(static_cast<int64_t>(removed));
}

void LTrimCommand(CommandContext& ctx) {
  auto start = ctx.IntArg(2);
  if (!start) {
    return;
  }
  auto stop = ctx.IntArg(3);
  if (!stop) {
    return;
  }
  KeyRef ref;
  if (!ListRef(ctx, ctx.arg(1), &ref)) {
    return;
  }
  if (ref) {
    ListValue* l = ListOf(ref);
    const size_t before = l->size();
    l->Trim(*start, *stop);
    ctx.KeyModified(ctx.arg(1), notify::kList, "ltrim");
    ctx.AddDirty(static_cast<int64_t>(before - l->size()) - 1);  // Redis: the removed
    DeleteIfEmpty(ctx, ref, ctx.arg(1), l->empty());
  }
  ctx.rb().Ok();
}

void LInsertCommand(CommandContext& ctx) {
  bool before;
  if (EqualsIgnoreCase(ctx.arg(2), "BEFORE")) {
    before = true;
  } else if (EqualsIgnoreCase(ctx.arg(2), "AFTER")) {
    before = false;
  } else {
    return ctx.rb().Error(errors::kSyntax);
  }
  KeyRef ref;
  if (!ListRef(ctx, ctx.arg(1), &ref)) {
    return;
  }
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  ListValue* l = ListOf(ref);
  if (!l->Insert(ctx.arg(3), ctx.arg(4), before, EncodingLimitsFrom(ctx.server().config()))) {
    return ctx.rb().Integer(-1);
  }
  ctx.KeyModified(ctx.arg(1), notify::kList, "linsert");
  ctx.rb().Integer(static_cast<int64_t>(l->size()));
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void LPosCommand(CommandContext& ctx) {
  // As Redis: COUNT and MAXLEN answer these for anything that is not a non-negative
  // integer, RANK the generic "not an integer".
  constexpr std::string_view kCountNegative = "ERR COUNT can't be negative";
  constexpr std::string_view kMaxlenNegative = "ERR MAXLEN can't be negative";
  int64_t rank = 1, count = 1, maxlen = 0;
  bool with_count = false;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view opt = ctx.arg(i);
    const bool is_rank = EqualsIgnoreCase(opt, "RANK");
    const bool is_count = EqualsIgnoreCase(opt, "COUNT");
    const bool is_maxlen = EqualsIgnoreCase(opt, "MAXLEN");
    if (!(is_rank || is_count || is_maxlen) || i + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    auto v = ctx.IntArg(++i, is_count ? kCountNegative : is_maxlen ? kMaxlenNegative
                                                                 : errors::kNotInteger);
    if (!v) {
      return;
    }
    if (is_rank) {
      if (*v == 0) {
        return ctx.rb().Error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second "
            "... or use negative to start from the end of the list");
      }
      if (*v == std::numeric_limits<int64_t>::min()) {
        return ctx.rb().Error(
            "ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807");
      }
      rank = *v;
    } else if (is_count) {
      if (*v < 0) {
        return ctx.rb().Error(kCountNegative);
      }
      count = *v;
      with_count = true;
    } else {
      if (*v < 0) {
        return ctx.rb().Error(kMaxlenNegative);
      }
      maxlen = *v;
    }
  }
  bool bad;
  const ListValue* l = ReadList(ctx, ctx.arg(1), &bad);
  if (bad) {
    return;
  }
  if (l == nullptr) {
    return with_count ? ctx.rb().EmptyArray() : ctx.rb().Null();
  }
  std::vector<int64_t> pos = l->Positions(ctx.arg(2), rank, count, maxlen);
  if (!with_count) {
    return pos.empty() ? ctx.rb().Null() : ctx.rb().Integer(pos[0]);
  }
  ctx.rb().Array(pos.size());
  for (int64_t p : pos) {
    ctx.rb().Integer(p);
  }
}

// Moves one element from src to dst. Returns false (after replying) on WRONGTYPE; a
// missing source replies null. The reply on success is the moved element.
void MoveGeneric(CommandContext& ctx, std::string_view src, std::string_view dst, End from,
                 End to) {
  KeyRef sref;
  if (!ListRef(ctx, src, &sref)) {
    return;
  }
  if (!sref) {
    return ctx.rb().Null();
  }
  KeyRef dref;
  if (!ListRef(ctx, dst, &dref)) {
    return;
  }
  ListValue* sl = ListOf(ctx.db().Lookup(src));
  std::string value = *(from == End::kLeft ? sl->PopFront() : sl->PopBack());
  ctx.KeyModified(src, notify::kList, PopEvent(from));
  if (sl->empty() && src != dst) {
    KeyRef again = ctx.db().Lookup(src);
    DeleteIfEmpty(ctx, again, src, true);
  }
  KeyRef target = ctx.db().Lookup(dst);
  ListValue* dl = GetOrCreate(ctx, dst, target);
  types::EncodingLimits limits = EncodingLimitsFrom(ctx.server().config());
  if (to == End::kLeft) {
    dl->PushFront(value, limits);
  } else {
    dl->PushBack(value, limits);
  }
  ctx.KeyModified(dst, notify::kList, PushEvent(to));
  ctx.AddDirty(-1);  // one change for Redis (lmoveHandlePush)
  // BLMOVE and BRPOPLPUSH (served or not) are replayed as LMOVE and RPOPLPUSH.
  if (ctx.propagating() && ctx.command()->name == "blmove") {
    ctx.PropagateAs({"LMOVE", src, dst, from == End::kLeft ? "LEFT" : "RIGHT",
                     to == End::kLeft ? "LEFT" : "RIGHT"});
  } else if (ctx.propagating() && ctx.command()->name == "brpoplpush") {
    ctx.PropagateAs({"RPOPLPUSH", src, dst});
  }
  ctx.rb().Bulk(value);
}

void LMoveCommand(CommandContext& ctx) {
  auto from = ParseEnd(ctx.arg(3));
  auto to = ParseEnd(ctx.arg(4));
  if (!from || !to) {
    return ctx.rb().Error(errors::kSyntax);
  }
  MoveGeneric(ctx, ctx.arg(1), ctx.arg(2), *from, *to);
}

void RPopLPushCommand(CommandContext& ctx) { MoveGeneric(ctx, ctx.arg(1), ctx.arg(2), End::kRight, End::kLeft); }

// Parses "numkeys key... LEFT|RIGHT [COUNT n]" starting at `first`; replies on error.
bool ParseMPop(CommandContext& ctx, size_t first, MPopArgs* out) {
  auto n = ParseInt64(ctx.arg(first));
  if (!n || *n <= 0) {
    ctx.rb().Error("ERR numkeys should be greater than 0");
    return false;
  }
  if (static_cast<uint64_t>(*n) > ctx.argc() - first - 1) {
    ctx.rb().Error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  size_t i = first + 1;
  for (int64_t k = 0; k < *n; k++) {
    out->keys.push_back(ctx.arg(i++));
  }
  if (i >= ctx.argc()) {
    ctx.rb().Error(errors::kSyntax);
    return false;
  }
  auto end = ParseEnd(ctx.arg(i++));
  if (!end) {
    ctx.rb().Error(errors::kSyntax);
    return false;
  }
  out->end = *end;
  bool seen_count = false;
  while (i < ctx.argc()) {
    if (EqualsIgnoreCase(ctx.arg(i), "COUNT") && i + 1 < ctx.argc() && !seen_count) {
      auto c = ParseInt64(ctx.arg(i + 1));
      if (!c || *c <= 0) {
        ctx.rb().Error("ERR count should be greater than 0");
        return false;
      }
      out->count = *c;
      seen_count = true;
      i += 2;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// Pops from the first non-empty list of `keys`; replies [key, [elements]]. Returns false
// (no reply) when every list is empty; replies WRONGTYPE and returns true on bad types.
bool MPopFirst(CommandContext& ctx, const MPopArgs& a) {
  for (std::string_view key : a.keys) {
    KeyRef ref;
    if (!ListRef(ctx, key, &ref)) {
      return true;
    }
    if (ref) {
      ctx.rb().Array(2);
      ctx.rb().Bulk(key);
      PopAndReply(ctx, ref, key, a.end, true, a.count);
      return true;
    }
  }
  return false;
}

void LMPopCommand(CommandContext& ctx) {
  MPopArgs a;
  if (!ParseMPop(ctx, 1, &a)) {
    return;
  }
  if (!MPopFirst(ctx, a)) {
    ctx.rb().NullArray();
  }
}

}  // namespace list_internal

using namespace list_internal;

void RegisterListCommands(CommandTable& t) {
  const char* kPushDoc = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.";
  t.Add({.name = "lpush", .arity = -3, .flags = "write denyoom fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = LPushCommand,
         .doc = {"list", "1.0.0", kPushDoc, "Adds elements to the head of a list, creating it if needed.", "key element [element ...]"}});
  t.Add({.name = "rpush", .arity = -3, .flags = "write denyoom fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = RPushCommand,
         .doc = {"list", "1.0.0", kPushDoc, "Adds elements to the tail of a list, creating it if needed.", "key element [element ...]"}});
  t.Add({.name = "lpushx", .arity = -3, .flags = "write denyoom fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = LPushXCommand,
         .doc = {"list", "2.2.0", kPushDoc, "Adds elements to the head of a list only if it exists.", "key element [element ...]"}});
  t.Add({.name = "rpushx", .arity = -3, .flags = "write denyoom fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = RPushXCommand,
         .doc = {"list", "2.2.0", kPushDoc, "Adds elements to the tail of a list only if it exists.", "key element [element ...]"}});
  t.Add({.name = "lpop", .arity = -2, .flags = "write fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = LPopCommand,
         .doc = {"list", "1.0.0", "O(N) where N is the number of elements returned",
                 "Removes and returns elements from the head of a list.", "key [count]"}});
  t.Add({.name = "rpop", .arity = -2, .flags = "write fast", .acl = "@write @list @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = RPopCommand,
         .doc = {"list", "1.0.0", "O(N) where N is the number of elements returned",
                 "Removes and returns elements from the tail of a list.", "key [count]"}});
  t.Add({.name = "llen", .arity = 2, .flags = "readonly fast", .acl = "@read @list @fast",
         .keys = {KeyAt(1, "RO")}, .handler = LLenCommand,
         .doc = {"list", "1.0.0", "O(1)", "Returns the length of a list.", "key"}});
  t.Add({.name = "lrange", .arity = 4, .flags = "readonly", .acl = "@read @list @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = LRangeCommand,
         .doc = {"list", "1.0.0", "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
                 "Returns a range of elements of a list (negative indexes count from the tail).", "key start stop"}});
  t.Add({.name = "lindex", .arity = 3, .flags = "readonly", .acl = "@read @list @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = LIndexCommand,
         .doc = {"list", "1.0.0", "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
                 "Returns the element at an index of a list.", "key index"}});
  t.Add({.name = "lset", .arity = 4, .flags = "write denyoom", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = LSetCommand,
         .doc = {"list", "1.0.0", "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
                 "Replaces the element at an index of a list.", "key index element"}});
  t.Add({.name = "lrem", .arity = 4, .flags = "write", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = LRemCommand,
         .doc = {"list", "1.0.0", "O(N+M) where N is the length of the list and M is the number of elements removed.",
                 "Removes occurrences of an element from a list.", "key count element"}});
  t.Add({.name = "ltrim", .arity = 4, .flags = "write", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = LTrimCommand,
         .doc = {"list", "1.0.0", "O(N) where N is the number of elements to be removed by the operation.",
                 "Keeps only a range of a list's elements.", "key start stop"}});
  t.Add({.name = "linsert", .arity = 5, .flags = "write denyoom", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = LInsertCommand,
         .doc = {"list", "2.2.0", "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
                 "Inserts an element before or after another element of a list.", "key <where: BEFORE | AFTER> pivot element"}});
  t.Add({.name = "lpos", .arity = -3, .flags = "readonly", .acl = "@read @list @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = LPosCommand,
         .doc = {"list", "6.0.6", "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
                 "Returns the indexes of matching elements of a list.", "key element [RANK rank] [COUNT num-matches:integer] [MAXLEN len]"}});
  t.Add({.name = "lmove", .arity = 5, .flags = "write denyoom", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "RW INSERT")}, .handler = LMoveCommand,
         .doc = {"list", "6.2.0", "O(1)", "Moves an element from one end of a list to an end of another.",
                 "source destination <wherefrom: LEFT | RIGHT> <whereto: LEFT | RIGHT>"}});
  t.Add({.name = "rpoplpush", .arity = 3, .flags = "write denyoom", .acl = "@write @list @slow",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "RW INSERT")}, .handler = RPopLPushCommand,
         .doc = {"list", "1.2.0", "O(1)", "Moves the last element of a list to the head of another.",
                 "source destination", "deprecated", "6.2.0", "`LMOVE` with the `RIGHT` and `LEFT` arguments"}});
  t.Add({.name = "lmpop", .arity = -4, .flags = "write", .acl = "@write @list @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RW ACCESS DELETE")}, .handler = LMPopCommand,
         .doc = {"list", "7.0.0", "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
                 "Pops elements from the first non-empty list of several.", "numkeys key [key ...] <where: LEFT | RIGHT> [COUNT count]"}});
}

}  // namespace hotkv

// Set algebra: SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE.
//
// Edge cases honoured (as Redis): every input key is type-checked before anything is
// computed, so WRONGTYPE wins over a missing key anywhere in the list; a missing key is an
// empty set; SINTER iterates the smallest input and probes the others; SDIFF with the first
// key repeated later is empty; the *STORE variants replace the destination whatever its
// type (its TTL goes too), delete it when the result is empty ("del" if it existed), and
// may name a source as the destination; SINTERCARD checks numkeys ("ERR numkeys should be
// greater than 0", "ERR Number of keys can't be greater than number of args") and LIMIT
// ("ERR LIMIT can't be negative", 0 = no limit). Replies are sets in RESP3.
#include <algorithm>
#include <vector>

#include "commands/helpers.h"
#include "commands/set_common.h"
#include "engine/entry.h"
#include "server/server.h"
#include "types/function_ref.h"
#include "types/set_value.h"

namespace hotkv {

namespace {

using types::SetValue;

// The sets at arguments [first, first + n): null for a missing key. `read`: lookups
// count as reads (hits/misses, keymiss). Returns false after replying WRONGTYPE.
bool CollectSets(CommandContext& ctx, size_t first, size_t n, bool read,
                 std::vector<const SetValue*>* sets) {
  sets->reserve(n);
  for (size_t i = first; i < first + n; i++) {
    Entry* e = read ? LookupRead(ctx, ctx.arg(i)) : ctx.db().Find(ctx.arg(i));
    if (!CheckType(ctx, e, ValueType::kSet)) {
      return false;
    }
    sets->push_back(e != nullptr ? e->As<SetValue>() : nullptr);
  }
  return true;
}

// Visits the members of the intersection (none if a set is missing) until `emit` returns
// false.
void Intersect(std::vector<const SetValue*> sets,
               types::FunctionRef<bool(std::string_view member)> emit) {
  if (std::find(sets.begin(), sets.end(), nullptr) != sets.end()) {
    return;
  }
  std::sort(sets.begin(), sets.end(),
            [](const SetValue* a, const SetValue* b) { return a->size() < b->size(); });
  const SetValue* smallest = sets[0];
  smallest->ForEach([&](std::string_view member) {
    for (size_t j = 1; j < sets.size(); j++) {
      if (sets[j] != smallest && !sets[j]->Contains(member)) {
        return true;
      }
    }
    return emit(member);
  });
}

// Visits the members of the first set that no other set holds.
void Difference(const std::vector<const SetValue*>& sets,
                types::FunctionRef<void(std::string_view member)> emit) {
  const SetValue* first = sets[0];
  if (first == nullptr) {
    return;
  }
  for (size_t j = 1; j < sets.size(); j++) {
    if (sets[j] == first) {
      return;  // the first key again: nothing is left
    }
  }
  first->ForEach([&](std::string_view member) {
    for (size_t j = 1; j < sets.size(); j++) {
      if (sets[j] != nullptr && sets[j]->Contains(member)) {
        return true;
      }
    }
    emit(member);
    return true;
  });
}

// Stores `result` as `dst`, replacing any value (and TTL) it had; an empty result deletes
// `dst` instead. Replies the size stored.
void StoreSetResult(CommandContext& ctx, std::string_view dst, SetValue result,
                    std::string_view event) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(dst);
  if (result.empty()) {
    if (ref) {
      db.Erase(ref);
      ctx.KeyModified(dst, notify::kGeneric, "del");
    }
    return ctx.rb().Integer(0);
  }
  if (ref) {
    db.Erase(ref);
  }
  const size_t n = result.size();
  InsertSet(ctx, dst, std::move(result));
  ctx.KeyModified(dst, notify::kSet, event);
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// SINTER key [key ...] / SINTERSTORE destination key [key ...]
void SInterGeneric(CommandContext& ctx, size_t first, std::string_view dst, bool store) {
  std::vector<const SetValue*> sets;
  if (!CollectSets(ctx, first, ctx.argc() - first, !store, &sets)) {
    return;
  }
  if (store) {
    const types::EncodingLimits limits = EncodingLimitsFrom(ctx.server().config());
    SetValue result;
    Intersect(sets, [&](std::string_view member) {
      result.Add(member, limits);
      return true;
    });
    return StoreSetResult(ctx, dst, std::move(result), "sinterstore");
  }
  ReplyBuilder& rb = ctx.rb();
  const size_t pos = rb.BeginDeferred();
  size_t n = 0;
  Intersect(sets, [&](std::string_view member) {
    rb.Bulk(member);
    n++;
    return true;
  });
  rb.EndDeferredSet(pos, n);
}
void SInterCommand(CommandContext& ctx) { SInterGeneric(ctx, 1, {}, false); }
void SInterStoreCommand(CommandContext& ctx) { SInterGeneric(ctx, 2, ctx.arg(1), true); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void SInterCardCommand(CommandContext& ctx) {
  auto numkeys = ParseInt64(ctx.arg(1));
  if (!numkeys || *numkeys < 1) {
    return ctx.rb().Error("ERR numkeys should be greater than 0");
  }
  if (*numkeys > static_cast<int64_t>(ctx.argc() - 2)) {
    return ctx.rb().Error("ERR Number of keys can't be greater than number of args");
  }
  const size_t nkeys = static_cast<size_t>(*numkeys);
  int64_t limit = 0;
  for (size_t j = 2 + nkeys; j < ctx.argc(); j++) {
    if (EqualsIgnoreCase(ctx.arg(j), "LIMIT") && j + 1 < ctx.argc()) {
      auto v = ParseInt64(ctx.arg(++j));
      if (!v || *v < 0) {
        return ctx.rb().Error("ERR LIMIT can't be negative");
      }
      limit = *v;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::vector<const SetValue*> sets;
  if (!CollectSets(ctx, 2, nkeys, true, &sets)) {
    return;
  }
  int64_t n = 0;
  Intersect(sets, [&](std::string_view) { return ++n != limit; });
  ctx.rb().Integer(n);
}

// SUNION / SUNIONSTORE / SDIFF / SDIFFSTORE.
void SUnionDiffGeneric(CommandContext& ctx, bool union_op, bool store) {
  const size_t first = store ? 2 : 1;
  std::vector<const SetValue*> sets;
  if (!CollectSets(ctx, first, ctx.argc() - first, true, &sets)) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  if (!union_op && !store) {
    const size_t pos = rb.BeginDeferred();
    size_t n = 0;
    Difference(sets, [&](std::string_view member) {
      rb.Bulk(member);
      n++;
    });
    return rb.EndDeferredSet(pos, n);
  }
  const types::EncodingLimits limits = EncodingLimitsFrom(ctx.server().config());
  SetValue result;
  if (union_op) {
    for (const SetValue* set : sets) {
      if (set != nullptr) {
        set->ForEach([&](std::string_view member) {
          result.Add(member, limits);
          return true;
        });
      }
    }
  } else {
    Difference(sets, [&](std::string_view member) { result.Add(member, limits); });
  }
  if (store) {
    return StoreSetResult(ctx, ctx.arg(1), std::move(result),
                          union_op ? "sunionstore" : "sdiffstore");
  }
  rb.Set(result.size());
  result.ForEach([&](std::string_view member) {
    rb.Bulk(member);
    return true;
  });
}
void SUnionCommand(CommandContext& ctx) { SUnionDiffGeneric(ctx, true, false); }
void SUnionStoreCommand(CommandContext& ctx) { SUnionDiffGeneric(ctx, true, true); }
void SDiffCommand(CommandContext& ctx) { SUnionDiffGeneric(ctx, false, false); }
void SDiffStoreCommand(CommandContext& ctx) { SUnionDiffGeneric(ctx, false, true); }

}  // namespace

void RegisterSetAlgebraCommands(CommandTable& t) {
  const KeySpec kStoreDst = KeyAt(1, "OW UPDATE");
  const KeySpec kStoreSources = KeyRange(2, -1, 1, "RO ACCESS");
  t.Add({.name = "sinter", .arity = -2, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyRange(1, -1, 1, "RO ACCESS")}, .handler = SInterCommand,
         .doc = {"set", "1.0.0",
                 "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
                 "number of sets.",
                 "Returns the members common to every given set.", "key [key ...]"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "sintercard", .arity = -3, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RO ACCESS")}, .handler = SInterCardCommand,
         .doc = {"set", "7.0.0",
                 "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
                 "number of sets.",
                 "Counts the members common to every given set, optionally stopping at a limit.",
                 "numkeys key [key ...] [LIMIT limit]"}});
  t.Add({.name = "sinterstore", .arity = -3, .flags = "write denyoom", .acl = "@write @set @slow",
         .keys = {kStoreDst, kStoreSources}, .handler = SInterStoreCommand,
         .doc = {"set", "1.0.0",
                 "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
                 "number of sets.",
                 "Stores the intersection of sets under a key; returns its size.",
                 "destination key [key ...]"}});
  t.Add({.name = "sunion", .arity = -2, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyRange(1, -1, 1, "RO ACCESS")}, .handler = SUnionCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.",
                 "Returns the members of any of the given sets.", "key [key ...]"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "sunionstore", .arity = -3, .flags = "write denyoom", .acl = "@write @set @slow",
         .keys = {kStoreDst, kStoreSources}, .handler = SUnionStoreCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.",
                 "Stores the union of sets under a key; returns its size.",
                 "destination key [key ...]"}});
  t.Add({.name = "sdiff", .arity = -2, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyRange(1, -1, 1, "RO ACCESS")}, .handler = SDiffCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.",
                 "Returns the members of the first set that no other given set holds.",
                 "key [key ...]"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "sdiffstore", .arity = -3, .flags = "write denyoom", .acl = "@write @set @slow",
         .keys = {kStoreDst, kStoreSources}, .handler = SDiffStoreCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.",
                 "Stores the difference of the first set and the others under a key; returns its "
                 "size.",
                 "destination key [key ...]"}});
}

}  // namespace hotkv

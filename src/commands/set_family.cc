// Set commands: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD SPOP SRANDMEMBER SMOVE
// SSCAN here; SINTER SINTERCARD SUNION SDIFF and the *STORE variants in set_family_algebra.cc.
// Each is a thin wrapper over types::SetValue (see its header for the mapping).
//
// Edge cases honoured (as Redis): a set whose last member goes is deleted (the command's
// event, then "del"); SPOP's count must be a non-negative integer ("ERR value is out of
// range, must be positive") and its reply is a set in RESP3, while SRANDMEMBER's count
// lies in [-LONG_MAX, LONG_MAX] and replies an array; SMOVE from a missing source is 0
// whatever the destination holds, onto itself is a membership test, and a member already
// in the destination still leaves the source; SSCAN on a missing key is an empty scan
// whatever the options.
#include <algorithm>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/set_common.h"
#include "engine/entry.h"
#include "server/server.h"
#include "common/random.h"
#include "types/set_value.h"

namespace hotkv {

using types::SetValue;

SetValue* ReadSet(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = LookupRead(ctx, key);
  *wrong_type = !CheckType(ctx, e, ValueType::kSet);
  return e != nullptr && !*wrong_type ? e->As<SetValue>() : nullptr;
}

SetValue* FindSetForWrite(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = ctx.db().Find(key);
  *wrong_type = !CheckType(ctx, e, ValueType::kSet);
  if (e == nullptr || *wrong_type) {
    return nullptr;
  }
  ctx.TouchEntry(e);
  return e->As<SetValue>();
}

SetValue* InsertSet(CommandContext& ctx, std::string_view key, SetValue set) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  auto* value = new SetValue(std::move(set));
  db.Insert(ref, Entry::NewObject(key, ValueType::kSet, value, false));
  return value;
}

void DeleteEmptiedSet(CommandContext& ctx, std::string_view key) {
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) {
    ctx.db().Erase(ref);
  }
  ctx.Notify(notify::kGeneric, "del", key);
}

namespace {

types::EncodingLimits Limits(CommandContext& ctx) {
  return EncodingLimitsFrom(ctx.server().config());
}

void SAddCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  bool wrong_type;
  SetValue* set = FindSetForWrite(ctx, key, &wrong_type);
  if (wrong_type) {
    return;
  }
  const types::EncodingLimits limits = Limits(ctx);
  const size_t n = ctx.argc() - 2;
  if (set == nullptr) {
    set = InsertSet(ctx, key, SetValue::ForMembers(ctx.arg(2), n, limits));
  } else {
    set->ReserveFor(n, limits);
  }
  int64_t added = 0;
  for (size_t i = 2; i < ctx.argc(); i++) {
    added += set->Add(ctx.arg(i), limits) ? 1 : 0;
  }
  if (added > 0) {
    ctx.KeyModified(key, notify::kSet, "sadd");
    ctx.AddDirty(added - 1);  // Redis: dirty += added
  }
  ctx.rb().Integer(added);
}

void SRemCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  bool wrong_type;
  SetValue* set = FindSetForWrite(ctx, key, &wrong_type);
  if (wrong_type) {
    return;
  }
  if (set == nullptr) {
    return ctx.rb().Integer(0);
  }
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.argc() && !set->empty(); i++) {
    removed += set->Remove(ctx.arg(i)) ? 1 : 0;
  }
  if (removed > 0) {
    ctx.KeyModified(key, notify::kSet, "srem");
    ctx.AddDirty(removed - 1);
    if (set->empty()) {
      DeleteEmptiedSet(ctx, key);
    }
  }
  ctx.rb().Integer(removed);
}

void SMembersCommand(CommandContext& ctx) {
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Set(set ? set->size() : 0);
  if (set != nullptr) {
    set->ForEach([&](std::string_view member) {
      rb.Bulk(member);
      return true;
    });
  }
}

void SIsMemberCommand(CommandContext& ctx) {
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (!wrong_type) {
    ctx.rb().Integer(set != nullptr && set->Contains(ctx.arg(2)) ? 1 : 0);
  }
}

void SMIsMemberCommand(CommandContext& ctx) {
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    ctx.rb().Integer(set != nullptr && set->Contains(ctx.arg(i)) ? 1 : 0);
  }
}

void SCardCommand(CommandContext& ctx) {
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (!wrong_type) {
    ctx.rb().Integer(set ? static_cast<int64_t>(set->size()) : 0);
  }
}

// SPOP key [count]
void SPopCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  std::optional<int64_t> count;
  if (ctx.argc() == 3) {
    count = ctx.IntArg(2, errors::kMustBePositive);
    if (!count) {
      return;
    }
    if (*count < 0) {
      return ctx.rb().Error(errors::kMustBePositive);
    }
  }
  std::string_view key = ctx.arg(1);
  bool wrong_type;
  SetValue* set = FindSetForWrite(ctx, key, &wrong_type);
  if (wrong_type) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  Rng& rng = ThreadRng();
  if (!count) {
    if (set == nullptr) {
      return rb.Null();
    }
    std::optional<std::string> member = set->Pop(rng);
    rb.Bulk(*member);
    ctx.PropagateAs({"SREM", key, *member});  // the random choice, made deterministic
  } else {
    if (set == nullptr || *count == 0) {
      return rb.Set(0);
    }
    std::vector<std::string> popped = set->Pop(static_cast<size_t>(*count), rng);
    ctx.AddDirty(static_cast<int64_t>(popped.size()) - 1);  // Redis: dirty += count
    rb.Set(popped.size());
    for (const std::string& member : popped) {
      rb.Bulk(member);
    }
    // As Redis: the whole set popped goes in as DEL, otherwise SREMs of up to 1024
    // members each.
    if (ctx.propagating()) {
      if (set->empty()) {
        ctx.PropagateAs({"DEL", key});
      } else {
        constexpr size_t kBatch = 1024;
        for (size_t i = 0; i < popped.size(); i += kBatch) {
          std::vector<std::string_view> srem{"SREM", key};
          for (size_t j = i; j < std::min(popped.size(), i + kBatch); j++) {
            srem.emplace_back(popped[j]);
          }
          ctx.PropagateAs(srem);
        }
      }
    }
  }
  ctx.KeyModified(key, notify::kSet, "spop");
  if (set->empty()) {
    DeleteEmptiedSet(ctx, key);
  }
}

// SRANDMEMBER key [count]
void SRandMemberCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  Rng& rng = ThreadRng();
  ReplyBuilder& rb = ctx.rb();
  if (ctx.argc() == 2) {
    bool wrong_type;
    SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
    if (wrong_type) {
      return;
    }
    if (set == nullptr) {
      return rb.Null();
    }
    set->RandomMembers(1, rng, [&](std::string_view member) { rb.Bulk(member); });
    return;
  }
  auto count = ParseRandomCount(ctx, 2);
  if (!count) {
    return;
  }
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  if (set == nullptr || *count == 0) {
    return rb.EmptyArray();
  }
  auto emit = [&](std::string_view member) { rb.Bulk(member); };
  if (*count > 0) {
    rb.Array(std::min<uint64_t>(*count, set->size()));
    set->RandomMembers(*count, rng, emit);
    return;
  }
  // Repeats allowed: emit in chunks so that an absurd count cannot grow the reply forever.
  const uint64_t n = 0 - static_cast<uint64_t>(*count);
  rb.Array(n);
  const size_t start = rb.buffer()->size();
  constexpr uint64_t kChunk = 1000;
  for (uint64_t left = n; left > 0;) {
    const uint64_t chunk = std::min(left, kChunk);
    set->RandomMembers(-static_cast<int64_t>(chunk), rng, emit);
    left -= chunk;
    if (RandomReplyTooLarge(ctx, start)) {
      return;
    }
  }
}

// SMOVE source destination member
void SMoveCommand(CommandContext& ctx) {
  std::string_view src_key = ctx.arg(1);
  std::string_view dst_key = ctx.arg(2);
  std::string_view member = ctx.arg(3);
  Database& db = ctx.db();
  Entry* src_entry = db.Find(src_key);
  Entry* dst_entry = db.Find(dst_key);
  if (src_entry == nullptr) {
    return ctx.rb().Integer(0);
  }
  if (!CheckType(ctx, src_entry, ValueType::kSet) || !CheckType(ctx, dst_entry, ValueType::kSet)) {
    return;
  }
  SetValue* src = src_entry->As<SetValue>();
  if (src_entry == dst_entry) {
    return ctx.rb().Integer(src->Contains(member) ? 1 : 0);
  }
  if (!src->Remove(member)) {
    return ctx.rb().Integer(0);
  }
  ctx.KeyModified(src_key, notify::kSet, "srem");
  if (src->empty()) {
    DeleteEmptiedSet(ctx, src_key);
  }
  const types::EncodingLimits limits = Limits(ctx);
  SetValue* dst = dst_entry != nullptr
                      ? dst_entry->As<SetValue>()
                      : InsertSet(ctx, dst_key, SetValue::ForMembers(member, 1, limits));
  if (dst->Add(member, limits)) {
    ctx.KeyModified(dst_key, notify::kSet, "sadd");
  }
  ctx.rb().Integer(1);
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
void SScanCommand(CommandContext& ctx) {
  auto cursor = ParseScanCursor(ctx, ctx.arg(2));
  if (!cursor) {
    return;
  }
  bool wrong_type;
  SetValue* set = ReadSet(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  if (set == nullptr) {
    rb.Array(2);
    rb.Bulk("0");
    return rb.EmptyArray();
  }
  auto opts = ParseCollectionScanOptions(ctx, 3, ValueType::kSet);
  if (!opts) {
    return;
  }
  std::vector<std::string> members;
  const uint64_t next =
      set->Scan(*cursor, static_cast<size_t>(opts->count), [&](std::string_view member) {
        if (!opts->use_pattern || GlobMatch(opts->pattern, member)) {
          members.emplace_back(member);
        }
      });
  rb.Array(2);
  rb.Bulk(std::to_string(next));
  rb.Array(members.size());
  for (const std::string& member : members) {
    rb.Bulk(member);
  }
}

}  // namespace

void RegisterSetCommands(CommandTable& t) {
  t.Add({.name = "sadd", .arity = -3, .flags = "write denyoom fast", .acl = "@write @set @fast",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = SAddCommand,
         .doc = {"set", "1.0.0",
                 "O(1) for each element added, so O(N) to add N elements when the command is "
                 "called with multiple arguments.",
                 "Adds members to a set, creating the key if needed; returns how many were new.",
                 "key member [member ...]"}});
  t.Add({.name = "srem", .arity = -3, .flags = "write fast", .acl = "@write @set @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = SRemCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the number of members to be removed.",
                 "Removes members from a set (the key goes with the last one); returns how many "
                 "were there.",
                 "key member [member ...]"}});
  t.Add({.name = "smembers", .arity = 2, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SMembersCommand,
         .doc = {"set", "1.0.0", "O(N) where N is the set cardinality.",
                 "Returns every member of a set.", "key"},
         .tips = {"nondeterministic_output_order"}});
  t.Add({.name = "sismember", .arity = 3, .flags = "readonly fast", .acl = "@read @set @fast",
         .keys = {KeyAt(1, "RO")}, .handler = SIsMemberCommand,
         .doc = {"set", "1.0.0", "O(1)", "Tells whether a value is a member of a set.",
                 "key member"}});
  t.Add({.name = "smismember", .arity = -3, .flags = "readonly fast", .acl = "@read @set @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SMIsMemberCommand,
         .doc = {"set", "6.2.0",
                 "O(N) where N is the number of elements being checked for membership",
                 "Tells for each of several values whether it is a member of a set.",
                 "key member [member ...]"}});
  t.Add({.name = "scard", .arity = 2, .flags = "readonly fast", .acl = "@read @set @fast",
         .keys = {KeyAt(1, "RO")}, .handler = SCardCommand,
         .doc = {"set", "1.0.0", "O(1)", "Returns the number of members of a set.", "key"}});
  t.Add({.name = "spop", .arity = -2, .flags = "write fast", .acl = "@write @set @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = SPopCommand,
         .doc = {"set", "1.0.0",
                 "Without the count argument O(1), otherwise O(N) where N is the value of the "
                 "passed count.",
                 "Removes and returns random members of a set (the key goes with the last one).",
                 "key [count]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "srandmember", .arity = -2, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SRandMemberCommand,
         .doc = {"set", "1.0.0",
                 "Without the count argument O(1), otherwise O(N) where N is the absolute value "
                 "of the passed count.",
                 "Returns random members of a set: distinct ones for a positive count, possibly "
                 "repeated ones for a negative count.",
                 "key [count]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "smove", .arity = 4, .flags = "write fast", .acl = "@write @set @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "RW INSERT")}, .handler = SMoveCommand,
         .doc = {"set", "1.0.0", "O(1)", "Moves a member from one set to another.",
                 "source destination member"}});
  t.Add({.name = "sscan", .arity = -3, .flags = "readonly", .acl = "@read @set @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = SScanCommand,
         .doc = {"set", "2.8.0",
                 "O(1) for every call. O(N) for a complete iteration, including enough command "
                 "calls for the cursor to return back to 0. N is the number of elements inside "
                 "the collection.",
                 "Iterates over the members of a set with a cursor.",
                 "key cursor [MATCH pattern] [COUNT count]"},
         .tips = {"nondeterministic_output"}});
  RegisterSetAlgebraCommands(t);
}

}  // namespace hotkv

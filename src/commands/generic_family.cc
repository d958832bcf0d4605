// Generic key commands: DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL
// EXPIRETIME PEXPIRETIME PERSIST RENAME RENAMENX COPY MOVE TOUCH OBJECT. (Whole-database
// commands — KEYS SCAN RANDOMKEY DBSIZE FLUSH* SELECT SWAPDB — are in keyspace_family.cc.)
//
// Edge cases honoured (as Redis): EXPIRE's NX/XX/GT/LT (a key without TTL counts as an
// infinite TTL for GT/LT), a time in the past deletes the key and still returns 1,
// overflow on conversion is "invalid expire time"; TTL rounds to the nearest second;
// RENAME onto itself is OK if the key exists; EXISTS counts repeated keys.
#include <algorithm>
#include <limits>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "engine/eviction.h"
#include "engine/extension_value.h"
#include "engine/lazy_free.h"
#include "engine/vector_set_value.h"
#include "server/server.h"
#include "server/shard_state.h"

namespace hotkv {

namespace {

// UNLINK (and DEL with lazyfree-lazy-user-del yes) hands values above Redis's free-effort
// threshold to the lazy-free thread; smaller ones are freed here either way, so the
// setting (behind the config mutex) is read only for those big values.
void DelGeneric(CommandContext& ctx, bool unlink) {
  int64_t n = 0;
  Database& db = ctx.db();
  for (size_t i = 1; i < ctx.argc(); i++) {
    KeyRef ref = db.Lookup(ctx.arg(i));
    if (!ref) {
      continue;
    }
    Entry* e = db.Detach(ref);
    const bool lazy = unlink || (FreeEffort(e) > kLazyFreeThreshold &&
                                 ctx.server().config().GetString("lazyfree-lazy-user-del") == "yes");
    FreeEntry(e, lazy);
    ctx.KeyModified(ctx.arg(i), notify::kGeneric, "del");
    n++;
  }
  ctx.rb().Integer(n);
}
void DelCommand(CommandContext& ctx) { DelGeneric(ctx, false); }
void UnlinkCommand(CommandContext& ctx) { DelGeneric(ctx, true); }

void ExistsCommand(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.argc(); i++) {
    if (ctx.db().Find(ctx.arg(i)) != nullptr) {
      n++;
    }
  }
  ctx.rb().Integer(n);
}

void TypeCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(1));
  ctx.rb().SimpleString(e ? TypeName(*e) : "none");
}

// EXPIRE family. `unit_ms`: 1000 for seconds. `absolute`: EXPIREAT/PEXPIREAT.
void ExpireGeneric(CommandContext& ctx, int64_t unit_ms, bool absolute) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NX")) {
      nx = true;
    } else if (EqualsIgnoreCase(a, "XX")) {
      xx = true;
    } else if (EqualsIgnoreCase(a, "GT")) {
      gt = true;
    } else if (EqualsIgnoreCase(a, "LT")) {
      lt = true;
    } else {
      return ctx.rb().Error("ERR Unsupported option " + std::string(a));
    }
  }
  if (nx && (xx || gt || lt)) {
    return ctx.rb().Error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if (gt && lt) {
    return ctx.rb().Error("ERR GT and LT options at the same time are not compatible");
  }
  auto v = ctx.IntArg(2);
  if (!v) {
    return;
  }
  int64_t when = *v;
  if (unit_ms == 1000) {
    if (when > std::numeric_limits<int64_t>::max() / 1000 ||
        when < std::numeric_limits<int64_t>::min() / 1000) {
      return ReplyInvalidExpire(ctx);
    }
    when *= 1000;
  }
  if (!absolute && AddOverflow(when, ctx.now_ms(), &when)) {
    return ReplyInvalidExpire(ctx);
  }
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  Entry* e = ref.entry();
  bool has = e->has_ttl();
  int64_t cur = has ? e->expire_ms() : -1;
  if ((nx && has) || (xx && !has) || (gt && (!has || when <= cur)) || (lt && has && when >= cur)) {
    return ctx.rb().Integer(0);
  }
  // Replayed as DEL (a time already past) or PEXPIREAT with the absolute time, as Redis.
  if (when <= ctx.now_ms()) {
    db.Erase(ref);
    ctx.KeyModified(key, notify::kGeneric, "del");
    ctx.PropagateAs({"DEL", key});
  } else {
    db.SetTtl(ref, when);
    ctx.KeyModified(key, notify::kGeneric, "expire");
    if (ctx.propagating()) {
      const std::string at = std::to_string(when);
      ctx.PropagateAs({"PEXPIREAT", key, at});
    }
  }
  ctx.rb().Integer(1);
}
void ExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, false); }
void PExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, false); }
void ExpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, true); }
void PExpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, true); }

// TTL/PTTL (relative) and EXPIRETIME/PEXPIRETIME (absolute).
void TtlGeneric(CommandContext& ctx, bool ms, bool absolute) {
  Entry* e = ctx.db().Find(ctx.arg(1));
  if (e == nullptr) {
    return ctx.rb().Integer(-2);
  }
  if (!e->has_ttl()) {
    return ctx.rb().Integer(-1);
  }
  int64_t at = e->expire_ms();
  if (absolute) {
    // EXPIRETIME rounds to the nearest second, as Redis does (TTL too, below); written
    // so that an expiry near INT64_MAX ms cannot overflow.
    return ctx.rb().Integer(ms ? at : at / 1000 + (at % 1000 >= 500 ? 1 : 0));
  }
  int64_t ttl = std::max<int64_t>(at - ctx.now_ms(), 0);
  ctx.rb().Integer(ms ? ttl : (ttl + 500) / 1000);
}
void TtlCommand(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void PTtlCommand(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void ExpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void PExpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

void PersistCommand(CommandContext& ctx) {
  KeyRef ref = ctx.db().Lookup(ctx.arg(1));
  if (ref && ctx.db().ClearTtl(ref)) {
    ctx.KeyModified(ctx.arg(1), notify::kGeneric, "persist");
    return ctx.rb().Integer(1);
  }
  ctx.rb().Integer(0);
}

// RENAME/RENAMENX: the value and its TTL move to the new key.
void RenameGeneric(CommandContext& ctx, bool nx) {
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  Database& db = ctx.db();
  KeyRef from = db.Lookup(src);
  if (!from) {
    return ctx.rb().Error(errors::kNoSuchKey);
  }
  if (src == dst) {
    return nx ? ctx.rb().Integer(0) : ctx.rb().Ok();
  }
  KeyRef to = db.Lookup(dst);
  if (to) {
    if (nx) {
      return ctx.rb().Integer(0);
    }
    ctx.KeyOverwritten(dst, to.entry()->type(), from.entry()->type());
    db.Erase(to);
  }
  // Detach and Insert may move entries of a shared table: look the source up again.
  from = db.Lookup(src);
  Entry* e = Entry::Rekey(db.Detach(from), dst);
  to = db.Lookup(dst);
  db.Insert(to, e);
  if (VectorSet* set = VectorSetWithWritesInFlight(e)) {
    set->Relocate(db.index(), dst);  // their records name the new key
  }
  ctx.KeyModified(src, notify::kGeneric, "rename_from");
  ctx.KeyModified(dst, notify::kGeneric, "rename_to");
  ctx.AddDirty(-1);  // one change for Redis
  return nx ? ctx.rb().Integer(1) : ctx.rb().Ok();
}
void RenameCommand(CommandContext& ctx) { RenameGeneric(ctx, false); }
void RenameNxCommand(CommandContext& ctx) { RenameGeneric(ctx, true); }

// COPY source destination [DB destination-db] [REPLACE]
void CopyCommand(CommandContext& ctx) {
  int dst_db = ctx.client().db();
  bool replace = false;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(a, "DB") && i + 1 < ctx.argc()) {
      auto d = ParseDbIndex(ctx, ctx.arg(++i));
      if (!d) {
        return;
      }
      dst_db = *d;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (ctx.server().cluster() != nullptr && (dst_db != 0 || ctx.client().db() != 0)) {
    return ctx.rb().Error("ERR Copying to another database is not allowed in cluster mode");
  }
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  if (src == dst && dst_db == ctx.client().db()) {
    return ctx.rb().Error("ERR source and destination objects are the same");
  }
  Database& from_db = ctx.db();
  Entry* e = from_db.Find(src);
  if (e == nullptr) {
    return ctx.rb().Integer(0);
  }
  Database to_db = ctx.DbAt(dst_db);
  KeyRef to = to_db.Lookup(dst);
  if (to) {
    if (!replace) {
      return ctx.rb().Integer(0);
    }
    ctx.KeyOverwritten(dst, to.entry()->type(), e->type(), dst_db);
    to_db.Erase(to);
    to = to_db.Lookup(dst);
  }
  e = from_db.Find(src);
  Entry* copy = Entry::Clone(e, dst);
  if (e->has_ttl()) {
    copy->SetExpireMs(e->expire_ms());
  }
  to_db.Insert(to, copy);
  ctx.KeyModified(dst, notify::kGeneric, "copy_to", dst_db);
  ctx.rb().Integer(1);
}

void MoveCommand(CommandContext& ctx) {
  if (ctx.server().cluster() != nullptr) {
    return ctx.rb().Error("ERR MOVE is not allowed in cluster mode");
  }
  auto d = ParseDbIndex(ctx, ctx.arg(2));
  if (!d) {
    return;
  }
  if (*d == ctx.client().db()) {
    return ctx.rb().Error("ERR source and destination objects are the same");
  }
  std::string_view key = ctx.arg(1);
  Database& from_db = ctx.db();
  KeyRef from = from_db.Lookup(key);
  if (!from) {
    return ctx.rb().Integer(0);
  }
  Database to_db = ctx.DbAt(*d);
  KeyRef to = to_db.Lookup(key);
  if (to) {
    return ctx.rb().Integer(0);
  }
  Entry* e = from_db.Detach(from);
  to_db.Insert(to, e);
  if (VectorSet* set = VectorSetWithWritesInFlight(e)) {
    set->Relocate(*d, key);  // their records name the new database
  }
  ctx.KeyModified(key, notify::kGeneric, "move_from");
  ctx.KeyModified(key, notify::kGeneric, "move_to", *d);
  ctx.AddDirty(-1);  // one change for Redis
  ctx.rb().Integer(1);
}

void TouchCommand(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.argc(); i++) {
    if (Entry* e = ctx.db().Find(ctx.arg(i))) {
      ctx.TouchEntry(e);
      n++;
    }
  }
  ctx.rb().Integer(n);
}

void ObjectEncodingCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(e->EncodingName());
}

void ObjectFreqCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  if (!ctx.server().config().lfu_policy()) {
    return ctx.rb().Error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
        "note that when switching between policies at runtime LRU and LFU data will take "
        "some time to adjust.");
  }
  // The counter as eviction sees it: decayed by the minutes since the last access.
  ctx.rb().Integer(LfuDecayedCounter(e, static_cast<uint32_t>(ctx.now_ms() / 60000),
                                     ctx.server().config().lfu_decay_time()));
}

void ObjectIdleTimeCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  if (ctx.server().config().lfu_policy()) {
    return ctx.rb().Error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
        "when switching between policies at runtime LRU and LFU data will take some time to "
        "adjust.");
  }
  uint32_t now = ctx.server().lru_clock();
  uint32_t then = e->access_clock();
  ctx.rb().Integer(now >= then ? now - then : 0);
}

void ObjectRefCountCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  ctx.rb().Integer(1);
}

void ObjectHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace

void RegisterKeyCommands(CommandTable& t) {
  t.Add({.name = "del", .arity = -2, .flags = "write", .acl = "@keyspace @write @slow",
         .keys = {KeyRange(1, -1, 1, "RM DELETE")}, .handler = DelCommand,
         .doc = {"generic", "1.0.0", "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
                 "Deletes keys; returns how many existed.", "key [key ...]"},
         .tips = {"request_policy:multi_shard", "response_policy:agg_sum"}});
  t.Add({.name = "unlink", .arity = -2, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyRange(1, -1, 1, "RM DELETE")}, .handler = UnlinkCommand,
         .doc = {"generic", "4.0.0", "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
                 "Deletes keys, reclaiming the memory of large values in the background.", "key [key ...]"},
         .tips = {"request_policy:multi_shard", "response_policy:agg_sum"}});
  t.Add({.name = "exists", .arity = -2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyRange(1, -1, 1, "RO")}, .handler = ExistsCommand,
         .doc = {"generic", "1.0.0", "O(N) where N is the number of keys to check.",
                 "Counts how many of the given keys exist (a repeated key counts each time).", "key [key ...]"},
         .tips = {"request_policy:multi_shard", "response_policy:agg_sum"}});
  t.Add({.name = "type", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = TypeCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Returns the type of the value of a key, or none.", "key"}});
  const char* kExpireSyntax = " [condition: NX | XX | GT | LT]";
  t.Add({.name = "expire", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ExpireCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Sets a time to live in seconds on a key.",
                 std::string("key seconds") + kExpireSyntax}});
  t.Add({.name = "pexpire", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PExpireCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Sets a time to live in milliseconds on a key.",
                 std::string("key milliseconds") + kExpireSyntax}});
  t.Add({.name = "expireat", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ExpireAtCommand,
         .doc = {"generic", "1.2.0", "O(1)", "Sets the expiry of a key as a Unix time in seconds.",
                 std::string("key unix-time-seconds") + kExpireSyntax}});
  t.Add({.name = "pexpireat", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PExpireAtCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Sets the expiry of a key as a Unix time in milliseconds.",
                 std::string("key unix-time-milliseconds") + kExpireSyntax}});
  t.Add({.name = "ttl", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = TtlCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Returns the remaining time to live of a key in seconds.", "key"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "pttl", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = PTtlCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Returns the remaining time to live of a key in milliseconds.", "key"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "expiretime", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ExpireTimeCommand,
         .doc = {"generic", "7.0.0", "O(1)", "Returns the expiry of a key as a Unix time in seconds.", "key"}});
  t.Add({.name = "pexpiretime", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = PExpireTimeCommand,
         .doc = {"generic", "7.0.0", "O(1)", "Returns the expiry of a key as a Unix time in milliseconds.", "key"}});
  t.Add({.name = "persist", .arity = 2, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PersistCommand,
         .doc = {"generic", "2.2.0", "O(1)", "Removes the time to live of a key.", "key"}});
  t.Add({.name = "rename", .arity = 3, .flags = "write", .acl = "@keyspace @write @slow",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "OW UPDATE")}, .handler = RenameCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Renames a key, overwriting the destination.", "key newkey"}});
  t.Add({.name = "renamenx", .arity = 3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "OW INSERT")}, .handler = RenameNxCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Renames a key only when the new name is not taken.", "key newkey"}});
  t.Add({.name = "copy", .arity = -3, .flags = "write denyoom", .acl = "@keyspace @write @slow",
         .keys = {KeyAt(1, "RO ACCESS"), KeyAt(2, "OW UPDATE")}, .handler = CopyCommand,
         .doc = {"generic", "6.2.0", "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
                 "Copies the value of a key to a new key, optionally in another database.",
                 "source destination [DB destination-db:integer] [REPLACE]"}});
  t.Add({.name = "move", .arity = 3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = MoveCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Moves a key to another database.", "key db"}});
  t.Add({.name = "touch", .arity = -2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyRange(1, -1, 1, "RO")}, .handler = TouchCommand,
         .doc = {"generic", "3.2.1", "O(N) where N is the number of keys that will be touched.",
                 "Updates the last access time of keys; returns how many exist.", "key [key ...]"},
         .tips = {"request_policy:multi_shard", "response_policy:agg_sum"}});
  t.Add({.name = "object", .arity = -2, .acl = "@slow",
         .doc = {"generic", "2.2.3", "Depends on subcommand.", "A container for object introspection commands.", ""}});
  t.AddSub("object", {.name = "encoding", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectEncodingCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the internal encoding of a value.", "key"},
                      .tips = {"nondeterministic_output"}});
  t.AddSub("object", {.name = "freq", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectFreqCommand,
                      .doc = {"generic", "4.0.0", "O(1)", "Returns the logarithmic access frequency counter of a key.", "key"},
                      .tips = {"nondeterministic_output"}});
  t.AddSub("object", {.name = "idletime", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectIdleTimeCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the seconds since the last access to a key.", "key"},
                      .tips = {"nondeterministic_output"}});
  t.AddSub("object", {.name = "refcount", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectRefCountCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the reference count of a value.", "key"},
                      .tips = {"nondeterministic_output"}});
  t.AddSub("object", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@keyspace @slow",
                      .handler = ObjectHelpCommand,
                      .doc = {"generic", "6.2.0", "O(1)", "Returns helpful text about the OBJECT subcommands.", ""}});
}

}  // namespace hotkv

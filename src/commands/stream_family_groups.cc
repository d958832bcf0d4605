// Consumer-group commands: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER HELP),
// XACK, XPENDING (XCLAIM and XAUTOCLAIM: stream_family_claim.cc).
//
// Edge cases honoured (as Redis 8): XGROUP subcommands other than CREATE ... MKSTREAM need
// the key ("ERR The XGROUP subcommand requires the key to exist ..."), SETID /
// CREATECONSUMER / DELCONSUMER need the group (NOGROUP); "$" is the stream's last id;
// ENTRIESREAD is >= 0 or -1; a destroyed group wakes the XREADGROUP clients blocked on it
// (they get NOGROUP). XACK on a missing key or group answers 0 before parsing ids.
// XPENDING's summary form and extended form ([IDLE ms] start end count [consumer]).
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/stream_common.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace {

using types::PendingEntry;
using types::StreamConsumer;
using types::StreamGroup;

// XGROUP CREATE / SETID / DESTROY / CREATECONSUMER / DELCONSUMER share their checks.
struct GroupTarget {
  StreamValue* stream = nullptr;
  StreamGroup* group = nullptr;
  bool mkstream = false;
  int64_t entries_read = types::kInvalidEntriesRead;
};

bool PrepareGroupCommand(CommandContext& ctx, GroupTarget* t) {
  std::string_view sub = ctx.command()->name;
  const bool create = sub == "create";
  const bool setid = sub == "setid";
  for (size_t i = 5; i < ctx.argc();) {
    if (create && EqualsIgnoreCase(ctx.arg(i), "mkstream")) {
      t->mkstream = true;
      i++;
    } else if ((create || setid) && EqualsIgnoreCase(ctx.arg(i), "entriesread") &&
               i + 1 < ctx.argc()) {
      auto n = ctx.IntArg(i + 1);
      if (!n) {
        return false;
      }
      if (*n < 0 && *n != types::kInvalidEntriesRead) {
        ctx.rb().Error("ERR value for ENTRIESREAD must be positive or -1");
        return false;
      }
      t->entries_read = *n;
      i += 2;
    } else {
      ReplySubcommandSyntaxError(ctx);
      return false;
    }
  }
  bool wrong;
  t->stream = FindStream(ctx, ctx.arg(2), &wrong);
  if (wrong) {
    return false;
  }
  if (!t->mkstream) {
    if (t->stream == nullptr) {
      ctx.rb().Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
      return false;
    }
    t->group = t->stream->FindGroup(ctx.arg(3));
    if (t->group == nullptr && (setid || sub == "createconsumer" || sub == "delconsumer")) {
      ctx.rb().Error("NOGROUP No such consumer group '" + std::string(ctx.arg(3)) +
                     "' for key name '" + std::string(ctx.arg(2)) + "'");
      return false;
    }
  }
  return true;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
void XGroupCreateCommand(CommandContext& ctx) {
  if (ctx.argc() > 8) {
    return ReplySubcommandSyntaxError(ctx);
  }
  GroupTarget t;
  if (!PrepareGroupCommand(ctx, &t)) {
    return;
  }
  std::string_view key = ctx.arg(2);
  StreamId id;
  if (ctx.arg(4) == "$") {
    id = t.stream != nullptr ? t.stream->last_id() : StreamId::Min();
  } else {
    auto parsed = ParseStreamId(ctx, ctx.arg(4), 0, true);
    if (!parsed) {
      return;
    }
    id = *parsed;
  }
  bool created = false;
  if (t.stream == nullptr) {
    t.stream = NewStream(ctx);
    KeyRef ref = ctx.db().Lookup(key);
    ctx.db().Insert(ref, Entry::NewObject(key, ValueType::kStream, t.stream, false));
    created = true;
  }
  if (t.stream->CreateGroup(ctx.arg(3), id, t.entries_read) == nullptr) {
    return ctx.rb().Error("BUSYGROUP Consumer Group name already exists");
  }
  // Redis signals WATCH only when MKSTREAM created the key.
  if (created) {
    ctx.KeyModified(key, notify::kStream, "xgroup-create");
  } else {
    ctx.KeyChangedUnwatched(key, notify::kStream, "xgroup-create");
  }
  ctx.rb().Ok();
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
void XGroupSetIdCommand(CommandContext& ctx) {
  if (ctx.argc() != 5 && ctx.argc() != 7) {
    return ReplySubcommandSyntaxError(ctx);
  }
  GroupTarget t;
  if (!PrepareGroupCommand(ctx, &t)) {
    return;
  }
  StreamId id;
  if (ctx.arg(4) == "$") {
    id = t.stream->last_id();
  } else {
    auto parsed = ParseStreamId(ctx, ctx.arg(4), 0, false);
    if (!parsed) {
      return;
    }
    id = *parsed;
  }
  t.group->last_id = id;
  t.group->entries_read = t.entries_read;
  ctx.KeyChangedUnwatched(ctx.arg(2), notify::kStream, "xgroup-setid");
  ctx.rb().Ok();
}

// XGROUP DESTROY key group
void XGroupDestroyCommand(CommandContext& ctx) {
  GroupTarget t;
  if (!PrepareGroupCommand(ctx, &t)) {
    return;
  }
  if (t.group == nullptr) {
    return ctx.rb().Integer(0);
  }
  t.stream->DestroyGroup(ctx.arg(3));
  // This also signals the key, so XREADGROUP clients blocked on it get NOGROUP.
  ctx.KeyChangedUnwatched(ctx.arg(2), notify::kStream, "xgroup-destroy");
  ctx.rb().Integer(1);
}

// XGROUP CREATECONSUMER key group consumer
void XGroupCreateConsumerCommand(CommandContext& ctx) {
  GroupTarget t;
  if (!PrepareGroupCommand(ctx, &t)) {
    return;
  }
  bool created = false;
  LookupOrCreateConsumer(ctx, ctx.arg(2), *t.group, ctx.arg(4), &created);
  ctx.rb().Integer(created ? 1 : 0);
}

// XGROUP DELCONSUMER key group consumer
void XGroupDelConsumerCommand(CommandContext& ctx) {
  GroupTarget t;
  if (!PrepareGroupCommand(ctx, &t)) {
    return;
  }
  if (t.group->FindConsumer(ctx.arg(4)) == nullptr) {
    return ctx.rb().Integer(0);
  }
  const size_t pending = t.group->DeleteConsumer(ctx.arg(4));
  ctx.KeyChangedUnwatched(ctx.arg(2), notify::kStream, "xgroup-delconsumer");
  ctx.rb().Integer(static_cast<int64_t>(pending));
}

void XGroupHelpCommand(CommandContext& ctx) {
  ReplyLines(ctx, {"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                  "CREATE <key> <groupname> <id|$> [option]",
                  "    Create a new consumer group. Options are:",
                  "    * MKSTREAM",
                  "      Create the empty stream if it does not exist.",
                  "    * ENTRIESREAD entries_read",
                  "      Set the group's entries_read counter (internal use).",
                  "CREATECONSUMER <key> <groupname> <consumer>",
                  "    Create a new consumer in the specified group.",
                  "DELCONSUMER <key> <groupname> <consumer>",
                  "    Remove the specified consumer.",
                  "DESTROY <key> <groupname>",
                  "    Remove the specified group.",
                  "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                  "    Set the current group ID and entries_read counter.",
                  "HELP",
                  "    Print this help."});
}

// XACK key group id [id ...]
void XAckCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  StreamValue* s;
  bool wrong;
  StreamGroup* g = GroupOf(ctx, key, ctx.arg(2), &s, &wrong);
  if (wrong) {
    return;
  }
  if (g == nullptr) {
    return ctx.rb().Integer(0);
  }
  std::vector<StreamId> ids;
  if (!ParseStreamIds(ctx, 3, &ids)) {
    return;
  }
  int64_t acked = 0;
  for (const StreamId& id : ids) {
    acked += g->Ack(id) ? 1 : 0;
  }
  if (acked > 0) {
    StreamDirty(ctx, key);
  }
  ctx.rb().Integer(acked);
}

// XPENDING key group [[IDLE min-idle] start end count [consumer]]
void XPendingCommand(CommandContext& ctx) {
  const size_t argc = ctx.argc();
  if (argc != 3 && (argc < 6 || argc > 9)) {
    return ctx.rb().Error(errors::kSyntax);
  }
  int64_t min_idle = 0;
  int64_t count = 0;
  StreamId start, end;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (argc >= 6) {
    size_t at = 3;
    if (EqualsIgnoreCase(ctx.arg(3), "idle")) {
      auto n = ctx.IntArg(4);
      if (!n) {
        return;
      }
      min_idle = *n;
      if (argc < 8) {
        return ctx.rb().Error(errors::kSyntax);
      }
      at += 2;
    }
    auto c = ctx.IntArg(at + 2);
    if (!c) {
      return;
    }
    count = *c < 0 ? 0 : *c;
    auto s = ParseRangeBound(ctx, ctx.arg(at), true);
    if (!s) {
      return;
    }
    auto e = ParseRangeBound(ctx, ctx.arg(at + 1), false);
    if (!e) {
      return;
    }
    start = *s;
    end = *e;
    if (at + 3 < argc) {
      consumer_name = ctx.arg(at + 3);
      has_consumer = true;
    }
  }
  StreamValue* s;
  StreamGroup* g = GroupOrNoGroup(ctx, ctx.arg(1), ctx.arg(2), &s);
  if (g == nullptr) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  if (argc == 3) {
    rb.Array(4);
    rb.Integer(static_cast<int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      rb.Null();
      rb.Null();
      rb.NullArray();
      return;
    }
    ReplyStreamId(rb, g->pel.begin()->first);
    ReplyStreamId(rb, g->pel.rbegin()->first);
    size_t pos = rb.BeginDeferred();
    size_t n = 0;
    for (const auto& [name, c] : g->consumers) {
      if (c->pel.empty()) {
        continue;
      }
      rb.Array(2);
      rb.Bulk(name);
      rb.Bulk(std::to_string(c->pel.size()));
      n++;
    }
    rb.EndDeferredArray(pos, n);
    return;
  }
  std::map<StreamId, PendingEntry*> all;
  const std::map<StreamId, PendingEntry*>* pel = nullptr;
  if (has_consumer) {
    StreamConsumer* c = g->FindConsumer(consumer_name);
    if (c == nullptr) {
      return rb.EmptyArray();
    }
    pel = &c->pel;
  }
  const int64_t now = ctx.now_ms();
  size_t pos = rb.BeginDeferred();
  size_t n = 0;
  auto emit = [&](const StreamId& id, const PendingEntry& pe) {
    if (count == 0 || id > end) {
      return false;
    }
    if (min_idle != 0 && now - pe.delivery_time < min_idle) {
      return true;
    }
    rb.Array(4);
    ReplyStreamId(rb, id);
    // A nacked entry (XNACK): no consumer, idle -1.
    rb.Bulk(pe.consumer != nullptr ? std::string_view(pe.consumer->name) : std::string_view());
    rb.Integer(pe.consumer != nullptr ? std::max<int64_t>(0, now - pe.delivery_time) : -1);
    rb.Integer(static_cast<int64_t>(pe.delivery_count));
    n++;
    count--;
    return true;
  };
  if (pel != nullptr) {
    for (auto it = pel->lower_bound(start); it != pel->end() && emit(it->first, *it->second); ++it) {
    }
  } else {
    for (auto it = g->pel.lower_bound(start); it != g->pel.end() && emit(it->first, *it->second);
         ++it) {
    }
  }
  rb.EndDeferredArray(pos, n);
}

}  // namespace

void RegisterStreamGroupCommands(CommandTable& t) {
  t.Add({.name = "xgroup", .arity = -2, .acl = "@slow",
         .doc = {"stream", "5.0.0", "Depends on subcommand.", "A container for consumer groups commands.", ""}});
  t.AddSub("xgroup", {.name = "create", .arity = -5, .flags = "write denyoom", .acl = "@write @stream @slow",
                      .keys = {KeyAt(2, "RW INSERT")}, .handler = XGroupCreateCommand,
                      .doc = {"stream", "5.0.0", "O(1)", "Creates a consumer group.",
                              "key group <id-selector: id:string | <new-id: '$'>> [MKSTREAM] [ENTRIESREAD entriesread:integer]"}});
  t.AddSub("xgroup", {.name = "setid", .arity = -5, .flags = "write", .acl = "@write @stream @slow",
                      .keys = {KeyAt(2, "RW UPDATE")}, .handler = XGroupSetIdCommand,
                      .doc = {"stream", "5.0.0", "O(1)", "Sets the last-delivered id of a consumer group.",
                              "key group <id-selector: id:string | <new-id: '$'>> [ENTRIESREAD entriesread:integer]"}});
  t.AddSub("xgroup", {.name = "destroy", .arity = 4, .flags = "write", .acl = "@write @stream @slow",
                      .keys = {KeyAt(2, "RW DELETE")}, .handler = XGroupDestroyCommand,
                      .doc = {"stream", "5.0.0", "O(N) where N is the number of entries in the group's pending entries list (PEL).",
                              "Destroys a consumer group.", "key group"}});
  t.AddSub("xgroup", {.name = "createconsumer", .arity = 5, .flags = "write denyoom", .acl = "@write @stream @slow",
                      .keys = {KeyAt(2, "RW INSERT")}, .handler = XGroupCreateConsumerCommand,
                      .doc = {"stream", "6.2.0", "O(1)", "Creates a consumer in a consumer group.",
                              "key group consumer"}});
  t.AddSub("xgroup", {.name = "delconsumer", .arity = 5, .flags = "write", .acl = "@write @stream @slow",
                      .keys = {KeyAt(2, "RW DELETE")}, .handler = XGroupDelConsumerCommand,
                      .doc = {"stream", "5.0.0", "O(1)",
                              "Deletes a consumer from a consumer group; returns how many entries it had pending.",
                              "key group consumer"}});
  t.AddSub("xgroup", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@stream @slow",
                      .handler = XGroupHelpCommand,
                      .doc = {"stream", "5.0.0", "O(1)", "Returns helpful text about the XGROUP subcommands.", ""}});
  t.Add({.name = "xack", .arity = -4, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XAckCommand,
         .doc = {"stream", "5.0.0", "O(1) for each message ID processed.",
                 "Removes entries from a consumer group's pending list; returns how many were pending.",
                 "key group id:string [id:string ...]"}});
  t.Add({.name = "xpending", .arity = -3, .flags = "readonly", .acl = "@read @stream @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = XPendingCommand,
         .doc = {"stream", "5.0.0",
                 "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
                 "Returns a consumer group's pending entries: a summary, or the entries in a range.",
                 "key group [filters: [IDLE min-idle-time:integer] start:string end:string count [consumer]]"},
         .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv

// Consumer-group commands: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER HELP),
// XACK, XPENDING, XCLAIM, XAUTOCLAIM.
//
// Edge cases honoured (as Redis 8): XGROUP subcommands other than CREATE ... MKSTREAM need
// the key ("ERR The XGROUP subcommand requires the key to exist ..."), SETID /
// CREATECONSUMER / DELCONSUMER need the group (NOGROUP); "$" is the stream's last id;
// ENTRIESREAD is >= 0 or -1; a destroyed group wakes the XREADGROUP clients blocked on it
// (they get NOGROUP). XACK on a missing key or group answers 0 before parsing ids.
// XPENDING's summary form and extended form ([IDLE ms] start end count [consumer]);
// XCLAIM's min-idle-time, IDLE/TIME (clamped to now), RETRYCOUNT, FORCE, JUSTID (no
// delivery count increment), LASTID; entries deleted from the stream are dropped from the
// PEL (XAUTOCLAIM reports them). XCLAIM and XAUTOCLAIM are replayed as the XCLAIM ... TIME
// ... RETRYCOUNT ... FORCE JUSTID LASTID records Redis writes, one per entry.
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
    t.stream = new StreamValue();
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

void ReplyHelp(CommandContext& ctx, const std::vector<std::string_view>& lines) {
  ctx.rb().Array(lines.size());
  for (std::string_view l : lines) {
    ctx.rb().SimpleString(l);
  }
}

void XGroupHelpCommand(CommandContext& ctx) {
  ReplyHelp(ctx, {"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
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

// The group of `key` for XACK/XCLAIM/...: null with *wrong set (WRONGTYPE replied) or
// with *missing set (nothing replied).
StreamGroup* GroupOf(CommandContext& ctx, std::string_view key, std::string_view group,
                     StreamValue** stream, bool* wrong) {
  *stream = ReadStream(ctx, key, wrong);
  if (*wrong || *stream == nullptr) {
    return nullptr;
  }
  return (*stream)->FindGroup(group);
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
  for (size_t j = 3; j < ctx.argc(); j++) {
    auto id = ParseStreamId(ctx, ctx.arg(j), 0, true);
    if (!id) {
      return;
    }
    ids.push_back(*id);
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
  std::string_view key = ctx.arg(1);
  StreamValue* s;
  bool wrong;
  StreamGroup* g = GroupOf(ctx, key, ctx.arg(2), &s, &wrong);
  if (wrong) {
    return;
  }
  if (g == nullptr) {
    return ReplyNoGroup(ctx, key, ctx.arg(2));
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
    rb.Bulk(pe.consumer->name);
    rb.Integer(std::max<int64_t>(0, now - pe.delivery_time));
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

void ReplyClaimed(CommandContext& ctx, const StreamValue& s, const StreamId& id, bool justid) {
  if (justid) {
    ReplyStreamId(ctx.rb(), id);
  } else {
    s.Get(id, [&](const StreamId& i, const types::StreamFields& fv) {
      ReplyStreamEntry(ctx.rb(), i, fv);
      return true;
    });
  }
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT n]
//        [FORCE] [JUSTID] [LASTID id]
void XClaimCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::string_view group_name = ctx.arg(2);
  StreamValue* s;
  bool wrong;
  StreamGroup* g = GroupOf(ctx, key, group_name, &s, &wrong);
  if (wrong) {
    return;
  }
  if (g == nullptr) {
    return ReplyNoGroup(ctx, key, group_name);
  }
  auto min_idle = ctx.IntArg(4, "ERR Invalid min-idle-time argument for XCLAIM");
  if (!min_idle) {
    return;
  }
  std::vector<StreamId> ids;
  size_t j = 5;
  for (; j < ctx.argc(); j++) {
    auto id = StreamId::Parse(ctx.arg(j), 0);
    if (!id || ctx.arg(j) == "-" || ctx.arg(j) == "+") {
      break;
    }
    ids.push_back(*id);
  }
  const int64_t now = ctx.now_ms();
  int64_t delivery_time = -1;
  int64_t retry_count = -1;
  bool force = false, justid = false;
  StreamId last_id;
  for (; j < ctx.argc(); j++) {
    const bool more = j + 1 < ctx.argc();
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "force")) {
      force = true;
    } else if (EqualsIgnoreCase(opt, "justid")) {
      justid = true;
    } else if (EqualsIgnoreCase(opt, "idle") && more) {
      auto n = ctx.IntArg(++j, "ERR Invalid IDLE option argument for XCLAIM");
      if (!n) {
        return;
      }
      delivery_time = now - *n;
    } else if (EqualsIgnoreCase(opt, "time") && more) {
      auto n = ctx.IntArg(++j, "ERR Invalid TIME option argument for XCLAIM");
      if (!n) {
        return;
      }
      delivery_time = *n;
    } else if (EqualsIgnoreCase(opt, "retrycount") && more) {
      auto n = ctx.IntArg(++j, "ERR Invalid RETRYCOUNT option argument for XCLAIM");
      if (!n) {
        return;
      }
      retry_count = *n;
    } else if (EqualsIgnoreCase(opt, "lastid") && more) {
      auto id = ParseStreamId(ctx, ctx.arg(++j), 0, true);
      if (!id) {
        return;
      }
      last_id = *id;
    } else {
      return ctx.rb().Error("ERR Unrecognized XCLAIM option '" + std::string(opt) + "'");
    }
  }
  ctx.PreventPropagation();
  bool propagate_last_id = false;
  if (last_id > g->last_id) {
    g->last_id = last_id;
    propagate_last_id = true;
  }
  if (delivery_time == -1 || delivery_time < 0 || delivery_time > now) {
    delivery_time = now;
  }
  StreamConsumer* consumer = LookupOrCreateConsumer(ctx, key, *g, ctx.arg(3));
  consumer->seen_time = now;
  size_t pos = ctx.rb().BeginDeferred();
  size_t n = 0;
  bool changed = false;
  for (const StreamId& id : ids) {
    auto it = g->pel.find(id);
    PendingEntry* pe = it == g->pel.end() ? nullptr : it->second.get();
    if (!s->Contains(id)) {
      if (pe != nullptr) {
        PropagateXClaim(ctx, key, group_name, *g, id, *pe);
        propagate_last_id = false;
        changed = true;
        g->Ack(id);
      }
      continue;
    }
    if (force && pe == nullptr) {
      auto fresh = std::make_unique<PendingEntry>();
      fresh->delivery_time = now;
      fresh->delivery_count = 1;
      pe = fresh.get();
      g->pel.emplace(id, std::move(fresh));
    }
    if (pe == nullptr) {
      continue;
    }
    if (pe->consumer != nullptr && *min_idle > 0 && now - pe->delivery_time < *min_idle) {
      continue;
    }
    g->Reassign(pe, id, consumer);
    pe->delivery_time = delivery_time;
    if (retry_count >= 0) {
      pe->delivery_count = static_cast<uint64_t>(retry_count);
    } else if (!justid) {
      pe->delivery_count++;
    }
    ReplyClaimed(ctx, *s, id, justid);
    n++;
    consumer->active_time = now;
    PropagateXClaim(ctx, key, group_name, *g, id, *pe);
    propagate_last_id = false;
    changed = true;
  }
  if (propagate_last_id) {
    PropagateGroupSetId(ctx, key, group_name, *g);
    changed = true;
  }
  if (changed) {
    StreamDirty(ctx, key);
  }
  ctx.rb().EndDeferredArray(pos, n);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void XAutoClaimCommand(CommandContext& ctx) {
  auto min_idle = ctx.IntArg(4, "ERR Invalid min-idle-time argument for XAUTOCLAIM");
  if (!min_idle) {
    return;
  }
  auto start = ParseRangeBound(ctx, ctx.arg(5), true);
  if (!start) {
    return;
  }
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < ctx.argc(); j++) {
    if (EqualsIgnoreCase(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      constexpr int64_t kMaxCount = INT64_MAX / 16;
      auto n = ParseInt64(ctx.arg(j + 1));
      if (!n || *n < 1 || *n > kMaxCount) {
        return ctx.rb().Error("ERR COUNT must be > 0");
      }
      count = *n;
      j++;
    } else if (EqualsIgnoreCase(ctx.arg(j), "justid")) {
      justid = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::string_view key = ctx.arg(1);
  std::string_view group_name = ctx.arg(2);
  StreamValue* s;
  bool wrong;
  StreamGroup* g = GroupOf(ctx, key, group_name, &s, &wrong);
  if (wrong) {
    return;
  }
  if (g == nullptr) {
    return ReplyNoGroup(ctx, key, group_name);
  }
  ctx.PreventPropagation();
  const int64_t now = ctx.now_ms();
  StreamConsumer* consumer = LookupOrCreateConsumer(ctx, key, *g, ctx.arg(3));
  consumer->seen_time = now;
  ReplyBuilder& rb = ctx.rb();
  rb.Array(3);
  // The next cursor comes first in the reply but is known last: build the claimed
  // entries in a side buffer.
  ByteBuffer entries_buf;
  ReplyBuilder entries(&entries_buf);
  entries.set_resp3(rb.resp3());
  std::vector<StreamId> deleted;
  int64_t attempts = count * 10;
  size_t n = 0;
  bool changed = false;
  auto it = g->pel.lower_bound(*start);
  while (attempts-- > 0 && count > 0 && it != g->pel.end()) {
    const StreamId id = it->first;
    PendingEntry* pe = it->second.get();
    if (!s->Contains(id)) {
      PropagateXClaim(ctx, key, group_name, *g, id, *pe);
      changed = true;
      ++it;
      g->Ack(id);
      deleted.push_back(id);
      count--;
      continue;
    }
    ++it;
    if (*min_idle > 0 && now - pe->delivery_time < *min_idle) {
      continue;
    }
    g->Reassign(pe, id, consumer);
    pe->delivery_time = now;
    if (!justid) {
      pe->delivery_count++;
    }
    if (justid) {
      ReplyStreamId(entries, id);
    } else {
      s->Get(id, [&](const StreamId& i, const types::StreamFields& fv) {
        ReplyStreamEntry(entries, i, fv);
        return true;
      });
    }
    n++;
    count--;
    consumer->active_time = now;
    PropagateXClaim(ctx, key, group_name, *g, id, *pe);
    changed = true;
  }
  ReplyStreamId(rb, it == g->pel.end() ? StreamId::Min() : it->first);
  rb.Array(n);
  rb.Raw(entries_buf.view());
  rb.Array(deleted.size());
  for (const StreamId& id : deleted) {
    ReplyStreamId(rb, id);
  }
  if (changed) {
    StreamDirty(ctx, key);
  }
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
                 "key group ID:string [ID:string ...]"}});
  t.Add({.name = "xpending", .arity = -3, .flags = "readonly", .acl = "@read @stream @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = XPendingCommand,
         .doc = {"stream", "5.0.0",
                 "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
                 "Returns a consumer group's pending entries: a summary, or the entries in a range.",
                 "key group [filters: [IDLE min-idle-time:integer] start:string end:string count [consumer]]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xclaim", .arity = -6, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XClaimCommand,
         .doc = {"stream", "5.0.0", "O(log N) with N being the number of messages in the PEL of the consumer group.",
                 "Gives pending entries idle long enough to another consumer.",
                 "key group consumer min-idle-time ID:string [ID:string ...] [IDLE ms:integer] [TIME unix-time-milliseconds] "
                 "[RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xautoclaim", .arity = -6, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = XAutoClaimCommand,
         .doc = {"stream", "6.2.0", "O(1) if COUNT is small.",
                 "Gives pending entries idle long enough to another consumer, scanning the PEL from a cursor.",
                 "key group consumer min-idle-time start:string [COUNT count] [JUSTID]"},
         .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv

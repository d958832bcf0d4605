// XINFO STREAM [FULL [COUNT n]] / GROUPS / CONSUMERS / HELP, with Redis 8.0's reply
// shapes (maps in RESP3). radix-tree-keys is the number of blocks; radix-tree-nodes, an
// internal figure of Redis's radix tree, is reported as blocks + 1 (what Redis reports
// for a stream of one node). lag and entries-read follow Redis 7's tracking
// (types::StreamValue::Lag).
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/stream_common.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace {

using types::StreamConsumer;
using types::StreamGroup;

// The stream of XINFO <sub> key: null after replying WRONGTYPE or "ERR no such key".
StreamValue* InfoStream(CommandContext& ctx) {
  bool wrong;
  StreamValue* s = ReadStream(ctx, ctx.arg(2), &wrong);
  if (s == nullptr && !wrong) {
    ctx.rb().Error(errors::kNoSuchKey);
  }
  return s;
}

void ReplyLag(ReplyBuilder& rb, const StreamValue& s, const StreamGroup& g) {
  auto lag = s.Lag(g);
  if (lag) {
    rb.Integer(*lag);
  } else {
    rb.Null();
  }
}

void ReplyEntriesRead(ReplyBuilder& rb, const StreamGroup& g) {
  if (g.entries_read != types::kInvalidEntriesRead) {
    rb.Integer(g.entries_read);
  } else {
    rb.Null();
  }
}

// The first or last entry, or nil.
void ReplyEdge(ReplyBuilder& rb, const StreamValue& s, bool last) {
  bool found = false;
  s.Range(StreamId::Min(), StreamId::Max(), last, 1,
          [&](const StreamId& id, const types::StreamFields& fv) {
            ReplyStreamEntry(rb, id, fv);
            found = true;
            return false;
          });
  if (!found) {
    rb.Null();
  }
}

void ReplyFullGroups(ReplyBuilder& rb, const StreamValue& s, int64_t count) {
  rb.Array(s.groups().size());
  auto limit_reached = [&](size_t n) { return count != 0 && n >= static_cast<size_t>(count); };
  for (const auto& [name, g] : s.groups()) {
    rb.Map(8);
    rb.Bulk("name");
    rb.Bulk(name);
    rb.Bulk("last-delivered-id");
    ReplyStreamId(rb, g->last_id);
    rb.Bulk("entries-read");
    ReplyEntriesRead(rb, *g);
    rb.Bulk("lag");
    ReplyLag(rb, s, *g);
    rb.Bulk("pel-count");
    rb.Integer(static_cast<int64_t>(g->pel.size()));
    rb.Bulk("nacked-count");
    rb.Integer(static_cast<int64_t>(g->NackedCount()));
    rb.Bulk("pending");
    size_t pos = rb.BeginDeferred();
    size_t n = 0;
    for (auto it = g->pel.begin(); it != g->pel.end() && !limit_reached(n); ++it, ++n) {
      rb.Array(4);
      ReplyStreamId(rb, it->first);
      const types::StreamConsumer* owner = it->second->consumer;
      rb.Bulk(owner != nullptr ? std::string_view(owner->name) : std::string_view());
      rb.Integer(it->second->delivery_time);
      rb.Integer(static_cast<int64_t>(it->second->delivery_count));
    }
    rb.EndDeferredArray(pos, n);
    rb.Bulk("consumers");
    rb.Array(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      rb.Map(5);
      rb.Bulk("name");
      rb.Bulk(cname);
      rb.Bulk("seen-time");
      rb.Integer(c->seen_time);
      rb.Bulk("active-time");
      rb.Integer(c->active_time);
      rb.Bulk("pel-count");
      rb.Integer(static_cast<int64_t>(c->pel.size()));
      rb.Bulk("pending");
      size_t cpos = rb.BeginDeferred();
      size_t cn = 0;
      for (auto it = c->pel.begin(); it != c->pel.end() && !limit_reached(cn); ++it, ++cn) {
        rb.Array(3);
        ReplyStreamId(rb, it->first);
        rb.Integer(it->second->delivery_time);
        rb.Integer(static_cast<int64_t>(it->second->delivery_count));
      }
      rb.EndDeferredArray(cpos, cn);
    }
  }
}

// XINFO STREAM key [FULL [COUNT count]]
void XInfoStreamCommand(CommandContext& ctx) {
  const size_t optc = ctx.argc() - 3;
  bool full = false;
  int64_t count = 10;
  if (optc != 0) {
    if ((optc != 1 && optc != 3) || !EqualsIgnoreCase(ctx.arg(3), "full") ||
        (optc == 3 && !EqualsIgnoreCase(ctx.arg(4), "count"))) {
      return ReplySubcommandSyntaxError(ctx);
    }
    full = true;
    if (optc == 3) {
      auto n = ctx.IntArg(5);
      if (!n) {
        return;
      }
      count = *n < 0 ? 10 : *n;
    }
  }
  StreamValue* s = InfoStream(ctx);
  if (s == nullptr) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Map(full ? 15 : 16);
  rb.Bulk("length");
  rb.Integer(static_cast<int64_t>(s->length()));
  rb.Bulk("radix-tree-keys");
  rb.Integer(static_cast<int64_t>(s->BlockCount()));
  rb.Bulk("radix-tree-nodes");
  rb.Integer(static_cast<int64_t>(s->BlockCount() + 1));
  rb.Bulk("last-generated-id");
  ReplyStreamId(rb, s->last_id());
  rb.Bulk("max-deleted-entry-id");
  ReplyStreamId(rb, s->max_deleted_id());
  rb.Bulk("entries-added");
  rb.Integer(static_cast<int64_t>(s->entries_added()));
  rb.Bulk("recorded-first-entry-id");
  ReplyStreamId(rb, s->FirstId());
  // Redis 8.6's IDMP settings and counters (records past their duration not counted).
  const int64_t duration = IdmpDuration(ctx, *s);
  uint64_t pids = 0, iids = 0;
  if (const types::StreamIdmp* im = s->idmp()) {
    im->CountLive(ctx.now_ms(), duration, &pids, &iids);
  }
  rb.Bulk("idmp-duration");
  rb.Integer(duration);
  rb.Bulk("idmp-maxsize");
  rb.Integer(IdmpMaxSize(ctx, *s));
  rb.Bulk("pids-tracked");
  rb.Integer(static_cast<int64_t>(pids));
  rb.Bulk("iids-tracked");
  rb.Integer(static_cast<int64_t>(iids));
  rb.Bulk("iids-added");
  rb.Integer(s->idmp() != nullptr ? static_cast<int64_t>(s->idmp()->iids_added) : 0);
  rb.Bulk("iids-duplicates");
  rb.Integer(s->idmp() != nullptr ? static_cast<int64_t>(s->idmp()->iids_duplicates) : 0);
  if (!full) {
    rb.Bulk("groups");
    rb.Integer(static_cast<int64_t>(s->groups().size()));
    rb.Bulk("first-entry");
    ReplyEdge(rb, *s, false);
    rb.Bulk("last-entry");
    ReplyEdge(rb, *s, true);
    return;
  }
  rb.Bulk("entries");
  ReplyStreamRange(rb, *s, StreamId::Min(), StreamId::Max(), false, static_cast<size_t>(count));
  rb.Bulk("groups");
  ReplyFullGroups(rb, *s, count);
}

// XINFO GROUPS key
void XInfoGroupsCommand(CommandContext& ctx) {
  StreamValue* s = InfoStream(ctx);
  if (s == nullptr) {
    return;
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(s->groups().size());
  for (const auto& [name, g] : s->groups()) {
    rb.Map(6);
    rb.Bulk("name");
    rb.Bulk(name);
    rb.Bulk("consumers");
    rb.Integer(static_cast<int64_t>(g->consumers.size()));
    rb.Bulk("pending");
    rb.Integer(static_cast<int64_t>(g->pel.size()));
    rb.Bulk("last-delivered-id");
    ReplyStreamId(rb, g->last_id);
    rb.Bulk("entries-read");
    ReplyEntriesRead(rb, *g);
    rb.Bulk("lag");
    ReplyLag(rb, *s, *g);
  }
}

// XINFO CONSUMERS key group
void XInfoConsumersCommand(CommandContext& ctx) {
  StreamValue* s = InfoStream(ctx);
  if (s == nullptr) {
    return;
  }
  StreamGroup* g = s->FindGroup(ctx.arg(3));
  if (g == nullptr) {
    return ctx.rb().Error("NOGROUP No such consumer group '" + std::string(ctx.arg(3)) +
                          "' for key name '" + std::string(ctx.arg(2)) + "'");
  }
  ReplyBuilder& rb = ctx.rb();
  const int64_t now = ctx.now_ms();
  rb.Array(g->consumers.size());
  for (const auto& [name, c] : g->consumers) {
    rb.Map(4);
    rb.Bulk("name");
    rb.Bulk(name);
    rb.Bulk("pending");
    rb.Integer(static_cast<int64_t>(c->pel.size()));
    rb.Bulk("idle");
    rb.Integer(std::max<int64_t>(0, now - c->seen_time));
    rb.Bulk("inactive");
    rb.Integer(c->active_time != -1 ? now - c->active_time : -1);
  }
}

void XInfoHelpCommand(CommandContext& ctx) {
  ReplyLines(ctx, {
      "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CONSUMERS <key> <groupname>",
      "    Show consumers of <groupname>.",
      "GROUPS <key>",
      "    Show the stream consumer groups.",
      "STREAM <key> [FULL [COUNT <count>]",
      "    Show information about the stream.",
      "HELP",
      "    Print this help."});
}

}  // namespace

void RegisterStreamInfoCommands(CommandTable& t) {
  t.Add({.name = "xinfo", .arity = -2, .acl = "@slow",
         .doc = {"stream", "5.0.0", "Depends on subcommand.", "A container for stream introspection commands.", ""}});
  t.AddSub("xinfo", {.name = "stream", .arity = -3, .flags = "readonly", .acl = "@read @stream @slow",
                     .keys = {KeyAt(2, "RO ACCESS")}, .handler = XInfoStreamCommand,
                     .doc = {"stream", "5.0.0", "O(1)", "Returns information about a stream.",
                             "key [full-block: <full: FULL> [COUNT count]]"}});
  t.AddSub("xinfo", {.name = "groups", .arity = 3, .flags = "readonly", .acl = "@read @stream @slow",
                     .keys = {KeyAt(2, "RO ACCESS")}, .handler = XInfoGroupsCommand,
                     .doc = {"stream", "5.0.0", "O(1)", "Returns the consumer groups of a stream.", "key"}});
  t.AddSub("xinfo", {.name = "consumers", .arity = 4, .flags = "readonly", .acl = "@read @stream @slow",
                     .keys = {KeyAt(2, "RO ACCESS")}, .handler = XInfoConsumersCommand,
                     .doc = {"stream", "5.0.0", "O(1)", "Returns the consumers of a consumer group.", "key group"},
                     .tips = {"nondeterministic_output"}});
  t.AddSub("xinfo", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@stream @slow",
                     .handler = XInfoHelpCommand,
                     .doc = {"stream", "5.0.0", "O(1)", "Returns helpful text about the XINFO subcommands.", ""}});
}

}  // namespace hotkv

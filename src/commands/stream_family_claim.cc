// XCLAIM and XAUTOCLAIM: give pending entries of a consumer group to another consumer.
//
// Edge cases honoured (as Redis 8): XCLAIM's min-idle-time, IDLE/TIME (a time before 0 or
// after now is now), RETRYCOUNT, FORCE (creates the pending entry of an entry that exists),
// JUSTID (no delivery count increment), LASTID (moves the group's last id forward); the
// consumer is created even when nothing is claimed (Redis >= 7.2); entries deleted from
// the stream are dropped from the PEL (XAUTOCLAIM reports them in its third reply). Both
// are replayed as the XCLAIM ... TIME ... RETRYCOUNT ... FORCE JUSTID LASTID records
// Redis writes, one per entry, or XGROUP SETID when only LASTID changed something.
//
// XNACK key group SILENT|FAIL|FATAL IDS numids id... [RETRYCOUNT n] [FORCE] (Redis 8.8)
// releases pending entries from whichever consumer holds them: no owner, delivery time 0
// (XPENDING shows consumer "" and idle -1), queued for XREADGROUP ... CLAIM ahead of idle
// ones in nack order. SILENT takes back the delivery (count - 1, not below 0), FAIL keeps
// the count, FATAL sets it to INT64_MAX; RETRYCOUNT sets it instead. FORCE also releases
// an entry of the stream nothing has pending (count 0 before the mode). Options in any
// order, the last IDS counting (its ids parsed after the options, as Redis does); answers
// how many ids were released (repeats count).
// Replayed as it ran.
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
  StreamGroup* g = GroupOrNoGroup(ctx, key, group_name, &s);
  if (g == nullptr) {
    return;
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
      StampDelivery(*fresh, now);
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
    StampDelivery(*pe, delivery_time);
    if (retry_count >= 0) {
      pe->delivery_count = static_cast<uint64_t>(retry_count);
    } else if (!justid) {
      types::BumpDeliveryCount(*pe);
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
  StreamGroup* g = GroupOrNoGroup(ctx, key, group_name, &s);
  if (g == nullptr) {
    return;
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
    StampDelivery(*pe, now);
    if (!justid) {
      types::BumpDeliveryCount(*pe);
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

void XNackCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  StreamValue* s = nullptr;
  StreamGroup* g = GroupOrNoGroup(ctx, key, ctx.arg(2), &s);
  if (g == nullptr) {
    return;
  }
  enum class Mode { kSilent, kFail, kFatal } mode;
  std::string_view m = ctx.arg(3);
  if (EqualsIgnoreCase(m, "silent")) {
    mode = Mode::kSilent;
  } else if (EqualsIgnoreCase(m, "fail")) {
    mode = Mode::kFail;
  } else if (EqualsIgnoreCase(m, "fatal")) {
    mode = Mode::kFatal;
  } else {
    return ctx.rb().Error("ERR mode must be SILENT, FAIL, or FATAL");
  }
  size_t ids_at = 0, nids = 0;  // the last IDS's ids, parsed once the options are
  bool ids_given = false, force = false;
  int64_t retry_count = -1;
  const size_t argc = ctx.argc();
  for (size_t i = 4; i < argc; i++) {
    std::string_view o = ctx.arg(i);
    if (EqualsIgnoreCase(o, "ids") && i + 1 < argc) {
      auto n = ParseInt64(ctx.arg(i + 1));
      if (!n || *n <= 0) {
        return ctx.rb().Error("ERR numids must be a positive integer");
      }
      if (static_cast<uint64_t>(*n) > argc - i - 2) {
        return ctx.rb().Error("ERR number of IDs doesn't match numids");
      }
      ids_at = i + 2;
      nids = static_cast<size_t>(*n);
      ids_given = true;
      i += 1 + static_cast<size_t>(*n);
    } else if (EqualsIgnoreCase(o, "retrycount") && i + 1 < argc) {
      auto n = ctx.IntArg(i + 1, "ERR value is not an integer or out of range");
      if (!n) {
        return;
      }
      if (*n < 0) {
        return ctx.rb().Error("ERR Invalid RETRYCOUNT value, must be >= 0");
      }
      retry_count = *n;
      i++;
    } else if (EqualsIgnoreCase(o, "force")) {
      force = true;
    } else {
      return ctx.rb().Error("ERR Unrecognized XNACK option '" + std::string(o) + "'");
    }
  }
  if (!ids_given) {
    return ctx.rb().Error("ERR syntax error, expected IDS keyword");
  }
  std::vector<StreamId> ids;
  for (size_t j = ids_at; j < ids_at + nids; j++) {
    auto id = ParseStreamId(ctx, ctx.arg(j), 0, true);
    if (!id) {
      return;
    }
    ids.push_back(*id);
  }
  int64_t n = 0;
  for (const StreamId& id : ids) {
    auto it = g->pel.find(id);
    PendingEntry* pe = it != g->pel.end() ? it->second.get() : nullptr;
    if (pe == nullptr && !(force && s->Contains(id))) {
      continue;
    }
    pe = g->Nack(pe, id);
    if (retry_count >= 0) {
      pe->delivery_count = static_cast<uint64_t>(retry_count);
    } else if (mode == Mode::kSilent) {
      pe->delivery_count -= pe->delivery_count > 0 ? 1 : 0;
    } else if (mode == Mode::kFatal) {
      pe->delivery_count = static_cast<uint64_t>(INT64_MAX);
    }
    n++;
  }
  if (n > 0) {
    StreamDirty(ctx, key);
  }
  ctx.rb().Integer(n);
}

}  // namespace

void RegisterStreamClaimCommands(CommandTable& t) {
  t.Add({.name = "xclaim", .arity = -6, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XClaimCommand,
         .doc = {"stream", "5.0.0", "O(log N) with N being the number of messages in the PEL of the consumer group.",
                 "Gives pending entries idle long enough to another consumer.",
                 "key group consumer min-idle-time id:string [id:string ...] [IDLE ms:integer] [TIME unix-time-milliseconds] "
                 "[RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xautoclaim", .arity = -6, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = XAutoClaimCommand,
         .doc = {"stream", "6.2.0", "O(1) if COUNT is small.",
                 "Gives pending entries idle long enough to another consumer, scanning the PEL from a cursor.",
                 "key group consumer min-idle-time start:string [COUNT count] [JUSTID]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xnack", .arity = -7, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XNackCommand,
         .doc = {"stream", "8.8.0", "O(1) for each message ID processed.",
                 "Releases claimed messages back to the group's PEL without acknowledging them, "
                 "making them available for re-delivery.",
                 "key group <mode: SILENT | FAIL | FATAL> <ids: IDS numids:integer id:string ...> "
                 "[RETRYCOUNT count] [FORCE]"}});
}

}  // namespace hotkv

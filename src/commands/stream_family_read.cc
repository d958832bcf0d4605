// XREAD and XREADGROUP, blocking included.
//
// Without data and with BLOCK, the client blocks on its stream keys (server/blocking.h):
// `$` is first replaced in the waiter's copy of the command by the stream's last id (as
// Redis rewrites it before blocking), and any change of a key it waits on (XADD, DEL,
// XGROUP DESTROY, a type change: every KeyModified signals the key) runs ServeXRead under
// that key's shard lock, FIFO across workers. The serve re-runs the read for the ready key:
// data is served, and an XREADGROUP whose key or group is gone gets the error Redis's
// re-executed command gives (NOGROUP, or WRONGTYPE). Inside MULTI the command answers as if
// it had timed out. A woken XREAD also reports the other streams with data whose shards
// the waking thread holds (as Redis, which re-runs the whole command: an EXEC that added
// to several wakes the reader with all of them); streams in shards it does not hold are
// left out. A woken XREADGROUP reports only the stream that woke it.
//
// XREADGROUP ... CLAIM min-idle-time (Redis 8.4), for ">" only: the group's pending entries
// idle at least that long (those XNACK released first, in nack order, then oldest delivery
// first, equal times in the order they were delivered; deleted entries skipped) are claimed by
// the consumer and delivered before new entries, within COUNT; with CLAIM every entry
// comes as [id, fields, idle ms, delivery count] (the count before this delivery; 0 and 0
// for new entries). A blocked CLAIM reader is also served when a wake finds entries idle
// enough. Each claim is replayed as the XCLAIM below.
//
// XREADGROUP writes to the group (last-delivered-id, entries-read, PEL, consumers); it is
// replayed as Redis propagates it: one `XCLAIM key group consumer 0 id TIME t RETRYCOUNT n
// FORCE JUSTID LASTID last` per delivered entry, then `XGROUP SETID key group last
// ENTRIESREAD n`, and `XGROUP CREATECONSUMER` for a consumer NOACK created.
#include <algorithm>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/stream_common.h"
#include "engine/entry.h"
#include "engine/keyspace.h"
#include "server/blocking.h"
#include "server/server.h"

namespace hotkv {

namespace {

using types::StreamConsumer;
using types::StreamGroup;

struct ReadArgs {
  bool group_read = false;  // XREADGROUP
  int64_t timeout = -1;     // ms; -1: no BLOCK
  int64_t count = 0;
  bool noack = false;
  int64_t claim = -1;       // CLAIM min-idle-time (Redis 8.4); -1: not given
  bool group_given = false;
  std::string_view group, consumer;
  size_t streams_arg = 0;
  size_t nstreams = 0;
};

// Parses the options; `error` gets Redis's text when they are invalid.
bool ParseReadArgs(CommandContext& ctx, ReadArgs* a, std::string* error) {
  a->group_read = ctx.command()->name == "xreadgroup";
  const size_t argc = ctx.argc();
  for (size_t i = 1; i < argc; i++) {
    const size_t more = argc - i - 1;
    std::string_view o = ctx.arg(i);
    if (EqualsIgnoreCase(o, "block") && more > 0) {
      i++;
      auto t = ParseInt64(ctx.arg(i));
      if (!t) {
        *error = "ERR timeout is not an integer or out of range";
        return false;
      }
      if (*t < 0) {
        *error = "ERR timeout is negative";
        return false;
      }
      a->timeout = *t;
    } else if (EqualsIgnoreCase(o, "count") && more > 0) {
      i++;
      auto n = ParseInt64(ctx.arg(i));
      if (!n) {
        *error = std::string(errors::kNotInteger);
        return false;
      }
      a->count = *n < 0 ? 0 : *n;
    } else if (EqualsIgnoreCase(o, "streams") && more > 0) {
      a->streams_arg = i + 1;
      size_t n = argc - a->streams_arg;
      if (n % 2 != 0) {
        *error = std::string("ERR Unbalanced '") + ctx.command()->name +
                 "' list of streams: for each stream key an ID" +
                 (a->group_read ? " or '>'" : ", '+', or '$'") + " must be specified.";
        return false;
      }
      a->nstreams = n / 2;
      break;
    } else if (EqualsIgnoreCase(o, "group") && more >= 2) {
      if (!a->group_read) {
        *error = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
        return false;
      }
      a->group = ctx.arg(i + 1);
      a->consumer = ctx.arg(i + 2);
      a->group_given = true;
      i += 2;
    } else if (EqualsIgnoreCase(o, "claim") && more > 0) {
      if (!a->group_read) {
        *error = "ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.";
        return false;
      }
      i++;
      auto t = ParseInt64(ctx.arg(i));
      if (!t) {
        *error = "ERR min-idle-time is not an integer or out of range";
        return false;
      }
      if (*t < 0) {
        *error = "ERR min-idle-time must be a positive integer";
        return false;
      }
      a->claim = *t;
    } else if (EqualsIgnoreCase(o, "noack")) {
      if (!a->group_read) {
        *error = "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
        return false;
      }
      a->noack = true;
    } else {
      *error = std::string(errors::kSyntax);
      return false;
    }
  }
  if (a->streams_arg == 0) {
    *error = std::string(errors::kSyntax);
    return false;
  }
  if (a->group_read && !a->group_given) {
    *error = "ERR Missing GROUP option for XREADGROUP";
    return false;
  }
  return true;
}

std::string_view KeyOf(CommandContext& ctx, const ReadArgs& a, size_t i) {
  return ctx.arg(a.streams_arg + i);
}
std::string_view IdArgOf(CommandContext& ctx, const ReadArgs& a, size_t i) {
  return ctx.arg(a.streams_arg + a.nstreams + i);
}

// One pending entry XREADGROUP ... CLAIM may take over.
struct ClaimCandidate {
  int64_t delivery_time;
  StreamId id;
  types::PendingEntry* pe;
};

// The group's pending entries idle for at least `min_idle` ms whose entry still exists,
// XNACK's released ones first, then oldest delivery first (ties by id), at most `count` (0 = all): what Redis 8.4's
// XREADGROUP CLAIM delivers before new entries. Deleted entries stay pending, skipped.
std::vector<ClaimCandidate> ClaimCandidates(const StreamValue& s, const StreamGroup& g,
                                            int64_t min_idle, int64_t now, int64_t count) {
  std::vector<ClaimCandidate> out;
  for (const auto& [id, pe] : g.pel) {
    if (now - pe->delivery_time >= min_idle) {
      out.push_back({pe->delivery_time, id, pe.get()});
    }
  }
  // Nacked entries (XNACK) first, in nack order; then by delivery time and id.
  auto older = [](const ClaimCandidate& x, const ClaimCandidate& y) {
    const bool xn = x.pe->consumer == nullptr, yn = y.pe->consumer == nullptr;
    if (xn != yn) {
      return xn;
    }
    if (xn) {
      return x.pe->nack_seq < y.pe->nack_seq;
    }
    if (x.delivery_time != y.delivery_time) {
      return x.delivery_time < y.delivery_time;
    }
    // Equal times: in the order they were stamped (Redis 8.8's time index), then by id.
    return x.pe->time_seq != y.pe->time_seq ? x.pe->time_seq < y.pe->time_seq : x.id < y.id;
  };
  std::sort(out.begin(), out.end(), older);
  size_t kept = 0;
  for (const ClaimCandidate& c : out) {
    if (count > 0 && kept == static_cast<size_t>(count)) {
      break;
    }
    if (s.Contains(c.id)) {
      out[kept++] = c;
    }
  }
  out.resize(kept);
  return out;
}

// [id, [field, value, ...], idle ms, delivery count]: XREADGROUP ... CLAIM's entry shape.
void ReplyClaimedEntry(ReplyBuilder& rb, const StreamId& id, const types::StreamFields& fv,
                       int64_t idle, uint64_t delivery_count) {
  rb.Array(4);
  ReplyStreamId(rb, id);
  rb.Array(fv.size());
  for (std::string_view f : fv) {
    rb.Bulk(f);
  }
  rb.Integer(idle);
  rb.Integer(static_cast<int64_t>(delivery_count));
}

// Entries delivered to a group consumer ("new" messages), as streamReplyWithRange with a
// group: moves last-delivered-id and entries-read, fills the PELs, propagates. With CLAIM,
// the `claimed` pending entries come first (each re-assigned to `c`, its delivery count
// incremented, NOACK or not), every entry with its idle time and delivery count before
// this read (0 and 0 for new ones).
size_t ServeGroupNew(CommandContext& ctx, const ReadArgs& a, std::string_view key, StreamValue& s,
                     StreamGroup& g, StreamConsumer& c, const StreamId& start,
                     bool has_new, const std::vector<ClaimCandidate>& claimed) {
  ReplyBuilder& rb = ctx.rb();
  size_t pos = rb.BeginDeferred();
  bool moved_last_id = false;
  size_t propagated = 0;
  const int64_t now = ctx.now_ms();
  for (const ClaimCandidate& cc : claimed) {
    types::PendingEntry* pe = cc.pe;
    s.Get(cc.id, [&](const StreamId& id, const types::StreamFields& fv) {
      ReplyClaimedEntry(rb, id, fv, now - pe->delivery_time, pe->delivery_count);
      return true;
    });
    g.Reassign(pe, cc.id, &c);
    types::StampDelivery(*pe, now);
    types::BumpDeliveryCount(*pe);
    c.active_time = now;
    PropagateXClaim(ctx, key, a.group, g, cc.id, *pe);
    propagated++;
  }
  size_t n = claimed.size();
  const bool room = a.count == 0 || claimed.size() < static_cast<size_t>(a.count);
  if (room && has_new) {
    const size_t left = a.count == 0 ? 0 : static_cast<size_t>(a.count) - claimed.size();
    n += s.Range(start, StreamId::Max(), false, left,
                 [&](const StreamId& id, const types::StreamFields& fv) {
      if (id > g.last_id) {
        if (g.entries_read != types::kInvalidEntriesRead && g.last_id >= s.FirstId() &&
            !s.RangeHasTombstones(g.last_id, StreamId::Max())) {
          g.entries_read++;
        } else if (s.entries_added() != 0) {
          g.entries_read = s.EstimateDistance(id);
        }
        g.last_id = id;
        moved_last_id = true;
      }
      if (a.claim >= 0) {
        ReplyClaimedEntry(rb, id, fv, 0, 0);
      } else {
        ReplyStreamEntry(rb, id, fv);
      }
      if (!a.noack) {
        types::PendingEntry* pe = g.AddPending(id, &c, now);
        c.active_time = now;
        PropagateXClaim(ctx, key, a.group, g, id, *pe);
        propagated++;
      }
      return true;
    });
  }
  rb.EndDeferredArray(pos, n);
  if (moved_last_id) {
    PropagateGroupSetId(ctx, key, a.group, g);
    propagated++;
  }
  if (propagated > 0) {
    StreamDirty(ctx, key);
  }
  return n;
}

// The consumer's own pending entries from `start` (XREADGROUP with an id): entries that
// were deleted meanwhile come as [id, nil].
void ServeGroupHistory(CommandContext& ctx, const ReadArgs& a, StreamValue& s,
                       StreamConsumer& c, const StreamId& start) {
  ReplyBuilder& rb = ctx.rb();
  size_t pos = rb.BeginDeferred();
  size_t n = 0;
  for (auto it = c.pel.lower_bound(start);
       it != c.pel.end() && (a.count == 0 || n < static_cast<size_t>(a.count)); ++it) {
    const bool found = s.Get(it->first, [&](const StreamId& id, const types::StreamFields& fv) {
      ReplyStreamEntry(rb, id, fv);
      return true;
    });
    if (!found) {
      rb.Array(2);
      ReplyStreamId(rb, it->first);
      rb.NullArray();
    } else {
      types::StampDelivery(*it->second, ctx.now_ms());
      types::BumpDeliveryCount(*it->second);
    }
    n++;
  }
  rb.EndDeferredArray(pos, n);
}

// Resolved read position of one stream: the id entries must be greater than, or `kNew`
// (XREADGROUP's ">") as StreamId::Max().
struct Target {
  StreamId after;
  bool is_new = false;
};

// Resolves the ids of every stream (replying errors); nullopt on error.
std::optional<std::vector<Target>> ResolveIds(CommandContext& ctx, const ReadArgs& a) {
  std::vector<Target> out(a.nstreams);
  for (size_t i = 0; i < a.nstreams; i++) {
    std::string_view key = KeyOf(ctx, a, i);
    std::string_view arg = IdArgOf(ctx, a, i);
    Entry* e = ctx.db().Find(key);
    if (!CheckType(ctx, e, ValueType::kStream)) {
      return std::nullopt;
    }
    StreamValue* s = e != nullptr ? e->As<StreamValue>() : nullptr;
    if (a.group_read && (s == nullptr || s->FindGroup(a.group) == nullptr)) {
      ReplyNoGroup(ctx, key, a.group, " in XREADGROUP with GROUP option");
      return std::nullopt;
    }
    if (arg == "$" || arg == "+") {
      if (a.group_read) {
        ctx.rb().Error(std::string("ERR The ") + std::string(arg) +
                       " ID is meaningless in the context of XREADGROUP: you want to read the "
                       "history of this consumer by specifying a proper ID, or use the > ID to "
                       "get new messages. The " +
                       std::string(arg) + " ID would just return an empty result set.");
        return std::nullopt;
      }
      if (arg == "$") {
        out[i].after = s != nullptr ? s->last_id() : StreamId::Min();
      } else if (s != nullptr && s->length() > 0) {
        out[i].after = s->LastEntryId();
        out[i].after.Decr();
      }
      continue;
    }
    if (arg == ">") {
      if (!a.group_read) {
        ctx.rb().Error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
        return std::nullopt;
      }
      out[i].after = StreamId::Max();
      out[i].is_new = true;
      continue;
    }
    auto id = ParseStreamId(ctx, arg, 0, true);
    if (!id) {
      return std::nullopt;
    }
    out[i].after = *id;
    // Redis marks ">" with the largest id, so that id given explicitly means ">" too.
    out[i].is_new = a.group_read && *id == StreamId::Max();
  }
  return out;
}

// Serves the streams listed in `which` that have something to give; returns how many
// were reported. Writes the whole reply when at least one was.
size_t ServeStreams(CommandContext& ctx, const ReadArgs& a, std::vector<Target>& targets,
                    const std::vector<size_t>& which) {
  ReplyBuilder& rb = ctx.rb();
  size_t top = rb.BeginDeferred();
  size_t reported = 0;
  for (size_t i : which) {
    std::string_view key = KeyOf(ctx, a, i);
    Entry* e = ctx.db().Find(key);
    if (e == nullptr) {
      continue;
    }
    StreamValue& s = *e->As<StreamValue>();
    Target& t = targets[i];
    bool serve = false;
    bool history = false;
    bool has_new = false;
    std::vector<ClaimCandidate> claimed;
    StreamGroup* g = nullptr;
    StreamConsumer* c = nullptr;
    if (a.group_read) {
      g = s.FindGroup(a.group);
      if (!t.is_new) {
        serve = history = true;
      } else {
        if (a.claim >= 0) {
          claimed = ClaimCandidates(s, *g, a.claim, ctx.now_ms(), a.count);
        }
        if (s.length() > 0 && s.LastEntryId() > g->last_id) {
          has_new = true;
          t.after = g->last_id;
        }
        serve = has_new || !claimed.empty();
      }
      bool created = false;
      c = LookupOrCreateConsumer(ctx, key, *g, a.consumer, &created);
      if (created && a.noack) {
        PropagateConsumerCreation(ctx, key, a.group, a.consumer);
      }
      c->seen_time = ctx.now_ms();
    } else if (s.length() > 0 && s.LastEntryId() > t.after) {
      serve = true;
    }
    if (!serve) {
      continue;
    }
    reported++;
    if (!rb.resp3()) {
      rb.Array(2);
    }
    rb.Bulk(key);
    StreamId start = t.after;
    start.Incr();
    if (!a.group_read) {
      ReplyStreamRange(rb, s, start, StreamId::Max(), false, static_cast<size_t>(a.count));
    } else if (history) {
      ServeGroupHistory(ctx, a, s, *c, start);
    } else {
      ServeGroupNew(ctx, a, key, s, *g, *c, start, has_new, claimed);
    }
  }
  if (reported > 0) {
    if (rb.resp3()) {
      rb.EndDeferredMap(top, reported);
    } else {
      rb.EndDeferredArray(top, reported);
    }
  }
  return reported;
}

ServeResult ServeXRead(CommandContext& ctx, std::string_view key, bool dry_run) {
  ReadArgs a;
  std::string error;
  if (!ParseReadArgs(ctx, &a, &error)) {
    return ServeResult::kNotNow;
  }
  ctx.PreventPropagation();
  std::vector<size_t> which;
  for (size_t i = 0; i < a.nstreams; i++) {
    if (KeyOf(ctx, a, i) == key) {
      which.push_back(i);
      break;
    }
  }
  if (which.empty()) {
    return ServeResult::kNotNow;
  }
  const size_t i = which[0];
  Entry* e = ctx.db().Find(key);
  StreamValue* s = e != nullptr && e->type() == ValueType::kStream ? e->As<StreamValue>() : nullptr;
  if (e != nullptr && s == nullptr) {
    if (!dry_run) {
      ctx.rb().Error(errors::kWrongType);
    }
    return ServeResult::kError;
  }
  StreamGroup* g = nullptr;
  if (a.group_read) {
    g = s != nullptr ? s->FindGroup(a.group) : nullptr;
    if (g == nullptr) {
      if (!dry_run) {
        ReplyNoGroup(ctx, key, a.group, " in XREADGROUP with GROUP option");
      }
      return ServeResult::kError;
    }
  }
  if (s == nullptr) {
    return ServeResult::kNotNow;
  }
  // The id argument was validated when the client blocked ("$" was replaced then).
  std::vector<Target> targets(a.nstreams);
  std::string_view arg = IdArgOf(ctx, a, i);
  if (arg == ">") {
    targets[i].after = StreamId::Max();
    targets[i].is_new = true;
  } else if (arg == "+") {
    // Not rewritten when blocking: it means the last entry at every run, as in Redis.
    if (s->length() > 0) {
      targets[i].after = s->LastEntryId();
      targets[i].after.Decr();
    }
  } else {
    targets[i].after = StreamId::Parse(arg, 0).value_or(StreamId::Max());
    targets[i].is_new = a.group_read && targets[i].after == StreamId::Max();
  }
  const StreamId after = targets[i].is_new ? g->last_id : targets[i].after;
  const bool claimable = targets[i].is_new && a.claim >= 0 &&
                         !ClaimCandidates(*s, *g, a.claim, ctx.now_ms(), 1).empty();
  if (!claimable && (s->length() == 0 || !(s->LastEntryId() > after))) {
    return ServeResult::kNotNow;
  }
  if (dry_run) {
    return ServeResult::kServe;
  }
  if (!a.group_read) {
    // Redis re-runs the whole command, reporting every stream with data: the other
    // streams whose shards this thread holds (an EXEC or script that added to several, or
    // keys sharing the shard) are read too, in the command's order. Others are left out.
    which.clear();
    for (size_t j = 0; j < a.nstreams; j++) {
      std::string_view k = KeyOf(ctx, a, j);
      if (j != i && (k == key || !ctx.HoldsShard(Keyspace::ShardOf(k)))) {
        continue;
      }
      Entry* ej = j == i ? e : ctx.db().Find(k);
      if (ej == nullptr || ej->type() != ValueType::kStream) {
        continue;
      }
      if (j != i) {
        const StreamValue& sj = *ej->As<StreamValue>();
        std::string_view aj = IdArgOf(ctx, a, j);
        if (aj == "+") {
          targets[j].after = sj.length() > 0 ? sj.LastEntryId() : StreamId::Min();
          targets[j].after.Decr();
        } else {
          targets[j].after = StreamId::Parse(aj, 0).value_or(StreamId::Max());
        }
      }
      which.push_back(j);
    }
  }
  ServeStreams(ctx, a, targets, which);
  return ServeResult::kServe;
}

// XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [CLAIM min-idle-time] [NOACK]
//   STREAMS key ... id ...
void XReadCommand(CommandContext& ctx) {
  ReadArgs a;
  std::string error;
  if (!ParseReadArgs(ctx, &a, &error)) {
    return ctx.rb().Error(error);
  }
  ctx.PreventPropagation();
  auto targets = ResolveIds(ctx, a);
  if (!targets) {
    return;
  }
  std::vector<size_t> all(a.nstreams);
  for (size_t i = 0; i < a.nstreams; i++) {
    all[i] = i;
  }
  if (ServeStreams(ctx, a, *targets, all) > 0) {
    return;
  }
  if (a.timeout < 0 || ctx.in_exec()) {
    return ctx.rb().NullArray();
  }
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < a.nstreams; i++) {
    keys.push_back(KeyOf(ctx, a, i));
  }
  BlockClient(ctx, keys, a.timeout, ServeXRead, true);
  // Block on the resolved ids: "$" becomes the last id it stood for now.
  std::vector<std::string>& wargs = ctx.client().block_state()->waiter->args;
  for (size_t i = 0; i < a.nstreams; i++) {
    const size_t idx = a.streams_arg + a.nstreams + i;
    if (wargs[idx] == "$") {
      wargs[idx] = (*targets)[i].after.ToString();
    }
  }
}

}  // namespace

void RegisterStreamReadCommands(CommandTable& t) {
  t.Add({.name = "xread", .arity = -4, .flags = "readonly blocking", .acl = "@read @stream @slow @blocking",
         .keys = {KeyKeyword("STREAMS", 1, -1, 1, "RO ACCESS", 2)}, .handler = XReadCommand,
         .doc = {"stream", "5.0.0", "",
                 "Returns new entries of one or more streams after the given ids, waiting for "
                 "some if asked to.",
                 "[COUNT count] [BLOCK milliseconds] <streams: STREAMS key ... id:string ...>"}});
  t.Add({.name = "xreadgroup", .arity = -7, .flags = "write blocking", .acl = "@write @stream @slow @blocking",
         .keys = {KeyKeyword("STREAMS", 4, -1, 1, "RO ACCESS", 2)}, .handler = XReadCommand,
         .doc = {"stream", "5.0.0",
                 "For each stream mentioned: O(M) with M the number of elements returned. If M "
                 "is constant (e.g. always asking for the first 10 elements with COUNT), you can "
                 "consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the "
                 "O(N) time in order to serve the N clients blocked on the stream getting new data.",
                 "Reads entries of streams as a consumer of a group, new ones (>) or its own "
                 "pending history, waiting for some if asked to.",
                 "<group-block: GROUP group consumer> [COUNT count] [BLOCK milliseconds] "
                 "[CLAIM min-idle-time:integer] [NOACK] "
                 "<streams: STREAMS key ... id:string ...>"}});
}

}  // namespace hotkv

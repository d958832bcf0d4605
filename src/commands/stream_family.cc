// Stream commands on entries: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID. Thin wrappers
// over types::StreamValue.
//
// Edge cases honoured (as Redis 8): XADD/XTRIM options in any order before the id
// (NOMKSTREAM, MAXLEN|MINID [=|~] threshold, LIMIT only with ~, default LIMIT 100 ×
// stream-node-max-entries for ~, one of Redis 8.2's KEEPREF | DELREF | ACKED), ids "ms-seq", "ms" (seq 0), "ms-*" and "*"; 0-0 and
// ids not above the top item are refused with Redis's texts; XADD NOMKSTREAM on a missing
// key answers nil; an approximate trim is propagated as the exact "=" trim it did and an
// XADD with a generated id as that id (the write stream must replay deterministically).
// XRANGE/XREVRANGE take "-", "+", "(" exclusive bounds and COUNT (0 answers a null array,
// negative is 0); XDEL parses every id before deleting and records the largest deleted id;
// XSETID checks against the top item, the length and max-deleted-entry-id.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/stream_common.h"
#include "commands/string_common.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace {

using types::StreamValue;

// XADD/XTRIM options (Redis's streamAddTrimArgs).
struct AddTrimArgs {
  StreamValue::TrimSpec trim;
  size_t threshold_index = 0;  // argument holding MAXLEN's count / MINID's id
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamId id;
  size_t id_index = 0;
  enum class Idmp { kNone, kGiven, kAuto } idmp = Idmp::kNone;  // Redis 8.6's IDMP / IDMPAUTO
  std::string_view pid, iid;
};

// Parses the options from argument 2; for XADD stops at the id. Replies on error.
bool ParseAddTrim(CommandContext& ctx, bool xadd, AddTrimArgs* a) {
  size_t i = 2;
  bool limit_given = false;
  bool refs_given = false;
  const size_t argc = ctx.argc();
  for (; i < argc; i++) {
    const size_t more = argc - 1 - i;
    std::string_view opt = ctx.arg(i);
    if (xadd && opt == "*") {
      break;
    }
    const bool maxlen = EqualsIgnoreCase(opt, "maxlen");
    if ((maxlen || EqualsIgnoreCase(opt, "minid")) && more > 0) {
      if (a->trim.kind != StreamValue::TrimSpec::kNone) {
        ctx.rb().Error(
            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
        return false;
      }
      a->trim.approx = false;
      std::string_view next = ctx.arg(i + 1);
      if (more >= 2 && next == "~") {
        a->trim.approx = true;
        i++;
      } else if (more >= 2 && next == "=") {
        i++;
      }
      if (maxlen) {
        auto n = ctx.IntArg(i + 1);
        if (!n) {
          return false;
        }
        if (*n < 0) {
          ctx.rb().Error("ERR The MAXLEN argument must be >= 0.");
          return false;
        }
        a->trim.kind = StreamValue::TrimSpec::kMaxLen;
        a->trim.maxlen = static_cast<uint64_t>(*n);
      } else {
        auto id = ParseStreamId(ctx, ctx.arg(i + 1), 0, true);
        if (!id) {
          return false;
        }
        a->trim.kind = StreamValue::TrimSpec::kMinId;
        a->trim.minid = *id;
      }
      i++;
      a->threshold_index = i;
    } else if (EqualsIgnoreCase(opt, "limit") && more > 0) {
      auto n = ctx.IntArg(i + 1);
      if (!n) {
        return false;
      }
      if (*n < 0) {
        ctx.rb().Error("ERR The LIMIT argument must be >= 0.");
        return false;
      }
      a->trim.limit = *n;
      limit_given = true;
      i++;
    } else if (EqualsIgnoreCase(opt, "keepref") || EqualsIgnoreCase(opt, "delref") ||
               EqualsIgnoreCase(opt, "acked")) {
      if (refs_given) {  // one policy, once (Redis 8.8: a syntax error even when repeated)
        ctx.rb().Error(errors::kSyntax);
        return false;
      }
      refs_given = true;
      a->trim.refs = EqualsIgnoreCase(opt, "keepref") ? StreamValue::TrimSpec::Refs::kKeep
                     : EqualsIgnoreCase(opt, "delref") ? StreamValue::TrimSpec::Refs::kDelete
                                                       : StreamValue::TrimSpec::Refs::kAcked;
    } else if (xadd && ((EqualsIgnoreCase(opt, "idmp") && more >= 2) ||
                        (EqualsIgnoreCase(opt, "idmpauto") && more >= 1))) {
      const bool given = EqualsIgnoreCase(opt, "idmp");
      if (a->idmp != AddTrimArgs::Idmp::kNone) {
        ctx.rb().Error("ERR syntax error, IDMP/IDMPAUTO specified multiple times");
        return false;
      }
      a->pid = ctx.arg(i + 1);
      if (a->pid.empty()) {
        ctx.rb().Error(given ? "ERR syntax error, IDMP requires a non-empty producer ID"
                             : "ERR syntax error, IDMPAUTO requires a non-empty producer ID");
        return false;
      }
      if (given) {
        a->iid = ctx.arg(i + 2);
        if (a->iid.empty()) {
          ctx.rb().Error("ERR syntax error, IDMP requires a non-empty idempotent ID");
          return false;
        }
      }
      a->idmp = given ? AddTrimArgs::Idmp::kGiven : AddTrimArgs::Idmp::kAuto;
      i += given ? 2 : 1;
    } else if (xadd && EqualsIgnoreCase(opt, "nomkstream")) {
      a->nomkstream = true;
    } else if (xadd) {
      auto id = ParseStreamId(ctx, opt, 0, true, &a->seq_given);
      if (!id) {
        return false;
      }
      a->id = *id;
      a->id_given = true;
      break;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  a->id_index = i;
  if (a->trim.limit != 0 && a->trim.kind == StreamValue::TrimSpec::kNone) {
    ctx.rb().Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return false;
  }
  if (!xadd && a->trim.kind == StreamValue::TrimSpec::kNone) {
    ctx.rb().Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return false;
  }
  // The write stream replays IDMP with the id it generated (as Redis propagates it).
  if (a->idmp != AddTrimArgs::Idmp::kNone && a->id_given && !ctx.client().addr.empty()) {
    ctx.rb().Error("ERR syntax error, IDMP/IDMPAUTO can be used only with auto-generated IDs");
    return false;
  }
  if (limit_given) {
    if (!a->trim.approx) {
      ctx.rb().Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return false;
    }
  } else if (a->trim.approx) {
    int64_t limit = 100 * ctx.server().config().stream_node_max_entries();
    if (limit <= 0) {
      limit = 10000;
    }
    a->trim.limit = std::min<int64_t>(limit, 1000000);
  } else {
    a->trim.limit = 0;
  }
  return true;
}

// The command as it must be replayed: `~` -> `=` with the threshold it reached, and the
// generated id (XADD). Empty when the command replays as it ran.
void PropagateRewritten(CommandContext& ctx, const AddTrimArgs& a, const StreamValue& s,
                        const std::string_view* id) {
  if (!ctx.propagating()) {
    return;
  }
  std::vector<std::string> owned(ctx.args().begin(), ctx.args().end());
  if (a.trim.approx) {
    // One char, not the literal "=": GCC 12's -Wrestrict misreads assign(const char*)
    // (a false positive, GCC PR105329); assign(count, char) copies nothing that overlaps.
    owned[a.threshold_index - 1].assign(1, '=');
    owned[a.threshold_index] = a.trim.kind == StreamValue::TrimSpec::kMaxLen
                                   ? std::to_string(s.length())
                                   : s.FirstId().ToString();
  }
  if (id != nullptr) {
    owned[a.id_index] = *id;
  }
  std::vector<std::string_view> args(owned.begin(), owned.end());
  ctx.PropagateAs(args);
}

// Whether the trim must be replayed by its effect: ACKED with groups present keeps what
// a group needs and stops at a block only partly in range, so its result depends on the
// block layout, which an AOF rewrite or a replica need not share.
bool TrimByEffect(const AddTrimArgs& a, const StreamValue& s) {
  return a.trim.kind != StreamValue::TrimSpec::kNone &&
         a.trim.refs == StreamValue::TrimSpec::Refs::kAcked && !s.groups().empty();
}

// Records the deletion of `removed` as XDELEX key KEEPREF IDS n id... (no group needed
// them: nothing to clean up in any PEL), then XSETID with the stream's metadata, since a
// trim, unlike XDELEX, leaves max-deleted-entry-id alone.
void PropagateRemoved(CommandContext& ctx, std::string_view key, const StreamValue& s,
                      const std::vector<StreamId>& removed) {
  if (removed.empty()) {
    return;
  }
  std::vector<std::string> owned = {"XDELEX", std::string(key), "KEEPREF", "IDS",
                                    std::to_string(removed.size())};
  for (const StreamId& id : removed) {
    owned.push_back(id.ToString());
  }
  ctx.PropagateAs(std::vector<std::string_view>(owned.begin(), owned.end()));
  const std::string last = s.last_id().ToString();
  const std::string added = std::to_string(s.entries_added());
  const std::string max_deleted = s.max_deleted_id().ToString();
  ctx.PropagateAs({"XSETID", key, last, "ENTRIESADDED", added, "MAXDELETEDID", max_deleted});
}

// IDMPAUTO's idempotent id: a hash of the entry's field/value pairs in any order
// (XXH3-64 of the sorted, length-prefixed pairs, as hex). Redis's own value differs; it
// only matters inside one server and its write stream, which replays IDMPAUTO as given.
std::string ContentIid(std::span<const std::string_view> fv) {
  std::vector<std::string> pairs;
  for (size_t j = 0; j + 1 < fv.size(); j += 2) {
    std::string p = std::to_string(fv[j].size());
    p += ':';
    p.append(fv[j]);
    p += std::to_string(fv[j + 1].size());
    p += ':';
    p.append(fv[j + 1]);
    pairs.push_back(std::move(p));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string all;
  for (const std::string& p : pairs) {
    all += p;
  }
  return ValueDigest(all);
}

// XADD key [NOMKSTREAM] [KEEPREF|DELREF|ACKED] [IDMPAUTO pid | IDMP pid iid]
//   [MAXLEN|MINID [=|~] threshold [LIMIT count]] <* | id> field value ...
// With IDMP, a (pid, iid) already recorded answers the id it produced and adds nothing.
void XAddCommand(CommandContext& ctx) {
  AddTrimArgs a;
  if (!ParseAddTrim(ctx, true, &a)) {
    return;
  }
  const size_t field_pos = a.id_index + 1;
  if (ctx.argc() < field_pos + 2 || (ctx.argc() - field_pos) % 2 == 1) {
    return ReplyWrongArity(ctx);
  }
  if (a.id_given && a.seq_given && a.id.IsZero()) {
    return ctx.rb().Error("ERR The ID specified in XADD must be greater than 0-0");
  }
  std::string_view key = ctx.arg(1);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  StreamValue* s;
  if (ref) {
    if (!CheckType(ctx, ref.entry(), ValueType::kStream)) {
      return;
    }
    ctx.TouchEntry(ref.entry());
    s = ref.entry()->As<StreamValue>();
  } else {
    if (a.nomkstream) {
      return ctx.rb().Null();
    }
    s = NewStream(ctx);
    db.Insert(ref, Entry::NewObject(key, ValueType::kStream, s, false));
  }
  // The field/value arguments, in place (no copy per XADD).
  const std::span<const std::string_view> fv(ctx.args().data() + field_pos,
                                             ctx.argc() - field_pos);
  std::string auto_iid;
  std::string_view iid = a.iid;
  if (a.idmp != AddTrimArgs::Idmp::kNone) {
    if (a.idmp == AddTrimArgs::Idmp::kAuto) {
      auto_iid = ContentIid(fv);
      iid = auto_iid;
    }
    if (types::StreamIdmp* im = s->idmp()) {
      im->Expire(ctx.now_ms(), IdmpDuration(ctx, *s));
      if (const StreamId* prev = im->Find(a.pid, iid)) {
        // A duplicate: the entry it produced, nothing added (replayed as it ran).
        im->iids_duplicates++;
        ctx.rb().Bulk(prev->ToString());
        StreamDirty(ctx, key);
        return;
      }
    }
  }
  const StreamId last = s->last_id();
  if (last == StreamId::Max()) {
    return ctx.rb().Error(
        "ERR The stream has exhausted the last possible ID, unable to add more items");
  }
  StreamId id;
  bool ok = true;
  if (!a.id_given) {
    const uint64_t now = static_cast<uint64_t>(ctx.now_ms());
    if (now > last.ms) {
      id = {now, 0};
    } else {
      id = last;
      id.Incr();
    }
  } else if (!a.seq_given) {
    id = a.id;
    if (id.ms == last.ms) {
      ok = last.seq != UINT64_MAX;
      id.seq = last.seq + 1;
    } else {
      ok = id.ms > last.ms;
      id.seq = 0;
    }
  } else {
    id = a.id;
    ok = id > last;
  }
  if (!ok) {
    return ctx.rb().Error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
  }
  s->Append(id, fv, StreamLimits(ctx));
  if (a.idmp != AddTrimArgs::Idmp::kNone) {
    s->EnsureIdmp().Record(a.pid, iid, id, IdmpMaxSize(ctx, *s));
  }
  char id_buf[StreamId::kTextMax];
  const std::string_view id_text(id_buf, id.Format(id_buf));
  ctx.rb().Bulk(id_text);
  ctx.KeyModified(key, notify::kStream, "xadd");
  const bool by_effect = TrimByEffect(a, *s);
  std::vector<StreamId> removed;
  if (a.trim.kind != StreamValue::TrimSpec::kNone &&
      s->Trim(a.trim, by_effect ? &removed : nullptr) > 0) {
    ctx.Notify(notify::kStream, "xtrim", key);
  }
  if (by_effect) {
    std::vector<std::string_view> add = {"XADD", key, id_text};
    add.insert(add.end(), fv.begin(), fv.end());
    ctx.PropagateAs(add);
    PropagateRemoved(ctx, key, *s, removed);
    return;
  }
  const bool id_rewritten = !a.id_given || !a.seq_given;
  if (id_rewritten || a.trim.approx) {
    PropagateRewritten(ctx, a, *s, id_rewritten ? &id_text : nullptr);
  }
}

void XLenCommand(CommandContext& ctx) {
  bool wrong;
  StreamValue* s = ReadStream(ctx, ctx.arg(1), &wrong);
  if (!wrong) {
    ctx.rb().Integer(s != nullptr ? static_cast<int64_t>(s->length()) : 0);
  }
}

// XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n]
void XRangeGeneric(CommandContext& ctx, bool rev) {
  auto start = ParseRangeBound(ctx, ctx.arg(rev ? 3 : 2), true);
  if (!start) {
    return;
  }
  auto end = ParseRangeBound(ctx, ctx.arg(rev ? 2 : 3), false);
  if (!end) {
    return;
  }
  int64_t count = -1;
  for (size_t j = 4; j < ctx.argc(); j++) {
    if (EqualsIgnoreCase(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      auto n = ctx.IntArg(j + 1);
      if (!n) {
        return;
      }
      count = *n < 0 ? 0 : *n;
      j++;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  bool wrong;
  StreamValue* s = ReadStream(ctx, ctx.arg(1), &wrong);
  if (wrong) {
    return;
  }
  if (s == nullptr) {
    return ctx.rb().EmptyArray();
  }
  if (count == 0) {
    return ctx.rb().NullArray();
  }
  ReplyStreamRange(ctx.rb(), *s, *start, *end, rev, count < 0 ? 0 : static_cast<size_t>(count));
}
void XRangeCommand(CommandContext& ctx) { XRangeGeneric(ctx, false); }
void XRevRangeCommand(CommandContext& ctx) { XRangeGeneric(ctx, true); }

// XDEL key id [id ...]
void XDelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  bool done;
  StreamValue* s = StreamOrZero(ctx, key, &done);
  std::vector<StreamId> ids;
  if (done || !ParseStreamIds(ctx, 2, &ids)) {
    return;
  }
  int64_t deleted = 0;
  for (const StreamId& id : ids) {
    if (s->Delete(id)) {
      if (id > s->max_deleted_id()) {
        s->set_max_deleted_id(id);
      }
      deleted++;
    }
  }
  if (deleted > 0) {
    ctx.KeyModified(key, notify::kStream, "xdel");
    ctx.AddDirty(deleted - 1);
  }
  ctx.rb().Integer(deleted);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] [KEEPREF | DELREF | ACKED]
void XTrimCommand(CommandContext& ctx) {
  AddTrimArgs a;
  if (!ParseAddTrim(ctx, false, &a)) {
    return;
  }
  std::string_view key = ctx.arg(1);
  bool done;
  StreamValue* s = StreamOrZero(ctx, key, &done);
  if (done) {
    return;
  }
  const bool by_effect = TrimByEffect(a, *s);
  std::vector<StreamId> removed;
  const int64_t deleted = s->Trim(a.trim, by_effect ? &removed : nullptr);
  if (deleted > 0) {
    ctx.KeyModified(key, notify::kStream, "xtrim");
    if (by_effect) {
      PropagateRemoved(ctx, key, *s, removed);
    } else if (a.trim.approx) {
      PropagateRewritten(ctx, a, *s, nullptr);
    }
  }
  ctx.rb().Integer(deleted);
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void XSetIdCommand(CommandContext& ctx) {
  auto id = ParseStreamId(ctx, ctx.arg(2), 0, true);
  if (!id) {
    return;
  }
  int64_t entries_added = -1;
  StreamId max_xdel;
  for (size_t i = 3; i < ctx.argc(); i += 2) {
    const bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(ctx.arg(i), "entriesadded") && more) {
      auto n = ctx.IntArg(i + 1);
      if (!n) {
        return;
      }
      if (*n < 0) {
        return ctx.rb().Error("ERR entries_added must be positive");
      }
      entries_added = *n;
    } else if (EqualsIgnoreCase(ctx.arg(i), "maxdeletedid") && more) {
      auto m = ParseStreamId(ctx, ctx.arg(i + 1), 0, true);
      if (!m) {
        return;
      }
      if (*id < *m) {
        return ctx.rb().Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      }
      max_xdel = *m;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db().Find(key);
  if (e == nullptr) {
    return ctx.rb().Error(errors::kNoSuchKey);
  }
  if (!CheckType(ctx, e, ValueType::kStream)) {
    return;
  }
  StreamValue* s = e->As<StreamValue>();
  if (*id < s->max_deleted_id()) {
    return ctx.rb().Error(
        "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id");
  }
  if (s->length() > 0) {
    if (*id < s->LastEntryId()) {
      return ctx.rb().Error(
          "ERR The ID specified in XSETID is smaller than the target stream top item");
    }
    if (entries_added != -1 && s->length() > static_cast<uint64_t>(entries_added)) {
      return ctx.rb().Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
    }
  }
  s->set_last_id(*id);
  if (entries_added != -1) {
    s->set_entries_added(static_cast<uint64_t>(entries_added));
  }
  if (!max_xdel.IsZero()) {
    s->set_max_deleted_id(max_xdel);
  }
  ctx.KeyChangedUnwatched(key, notify::kStream, "xsetid");
  ctx.rb().Ok();
}

}  // namespace

void RegisterStreamCommands(CommandTable& t) {
  t.Add({.name = "xadd", .arity = -5, .flags = "write denyoom fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XAddCommand,
         .doc = {"stream", "5.0.0", "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
                 "Appends an entry to a stream (creating it unless NOMKSTREAM), optionally trimming it; returns the entry's id.",
                 "key [NOMKSTREAM] [condition: KEEPREF | DELREF | ACKED] "
                 "[idmp: IDMPAUTO pid | <idmp: IDMP pid iid>] "
                 "[trim: <strategy: MAXLEN | MINID> [operator: <equal: '='> | <approximately: '~'>] "
                 "threshold [LIMIT count]] <id-selector: <auto-id: '*'> | id:string> "
                 "<data: field value> ..."},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xlen", .arity = 2, .flags = "readonly fast", .acl = "@read @stream @fast",
         .keys = {KeyAt(1, "RO")}, .handler = XLenCommand,
         .doc = {"stream", "5.0.0", "O(1)", "Returns the number of entries of a stream.", "key"}});
  t.Add({.name = "xrange", .arity = -4, .flags = "readonly", .acl = "@read @stream @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = XRangeCommand,
         .doc = {"stream", "5.0.0", "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
                 "Returns the entries of a stream between two ids.", "key start:string end:string [COUNT count]"}});
  t.Add({.name = "xrevrange", .arity = -4, .flags = "readonly", .acl = "@read @stream @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = XRevRangeCommand,
         .doc = {"stream", "5.0.0", "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
                 "Returns the entries of a stream between two ids, newest first.", "key end:string start:string [COUNT count]"}});
  t.Add({.name = "xdel", .arity = -3, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = XDelCommand,
         .doc = {"stream", "5.0.0", "O(1) for each single item to delete in the stream, regardless of the stream size.",
                 "Deletes entries of a stream; returns how many existed.", "key id:string [id:string ...]"}});
  t.Add({.name = "xtrim", .arity = -4, .flags = "write", .acl = "@write @stream @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = XTrimCommand,
         .doc = {"stream", "5.0.0", "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
                 "Deletes the oldest entries of a stream by length or id; returns how many.",
                 "key <trim: <strategy: MAXLEN | MINID> [operator: <equal: '='> | <approximately: '~'>] threshold "
                 "[LIMIT count] [condition: KEEPREF | DELREF | ACKED]>"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "xsetid", .arity = -3, .flags = "write denyoom fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XSetIdCommand,
         .doc = {"stream", "5.0.0", "O(1)",
                 "Sets a stream's last id, entries-added counter and max deleted id.",
                 "key last-id [ENTRIESADDED entries-added:integer] [MAXDELETEDID max-deleted-id]"}});
}

}  // namespace hotkv

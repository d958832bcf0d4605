// Redis 8.2's XDELEX and XACKDEL: delete entries with a policy for the consumer groups'
// references to them.
//
//   XDELEX key [KEEPREF | DELREF | ACKED] IDS numids id [id ...]
//   XACKDEL key group [KEEPREF | DELREF | ACKED] IDS numids id [id ...]
//
// One reply code per id, as Redis 8.8 answers: -1 no such entry (XDELEX) or not pending in
// the group (XACKDEL; nothing is deleted then), 1 deleted (for XACKDEL: acknowledged, and
// deleted if it still existed), 2 kept because ACKED found a group that still needs it
// (pending, or not delivered yet). KEEPREF (the default) leaves other PELs alone, DELREF
// removes the entry from every PEL. A missing key (or group) answers -1 for every id.
// Deletions count in max-deleted-entry-id as XDEL's do, with the "xdel" event.
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/stream_common.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace {

enum class RefPolicy { kKeepRef, kDelRef, kAcked };

struct DelExArgs {
  RefPolicy policy = RefPolicy::kKeepRef;
  std::vector<StreamId> ids;
};

// Parses [KEEPREF | DELREF | ACKED] IDS numids id... from `first`. Replies on error.
bool ParseDelEx(CommandContext& ctx, size_t first, DelExArgs* a) {
  size_t i = first;
  bool policy_given = false;
  for (; i < ctx.argc(); i++) {
    std::string_view o = ctx.arg(i);
    if (!policy_given && EqualsIgnoreCase(o, "keepref")) {
      a->policy = RefPolicy::kKeepRef;
    } else if (!policy_given && EqualsIgnoreCase(o, "delref")) {
      a->policy = RefPolicy::kDelRef;
    } else if (!policy_given && EqualsIgnoreCase(o, "acked")) {
      a->policy = RefPolicy::kAcked;
    } else if (EqualsIgnoreCase(o, "ids") && i + 1 < ctx.argc()) {
      break;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
    policy_given = true;
  }
  if (i + 1 >= ctx.argc()) {
    ctx.rb().Error(errors::kSyntax);
    return false;
  }
  auto n = ParseInt64(ctx.arg(i + 1));
  if (!n || *n <= 0) {
    ctx.rb().Error("ERR Number of IDs must be a positive integer");
    return false;
  }
  const size_t ids_at = i + 2;
  const size_t given = ctx.argc() - ids_at;
  if (given < static_cast<size_t>(*n)) {
    ctx.rb().Error("ERR The `numids` parameter must match the number of arguments");
    return false;
  }
  if (given > static_cast<size_t>(*n)) {
    ctx.rb().Error(errors::kSyntax);
    return false;
  }
  return ParseStreamIds(ctx, ids_at, &a->ids);
}

// Deletes `id` from the stream under `policy`; the reply code.
int64_t DeleteWithPolicy(StreamValue& s, const StreamId& id, RefPolicy policy, bool* deleted) {
  if (!s.Contains(id)) {
    return -1;
  }
  if (policy == RefPolicy::kAcked && s.Referenced(id)) {
    return 2;
  }
  s.Delete(id);
  if (id > s.max_deleted_id()) {
    s.set_max_deleted_id(id);
  }
  if (policy == RefPolicy::kDelRef) {
    s.RemoveReferences(id);
  }
  *deleted = true;
  return 1;
}

// XDELEX (ackdel false) and XACKDEL (true: the group comes first, and an id must be
// pending in it to be acknowledged and deleted).
void DelExGeneric(CommandContext& ctx, bool ackdel) {
  DelExArgs a;
  if (!ParseDelEx(ctx, ackdel ? 3 : 2, &a)) {
    return;
  }
  std::string_view key = ctx.arg(1);
  bool wrong;
  StreamValue* s = FindStream(ctx, key, &wrong);
  if (wrong) {
    return;
  }
  types::StreamGroup* g = s != nullptr && ackdel ? s->FindGroup(ctx.arg(2)) : nullptr;
  if (s == nullptr || (ackdel && g == nullptr)) {
    return ReplyIntegers(ctx, std::vector<int64_t>(a.ids.size(), -1));
  }
  std::vector<int64_t> codes;
  bool deleted = false, acked = false;
  for (const StreamId& id : a.ids) {
    if (!ackdel) {
      codes.push_back(DeleteWithPolicy(*s, id, a.policy, &deleted));
      continue;
    }
    if (!g->Ack(id)) {
      codes.push_back(-1);
      continue;
    }
    acked = true;
    const int64_t code = DeleteWithPolicy(*s, id, a.policy, &deleted);
    codes.push_back(code == -1 ? 1 : code);  // acknowledged: done even if already deleted
  }
  if (deleted) {
    ctx.KeyModified(key, notify::kStream, "xdel");
  } else if (acked) {
    StreamDirty(ctx, key);
  }
  ReplyIntegers(ctx, codes);
}
void XDelExCommand(CommandContext& ctx) { DelExGeneric(ctx, false); }
void XAckDelCommand(CommandContext& ctx) { DelExGeneric(ctx, true); }

}  // namespace

void RegisterStreamDelExCommands(CommandTable& t) {
  t.Add({.name = "xdelex", .arity = -5, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = XDelExCommand,
         .doc = {"stream", "8.2.0", "O(1) for each single item to delete in the stream, regardless of the stream size.",
                 "Deletes entries of a stream, choosing what happens to the consumer groups' references.",
                 "key [condition: KEEPREF | DELREF | ACKED] <ids: IDS numids:integer id:string ...>"}});
  t.Add({.name = "xackdel", .arity = -6, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE DELETE")}, .handler = XAckDelCommand,
         .doc = {"stream", "8.2.0", "O(1) for each message ID processed.",
                 "Acknowledges entries for a consumer group and deletes them from the stream.",
                 "key group [condition: KEEPREF | DELREF | ACKED] <ids: IDS numids:integer id:string ...>"}});
}

}  // namespace hotkv

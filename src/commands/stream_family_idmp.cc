// Redis 8.6's idempotent-producer commands (XADD IDMP / IDMPAUTO live in stream_family.cc):
//
//   XCFGSET key [IDMP-DURATION seconds] [IDMP-MAXSIZE count]
//     Sets a stream's IDMP settings (1..86400 seconds, 1..10000 records per producer).
//     A setting that changes forgets every record (the counters stay), as Redis 8.8 does.
//   XIDMPRECORD key pid iid id
//     Records (pid, iid) -> id for an existing entry (how Redis's AOF rewrite and
//     replication carry the records); OK also when the same record exists.
//
// Errors are Redis 8.8's texts, in its order (XCFGSET looks the key up first,
// XIDMPRECORD last). Both are replayed as they ran.
#include <string>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/stream_common.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace {

// XCFGSET key [IDMP-DURATION seconds] [IDMP-MAXSIZE count]
void XCfgSetCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  bool wrong = false;
  StreamValue* s = FindStream(ctx, key, &wrong);
  if (wrong) {
    return;
  }
  if (s == nullptr) {
    return ctx.rb().Error("ERR no such key");
  }
  int64_t duration = 0, maxsize = 0;
  if (ctx.argc() == 2) {
    return ctx.rb().Error("ERR At least one parameter must be specified");
  }
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    std::string_view o = ctx.arg(i);
    const bool is_duration = EqualsIgnoreCase(o, "idmp-duration");
    if ((!is_duration && !EqualsIgnoreCase(o, "idmp-maxsize")) || i + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    int64_t& slot = is_duration ? duration : maxsize;
    if (slot != 0) {
      return ctx.rb().Error(is_duration ? "ERR IDMP-DURATION specified multiple times"
                                        : "ERR IDMP-MAXSIZE specified multiple times");
    }
    auto v = ctx.IntArg(i + 1, "ERR value is not an integer or out of range");
    if (!v) {
      return;
    }
    if (is_duration && (*v < 1 || *v > 86400)) {
      return ctx.rb().Error("ERR IDMP-DURATION must be between 1 and 86400 seconds");
    }
    if (!is_duration && (*v < 1 || *v > 10000)) {
      return ctx.rb().Error("ERR IDMP-MAXSIZE must be between 1 and 10000 entries");
    }
    slot = *v;
  }
  bool changed = false;
  if (duration != 0 && duration != IdmpDuration(ctx, *s)) {
    changed = true;
  }
  if (maxsize != 0 && maxsize != IdmpMaxSize(ctx, *s)) {
    changed = true;
  }
  s->set_idmp_duration(duration != 0 ? duration : IdmpDuration(ctx, *s));
  s->set_idmp_maxsize(maxsize != 0 ? maxsize : IdmpMaxSize(ctx, *s));
  if (changed && s->idmp() != nullptr) {
    s->idmp()->Clear();
  }
  StreamDirty(ctx, key);
  ctx.rb().Ok();
}

// XIDMPRECORD key pid iid id
void XIdmpRecordCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1), pid = ctx.arg(2), iid = ctx.arg(3);
  auto id = ParseStreamId(ctx, ctx.arg(4), 0, true);
  if (!id) {
    return;
  }
  if (pid.empty()) {
    return ctx.rb().Error("ERR producer ID must be non-empty");
  }
  if (iid.empty()) {
    return ctx.rb().Error("ERR idempotent ID must be non-empty");
  }
  bool wrong = false;
  StreamValue* s = FindStream(ctx, key, &wrong);
  if (wrong) {
    return;
  }
  if (s == nullptr) {
    return ctx.rb().Error("ERR no such key");
  }
  if (!s->Contains(*id)) {
    return ctx.rb().Error("ERR No such message in stream");
  }
  types::StreamIdmp& im = s->EnsureIdmp();
  im.Expire(ctx.now_ms(), IdmpDuration(ctx, *s));
  if (const StreamId* prev = im.Find(pid, iid)) {
    if (*prev != *id) {
      return ctx.rb().Error("ERR IID already exists for this producer with a different stream ID");
    }
    return ctx.rb().Ok();
  }
  im.Record(pid, iid, *id, IdmpMaxSize(ctx, *s));
  StreamDirty(ctx, key);
  ctx.rb().Ok();
}

}  // namespace

void RegisterStreamIdmpCommands(CommandTable& t) {
  t.Add({.name = "xcfgset", .arity = -2, .flags = "write fast", .acl = "@write @stream @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = XCfgSetCommand,
         .doc = {"stream", "8.6.0", "O(1)", "Sets the IDMP configuration parameters for a stream.",
                 "key [IDMP-DURATION idmp-duration:integer] [IDMP-MAXSIZE idmp-maxsize:integer]"}});
  t.Add({.name = "xidmprecord", .arity = 5, .flags = "write denyoom fast",
         .acl = "@write @stream @fast", .keys = {KeyAt(1, "RW UPDATE")},
         .handler = XIdmpRecordCommand,
         .doc = {"stream", "8.6.2", "O(1)",
                 "An internal command for setting IDMP metadata on an existing stream message.",
                 "key pid iid stream-id:string"}});
}

}  // namespace hotkv

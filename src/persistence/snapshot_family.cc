// Snapshot commands: SAVE, BGSAVE [SCHEDULE], LASTSAVE. Registered by main.cc with
// RegisterSnapshotCommands (persistence/snapshot_family.h); the work is the
// Snapshotter's (snapshot.h).
//
// Replies as Redis 8.8's: "Background saving started", "Background saving scheduled"
// (BGSAVE inside MULTI/EXEC, whose transaction holds the shard locks the fork barrier
// needs), "ERR Background save already in progress" (BGSAVE, and SAVE while a BGSAVE
// child runs), a bare "ERR" when SAVE or the fork fails (the reason is in the log).
#include "persistence/snapshot_family.h"

#include "common/string_util.h"
#include "server/command_context.h"

namespace hotkv::persistence {

namespace {

Snapshotter* g_snapshotter = nullptr;

void SaveCommand(CommandContext& ctx) {
  Status st = g_snapshotter->Save();
  if (!st.ok()) {
    return ctx.rb().Error(st.message());
  }
  ctx.rb().Ok();
}

void BgsaveCommand(CommandContext& ctx) {
  bool schedule = false;
  if (ctx.argc() > 1) {
    if (ctx.argc() == 2 && EqualsIgnoreCase(ctx.arg(1), "SCHEDULE")) {
      schedule = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  switch (g_snapshotter->Bgsave(schedule, ctx.in_exec())) {
    case Snapshotter::BgsaveReply::kStarted:
      return ctx.rb().SimpleString("Background saving started");
    case Snapshotter::BgsaveReply::kScheduled:
      return ctx.rb().SimpleString("Background saving scheduled");
    case Snapshotter::BgsaveReply::kInProgress:
      return ctx.rb().Error("ERR Background save already in progress");
    case Snapshotter::BgsaveReply::kOtherChild:
      return ctx.rb().Error(
          "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
          "SCHEDULE in order to schedule a BGSAVE whenever possible.");
    case Snapshotter::BgsaveReply::kFailed:
      return ctx.rb().Error("ERR");
  }
}

void LastSaveCommand(CommandContext& ctx) { ctx.rb().Integer(g_snapshotter->LastSaveUnix()); }

}  // namespace

void RegisterSnapshotCommands(CommandTable& t, Snapshotter* snapshotter) {
  g_snapshotter = snapshotter;
  t.Add({.name = "save",
         .arity = 1,
         .flags = "admin noscript no_async_loading no_multi",
         .acl = "@admin @slow @dangerous",
         .handler = SaveCommand,
         .doc = {"server", "1.0.0", "O(N) where N is the total number of keys in all databases",
                 "Writes the dataset to dump.rdb, every client waiting meanwhile.", ""}});
  t.Add({.name = "bgsave",
         .arity = -1,
         .flags = "admin noscript no_async_loading",
         .acl = "@admin @slow @dangerous",
         .handler = BgsaveCommand,
         .doc = {"server", "1.0.0", "O(1)",
                 "Writes the dataset to dump.rdb from a forked child while clients are served.",
                 "[SCHEDULE]"}});
  t.Add(
      {.name = "lastsave",
       .arity = 1,
       .flags = "loading stale fast",
       .acl = "@admin @fast @dangerous",
       .handler = LastSaveCommand,
       .doc = {"server", "1.0.0", "O(1)", "Returns the Unix time of the last successful save.", ""},
       .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv::persistence

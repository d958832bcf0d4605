// Server commands of the append-only file: BGREWRITEAOF.
//
// BGREWRITEAOF starts a rewrite in the background (persistence/aof_writer.cc: a new RDB
// base of the current data and a fresh incremental file, the manifest swapped atomically)
// and answers at once, as Redis. Errors: one already running, or appendonly off (Redis
// writes a one-off AOF then; HotKV refuses, see docs/persistence.md).
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"

namespace hotkv {

namespace {

void BgRewriteAofCommand(CommandContext& ctx) {
  AofService* aof = ctx.server().aof();
  if (aof == nullptr) {
    return ctx.rb().Error("ERR BGREWRITEAOF needs appendonly yes in HotKV");
  }
  if (Status st = aof->Rewrite(); !st.ok()) {
    return ctx.rb().Error(st.message());
  }
  ctx.rb().SimpleString("Background append only file rewriting started");
}

}  // namespace

void RegisterServerAofCommands(CommandTable& t) {
  t.Add({.name = "bgrewriteaof",
         .arity = 1,
         .flags = "admin noscript no_async_loading",
         .acl = "@admin @slow @dangerous",
         .handler = BgRewriteAofCommand,
         .doc = {"server", "1.0.0", "O(1)", "Rewrites the append-only file in the background.", ""},
         .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv

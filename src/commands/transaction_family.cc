// Transactions: MULTI EXEC DISCARD WATCH UNWATCH.
//
// Edge cases honoured (as Redis): MULTI inside MULTI and WATCH inside MULTI are errors
// that leave the transaction usable; a queue-time error (unknown command, wrong arity)
// makes EXEC answer EXECABORT; run-time errors inside EXEC do not stop the other
// commands; a WATCHed key changed by anyone (any worker, expiry, FLUSHDB, SWAPDB) makes
// EXEC reply a null array; EXEC and DISCARD always end the transaction and unwatch.
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "server/shard_state.h"

namespace hotkv {

namespace {

void MultiCommand(CommandContext& ctx) {
  if (ctx.client().in_multi()) {
    return ctx.rb().Error("ERR MULTI calls can not be nested");
  }
  ctx.client().BeginMulti();
  ctx.rb().Ok();
}

void ExecCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  if (!c.in_multi()) {
    return ctx.rb().Error("ERR EXEC without MULTI");
  }
  if (c.multi_error()) {
    c.EndMulti();
    UnwatchAll(ctx.keyspace(), c);
    return ctx.rb().Error("EXECABORT Transaction discarded because of previous errors.");
  }
  std::vector<QueuedCommand> queue = std::move(c.multi_queue());
  c.EndMulti();
  ExecuteQueued(ctx, queue);
  UnwatchAll(ctx.keyspace(), c);
}

void DiscardCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  if (!c.in_multi()) {
    return ctx.rb().Error("ERR DISCARD without MULTI");
  }
  c.EndMulti();
  UnwatchAll(ctx.keyspace(), c);
  ctx.rb().Ok();
}

void WatchCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  if (c.in_multi()) {
    return ctx.rb().Error("ERR WATCH inside MULTI is not allowed");
  }
  const int db = c.db();
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string_view key = ctx.arg(i);
    bool already = false;
    for (const WatchedKey& wk : c.watched_keys()) {
      if (wk.db == db && wk.key == key) {
        already = true;
        break;
      }
    }
    if (already) {
      continue;
    }
    // The dispatcher holds this key's shard lock (WATCH names its keys in its key specs).
    WatchKey(ctx.keyspace().shard(Keyspace::ShardOf(key)), db, key, &c);
    c.watched_keys().push_back({db, std::string(key)});
  }
  c.watch_len.store(c.watched_keys().size(), std::memory_order_relaxed);
  ctx.rb().Ok();
}

void UnwatchCommand(CommandContext& ctx) {
  UnwatchAll(ctx.keyspace(), ctx.client());
  ctx.rb().Ok();
}

}  // namespace

void RegisterTransactionCommands(CommandTable& t) {
  t.Add({.name = "multi", .arity = 1, .flags = "noscript loading stale fast allow_busy",
         .acl = "@fast @transaction", .handler = MultiCommand,
         .doc = {"transactions", "1.2.0", "O(1)", "Starts a transaction: commands are queued until EXEC.", ""}});
  t.Add({.name = "exec", .arity = 1, .flags = "noscript loading stale skip_slowlog",
         .acl = "@slow @transaction", .handler = ExecCommand,
         .doc = {"transactions", "1.2.0", "Depends on commands in the transaction",
                 "Runs the queued commands atomically.", ""}});
  t.Add({.name = "discard", .arity = 1, .flags = "noscript loading stale fast allow_busy",
         .acl = "@fast @transaction", .handler = DiscardCommand,
         .doc = {"transactions", "2.0.0", "O(N), when N is the number of queued commands",
                 "Drops the queued commands and leaves MULTI.", ""}});
  t.Add({.name = "watch", .arity = -2, .flags = "noscript loading stale fast allow_busy",
         .acl = "@fast @transaction", .keys = {KeyRange(1, -1, 1, "RO")}, .handler = WatchCommand,
         .doc = {"transactions", "2.2.0", "O(1) for every key.",
                 "Makes the next EXEC fail if any of these keys changes before it.", "key [key ...]"}});
  t.Add({.name = "unwatch", .arity = 1, .flags = "noscript loading stale fast allow_busy",
         .acl = "@fast @transaction", .handler = UnwatchCommand,
         .doc = {"transactions", "2.2.0", "O(1)", "Forgets every WATCHed key.", ""}});
}

}  // namespace hotkv

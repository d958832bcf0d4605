// WAIT numreplicas timeout / WAITAOF numlocal numreplicas timeout.
//
// With appendonly yes, WAITAOF fsyncs this client's writes (AofService::WaitDurable) and
// counts the local AOF as acknowledged (1). Otherwise, and for replicas (HotKV has none),
// nothing is ever acknowledged: as a Redis 8.8
// master with no replica, WAIT answers 0 at once when it waits for no replica (numreplicas
// <= 0) and otherwise blocks until its timeout (0: forever) and answers 0; WAITAOF answers
// [0, 0] the same way for numreplicas 0 / > 0, and numlocal 1 is refused as it is when
// appendonly is off. Inside MULTI neither blocks. CLIENT UNBLOCK answers the count
// (TIMEOUT) or its UNBLOCKED error (ERROR). Argument errors are Redis's, in its order.
#include <limits>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/blocking.h"
#include "server/server.h"

namespace hotkv {

namespace {

// Redis's getTimeoutFromObjectOrReply in milliseconds. Replies and returns nullopt on error.
std::optional<int64_t> ParseWaitTimeout(CommandContext& ctx, std::string_view arg) {
  auto v = ParseInt64(arg);
  if (!v) {
    ctx.rb().Error("ERR timeout is not an integer or out of range");
    return std::nullopt;
  }
  if (*v < 0) {
    ctx.rb().Error("ERR timeout is negative");
    return std::nullopt;
  }
  if (*v > std::numeric_limits<int64_t>::max() - ctx.now_ms()) {
    ctx.rb().Error("ERR timeout is out of range");
    return std::nullopt;
  }
  return *v;
}

// Answers `reply` now (nothing to wait for, or inside MULTI), or blocks until the timeout.
void ReplyOrWait(CommandContext& ctx, bool wait, int64_t timeout_ms, std::string reply) {
  if (!wait || ctx.in_exec()) {
    return ctx.rb().Raw(reply);
  }
  BlockClientUntilTimeout(ctx, timeout_ms, std::move(reply));
}

void WaitCommand(CommandContext& ctx) {
  auto replicas = ctx.IntArg(1);
  if (!replicas) {
    return;
  }
  auto timeout = ParseWaitTimeout(ctx, ctx.arg(2));
  if (!timeout) {
    return;
  }
  ReplyOrWait(ctx, *replicas > 0, *timeout, ":0\r\n");
}

void WaitAofCommand(CommandContext& ctx) {
  auto local = ParseInt64(ctx.arg(1));
  if (!local) {
    return ctx.rb().Error(errors::kNotInteger);
  }
  if (*local < 0 || *local > 1) {
    return ctx.rb().Error("ERR value is out of range, value must between 0 and 1");
  }
  auto replicas = ParseInt64(ctx.arg(2));
  if (!replicas || *replicas < 0) {
    return ctx.rb().Error("ERR value is out of range, must be positive");
  }
  auto timeout = ParseWaitTimeout(ctx, ctx.arg(3));
  if (!timeout) {
    return;
  }
  AofService* aof = ctx.server().aof();
  if (aof == nullptr || !aof->enabled()) {
    if (*local == 1) {
      return ctx.rb().Error(
          "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
    }
    return ReplyOrWait(ctx, *replicas > 0, *timeout, "*2\r\n:0\r\n:0\r\n");
  }
  // The local AOF: this client's writes are fsynced right here (one fsync, shared with
  // every other thread's records), so the local count is 1 at once.
  if (!ctx.in_exec()) {
    aof->WaitDurable(ctx.server().write_stream().LastCommittedByThisThread());
  }
  ReplyOrWait(ctx, *replicas > 0, *timeout, "*2\r\n:1\r\n:0\r\n");
}

}  // namespace

void RegisterWaitCommands(CommandTable& t) {
  t.Add({.name = "wait", .arity = 3, .flags = "blocking", .acl = "@slow @blocking @connection",
         .handler = WaitCommand,
         .doc = {"generic", "3.0.0", "O(1)",
                 "Waits for replicas to acknowledge the connection's writes (HotKV has none: "
                 "the count is 0).",
                 "numreplicas:integer timeout:integer"},
         .tips = {"request_policy:all_shards", "response_policy:agg_min"}});
  t.Add({.name = "waitaof", .arity = 4, .flags = "blocking", .acl = "@slow @blocking @connection",
         .handler = WaitAofCommand,
         .doc = {"generic", "7.2.0", "O(1)",
                 "Waits for the connection's writes to reach the append-only file locally and "
                 "on replicas (HotKV has no replicas: that count is 0).",
                 "numlocal:integer numreplicas:integer timeout:integer"},
         .tips = {"request_policy:all_shards", "response_policy:agg_min"}});
}

}  // namespace hotkv

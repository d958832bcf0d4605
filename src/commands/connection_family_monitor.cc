// MONITOR, CLIENT PAUSE and CLIENT UNPAUSE: the runtime halves are server/monitor.h
// (the feed the dispatcher writes to) and server/client_pause.h (the pause the
// dispatcher checks).
#include "commands/helpers.h"
#include "commands/register.h"
#include "common/clock.h"
#include "common/string_util.h"
#include "server/command_context.h"
#include "server/server.h"

namespace hotkv {

namespace {

// MONITOR: every later command of every client, one "+<time> [db addr] ..." line each.
// As in Redis: refused inside EXEC (a transaction expects one reply per command), and a
// second MONITOR on a monitoring connection does nothing (no reply). RESET ends it.
void MonitorCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  if (ctx.in_exec()) {
    return ctx.rb().Error("ERR MONITOR isn't allowed for DENY BLOCKING client");
  }
  if (c.monitor_flag.load(std::memory_order_relaxed)) {
    return;
  }
  ctx.server().monitors().Add(c);
  ctx.rb().Ok();
}

// CLIENT PAUSE timeout [WRITE|ALL]: Redis's checks in its order (argument count, then
// the mode, then the timeout); a new pause replaces the actions and keeps the later end.
void ClientPauseCommand(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    return ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                          std::string(ctx.arg(1)) + "'. Try CLIENT HELP.");
  }
  uint32_t actions = ClientPause::kAll;
  if (ctx.argc() == 4) {
    if (EqualsIgnoreCase(ctx.arg(3), "WRITE")) {
      actions = ClientPause::kWrite;
    } else if (!EqualsIgnoreCase(ctx.arg(3), "ALL")) {
      return ctx.rb().Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
    }
  }
  auto ms = ParseInt64(ctx.arg(2));
  if (!ms) {
    return ctx.rb().Error("ERR timeout is not an integer or out of range");
  }
  if (*ms < 0) {
    return ctx.rb().Error("ERR timeout is negative");
  }
  const int64_t now = WallClockMs();
  const int64_t end = *ms > INT64_MAX - now ? INT64_MAX : now + *ms;
  ctx.server().client_pause().Pause(ctx.server(), end, actions);
  ctx.rb().Ok();
}

void ClientUnpauseCommand(CommandContext& ctx) {
  ctx.server().client_pause().Unpause(ctx.server());
  ctx.rb().Ok();
}

}  // namespace

void RegisterMonitorCommands(CommandTable& t) {
  t.Add({.name = "monitor", .arity = 1, .flags = "admin noscript loading stale",
         .acl = "@admin @slow @dangerous", .handler = MonitorCommand,
         .doc = {"server", "1.0.0", "", "Streams every command the server runs, as it runs them.", ""}});
  t.AddSub("client", {.name = "pause", .arity = -3, .flags = "admin noscript loading stale",
                      .acl = "@admin @slow @dangerous @connection", .handler = ClientPauseCommand,
                      .doc = {"connection", "3.0.0", "O(1)",
                              "Suspends the commands of every client, or only their writes, for a time.",
                              "timeout:integer [mode: WRITE | ALL]"}});
  t.AddSub("client", {.name = "unpause", .arity = 2, .flags = "admin noscript loading stale",
                      .acl = "@admin @slow @dangerous @connection", .handler = ClientUnpauseCommand,
                      .doc = {"connection", "6.2.0", "O(N) Where N is the number of paused clients",
                              "Ends a CLIENT PAUSE: held clients resume in order.", ""}});
}

}  // namespace hotkv

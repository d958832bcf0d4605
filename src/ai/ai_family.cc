// ai/'s registration (ai.h) and AI.DEBUG, the test hook of the AI clock (ai_clock.h):
//
//   AI.DEBUG CLOCK-ADVANCE ms   moves the AI clock forward (negative: back); replies the
//                               offset now in effect
//   AI.DEBUG CLOCK-RESET        offset back to 0
//   AI.DEBUG CLOCK              the AI clock now (ms since the epoch)
//
// Refused unless enable-debug-command allows DEBUG for this client.
#include "ai/ai.h"

#include "ai/ai_clock.h"
#include "common/string_util.h"
#include "server/server.h"

namespace hotkv::ai {
namespace {

bool IsLocal(const Client& c) {
  return c.addr.rfind("127.", 0) == 0 || c.addr.rfind("[::1]", 0) == 0 ||
         c.addr.rfind("::1", 0) == 0 || c.addr.empty();
}

void AiDebugCommand(CommandContext& ctx) {
  const int64_t allowed = ctx.server().config().enable_debug_command();  // no, yes, local
  if (allowed == 0 || (allowed == 2 && !IsLocal(ctx.client()))) {
    return ctx.rb().Error("ERR AI.DEBUG not allowed: enable-debug-command is off");
  }
  std::string_view sub = ctx.arg(1);
  if (EqualsIgnoreCase(sub, "CLOCK-ADVANCE") && ctx.argc() == 3) {
    std::optional<int64_t> ms = ParseInt64(ctx.arg(2));
    if (!ms) {
      return ctx.rb().Error(errors::kNotInteger);
    }
    const int64_t now = g_ai_clock_offset_ms.fetch_add(*ms, std::memory_order_relaxed) + *ms;
    return ctx.rb().Integer(now);
  }
  if (EqualsIgnoreCase(sub, "CLOCK-RESET") && ctx.argc() == 2) {
    g_ai_clock_offset_ms.store(0, std::memory_order_relaxed);
    return ctx.rb().Ok();
  }
  if (EqualsIgnoreCase(sub, "CLOCK") && ctx.argc() == 2) {
    return ctx.rb().Integer(AiNowMs(ctx));
  }
  ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                 std::string(sub.substr(0, 128)) + "'");
}

}  // namespace

void RegisterAiDebugCommands(CommandTable& t) {
  t.Add({.name = "ai.debug", .arity = -2, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous",
         .handler = AiDebugCommand,
         .doc = {"server", "0.1.0", "O(1)", "Test hooks of the AI caches (the clock of their entry TTLs).",
                 "<CLOCK-ADVANCE milliseconds | CLOCK-RESET | CLOCK>"}});
}

void RegisterAiCommands(CommandTable& t) {
  RegisterAiDebugCommands(t);
  RegisterScacheCommands(t);
  RegisterPcacheCommands(t);
  RegisterMemCommands(t);
}

}  // namespace hotkv::ai

// SLOWLOG GET, LEN, RESET, HELP (the log itself: server/slowlog.h).
#include <cstdint>
#include <iterator>
#include <string>

#include "commands/helpers.h"
#include "commands/server_common.h"
#include "server/server.h"

namespace hotkv::server_internal {

void SlowLogGetCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                          std::string(ctx.arg(1).substr(0, 128)) + "'. Try SLOWLOG HELP.");
  }
  size_t count = 10;
  if (ctx.argc() == 3) {
    auto v = ParseInt64(ctx.arg(2));
    if (!v || *v < -1) {
      return ctx.rb().Error("ERR count should be greater than or equal to -1");
    }
    count = *v == -1 ? SIZE_MAX : static_cast<size_t>(*v);
  }
  auto entries = ctx.server().slowlog().Get(count);
  ctx.rb().Array(entries.size());
  for (const auto& e : entries) {
    ctx.rb().Array(6);
    ctx.rb().Integer(static_cast<int64_t>(e.id));
    ctx.rb().Integer(e.time_sec);
    ctx.rb().Integer(e.duration_us);
    ctx.rb().Array(e.args.size());
    for (const auto& a : e.args) {
      ctx.rb().Bulk(a);
    }
    ctx.rb().Bulk(e.client_addr);
    ctx.rb().Bulk(e.client_name);
  }
}

void SlowLogLenCommand(CommandContext& ctx) { ctx.rb().Integer(static_cast<int64_t>(ctx.server().slowlog().Len())); }

void SlowLogResetCommand(CommandContext& ctx) {
  ctx.server().slowlog().Reset();
  ctx.rb().Ok();
}

void SlowLogHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]", "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:", "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name", "LEN", "    Return the length of the slowlog.", "RESET", "    Reset the slowlog.",
      "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace hotkv::server_internal

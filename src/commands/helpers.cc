#include "commands/helpers.h"

#include "server/server.h"

namespace hotkv {

std::optional<int> ParseDbIndex(CommandContext& ctx, std::string_view arg) {
  auto v = ParseInt64(arg);
  if (!v) {
    ctx.rb().Error(errors::kNotInteger);
    return std::nullopt;
  }
  if (*v < 0 || *v >= ctx.keyspace().num_dbs()) {
    ctx.rb().Error(errors::kDbIndex);
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

void ReplyInvalidExpire(CommandContext& ctx) {
  ctx.rb().Error("ERR invalid expire time in '" + ctx.command()->full_name + "' command");
}

}  // namespace hotkv

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

types::EncodingLimits EncodingLimitsFrom(const Config& cfg) {
  types::EncodingLimits l;
  l.list_max_listpack_size = cfg.list_max_listpack_size();
  l.hash_max_listpack_entries = static_cast<uint64_t>(cfg.hash_max_listpack_entries());
  l.hash_max_listpack_value = static_cast<uint64_t>(cfg.hash_max_listpack_value());
  l.set_max_intset_entries = static_cast<uint64_t>(cfg.set_max_intset_entries());
  l.set_max_listpack_entries = static_cast<uint64_t>(cfg.set_max_listpack_entries());
  l.set_max_listpack_value = static_cast<uint64_t>(cfg.set_max_listpack_value());
  return l;
}

void DeleteIfEmpty(CommandContext& ctx, KeyRef& ref, std::string_view key, bool empty) {
  if (!empty) {
    return;
  }
  ctx.db().Erase(ref);
  ctx.KeyModified(key, notify::kGeneric, "del");
}

}  // namespace hotkv

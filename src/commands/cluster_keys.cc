#include "commands/cluster_keys.h"

#include "common/key_hash.h"
#include "engine/keyspace.h"
#include "server/command_context.h"

namespace hotkv {

size_t CountKeysInSlot(CommandContext& ctx, uint32_t slot) {
  return ctx.keyspace().CountKeysInSlot(0, slot, ctx.HoldsShard(Keyspace::ShardOfSlot(slot)));
}

std::vector<std::string> GetKeysInSlot(CommandContext& ctx, uint32_t slot, size_t count) {
  std::vector<std::string> keys;
  ctx.keyspace().GetKeysInSlot(slot, count, &keys, ctx.HoldsShard(Keyspace::ShardOfSlot(slot)));
  return keys;
}

void ClusterCountKeysInSlot(CommandContext& ctx) {
  auto slot = ctx.IntArg(2);
  if (!slot) {
    return;
  }
  if (*slot < 0 || *slot >= static_cast<int64_t>(kClusterSlots)) {
    return ctx.rb().Error("ERR Invalid slot");
  }
  ctx.rb().Integer(static_cast<int64_t>(CountKeysInSlot(ctx, static_cast<uint32_t>(*slot))));
}

void ClusterGetKeysInSlot(CommandContext& ctx) {
  auto slot = ctx.IntArg(2);
  if (!slot) {
    return;
  }
  auto count = ctx.IntArg(3);
  if (!count) {
    return;
  }
  if (*slot < 0 || *slot >= static_cast<int64_t>(kClusterSlots) || *count < 0) {
    return ctx.rb().Error("ERR Invalid slot or number of keys");
  }
  std::vector<std::string> keys =
      GetKeysInSlot(ctx, static_cast<uint32_t>(*slot), static_cast<size_t>(*count));
  ctx.rb().Array(keys.size());
  for (const std::string& k : keys) {
    ctx.rb().Bulk(k);
  }
}

}  // namespace hotkv

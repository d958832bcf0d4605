// The data side of CLUSTER COUNTKEYSINSLOT and CLUSTER GETKEYSINSLOT, for the cluster
// family (cluster/) to call from its CLUSTER handler: argument parsing, Redis 7.0's
// errors and the reply, over Keyspace::CountKeysInSlot / GetKeysInSlot (database 0,
// the only one in cluster mode). Neither scans a shard: counts are kept per slot, and in
// cluster mode a per-slot index lists a slot's keys (engine/keyspace.h).
//
//   CLUSTER COUNTKEYSINSLOT slot          -> integer          (ctx.arg(2) is the slot)
//   CLUSTER GETKEYSINSLOT slot count      -> array of keys    (ctx.arg(2), ctx.arg(3))
//
// Errors: "ERR value is not an integer or out of range", "ERR Invalid slot" /
// "ERR Invalid slot or number of keys". Arity is the caller's (Redis's "wrong number of
// arguments for 'cluster|countkeysinslot' command").
//
// Locking: takes the slot's shard lock itself unless the command already holds it
// (EXEC with every shard locked).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hotkv {

class CommandContext;

void ClusterCountKeysInSlot(CommandContext& ctx);
void ClusterGetKeysInSlot(CommandContext& ctx);

// The same without argument parsing (slot in [0, 16384)).
size_t CountKeysInSlot(CommandContext& ctx, uint32_t slot);
std::vector<std::string> GetKeysInSlot(CommandContext& ctx, uint32_t slot, size_t count);

}  // namespace hotkv

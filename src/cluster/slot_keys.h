// Keys of one hash slot, for CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT and SETSLOT NODE's
// "still hold keys" check (database 0, as Redis Cluster has only that one).
//
// Over the keyspace's per-slot counts and per-slot key index (Keyspace::CountKeysInSlot
// / GetKeysInSlot, engine/keyspace.h): no shard scan, except once for a slot's first
// iteration (which builds its index). They take the slot's shard lock unless this thread
// holds it (EXEC, scripts).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <memory>
#include <string_view>

namespace hotkv {
class Keyspace;
class Worker;
}

namespace hotkv::cluster {

int64_t CountKeysInSlot(Keyspace& ks, int slot);
// Up to `count` key names of the slot.
void GetKeysInSlot(Keyspace& ks, int slot, int64_t count, std::vector<std::string>* out);
// Whether `key` exists (and has not expired) in database 0; takes the key's shard read
// lock unless this thread holds it.
bool KeyExistsDb0(Keyspace& ks, std::string_view key, int64_t now_ms);

class ClusterState;
// Deletes the keys left in slots this node lost to a higher config epoch (Redis's "dirty
// slots", delKeysInSlot), on `worker`'s thread: DEL of up to 128 keys at a time through
// an in-process client, so the deletions reach the AOF, keyspace notifications, WATCH,
// client tracking and search indexes as any DEL does. A slot this node owns again or
// imports by then is left alone. Works in rounds of at most 1024 keys, re-posting itself
// to the worker in between so the worker's clients are served meanwhile. Any thread.
void DeleteDirtySlots(Worker& worker, ClusterState* state, std::vector<int> slots);

}  // namespace hotkv::cluster

// Keys of one hash slot, for CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT and SETSLOT NODE's
// "still hold keys" check (database 0, as Redis Cluster has only that one).
//
// Over the keyspace's per-slot counts and per-slot key index (Keyspace::CountKeysInSlot
// / GetKeysInSlot, engine/keyspace.h): no shard scan. They take the slot's shard lock
// unless this thread holds it (EXEC, scripts).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hotkv {
class Keyspace;
}

namespace hotkv::cluster {

int64_t CountKeysInSlot(Keyspace& ks, int slot);
// Up to `count` key names of the slot.
void GetKeysInSlot(Keyspace& ks, int slot, int64_t count, std::vector<std::string>* out);
// Whether `key` exists (and has not expired) in database 0; takes the key's shard read
// lock unless this thread holds it.
bool KeyExistsDb0(Keyspace& ks, std::string_view key, int64_t now_ms);

}  // namespace hotkv::cluster

// Keys of one hash slot, for CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT and SETSLOT NODE's
// "still hold keys" check (database 0, as Redis Cluster has only that one).
//
// TEMPORARY implementation: scans the one shard that holds the slot (a shard holds 16
// slots, so 1/1024 of the keyspace) under its lock. h/clkeys adds per-slot counts and
// iteration to the keyspace (Keyspace::CountKeysInSlot / GetKeysInSlot); these two
// functions then become one-line calls to those.
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

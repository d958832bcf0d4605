#include "cluster/slot_keys.h"

#include "common/key_hash.h"
#include "engine/keyspace.h"
#include "server/dispatcher.h"

namespace hotkv::cluster {

namespace {

// Runs fn(Shard&) with the shard's lock held (read lock), unless this thread holds it.
template <typename F>
void WithShard(Keyspace& ks, uint32_t shard, F fn) {
  Shard& s = ks.shard(shard);
  if (ThisThreadHoldsShard(shard)) {
    fn(s);
    return;
  }
  s.lock.lock_read();
  fn(s);
  s.lock.unlock();
}

}  // namespace

int64_t CountKeysInSlot(Keyspace& ks, int slot) {
  const uint32_t s = static_cast<uint32_t>(slot);
  return static_cast<int64_t>(
      ks.CountKeysInSlot(0, s, ThisThreadHoldsShard(Keyspace::ShardOfSlot(s))));
}

void GetKeysInSlot(Keyspace& ks, int slot, int64_t count, std::vector<std::string>* out) {
  if (count <= 0) return;
  const uint32_t s = static_cast<uint32_t>(slot);
  ks.GetKeysInSlot(s, static_cast<size_t>(count), out,
                   ThisThreadHoldsShard(Keyspace::ShardOfSlot(s)));
}

bool KeyExistsDb0(Keyspace& ks, std::string_view key, int64_t now_ms) {
  bool found = false;
  WithShard(ks, Keyspace::ShardOf(key), [&](Shard& s) {
    size_t pos = s.db0.keys.Find(key, HashKey(key));
    if (pos != KeyTable::kNotFound) {
      const Entry* e = s.db0.keys.At(pos);
      found = !(e->has_ttl() && e->expire_ms() <= now_ms);
    }
  });
  return found;
}

}  // namespace hotkv::cluster

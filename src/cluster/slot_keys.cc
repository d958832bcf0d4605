#include "cluster/slot_keys.h"

#include <cstdio>

#include "cluster/cluster_state.h"
#include "common/key_hash.h"
#include "engine/keyspace.h"
#include "server/dispatcher.h"
#include "server/local_client.h"
#include "server/server.h"
#include "server/worker.h"

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

namespace {

constexpr size_t kDirtyBatch = 128;   // keys per DEL
constexpr size_t kDirtyRound = 1024;  // keys per round on the worker

void DeleteDirtyRound(Worker& w, ClusterState* state, std::shared_ptr<std::vector<int>> slots,
                      size_t idx) {
  Server& server = w.server();
  Keyspace& ks = server.keyspace();
  LocalClient client(server.clients().NextId(), &w);
  client.set_authenticated(true);
  w.AddLocalClient(&client);
  size_t budget = kDirtyRound;
  size_t deleted = 0;
  std::vector<std::string> keys;
  std::vector<std::string_view> args;
  while (idx < slots->size() && budget > 0) {
    const int slot = (*slots)[idx];
    const SlotRoute r = state->Route(slot);
    if (r.mine() || r.importing()) {  // ours again, or being imported: keep the keys
      ++idx;
      continue;
    }
    const size_t before = ks.CountKeysInSlot(0, static_cast<uint32_t>(slot));
    keys.clear();
    if (before > 0) ks.GetKeysInSlot(static_cast<uint32_t>(slot), std::min(budget, kDirtyBatch), &keys);
    if (keys.empty()) {
      ++idx;
      continue;
    }
    args.clear();
    args.push_back("DEL");
    for (const std::string& k : keys) args.push_back(k);
    Dispatch(w, client, client.reply, args);
    client.out.Clear();
    budget -= std::min(budget, keys.size());
    const size_t after = ks.CountKeysInSlot(0, static_cast<uint32_t>(slot));
    deleted += before > after ? before - after : 0;
    if (after >= before) ++idx;  // no progress (cannot happen): never loop on it
  }
  w.RemoveLocalClient(&client);
  if (deleted > 0) {
    fprintf(stderr, "Deleted %zu keys left in slots this node lost to a higher config epoch\n",
            deleted);
  }
  if (idx < slots->size()) {
    w.Post([&w, state, slots, idx] { DeleteDirtyRound(w, state, slots, idx); });
  }
}

}  // namespace

void DeleteDirtySlots(Worker& worker, ClusterState* state, std::vector<int> slots) {
  if (slots.empty()) return;
  auto shared = std::make_shared<std::vector<int>>(std::move(slots));
  Worker* w = &worker;
  worker.Post([w, state, shared] { DeleteDirtyRound(*w, state, shared, 0); });
}

}  // namespace hotkv::cluster

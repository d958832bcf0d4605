#include "server/shard_state.h"

#include <algorithm>
#include <cstring>

#include "server/busy_watch.h"
#include "server/client.h"
#include "server/dispatcher.h"

namespace hotkv {

std::atomic<int64_t> g_watch_registrations{0};

std::string DbKey(int db, std::string_view key) {
  std::string out(4 + key.size(), '\0');
  uint32_t d = static_cast<uint32_t>(db);
  memcpy(out.data(), &d, 4);
  memcpy(out.data() + 4, key.data(), key.size());
  return out;
}

ShardState& StateOf(Shard& s) {
  if (!s.ext) {
    s.ext = std::make_unique<ShardState>();
  }
  return *static_cast<ShardState*>(s.ext.get());
}

void WatchKey(Shard& s, int db, std::string_view key, Client* c) {
  auto& list = StateOf(s).watchers[DbKey(db, key)];
  if (std::find(list.begin(), list.end(), c) == list.end()) {
    list.push_back(c);
    g_watch_registrations.fetch_add(1, std::memory_order_relaxed);
  }
}

void TouchWatchedKey(Shard& s, int db, std::string_view key) {
  ShardState* st = StateIfAny(s);
  if (st == nullptr || st->watchers.empty()) {
    return;
  }
  auto it = st->watchers.find(DbKey(db, key));
  if (it == st->watchers.end()) {
    return;
  }
  for (Client* c : it->second) {
    c->watch_dirty().store(true, std::memory_order_release);
  }
}

void InvalidateWatchesInDb(Shard& s, int db) {
  ShardState* st = StateIfAny(s);
  if (st == nullptr || st->watchers.empty()) {
    return;
  }
  uint32_t d = static_cast<uint32_t>(db);
  for (auto& [k, clients] : st->watchers) {
    if (k.size() >= 4 && memcmp(k.data(), &d, 4) == 0) {
      for (Client* c : clients) {
        c->watch_dirty().store(true, std::memory_order_release);
      }
    }
  }
}

void UnwatchKey(Shard& s, int db, std::string_view key, Client* c) {
  ShardState* st = StateIfAny(s);
  if (st == nullptr || st->watchers.empty()) {
    return;
  }
  auto it = st->watchers.find(DbKey(db, key));
  if (it == st->watchers.end()) {
    return;
  }
  auto& v = it->second;
  auto pos = std::find(v.begin(), v.end(), c);
  if (pos != v.end()) {
    v.erase(pos);
    g_watch_registrations.fetch_sub(1, std::memory_order_relaxed);
  }
  if (v.empty()) {
    st->watchers.erase(it);
  }
}

namespace {

void ClearWatchList(Client& c) {
  c.watched_keys().clear();
  c.watch_dirty().store(false, std::memory_order_relaxed);
  c.watch_len.store(0, std::memory_order_relaxed);
}

}  // namespace

bool UnwatchAllUnlessStuck(Keyspace& ks, Client& c) {
  std::vector<WatchedKey>& keys = c.watched_keys();
  size_t done = 0;
  for (; done < keys.size(); done++) {
    const WatchedKey& wk = keys[done];
    const uint32_t shard = Keyspace::ShardOf(wk.key);
    Shard& s = ks.shard(shard);
    // Served while this thread's script is busy: a shard the paused script holds is
    // used without locking it (SetThisThreadBusyGate).
    if (PausedScriptHoldsShard(shard)) [[unlikely]] {
      UnwatchKey(s, wk.db, wk.key, &c);
      continue;
    }
    if (s.lock.try_lock_read()) [[likely]] {  // the shard's watch list only: no key changes
      UnwatchKey(s, wk.db, wk.key, &c);
      s.lock.unlock();
      continue;
    }
    // Taken: waits for it, or has the busy script holding it remove the watch.
    if (!UnwatchOnTakenShard(ks, shard, wk.db, wk.key, &c)) {
      break;
    }
  }
  if (done < keys.size()) {
    keys.erase(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(done));
    c.watch_len.store(keys.size(), std::memory_order_relaxed);
    return false;
  }
  ClearWatchList(c);
  return true;
}

void UnwatchAll(Keyspace& ks, Client& c) { UnwatchAllUnlessStuck(ks, c); }

void UnwatchAllLocked(Keyspace& ks, Client& c) {
  for (const WatchedKey& wk : c.watched_keys()) {
    UnwatchKey(ks.shard(Keyspace::ShardOf(wk.key)), wk.db, wk.key, &c);
  }
  ClearWatchList(c);
}

}  // namespace hotkv

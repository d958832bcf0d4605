// ShardState: per-shard bookkeeping of the server layer, guarded by the shard's lock —
// which clients WATCH which keys, and (blocking.h) which clients wait on which keys.
//
// Keys are stored as "<db as 4 bytes><key>" so one map serves every database.
//
// Thread safety: every function requires the shard's lock, except UnwatchAll and
// UnwatchAllUnlessStuck, which take the locks themselves (so they must not run with any
// of them held, the paused script's shards of Worker::ServeWhileBusy aside).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/keyspace.h"

namespace hotkv {

class Client;
struct Waiter;

struct ShardState : ShardExtension {
  std::unordered_map<std::string, std::vector<Client*>> watchers;
  // Blocked clients per key, in the order they blocked (FIFO service).
  std::unordered_map<std::string, std::deque<std::shared_ptr<Waiter>>> waiters;
};

std::string DbKey(int db, std::string_view key);
ShardState& StateOf(Shard& s);
inline ShardState* StateIfAny(Shard& s) { return static_cast<ShardState*>(s.ext.get()); }

// ---- WATCH ----
// Number of (client, key) watch registrations in the whole server: when zero, writes
// skip the watch bookkeeping entirely.
extern std::atomic<int64_t> g_watch_registrations;

void WatchKey(Shard& s, int db, std::string_view key, Client* c);
// Removes c's registration for one key (if any).
void UnwatchKey(Shard& s, int db, std::string_view key, Client* c);
// Marks every client watching `key` in `db` dirty (their EXEC will fail).
void TouchWatchedKey(Shard& s, int db, std::string_view key);
// Marks every client watching any key of `db` in this shard dirty (FLUSHDB, SWAPDB).
void InvalidateWatchesInDb(Shard& s, int db);
// Removes all of a client's watches (UNWATCH, EXEC, DISCARD, disconnect). A key whose
// shard another worker's busy script holds is removed by that run (dispatcher.h
// UnwatchOnTakenShard), as Redis runs UNWATCH during a busy script.
void UnwatchAll(Keyspace& ks, Client& c);
// The same, for a busy script's own worker serving its other connections (the thread's
// busy gate is set): false, with the keys not removed yet still watched, when another
// worker's busy run did not remove one within a second (it is stuck in one command).
bool UnwatchAllUnlessStuck(Keyspace& ks, Client& c);
// The same with the shard locks of all of the client's watched keys already held by
// the caller (EXEC, which locks them to check the watches).
void UnwatchAllLocked(Keyspace& ks, Client& c);

}  // namespace hotkv

// WATCH and UNWATCH while a script is busy (Redis runs WATCH, UNWATCH, DISCARD and RESET
// then, allow_busy): a key whose shard another worker's busy script holds cannot be
// registered (or unregistered) by locking the shard, so the request is queued and the
// busy run does it itself (it holds the lock) at its next hook check
// (DrainPendingWatches, about every millisecond, at the debugger's waits, and before it
// releases its shards). A thread waiting for that while its own script is paused
// (Worker::ServeWhileBusy) serves the requests on its script's shards meanwhile, so two
// busy workers waiting for each other go on.
//
// Thread safety: any thread; the queue is under its own mutex (only used while a script
// is busy: one relaxed load otherwise).
#pragma once

#include <cstdint>
#include <string_view>

namespace hotkv {

class Client;
class CommandContext;
class Keyspace;
class ShardLockSet;

// The whole of WATCH for a command the dispatcher would otherwise refuse with -BUSY: keys
// on free shards are locked and registered as usual, keys on the paused script's shards
// (this thread's, Worker::ServeWhileBusy) directly, keys on another worker's busy shard
// through that run. Waits up to a second for the busy run, then answers -BUSY (a run stuck
// in one long command). Replies.
void WatchDuringBusy(CommandContext& ctx);
// Removes c's watch of `key` on `shard`, whose lock was taken on a first try: waits for
// the lock, or has the busy run holding it remove the watch. On a busy script's own
// worker (the thread's busy gate is set) it gives up after a second and returns false
// (a run stuck in one long command); otherwise it always succeeds.
bool UnwatchOnTakenShard(Keyspace& ks, uint32_t shard, int db, std::string_view key, Client* c);
// Called by a busy run holding `held`: does the queued watches and unwatches of those
// shards.
void DrainPendingWatches(Keyspace& ks, const ShardLockSet& held);

}  // namespace hotkv

// WATCH while a script is busy (Redis runs WATCH then, allow_busy): a key whose shard
// another worker's busy script holds cannot be registered by locking the shard, so the
// request is queued and the busy run registers it itself (it holds the lock) at its next
// hook check (DrainPendingWatches, about every millisecond, at the debugger's waits, and
// before it releases its shards).
//
// Thread safety: any thread; the queue is under its own mutex (only used while a script
// is busy: one relaxed load otherwise).
#pragma once

namespace hotkv {

class CommandContext;
class Keyspace;
class ShardLockSet;

// The whole of WATCH for a command the dispatcher would otherwise refuse with -BUSY: keys
// on free shards are locked and registered as usual, keys on the paused script's shards
// (this thread's, Worker::ServeWhileBusy) directly, keys on another worker's busy shard
// through that run. Waits up to a second for the busy run, then answers -BUSY (a run stuck
// in one long command). Replies.
void WatchDuringBusy(CommandContext& ctx);
// Called by a busy run holding `held`: registers the queued watches of those shards.
void DrainPendingWatches(Keyspace& ks, const ShardLockSet& held);

}  // namespace hotkv

// The command dispatcher: from a parsed request to an executed command.
//
//   lookup (and subcommand) -> arity -> auth -> RESP2 subscribed-mode filter
//   -> MULTI queueing -> lock the shards of the keys (ascending) -> handler -> unlock
//   -> statistics, slow log, CLIENT REPLY OFF/SKIP
//
// Locking policy lives here and only here: handlers never lock shards of the keys named
// by their key specs. EXEC runs its queue through ExecuteQueued, which locks the union
// of every queued command's shards once, so the whole transaction is atomic.
//
// Thread safety: runs on the connection's worker.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace hotkv {

class Worker;
class Client;
class Connection;
class CommandContext;
class ReplyBuilder;
struct QueuedCommand;

// Executes one request for `client`, replying into `rb` (the client's own builder: its
// connection's, or a LocalClient's for in-process callers). The client may end up
// blocked or marked to close. `cmd`, when given, is args[0]'s command already looked
// up. Runs on `worker`'s thread (or, for a worker whose loop is not running, on the
// thread driving it).
void Dispatch(Worker& worker, Client& client, ReplyBuilder& rb,
              const std::vector<std::string_view>& args, const class CommandSpec* cmd = nullptr);
// A connection's request: replies into the connection's reply builder.
void Dispatch(Worker& worker, Connection& conn, const std::vector<std::string_view>& args,
              const class CommandSpec* cmd = nullptr);

// Counts a finished command in INFO commandstats (calls, time, failures) and the slow
// log. The dispatcher calls it for every command it runs; a blocked command is counted
// when it is unblocked (blocking.cc). `redacted`: CommandContext::redacted_args().
void AccountCommand(Worker& worker, Client& client, const class CommandSpec* cmd,
                    const std::vector<std::string_view>& args, uint64_t cycles, bool failed,
                    uint64_t redacted = 0);

// Runs MULTI's queued commands atomically, replying with the array of their replies.
// Called by EXEC with no locks held. The shards of the client's WATCHed keys are locked
// too, and the WATCH check happens under those locks: returns false (and replies a null
// array) when a watched key was modified or has expired since WATCH.
bool ExecuteQueued(CommandContext& exec_ctx, std::vector<QueuedCommand>& queue);

// Shard set for multi-key locking: a bitmap over the 1024 shards, locked in ascending
// order (deadlock-free with every other multi-key command).
class ShardLockSet {
 public:
  void Add(uint32_t shard) { bits_[shard >> 6] |= uint64_t{1} << (shard & 63); }
  void AddAll();
  bool Contains(uint32_t shard) const { return bits_[shard >> 6] & (uint64_t{1} << (shard & 63)); }
  void Subtract(const ShardLockSet& o) {
    for (int i = 0; i < 16; i++) {
      bits_[i] &= ~o.bits_[i];
    }
  }
  void Merge(const ShardLockSet& o) {
    for (int i = 0; i < 16; i++) {
      bits_[i] |= o.bits_[i];
    }
  }
  bool empty() const;
  // The highest shard in the set, or -1 when empty.
  int Highest() const {
    for (int i = 15; i >= 0; i--) {
      if (bits_[i] != 0) {
        return i * 64 + 63 - __builtin_clzll(bits_[i]);
      }
    }
    return -1;
  }
  // `read_only`: for a command without the write flag (ShardLock::lock_read).
  void Lock(class Keyspace& ks, bool read_only = false) const;
  // Lock, unless a shard of the set is held by a busy script (AddBusyShards): then
  // releases what it took and returns false (the caller replies kBusyScriptError).
  bool LockUnlessBusy(class Keyspace& ks, bool read_only = false) const;
  void Unlock(class Keyspace& ks) const;

 private:
  uint64_t bits_[16] = {};
};

// While a command runs: whether this thread holds the lock of `shard`.
bool ThisThreadHoldsShard(uint32_t shard);
// For a handler that locks a set itself (scripts, scripting/): publishes `set` as the
// shards this thread holds (for ThisThreadHoldsShard) and returns the set published
// before (EXEC's, inside a transaction), to be put back when it is done.
const ShardLockSet* ExchangeThreadLockSet(const ShardLockSet* set);
// For serve functions that need one more shard than the current command locked (BLMOVE's
// destination): takes it if it is free. On failure it asks ServeReadyKeys to have the
// waiter retried on its own worker instead. Locks taken are released by
// ReleaseServeLocks().
bool TryLockExtraShard(class Keyspace& ks, uint32_t shard);
void ReleaseServeLocks();
void ClearServeRetry();
bool ServeRetryRequested();

// Scripts that ran past busy-reply-threshold (scripting/) register the shards they hold:
// other clients' commands on those shards get -BUSY instead of waiting for the lock.
// While none is registered this costs a contended lock one relaxed load per spin.
inline constexpr const char* kBusyScriptError =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
// `function`: the busy run is an FCALL (its -BUSY names FUNCTION KILL).
void AddBusyShards(const ShardLockSet* set, bool function = false);
// The -BUSY text for the busy run this thread last met in ShardIsBusy (Redis names
// FUNCTION KILL while a function is busy, SCRIPT KILL otherwise).
const char* BusyScriptError();
void RemoveBusyShards(const ShardLockSet* set);
bool ShardIsBusy(uint32_t shard);
// Takes `shard`'s lock after a failed try: spins until it is free, or returns false when
// a busy script holds it.
bool LockContendedUnlessBusy(class Keyspace& ks, uint32_t shard, bool read_only);

// A busy script's own worker serving its other connections (Worker::ServeWhileBusy):
// while `error` (the -BUSY text of the script's kind) is set on this thread, the
// dispatcher refuses every command without the allow_busy flag with it, as Redis does
// during a busy script, skips the maxmemory check (eviction would lock shards the
// script holds), and never waits for a shard lock (a taken one answers -BUSY).
// `paused_locks`: the shards the paused script holds on this thread. The script stands
// between two Lua instructions (its count hook), so the commands served here (WATCH,
// UNWATCH, DISCARD, RESET: Redis runs them while busy) use those shards without locking
// them, as Redis's single thread would.
void SetThisThreadBusyGate(const char* error, const ShardLockSet* paused_locks = nullptr);
const char* ThisThreadBusyGate();
// Whether the script paused on this thread (SetThisThreadBusyGate) holds `shard`.
bool PausedScriptHoldsShard(uint32_t shard);
// The -BUSY text of a busy script anywhere (the first registered), or null when none is
// busy (SHUTDOWN without NOSAVE refuses with it, as Redis).
const char* AnyBusyScriptError();

// Cycles-to-microseconds conversion for command timing (rdtsc based).
uint64_t CyclesNow();
double CyclesPerMicrosecond();

}  // namespace hotkv

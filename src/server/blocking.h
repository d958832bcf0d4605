// Blocking commands (BLPOP, BLMOVE, BZPOPMIN, ...): how a client waits for a key.
//
// A blocking handler that finds no data calls BlockClient(): a Waiter is queued on each
// key in that key's shard (FIFO), the client stops processing its pipeline, and a timer
// is armed on its worker. A command that adds data to a key calls ctx.SignalKeyReady();
// after the command (or the whole EXEC) and before its locks are released, the
// dispatcher serves the waiters of every ready key in FIFO order: the blocked command's
// serve function runs right there, under the key's shard lock, writes the reply in the
// waiter's protocol, and the bytes are posted to the waiter's worker. So a woken client
// sees the state right after the command that woke it, and nobody can steal the element
// in between, as in Redis.
//
// A Waiter is claimed exactly once (Claim(): waiting -> done) by whoever gets there
// first: a pusher serving it, its timeout, CLIENT UNBLOCK or its disconnection.
//
// Thread safety: waiter queues are guarded by their shard's lock; Waiter::state is atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"

namespace hotkv {

class CommandContext;
class Server;
class Worker;
struct Shard;

// What a serve function says about one waiter and the ready key.
enum class ServeResult {
  kNotNow,  // the key cannot serve the waiter now: it stays queued
  kServe,   // served: the data changed and the reply was written (dry run: it can be)
  // Answered with an error, data unchanged (dry run: it would be), e.g. BLMOVE whose
  // destination holds another type gets WRONGTYPE as in Redis, which re-runs the
  // command. The waiter is claimed and unblocked; the queue moves on to the next one.
  kError,
};

// Serves one waiter from `ready_key` (whose shard lock is held). `ctx` is a context for
// the waiter: its args are the blocked command, its client carries the waiter's database
// and protocol, its reply builder writes the waiter's reply. With dry_run it only tells
// what it would do and writes nothing; otherwise it does it (kServe: changes the data and
// writes the complete reply; kError: writes only the error reply).
using ServeFn = ServeResult (*)(CommandContext& ctx, std::string_view ready_key, bool dry_run);

struct Waiter {
  enum State : int { kWaiting = 0, kDone = 1 };
  std::atomic<int> state{kWaiting};
  uint64_t client_id = 0;
  Worker* worker = nullptr;
  int db = 0;
  int resp = 2;
  ServeFn serve = nullptr;
  const class CommandSpec* cmd = nullptr;
  std::vector<std::string> args;  // the blocked command, for the serve function
  std::vector<std::string> keys;  // keys it waits on (in `db`)
  bool unblockable = true;        // false: CLIENT UNBLOCK cannot end it (BlockClientOnJob)
  // TSC cycles the serve function took (written by the serving thread before it posts
  // the reply; read by the waiter's worker after): part of the command's time.
  uint64_t serve_cycles = 0;

  // Takes the waiter (served, timed out, unblocked or disconnected): true exactly once.
  bool Claim() {
    int expected = kWaiting;
    return state.compare_exchange_strong(expected, kDone, std::memory_order_acq_rel);
  }
};

struct BlockState {
  std::shared_ptr<Waiter> waiter;
  int64_t deadline_ms = 0;  // 0 = forever
  bool null_array_on_timeout = true;  // BLPOP-style (*-1) or BLMOVE-style ($-1)
  // The command's time for INFO commandstats and the slow log, counted when it is
  // unblocked, as Redis does: its first run (set by the dispatcher), the serve, and for
  // BlockClientOnJob the wait itself (Redis counts a FLUSHALL SYNC's background time).
  uint64_t exec_cycles = 0;
  uint64_t blocked_at_cycles = 0;
  bool wait_counts = false;
  std::string timeout_reply;  // when set: the pre-encoded timeout reply (WAIT's count)
  // The command ran under CLIENT REPLY OFF/SKIP: its late reply (served, timed out,
  // unblocked) is dropped too, as Redis drops it.
  bool reply_silenced = false;
};

// Number of blocked clients in the whole server (INFO, and a fast path: with none,
// inserts skip the ready-key bookkeeping).
extern std::atomic<int64_t> g_blocked_clients;

// Blocks the client of `ctx` on `keys` (the dispatcher holds their shard locks).
// timeout_ms = 0 blocks forever.
void BlockClient(CommandContext& ctx, const std::vector<std::string_view>& keys,
                 int64_t timeout_ms, ServeFn serve, bool null_array_on_timeout);

// Blocks the client of `ctx` on no key until ResumeJobWaiter(): FLUSHALL/FLUSHDB SYNC
// waiting for the lazy-free thread (Redis 8's BLOCKED_LAZYFREE). No timeout, and CLIENT
// UNBLOCK cannot end it; other clients of the worker go on meanwhile.
std::shared_ptr<Waiter> BlockClientOnJob(CommandContext& ctx);
// From any thread: replies +OK to the client BlockClientOnJob blocked and resumes it (a
// client closed meanwhile is skipped).
void ResumeJobWaiter(const std::shared_ptr<Waiter>& waiter);
// Blocks the client of `ctx` on no key, until its timeout (0 = forever) or CLIENT
// UNBLOCK: WAIT/WAITAOF, which have no replica to wait for. Both answer `timeout_reply`
// (pre-encoded RESP, the same in RESP2 and RESP3), CLIENT UNBLOCK ERROR its error.
void BlockClientUntilTimeout(CommandContext& ctx, int64_t timeout_ms, std::string timeout_reply);

// Parses a blocking timeout in seconds (fractional allowed) into an absolute deadline in
// ms (0 = forever). Replies with Redis's error and returns false on bad input.
bool ParseBlockTimeout(CommandContext& ctx, std::string_view arg, int64_t* timeout_ms);

// Called (with the key's shard lock held) when a key of a type clients block on is
// created: queues it to be served at the end of the current command.
void SignalKeyReady(Server& server, int db, std::string_view key);

// Serves the waiters of every key signalled during the current command. The dispatcher
// calls it after the handler (or after EXEC's last command), before releasing locks;
// with locks_held=false (commands that lock shard by shard themselves) it takes each
// ready key's shard lock while serving it.
void ServeReadyKeys(Server& server, Worker& worker, bool locks_held = true);

// Worker-side completion: timeouts due by `now_ms`, disconnection, CLIENT UNBLOCK.
void ExpireBlockedClients(Worker& w, int64_t now_ms);
void UnblockOnClose(Worker& w, Client& c);
// CLIENT UNBLOCK: returns whether the client was blocked (and is now being unblocked).
bool UnblockClientById(Server& s, uint64_t id, bool with_error);
// Cluster mode (ClusterHooks::BlockedKeyServed): on `w`'s thread, unblocks with the
// hooks' error each of its connections blocked on keys whose first key this node no
// longer serves. Returns how many.
size_t RedirectBlockedClients(Worker& w);

}  // namespace hotkv

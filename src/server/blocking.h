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
class Worker;
class Connection;
struct Shard;

// Serves one waiter from `key` (whose shard lock is held): returns true when it wrote a
// complete reply into `rb` and changed data, false when the key cannot serve it now.
struct ServeRequest;
using ServeFn = bool (*)(ServeRequest& req);

struct Waiter {
  enum State : int { kWaiting = 0, kDone = 1 };
  std::atomic<int> state{kWaiting};
  uint64_t client_id = 0;
  Worker* worker = nullptr;
  int db = 0;
  int resp = 2;
  ServeFn serve = nullptr;
  std::vector<std::string> args;  // the blocked command, for the serve function
  std::vector<std::string> keys;  // keys it waits on (same db)

  bool Claim() {
    int expected = kWaiting;
    return state.compare_exchange_strong(expected, kDone, std::memory_order_acq_rel);
  }
};

struct BlockState {
  std::shared_ptr<Waiter> waiter;
  int64_t deadline_ms = 0;  // 0 = forever
  const class CommandSpec* cmd = nullptr;
  int64_t started_cycles = 0;
};

}  // namespace hotkv

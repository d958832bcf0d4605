// ClientPause: CLIENT PAUSE timeout [WRITE|ALL] / CLIENT UNPAUSE, as Redis 7+ does it.
//
// While a pause is on, the dispatcher holds (after its arity, auth, memory and
// persistence checks, before MULTI queueing) every command of a connection under ALL, and
// under WRITE the commands flagged write or may_replicate (PUBLISH, PFCOUNT, EVAL, FCALL,
// SCRIPT LOAD...) and an EXEC whose queue holds one. A held command is not consumed: the
// connection stops running its input (it is "blocked": INFO blocked_clients, flag b) and
// its worker remembers it. UNPAUSE, or the first check after the deadline (each command's,
// and each worker's cron), posts every worker the list of its held connections, which
// resume in the order they were held. MONITOR clients and in-process clients are never
// held. A new CLIENT PAUSE replaces the actions and keeps the later deadline (Redis 7's
// pauseActions). While writes are paused, active expiry and eviction do not run.
//
// The dispatcher's cost when no pause is on: one relaxed load (actions()).
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace hotkv {

class Server;
class Connection;

class ClientPause {
 public:
  static constexpr uint32_t kWrite = 1, kAll = 2;

  // 0, kWrite or kAll (a deadline that passed still counts until Check() clears it).
  uint32_t actions() const { return actions_.load(std::memory_order_relaxed); }
  // CLIENT PAUSE.
  void Pause(Server& server, int64_t end_ms, uint32_t actions);
  // CLIENT UNPAUSE, and the deadline: resumes every held connection.
  void Unpause(Server& server);
  // Ends a pause whose deadline passed; returns the actions still paused.
  uint32_t Check(Server& server, int64_t now_ms);
  // Whether writes (and so expiry and eviction) are paused now.
  bool WritesPaused(Server& server, int64_t now_ms) {
    return actions() != 0 && Check(server, now_ms) != 0;
  }
  // The dispatcher holds `c`'s current command (on c's worker); false when the pause
  // ended meanwhile (the command runs).
  bool Hold(Connection& c);

 private:
  std::mutex mu_;
  std::atomic<uint32_t> actions_{0};
  std::atomic<int64_t> end_ms_{0};
  // Held connections by worker, in the order they were held.
  std::vector<std::vector<uint64_t>> held_;
};

}  // namespace hotkv

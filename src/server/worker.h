// Worker: one thread with its own event loop (an I/O backend from net/: io_uring or
// epoll), its connections and a mailbox.
//
// Each worker listens on the same port (SO_REUSEPORT), so the kernel spreads new
// connections across workers. A connection's commands run on its worker, locking only
// the shards of their keys. Work for a connection owned by another worker (pub/sub
// delivery, waking a blocked client, CLIENT KILL) is posted to that worker's mailbox and
// an eventfd wakes it; no thread ever writes another worker's sockets.
//
// Thread safety: Post() may be called from any thread; everything else runs on the
// worker's own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "protocol/reply_builder.h"
#include "net/io_backend.h"
#include "server/command_table.h"

namespace hotkv {

class Server;
class Client;
class Connection;


// Counters of one worker; the I/O ones (bytes, read and write calls) are its backend's.
struct WorkerStats : IoStats {
  std::atomic<uint64_t> commands{0};
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> rejected_connections{0};
  std::atomic<uint64_t> error_replies{0};
  std::atomic<uint64_t> keyspace_hits{0};
  std::atomic<uint64_t> keyspace_misses{0};
  std::atomic<uint64_t> dirty{0};
  std::atomic<uint64_t> active_expired{0};
  std::atomic<uint64_t> pubsub_messages{0};
  std::atomic<uint64_t> output_limit_disconnections{0};
  std::atomic<uint64_t> query_limit_disconnections{0};  // client-query-buffer-limit
};

// Error replies by code (INFO errorstats). Errors are rare, so a mutex is fine.
class ErrorCounts : public ErrorSink {
 public:
  void OnError(std::string_view code) override;
  std::vector<std::pair<std::string, uint64_t>> Snapshot();
  uint64_t Total();
  void Reset();

 private:
  std::mutex mu_;
  std::unordered_map<std::string, uint64_t> counts_;
};

class Worker : private IoSink {
 public:
  Worker(Server* server, int index);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the wake-up eventfd and this worker's listening sockets (the I/O backend is
  // created on the worker's own thread when it starts).
  Status Init();
  // "io_uring" or "epoll" once the worker runs.
  const char* io_backend_name() const { return backend_name_.load(std::memory_order_acquire); }
  void Start();
  void Join();

  int index() const { return index_; }
  Server& server() { return *server_; }

  // Runs `fn` on this worker's thread soon. Callable from any thread.
  void Post(std::function<void()> fn);
  // On the worker's thread: listens on `fds` (already bound and listening) instead of
  // the sockets it had, which are closed.
  void ReplaceListeners(std::vector<int> fds);

  // ---- on the worker's own thread ----
  Connection* FindConnection(uint64_t id);
  // The connection or in-process client with this id on this worker, or null.
  Client* FindClient(uint64_t id);
  // In-process clients (server/local_client.h): registered so that deliveries (a served
  // blocked command, CLIENT UNBLOCK, a timeout) find them by id as they find
  // connections. Remove one before destroying it: that unblocks it and drops its
  // watches and subscriptions, as closing a connection does.
  void AddLocalClient(Client* c);
  void RemoveLocalClient(Client* c);
  // For a worker whose event loop is not running (in-process callers and tests): runs
  // the jobs other clients posted to it and the blocked-command timeouts due by now_ms,
  // as one loop iteration would.
  void RunPendingWork(int64_t now_ms);
  // Closes now: unregisters everything, frees at the end of the loop iteration.
  void CloseConnection(Connection* c);
  // Writes pending output (one write); arranges EPOLLOUT if the socket is full.
  void Flush(Connection* c);
  // Resumes command processing for a connection that was blocked or paused (nothing to
  // do for an in-process client: it has no pipeline waiting).
  void ResumeConnection(Connection* c);
  void ResumeClient(Client* c);
  // Queues a connection to be written at the end of this loop iteration (pub/sub
  // deliveries, woken blocked clients): one write per connection per iteration. An
  // in-process client's output simply stays in its buffer.
  void MarkForFlush(Connection* c);
  void MarkForFlush(Client* c);
  // Closes a connection at the end of this loop iteration (safe while shard locks are
  // held, unlike CloseConnection).
  void CloseSoon(Connection* c);
  // Blocked-command timeouts: (deadline, client id), checked every loop iteration.
  void AddBlockTimer(int64_t deadline_ms, uint64_t client_id);
  bool PopDueBlockTimer(int64_t now_ms, int64_t* deadline_ms, uint64_t* client_id);

  WorkerStats& stats() { return stats_; }
  CommandStats* command_stats() { return cmd_stats_.get(); }
  ErrorCounts& error_counts() { return error_counts_; }
  size_t connection_count() const { return conns_.size(); }
  // Connections this worker serves or has been handed to adopt (read by other workers'
  // accepts to pick the least loaded one).
  int assigned_connections() const {
    return assigned_connections_.load(std::memory_order_relaxed);
  }
  template <typename F>
  void ForEachConnection(F fn) {
    for (auto& [id, c] : conns_) {
      fn(c);
    }
  }

  // Called by the server to begin a graceful stop.
  void RequestStop();
  bool stopping() const { return stop_.load(std::memory_order_acquire); }

  // A script on this worker's thread past busy-reply-threshold calls this from its Lua
  // hook (every millisecond or so): the worker serves its other connections once
  // without waiting (a nested Poll of its backend), as Redis's processEventsWhileBlocked.
  // Their commands get `busy_error` (-BUSY) except the allow_busy ones (SCRIPT KILL,
  // FUNCTION KILL, SHUTDOWN NOSAVE, MULTI, AUTH, ...: dispatcher.h
  // SetThisThreadBusyGate); `running` (the script's caller) reads nothing more until the
  // iteration ends; closes, mailbox jobs, timers and cron wait for the script to end.
  // Does nothing off the worker's running event loop (in-process callers). Returns true
  // when the server is shutting down: the script must stop.
  bool ServeWhileBusy(Client& running, const char* busy_error);

  // A Lua debugging session (scripting/lua_debugger.h) on `conn`, inside its EVAL, waits
  // for the debugger's next command: serves the other connections once (ServeWhileBusy,
  // which holds conn's input, so the backend reads none of it), then appends what conn
  // sent to `*input`, reading its socket directly (first what io_uring received while
  // holding), waiting up to wait_ms when nothing came.
  enum class DebugInput { kOk, kGone, kStopping };
  DebugInput ReadDebugInput(Connection* conn, const char* busy_error, std::string* input,
                            int wait_ms);

 private:
  void Run();
  void ProcessInput(Connection* c);
  // Pauses or resumes reading from `c` by its unsent output and unrun input.
  void UpdateReading(Connection* c);
  // IoSink: what the backend reports.
  void OnAccepted(int fd) override;
  void OnInput(NetConnection* nc) override;
  void OnHangup(NetConnection* nc) override;
  void OnWake() override;
  void OnOutputDrained(NetConnection* nc) override;
  void DrainMailbox();
  void Cron(int64_t now_ms);
  int NextTimeoutMs(int64_t now_ms);
  void FreeClosed();
  void FinishIteration();
  void PrefetchBatch(size_t n, int db);

  // A command parsed ahead of execution (pipeline-prefetch batches).
  struct ParsedCommand {
    std::vector<std::string_view> args;
    size_t start = 0;                   // input offset of its first byte
    size_t end = 0;                     // input offset just past this command
    bool resp = false;                  // sent as RESP (not inline)
    const CommandSpec* cmd = nullptr;   // looked up while prefetching
    int key = -1;                       // position of the first key, or -1
    uint32_t shard = 0;
    uint64_t hash = 0;
  };
  static constexpr size_t kBatch = 16;
  ParsedCommand batch_[kBatch];
  // ServeWhileBusy: serving (nested in a busy script's command), the connection whose
  // input is held, a wake-up (mailbox) left for after the script, the command parsed for
  // the connections served meanwhile (batch_ belongs to the script's caller), and
  // whether Run's loop is running.
  bool busy_serving_ = false;
  std::atomic<bool> busy_flag_{false};  // busy_serving_, for other workers' accepts
  std::atomic<int> assigned_connections_{0};
  // Takes a new connection's socket on this worker's thread.
  void Adopt(int fd);
  Connection* input_held_ = nullptr;
  bool deferred_wake_ = false;
  ParsedCommand busy_batch_[1];
  bool loop_running_ = false;
  void EndHeldInput();
  void Shutdown();

  Server* server_;
  const int index_;
  int event_fd_ = -1;
  std::vector<int> listen_fds_;
  // Listeners replaced by a rebind keep accepting for a short grace period after the new
  // ones listen: a client that reconnects right after CONFIG SET bind would otherwise
  // race with the close (a connection still in the kernel's handshake when its listener
  // closes is reset).
  static constexpr int64_t kListenerGraceMs = 100;
  std::vector<int> retiring_fds_;
  int64_t retire_at_ms_ = 0;
  std::unique_ptr<IoBackend> backend_;
  std::atomic<const char*> backend_name_{"none"};
  std::thread thread_;
  std::atomic<bool> stop_{false};

  std::mutex mailbox_mu_;
  std::vector<std::function<void()>> mailbox_;
  std::atomic<bool> mailbox_signaled_{false};

  std::unordered_map<uint64_t, Connection*> conns_;
  std::unordered_map<uint64_t, Client*> local_clients_;
  std::unordered_set<Connection*> zombies_;  // closed, freed when the backend releases them
  std::vector<Connection*> resume_;
  std::vector<Connection*> pending_flush_;
  // appendfsync always: connections (by id) whose replies wait for the fsync of their
  // writes; the AOF thread posts ReleaseAofWaiters() when it has fsynced up to
  // aof_requested_.
  std::vector<uint64_t> aof_waiting_;
  uint64_t aof_requested_ = 0;
  void WaitForAof(Connection* c);
  void ReleaseAofWaiters();
  std::vector<Connection*> close_soon_;
  int64_t next_cron_ms_ = 0;
  // Min-heap of blocked clients' deadlines.
  std::vector<std::pair<int64_t, uint64_t>> block_timers_;
  uint64_t blocked_route_version_ = 0;  // cluster: ClusterHooks::BlockedCheckVersion last seen
  size_t expire_cursor_ = 0;
  bool evicting_ = false;  // over maxmemory after a full eviction time budget
  WorkerStats stats_;
  ErrorCounts error_counts_;
  std::unique_ptr<CommandStats[]> cmd_stats_;
};

}  // namespace hotkv

// Server: owns the configuration, the keyspace, the command table, the workers and the
// registry of clients; starts the workers and stops them on SIGTERM/SIGINT or SHUTDOWN.
//
//   Config cfg; cfg.LoadArgs(argc, argv, &err);
//   CommandTable table; RegisterAllCommands(table);
//   Server server(&cfg, &table);
//   return server.Run();   // returns the process exit code
//
// Thread safety: accessors return objects that are themselves thread-safe or immutable
// after Run() starts the workers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/keyspace.h"
#include "pubsub/registry.h"
#include "server/aof_service.h"
#include "server/client_pause.h"
#include "server/cluster_hooks.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/latency.h"
#include "server/monitor.h"
#include "server/persistence_hooks.h"
#include "server/slowlog.h"
#include "server/write_stream.h"
#include "server/worker.h"

namespace hotkv {

class Client;

// Every connected client by id, for CLIENT LIST/KILL and INFO.
class ClientRegistry {
 public:
  uint64_t NextId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }
  void Add(Client* c);
  void Remove(Client* c);
  // The worker of the client with this id, or -1 when there is none.
  int WorkerOf(uint64_t id);
  size_t size() const { return count_.load(std::memory_order_relaxed); }
  // Calls fn(Client*) for every client with the registry locked: fn must be quick and
  // must only read the thread-safe fields of other workers' clients.
  template <typename F>
  void ForEach(F fn) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [id, c] : clients_) {
      fn(c);
    }
  }
  // Reserves a slot for a new connection; false when maxclients is reached.
  bool TryReserve(int64_t maxclients);
  void Unreserve() { count_.fetch_sub(1, std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, Client*> clients_;
  std::atomic<uint64_t> next_id_{1};
  std::atomic<int64_t> count_{0};
};

class Server {
 public:
  Server(Config* config, CommandTable* table);
  ~Server();

  // Starts the workers and blocks until shutdown. Returns the exit code.
  int Run();
  // Asks every worker to stop (from a signal, SHUTDOWN, or tests).
  void RequestShutdown();
  // Stops the server with exit code `code` (a dataset that cannot be loaded).
  void RequestExit(int code) {
    exit_code_.store(code, std::memory_order_relaxed);
    RequestShutdown();
  }

  // Redis Cluster mode (cluster/), installed by main.cc before Run() when
  // cluster-enabled is yes; null otherwise (the dispatcher's one branch).
  void set_cluster(ClusterHooks* c) { cluster_ = c; }
  ClusterHooks* cluster() const { return cluster_; }
  // The persistence layer (persistence/), installed by main.cc before Run(); may be null.
  void set_persistence(PersistenceHooks* p) { persistence_ = p; }
  PersistenceHooks* persistence() const { return persistence_; }
  // PersistenceHooks::kGate* bits: non-zero while some commands must be refused.
  uint32_t dispatch_gate() const { return dispatch_gate_.load(std::memory_order_relaxed); }
  void SetGate(uint32_t bit, bool on) {
    if (on) {
      dispatch_gate_.fetch_or(bit, std::memory_order_release);
    } else {
      dispatch_gate_.fetch_and(~bit, std::memory_order_release);
    }
  }
  // One fork child at a time, as Redis's hasActiveChildProcess: BGSAVE and the AOF
  // rewrite claim the slot before their barrier and release it once the child is reaped.
  enum class ChildKind : int { kNone = 0, kRdb = 1, kAof = 2 };
  bool TryClaimChild(ChildKind k) {
    int none = 0;
    return active_child_.compare_exchange_strong(none, static_cast<int>(k));
  }
  void ReleaseChild(ChildKind k) {
    int cur = static_cast<int>(k);
    active_child_.compare_exchange_strong(cur, 0);
  }
  ChildKind active_child() const { return static_cast<ChildKind>(active_child_.load()); }
  // INFO stats latest_fork_usec / total_forks: every fork (BGSAVE, AOF rewrite, AOF on).
  void RecordFork(int64_t usec) {
    latest_fork_usec_.store(usec, std::memory_order_relaxed);
    total_forks_.fetch_add(1, std::memory_order_relaxed);
  }
  int64_t latest_fork_usec() const { return latest_fork_usec_.load(std::memory_order_relaxed); }
  // INFO's evicted_scripts: EVAL scripts dropped from the script cache (scripting/).
  void AddEvictedScripts(uint64_t n) { evicted_scripts_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t evicted_scripts() const { return evicted_scripts_.load(std::memory_order_relaxed); }
  int64_t total_forks() const { return total_forks_.load(std::memory_order_relaxed); }
  // Changes since start (Redis's server.dirty without the resets): the workers' counters
  // summed. Persistence keeps its own baseline of the last save.
  uint64_t dirty() { return SumStat(&WorkerStats::dirty); }
  bool shutting_down() const { return shutdown_.load(std::memory_order_acquire); }

  Config& config() { return *config_; }
  Keyspace& keyspace() { return *keyspace_; }
  const CommandTable& commands() const { return *table_; }
  ClientRegistry& clients() { return clients_; }
  SlowLog& slowlog() { return slowlog_; }
  MonitorFeed& monitors() { return monitors_; }
  ClientPause& client_pause() { return client_pause_; }
  LatencyMonitor& latency() { return latency_; }
  PubsubRegistry& pubsub() { return pubsub_; }
  // Every change as commands (server/write_stream.h), for the AOF and replication.
  WriteStream& write_stream() { return write_stream_; }
  // The append-only file (persistence/, registered by main.cc); null when not built in.
  void set_aof(std::unique_ptr<AofService> aof) { aof_ = std::move(aof); }
  AofService* aof() { return aof_.get(); }
  // appendonly yes + appendfsync always: workers wait for the fsync of their writes
  // before sending replies (one relaxed load on the reply path).
  bool aof_sync_always() const { return aof_sync_always_.load(std::memory_order_relaxed); }
  void set_aof_sync_always(bool v) { aof_sync_always_.store(v, std::memory_order_relaxed); }
  int num_workers() const { return static_cast<int>(workers_.size()); }
  Worker& worker(int i) { return *workers_[i]; }

  int64_t start_time_ms() const { return start_time_ms_; }
  const std::string& run_id() const { return run_id_; }
  // LRU clock in seconds since start plus kLruClockBase (OBJECT IDLETIME), advanced by
  // worker 0's cron. The base leaves room below the start for keys loaded from an RDB file
  // with an idle time longer than the uptime (IDLE records: up to 34 years).
  static constexpr uint32_t kLruClockBase = 1u << 30;
  uint32_t lru_clock() const { return lru_clock_.load(std::memory_order_relaxed); }
  void UpdateLruClock(int64_t now_ms);
  int64_t last_stat_reset_ms() const { return stat_reset_ms_.load(); }
  void ResetStats();
  uint64_t total_commands();
  uint64_t SumStat(std::atomic<uint64_t> WorkerStats::*field);
  // instantaneous_ops_per_sec: worker 0 samples the command counter every cron tick.
  void SampleOps(int64_t now_ms);
  uint64_t InstantaneousOps();
  std::vector<std::pair<std::string, uint64_t>> ErrorCountsByPrefix();
  uint64_t TotalErrorReplies();
  // Peak of used memory seen by INFO.
  std::atomic<uint64_t>& peak_memory() { return peak_memory_; }
  // CONFIG SET port/bind: opens the new listening sockets of every worker, then hands
  // each worker its own (the old ones close). All or nothing: an error leaves the old
  // sockets listening.
  Status Rebind(const std::vector<std::string>& bind, int64_t port);

 private:
  Config* config_;
  CommandTable* table_;
  std::unique_ptr<Keyspace> keyspace_;
  std::vector<std::unique_ptr<Worker>> workers_;
  ClientRegistry clients_;
  SlowLog slowlog_;
  MonitorFeed monitors_;
  ClientPause client_pause_;
  LatencyMonitor latency_;
  PubsubRegistry pubsub_;
  WriteStream write_stream_;
  std::unique_ptr<AofService> aof_;
  std::atomic<bool> aof_sync_always_{false};
  std::unique_ptr<KeyObserver> listener_;
  std::unique_ptr<KeyObserver> tracking_observer_;  // client-side caching
  std::atomic<bool> shutdown_{false};
  std::atomic<int> exit_code_{0};
  PersistenceHooks* persistence_ = nullptr;
  ClusterHooks* cluster_ = nullptr;
  std::atomic<uint32_t> dispatch_gate_{0};
  std::atomic<int> active_child_{0};
  std::atomic<int64_t> latest_fork_usec_{0};
  std::atomic<uint64_t> evicted_scripts_{0};
  std::atomic<int64_t> total_forks_{0};
  int64_t start_time_ms_;
  std::string run_id_;
  std::atomic<uint32_t> lru_clock_{0};
  std::atomic<int64_t> stat_reset_ms_{0};
  std::atomic<uint64_t> peak_memory_{0};
  std::mutex ops_mu_;
  int64_t ops_samples_[16] = {};
  int64_t ops_sample_time_ = 0;
  uint64_t ops_last_count_ = 0;
  size_t ops_sample_idx_ = 0;
};

// Process memory facts for INFO memory.
struct MemoryInfo {
  uint64_t used = 0;       // bytes allocated by the program
  uint64_t rss = 0;        // resident set size
  uint64_t peak_rss = 0;
  std::string allocator;
};
MemoryInfo ReadMemoryInfo();

}  // namespace hotkv

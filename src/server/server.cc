#include "server/server.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <map>

#include "common/clock.h"
#include "common/key_hash.h"
#include "common/memory_usage.h"
#include "common/notify_flags.h"
#include "common/random.h"
#include "engine/eviction.h"
#include "engine/lazy_free.h"
#include "net/socket.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/pubsub_delivery.h"
#include "server/shard_state.h"
#include "server/tracking.h"

#ifdef HOTKV_MIMALLOC
#include <mimalloc.h>
#endif

namespace hotkv {

namespace {

// Engine events the server reacts to: an expired or evicted key invalidates WATCHes on
// it and produces an "expired"/"evicted" keyspace notification. Runs with the key's
// shard locked.
class ServerKeyListener : public KeyObserver {
 public:
  explicit ServerKeyListener(Server* s) : server_(s) {}
  void OnKeyExpired(int db, std::string_view key) override {
    KeyRemoved(db, key, notify::kExpired, "expired");
  }
  void OnKeyEvicted(int db, std::string_view key) override {
    KeyRemoved(db, key, notify::kEvicted, "evicted");
  }
  // Expired hash fields, as Redis 8 reports them: the active cycle sends "hexpired" (and
  // "del" when the key went); a command that met them sends "hexpired", or only "del"
  // when they were the last fields.
  void OnFieldsExpired(int db, std::string_view key, const std::vector<std::string>& fields,
                       bool key_deleted, bool active) override {
    if (active || !key_deleted) {
      KeyRemoved(db, key, notify::kHash, "hexpired");
    }
    if (key_deleted) {
      NotifyKeyspaceEvent(*server_, notify::kGeneric, "del", key, db);
    }
  }
  void OnKeyCreated(int db, std::string_view key, ValueType type) override {
    if (type == ValueType::kList || type == ValueType::kZSet || type == ValueType::kStream) {
      SignalKeyReady(*server_, db, key);
    }
    if (server_->config().notify_flags() & notify::kNew) {
      NotifyKeyspaceEvent(*server_, notify::kNew, "new", key, db);
    }
  }

 private:
  void KeyRemoved(int db, std::string_view key, int64_t notify_class, std::string_view event) {
    if (g_watch_registrations.load(std::memory_order_relaxed) > 0) {
      TouchWatchedKey(server_->keyspace().shard(Keyspace::ShardOf(key)), db, key);
    }
    NotifyKeyspaceEvent(*server_, notify_class, event, key, db);
  }

  Server* server_;
};

}  // namespace

void ClientRegistry::Add(Client* c) {
  std::lock_guard<std::mutex> g(mu_);
  clients_[c->id()] = c;
}

void ClientRegistry::Remove(Client* c) {
  std::lock_guard<std::mutex> g(mu_);
  clients_.erase(c->id());
}

int ClientRegistry::WorkerOf(uint64_t id) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = clients_.find(id);
  return it == clients_.end() ? -1 : it->second->worker_index();
}

bool ClientRegistry::TryReserve(int64_t maxclients) {
  int64_t n = count_.fetch_add(1, std::memory_order_relaxed);
  if (n >= maxclients) {
    count_.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

Server::Server(Config* config, CommandTable* table)
    : config_(config),
      table_(table),
      keyspace_(new Keyspace(static_cast<int>(config->databases()))),
      start_time_ms_(WallClockMs()) {
  Rng rng(RandomSeed() ^ static_cast<uint64_t>(MonotonicNs()));
  SetHashSeed(rng.Next());
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 40; i++) {
    run_id_ += kHex[rng.Next() & 15];
  }
  stat_reset_ms_ = start_time_ms_;
  listener_ = std::make_unique<ServerKeyListener>(this);
  keyspace_->AddObserver(listener_.get());
  keyspace_->AddObserver(write_stream_.observer());
  tracking_observer_ = MakeTrackingObserver(*this);
  keyspace_->AddObserver(tracking_observer_.get());
}

Server::~Server() {
  // A background free's completion (FLUSHALL SYNC's reply) posts to a worker: let the
  // queue finish before the workers go.
  WaitForLazyFree();
}

void Server::RequestShutdown() {
  if (shutdown_.exchange(true)) {
    return;
  }
  for (auto& w : workers_) {
    w->RequestStop();
  }
}

uint64_t Server::SumStat(std::atomic<uint64_t> WorkerStats::*field) {
  uint64_t n = 0;
  for (auto& w : workers_) {
    n += (w->stats().*field).load(std::memory_order_relaxed);
  }
  return n;
}

uint64_t Server::total_commands() { return SumStat(&WorkerStats::commands); }

void Server::ResetStats() {
  latest_fork_usec_.store(0, std::memory_order_relaxed);  // as Redis's resetServerStats
  total_forks_.store(0, std::memory_order_relaxed);
  for (auto& w : workers_) {
    WorkerStats& s = w->stats();
    for (auto* f : {&s.commands, &s.connections, &s.rejected_connections, &s.net_input,
                    &s.net_output, &s.error_replies, &s.keyspace_hits, &s.keyspace_misses,
                    &s.read_calls, &s.write_calls, &s.active_expired, &s.pubsub_messages,
                    &s.output_limit_disconnections, &s.query_limit_disconnections}) {
      f->store(0, std::memory_order_relaxed);
    }
    size_t n = table_->by_id().size();
    for (size_t i = 0; i < n; i++) {
      CommandStats& c = w->command_stats()[i];
      c.calls = 0;
      c.cycles = 0;
      c.rejected = 0;
      c.failed = 0;
      c.slowlog_count = 0;
      c.slowlog_us_sum = 0;
      c.slowlog_us_max = 0;
      for (auto& b : c.latency_hist) {
        b = 0;
      }
    }
  }
  for (auto& w : workers_) {
    w->error_counts().Reset();
  }
  slowlog_.ResetTotals();  // Redis's RESETSTAT keeps the entries themselves
  ResetLazyFreedObjects();
  keyspace_->ResetExpiredKeys();
  keyspace_->ResetExpireCycleStats();
  ResetEvictedKeys();
  evicted_scripts_.store(0, std::memory_order_relaxed);
  peak_memory_ = 0;
  stat_reset_ms_ = WallClockMs();
}

void Server::UpdateLruClock(int64_t now_ms) {
  uint32_t lru = kLruClockBase + static_cast<uint32_t>((now_ms - start_time_ms_) / 1000);
  lru_clock_.store(lru, std::memory_order_relaxed);
  bool lfu = config_->lfu_policy();
  keyspace_->SetAccessClock(lfu ? static_cast<uint32_t>(now_ms / 60000) : lru, lfu);
}

void Server::SampleOps(int64_t now_ms) {
  std::lock_guard<std::mutex> g(ops_mu_);
  uint64_t count = total_commands();
  if (ops_sample_time_ != 0 && now_ms > ops_sample_time_) {
    int64_t rate = static_cast<int64_t>((count - ops_last_count_) * 1000 / (now_ms - ops_sample_time_));
    ops_samples_[ops_sample_idx_++ % 16] = rate;
  }
  ops_sample_time_ = now_ms;
  ops_last_count_ = count;
}

uint64_t Server::InstantaneousOps() {
  std::lock_guard<std::mutex> g(ops_mu_);
  size_t n = std::min<size_t>(ops_sample_idx_, 16);
  if (n == 0) {
    return 0;
  }
  int64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    sum += ops_samples_[i];
  }
  return static_cast<uint64_t>(sum / static_cast<int64_t>(n));
}

std::vector<std::pair<std::string, uint64_t>> Server::ErrorCountsByPrefix() {
  std::map<std::string, uint64_t> merged;
  for (auto& w : workers_) {
    for (auto& [k, v] : w->error_counts().Snapshot()) {
      merged[k] += v;
    }
  }
  return {merged.begin(), merged.end()};
}

uint64_t Server::TotalErrorReplies() {
  uint64_t n = 0;
  for (auto& w : workers_) {
    n += w->error_counts().Total();
  }
  return n;
}

int Server::Run() {
  // Signals are taken by this thread only (sigtimedwait below); workers never see them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);  // a file-size limit fails the write (EFBIG), as a full disk

  UpdateLruClock(WallClockMs());
  config_->OnChange("maxmemory-policy", [this] { UpdateLruClock(WallClockMs()); });
  int n = static_cast<int>(config_->threads());
  for (int i = 0; i < n; i++) {
    workers_.push_back(std::make_unique<Worker>(this, i));
    if (Status st = workers_.back()->Init(); !st.ok()) {
      fprintf(stderr, "# %s\n", st.message().c_str());
      return 1;
    }
  }
  config_->SetListenHook(
      [this](const std::vector<std::string>& bind, int64_t port) { return Rebind(bind, port); });
  if (aof_ != nullptr) {
    // Loads the AOF through worker 0 (its loop not running yet) and opens it.
    SetCurrentWorker(workers_[0].get());
    Status st = aof_->Start();
    SetCurrentWorker(nullptr);
    if (!st.ok()) {
      fprintf(stderr, "# %s\n", st.message().c_str());
      return 1;
    }
    for (const char* name :
         {"appendonly", "appendfsync", "aof-timestamp-enabled", "no-appendfsync-on-rewrite"}) {
      config_->OnChange(name, [this] {
        if (Status st = aof_->Reconfigure(); !st.ok()) {
          fprintf(stderr, "# %s\n", st.message().c_str());
        }
      });
    }
  }
  fprintf(stdout, "HotKV ready: port %lld, %d worker threads, pid %d\n",
          static_cast<long long>(config_->port()), n, static_cast<int>(getpid()));
  fflush(stdout);
  for (auto& w : workers_) {
    w->Start();
  }
  if (persistence_ != nullptr) {
    persistence_->OnServerStarted();
  }
  while (!shutting_down()) {
    timespec ts{0, 100 * 1000 * 1000};
    int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGINT || sig == SIGTERM) {
      fprintf(stdout, "Received %s, shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
      fflush(stdout);
      // As Redis: with save rules set the dataset is saved first; when that fails the
      // server keeps running ("Errors trying to shut down the server").
      // shutdown-on-sigint / shutdown-on-sigterm: "default", or save|nosave, now, force.
      if (persistence_ != nullptr) {
        ShutdownSave mode = ShutdownSave::kDefault;
        bool force = false;
        for (const std::string& w : Config::SplitValue(
                 config_->GetString(sig == SIGINT ? "shutdown-on-sigint" : "shutdown-on-sigterm"))) {
          if (w == "save") {
            mode = ShutdownSave::kSave;
          } else if (w == "nosave") {
            mode = ShutdownSave::kNoSave;
          } else if (w == "force") {
            force = true;
          }
        }
        if (Status st = persistence_->PrepareShutdown(mode, force); !st.ok()) {
          fprintf(stdout, "# Errors trying to shut down the server. Check the logs for more information.\n");
          fflush(stdout);
          continue;
        }
      }
      RequestShutdown();
    }
  }
  for (auto& w : workers_) {
    w->Join();
  }
  if (aof_ != nullptr) {
    aof_->Stop();
  }
  if (persistence_ != nullptr) {
    persistence_->FinishShutdown();
  }
  config_->SetListenHook(nullptr);
  fprintf(stdout, "HotKV is now ready to exit, bye bye...\n");
  fflush(stdout);
  return exit_code_.load(std::memory_order_relaxed);
}

Status Server::Rebind(const std::vector<std::string>& bind, int64_t port) {
  std::vector<std::vector<int>> fds;
  for (size_t i = 0; i < workers_.size(); i++) {
    Result<std::vector<int>> opened =
        OpenListeners(bind, static_cast<int>(port), static_cast<int>(config_->tcp_backlog()));
    if (!opened.ok()) {
      for (const auto& list : fds) {
        for (int fd : list) {
          close(fd);
        }
      }
      return opened.status();
    }
    fds.push_back(std::move(opened).value());
  }
  for (size_t i = 0; i < workers_.size(); i++) {
    Worker* w = workers_[i].get();
    w->Post([w, list = std::move(fds[i])]() mutable { w->ReplaceListeners(std::move(list)); });
  }
  return Status::Ok();
}

MemoryInfo ReadMemoryInfo() {
  MemoryInfo m;
#ifdef HOTKV_MIMALLOC
  size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;
  mi_process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
  m.rss = rss;
  m.peak_rss = peak_rss;
  m.allocator = "mimalloc-" + std::to_string(mi_version());
#else
  m.allocator = "libc";
#endif
  m.used = static_cast<uint64_t>(AllocatedBytes());
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (statm >> size >> resident) {
    m.rss = resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  }
  if (m.peak_rss < m.rss) {
    m.peak_rss = m.rss;
  }
  return m;
}

}  // namespace hotkv

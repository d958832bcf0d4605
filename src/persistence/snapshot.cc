// Snapshotter: SAVE, BGSAVE, save rules, loading, shutdown saves (see snapshot.h and
// docs/persistence.md "Snapshots").
#include "persistence/snapshot.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/clock.h"
#include "common/page_prefault.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/eviction.h"
#include "engine/vector_set_value.h"
#include "server/command_table.h"
#include "server/lock_wait_stats.h"
#include "server/shard_state.h"

namespace hotkv::persistence {

namespace {

constexpr const char* kMisconf =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "
    "to disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "
    "RDB error.";

constexpr const char* kOtherChildActive = "Another child process is active";

int64_t NowS() { return WallClockMs() / 1000; }

// In the child: every descriptor but stdin/out/err is the parent's (listening sockets,
// connections, io_uring rings, eventfds). Closing them keeps a child that outlives its
// parent (kill -9) from holding the port.
void CloseInheritedFds() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) {
    return;
  }
#endif
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = 3; fd < max; fd++) {
    close(static_cast<int>(fd));
  }
}

// INFO's "name=value,..." of walk counters: `walks` first when >= 0 (the totals), the
// hold-time percentiles only for one walk (they do not add up).
std::string WalkStatsLine(const SnapshotWalk::Stats& w, int64_t walks, bool percentiles) {
  std::string out;
  auto put = [&out](const char* name, uint64_t v) {
    if (!out.empty()) {
      out += ',';
    }
    out += name;
    out += '=';
    out += std::to_string(v);
  };
  if (walks >= 0) {
    put("walks", static_cast<uint64_t>(walks));
  }
  put("chunks", w.chunks);
  if (percentiles) {
    put("hold_p50_us", w.hold_p50_us);
    put("hold_p99_us", w.hold_p99_us);
    put("hold_p999_us", w.hold_p999_us);
  }
  put("hold_max_us", w.hold_max_us);
  put("holds_over_100us", w.holds_over_100us);
  put("holds_over_1ms", w.holds_over_1ms);
  put("hook_keys", w.hook_keys);
  put("hook_shards", w.hook_shards);
  put("cpu_us", w.cpu_us);
  put("yields", w.yields);
  put("nivcsw", w.nivcsw);
  return out;
}

}  // namespace

// With every shard locked no vector write can start; waits for those running outside
// their shard lock to return. False after `limit_ms` (a write that never ends).
bool Snapshotter::WaitVectorWrites(int64_t limit_ms) {
  const int64_t deadline = MonotonicUs() + limit_ms * 1000;
  while (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
    if (MonotonicUs() > deadline) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

void Snapshotter::Log(const std::string& line) {
  fprintf(stdout, "%s\n", line.c_str());
  fflush(stdout);
}

Snapshotter::Snapshotter(Server* server) : server_(server) {
  last_save_s_ = NowS();
  last_try_s_ = last_save_s_;
}

Snapshotter::~Snapshotter() { FinishShutdown(); }

std::string Snapshotter::DbPath() { return server_->config().GetString("dbfilename"); }

rdb::WriteOptions Snapshotter::WriteOpts() {
  Config& c = server_->config();
  return {.compress = c.GetString("rdbcompression") == "yes",
          .checksum = c.GetString("rdbchecksum") == "yes",
          .version = g_field_ttls_seen.load(std::memory_order_relaxed) ? rdb::kFieldExpiryVersion
                                                                       : rdb::kWriteVersion};
}

rdb::LoadOptions Snapshotter::LoadOpts() {
  Config& c = server_->config();
  rdb::LoadOptions o;
  o.limits = c.encoding_limits();
  o.num_dbs = server_->keyspace().num_dbs();
  o.verify_checksum = c.GetString("rdbchecksum") == "yes";
  return o;
}

AccessStamp Snapshotter::Access(const char* delay_option) {
  AccessStamp a;
  a.key_delay_us = ParseInt64(server_->config().GetString(delay_option)).value_or(0);
  const int64_t now_ms = WallClockMs();
  switch (static_cast<EvictionPolicy>(server_->config().maxmemory_policy())) {
    case EvictionPolicy::kVolatileLru:
    case EvictionPolicy::kAllkeysLru:
      a.mode = AccessStamp::Mode::kLru;
      server_->UpdateLruClock(now_ms);
      a.lru_clock = server_->lru_clock();
      break;
    case EvictionPolicy::kVolatileLfu:
    case EvictionPolicy::kAllkeysLfu:
      a.mode = AccessStamp::Mode::kLfu;
      a.now_minutes = static_cast<uint32_t>(now_ms / 60000);
      a.lfu_decay_time = server_->config().lfu_decay_time();
      break;
    default:
      break;
  }
  return a;
}

bool Snapshotter::HaveRules() {
  auto rules = ParseSaveRules(server_->config().GetString("save"));
  return rules && !rules->empty();
}

void Snapshotter::PrepareStartup() {
  // As Redis: with appendonly yes the AOF is the dataset (the AOF service loads it before
  // the workers start); dump.rdb is not read.
  if (server_->config().GetString("appendonly") == "yes") {
    return;
  }
  if (access(DbPath().c_str(), F_OK) == 0) {
    loading_ = true;
    server_->SetGate(kGateLoading, true);
  }
}

void Snapshotter::OnServerStarted() {
  thread_ = std::thread([this] { ThreadMain(); });
  if (loading_) {
    loader_ = std::thread([this] { LoadAtStartup(); });
  }
}

void Snapshotter::LoadAtStartup() {
  const std::string path = DbPath();
  loading_start_s_ = NowS();
  const int64_t t0 = MonotonicUs();
  Status st = LoadSnapshotFile(server_->keyspace(), path, LoadOpts(), true, &load_,
                               Access("key-load-delay"), false, server_->num_workers());
  if (!st.ok()) {
    if (load_.cancel.load()) {
      return;
    }
    Log("# Error loading the RDB file: " + st.message());
    Log("# Terminating server after rdb file reading failure.");
    server_->RequestExit(1);
    return;  // the loading gate stays: nothing half-loaded is ever served
  }
  char buf[256];
  snprintf(buf, sizeof(buf), "* DB loaded from disk: %.3f seconds (%llu keys, %llu expired)",
           static_cast<double>(MonotonicUs() - t0) / 1e6,
           static_cast<unsigned long long>(load_.keys_loaded.load()),
           static_cast<unsigned long long>(load_.keys_expired.load()));
  Log(buf);
  dirty_baseline_ = server_->dirty();
  loading_ = false;
  server_->SetGate(kGateLoading, false);
}

std::optional<std::string> Snapshotter::RejectCommand(const CommandSpec* cmd, bool in_multi_write) {
  const uint32_t gate = server_->dispatch_gate();
  if ((gate & kGateLoading) && !cmd->is(kCmdLoading)) {
    return std::string("LOADING Redis is loading the dataset in memory");
  }
  if (gate & kGateWriteError) {
    // Redis's writeCommandsDeniedByDiskError: only with save rules set and the option on;
    // PING is refused too, so that a monitoring PING sees the problem.
    const bool write = cmd->is(kCmdWrite) || in_multi_write || cmd->full_name == "ping";
    if (write && server_->config().GetString("stop-writes-on-bgsave-error") == "yes" &&
        HaveRules()) {
      return std::string(kMisconf);
    }
  }
  if (gate & kGateAofWriteError) {
    // Redis's DISK_ERROR_TYPE_AOF: a failed AOF write refuses writes (and PING) until a
    // write succeeds again, whatever stop-writes-on-bgsave-error says.
    const int err = server_->aof() != nullptr ? server_->aof()->write_errno() : 0;
    if (err != 0 && (cmd->is(kCmdWrite) || in_multi_write || cmd->full_name == "ping")) {
      return std::string("MISCONF Errors writing to the AOF file: ") + strerror(err);
    }
  }
  return std::nullopt;
}

std::string Snapshotter::InfoFields() {
  std::string o;
  auto add = [&o](const char* name, const std::string& v) {
    o += name;
    o += ':';
    o += v;
    o += "\r\n";
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  std::unique_lock<std::mutex> lk(mu_);
  ReapWalkLocked();  // a walk ends on its own threads: INFO sees it at once
  const bool in_progress = BgsaveRunningLocked();
  const int64_t now_ms = WallClockMs();
  const uint64_t dirty = server_->dirty();
  const uint64_t base = dirty_baseline_.load();
  add("loading", loading_ ? "1" : "0");
  add("async_loading", "0");
  // Left out (docs/commands.md "INFO fields"): the copy-on-write and save-progress fields
  // (current_cow_*, current_fork_perc, current_save_keys_*, *_cow_size), not measured.
  add("rdb_changes_since_last_save", num(dirty > base ? static_cast<int64_t>(dirty - base) : 0));
  add("rdb_bgsave_in_progress", in_progress ? "1" : "0");
  add("rdb_last_save_time", num(last_save_s_.load()));
  add("rdb_last_bgsave_status", last_bgsave_ok_ ? "ok" : "err");
  add("rdb_last_bgsave_time_sec", num(last_bgsave_duration_s_));
  add("rdb_current_bgsave_time_sec", num(child_ > 0 || walk_ ? (now_ms - child_start_ms_) / 1000 : -1));
  add("rdb_saves", num(static_cast<int64_t>(saves_.load())));
  add("rdb_saves_consecutive_failures", num(static_cast<int64_t>(consecutive_failures_)));
  add("rdb_last_load_keys_expired", num(static_cast<int64_t>(load_.keys_expired.load())));
  add("rdb_last_load_keys_loaded", num(static_cast<int64_t>(load_.keys_loaded.load())));
  add("aof_enabled", "0");
  add("aof_rewrite_in_progress", "0");
  add("aof_rewrite_scheduled", "0");
  add("aof_last_rewrite_time_sec", "-1");
  add("aof_current_rewrite_time_sec", "-1");
  add("aof_last_bgrewrite_status", "ok");
  add("aof_rewrites", "0");
  add("aof_rewrites_consecutive_failures", "0");
  add("aof_last_write_status", "ok");
  add("module_fork_in_progress", "0");
  if (loading_) {
    const uint64_t total = load_.total_bytes.load(), done = load_.loaded_bytes.load();
    const int64_t elapsed = NowS() - loading_start_s_.load();
    const double perc = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 0;
    int64_t eta = 1;
    if (done > 0 && elapsed > 0 && total > done) {
      eta = static_cast<int64_t>((total - done) / (static_cast<double>(done) / elapsed));
    }
    char p[32];
    snprintf(p, sizeof(p), "%.2f", perc);
    add("loading_start_time", num(loading_start_s_.load()));
    add("loading_total_bytes", num(static_cast<int64_t>(total)));
    add("loading_rdb_used_mem", "0");
    add("loading_loaded_bytes", num(static_cast<int64_t>(done)));
    add("loading_loaded_perc", p);
    add("loading_eta_seconds", num(eta));
  }
  // HotKV's own, after Redis's fields: the pause of the last BGSAVE's start (every shard
  // locked + fork).
  add("rdb_last_fork_usec", num(last_fork_us_));
  // The last BGSAVE walk's costs (bgsave-mode walk) and every wait of a client's thread
  // on a shard lock since start (docs/persistence.md, "The walk's p99").
  if (have_walk_stats_) {
    add("rdb_last_walk", WalkStatsLine(last_walk_stats_, /*walks=*/-1, /*percentiles=*/true));
    add("rdb_walk_totals", WalkStatsLine(walk_totals_, static_cast<int64_t>(walks_total_),
                                         /*percentiles=*/false));
  }
  {
    const ShardLockWaitStats& lw = g_shard_lock_waits;
    char b[256];
    snprintf(b, sizeof(b), "count=%llu,usec=%llu,max_usec=%llu,over_100us=%llu,over_1ms=%llu",
             static_cast<unsigned long long>(lw.waits.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(lw.wait_ns.load(std::memory_order_relaxed) / 1000),
             static_cast<unsigned long long>(lw.max_ns.load(std::memory_order_relaxed) / 1000),
             static_cast<unsigned long long>(lw.over_100us.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(lw.over_1ms.load(std::memory_order_relaxed)));
    add("shard_lock_waits", b);
  }
  return o;
}

Status Snapshotter::SaveLocked() {
  const uint64_t dirty = server_->dirty();
  const int64_t t0 = MonotonicUs();
  Result<WriteStats> r = WriteLocked();
  std::lock_guard<std::mutex> g(mu_);
  if (!r.ok()) {
    Log("# " + r.status().message());
    return r.status();
  }
  dirty_baseline_ = dirty;
  last_save_s_ = NowS();
  last_bgsave_ok_ = true;
  saves_++;
  UpdateWriteGateLocked();
  char buf[160];
  snprintf(buf, sizeof(buf), "* DB saved on disk (%llu keys, %.3f seconds)",
           static_cast<unsigned long long>(r->keys), static_cast<double>(MonotonicUs() - t0) / 1e6);
  Log(buf);
  return Status::Ok();
}

Status Snapshotter::Save() {
  {
    std::lock_guard<std::mutex> g(mu_);
    ReapWalkLocked();
    if (BgsaveRunningLocked()) {
      return Status::FailedPrecondition("ERR Background save already in progress");
    }
  }
  Keyspace& ks = server_->keyspace();
  ks.LockAll();
  WaitVectorWrites(10000);
  Status st = SaveLocked();
  ks.UnlockAll();
  return st.ok() ? st : Status::IoError("ERR");
}

Snapshotter::BgsaveReply Snapshotter::Bgsave(bool schedule, bool in_exec) {
  std::unique_lock<std::mutex> lk(mu_);
  ReapWalkLocked();
  if (BgsaveRunningLocked()) {
    return BgsaveReply::kInProgress;
  }
  if (in_exec) {
    // Forking needs every shard lock, which this transaction holds: start it afterwards.
    bgsave_scheduled_ = true;
    cv_.notify_all();
    return BgsaveReply::kScheduled;
  }
  if (server_->active_child() == Server::ChildKind::kAof) {
    // One child at a time, as Redis: SCHEDULE starts it once the rewrite is done.
    if (!schedule) {
      return BgsaveReply::kOtherChild;
    }
    bgsave_scheduled_ = true;
    return BgsaveReply::kScheduled;
  }
  const uint64_t gen = ++bgsave_request_gen_;
  bgsave_requests_++;
  cv_.notify_all();
  cv_.wait(lk, [&] { return bgsave_done_gen_ >= gen || stop_; });
  if (stop_ && bgsave_done_gen_ < gen) {
    return BgsaveReply::kFailed;
  }
  if (bgsave_request_status_.message() == kOtherChildActive) {
    return BgsaveReply::kOtherChild;  // an AOF rewrite claimed the child slot meanwhile
  }
  return bgsave_request_status_.ok() ? BgsaveReply::kStarted : BgsaveReply::kFailed;
}

Status Snapshotter::StartBgsaveLocked(std::unique_lock<std::mutex>& lk) {
  if (WalkMode()) {
    return StartWalkLocked(lk);
  }
  const std::string path = DbPath();
  const rdb::WriteOptions opts = WriteOpts();
  const AccessStamp access = Access("rdb-key-save-delay");
  Keyspace& ks = server_->keyspace();
  if (!server_->TryClaimChild(Server::ChildKind::kRdb)) {
    return Status::FailedPrecondition(kOtherChildActive);
  }
  forking_ = true;
  last_try_s_ = NowS();
  lk.unlock();
  // The barrier: no command is mid-change while every shard is locked, and no vector
  // write runs outside its lock once the counter is zero.
  const int64_t t0 = MonotonicUs();
  ks.LockAll();
  const bool quiet = WaitVectorWrites(10000);
  const int64_t t_locked = MonotonicUs();
  const uint64_t dirty = server_->dirty();
  const pid_t parent = getpid();
  pid_t pid = quiet ? fork() : -1;
  const int64_t fork_us = MonotonicUs() - t_locked;
  if (pid == 0) {
    // The child: the shards are its own copy (their locks copied locked; nobody else runs
    // here). Never exit(): no atexit handlers or destructors of the parent's objects.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
      _exit(1);
    }
    CloseInheritedFds();
    DetachPagePrefaulterInChild();
    Result<WriteStats> r = WriteSnapshotFile(ks, path, opts, WallClockMs(), access);
    if (!r.ok()) {
      dprintf(1, "# %s\n", r.status().message().c_str());
      _exit(1);
    }
    dprintf(1, "* DB saved on disk (%llu keys, %llu bytes)\n",
            static_cast<unsigned long long>(r->keys), static_cast<unsigned long long>(r->bytes));
    _exit(0);
  }
  const int fork_errno = errno;
  ks.UnlockAll();
  const int64_t pause_us = MonotonicUs() - t0;
  lk.lock();
  forking_ = false;
  if (pid < 0) {
    server_->ReleaseChild(Server::ChildKind::kRdb);
    last_bgsave_ok_ = false;
    consecutive_failures_++;
    UpdateWriteGateLocked();
    std::string why = quiet ? std::string("fork: ") + strerror(fork_errno)
                            : "vector writes did not finish within 10 s";
    Log("# Can't save in background: " + why);
    return Status::IoError(why);
  }
  server_->RecordFork(fork_us);
  child_ = pid;
  child_start_ms_ = WallClockMs();
  dirty_at_fork_ = dirty;
  last_fork_us_ = pause_us;
  char buf[200];
  snprintf(buf, sizeof(buf),
           "* Background saving started by pid %d (pause %lld us: %lld us to lock every shard, "
           "then fork)",
           static_cast<int>(pid), static_cast<long long>(pause_us),
           static_cast<long long>(t_locked - t0));
  Log(buf);
  return Status::Ok();
}

void Snapshotter::ReapLocked(bool block) {
  ReapWalkLocked();
  if (child_ <= 0) {
    return;
  }
  int status = 0;
  pid_t r = waitpid(child_, &status, block ? 0 : WNOHANG);
  if (r == 0) {
    return;
  }
  const int64_t now_ms = WallClockMs();
  last_bgsave_duration_s_ = (now_ms - child_start_ms_) / 1000;
  if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    dirty_baseline_ = dirty_at_fork_;
    last_save_s_ = now_ms / 1000;
    last_bgsave_ok_ = true;
    consecutive_failures_ = 0;
    saves_++;
    Log("* Background saving terminated with success");
  } else if (r > 0 && WIFSIGNALED(status) && child_killed_) {
    Log("* Background saving terminated by signal " + std::to_string(WTERMSIG(status)));
  } else {
    last_bgsave_ok_ = false;
    consecutive_failures_++;
    Log("# Background saving error");
  }
  if (r > 0 && WIFSIGNALED(status)) {
    unlink(("temp-" + std::to_string(child_) + ".rdb").c_str());
  }
  child_ = -1;
  child_killed_ = false;
  server_->ReleaseChild(Server::ChildKind::kRdb);
  UpdateWriteGateLocked();
}

void Snapshotter::KillChildLocked() {
  if (walk_) {
    // The walk's threads may wait for shard locks the caller holds (FLUSHALL): cancel it
    // (the destination is never replaced afterwards) and let them end on their own.
    walk_->Cancel();
    Log("* Background saving terminated by cancelling the walk");
    retired_walks_.push_back(std::move(walk_));
  }
  if (child_ <= 0) {
    return;
  }
  child_killed_ = true;
  kill(child_, SIGKILL);
  ReapLocked(true);
}

void Snapshotter::UpdateWriteGateLocked() { server_->SetGate(kGateWriteError, !last_bgsave_ok_); }

void Snapshotter::ThreadMain() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    const int64_t hz = std::max<int64_t>(1, server_->config().hz());
    cv_.wait_for(lk, std::chrono::milliseconds(1000 / hz));
    if (stop_) {
      break;
    }
    ReapLocked(false);
    if (bgsave_requests_ > 0) {
      bgsave_requests_ = 0;
      const uint64_t gen = bgsave_request_gen_;
      Status st = BgsaveRunningLocked() ? Status::FailedPrecondition("in progress")
                                        : StartBgsaveLocked(lk);
      bgsave_request_status_ = st;
      bgsave_done_gen_ = gen;
      cv_.notify_all();
      continue;
    }
    if (BgsaveRunningLocked() || loading_ || server_->active_child() != Server::ChildKind::kNone) {
      continue;  // one child at a time: scheduled saves and the rules wait their turn
    }
    const int64_t now_s = NowS();
    if (bgsave_scheduled_ && (last_bgsave_ok_ || now_s - last_try_s_ > kBgsaveRetryDelaySeconds)) {
      bgsave_scheduled_ = false;
      StartBgsaveLocked(lk);
      continue;
    }
    std::optional<std::vector<SaveRule>> rules =
        ParseSaveRules(server_->config().GetString("save"));
    if (!rules || rules->empty()) {
      continue;
    }
    const uint64_t dirty = server_->dirty(), base = dirty_baseline_.load();
    SaveState st{dirty > base ? dirty - base : 0, last_save_s_.load(), last_try_s_,
                 last_bgsave_ok_};
    for (const SaveRule& r : *rules) {
      if (SaveDue({r}, st, now_s)) {
        Log("* " + std::to_string(r.changes) + " changes in " + std::to_string(r.seconds) +
            " seconds. Saving...");
        StartBgsaveLocked(lk);
        break;
      }
    }
  }
}

void Snapshotter::OnFlushAll(bool locks_held) {
  {
    std::lock_guard<std::mutex> g(mu_);
    KillChildLocked();
  }
  if (!HaveRules()) {
    return;
  }
  Keyspace& ks = server_->keyspace();
  if (!locks_held) {
    ks.LockAll();
  }
  (void)SaveLocked();
  if (!locks_held) {
    ks.UnlockAll();
  }
}

Status Snapshotter::PrepareShutdown(ShutdownSave mode, bool force) {
  if (loading_) {
    mode = ShutdownSave::kNoSave;  // as Redis: a partial dataset is never saved
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    if (child_ > 0 || walk_) {
      Log("* There is a child saving an .rdb. Killing it!");
      KillChildLocked();
    }
  }
  const bool save = mode == ShutdownSave::kSave || (mode == ShutdownSave::kDefault && HaveRules());
  if (!save) {
    return Status::Ok();
  }
  Log("* Saving the final RDB snapshot before exiting.");
  Keyspace& ks = server_->keyspace();
  ks.LockAll();
  WaitVectorWrites(10000);
  Status st = SaveLocked();
  ks.UnlockAll();
  if (!st.ok()) {
    Log("# Error trying to save the DB, can't exit.");
    if (!force) {
      return st;
    }
  }
  final_save_ = st.ok();
  return Status::Ok();
}

void Snapshotter::FinishShutdown() {
  load_.cancel = true;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stop_) {
      return;
    }
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
  if (loader_.joinable()) {
    loader_.join();
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    KillChildLocked();
    retired_walks_.clear();  // no worker runs now: their threads end, no hook can run
  }
  // Writes that ran between the shutdown's save and the workers' stop.
  if (final_save_ && server_->dirty() != dirty_baseline_.load()) {
    (void)SaveLocked();
  }
}

Status Snapshotter::DebugReload(bool save, bool flush, bool merge) {
  Keyspace& ks = server_->keyspace();
  ks.LockAll();
  WaitVectorWrites(10000);
  if (save) {
    if (Status st = SaveLocked(); !st.ok()) {
      ks.UnlockAll();
      return Status::IoError("ERR Error trying to save the RDB dump, check server logs.");
    }
  }
  Database::TablesChanged();
  for (uint32_t i = 0; i < Keyspace::kShardCount && flush; i++) {
    Shard& s = ks.shard(i);
    for (int d = 0; d < ks.num_dbs(); d++) {
      DbTable& t = s.db(d);
      if (t.keys.empty()) {
        continue;
      }
      InvalidateWatchesInDb(s, d);
      t.keys.Clear([](Entry* e) { Entry::Free(e); });
      t = DbTable();
    }
  }
  LoadProgress progress;
  const bool missing = !save && access(DbPath().c_str(), F_OK) != 0;
  Status st = missing ? Status::IoError("no such file: " + DbPath())
                      : LoadSnapshotFile(ks, DbPath(), LoadOpts(), false, &progress,
                                         Access("key-load-delay"), merge);
  ks.UnlockAll();
  if (!st.ok() && (missing || (!flush && !merge))) {
    // As Redis replies for a file that is not there (NOSAVE), the server keeps what it
    // has; so for a duplicate key with NOFLUSH and no MERGE (where Redis panics) —
    // keys loaded before the duplicate stay.
    Log("# Error trying to load the RDB dump: " + st.message());
    return Status::IoError("ERR Error trying to load the RDB dump, check server logs.");
  }
  if (!st.ok()) {
    // The dataset is gone and the file cannot be read back: as Redis, stop rather than
    // serve a partial dataset.
    Log("# Error trying to load the RDB dump: " + st.message());
    server_->RequestExit(1);
    return Status::IoError("ERR Error trying to load the RDB dump, check server logs.");
  }
  Log("* DB reloaded by DEBUG RELOAD");
  return Status::Ok();
}

}  // namespace hotkv::persistence

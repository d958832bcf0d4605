// Snapshotter: the snapshot runtime — SAVE, BGSAVE (fork), save rules, LASTSAVE, INFO
// persistence, loading dump.rdb at start-up, SHUTDOWN's save, DEBUG RELOAD, FLUSHALL's
// reset, and the -LOADING / -MISCONF gates. It implements server/persistence_hooks.h;
// main.cc creates it and installs it in the Server (docs/persistence.md, "Snapshots").
//
//   persistence::Snapshotter snap(&server);
//   server.set_persistence(&snap);
//   snap.PrepareStartup();          // -LOADING from the first command when a file exists
//   server.Run();                    // OnServerStarted: loads, starts the cron thread
//
// BGSAVE: the persistence thread (never a worker) locks every shard, waits for vector
// writes running outside their shard lock to finish, forks and unlocks: the pause is
// that barrier plus fork() (logged for each BGSAVE). With bgsave-mode walk it starts a
// SnapshotWalk (snapshot_walk.h) at the barrier instead of forking. The child writes the file
// (snapshot_writer.h) and _exit()s; the thread reaps it (waitpid WNOHANG on its ticks)
// and records the outcome. SAVE writes in the calling worker with every shard locked
// (all clients wait, as Redis's SAVE blocks the server).
//
// Thread safety: every public method may be called from any thread; state is under mu_
// or atomic.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "persistence/save_rules.h"
#include "persistence/snapshot_walk.h"
#include "persistence/snapshot_writer.h"
#include "server/persistence_hooks.h"
#include "server/server.h"

namespace hotkv::persistence {

class Snapshotter : public PersistenceHooks {
 public:
  explicit Snapshotter(Server* server);
  ~Snapshotter() override;
  Snapshotter(const Snapshotter&) = delete;
  Snapshotter& operator=(const Snapshotter&) = delete;

  // Before Server::Run: when dir/dbfilename exists, raises the loading gate so that the
  // first commands already get -LOADING.
  void PrepareStartup();

  // SAVE. The caller holds no shard lock (SAVE is no_multi).
  Status Save();
  enum class BgsaveReply { kStarted, kScheduled, kInProgress, kOtherChild, kFailed };
  // BGSAVE [SCHEDULE]; `in_exec`: inside MULTI/EXEC (scheduled, as Redis).
  BgsaveReply Bgsave(bool schedule, bool in_exec);

  // PersistenceHooks.
  std::optional<std::string> RejectCommand(const CommandSpec* cmd, bool in_multi_write) override;
  std::string InfoFields() override;
  int64_t LastSaveUnix() override { return last_save_s_.load(std::memory_order_relaxed); }
  void OnFlushAll(bool locks_held) override;
  Status PrepareShutdown(ShutdownSave mode, bool force) override;
  void FinishShutdown() override;
  Status DebugReload(bool save, bool flush, bool merge) override;
  void OnServerStarted() override;

  // Log line helper (stdout, as the server's other notices).
  static void Log(const std::string& line);

 private:
  std::string DbPath();
  rdb::WriteOptions WriteOpts();
  rdb::LoadOptions LoadOpts();
  // `delay_option`: the testing delay that applies (rdb-key-save-delay / key-load-delay).
  AccessStamp Access(const char* delay_option);
  bool HaveRules();
  // bgsave-mode walk (snapshot_walk.h) rather than fork. The walk's side of this class
  // is in snapshot_walk_mode.cc.
  bool WalkMode();
  // With every shard locked no vector write can start; waits for those running outside
  // their shard lock to return. False after `limit_ms` (a write that never ends).
  static bool WaitVectorWrites(int64_t limit_ms);
  // A BGSAVE is running (child, walk, or between barrier and fork); mu_ held.
  bool BgsaveRunningLocked() const { return child_ > 0 || forking_ || walk_ != nullptr; }
  // Writes the file with every shard locked by the caller (or no worker running):
  // sequentially, or with bgsave-mode walk by a thread per core.
  Result<WriteStats> WriteLocked();
  // The walk of a BGSAVE: started with every shard locked (mu_ not held); then, mu_
  // held, reaped when finished.
  Status StartWalkLocked(std::unique_lock<std::mutex>& lk);
  void ReapWalkLocked();
  // A synchronous save with every shard locked by the caller. Records the outcome.
  Status SaveLocked();
  // Forks the BGSAVE child; called on the persistence thread with `lk` (mu_) held, which
  // it releases while the shards are locked (a worker inside EXEC holds shard locks and
  // may want mu_).
  Status StartBgsaveLocked(std::unique_lock<std::mutex>& lk);
  // Reaps a finished child (WNOHANG, or waiting when `block`); mu_ held.
  void ReapLocked(bool block);
  void KillChildLocked();
  void UpdateWriteGateLocked();
  void ThreadMain();
  void LoadAtStartup();

  Server* server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  std::thread loader_;
  bool stop_ = false;

  // Under mu_.
  pid_t child_ = -1;
  bool forking_ = false;     // between the barrier and the fork
  bool final_save_ = false;  // PrepareShutdown saved: FinishShutdown saves what followed
  int64_t child_start_ms_ = 0;
  uint64_t dirty_at_fork_ = 0;
  bool child_killed_ = false;
  bool bgsave_scheduled_ = false;
  int bgsave_requests_ = 0;  // BGSAVEs asked of the thread, not yet started
  uint64_t bgsave_request_gen_ = 0;
  uint64_t bgsave_done_gen_ = 0;
  Status bgsave_request_status_;
  int64_t last_bgsave_duration_s_ = -1;
  int64_t last_try_s_ = 0;
  bool last_bgsave_ok_ = true;
  uint64_t consecutive_failures_ = 0;
  int64_t last_fork_us_ = 0;
  std::unique_ptr<SnapshotWalk> walk_;  // the running BGSAVE walk
  bool have_walk_stats_ = false;
  SnapshotWalk::Stats last_walk_stats_;  // the last BGSAVE walk's (INFO rdb_last_walk)
  SnapshotWalk::Stats walk_totals_;      // every BGSAVE walk's, summed (rdb_walk_totals)
  uint64_t walks_total_ = 0;
  // Finished or cancelled walks: freed once their threads are done and every shard lock
  // has been taken since (the next barrier), or at shutdown.
  std::vector<std::unique_ptr<SnapshotWalk>> retired_walks_;

  // Read without mu_ (INFO, cron, LASTSAVE).
  std::atomic<uint64_t> dirty_baseline_{0};
  std::atomic<int64_t> last_save_s_{0};
  std::atomic<uint64_t> saves_{0};
  std::atomic<bool> loading_{false};
  std::atomic<int64_t> loading_start_s_{0};
  LoadProgress load_;
  std::atomic<bool> stopping_{false};
};

}  // namespace hotkv::persistence

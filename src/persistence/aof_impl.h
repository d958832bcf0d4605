// Aof: the AofService implementation (aof_writer.h), shared by its three files:
//   aof_writer.cc   start-up, enabling/disabling, CONFIG SET, INFO
//   aof_fsync.cc    the writer thread, draining and writing, fsync and group commit
//   aof_rewrite.cc  new bases (forked child), rewrites, manifest installs, legacy upgrade
//
// Thread safety: see aof_service.h; ctl_mu_ orders the control operations, io_mu_ the
// file writes. Lock order: ctl_mu_ -> every shard lock -> io_mu_; workers take io_mu_
// only with no shard lock held.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/status.h"
#include "persistence/aof_manifest.h"
#include "server/aof_service.h"
#include "server/write_stream.h"

namespace hotkv {
class Server;
}

namespace hotkv::persistence {

enum FsyncPolicy { kFsyncNo = 0, kFsyncEverysec = 1, kFsyncAlways = 2 };

inline int PolicyFrom(const std::string& v) {
  return v == "always" ? kFsyncAlways : v == "no" ? kFsyncNo : kFsyncEverysec;
}

inline int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

class Aof : public AofService {
 public:
  explicit Aof(Server& s) : server_(s) {}
  ~Aof() override { Stop(); }

  Status Start() override;
  void Stop() override;
  Status Reconfigure() override;
  void WaitDurable(uint64_t seq) override;
  bool IsDurable(uint64_t seq) const override;
  void NotifyWhenDurable(uint64_t seq, std::function<void()> done) override;
  Status Rewrite(bool* scheduled) override;
  int write_errno() const override { return last_write_errno_.load(); }
  bool enabled() const override { return enabled_.load(std::memory_order_acquire); }
  std::string InfoFields() override;

 private:
  void ReadConfig();
  Status Enable(bool at_startup);
  void Disable();
  // ctl_mu_ held: a new base and incr file. Every shard is locked for the switch to the
  // new incr file and the fork; the child writes the base while the workers serve; then
  // the manifest is swapped. `fresh`: no AOF yet (records so far are dropped: the base
  // holds them), else a rewrite (they go to the old incr file). `base_only`: BGREWRITEAOF
  // with appendonly off: a base and a manifest naming only it, no incr file (as Redis).
  // Forks only once no other child runs (Server::TryClaimChild, waiting for a BGSAVE).
  Status NewBase(bool fresh, bool base_only = false);
  // Records a failed (err != 0) or successful AOF write: INFO, the MISCONF gate.
  void SetWriteError(int err);
  struct BaseOptions {
    bool compress;
    bool checksum;
    int64_t key_delay_us;  // rdb-key-save-delay (a testing aid, as Redis's rewrite child)
  };
  // Writes the RDB base; runs in the forked child (touches no lock, no config).
  Status WriteRdbBase(const std::string& path, const BaseOptions& opts);
  Status OpenIncr(const std::string& name);
  // Start-up without a manifest: a Redis < 7 single-file AOF becomes the base.
  Status UpgradeLegacyFile(const std::string& manifest_path);
  Status InstallManifest(const AofManifest& next);
  // io_mu_ held: drains the stream into the incr file, fsyncs when asked.
  uint64_t FlushLocked(bool fsync);
  // Raises the durable mark (records up to `seq` are on disk, or in a base).
  void MarkDurable(uint64_t seq) {
    uint64_t cur = durable_seq_.load(std::memory_order_relaxed);
    while (seq > cur && !durable_seq_.compare_exchange_weak(cur, seq)) {
    }
  }
  void WriterLoop();
  // Calls the NotifyWhenDurable callbacks whose records are durable (`all`: every one,
  // when the AOF goes off).
  void FireNotifications(bool all);
  void MaybeAutoRewrite();
  // Whether the calling thread holds a shard lock (a command inside EXEC).
  static bool HoldsAnyShard();
  // ctl_mu_ held: the rewrite itself (every shard locked while the base is written).
  Status RewriteLocked();

  Server& server_;
  std::mutex ctl_mu_;  // Start/Stop/Reconfigure/Rewrite; manifest_, dir_, prefix_
  std::mutex io_mu_;   // fd_, cur_db_; drain + write + fsync
  int fd_ = -1;
  int cur_db_ = -1;
  std::string unwritten_;  // drained but not yet written (after a write error)
  WriteStream::Drained drained_;  // FlushLocked's drain (pieces of the thread buffers)
  std::vector<iovec> iov_;        // FlushLocked's writev
  int64_t last_ts_ = 0;    // the last #TS annotation written
  std::atomic<bool> timestamps_{false};
  std::atomic<bool> no_fsync_on_rewrite_{false};
  bool unsynced_ = false;
  bool fsync_deferred_ = false;  // the last FlushLocked skipped its fsync for a rewrite
  int64_t last_fsync_ms_ = 0;
  std::string dir_, prefix_;
  AofManifest manifest_;
  std::atomic<bool> enabled_{false};
  std::atomic<int> policy_{kFsyncEverysec};
  std::atomic<uint64_t> durable_seq_{0};
  std::atomic<int64_t> base_size_{0};     // total size after the last start or rewrite
  std::atomic<int64_t> current_size_{0};  // total size of base + incr files now
  std::atomic<bool> last_write_ok_{true};
  std::atomic<bool> last_rewrite_ok_{true};
  std::atomic<bool> rewrite_in_progress_{false};  // its child is running
  std::atomic<bool> rewrite_job_{false};          // a rewriter thread is waiting or running
  std::atomic<bool> rewrite_scheduled_{false};    // waiting for a BGSAVE child to end
  std::atomic<bool> stopping_{false};
  std::atomic<int> last_write_errno_{0};
  std::atomic<int64_t> rewrites_{0};
  std::atomic<int64_t> rewrite_failures_{0};
  std::atomic<int64_t> last_rewrite_sec_{-1};
  std::atomic<uint64_t> delayed_fsync_{0};
  std::atomic<int64_t> last_fork_us_{0};
  std::atomic<int64_t> last_rewrite_end_ms_{0};
  std::atomic<int64_t> rewrite_start_ms_{0};
  int64_t next_auto_check_ms_ = 0;  // writer thread only
  std::thread writer_;
  std::mutex rewriter_mu_;
  std::thread rewriter_;               // BGREWRITEAOF's
  std::atomic<bool> enable_pending_{false};  // appendonly yes waits for a BGSAVE child
  std::vector<std::thread> enablers_;  // CONFIG SET appendonly yes inside EXEC
  std::mutex notify_mu_;
  std::vector<std::pair<uint64_t, std::function<void()>>> notifications_;
  std::atomic<int> notify_pending_{0};
  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  bool bg_stop_ = false;
};

}  // namespace hotkv::persistence

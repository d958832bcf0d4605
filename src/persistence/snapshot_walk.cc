// SnapshotWalk: fork-less point-in-time snapshots (see snapshot_walk.h).
#include "persistence/snapshot_walk.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"

namespace hotkv::persistence {

namespace {

// Chunks waiting for the writer: walkers pause above this (hooks on client threads
// never wait).
constexpr size_t kMaxQueuedBytes = 64u << 20;

std::atomic<uint64_t> g_last_epoch{0};

// The walk's own threads: they compress (rdbcompression). A shard saved by a client's
// thread, before its command changes it, is written without LZF: that work delays the
// command, and the copy is a few times faster.
thread_local bool t_walker = false;

Status Errno(const std::string& what) { return Status::IoError(what + ": " + strerror(errno)); }

}  // namespace

SnapshotWalk::SnapshotWalk(Keyspace& ks, Options opts) : ks_(ks), opts_(std::move(opts)) {}

Result<std::unique_ptr<SnapshotWalk>> SnapshotWalk::Start(Keyspace& ks, Options opts) {
  std::unique_ptr<SnapshotWalk> w(new SnapshotWalk(ks, std::move(opts)));
  // Synchronous saves (every lock held) use the fork path's name; a BGSAVE walk gets a
  // name of its own, so that a cancelled walk still ending never touches another's file.
  static std::atomic<uint64_t> walks{0};
  w->tmp_ = w->opts_.locks_held ? "temp-" + std::to_string(getpid()) + ".rdb"
                                : "temp-" + std::to_string(getpid()) + "-" +
                                      std::to_string(walks.fetch_add(1) + 1) + ".rdb";
  // A BGSAVE leaves a core to the workers (its walkers hold shard locks while they
  // encode: more runnable threads than cores would have lock holders preempted);
  // synchronous saves, which every client waits for, use them all.
  int n = w->opts_.threads;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (n <= 0) {
    n = w->opts_.locks_held ? cores : std::max(1, cores - 1);
  }
  n = std::min(n, 32);
  if (!w->opts_.locks_held) {
    // The caller holds every shard lock: no hook runs until it unlocks, and every lock
    // taken afterwards sees the epoch (the unlock publishes it).
    w->epoch_ = g_last_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
    g_snapshot_hook.store(w.get(), std::memory_order_release);
    g_snapshot_epoch.store(w->epoch_, std::memory_order_release);
  }
  w->paused_ = w->opts_.paused;
  w->threads_running_ = n + 1;
  w->writer_ = std::thread([p = w.get()] { p->WriterMain(); });
  for (int i = 0; i < n; i++) {
    w->walkers_.emplace_back([p = w.get()] { p->WalkerMain(); });
  }
  return w;
}

SnapshotWalk::~SnapshotWalk() {
  Cancel();
  Join();
  if (g_snapshot_hook.load(std::memory_order_acquire) == this) {
    g_snapshot_hook.store(nullptr, std::memory_order_release);
  }
}

void SnapshotWalk::EndEpoch() {
  if (epoch_ != 0) {
    uint64_t e = epoch_;
    g_snapshot_epoch.compare_exchange_strong(e, 0, std::memory_order_acq_rel);
  }
}

void SnapshotWalk::SaveShard(Shard& shard, uint64_t epoch) {
  shard.snapshot_epoch = epoch;
  if (cancelled_.load(std::memory_order_relaxed)) {
    return;
  }
  Chunk c;
  Status err;
  {
    rdb::ChunkEncoder enc(&c.bytes, opts_.write.compress && (t_walker || opts_.locks_held));
    for (int db = 0; db < ks_.num_dbs() && err.ok(); db++) {
      DbTable& t = shard.db(db);
      if (t.keys.empty()) {
        continue;
      }
      enc.SelectDb(db);
      t.keys.ForEach([&](Entry* e) {
        if (!err.ok()) {
          return;
        }
        int64_t expire_ms = -1;
        if (e->has_ttl()) {
          expire_ms = e->expire_ms();
          if (expire_ms <= opts_.now_ms) {
            return;  // expired at the barrier: not saved, as the fork path
          }
        }
        std::optional<uint64_t> idle;
        std::optional<uint8_t> freq;
        AccessFields(opts_.access, e, &idle, &freq);
        err = enc.Key(*e, expire_ms, idle, freq);
        if (!err.ok()) {
          err = Status::IoError("Error saving key '" + std::string(e->key().substr(0, 128)) +
                                "' of DB " + std::to_string(db) + ": " + err.message());
          return;
        }
        c.keys++;
      });
    }
  }
  if (!err.ok()) {
    Fail(err);
    return;
  }
  std::lock_guard<std::mutex> g(mu_);
  shards_saved_++;
  if (shards_saved_ == Keyspace::kShardCount) {
    EndEpoch();  // every shard is saved: the lock check stops at the epoch load
  }
  queued_bytes_ += c.bytes.size();
  queue_.push_back(std::move(c));
  cv_.notify_one();
}

void SnapshotWalk::Fail(Status st) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (error_.ok()) {
      error_ = std::move(st);
    }
  }
  Cancel();
}

void SnapshotWalk::WalkerMain() {
  t_walker = true;
  for (;;) {
    const uint32_t i = next_shard_.fetch_add(1, std::memory_order_relaxed);
    if (i >= Keyspace::kShardCount || cancelled()) {
      break;
    }
    {
      std::unique_lock<std::mutex> lk(mu_);
      space_cv_.wait(lk, [&] {
        return (queued_bytes_ < kMaxQueuedBytes && !paused_) || cancelled();
      });
    }
    Shard& s = ks_.shard(i);
    if (opts_.locks_held) {
      SaveShard(s, 0);
    } else {
      s.lock.lock();  // ShardLock's check saves it unless a client thread did already
      s.lock.unlock();
    }
  }
  if (threads_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finished_.store(true, std::memory_order_release);
  }
}

void SnapshotWalk::WriterMain() {
  // Opened here, not in Start: a file that cannot be created fails the save as a fork
  // child's would (BGSAVE has replied "started"; INFO shows the error).
  fd_ = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    char cwd[4096] = "unknown";
    if (getcwd(cwd, sizeof(cwd)) == nullptr) {
      strcpy(cwd, "unknown");
    }
    Fail(Errno("Failed opening the temp RDB file " + tmp_ + " (in server root dir " + cwd +
               ") for saving"));
    EndEpoch();
    if (threads_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      finished_.store(true, std::memory_order_release);
    }
    return;
  }
  rdb::FileWriter w(fd_, opts_.write);
  Status st = w.Begin(SnapshotAux(WallClockMs()));
  if (st.ok()) {
    st = WriteFunctionSection(w);  // the libraries as they are now (not at the barrier)
  }
  uint64_t keys = 0;
  for (;;) {
    Chunk c;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] {
        return !queue_.empty() || shards_saved_ == Keyspace::kShardCount || cancelled();
      });
      if (cancelled()) {
        break;
      }
      if (queue_.empty()) {
        break;  // every shard saved and written
      }
      c = std::move(queue_.front());
      queue_.pop_front();
      queued_bytes_ -= c.bytes.size();
      space_cv_.notify_all();
    }
    if (st.ok()) {
      st = w.WriteRaw(c.bytes);
    }
    keys += c.keys;
    if (opts_.access.key_delay_us > 0 && c.keys > 0) {
      usleep(static_cast<useconds_t>(
          std::min<int64_t>(opts_.access.key_delay_us * static_cast<int64_t>(c.keys), 10000000)));
    }
    if (!st.ok()) {
      Fail(st);
    }
  }
  if (!cancelled() && st.ok()) {
    st = w.Finish();
    if (st.ok() && fsync(fd_) != 0) {
      st = Errno("fsync of " + tmp_);
    }
  }
  if (close(fd_) != 0 && st.ok()) {
    st = Errno("close of " + tmp_);
  }
  fd_ = -1;
  {
    std::lock_guard<std::mutex> g(rename_mu_);
    if (st.ok() && !cancelled()) {
      if (rename(tmp_.c_str(), opts_.dest.c_str()) != 0) {
        st = Errno("Error moving temp DB file " + tmp_ + " on the final destination " +
                   opts_.dest);
      } else {
        renamed_ = true;
      }
    }
    if (!st.ok() || cancelled()) {
      unlink(tmp_.c_str());
    }
  }
  if (st.ok() && !cancelled()) {
    std::string dir = ".";
    if (size_t slash = opts_.dest.rfind('/'); slash != std::string::npos) {
      dir = slash == 0 ? "/" : opts_.dest.substr(0, slash);
    }
    int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
  }
  EndEpoch();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!st.ok() && error_.ok()) {
      error_ = st;
    }
    stats_.keys = keys;
    stats_.bytes = w.bytes_written();
  }
  if (threads_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finished_.store(true, std::memory_order_release);
  }
}

void SnapshotWalk::Cancel() {
  {
    std::lock_guard<std::mutex> g(rename_mu_);
    if (!cancelled_.exchange(true, std::memory_order_acq_rel) && !renamed_) {
      unlink(tmp_.c_str());  // the writer may still write to it: an unlinked file
    }
  }
  EndEpoch();
  std::lock_guard<std::mutex> g(mu_);
  cv_.notify_all();
  space_cv_.notify_all();
}

void SnapshotWalk::Resume() {
  std::lock_guard<std::mutex> g(mu_);
  paused_ = false;
  space_cv_.notify_all();
}

void SnapshotWalk::Join() {
  for (std::thread& t : walkers_) {
    if (t.joinable()) {
      t.join();
    }
  }
  if (writer_.joinable()) {
    writer_.join();
  }
}

Result<WriteStats> SnapshotWalk::result() {
  std::lock_guard<std::mutex> g(mu_);
  if (!error_.ok()) {
    return error_;
  }
  if (cancelled()) {
    return Status::FailedPrecondition("snapshot cancelled");
  }
  return stats_;
}

}  // namespace hotkv::persistence

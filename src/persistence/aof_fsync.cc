// The AOF's writer thread: draining the write stream into the incr file, fsync by policy,
// and the group commit of appendfsync always (see aof_writer.h).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "engine/keyspace.h"
#include "persistence/aof_base_commands.h"
#include "persistence/aof_impl.h"
#include "persistence/aof_loader.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/persistence_hooks.h"
#include "server/server.h"

namespace hotkv::persistence {

uint64_t Aof::FlushLocked(bool fsync_now) {
  // The records go from the thread buffers to the file in one writev (no copy into a
  // batch of ours: with several workers their records interleave one by one), after
  // what a failed write left (retried first, in order).
  WriteStream& ws = server_.write_stream();
  const uint64_t complete = ws.DrainPieces(&drained_, &cur_db_);
  std::string ts;
  if (timestamps_.load(std::memory_order_relaxed) && drained_.bytes > 0) {
    // aof-timestamp-enabled: a "#TS:<unix seconds>" annotation whenever the second
    // changed since the last one, before the records (as Redis's feedAppendOnlyFile).
    const int64_t sec = WallClockMs() / 1000;
    if (sec != last_ts_) {
      ts = "#TS:" + std::to_string(sec) + "\r\n";
      last_ts_ = sec;
    }
  }
  if (fd_ < 0) {
    unwritten_.clear();
    ws.ReleaseDrained(&drained_);
    return complete;
  }
  iov_.clear();
  if (!unwritten_.empty()) {
    iov_.push_back({unwritten_.data(), unwritten_.size()});
  }
  if (!ts.empty()) {
    iov_.push_back({ts.data(), ts.size()});
  }
  for (const WriteStream::Piece& p : drained_.pieces) {
    iov_.push_back({const_cast<char*>(p.data), p.size});
  }
  const size_t total = unwritten_.size() + ts.size() + drained_.bytes;
  size_t off = 0;
  const int64_t threshold = server_.config().latency_monitor_threshold();
  const int64_t write_start = threshold > 0 ? MonotonicUs() : 0;
  size_t first = 0;  // iov_[first] is the first piece not written whole
  int write_err = 0;
  while (first < iov_.size()) {
    const int count = static_cast<int>(std::min<size_t>(iov_.size() - first, IOV_MAX));
    ssize_t n = writev(fd_, &iov_[first], count);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      write_err = n < 0 ? errno : 0;
      break;
    }
    off += static_cast<size_t>(n);
    for (size_t left = static_cast<size_t>(n); left > 0;) {
      if (left >= iov_[first].iov_len) {
        left -= iov_[first].iov_len;
        first++;
      } else {
        iov_[first].iov_base = static_cast<char*>(iov_[first].iov_base) + left;
        iov_[first].iov_len -= left;
        left = 0;
      }
    }
    while (first < iov_.size() && iov_[first].iov_len == 0) {
      first++;
    }
  }
  if (off < total) {
    // What is left is kept (copied: the pieces go back to the stream) for the retry.
    std::string rest;
    rest.reserve(total - off);
    for (size_t k = first; k < iov_.size(); k++) {
      rest.append(static_cast<const char*>(iov_[k].iov_base), iov_[k].iov_len);
    }
    unwritten_.swap(rest);
  } else {
    unwritten_.clear();
  }
  ws.ReleaseDrained(&drained_);
  if (threshold > 0) {
    server_.latency().AddIfNeeded(threshold, "aof-write", (MonotonicUs() - write_start) / 1000);
  }
  if (off > 0) {
    current_size_.fetch_add(static_cast<int64_t>(off));
    unsynced_ = true;
  }
  if (!unwritten_.empty()) {
    const int err = write_err;
    SetWriteError(err != 0 ? err : ENOSPC);  // a short write with no errno: as Redis
    if (last_write_ok_.exchange(false)) {
      fprintf(stderr, "# Error writing to the AOF file: %s (retrying; %zu bytes kept)\n",
              strerror(err), unwritten_.size());
    }
    if (policy_.load(std::memory_order_relaxed) == kFsyncAlways) {
      // As Redis: a reply must never be sent for a write that is not on disk.
      fprintf(stderr,
              "# Can't recover from AOF write error when the AOF fsync policy is "
              "'always'. Exiting...\n");
      _exit(1);
    }
    return 0;  // not durable: the caller keeps its old durable mark
  }
  if (!last_write_ok_.load(std::memory_order_relaxed)) {
    last_write_ok_.store(true);
    SetWriteError(0);
    fprintf(stderr, "# AOF write error looks solved, HotKV can write again.\n");
  }
  // no-appendfsync-on-rewrite yes: no fsync while a rewrite child writes (the next fsync
  // after it covers everything written meanwhile). As in Redis, the records written are
  // then answered without their fsync (appendfsync always included): the callers take
  // fsync_deferred_ as durable, so no writer waits for the rewrite to end.
  fsync_deferred_ = fsync_now && unsynced_ &&
                    no_fsync_on_rewrite_.load(std::memory_order_relaxed) &&
                    rewrite_in_progress_.load();
  if (fsync_now && unsynced_ && !fsync_deferred_) {
    const int64_t fsync_start = threshold > 0 ? MonotonicUs() : 0;
    const int rc = fdatasync(fd_);
    if (threshold > 0 && policy_.load(std::memory_order_relaxed) == kFsyncAlways) {
      server_.latency().AddIfNeeded(threshold, "aof-fsync-always",
                                    (MonotonicUs() - fsync_start) / 1000);
    }
    if (rc == 0) {
      unsynced_ = false;
      last_fsync_ms_ = WallClockMs();
    }
  }
  return complete;
}

void Aof::SetWriteError(int err) {
  last_write_errno_.store(err);
  // Writes (and PING) get -MISCONF while it is raised (Snapshotter::RejectCommand).
  server_.SetGate(PersistenceHooks::kGateAofWriteError, err != 0);
}

void Aof::WaitDurable(uint64_t seq) {
  if (durable_seq_.load(std::memory_order_acquire) >= seq) {
    return;
  }
  std::lock_guard<std::mutex> io(io_mu_);
  if (durable_seq_.load(std::memory_order_acquire) >= seq) {
    return;  // the fsync of another thread covered these records
  }
  const uint64_t complete = FlushLocked(true);
  if (!unsynced_ || fsync_deferred_) {
    MarkDurable(complete);
  }
}

void Aof::WriterLoop() {
  pthread_setname_np(pthread_self(), "hotkv-aof");  // named in top, perf and /proc
  std::unique_lock<std::mutex> lk(bg_mu_);
  while (!bg_stop_) {
    // Every 2 ms, or at once while workers wait for an fsync (appendfsync always): then
    // the fsyncs go back to back, each covering what was committed during the previous.
    bg_cv_.wait_for(lk, std::chrono::milliseconds(2),
                    [this] { return bg_stop_ || notify_pending_.load() > 0; });
    if (bg_stop_) {
      break;
    }
    lk.unlock();
    const bool waiters = notify_pending_.load() > 0;
    {
      std::lock_guard<std::mutex> io(io_mu_);
      const int policy = policy_.load(std::memory_order_relaxed);
      const int64_t now = WallClockMs();
      // Without waiters, `always` needs only the records no reply waits for (active
      // expiry, evictions) fsynced, once a second like everysec.
      const bool sync = waiters || (policy != kFsyncNo && now - last_fsync_ms_ >= 1000);
      const uint64_t complete = FlushLocked(sync);
      if (!unsynced_ || fsync_deferred_) {
        MarkDurable(complete);
      }
    }
    if (waiters) {
      FireNotifications(false);
    }
    MaybeAutoRewrite();
    lk.lock();
  }
}

bool Aof::IsDurable(uint64_t seq) const {
  return durable_seq_.load(std::memory_order_acquire) >= seq;
}

void Aof::NotifyWhenDurable(uint64_t seq, std::function<void()> done) {
  {
    std::lock_guard<std::mutex> n(notify_mu_);
    if (!IsDurable(seq)) {
      notifications_.emplace_back(seq, std::move(done));
      notify_pending_.fetch_add(1);
      done = nullptr;
    }
  }
  if (done) {
    done();  // durable meanwhile
    return;
  }
  std::lock_guard<std::mutex> b(bg_mu_);
  bg_cv_.notify_one();
}

void Aof::FireNotifications(bool all) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> n(notify_mu_);
    for (size_t i = 0; i < notifications_.size();) {
      if (all || IsDurable(notifications_[i].first)) {
        ready.push_back(std::move(notifications_[i].second));
        notifications_[i] = std::move(notifications_.back());
        notifications_.pop_back();
        notify_pending_.fetch_sub(1);
      } else {
        i++;
      }
    }
  }
  for (auto& fn : ready) {
    fn();
  }
}

}  // namespace hotkv::persistence

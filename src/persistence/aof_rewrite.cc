// AOF bases and rewrites: the forked child that writes a base, the manifest swaps, the
// automatic rewrite and its back-off, and the upgrade of a Redis < 7 single file.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "engine/keyspace.h"
#include "engine/vector_set_value.h"
#include "persistence/aof_base_commands.h"
#include "persistence/aof_impl.h"
#include "persistence/aof_loader.h"
#include "persistence/snapshot_writer.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace hotkv::persistence {

Status Aof::UpgradeLegacyFile(const std::string& manifest_path) {
  // A single-file AOF of Redis < 7 (<dir>/<appendfilename>) becomes the base of the
  // multi-part layout, as Redis 7's aofUpgradePrepare does: moved into the directory under
  // its own name and named as the base in a new manifest.
  std::string dir = server_.config().GetString("dir");
  if (dir.empty()) {
    dir = ".";
  }
  const std::string legacy = dir + "/" + prefix_;
  struct stat st;
  if (stat(legacy.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::Ok();
  }
  if (rename(legacy.c_str(), (dir_ + "/" + prefix_).c_str()) != 0) {
    return Status::IoError("Error moving the old AOF file " + legacy + " into " + dir_ + ": " +
                           strerror(errno));
  }
  AofManifest m;
  m.base = {prefix_, 1, 'b'};
  m.cur_base_seq = 1;
  const size_t slash = manifest_path.rfind('/');
  if (Status s = WriteFileAtomically(dir_, manifest_path.substr(slash + 1), m.Format()); !s.ok()) {
    return s;
  }
  fprintf(stdout, "Successfully migrated an old-style AOF into the AOF directory (%s)\n",
          dir_.c_str());
  fflush(stdout);
  return Status::Ok();
}

Status Aof::OpenIncr(const std::string& name) {
  const std::string path = dir_ + "/" + name;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError("Can't open the append-only file " + path + ": " + strerror(errno));
  }
  std::lock_guard<std::mutex> io(io_mu_);
  if (fd_ >= 0) {
    close(fd_);
  }
  fd_ = fd;
  cur_db_ = -1;  // a new file starts with a SELECT
  return Status::Ok();
}

Status Aof::WriteRdbBase(const std::string& path, const BaseOptions& opts) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError("Can't create the AOF base " + path + ": " + strerror(errno));
  }
  AccessStamp stamp;
  stamp.key_delay_us = opts.key_delay_us;
  WriteStats stats;
  Status st = WriteSnapshot(server_.keyspace(), fd,
                            {.compress = opts.compress,
                             .checksum = opts.checksum,
                             .version = g_field_ttls_seen.load(std::memory_order_relaxed)
                                            ? rdb::kFieldExpiryVersion
                                            : rdb::kWriteVersion},
                            WallClockMs(),
                            stamp, &stats, /*aof_base=*/true);
  if (st.ok() && fsync(fd) != 0) {
    st = Status::IoError("fsync " + path + ": " + strerror(errno));
  }
  close(fd);
  return st;
}

Status Aof::NewBase(bool fresh, bool base_only) {
  WriteStream& ws = server_.write_stream();
  Keyspace& ks = server_.keyspace();
  const int64_t base_seq = manifest_.cur_base_seq + 1;
  const int64_t incr_seq = manifest_.cur_incr_seq + 1;
  // aof-use-rdb-preamble yes: an RDB base (.base.rdb); no: commands (.base.aof).
  const bool rdb_base = server_.config().GetString("aof-use-rdb-preamble") != "no";
  const std::string base_name = AofManifest::BaseName(prefix_, base_seq, rdb_base);
  const std::string incr_name = AofManifest::IncrName(prefix_, incr_seq);
  const std::string incr_path = dir_ + "/" + incr_name;
  int new_fd = base_only ? -1
                         : open(incr_path.c_str(),
                                O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (new_fd < 0 && !base_only) {
    return Status::IoError("Can't open the append-only file " + incr_path + ": " + strerror(errno));
  }
  if (!fresh && !base_only) {
    // A rewrite: the manifest names the new incr file before anything goes into it, so a
    // crash at any point leaves a manifest that covers every write (Redis does the same).
    AofManifest mid = manifest_;
    mid.cur_incr_seq = incr_seq;
    mid.incrs.push_back({incr_name, incr_seq, 'i'});
    if (Status st = InstallManifest(mid); !st.ok()) {
      close(new_fd);
      return st;
    }
  }
  // The barrier: with every shard locked no command is half done, so the image the child
  // gets is consistent and every record committed so far predates it. Those go to the old
  // incr file (a rewrite) or are dropped (a fresh AOF: the base holds them); every later
  // one goes to the new incr file.
  const BaseOptions opts{
      server_.config().GetString("rdbcompression") != "no",
      server_.config().GetString("rdbchecksum") != "no",
      std::max<int64_t>(0, std::stoll(server_.config().GetString("rdb-key-save-delay")))};
  const std::string tmp =
      dir_ + "/temp-rewriteaof-bg-" + std::to_string(getpid()) + (rdb_base ? ".rdb" : ".aof");
  // One child at a time (as Redis): a running BGSAVE child is waited for. The slot may
  // be ours already (the rewriter thread claims it first; AOF work is under ctl_mu_).
  while (server_.active_child() != Server::ChildKind::kAof &&
         !server_.TryClaimChild(Server::ChildKind::kAof)) {
    if (stopping_.load()) {
      if (new_fd >= 0) {
        close(new_fd);
      }
      return Status::IoError("AOF rewrite: the server is shutting down");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  struct SlotGuard {
    Server& s;
    ~SlotGuard() { s.ReleaseChild(Server::ChildKind::kAof); }
  } slot{server_};
  rewrite_scheduled_.store(false);
  const int64_t now_ms = WallClockMs();
  const int64_t t0 = MonotonicNs();
  ks.LockAll();
  // Vector writes run outside their shard lock (VADD's HNSW insert): none can start now;
  // wait for those running to finish so that the child's image holds no half-linked node.
  const int64_t vector_deadline = MonotonicUs() + 10 * 1000 * 1000;
  while (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
    if (MonotonicUs() > vector_deadline) {
      ks.UnlockAll();
      if (new_fd >= 0) {
        close(new_fd);
      }
      return Status::IoError("AOF rewrite: vector writes did not finish within 10 s");
    }
    std::this_thread::yield();
  }
  // io_mu_ is held from the switch to the new incr file until the old one is fsynced
  // (after the barrier, below): no record of the new file can be marked durable before
  // every record of the old one is on disk.
  std::unique_lock<std::mutex> io(io_mu_, std::defer_lock);
  int old_fd = -1;
  uint64_t barrier_seq = 0;
  if (!base_only) {
    io.lock();
    // Everything drained from here on is after the barrier; what came before is in the
    // base, so what a failed write left behind may go too.
    barrier_seq = ws.last_seq();
    if (!fresh && fd_ >= 0) {
      // Written now, fsynced once the shards are unlocked: an fsync here held every
      // worker for as long as the disk took to write up to a second of records (they
      // spun on the shard locks meanwhile; Redis fsyncs the old file in the background).
      (void)FlushLocked(false);
      old_fd = fd_;
    } else if (fd_ >= 0) {
      close(fd_);
    }
    std::string discard;
    int db = -1;
    (void)ws.Drain(&discard, &db);  // nothing when the flush went well
    unwritten_.clear();
    fd_ = new_fd;
    cur_db_ = -1;
    last_ts_ = 0;
  }
  const int64_t t_fork = MonotonicNs();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: a copy-on-write image of every shard. No lock, no stdio, no config.
    // It dies with the server (a kill -9 must not leave it writing a temp file).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    Status st = rdb_base ? WriteRdbBase(tmp, opts) : WriteCommandBase(tmp, ks, now_ms);
    _exit(st.ok() ? 0 : 1);
  }
  const int fork_errno = errno;
  const int64_t fork_us = (MonotonicNs() - t_fork) / 1000;
  ks.UnlockAll();
  last_fork_us_.store((MonotonicNs() - t0) / 1000);
  if (io.owns_lock()) {
    // The old incr file's records: on disk before anything later counts as durable (a
    // fresh AOF's records before the barrier are dropped: the base holds them).
    if (old_fd >= 0) {
      if (unsynced_ && !(no_fsync_on_rewrite_.load() && rewrite_in_progress_.load())) {
        (void)fdatasync(old_fd);
      }
      close(old_fd);
    }
    unsynced_ = false;  // the new file holds nothing yet
    MarkDurable(barrier_seq);
    io.unlock();
  }
  if (pid >= 0) {
    server_.RecordFork(fork_us);
  }
  if (pid < 0) {
    return Status::IoError(std::string("Can't rewrite append only file in background: fork: ") +
                           strerror(fork_errno));
  }
  fprintf(stdout,
          "Background append only file rewriting started by pid %d (shard barrier + "
          "fork: %lld us)\n",
          static_cast<int>(pid), static_cast<long long>(last_fork_us_.load()));
  fflush(stdout);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    unlink(tmp.c_str());
    return Status::IoError("the AOF rewrite child failed writing " + tmp +
                           " (a vector set with no Redis form, or an I/O error)");
  }
  if (rename(tmp.c_str(), (dir_ + "/" + base_name).c_str()) != 0) {
    return Status::IoError("rename " + tmp + ": " + strerror(errno));
  }
  AofManifest next = manifest_;
  for (const AofFileInfo& f : manifest_.incrs) {
    if (f.name != incr_name) {
      next.history.push_back({f.name, f.seq, 'h'});
    }
  }
  if (!manifest_.base.name.empty()) {
    next.history.push_back({manifest_.base.name, manifest_.base.seq, 'h'});
  }
  next.cur_base_seq = base_seq;
  next.cur_incr_seq = incr_seq;
  next.base = {base_name, base_seq, 'b'};
  next.incrs = {{incr_name, incr_seq, 'i'}};
  if (base_only) {
    for (const AofFileInfo& f : manifest_.incrs) {
      next.history.push_back({f.name, f.seq, 'h'});
    }
    next.incrs.clear();
    next.cur_incr_seq = manifest_.cur_incr_seq;
  }
  return InstallManifest(next);
}

Status Aof::InstallManifest(const AofManifest& next) {
  AofManifest to_write = next;
  std::vector<AofFileInfo> history = std::move(to_write.history);
  to_write.history.clear();
  if (Status st = WriteFileAtomically(dir_, AofManifest::ManifestName(prefix_), to_write.Format());
      !st.ok()) {
    return st;
  }
  // The old files are history now: deleted, as Redis does once the new manifest is in.
  for (const AofFileInfo& f : history) {
    unlink((dir_ + "/" + f.name).c_str());
  }
  manifest_ = std::move(to_write);
  int64_t total = FileSize(dir_ + "/" + manifest_.base.name);
  for (const AofFileInfo& f : manifest_.incrs) {
    total += FileSize(dir_ + "/" + f.name);
  }
  current_size_.store(total);
  return Status::Ok();
}

void Aof::MaybeAutoRewrite() {
  const int64_t now = WallClockMs();
  if (now < next_auto_check_ms_ || rewrite_job_.load()) {
    return;
  }
  next_auto_check_ms_ = now + 100;  // the config is read ten times a second, not per round
  // After failures, as Redis's aofRewriteLimited: the next automatic try waits 1 s for the
  // first three, then 1 min doubling up to 1 h (BGREWRITEAOF is never held back).
  const int64_t failures = rewrite_failures_.load();
  if (failures > 0) {
    const int64_t wait =
        failures < 3 ? 1000
                     : std::min<int64_t>(3600000, 60000LL << std::min<int64_t>(failures - 3, 6));
    if (now < last_rewrite_end_ms_.load() + wait) {
      return;
    }
  }
  Config& c = server_.config();
  const int64_t pct = std::stoll(c.GetString("auto-aof-rewrite-percentage"));
  if (pct <= 0) {
    return;
  }
  const int64_t min_size = std::stoll(c.GetString("auto-aof-rewrite-min-size"));
  const int64_t cur = current_size_.load();
  const int64_t base = std::max<int64_t>(1, base_size_.load());
  bool scheduled = false;
  if (server_.active_child() != Server::ChildKind::kNone) {
    return;  // as Redis's cron: no automatic rewrite while a child (BGSAVE) runs
  }
  if (cur >= min_size && (cur - base) * 100 / base >= pct && Rewrite(&scheduled).ok()) {
    // On the rewriter thread: this one goes on writing the stream meanwhile.
    fprintf(stdout, "Starting automatic rewriting of AOF on %lld%% growth\n",
            static_cast<long long>(pct));
    fflush(stdout);
  }
}

Status Aof::Rewrite(bool* scheduled) {
  *scheduled = false;
  if (rewrite_in_progress_.load()) {
    return Status::FailedPrecondition(
        "ERR Background append only file rewriting already in progress");
  }
  if (rewrite_job_.exchange(true)) {
    *scheduled = true;  // a rewrite is already waiting for the BGSAVE child
    return Status::Ok();
  }
  if (server_.active_child() != Server::ChildKind::kNone) {
    // One child at a time, as Redis: it starts once the BGSAVE child is done.
    rewrite_scheduled_.store(true);
    *scheduled = true;
  }
  rewrite_start_ms_.store(WallClockMs());
  std::lock_guard<std::mutex> g(rewriter_mu_);
  if (rewriter_.joinable()) {
    rewriter_.join();
  }
  rewriter_ = std::thread([this] {
    // Its own name (it would inherit the AOF thread's), and so has the child it forks.
    pthread_setname_np(pthread_self(), "hotkv-aof-rw");
    // Wait for a BGSAVE child outside ctl_mu_ (CONFIG SET goes on meanwhile), then hold
    // the child slot from here on, so that no BGSAVE starts before this fork.
    while (!server_.TryClaimChild(Server::ChildKind::kAof) && !stopping_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!stopping_.load()) {
      rewrite_in_progress_.store(true);
      rewrite_scheduled_.store(false);
      std::lock_guard<std::mutex> c(ctl_mu_);
      (void)RewriteLocked();
    }
    server_.ReleaseChild(Server::ChildKind::kAof);
    rewrite_scheduled_.store(false);
    rewrite_in_progress_.store(false);
    rewrite_job_.store(false);
  });
  return Status::Ok();
}

Status Aof::RewriteLocked() {
  const int64_t t0 = WallClockMs();
  rewrite_start_ms_.store(t0);
  Status st;
  if (enabled()) {
    st = NewBase(/*fresh=*/false);
  } else {
    // appendonly off: a one-off base in the AOF directory, as Redis's BGREWRITEAOF.
    ReadConfig();
    const std::string manifest_path = dir_ + "/" + AofManifest::ManifestName(prefix_);
    if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
      st = Status::IoError("Can't open or create append-only dir " + dir_ + ": " + strerror(errno));
    } else if (Result<std::string> text = ReadWholeFile(manifest_path); text.ok()) {
      Result<AofManifest> m = AofManifest::Parse(text.value(), manifest_path);
      if (m.ok()) {
        manifest_ = std::move(m).value();
      }
    }
    if (st.ok()) {
      st = NewBase(/*fresh=*/true, /*base_only=*/true);
    }
  }
  last_rewrite_sec_.store((WallClockMs() - t0) / 1000);
  last_rewrite_end_ms_.store(WallClockMs());
  if (st.ok()) {
    rewrites_.fetch_add(1);
    rewrite_failures_.store(0);
    base_size_.store(current_size_.load());
    fprintf(stdout, "Background AOF rewrite finished successfully\n");
  } else {
    rewrite_failures_.fetch_add(1);
    fprintf(stderr, "# Background AOF rewrite failed: %s\n", st.message().c_str());
  }
  fflush(stdout);
  last_rewrite_ok_.store(st.ok());
  rewrite_in_progress_.store(false);
  return st;
}

}  // namespace hotkv::persistence

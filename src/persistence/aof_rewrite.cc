// AOF bases and rewrites: the forked child that writes a base, the manifest swaps, the
// automatic rewrite and its back-off, and the upgrade of a Redis < 7 single file.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "engine/keyspace.h"
#include "engine/vector_set_value.h"
#include "persistence/aof_base_commands.h"
#include "persistence/aof_impl.h"
#include "persistence/aof_loader.h"
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
  Keyspace& ks = server_.keyspace();
  const int64_t now = WallClockMs();
  rdb::FileWriter w(fd, {.compress = opts.compress, .checksum = opts.checksum});
  Status st = w.Begin({{"redis-ver", "7.0.15"},
                       {"redis-bits", "64"},
                       {"ctime", std::to_string(now / 1000)},
                       {"used-mem", "0"},
                       {"aof-base", "1"}});
  for (int db = 0; st.ok() && db < ks.num_dbs(); db++) {
    uint64_t keys = 0, with_ttl = 0;
    for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
      const DbTable& t = ks.shard(i).db(db);
      keys += t.keys.size();
      with_ttl += t.expires();
    }
    if (keys == 0) {
      continue;
    }
    st = w.SelectDb(db, keys, with_ttl);
    for (uint32_t i = 0; st.ok() && i < Keyspace::kShardCount; i++) {
      ks.shard(i).db(db).keys.ForEach([&](Entry* e) {
        if (!st.ok()) {
          return;
        }
        const int64_t exp = e->has_ttl() ? e->expire_ms() : -1;
        st = w.WriteKey(*e, exp);
      });
    }
  }
  if (st.ok()) {
    st = w.Finish();
  }
  if (st.ok() && fsync(fd) != 0) {
    st = Status::IoError("fsync " + path + ": " + strerror(errno));
  }
  close(fd);
  return st;
}

Status Aof::NewBase(bool fresh) {
  WriteStream& ws = server_.write_stream();
  Keyspace& ks = server_.keyspace();
  const int64_t base_seq = manifest_.cur_base_seq + 1;
  const int64_t incr_seq = manifest_.cur_incr_seq + 1;
  // aof-use-rdb-preamble yes: an RDB base (.base.rdb); no: commands (.base.aof).
  const bool rdb_base = server_.config().GetString("aof-use-rdb-preamble") != "no";
  const std::string base_name = AofManifest::BaseName(prefix_, base_seq, rdb_base);
  const std::string incr_name = AofManifest::IncrName(prefix_, incr_seq);
  const std::string incr_path = dir_ + "/" + incr_name;
  int new_fd = open(incr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (new_fd < 0) {
    return Status::IoError("Can't open the append-only file " + incr_path + ": " + strerror(errno));
  }
  if (!fresh) {
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
  const BaseOptions opts{server_.config().GetString("rdbcompression") != "no",
                         server_.config().GetString("rdbchecksum") != "no"};
  const std::string tmp =
      dir_ + "/temp-rewriteaof-bg-" + std::to_string(getpid()) + (rdb_base ? ".rdb" : ".aof");
  const int64_t now_ms = WallClockMs();
  const int64_t t0 = MonotonicNs();
  ks.LockAll();
  // Vector writes run outside their shard lock (VADD's HNSW insert): none can start now;
  // wait for those running to finish so that the child's image holds no half-linked node.
  const int64_t vector_deadline = MonotonicUs() + 10 * 1000 * 1000;
  while (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
    if (MonotonicUs() > vector_deadline) {
      ks.UnlockAll();
      close(new_fd);
      return Status::IoError("AOF rewrite: vector writes did not finish within 10 s");
    }
    std::this_thread::yield();
  }
  {
    std::lock_guard<std::mutex> io(io_mu_);
    // Everything drained from here on is after the barrier; what came before is in the
    // base, so what a failed write left behind may go too.
    const uint64_t barrier_seq = ws.last_seq();
    if (!fresh && fd_ >= 0) {
      (void)FlushLocked(true);
    }
    std::string discard;
    int db = -1;
    (void)ws.Drain(&discard, &db);  // nothing when the flush went well
    unwritten_.clear();
    MarkDurable(barrier_seq);
    if (fd_ >= 0) {
      close(fd_);
    }
    fd_ = new_fd;
    cur_db_ = -1;
    last_ts_ = 0;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: a copy-on-write image of every shard. No lock, no stdio, no config.
    // It dies with the server (a kill -9 must not leave it writing a temp file).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    Status st = rdb_base ? WriteRdbBase(tmp, opts) : WriteCommandBase(tmp, ks, now_ms);
    _exit(st.ok() ? 0 : 1);
  }
  const int fork_errno = errno;
  ks.UnlockAll();
  last_fork_us_.store((MonotonicNs() - t0) / 1000);
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
                           " (vector sets are not written to RDB yet, or an I/O error)");
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
  if (now < next_auto_check_ms_ || rewrite_in_progress_.load()) {
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
  if (cur >= min_size && (cur - base) * 100 / base >= pct && Rewrite().ok()) {
    // On the rewriter thread: this one goes on writing the stream meanwhile.
    fprintf(stdout, "Starting automatic rewriting of AOF on %lld%% growth\n",
            static_cast<long long>(pct));
    fflush(stdout);
  }
}

Status Aof::Rewrite() {
  if (!enabled()) {
    // Redis writes a fresh AOF even when appendonly is off; HotKV needs it on.
    return Status::FailedPrecondition("ERR BGREWRITEAOF needs appendonly yes in HotKV");
  }
  if (rewrite_in_progress_.exchange(true)) {
    return Status::FailedPrecondition(
        "ERR Background append only file rewriting already in progress");
  }
  rewrite_start_ms_.store(WallClockMs());
  std::lock_guard<std::mutex> g(rewriter_mu_);
  if (rewriter_.joinable()) {
    rewriter_.join();
  }
  rewriter_ = std::thread([this] {
    std::lock_guard<std::mutex> c(ctl_mu_);
    if (!enabled()) {
      rewrite_in_progress_.store(false);
      return;
    }
    (void)RewriteLocked();
  });
  return Status::Ok();
}

Status Aof::RewriteLocked() {
  const int64_t t0 = WallClockMs();
  rewrite_start_ms_.store(t0);
  Status st = NewBase(/*fresh=*/false);
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

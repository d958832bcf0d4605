// The append-only file service: start-up, the writer thread, group commit, bases and
// rewrites, INFO. See aof_writer.h.
#include "persistence/aof_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "engine/keyspace.h"
#include "persistence/aof_base_commands.h"
#include "persistence/aof_loader.h"
#include "persistence/aof_manifest.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace hotkv::persistence {

namespace {

enum FsyncPolicy { kFsyncNo = 0, kFsyncEverysec = 1, kFsyncAlways = 2 };

int PolicyFrom(const std::string& v) {
  return v == "always" ? kFsyncAlways : v == "no" ? kFsyncNo : kFsyncEverysec;
}

Status WriteAll(int fd, std::string_view data, const std::string& what) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return Status::IoError("write " + what + ": " + strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

int64_t FileSize(const std::string& path) {
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
  Status Rewrite() override;
  bool enabled() const override { return enabled_.load(std::memory_order_acquire); }
  std::string InfoFields() override;

 private:
  void ReadConfig();
  Status Enable(bool at_startup);
  void Disable();
  // ctl_mu_ held: a new base and incr file. Every shard is locked for the switch to the
  // new incr file and the fork; the child writes the base while the workers serve; then
  // the manifest is swapped. `fresh`: no AOF yet (records so far are dropped: the base
  // holds them), else a rewrite (they go to the old incr file).
  Status NewBase(bool fresh);
  struct BaseOptions {
    bool compress;
    bool checksum;
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
  int64_t last_ts_ = 0;    // the last #TS annotation written
  std::atomic<bool> timestamps_{false};
  std::atomic<bool> no_fsync_on_rewrite_{false};
  bool unsynced_ = false;
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
  std::atomic<bool> rewrite_in_progress_{false};
  std::atomic<int64_t> rewrites_{0};
  std::atomic<int64_t> rewrite_failures_{0};
  std::atomic<int64_t> last_rewrite_sec_{-1};
  std::atomic<uint64_t> delayed_fsync_{0};
  std::atomic<int64_t> last_fork_us_{0};
  std::atomic<int64_t> last_rewrite_end_ms_{0};
  int64_t next_auto_check_ms_ = 0;  // writer thread only
  std::thread writer_;
  std::mutex rewriter_mu_;
  std::thread rewriter_;  // BGREWRITEAOF's
  std::vector<std::thread> enablers_;  // CONFIG SET appendonly yes inside EXEC
  std::mutex notify_mu_;
  std::vector<std::pair<uint64_t, std::function<void()>>> notifications_;
  std::atomic<int> notify_pending_{0};
  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  bool bg_stop_ = false;
};

void Aof::ReadConfig() {
  Config& c = server_.config();
  if (!enabled()) {
    // The directory is fixed while the files are open (a CONFIG SET dir applies to the
    // next time the AOF is turned on).
    std::string dir = c.GetString("dir");
    if (dir.empty()) {
      dir = ".";
    }
    dir_ = dir + "/" + c.GetString("appenddirname");
    prefix_ = c.GetString("appendfilename");
  }
  policy_.store(PolicyFrom(c.GetString("appendfsync")), std::memory_order_relaxed);
  timestamps_.store(c.GetString("aof-timestamp-enabled") == "yes", std::memory_order_relaxed);
  no_fsync_on_rewrite_.store(c.GetString("no-appendfsync-on-rewrite") == "yes",
                             std::memory_order_relaxed);
}

Status Aof::Start() {
  std::lock_guard<std::mutex> g(ctl_mu_);
  ReadConfig();
  if (server_.config().GetString("appendonly") != "yes") {
    return Status::Ok();
  }
  return Enable(true);
}

Status Aof::Enable(bool at_startup) {
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::IoError("Can't open or create append-only dir " + dir_ + ": " +
                           strerror(errno));
  }
  const std::string manifest_path = dir_ + "/" + AofManifest::ManifestName(prefix_);
  if (at_startup && access(manifest_path.c_str(), F_OK) != 0) {
    if (Status st = UpgradeLegacyFile(manifest_path); !st.ok()) {
      return st;
    }
  }
  Result<std::string> text = ReadWholeFile(manifest_path);
  WriteStream& ws = server_.write_stream();
  if (at_startup && text.ok()) {
    Result<AofManifest> m = AofManifest::Parse(text.value(), manifest_path);
    if (!m.ok()) {
      return m.status();
    }
    manifest_ = std::move(m).value();
    const bool truncated_ok = server_.config().GetString("aof-load-truncated") == "yes";
    const int64_t t0 = WallClockMs();
    Result<AofLoadReport> r =
        LoadAofDirectory(server_, server_.worker(0), dir_, manifest_, truncated_ok);
    if (!r.ok()) {
      return r.status();
    }
    fprintf(stdout, "DB loaded from append only file: %.3f seconds (%llu keys from the base, "
            "%llu commands)\n",
            static_cast<double>(WallClockMs() - t0) / 1000.0,
            static_cast<unsigned long long>(r.value().keys_from_rdb),
            static_cast<unsigned long long>(r.value().commands));
    fflush(stdout);
    AofManifest next = manifest_;
    if (next.incrs.empty()) {
      next.cur_incr_seq++;
      next.incrs.push_back({AofManifest::IncrName(prefix_, next.cur_incr_seq),
                            next.cur_incr_seq, 'i'});
    }
    ws.AddConsumer();
    if (Status st = OpenIncr(next.incrs.back().name); !st.ok()) {
      ws.RemoveConsumer();
      return st;
    }
    if (Status st = InstallManifest(next); !st.ok()) {
      ws.RemoveConsumer();
      return st;
    }
  } else if (!text.ok() && text.status().code() != StatusCode::kNotFound) {
    return text.status();
  } else {
    // No AOF yet (or turned on at run time): a base of the data there is, then appends.
    if (text.ok()) {
      Result<AofManifest> m = AofManifest::Parse(text.value(), manifest_path);
      if (m.ok()) {
        manifest_ = std::move(m).value();  // its seqs go on; its files become history
      }
    }
    ws.AddConsumer();
    Status st = NewBase(/*fresh=*/true);
    if (!st.ok()) {
      ws.RemoveConsumer();
      std::lock_guard<std::mutex> io(io_mu_);
      if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
      }
      return st;
    }
  }
  base_size_.store(current_size_.load());
  enabled_.store(true, std::memory_order_release);
  server_.set_aof_sync_always(policy_.load() == kFsyncAlways);
  {
    std::lock_guard<std::mutex> b(bg_mu_);
    bg_stop_ = false;
  }
  writer_ = std::thread([this] { WriterLoop(); });
  return Status::Ok();
}

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
    return Status::IoError("Can't open the append-only file " + incr_path + ": " +
                           strerror(errno));
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
  const std::string tmp = dir_ + "/temp-rewriteaof-bg-" + std::to_string(getpid()) +
                          (rdb_base ? ".rdb" : ".aof");
  const int64_t now_ms = WallClockMs();
  const int64_t t0 = MonotonicNs();
  ks.LockAll();
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
  fprintf(stdout, "Background append only file rewriting started by pid %d (shard barrier + "
          "fork: %lld us)\n", static_cast<int>(pid), static_cast<long long>(last_fork_us_.load()));
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

uint64_t Aof::FlushLocked(bool fsync_now) {
  // New records go after what a failed write left (retried first, in order).
  uint64_t complete;
  if (!timestamps_.load(std::memory_order_relaxed)) {
    complete = server_.write_stream().Drain(&unwritten_, &cur_db_);
  } else {
    // aof-timestamp-enabled: a "#TS:<unix seconds>" annotation whenever the second
    // changed since the last one, before the records (as Redis's feedAppendOnlyFile).
    std::string batch;
    complete = server_.write_stream().Drain(&batch, &cur_db_);
    const int64_t sec = WallClockMs() / 1000;
    if (!batch.empty() && sec != last_ts_) {
      unwritten_ += "#TS:" + std::to_string(sec) + "\r\n";
      last_ts_ = sec;
    }
    unwritten_ += batch;
  }
  if (fd_ < 0) {
    unwritten_.clear();
    return complete;
  }
  size_t off = 0;
  while (off < unwritten_.size()) {
    ssize_t n = write(fd_, unwritten_.data() + off, unwritten_.size() - off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    off += static_cast<size_t>(n);
  }
  if (off > 0) {
    current_size_.fetch_add(static_cast<int64_t>(off));
    unsynced_ = true;
  }
  if (off < unwritten_.size()) {
    const int err = errno;
    unwritten_.erase(0, off);
    if (last_write_ok_.exchange(false)) {
      fprintf(stderr, "# Error writing to the AOF file: %s (retrying; %zu bytes kept)\n",
              strerror(err), unwritten_.size());
    }
    if (policy_.load(std::memory_order_relaxed) == kFsyncAlways) {
      // As Redis: a reply must never be sent for a write that is not on disk.
      fprintf(stderr, "# Can't recover from AOF write error when the AOF fsync policy is "
              "'always'. Exiting...\n");
      _exit(1);
    }
    return 0;  // not durable: the caller keeps its old durable mark
  }
  unwritten_.clear();
  if (!last_write_ok_.load(std::memory_order_relaxed)) {
    last_write_ok_.store(true);
    fprintf(stderr, "# AOF write error looks solved, HotKV can write again.\n");
  }
  // no-appendfsync-on-rewrite yes: no fsync while a rewrite child writes (the next fsync
  // after it covers everything written meanwhile).
  if (fsync_now && unsynced_ &&
      !(no_fsync_on_rewrite_.load(std::memory_order_relaxed) && rewrite_in_progress_.load())) {
    if (fdatasync(fd_) == 0) {
      unsynced_ = false;
      last_fsync_ms_ = WallClockMs();
    }
  }
  return complete;
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
  if (!unsynced_) {
    MarkDurable(complete);
  }
}

void Aof::WriterLoop() {
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
      if (!unsynced_) {
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
        failures < 3 ? 1000 : std::min<int64_t>(3600000, 60000LL << std::min<int64_t>(failures - 3, 6));
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

void Aof::Disable() {
  if (!enabled_.exchange(false)) {
    return;
  }
  server_.set_aof_sync_always(false);
  {
    std::lock_guard<std::mutex> b(bg_mu_);
    bg_stop_ = true;
  }
  bg_cv_.notify_all();
  if (writer_.joinable()) {
    writer_.join();
  }
  std::lock_guard<std::mutex> io(io_mu_);
  MarkDurable(FlushLocked(true));
  server_.write_stream().RemoveConsumer();
  FireNotifications(true);  // waiting replies go (aof_sync_always() is off now)
  // Records committed between the flush and RemoveConsumer are dropped with the buffers
  // at the next enable (its base holds them).
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
}

void Aof::Stop() {
  {
    std::lock_guard<std::mutex> r(rewriter_mu_);
    if (rewriter_.joinable()) {
      rewriter_.join();
    }
  }
  {
    std::lock_guard<std::mutex> g(ctl_mu_);
    Disable();
  }
  // The writer may have started one more rewrite before it stopped (it finds the AOF off).
  std::lock_guard<std::mutex> r(rewriter_mu_);
  if (rewriter_.joinable()) {
    rewriter_.join();
  }
  for (std::thread& t : enablers_) {
    t.join();
  }
  enablers_.clear();
}

Status Aof::Reconfigure() {
  std::lock_guard<std::mutex> g(ctl_mu_);
  const bool want = server_.config().GetString("appendonly") == "yes";
  if (enabled()) {
    // What was written before the change is written under the old settings.
    std::lock_guard<std::mutex> io(io_mu_);
    (void)FlushLocked(false);
  }
  ReadConfig();
  if (want && !enabled()) {
    if (HoldsAnyShard()) {
      // CONFIG SET inside EXEC: this thread holds shard locks the base's barrier needs,
      // so the AOF is turned on by the rewriter thread once EXEC has let them go.
      // (Never join a thread here: they take ctl_mu_, which this one holds.)
      std::lock_guard<std::mutex> r(rewriter_mu_);
      enablers_.emplace_back([this] {
        std::lock_guard<std::mutex> c(ctl_mu_);
        if (!enabled() && server_.config().GetString("appendonly") == "yes") {
          if (Status st = Enable(false); !st.ok()) {
            fprintf(stderr, "# %s\n", st.message().c_str());
          }
        }
      });
      return Status::Ok();
    }
    return Enable(false);
  }
  if (!want && enabled()) {
    Disable();
    return Status::Ok();
  }
  server_.set_aof_sync_always(enabled() && policy_.load() == kFsyncAlways);
  return Status::Ok();
}

bool Aof::HoldsAnyShard() {
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    if (ThisThreadHoldsShard(i)) {
      return true;
    }
  }
  return false;
}

std::string Aof::InfoFields() {
  std::string o;
  auto add = [&](const char* k, const std::string& v) { o += std::string(k) + ":" + v + "\r\n"; };
  auto num = [&](const char* k, int64_t v) { add(k, std::to_string(v)); };
  const bool on = enabled();
  num("aof_enabled", on ? 1 : 0);
  num("aof_rewrite_in_progress", rewrite_in_progress_.load() ? 1 : 0);
  num("aof_rewrite_scheduled", 0);
  num("aof_last_rewrite_time_sec", last_rewrite_sec_.load());
  num("aof_current_rewrite_time_sec", -1);
  add("aof_last_bgrewrite_status", last_rewrite_ok_.load() ? "ok" : "err");
  num("aof_rewrites", rewrites_.load());
  num("aof_rewrites_consecutive_failures", rewrite_failures_.load());
  add("aof_last_write_status", last_write_ok_.load() ? "ok" : "err");
  num("aof_last_cow_size", 0);
  num("module_fork_in_progress", 0);
  num("module_fork_last_cow_size", 0);
  if (on) {
    num("aof_current_size", current_size_.load());
    num("aof_base_size", base_size_.load());
    num("aof_pending_rewrite", 0);
    num("aof_buffer_length", 0);
    num("aof_pending_bio_fsync", 0);
    num("aof_delayed_fsync", static_cast<int64_t>(delayed_fsync_.load()));
  }
  return o;
}

}  // namespace

std::unique_ptr<AofService> MakeAofService(Server& server) {
  return std::make_unique<Aof>(server);
}

}  // namespace hotkv::persistence

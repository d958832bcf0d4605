// SnapshotWalk: fork-less point-in-time snapshots (see snapshot_walk.h).
#include "persistence/snapshot_walk.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "common/clock.h"
#include "common/key_hash.h"

namespace hotkv::persistence {

namespace {

// Chunks waiting for the writer: walkers pause above this (hooks on client threads
// never wait).
constexpr size_t kMaxQueuedBytes = 64u << 20;
// The writer is woken once this much is queued (or at the end, or for a large key's
// slices), not for every chunk: a wake-up per chunk (~20k a second, each a futex call
// on the walker and a context switch on a core the workers use) competed with the
// workers. Between wake-ups it looks every kWriterPollMs anyway, which also picks up
// the keys client threads saved (they never wake it: that would cost their command a
// system call).
constexpr size_t kWakeWriterBytes = 1u << 20;
constexpr int kWriterPollMs = 10;

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
    w->mark_ = static_cast<uint8_t>(g_entry_snapshot_mark.load(std::memory_order_relaxed) ^
                                    Entry::kSnapshotMark);
    g_entry_snapshot_mark.store(w->mark_, std::memory_order_relaxed);
    w->progress_.reset(new Progress[Keyspace::kShardCount]);
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

bool SnapshotWalk::SaveEntry(rdb::ChunkEncoder& enc, int db, int* selected_db, Entry* e,
                             Chunk* c, Status* err, Progress* open_into) {
  if (!opts_.locks_held) {
    if (e->snapshot_mark() == mark_) {
      return true;  // saved already, or created after the barrier
    }
    e->set_snapshot_mark(mark_);
    if (cancelled_.load(std::memory_order_relaxed)) {
      return true;  // a cancelled walk only marks
    }
  }
  int64_t expire_ms = -1;
  if (e->has_ttl()) {
    expire_ms = e->expire_ms();
    if (expire_ms <= opts_.now_ms) {
      return true;  // expired at the barrier: not saved, as the fork path
    }
  }
  std::optional<uint64_t> idle;
  std::optional<uint8_t> freq;
  AccessFields(opts_.access, e, &idle, &freq);
  if (open_into != nullptr && open_into->open == nullptr && expire_ms < 0 &&
      rdb::SlicedKeyEncoder::Sliceable(*e) &&
      rdb::SlicedKeyEncoder::Elements(*e) > opts_.big_key_elements) {
    // Saved in slices by the walker (SliceOpenKey), the shard unlocked in between.
    open_into->open.reset(new OpenKey{
        e, db, rdb::SlicedKeyEncoder(*e, -1, idle, freq, opts_.write.compress)});
    sliced_keys_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  if (*selected_db != db) {
    enc.SelectDb(db);
    *selected_db = db;
  }
  Status st = enc.Key(*e, expire_ms, idle, freq);
  if (!st.ok()) {
    *err = Status::IoError("Error saving key '" + std::string(e->key().substr(0, 128)) +
                           "' of DB " + std::to_string(db) + ": " + st.message());
    return false;
  }
  c->keys++;
  return true;
}

void SnapshotWalk::Commit(Shard& shard, Chunk&& c, bool shard_done) {
  if (shard_done) {
    shard.snapshot_epoch = epoch_;
  }
  Queue(std::move(c), shard_done);
}

void SnapshotWalk::Queue(Chunk&& c, bool shard_done, bool counted) {
  // A slice of a large key is queued even empty (the last one may hold no element): the
  // writer waits for the slice that closes the key.
  const bool queue = !c.bytes.empty() || c.owner != 0;
  if (!queue && !shard_done && !counted) {
    return;
  }
  std::lock_guard<std::mutex> g(mu_);
  if (counted) {
    unqueued_chunks_.fetch_sub(1, std::memory_order_relaxed);
  }
  if (shard_done) {
    shards_saved_++;
    if (shards_saved_ == Keyspace::kShardCount) {
      EndEpoch();  // every shard is saved: the lock check stops at the epoch load
    }
  }
  const bool slice = c.owner != 0;
  if (queue && !cancelled()) {
    queued_bytes_ += c.bytes.size();
    queue_.push_back(std::move(c));
  }
  if (shards_saved_ == Keyspace::kShardCount || slice || queued_bytes_ >= kWakeWriterBytes ||
      counted || cancelled()) {
    cv_.notify_one();
  }
}

// The hook without a key hint: what is left of the shard, on the caller's thread
// (without LZF: that work delays the caller's command; copying is several times faster).
void SnapshotWalk::SaveShard(Shard& shard, uint64_t epoch) {
  if (epoch != epoch_ || shard.snapshot_epoch == epoch_) {
    return;
  }
  FinishOpenKey(shard, static_cast<uint32_t>(&shard - &ks_.shard(0)));
  Chunk c;
  Status err;
  {
    rdb::ChunkEncoder enc(&c.bytes, opts_.write.compress && t_walker);
    int selected = -1;
    for (int db = 0; db < ks_.num_dbs(); db++) {
      shard.db(db).keys.ForEach([&](Entry* e) {
        if (err.ok()) {
          SaveEntry(enc, db, &selected, e, &c, &err);
        } else if (!opts_.locks_held) {
          e->set_snapshot_mark(mark_);  // every key is marked, even after an error
        }
      });
    }
  }
  Commit(shard, std::move(c), true);
  if (!err.ok()) {
    Fail(err);
  }
}

// The hook with a key hint: just the command's keys that live in this shard.
void SnapshotWalk::SaveKeys(Shard& shard, uint64_t epoch, const SnapshotKeyHint& hint) {
  if (epoch != epoch_ || shard.snapshot_epoch == epoch_) {
    return;
  }
  const uint32_t index = static_cast<uint32_t>(&shard - &ks_.shard(0));
  if (const OpenKey* open = progress_[index].open.get(); open != nullptr && !cancelled()) {
    for (size_t k = 0; k < hint.count; k++) {
      if (open->db == hint.db && open->e->key() == hint.keys[k]) {
        FinishOpenKey(shard, index);  // the command changes it: its rest is saved first
        break;
      }
    }
  }
  const KeyTable& t = shard.db(hint.db).keys;
  if (t.empty()) {
    return;
  }
  Chunk c;
  Status err;
  {
    rdb::ChunkEncoder enc(&c.bytes, false);
    int selected = -1;
    for (size_t k = 0; k < hint.count && err.ok(); k++) {
      std::string_view key = hint.keys[k];
      if (Keyspace::ShardOf(key) != index) {
        continue;
      }
      const size_t pos = t.Find(key, HashKey(key));
      if (pos != KeyTable::kNotFound) {
        SaveEntry(enc, hint.db, &selected, t.At(pos), &c, &err);
      }
    }
  }
  if (!err.ok()) {
    // The key stays marked: the error fails the save (nothing else would write it).
    Fail(err);
    return;
  }
  Commit(shard, std::move(c), false);
}

bool SnapshotWalk::WalkChunk(uint32_t i, rdb::ChunkEncoder& enc, Chunk* c, Status* err) {
  Shard& shard = ks_.shard(i);
  Progress& p = progress_[i];
  int selected = -1;
  size_t visited = 0;
  while (p.db < ks_.num_dbs()) {
    const KeyTable& t = shard.db(p.db).keys;
    if (!t.empty()) {
      do {
        p.cursor = t.Scan(p.cursor, [&](Entry* e) {
          visited++;
          if (err->ok()) {
            SaveEntry(enc, p.db, &selected, e, c, err, &p);
          } else {
            e->set_snapshot_mark(mark_);
          }
        });
      } while (p.cursor != 0 && visited < kChunkKeys && c->bytes.size() < kChunkBytes &&
               p.open == nullptr);
      if (p.cursor != 0) {
        return false;  // the chunk is full: the lock goes back to the workers
      }
    }
    p.db++;
    p.cursor = 0;
    if (p.open != nullptr) {
      return false;  // a large key opened: its slices come next
    }
  }
  return true;
}

void SnapshotWalk::SliceOpenKey(uint32_t i, Chunk* c, Status* err, bool all) {
  Progress& p = progress_[i];
  OpenKey& k = *p.open;
  if (cancelled()) {
    p.open.reset();  // marked already; the entry may be gone (FLUSHALL after the cancel)
    return;
  }
  c->owner = i + 1;
  if (!k.begun) {
    rdb::ChunkEncoder(&c->bytes, false).SelectDb(k.db);
    k.enc.Begin(*k.e, &c->bytes);
    k.begun = true;
  }
  const bool done = all ? k.enc.Next(*k.e, &c->bytes, SIZE_MAX, SIZE_MAX)
                        : k.enc.Next(*k.e, &c->bytes, opts_.slice_elements, kChunkBytes);
  c->last = done;
  if (done) {
    if (!k.enc.error().empty()) {
      *err = Status::IoError("Error saving key '" + std::string(k.e->key().substr(0, 128)) +
                             "' of DB " + std::to_string(k.db) + ": " + k.enc.error());
    }
    c->keys = 1;
    p.open.reset();
  }
}

void SnapshotWalk::FinishOpenKey(Shard& shard, uint32_t i) {
  if (progress_ == nullptr || progress_[i].open == nullptr) {
    return;
  }
  Chunk c;
  Status err;
  SliceOpenKey(i, &c, &err, /*all=*/true);
  finished_by_writes_.fetch_add(1, std::memory_order_relaxed);
  Commit(shard, std::move(c), false);
  if (!err.ok()) {
    Fail(err);
  }
}

void SnapshotWalk::EncodeLockedShard(Shard& shard) {
  Chunk c;
  Status err;
  {
    rdb::ChunkEncoder enc(&c.bytes, opts_.write.compress);
    int selected = -1;
    for (int db = 0; db < ks_.num_dbs() && err.ok(); db++) {
      shard.db(db).keys.ForEachWhile(
          [&](Entry* e) { return SaveEntry(enc, db, &selected, e, &c, &err); });
    }
  }
  if (!err.ok()) {
    Fail(err);
    return;
  }
  std::lock_guard<std::mutex> g(mu_);
  shards_saved_++;
  if (!cancelled()) {
    queued_bytes_ += c.bytes.size();
    queue_.push_back(std::move(c));
  }
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

void SnapshotWalk::LowerPriority() const {
  if (!opts_.locks_held && opts_.nice > 0) {
    // Per thread on Linux (the tid names the thread); lowering needs no privilege.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)),
                      std::min(opts_.nice, 19));
  }
}

void SnapshotWalk::WalkerMain() {
  t_walker = true;
  LowerPriority();
  for (;;) {
    const uint32_t i = next_shard_.fetch_add(1, std::memory_order_relaxed);
    if (i >= Keyspace::kShardCount) {
      break;
    }
    if (opts_.locks_held) {
      if (cancelled()) {
        break;
      }
      WaitForSpace();
      EncodeLockedShard(ks_.shard(i));
      continue;
    }
    // A walk with an epoch visits every shard, even cancelled (marking only).
    Shard& s = ks_.shard(i);
    bool open = false;
    for (;;) {
      if (!open) {
        // Not while a key is open here: the writer may be waiting for its next slice.
        WaitForSpace();
      }
      Chunk c;
      Status err;
      // Keys are encoded raw under the lock (a copy) and compressed once it is released
      // (CompressDeferred): the shard's clients wait for the copy only.
      rdb::ChunkEncoder enc(&c.bytes, opts_.write.compress, /*defer_compression=*/true);
      s.lock.lock_read();  // the walker's own lock: no pre-write hook
      if (s.snapshot_epoch == epoch_) {
        s.lock.unlock();  // a client's thread saved the rest
        break;
      }
      bool done = false;
      const bool slice = progress_[i].open != nullptr;
      if (slice) {
        SliceOpenKey(i, &c, &err, /*all=*/false);
      } else {
        done = WalkChunk(i, enc, &c, &err);
      }
      open = progress_[i].open != nullptr;
      const uint64_t keys = c.keys;
      if (slice) {
        // Queued under the lock: a client's write may finish the key (FinishOpenKey)
        // as soon as it is released, and its slices must reach the writer in order.
        Commit(s, std::move(c), done);
        s.lock.unlock();
      } else {
        if (done) {
          s.snapshot_epoch = epoch_;  // its last keys are in `c`: hooks skip the shard
        }
        // Counted before the unlock: a hook that saves the shard's rest right after it
        // (SaveShard) may count the last shard saved before `c` is queued, and the
        // writer must not end the file without `c`.
        unqueued_chunks_.fetch_add(1, std::memory_order_seq_cst);
        s.lock.unlock();
        enc.CompressDeferred();
        Queue(std::move(c), done, /*counted=*/true);
      }
      if (!err.ok()) {
        Fail(err);
      }
      if (opts_.after_chunk) {
        opts_.after_chunk(open);
      }
      KeyDelay(keys);
      if (done) {
        break;
      }
    }
  }
  if (threads_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finished_.store(true, std::memory_order_release);
  }
}

// rdb-key-save-delay (tests): microseconds per key saved. A walk with an epoch sleeps in
// its walkers, with no lock held, so that writes meet keys not saved yet.
void SnapshotWalk::KeyDelay(uint64_t keys) {
  if (opts_.access.key_delay_us > 0 && keys > 0 && !cancelled()) {
    usleep(static_cast<useconds_t>(
        std::min<int64_t>(opts_.access.key_delay_us * static_cast<int64_t>(keys), 10000000)));
  }
}

void SnapshotWalk::WaitForSpace() {
  std::unique_lock<std::mutex> lk(mu_);
  space_cv_.wait(lk, [&] { return (queued_bytes_ < kMaxQueuedBytes && !paused_) || cancelled(); });
}

void SnapshotWalk::WriterMain() {
  LowerPriority();
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
  uint32_t open_owner = 0;  // a large key written in part: only its slices come next
  for (;;) {
    Chunk c;
    {
      std::unique_lock<std::mutex> lk(mu_);
      auto next = queue_.end();
      auto ready = [&] {
        if (cancelled()) {
          return true;
        }
        if (open_owner != 0) {
          next = std::find_if(queue_.begin(), queue_.end(),
                              [&](const Chunk& q) { return q.owner == open_owner; });
          return next != queue_.end();
        }
        next = queue_.begin();
        return !queue_.empty() || (shards_saved_ == Keyspace::kShardCount &&
                                   unqueued_chunks_.load(std::memory_order_seq_cst) == 0);
      };
      while (!cv_.wait_for(lk, std::chrono::milliseconds(kWriterPollMs), ready)) {
      }
      if (cancelled()) {
        break;
      }
      if (next == queue_.end()) {
        break;  // every shard saved and written
      }
      c = std::move(*next);
      queue_.erase(next);
      queued_bytes_ -= c.bytes.size();
      space_cv_.notify_all();
    }
    if (c.owner != 0) {
      open_owner = c.last ? 0 : c.owner;
    }
    if (st.ok()) {
      st = w.WriteRaw(c.bytes);
    }
    keys += c.keys;
    if (opts_.locks_held) {
      KeyDelay(c.keys);  // a walk with an epoch sleeps in its walkers (WalkerMain)
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

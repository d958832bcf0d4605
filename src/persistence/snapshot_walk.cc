// SnapshotWalk: fork-less point-in-time snapshots (see snapshot_walk.h).
#include "persistence/snapshot_walk.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

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
// A walker's chunk buffer, reserved before it locks the shard: 64 keys of ~300 B.
constexpr size_t kChunkReserve = 24u << 10;
// Entries collected and prefetched before a walker encodes them (WalkChunk).
constexpr size_t kPrefetchEntries = 8;

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
  const uint32_t index = static_cast<uint32_t>(&shard - &ks_.shard(0));
  FinishOpenKey(shard, index);
  hook_shards_.fetch_add(1, std::memory_order_relaxed);
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
  // The keys client threads saved in this shard before: queued with the shard's rest.
  TakeHookBytes(progress_[index], &c.bytes, &c.keys);
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
  // Appended to the shard's own buffer (under its lock), which the walker takes with its
  // next chunk of the shard (TakeHookBytes): no mutex, no allocation per command.
  Progress& p = progress_[index];
  Chunk counted;  // only its key count
  Status err;
  {
    rdb::ChunkEncoder enc(&p.hook_bytes, false);
    for (size_t k = 0; k < hint.count && err.ok(); k++) {
      std::string_view key = hint.keys[k];
      if (Keyspace::ShardOf(key) != index) {
        continue;
      }
      const size_t pos = t.Find(key, HashKey(key));
      if (pos != KeyTable::kNotFound) {
        SaveEntry(enc, hint.db, &p.hook_db, t.At(pos), &counted, &err);
      }
    }
  }
  p.hook_keys += counted.keys;
  if (!err.ok()) {
    // The key stays marked: the error fails the save (nothing else would write it).
    Fail(err);
  }
}

void SnapshotWalk::TakeHookBytes(Progress& p, std::string* bytes, uint64_t* keys) {
  if (p.hook_bytes.empty()) {
    return;
  }
  if (bytes->empty()) {
    bytes->swap(p.hook_bytes);
  } else {
    bytes->append(p.hook_bytes);
    p.hook_bytes.clear();
    p.hook_bytes.shrink_to_fit();
  }
  *keys += p.hook_keys;
  hook_keys_.fetch_add(p.hook_keys, std::memory_order_relaxed);
  p.hook_keys = 0;
  p.hook_db = -1;  // the next hook bytes start with a SELECTDB of their own
}

bool SnapshotWalk::WalkChunk(uint32_t i, rdb::ChunkEncoder& enc, Chunk* c, Status* err) {
  Shard& shard = ks_.shard(i);
  Progress& p = progress_[i];
  int selected = -1;
  size_t visited = 0;
  // The entries of a few scan steps are collected and prefetched before any is read:
  // their cache misses overlap instead of coming one after the other, which shortens
  // the time the shard is locked (the keys' memory is cold: a walk reads each once).
  thread_local std::vector<Entry*> batch;
  while (p.db < ks_.num_dbs()) {
    const KeyTable& t = shard.db(p.db).keys;
    if (!t.empty()) {
      do {
        batch.clear();
        do {
          p.cursor = t.Scan(p.cursor, [&](Entry* e) {
            const char* m = reinterpret_cast<const char*>(e);
            __builtin_prefetch(m);
            __builtin_prefetch(m + 64);
            __builtin_prefetch(m + 128);
            __builtin_prefetch(m + 192);
            __builtin_prefetch(m + 256);
            batch.push_back(e);
          });
        } while (p.cursor != 0 && batch.size() < kPrefetchEntries);
        for (Entry* e : batch) {
          visited++;
          if (err->ok()) {
            // After a large key opened, the batch's other keys are saved whole (as the
            // rest of a scan step always was).
            SaveEntry(enc, p.db, &selected, e, c, err, &p);
          } else {
            e->set_snapshot_mark(mark_);
          }
        }
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
  pthread_setname_np(pthread_self(), "hkv-rdb-walker");
  LowerPriority();
  int64_t run_since = MonotonicNs();
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
      // Right before the lock: a switch the scheduler has due (this thread's or its
      // group's time slice used up) happens here, holding nothing, rather than at a
      // timer tick while the shard is locked.
      MaybeYield(&run_since);
      Chunk c;
      Status err;
      // Keys are encoded raw under the lock (a copy) and compressed once it is released
      // (CompressDeferred): the shard's clients wait for the copy only.
      // Allocated before the lock (a typical chunk fits): no reallocation under it.
      c.bytes.reserve(kChunkReserve);
      rdb::ChunkEncoder enc(&c.bytes, opts_.write.compress, /*defer_compression=*/true);
      s.lock.lock_read();  // the walker's own lock: no pre-write hook
      const int64_t locked_at = MonotonicNs();
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
        RecordHold(static_cast<uint64_t>(MonotonicNs() - locked_at));
        s.lock.unlock();
      } else {
        // The keys client threads saved in this shard since the last chunk (raw, each
        // run opened by its own SELECTDB): appended after the compression below.
        std::string hook_bytes;
        uint64_t hook_keys = 0;
        TakeHookBytes(progress_[i], &hook_bytes, &hook_keys);
        if (done) {
          s.snapshot_epoch = epoch_;  // its last keys are in `c`: hooks skip the shard
        }
        // Counted before the unlock: a hook that saves the shard's rest right after it
        // (SaveShard) may count the last shard saved before `c` is queued, and the
        // writer must not end the file without `c`.
        unqueued_chunks_.fetch_add(1, std::memory_order_seq_cst);
        RecordHold(static_cast<uint64_t>(MonotonicNs() - locked_at));
        s.lock.unlock();
        enc.CompressDeferred();
        if (!hook_bytes.empty()) {
          c.bytes.append(hook_bytes);
          c.keys += hook_keys;
        }
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
  ThreadEnd();
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
  pthread_setname_np(pthread_self(), "hkv-rdb-writer");
  LowerPriority();
  int64_t run_since = MonotonicNs();
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
    ThreadEnd();
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
    MaybeYield(&run_since);
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
  ThreadEnd();
  if (threads_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finished_.store(true, std::memory_order_release);
  }
}

void SnapshotWalk::RecordHold(uint64_t ns) {
  chunks_.fetch_add(1, std::memory_order_relaxed);
  uint64_t us = ns / 1000;
  int b = 0;
  while (us != 0 && b < kHoldBuckets - 1) {
    us >>= 1;
    b++;
  }
  hold_hist_[b].fetch_add(1, std::memory_order_relaxed);
  if (ns >= 100000) {
    holds_over_100us_.fetch_add(1, std::memory_order_relaxed);
  }
  if (ns >= 1000000) {
    holds_over_1ms_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t m = hold_max_ns_.load(std::memory_order_relaxed);
  while (ns > m && !hold_max_ns_.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {
  }
}

void SnapshotWalk::MaybeYield(int64_t* run_since_ns) {
  if (opts_.locks_held || opts_.yield_us <= 0) {
    return;
  }
  if (MonotonicNs() - *run_since_ns >= static_cast<int64_t>(opts_.yield_us) * 1000) {
    sched_yield();  // no lock held: a thread waiting for this core runs now
    yields_.fetch_add(1, std::memory_order_relaxed);
    *run_since_ns = MonotonicNs();
  }
}

void SnapshotWalk::ThreadEnd() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
    cpu_ns_.fetch_add(static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
                          static_cast<uint64_t>(ts.tv_nsec),
                      std::memory_order_relaxed);
  }
  rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) == 0) {
    nivcsw_.fetch_add(static_cast<uint64_t>(ru.ru_nivcsw), std::memory_order_relaxed);
  }
}

SnapshotWalk::Stats SnapshotWalk::stats() const {
  Stats st;
  uint64_t hist[kHoldBuckets];
  uint64_t n = 0;
  for (int b = 0; b < kHoldBuckets; b++) {
    hist[b] = hold_hist_[b].load(std::memory_order_relaxed);
    n += hist[b];
  }
  // The upper bound of the bucket holding the q-quantile (bucket 0: 1 us).
  auto quantile = [&](double q) -> uint64_t {
    if (n == 0) {
      return 0;
    }
    const uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(n - 1)) + 1;
    uint64_t seen = 0;
    for (int b = 0; b < kHoldBuckets; b++) {
      seen += hist[b];
      if (seen >= rank) {
        return uint64_t{1} << b;
      }
    }
    return uint64_t{1} << (kHoldBuckets - 1);
  };
  st.chunks = chunks_.load(std::memory_order_relaxed);
  st.hold_p50_us = quantile(0.50);
  st.hold_p99_us = quantile(0.99);
  st.hold_p999_us = quantile(0.999);
  st.hold_max_us = hold_max_ns_.load(std::memory_order_relaxed) / 1000;
  st.holds_over_100us = holds_over_100us_.load(std::memory_order_relaxed);
  st.holds_over_1ms = holds_over_1ms_.load(std::memory_order_relaxed);
  st.hook_keys = hook_keys_.load(std::memory_order_relaxed);
  st.hook_shards = hook_shards_.load(std::memory_order_relaxed);
  st.cpu_us = cpu_ns_.load(std::memory_order_relaxed) / 1000;
  st.yields = yields_.load(std::memory_order_relaxed);
  st.nivcsw = nivcsw_.load(std::memory_order_relaxed);
  return st;
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

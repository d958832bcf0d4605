// SnapshotWalk: a point-in-time RDB snapshot without fork (bgsave-mode walk; see
// docs/persistence.md "BGSAVE without fork").
//
//   ks.LockAll(); ...drain vector writes...;                 // the barrier
//   auto walk = SnapshotWalk::Start(ks, opts);               // epoch bumped, threads made
//   ks.UnlockAll();                                          // clients run again
//   ... walk->finished() ...  walk->Join(); walk->result();
//
// Start (every shard locked by the caller) bumps the snapshot epoch, flips the entry
// mark (g_entry_snapshot_mark: every key existing now reads as not saved, every key
// created later as saved) and installs itself as the ShardSnapshotHook
// (engine/keyspace.h). Walker threads then take the shards in order, and each shard in
// bounded chunks (kChunkKeys keys or kChunkBytes bytes): lock, resume the shard's scan
// cursor, serialize the keys not saved yet (keys expired at the barrier left out) with
// rdb::ChunkEncoder, mark them, unlock. So a walker never holds a shard lock for more
// than one chunk. A thread that locks a shard to change it before the walk is done with
// it first saves, through the hook, the keys its command names (SaveKeys: one key for a
// SET, a few for MSET or RENAME), or, when it cannot say which keys it changes (EXEC,
// scripts, expiry, eviction, FLUSHDB: no SnapshotKeyHint), what is left of the shard
// (SaveShard). A list, set, sorted set or hash without TTLs of more than
// Options::big_key_elements elements is "opened" instead (marked saved) and encoded by
// the walker in slices (rdb::SlicedKeyEncoder), the shard unlocked in between; a hook
// whose caller may change it (its key in the hint, or no hint) first encodes its rest
// (FinishOpenKey). Every key is written once, as it was at the barrier. One writer thread
// appends the chunks to temp-<pid>-<n>.rdb in the order they come (the file is a valid
// image of the barrier; the order of the chunks, and so the bytes, vary from run to
// run), then EOF + CRC64, fsync, rename over `dest`.
//
// Every walk started with an epoch visits every key before it finishes, even when
// cancelled (then only marking, nothing encoded): the marks of all keys must agree again
// before the next walk flips them. The caller joins a cancelled walk before starting
// the next one.
//
// With `locks_held` (SAVE, SHUTDOWN, DEBUG RELOAD: the caller holds every shard lock
// and changes nothing until the walk ends) the walkers read the shards without locking,
// no epoch is set and no mark is touched.
//
// Lifetime: the object must outlive every call of its hook: destroy it only once
// finished() (threads done, see Join) and after every shard lock has been taken since
// (the next barrier), or at shutdown when no worker runs.
//
// Thread safety: Start/Join/Cancel/finished/result from any one thread at a time;
// SaveShard/SaveKeys from any thread holding the shard's lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "engine/keyspace.h"
#include "persistence/snapshot_writer.h"
#include "rdb/rdb.h"

namespace hotkv::persistence {

class SnapshotWalk : public ShardSnapshotHook {
 public:
  struct Options {
    std::string dest;  // the file renamed over at the end (dbfilename, in the cwd)
    rdb::WriteOptions write;
    AccessStamp access;
    int64_t now_ms = 0;  // the barrier's time: keys expired by then are not saved
    int threads = 0;     // walker threads; 0: one per core
    bool locks_held = false;
    bool paused = false;  // tests: walkers wait for Resume() (hooks still save)
    // A BGSAVE walk's threads (walkers and writer) run at this nice value
    // (bgsave-walk-nice, default 0): the workers preempt them sooner, but a starved
    // walker holding a shard lock or the queue's mutex stalls them (docs/persistence.md).
    // Not for synchronous saves (locks_held), which every client waits for.
    int nice = 0;
    // A BGSAVE walk's threads give the core away (sched_yield, no lock held) after this
    // many microseconds of running (bgsave-walk-yield-us; 0: never): a worker woken on
    // the walker's core runs within about this long instead of after the walker's time
    // slice, and the walker is preempted at a point where it holds nothing
    // (docs/persistence.md, "The walk's p99"). Not for synchronous saves.
    int yield_us = 0;
    // A list, set, sorted set or hash (without field TTLs) of more elements than this,
    // and without a TTL, is saved by the walker in slices of `slice_elements` (or
    // kChunkBytes), the shard unlocked between them (see "Large keys" below).
    size_t big_key_elements = 2048;
    size_t slice_elements = 1024;
    // Tests: called by a walker after each chunk or slice it queued, no lock held;
    // `key_open`: the shard has a key saved in part.
    std::function<void(bool key_open)> after_chunk;
  };

  // Called with every shard locked (or, with locks_held, by their holder). Errors, the
  // temp file not created included, come later from result().
  static Result<std::unique_ptr<SnapshotWalk>> Start(Keyspace& ks, Options opts);
  ~SnapshotWalk() override;

  void SaveShard(Shard& shard, uint64_t epoch) override;
  void SaveKeys(Shard& shard, uint64_t epoch, const SnapshotKeyHint& hint) override;

  // A walker's chunk: it holds a shard lock for at most this many keys or bytes.
  static constexpr size_t kChunkKeys = 64;
  static constexpr size_t kChunkBytes = 64 << 10;

  // The file is written (or failed, or was cancelled) and every thread has returned:
  // Join() then returns at once.
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  void Join();
  void Resume();
  // Stops the walk; the destination is never replaced after this returns. May be called
  // with shard locks held (it waits for nothing).
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // After finished(): the outcome (keys and bytes written, or the error).
  Result<WriteStats> result();
  // Large keys saved in slices, and how many of them a client's write finished (tests).
  uint64_t sliced_keys() const { return sliced_keys_.load(std::memory_order_relaxed); }
  uint64_t keys_finished_by_writes() const {
    return finished_by_writes_.load(std::memory_order_relaxed);
  }

  // What a walk cost and whom it stalled (INFO persistence `rdb_last_walk`, the log line
  // at its end): how long the walkers held a shard lock per chunk (a client of that
  // shard waits that long; percentiles are the upper bounds of power-of-two buckets),
  // the keys and shards client threads saved in their pre-write hooks, the walk
  // threads' CPU time, voluntary yields and involuntary context switches.
  struct Stats {
    uint64_t chunks = 0;
    uint64_t hold_p50_us = 0, hold_p99_us = 0, hold_p999_us = 0, hold_max_us = 0;
    uint64_t holds_over_100us = 0, holds_over_1ms = 0;
    uint64_t hook_keys = 0, hook_shards = 0;
    uint64_t cpu_us = 0, yields = 0, nivcsw = 0;
  };
  Stats stats() const;

 private:
  struct Chunk {
    std::string bytes;
    uint64_t keys = 0;
    // A slice of a large key (shard index + 1; 0: whole keys only). The writer writes
    // the slices of one key back to back: once it took a slice with `last` false, it
    // takes only that owner's chunks until the one with `last`.
    uint32_t owner = 0;
    bool last = true;
  };
  // A large key the walker saves in slices: marked saved when opened; its value does
  // not change until it is finished, since every write that could change it locks the
  // shard first and the hook finishes it then (FinishOpenKey). No TTL (lazy or active
  // expiry could drop it without the hook), no field TTLs.
  struct OpenKey {
    Entry* e;
    int db;
    rdb::SlicedKeyEncoder enc;
    bool begun = false;
  };
  // Where a walker stopped in a shard (under the shard's lock).
  struct Progress {
    int db = 0;
    uint64_t cursor = 0;  // KeyTable::Scan cursor in `db`
    std::unique_ptr<OpenKey> open;
    // Keys client threads saved here (SaveKeys), raw, not queued yet: the walker takes
    // them with its next chunk of the shard, SaveShard with the shard's rest. A shard
    // is never marked saved with bytes left here.
    std::string hook_bytes;
    uint64_t hook_keys = 0;
    int hook_db = -1;  // the database of hook_bytes' last SELECTDB (-1: none yet)
  };
  // Moves `p`'s hook bytes to the end of `bytes` (shard locked).
  void TakeHookBytes(Progress& p, std::string* bytes, uint64_t* keys);
  // Encodes `e` (of database `db`) into `c` unless it is saved already or expired at the
  // barrier, and marks it saved. Returns false on an encoding error (then in `err`).
  // With `open_into` (a walker, no key open in the shard) a large key is opened there
  // instead, to be saved in slices.
  bool SaveEntry(rdb::ChunkEncoder& enc, int db, int* selected_db, Entry* e, Chunk* c,
                 Status* err, Progress* open_into = nullptr);
  // The next slice of shard `i`'s open key into `c` (its whole rest with `all`); closes
  // it when complete, or at once when the walk is cancelled. Shard locked.
  void SliceOpenKey(uint32_t i, Chunk* c, Status* err, bool all);
  // A hook: finishes shard `i`'s open key, if any, before the caller changes it.
  void FinishOpenKey(Shard& shard, uint32_t i);
  // Under the shard lock: queues `c` and, with `shard_done`, marks the shard saved.
  void Commit(Shard& shard, Chunk&& c, bool shard_done);
  // Queues `c` for the writer; `shard_done`: counts a shard saved (its epoch set already);
  // `counted`: a walker's chunk counted in unqueued_chunks_ (encoded under the lock,
  // compressed and queued after it).
  void Queue(Chunk&& c, bool shard_done, bool counted = false);
  // One bounded chunk of shard `i` into `c` through `enc` (walker, shard locked).
  // Returns whether the shard is done.
  bool WalkChunk(uint32_t i, rdb::ChunkEncoder& enc, Chunk* c, Status* err);
  void EncodeLockedShard(Shard& shard);  // locks_held
  SnapshotWalk(Keyspace& ks, Options opts);
  void WalkerMain();
  void WaitForSpace();
  void LowerPriority() const;  // the calling walk thread: opts_.nice (BGSAVE only)
  void KeyDelay(uint64_t keys);  // the queue below its bound and not paused, or cancelled
  void WriterMain();
  void Fail(Status st);
  void EndEpoch();

  Keyspace& ks_;
  Options opts_;
  uint64_t epoch_ = 0;
  uint8_t mark_ = 0;  // Entry::kSnapshotMark value of a key saved (or new) in this walk
  std::unique_ptr<Progress[]> progress_;  // per shard
  int fd_ = -1;
  std::string tmp_;
  std::vector<std::thread> walkers_;
  std::thread writer_;
  std::atomic<uint32_t> next_shard_{0};
  std::atomic<int> threads_running_{0};
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> finished_{false};
  std::atomic<uint64_t> sliced_keys_{0};
  std::atomic<uint64_t> finished_by_writes_{0};
  // Stats: bucket 0 holds < 1 us, bucket b holds [2^(b-1), 2^b) us.
  static constexpr int kHoldBuckets = 28;
  void RecordHold(uint64_t ns);
  void ThreadEnd();  // a walk thread's CPU time and involuntary switches into the stats
  void MaybeYield(int64_t* run_since_ns);
  std::atomic<uint64_t> hold_hist_[kHoldBuckets] = {};
  std::atomic<uint64_t> hold_max_ns_{0};
  std::atomic<uint64_t> chunks_{0};
  std::atomic<uint64_t> holds_over_100us_{0};
  std::atomic<uint64_t> holds_over_1ms_{0};
  std::atomic<uint64_t> hook_keys_{0};
  std::atomic<uint64_t> hook_shards_{0};
  std::atomic<uint64_t> cpu_ns_{0};
  std::atomic<uint64_t> yields_{0};
  std::atomic<uint64_t> nivcsw_{0};

  std::mutex mu_;  // the queue, the counters below, the error
  std::condition_variable cv_;        // the writer waits for chunks
  std::condition_variable space_cv_;  // walkers wait for the queue to drain
  std::deque<Chunk> queue_;
  size_t queued_bytes_ = 0;
  uint32_t shards_saved_ = 0;
  // Walker chunks encoded but not queued yet: the writer ends only once it is 0.
  std::atomic<uint32_t> unqueued_chunks_{0};
  bool paused_ = false;
  Status error_;
  WriteStats stats_;

  std::mutex rename_mu_;  // Cancel vs. the final rename
  bool renamed_ = false;  // under rename_mu_
};

}  // namespace hotkv::persistence

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
// (SaveShard). Every key is written once, as it was at the barrier. One writer thread
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

 private:
  struct Chunk {
    std::string bytes;
    uint64_t keys = 0;
  };
  // Where a walker stopped in a shard (under the shard's lock).
  struct Progress {
    int db = 0;
    uint64_t cursor = 0;  // KeyTable::Scan cursor in `db`
  };
  // Encodes `e` (of database `db`) into `c` unless it is saved already or expired at the
  // barrier, and marks it saved. Returns false on an encoding error (then in `err`).
  bool SaveEntry(rdb::ChunkEncoder& enc, int db, int* selected_db, Entry* e, Chunk* c,
                 Status* err);
  // Under the shard lock: queues `c` and, with `shard_done`, marks the shard saved.
  void Commit(Shard& shard, Chunk&& c, bool shard_done);
  // One bounded chunk of shard `i` (walker, shard locked). Returns whether the shard is
  // done.
  bool WalkChunk(uint32_t i, Chunk* c, Status* err);
  void EncodeLockedShard(Shard& shard);  // locks_held
  SnapshotWalk(Keyspace& ks, Options opts);
  void WalkerMain();
  void WaitForSpace();
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

  std::mutex mu_;  // the queue, the counters below, the error
  std::condition_variable cv_;        // the writer waits for chunks
  std::condition_variable space_cv_;  // walkers wait for the queue to drain
  std::deque<Chunk> queue_;
  size_t queued_bytes_ = 0;
  uint32_t shards_saved_ = 0;
  bool paused_ = false;
  Status error_;
  WriteStats stats_;

  std::mutex rename_mu_;  // Cancel vs. the final rename
  bool renamed_ = false;  // under rename_mu_
};

}  // namespace hotkv::persistence

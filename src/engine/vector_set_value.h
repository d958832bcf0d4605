// VectorSet / VectorSetValue: the value of a "vectorset" key (TYPE vectorset): an HNSW
// index (vector/hnsw_index.h) plus what the commands need beside it.
//
//   Entry -> VectorSetValue (owned by the entry, guarded by the shard lock)
//              -> std::shared_ptr<VectorSet> (shared with every command in flight)
//                   -> HnswIndex, REDUCE projection, creation flags, counters
//
// Commands that make long engine calls (VSIM, VADD, VREM, VSIM.SEARCH, VSIM.SET, ...)
// copy the shared_ptr under the key's shard lock and call the engine without holding
// it, so a DEL / UNLINK / expiry / FLUSHALL meanwhile only drops the key's reference:
// the index lives until the last search using it returns (and is freed there).
//
// Emptied sets. Redis deletes a vector set when its last element is removed; the sets
// HotKV's VSIM.CREATEINDEX makes are kept (persistent()). Because inserts run without
// the shard lock, "the index is empty" is not enough to delete the key: an insert may
// have taken the pointer and not yet linked its element. So every write taken outside
// the lock is counted (BeginWrite/EndWrite, under the shard lock), and a key is deleted
// only when the index is empty and no write is in flight; the last write to finish
// checks again (see commands/vector_common.h).
//
// Attribute count (VINFO attributes-count). The engine does not count elements with
// attributes, so the commands keep the count here: every write that may add or drop
// the attributes of `label` holds AttributeLock(label) across "had attributes?" and
// the engine call, so concurrent writers of the same label cannot both count.
//
// Thread safety: VectorSetValue is guarded by its shard's lock. VectorSet is
// thread-safe: the index is (see hnsw_index.h), the rest is immutable or atomic.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vector/hnsw_index.h"

namespace hotkv {

struct VectorSetFlags {
  // REDUCE: vectors given with this many components are projected down to the
  // index's dimension (Redis's sign-pattern random projection). 0: no projection.
  uint32_t projection_input_dim = 0;
  // Created by VSIM.CREATEINDEX: the key stays when its last element is removed.
  bool persistent = false;
};

class VectorSet {
 public:
  VectorSet(std::unique_ptr<vector::HnswIndex> index, VectorSetFlags flags);

  vector::HnswIndex& index() const { return *index_; }
  const vector::IndexOptions& options() const { return index_->options(); }
  uint32_t dim() const { return index_->dim(); }
  uint32_t projection_input_dim() const { return flags_.projection_input_dim; }
  bool persistent() const { return flags_.persistent; }
  // Unique id of this set in the process (VINFO vset-uid); a COPY gets a new one.
  uint64_t uid() const { return uid_; }

  // REDUCE: `in` (projection_input_dim() components) times the projection matrix.
  // Row i, column j of the matrix is +1/sqrt(n) when popcount(i & j) is even, else
  // -1/sqrt(n) (n = input dimension): Redis's deterministic matrix, so the same
  // inputs give the same reduced vectors as Redis.
  std::vector<float> Project(std::span<const float> in) const;

  // Writes running on the index without the shard lock (see the header comment).
  // Called with the key's shard lock held.
  // Returns the number of writes in flight before this one.
  int BeginWrite() { return writes_.fetch_add(1, std::memory_order_acq_rel); }
  // Returns the number of writes still in flight.
  int EndWrite() { return writes_.fetch_sub(1, std::memory_order_acq_rel) - 1; }
  int writes_in_flight() const { return writes_.load(std::memory_order_acquire); }

  std::mutex& AttributeLock(std::string_view label);
  // The key no longer holds this set (its value was freed: DEL, expiry, overwrite; not
  // RENAME or MOVE, which keep the value). Set with every attribute lock held, so that a
  // write recording itself under its label's lock (commands/vector_common.cc) either saw
  // it or was recorded before the change that removed the key.
  void MarkDetached();
  bool detached() const { return detached_.load(std::memory_order_acquire); }
  // Where the key holding this set is, for the records of the writes running on it
  // outside the shard lock (commands/vector_common.cc): set by the first of them (under
  // that key's shard lock, BeginWrite having returned 0: no record can be in progress),
  // moved by RENAME, MOVE and SWAPDB while any runs (Relocate, every attribute lock
  // held). Read under an attribute lock. location_db() -1: never set.
  void SetLocationForWrites(int db, std::string_view key) {
    location_db_ = db;
    location_key_.assign(key.data(), key.size());
  }
  void Relocate(int db, std::string_view key);
  int location_db() const { return location_db_; }
  const std::string& location_key() const { return location_key_; }
  void AddAttributeCount(int64_t delta) { attributes_.fetch_add(delta, std::memory_order_relaxed); }
  int64_t attribute_count() const { return attributes_.load(std::memory_order_relaxed); }

  // A deep copy (COPY): same options and elements, a new uid, nothing in flight.
  std::shared_ptr<VectorSet> Clone() const;
  // Heap bytes: the index (HnswIndex::MemoryUsage) and this object.
  size_t MemoryUsage() const;

 private:
  static constexpr size_t kAttributeLocks = 64;

  std::unique_ptr<vector::HnswIndex> index_;
  const VectorSetFlags flags_;
  const uint64_t uid_;
  std::atomic<int> writes_{0};
  std::atomic<int64_t> attributes_{0};
  std::atomic<bool> detached_{false};
  std::array<std::mutex, kAttributeLocks> attribute_locks_;
  int location_db_ = -1;
  std::string location_key_;
};

// Vector writes of the whole process running on an index outside their shard lock:
// raised under the shard lock before such a write starts, lowered when its engine call
// has returned (before the shard is locked again). With every shard locked, no new one
// can start, so a snapshot's fork barrier waits for this to reach zero.
inline std::atomic<int> g_vector_writes_outside_lock{0};

// What the entry owns (Entry::object() of a kVectorSet entry).
struct VectorSetValue {
  std::shared_ptr<VectorSet> set;
};

class Entry;
class KeyTable;
// The vector set `e` holds when a write runs on it outside the shard lock; else null.
VectorSet* VectorSetWithWritesInFlight(const Entry* e);
// For the keyspace-wide changes that move or drop sets without freeing them at once
// (SWAPDB; FLUSHDB/FLUSHALL, whose tables are freed later by a background thread):
// with the shard locked, and only while g_vector_writes_outside_lock > 0 (else no
// write can be recording), each set in `t` with a write in flight is marked detached,
// or relocated to database `db` (keeping its key).
void DetachVectorSetsInFlight(const KeyTable& t);
void RelocateVectorSetsInFlight(const KeyTable& t, int db);

}  // namespace hotkv

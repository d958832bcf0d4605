// Keyspace: every database's keys, split into shards that are locked independently.
//
//   shard = slot(key) >> (14 - kShardBits)     slot = CRC16(key or {tag}) & 16383
//
// Each shard owns a contiguous range of cluster slots, holds a spin lock, and per
// database a KeyTable plus the list of its keys that carry a TTL. Keys sharing a
// {hash tag} share a shard. A command locks the shards of its keys (ascending order when
// several, see ShardLockSet) and then works through a Database view.
//
// Thread safety: a Shard's contents are guarded by its lock. Keyspace's own fields are
// immutable after construction.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/key_hash.h"
#include "common/spin_lock.h"
#include "engine/key_sizes.h"
#include "engine/key_table.h"

namespace hotkv {

// Set (never cleared) once any hash got a field TTL: snapshots then use the RDB version
// that can hold them (rdb::kFieldExpiryVersion) instead of Redis 7.0's.
inline std::atomic<bool> g_field_ttls_seen{false};

// Cluster slots per shard: a shard owns the slots [shard << 4, (shard + 1) << 4).
inline constexpr uint32_t kSlotsPerShard = 16;

// Per-slot sets of a table's entries (cluster mode, see Keyspace::SetSlotIndex): one
// KeyTable per slot of the shard, keyed by the same HashKey as the main table and
// holding the same Entry pointers (it owns none). Found and removed by pointer, so a
// block that moved (Relocated: the old one already freed) is never read. Only the slots
// whose bit is set in DbTable::slot_indexed are kept (built on first use, see
// Keyspace::GetKeysInSlot); the others' tables are empty.
struct SlotIndex {
  KeyTable slots[kSlotsPerShard];
};

// One database's keys inside one shard.
struct DbTable {
  KeyTable keys;
  std::vector<Entry*> volatile_keys;  // entries with a TTL; Entry::volatile_index() is the position
  size_t expire_cursor = 0;           // where the active expiry cycle resumes
  std::unique_ptr<KeySizeHistogram> key_sizes;  // INFO keysizes; made on the first key
  // Hash field expiry: keys whose hash may have fields with a TTL (registered when a TTL
  // is set or such a hash enters the table; the active cycle drops keys that no longer
  // have one, are gone, or changed type), made on the first; where the cycle resumes.
  std::unique_ptr<std::set<std::string, std::less<>>> field_ttl_keys;
  std::string field_ttl_cursor;
  // Keys per cluster slot of this shard (index slot & 15), kept on every insert and
  // delete. With the slot index on (cluster mode), the entries of the slots whose bit
  // (1 << (slot & 15)) is set in slot_indexed: a slot's set is built by the first
  // GetKeysInSlot that needs it (one pass over this table), kept by every insert,
  // delete and re-allocation from then on, and dropped when the slot empties. Slots
  // nobody iterates (almost all, outside a reshard) cost one bit test per new key.
  std::array<uint32_t, kSlotsPerShard> slot_keys{};
  uint16_t slot_indexed = 0;
  std::unique_ptr<SlotIndex> slot_index;  // made with the first indexed slot

  size_t expires() const { return volatile_keys.size(); }
  void NoteFieldTtls(std::string_view key) {
    if (field_ttl_keys == nullptr) {
      field_ttl_keys = std::make_unique<std::set<std::string, std::less<>>>();
      g_field_ttls_seen.store(true, std::memory_order_relaxed);
    }
    if (field_ttl_keys->find(key) == field_ttl_keys->end()) {
      field_ttl_keys->emplace(key);
    }
  }

  // INFO keysizes bookkeeping (engine/key_sizes.h): `e` enters the table, leaves it, or
  // may have changed size while in it.
  void CountKeySize(Entry* e) {
    if (!KeySizeHistogram::Counts(e->type())) {
      e->set_size_bin(Entry::kNotCounted);
      return;
    }
    const uint8_t bin = KeySizeHistogram::BinOf(KeySizeOf(e));
    e->set_size_bin(bin);
    if (key_sizes == nullptr) {
      key_sizes = std::make_unique<KeySizeHistogram>();
    }
    key_sizes->Add(e->type(), bin);
  }
  void UncountKeySize(const Entry* e) {
    if (e->size_bin() != Entry::kNotCounted) {
      key_sizes->Remove(e->type(), e->size_bin());
    }
  }
  void RecountKeySize(Entry* e) {
    if (e->size_bin() == Entry::kNotCounted) {
      return;
    }
    const uint8_t bin = KeySizeHistogram::BinOf(KeySizeOf(e));
    if (bin != e->size_bin()) {
      key_sizes->Remove(e->type(), e->size_bin());
      key_sizes->Add(e->type(), bin);
      e->set_size_bin(bin);
    }
  }
};

struct Shard;

// ---- Point-in-time snapshots without fork (persistence/snapshot_walk.h) ----
//
// While a walk snapshot runs, g_snapshot_epoch holds its epoch (0: none). Every shard
// lock acquisition for a write (ShardLock::lock / try_lock) then checks the shard's
// Shard::snapshot_epoch (set once the walk has saved every key of the shard) and, when
// the shard is not saved yet, calls g_snapshot_hook before the caller can change it:
// with a SnapshotKeyHint on this thread (the dispatcher locking a command's shards: the
// command changes only its keys) the hook saves just those keys if not saved yet
// (Entry::kSnapshotMark); without one (EXEC, scripts, expiry, eviction, FLUSHDB...) it
// saves what is left of the shard. So the file is the image at the barrier. With no
// snapshot running the check is one relaxed load.
struct SnapshotKeyHint {
  int db = 0;
  const std::string_view* keys = nullptr;
  size_t count = 0;
};
// Set by the dispatcher only while it locks the shards of a write command whose changes
// are limited to its declared keys in its database (and cleared right after).
inline thread_local const SnapshotKeyHint* t_snapshot_key_hint = nullptr;

class ShardSnapshotHook {
 public:
  virtual ~ShardSnapshotHook() = default;
  // Called with the shard's lock held, the shard not yet saved in `epoch`: serializes
  // every key of it not saved yet and sets shard.snapshot_epoch = epoch.
  virtual void SaveShard(Shard& shard, uint64_t epoch) = 0;
  // The same for the hint's keys that live in this shard (the others are left).
  virtual void SaveKeys(Shard& shard, uint64_t epoch, const SnapshotKeyHint& hint) = 0;
};
// Set (release) before the epoch and cleared only after the epoch is 0 and every shard
// lock has been taken and released once since (no hook call can still be running).
extern std::atomic<ShardSnapshotHook*> g_snapshot_hook;
extern std::atomic<uint64_t> g_snapshot_epoch;

// A shard's lock: a SpinLock plus the snapshot pre-write check above, so that nothing
// that locks a shard to change it can miss the check.
class ShardLock {
 public:
  void lock() {
    spin_.lock();
    AfterLock();
  }
  // For a command that only reads (the dispatcher, for commands without the write
  // flag): no snapshot check. A read may still delete a key whose TTL passed (lazy
  // expiry) or touch an access time: a key expiring after the barrier may then be
  // missing from the file, which is no difference once loaded (loading drops it).
  void lock_read() { spin_.lock(); }
  bool try_lock_read() { return spin_.try_lock(); }
  bool try_lock() {
    if (!spin_.try_lock()) {
      return false;
    }
    AfterLock();
    return true;
  }
  void unlock() { spin_.unlock(); }
  bool is_locked() const { return spin_.is_locked(); }

 private:
  void AfterLock() {
    if (g_snapshot_epoch.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      SaveBeforeWrite();
    }
  }
  void SaveBeforeWrite();  // keyspace.cc; `this` is the first member of its Shard
  SpinLock spin_;
};

// Per-shard hooks that higher layers (WATCH, blocking commands, keyspace notifications)
// attach state to. The engine calls them with the shard lock held.
class ShardExtension {
 public:
  virtual ~ShardExtension() = default;
};

struct alignas(64) Shard {
  ShardLock lock;
  // Database 0 is held inline so that its table header shares the lock's cache line:
  // a lookup then waits for two misses (slot, entry) rather than three (the header of a
  // separately allocated array first). Measured in
  // bench/notes/2026-11-30-fourth-stop-shard-layout-and-attempts.md.
  DbTable db0;
  std::unique_ptr<DbTable[]> other_dbs;  // databases 1 .. databases-1
  // Extra state owned by the server layer (watched keys, blocked clients), created lazily.
  std::unique_ptr<ShardExtension> ext;
  // The snapshot epoch this shard was last saved in (under the lock; see ShardLock).
  uint64_t snapshot_epoch = 0;

  DbTable& db(int index) { return index == 0 ? db0 : other_dbs[index - 1]; }
  const DbTable& db(int index) const { return index == 0 ? db0 : other_dbs[index - 1]; }
};
static_assert(offsetof(Shard, lock) == 0, "ShardLock finds its Shard at its own address");
static_assert(offsetof(Shard, db0) + sizeof(KeyTable) <= 64,
              "db 0's table header must share the lock's cache line");

// Observes key events: the engine's own (expiry, eviction, creation) and the
// keyspace-wide ones commands report (FLUSHDB/FLUSHALL, SWAPDB). Several observers can
// subscribe (the server's WATCH/notification/blocking hooks, the write stream, and later
// snapshots, search indexes, client-side caching). Every call is made with the key's
// shard locked (OnFlush/OnSwapDb: see there); implementations must not take other shard
// locks and must be cheap.
class KeyObserver {
 public:
  virtual ~KeyObserver() = default;
  virtual void OnKeyExpired(int db, std::string_view key) {}
  // A command changed `key` (CommandContext::KeyModified, after the change: the key may
  // now be missing). Called only while g_key_change_observers > 0 (search indexes exist),
  // so that it costs commands one relaxed load otherwise.
  virtual void OnKeyChanged(int db, std::string_view key) {}
  // Fields of the hash `key` expired and were deleted — by the active cycle (`active`) or
  // lazily by a command that touched them; `key_deleted`: they were its last fields and
  // the key is about to go.
  virtual void OnFieldsExpired(int db, std::string_view key,
                               const std::vector<std::string>& fields, bool key_deleted,
                               bool active) {}
  // A key was created (Redis's dbAdd): "new" notifications, and waking clients blocked
  // on list/zset/stream keys.
  virtual void OnKeyCreated(int db, std::string_view key, ValueType type) {}
  // A key is about to be removed by maxmemory eviction (its bytes are still valid).
  virtual void OnKeyEvicted(int db, std::string_view key) {}
  // FLUSHDB (db >= 0) or FLUSHALL (db < 0). Called once per flush, after it, while every
  // shard is locked when AtomicFlushWanted() said so, else with no lock held.
  virtual void OnFlush(int db) {}
  // SWAPDB a b, called with every shard locked, after the swap.
  virtual void OnSwapDb(int a, int b) {}
  // Whether a flush should hold every shard lock at once (an observer that orders
  // events, such as the write stream, needs the flush to be one point in time).
  virtual bool AtomicFlushWanted() const { return false; }
};
// How many observers want OnKeyChanged (search/ raises it while an index exists).
inline std::atomic<int> g_key_change_observers{0};
// The former name of the single listener slot.
using KeyEventListener = KeyObserver;

class Keyspace {
 public:
  static constexpr int kShardBits = 10;
  static constexpr uint32_t kShardCount = 1u << kShardBits;
  static constexpr int kSlotShift = 14 - kShardBits;
  static_assert((1u << kSlotShift) == kSlotsPerShard);

  explicit Keyspace(int num_dbs);
  ~Keyspace();

  int num_dbs() const { return num_dbs_; }
  static uint32_t ShardOfSlot(uint32_t slot) { return slot >> kSlotShift; }
  static uint32_t ShardOf(std::string_view key) { return ShardOfSlot(KeySlot(key)); }
  Shard& shard(uint32_t i) { return shards_[i]; }

  // Observers, called in registration order. Register (and remove) before workers
  // start or while no command runs: the list is read without a lock.
  void AddObserver(KeyObserver* o) { observers_.push_back(o); }
  void RemoveObserver(KeyObserver* o);
  const std::vector<KeyObserver*>& observers() const { return observers_; }
  void NotifyExpired(int db, std::string_view key) {
    for (KeyObserver* o : observers_) {
      o->OnKeyExpired(db, key);
    }
  }
  void NotifyChanged(int db, std::string_view key) {
    for (KeyObserver* o : observers_) {
      o->OnKeyChanged(db, key);
    }
  }
  void NotifyFieldsExpired(int db, std::string_view key, const std::vector<std::string>& fields,
                           bool key_deleted, bool active) {
    for (KeyObserver* o : observers_) {
      o->OnFieldsExpired(db, key, fields, key_deleted, active);
    }
  }
  void NotifyCreated(int db, std::string_view key, ValueType type) {
    for (KeyObserver* o : observers_) {
      o->OnKeyCreated(db, key, type);
    }
  }
  void NotifyEvicted(int db, std::string_view key) {
    for (KeyObserver* o : observers_) {
      o->OnKeyEvicted(db, key);
    }
  }
  void NotifyFlush(int db) {
    for (KeyObserver* o : observers_) {
      o->OnFlush(db);
    }
  }
  void NotifySwapDb(int a, int b) {
    for (KeyObserver* o : observers_) {
      o->OnSwapDb(a, b);
    }
  }
  bool AtomicFlushWanted() const {
    for (KeyObserver* o : observers_) {
      if (o->AtomicFlushWanted()) {
        return true;
      }
    }
    return false;
  }

  // Counts under each shard's lock, one at a time.
  size_t DbSize(int db);

  // ---- Cluster slots ----
  // Whether GetKeysInSlot keeps a per-slot index of the entries of the slots it was
  // asked for (SlotIndex, DbTable::slot_indexed), so that later calls for the slot visit
  // only its keys: its first call scans the slot's shard once and builds the slot's set,
  // which every insert and delete then keeps up to date until the slot empties. Set at
  // start (cluster-enabled); without it every GetKeysInSlot scans the slot's shard.
  // Per-slot counts are kept either way.
  void SetSlotIndex(bool on) { slot_index_ = on; }
  bool slot_index() const { return slot_index_; }
  // Keys of `db` in cluster slot `slot` (expired ones not yet removed included, as
  // Redis's COUNTKEYSINSLOT counts them). O(1). Takes the slot's shard lock unless
  // `locked` (the caller holds it).
  size_t CountKeysInSlot(int db, uint32_t slot, bool locked = false);
  // Appends up to `count` keys of database 0 in `slot` to `out` (any order; each key once
  // per call). With the slot index: touches only that slot's keys once the slot's set
  // exists (the first call for a slot with keys builds it). Locks as above.
  void GetKeysInSlot(uint32_t slot, size_t count, std::vector<std::string>* out,
                     bool locked = false, int db = 0);
  struct DbStats {
    size_t keys = 0;
    size_t expires = 0;
    int64_t avg_ttl_ms = 0;
  };
  // Under each shard's lock in turn; shards for which `held(i)` is true are read without
  // taking it (the calling thread holds them already: INFO inside EXEC).
  DbStats Stats(int db, int64_t now_ms, bool (*held)(uint32_t) = nullptr);
  // INFO keysizes: every database's histogram summed over the shards, num_dbs() x
  // KeySizeHistogram::kTypes x kBins counts, row-major. Locks as Stats does.
  std::vector<uint64_t> KeySizes(bool (*held)(uint32_t) = nullptr);

  // Removes every key of one database (or all when db < 0). With `async`, the tables are
  // detached under the locks and freed by a background thread.
  void Flush(int db, bool async);
  // Swaps two databases in every shard (all shard locks held at once).
  void SwapDb(int a, int b);

  // Active expiry over shards [first, ...) stepping by `stride` (one worker's share),
  // deleting expired keys (and expired fields of hashes with field TTLs) until
  // `budget_us` has passed. Returns keys expired.
  // `cursor` is the caller's resume point.
  size_t ExpireCycle(uint32_t first, uint32_t stride, size_t* cursor, int64_t now_ms,
                     int64_t budget_us);

  // DEBUG SET-ACTIVE-EXPIRE: whether ExpireCycle runs at all (tests of lazy expiry).
  void SetActiveExpire(bool on) { active_expire_.store(on, std::memory_order_relaxed); }
  bool active_expire() const { return active_expire_.load(std::memory_order_relaxed); }

  // Locks/unlocks all shards in ascending order (FLUSHALL, SWAPDB, MULTI with keyless
  // commands that touch the whole keyspace).
  void LockAll();
  void UnlockAll();

  // Total entries whose TTL passed and were removed (lazily or actively) since start.
  uint64_t expired_keys() const;
  void ResetExpiredKeys();
  // Hash fields whose TTL passed and were removed (INFO expired_subkeys), and the part
  // the active cycle removed (expired_subkeys_active).
  uint64_t expired_fields() const { return expired_fields_.load(std::memory_order_relaxed); }
  uint64_t expired_fields_active() const {
    return expired_fields_active_.load(std::memory_order_relaxed);
  }
  void CountExpiredFields(size_t n, bool active) {
    expired_fields_.fetch_add(n, std::memory_order_relaxed);
    if (active) {
      expired_fields_active_.fetch_add(n, std::memory_order_relaxed);
    }
  }
  // INFO expired_time_cap_reached_count (active cycles stopped by their time budget) and
  // expire_cycle_cpu_milliseconds (time spent in active cycles), since start or RESETSTAT.
  uint64_t expire_cycles_capped() const { return expire_capped_.load(std::memory_order_relaxed); }
  uint64_t expire_cycle_us() const { return expire_us_.load(std::memory_order_relaxed); }
  void ResetExpireCycleStats() {
    expire_capped_.store(0, std::memory_order_relaxed);
    expire_us_.store(0, std::memory_order_relaxed);
    expired_fields_.store(0, std::memory_order_relaxed);
    expired_fields_active_.store(0, std::memory_order_relaxed);
  }

  // Databases that may hold keys, one bit each (bit 63: any database from 63 up), set
  // when a key is created and never cleared: eviction samples only those, instead of
  // reading every database's table header in each shard it visits.
  static uint64_t DbBit(int db) { return uint64_t{1} << (db < 63 ? db : 63); }
  void NoteDbUsed(int db) {
    if (!(used_dbs_.load(std::memory_order_relaxed) & DbBit(db))) {
      used_dbs_.fetch_or(DbBit(db), std::memory_order_relaxed);
    }
  }
  uint64_t used_dbs() const { return used_dbs_.load(std::memory_order_relaxed); }

  // Access clock for new and touched entries (OBJECT IDLETIME / FREQ): seconds since
  // start in LRU mode, minutes since the epoch in LFU mode (set by the server's cron).
  void SetAccessClock(uint32_t clock, bool lfu) {
    access_clock_.store(clock, std::memory_order_relaxed);
    lfu_mode_.store(lfu, std::memory_order_relaxed);
  }
  // Stamps a newly created entry as just accessed.
  void StampNew(Entry* e) const {
    e->set_access_clock(access_clock_.load(std::memory_order_relaxed));
    e->set_lfu_counter(lfu_mode_.load(std::memory_order_relaxed) ? kLfuInitValue : 0);
  }
  static constexpr uint8_t kLfuInitValue = 5;

 private:
  int num_dbs_;
  bool slot_index_ = false;
  std::unique_ptr<Shard[]> shards_;
  std::vector<KeyObserver*> observers_;
  std::atomic<uint32_t> access_clock_{0};
  std::atomic<uint64_t> used_dbs_{0};
  std::atomic<bool> lfu_mode_{false};
  std::atomic<uint64_t> expire_capped_{0};
  std::atomic<uint64_t> expire_us_{0};
  std::atomic<bool> active_expire_{true};
  std::atomic<uint64_t> expired_fields_{0};
  std::atomic<uint64_t> expired_fields_active_{0};
};

}  // namespace hotkv

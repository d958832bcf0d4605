#include "engine/keyspace.h"

#include <algorithm>
#include <atomic>

#include "common/clock.h"
#include "engine/database.h"
#include "engine/lazy_free.h"
#include "engine/vector_set_value.h"
#include "types/hash_value.h"

namespace hotkv {

namespace engine_internal {
extern std::atomic<uint64_t> g_expired_keys;
}

std::atomic<ShardSnapshotHook*> g_snapshot_hook{nullptr};
std::atomic<uint64_t> g_snapshot_epoch{0};

void ShardLock::SaveBeforeWrite() {
  const uint64_t epoch = g_snapshot_epoch.load(std::memory_order_acquire);
  Shard* shard = reinterpret_cast<Shard*>(this);
  if (epoch == 0 || shard->snapshot_epoch == epoch) {
    return;
  }
  ShardSnapshotHook* hook = g_snapshot_hook.load(std::memory_order_acquire);
  if (hook != nullptr) {
    if (const SnapshotKeyHint* hint = t_snapshot_key_hint; hint != nullptr) {
      hook->SaveKeys(*shard, epoch, *hint);
    } else {
      hook->SaveShard(*shard, epoch);
    }
  }
}

Keyspace::Keyspace(int num_dbs) : num_dbs_(num_dbs), shards_(new Shard[kShardCount]) {
  for (uint32_t i = 0; i < kShardCount; i++) {
    if (num_dbs > 1) {
      shards_[i].other_dbs.reset(new DbTable[num_dbs - 1]);
    }
  }
}

Keyspace::~Keyspace() {
  for (uint32_t i = 0; i < kShardCount; i++) {
    for (int d = 0; d < num_dbs_; d++) {
      shards_[i].db(d).keys.Clear([](Entry* e) { Entry::Free(e); });
    }
  }
}

uint64_t Keyspace::expired_keys() const {
  return engine_internal::g_expired_keys.load(std::memory_order_relaxed);
}

void Keyspace::ResetExpiredKeys() { engine_internal::g_expired_keys.store(0, std::memory_order_relaxed); }

size_t Keyspace::DbSize(int db) {
  size_t n = 0;
  for (uint32_t i = 0; i < kShardCount; i++) {
    Shard& s = shards_[i];
    s.lock.lock_read();  // reads only: no snapshot pre-write save
    n += s.db(db).keys.size();
    s.lock.unlock();
  }
  return n;
}

size_t Keyspace::CountKeysInSlot(int db, uint32_t slot, bool locked) {
  Shard& s = shards_[ShardOfSlot(slot)];
  if (!locked) {
    s.lock.lock_read();
  }
  const size_t n = s.db(db).slot_keys[slot & (kSlotsPerShard - 1)];
  if (!locked) {
    s.lock.unlock();
  }
  return n;
}

void Keyspace::GetKeysInSlot(uint32_t slot, size_t count, std::vector<std::string>* out,
                             bool locked, int db) {
  Shard& s = shards_[ShardOfSlot(slot)];
  if (!locked) {
    s.lock.lock_read();
  }
  DbTable& t = s.db(db);
  const uint32_t local = slot & (kSlotsPerShard - 1);
  size_t left = std::min<size_t>(count, t.slot_keys[local]);
  if (left > 0) {
    out->reserve(out->size() + left);
    if (slot_index_ && !(t.slot_indexed & (1u << local))) {
      // The slot's first iteration (a reshard starting on it): one pass over the shard
      // builds its set, which the inserts and deletes keep from now on (DbTable). The
      // shard lock is exclusive, so nothing changes the table meanwhile.
      if (t.slot_index == nullptr) {
        t.slot_index = std::make_unique<SlotIndex>();
      }
      // The shard's table is visited in a scattered order (a golden-ratio stride over its
      // positions; odd, so every position once), not in table order: the set hashes
      // alike, and keys inserted in hash order into a smaller table pile up in one probe
      // run (quadratic: 131 s for a million keys of one hash tag, 0.74 s this way).
      KeyTable& st = t.slot_index->slots[local];
      const size_t cap = t.keys.capacity();
      const size_t mask = cap - 1;
      const size_t stride = (static_cast<size_t>(static_cast<double>(cap) * 0.6180339887) | 1) & mask;
      size_t pos = 0;
      for (size_t k = 0; k < cap; k++, pos = (pos + stride) & mask) {
        if (!t.keys.Occupied(pos)) {
          continue;
        }
        Entry* e = t.keys.At(pos);
        if (KeySlot(e->key()) == slot) {
          st.Insert(HashKey(e->key()), e);
        }
      }
      t.slot_indexed |= static_cast<uint16_t>(1u << local);
    }
    if (t.slot_indexed & (1u << local)) {
      t.slot_index->slots[local].ForEachWhile([&](Entry* e) {
        out->emplace_back(e->key());
        return --left > 0;
      });
    } else {
      // No index (cluster mode off): the shard's other slots are skipped by hash.
      t.keys.ForEachWhile([&](Entry* e) {
        if (KeySlot(e->key()) != slot) {
          return true;
        }
        out->emplace_back(e->key());
        return --left > 0;
      });
    }
  }
  if (!locked) {
    s.lock.unlock();
  }
}

Keyspace::DbStats Keyspace::Stats(int db, int64_t now_ms, bool (*held)(uint32_t)) {
  DbStats st;
  long double ttl_sum = 0;
  size_t ttl_samples = 0;
  for (uint32_t i = 0; i < kShardCount; i++) {
    Shard& s = shards_[i];
    const bool lock = held == nullptr || !held(i);
    if (lock) {
      s.lock.lock_read();
    }
    DbTable& t = s.db(db);
    st.keys += t.keys.size();
    st.expires += t.volatile_keys.size();
    // Estimate the average TTL from a few keys per shard, as Redis estimates it.
    size_t sample = std::min<size_t>(t.volatile_keys.size(), 4);
    for (size_t k = 0; k < sample; k++) {
      int64_t ttl = t.volatile_keys[k]->expire_ms() - now_ms;
      if (ttl > 0) {
        ttl_sum += ttl;
        ttl_samples++;
      }
    }
    if (lock) {
      s.lock.unlock();
    }
  }
  st.avg_ttl_ms = ttl_samples ? static_cast<int64_t>(ttl_sum / ttl_samples) : 0;
  return st;
}

std::vector<uint64_t> Keyspace::KeySizes(bool (*held)(uint32_t)) {
  constexpr size_t kPerDb = KeySizeHistogram::kTypes * KeySizeHistogram::kBins;
  std::vector<uint64_t> sum(static_cast<size_t>(num_dbs_) * kPerDb, 0);
  for (uint32_t i = 0; i < kShardCount; i++) {
    Shard& s = shards_[i];
    const bool lock = held == nullptr || !held(i);
    if (lock) {
      s.lock.lock_read();
    }
    for (int d = 0; d < num_dbs_; d++) {
      if (const KeySizeHistogram* h = s.db(d).key_sizes.get()) {
        h->AddTo(&sum[static_cast<size_t>(d) * kPerDb]);
      }
    }
    if (lock) {
      s.lock.unlock();
    }
  }
  return sum;
}

void Keyspace::LockAll() {
  for (uint32_t i = 0; i < kShardCount; i++) {
    shards_[i].lock.lock();
  }
}

void Keyspace::UnlockAll() {
  for (uint32_t i = kShardCount; i-- > 0;) {
    shards_[i].lock.unlock();
  }
}

void Keyspace::RemoveObserver(KeyObserver* o) {
  std::erase(observers_, o);
}

void Keyspace::Flush(int db, bool async) {
  const bool atomic = AtomicFlushWanted();
  if (atomic) {
    LockAll();
  }
  Database::TablesChanged();
  std::vector<DbTable> detached;
  for (uint32_t i = 0; i < kShardCount; i++) {
    Shard& s = shards_[i];
    if (!atomic) {
      s.lock.lock();
    }
    for (int d = 0; d < num_dbs_; d++) {
      if (db >= 0 && d != db) {
        continue;
      }
      DbTable& t = s.db(d);
      if (t.keys.empty()) {
        continue;
      }
      if (async) {
        if (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
          DetachVectorSetsInFlight(t.keys);  // freed later: their writes must not record
        }
        detached.emplace_back(std::move(t));
        t = DbTable();
      } else {
        t.keys.Clear([](Entry* e) { Entry::Free(e); });
        t.volatile_keys.clear();
        t.volatile_keys.shrink_to_fit();
        t.expire_cursor = 0;
        t.key_sizes.reset();
        t.field_ttl_keys.reset();
        t.field_ttl_cursor.clear();
        t.slot_keys.fill(0);
        t.slot_indexed = 0;
        t.slot_index.reset();
      }
    }
    if (!atomic) {
      s.lock.unlock();
    }
  }
  NotifyFlush(db);
  if (atomic) {
    UnlockAll();
  }
  if (!detached.empty()) {
    FreeTables(std::move(detached));
  }
}

void Keyspace::SwapDb(int a, int b) {
  NoteDbUsed(a);  // keys move between the two (a no-op for a database never used)
  NoteDbUsed(b);
  LockAll();
  Database::TablesChanged();
  for (uint32_t i = 0; i < kShardCount; i++) {
    std::swap(shards_[i].db(a), shards_[i].db(b));
  }
  NotifySwapDb(a, b);
  UnlockAll();
}

namespace {

// One visit of the active cycle to a table's hashes with field TTLs: up to kKeysPerVisit
// registered keys from where the last visit stopped, up to kFieldsPerKey expired fields
// each (the rest wait for the next visit). Keys that are gone, changed type or have no
// field TTL left are unregistered.
void ExpireHashFields(Database& view, DbTable& t, uint32_t shard, int64_t now_ms) {
  constexpr size_t kKeysPerVisit = 16;
  constexpr size_t kFieldsPerKey = 64;
  auto& keys = *t.field_ttl_keys;
  const size_t visits = std::min(kKeysPerVisit, keys.size());
  for (size_t i = 0; i < visits && !keys.empty(); i++) {
    auto it = keys.upper_bound(t.field_ttl_cursor);
    if (it == keys.end()) {
      it = keys.begin();
    }
    t.field_ttl_cursor = *it;
    const std::string& key = *it;
    KeyRef ref = view.Lookup(key, shard, HashKey(key));
    Entry* e = ref ? ref.entry() : nullptr;
    if (e == nullptr || !ObjectHasFieldTtls(e->type(), e)) {
      keys.erase(it);
      continue;
    }
    const auto* h = e->As<types::HashValue>();
    if (h->MinExpire() <= now_ms) {
      view.ExpireFields(ref, h->DueFields(now_ms, kFieldsPerKey), /*active=*/true);
    }
  }
}

}  // namespace

size_t Keyspace::ExpireCycle(uint32_t first, uint32_t stride, size_t* cursor, int64_t now_ms,
                             int64_t budget_us) {
  constexpr size_t kChecksPerVisit = 64;
  // A pass that has checked this many keys with a TTL and found under 10 % of them due
  // stops there (the cursor resumes at the next shard on the next tick), as Redis stops
  // sampling a database when under 10 % of its samples expired. Without it, 1M keys
  // with a TTL and none due cost the whole time budget (1.2 ms) on every tick: a stall
  // of the worker's event loop (bench/notes/2026-12-03-bursty-tail.md).
  constexpr size_t kLowYieldChecks = 400;
  size_t checks_total = 0;
  if (!active_expire()) {
    return 0;
  }
  const int64_t start = MonotonicUs();
  size_t expired = 0;
  // Only databases that ever held a key: with the default 16 databases and one in use,
  // a pass reads each shard's first cache line (lock and db 0's header) instead of
  // every database's header too (~0.3 ms per tick at 1M keys, a stall of the worker's
  // event loop; bench/notes/2026-12-03-bursty-tail.md).
  const uint64_t used = used_dbs();
  uint32_t owned = (kShardCount - first + stride - 1) / stride;
  for (uint32_t visited = 0; visited < owned; visited++) {
    uint32_t idx = first + static_cast<uint32_t>((*cursor % owned) * stride);
    *cursor = (*cursor + 1) % owned;
    Shard& s = shards_[idx];
    // A shard another thread holds (a long script) is skipped this pass, not waited for.
    // No walk snapshot pre-write save (try_lock_read): the cycle only drops keys and
    // fields whose TTL has passed, which loading the snapshot drops too; a save here
    // would have the cron encode every shard it visits.
    if (!s.lock.try_lock_read()) {
      continue;
    }
    for (int d = 0; d < num_dbs_; d++) {
      if (!(used & DbBit(d))) {
        continue;
      }
      DbTable& t = s.db(d);
      if (t.field_ttl_keys != nullptr && !t.field_ttl_keys->empty()) {
        Database view(this, d, now_ms);
        ExpireHashFields(view, t, idx, now_ms);
      }
      if (t.volatile_keys.empty()) {
        continue;
      }
      Database view(this, d, now_ms);
      for (size_t checks = 0; checks < kChecksPerVisit && !t.volatile_keys.empty(); checks++) {
        if (t.expire_cursor >= t.volatile_keys.size()) {
          t.expire_cursor = 0;
        }
        Entry* e = t.volatile_keys[t.expire_cursor];
        checks_total++;
        if (e->expire_ms() <= now_ms) {
          // The swap-remove brings another key to this position: check it next.
          KeyRef ref = view.Lookup(e->key(), idx, HashKey(e->key()));
          (void)ref;  // Lookup removed it and reported the expiry.
          expired++;
        } else {
          t.expire_cursor++;
        }
      }
    }
    s.lock.unlock();
    if (checks_total >= kLowYieldChecks && expired * 10 < checks_total) {
      break;
    }
    if ((visited & 15) == 15 && MonotonicUs() - start > budget_us) {
      expire_capped_.fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  expire_us_.fetch_add(static_cast<uint64_t>(MonotonicUs() - start), std::memory_order_relaxed);
  return expired;
}

}  // namespace hotkv

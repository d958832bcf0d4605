// Database: a command's view of one logical database (SELECT index) over the shards.
//
//   Database db(&keyspace, client_db, now_ms);
//   KeyRef ref = db.Lookup("user:1");        // expired keys are removed on the way
//   if (!ref) { db.Insert(ref, Entry::NewString(...)); }
//
// The caller must hold the lock of the key's shard for as long as it uses the KeyRef
// and any Entry* it got. A KeyRef is invalidated by any other insert/erase in the same
// table (positions move), so re-Lookup after touching another key of the same shard.
//
// Thread safety: none by itself; relies on the caller's shard locks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/keyspace.h"

namespace hotkv {

// The shard and hash (and cluster slot, when the caller has it) of a key computed once
// per command by the dispatcher (it needs the shard to lock) and reused by the first
// lookup of that key: matched by the identity of the argument's bytes, so a different
// key with equal contents simply recomputes.
inline constexpr uint32_t kNoSlot = ~uint32_t{0};
struct KeyHint {
  const char* data = nullptr;
  size_t size = 0;
  uint32_t shard = 0;
  uint32_t slot = kNoSlot;
  uint64_t hash = 0;
};
inline thread_local KeyHint t_key_hint;

// Whether this thread's hint is about `key` (the same argument bytes, not equal text).
inline bool KeyHintNames(std::string_view key) {
  return key.data() == t_key_hint.data && key.size() == t_key_hint.size;
}

inline void LocateKey(std::string_view key, uint32_t* shard, uint64_t* hash) {
  if (KeyHintNames(key)) {
    *shard = t_key_hint.shard;
    *hash = t_key_hint.hash;
    return;
  }
  *shard = Keyspace::ShardOf(key);
  *hash = HashKey(key);
}
// Also the key's cluster slot (kNoSlot when the hint that matched did not have it).
inline void LocateKey(std::string_view key, uint32_t* shard, uint64_t* hash, uint32_t* slot) {
  if (KeyHintNames(key)) {
    *shard = t_key_hint.shard;
    *hash = t_key_hint.hash;
    *slot = t_key_hint.slot;
    return;
  }
  *slot = KeySlot(key);
  *shard = Keyspace::ShardOfSlot(*slot);
  *hash = HashKey(key);
}

inline void SetKeyHint(std::string_view key, uint32_t shard, uint64_t hash,
                       uint32_t slot = kNoSlot) {
  t_key_hint = KeyHint{key.data(), key.size(), shard, slot, hash};
}

// Bumped by every change on this thread that may free or move an entry (insert, erase,
// re-allocation, flush, swap): what a Database view remembers of a lookup is trusted only
// while it is unchanged. Other threads cannot change a table whose shard lock we hold.
inline thread_local uint64_t t_table_epoch = 0;

struct KeyRef {
  DbTable* table = nullptr;
  size_t pos = KeyTable::kNotFound;
  uint64_t hash = 0;
  uint32_t shard = 0;
  uint32_t slot = kNoSlot;  // the key's cluster slot when known (else computed on insert/delete)

  explicit operator bool() const { return pos != KeyTable::kNotFound; }
  Entry* entry() const { return table->keys.At(pos); }
};

class Database {
 public:
  Database(Keyspace* ks, int index, int64_t now_ms) : ks_(ks), index_(index), now_ms_(now_ms) {}

  int index() const { return index_; }
  int64_t now_ms() const { return now_ms_; }
  Keyspace* keyspace() const { return ks_; }

  // Finds a live key; an expired one is deleted (and reported) and counts as missing.
  KeyRef Lookup(std::string_view key);
  // Like Lookup, with a precomputed shard and hash (and slot, kNoSlot if not known).
  KeyRef Lookup(std::string_view key, uint32_t shard, uint64_t hash, uint32_t slot = kNoSlot);
  Entry* Find(std::string_view key) {
    KeyRef r = Lookup(key);
    return r ? r.entry() : nullptr;
  }

  // Inserts `e` (whose key is ref's key) where Lookup found nothing. Sets ref.pos.
  void Insert(KeyRef& ref, Entry* e);
  // Puts a new block for the same key in place of the current one. A TTL on the old
  // block carries over unless ClearTtl was called first. Frees nothing; returns the old.
  Entry* Replace(KeyRef& ref, Entry* e);
  // Points the table at `e`, the block of ref's entry after Entry::GrowString moved it
  // (realloc: the old pointer is already freed, so nothing may read it). The header,
  // TTL state included, moved with it.
  void Relocated(KeyRef& ref, Entry* e);
  // Removes the key and frees its entry.
  void Erase(KeyRef& ref);
  // Removes the key and returns its entry (RENAME, MOVE); TTL state stays in the block.
  Entry* Detach(KeyRef& ref);

  // After a command changed the value of `key` (its length or element count), moves the
  // key to its new INFO keysizes bin. Expires nothing; a missing key is a no-op. When
  // `key` is the very argument this view last looked up (or inserted) and no table changed
  // since, it reuses that entry instead of a second lookup (most writes: one key, looked
  // up, changed, then KeyModified).
  void UpdateKeySize(std::string_view key) {
    // The argument this view last looked up: its entry (same length as a check; equal
    // hashes in the same table stand for equal keys).
    if (last_.epoch == t_table_epoch && key.data() == last_.data && last_.entry != nullptr &&
        last_.entry->key().size() == key.size()) {
      last_.table->RecountKeySize(last_.entry);
      return;
    }
    UpdateKeySizeByLookup(key);
  }
  // Whole tables were dropped or swapped (FLUSH*, SWAPDB): forget remembered entries.
  static void TablesChanged() { t_table_epoch++; }

  // Hash field expiry. Registers `key` (a hash that now has a field TTL) for the active
  // expiry cycle; idempotent.
  void NoteFieldTtls(std::string_view key);
  // Deletes `fields` (of the hash at ref, whose time has come), reports them to the
  // observers ("hexpired" / HDEL, see KeyObserver::OnFieldsExpired) and deletes the key
  // when no field is left (ref is then not found).
  void ExpireFields(KeyRef& ref, const std::vector<std::string>& fields, bool active);

  // Sets an absolute expiry time (may re-allocate the entry).
  void SetTtl(KeyRef& ref, int64_t expire_ms);
  // Removes the TTL; returns whether there was one.
  bool ClearTtl(KeyRef& ref);

  // Replaces a string value, reusing the block when it fits. keep_ttl=false drops a TTL.
  void SetString(KeyRef& ref, std::string_view key, std::string_view value, bool keep_ttl);

  bool IsExpired(const Entry* e) const { return e->has_ttl() && e->expire_ms() <= now_ms_; }

  // Cache hints for a key about to be looked up, so that a command on many keys (MGET) or
  // a pipelined batch (pipeline-prefetch) waits for their memory once, not once per key:
  // first every key's table slot, then (a second pass, when the slots have arrived) every
  // entry. Safe without the shard lock (see KeyTable's prefetch support).
  void PrefetchSlot(uint32_t shard, uint64_t hash) {
    __builtin_prefetch(Table(shard).keys.PrefetchSlotAddress(hash));
  }
  void PrefetchEntry(uint32_t shard, uint64_t hash) {
    if (const void* e = Table(shard).keys.PrefetchEntryAddress(hash)) {
      KeyTable::PrefetchEntryLines(e);
    }
  }

 private:
  DbTable& Table(uint32_t shard) { return ks_->shard(shard).db(index_); }
  void ExpireNow(KeyRef& ref);
  void UpdateKeySizeByLookup(std::string_view key);
  // An entry block was replaced by `e` (Replace, Relocated, SetTtl's re-allocation).
  void Remembered(const Entry* old, Entry* e);
  // Per-slot bookkeeping (DbTable::slot_keys / slot_index) of entering, leaving and
  // moved blocks.
  void SlotAdd(KeyRef& ref, Entry* e);
  void SlotRemove(KeyRef& ref, const Entry* e);
  static void SlotMoved(const KeyRef& ref, const Entry* old, Entry* e) {
    if (ref.table->slot_indexed != 0) [[unlikely]] {
      SlotReplace(ref, old, e);
    }
  }
  static void SlotReplace(const KeyRef& ref, const Entry* old, Entry* e);

  // The last key looked up through this view: where the argument's bytes are (compared
  // as an address, never read), its table and entry (null when missing). The other
  // fields mean something only while t_table_epoch is `epoch` (left uninitialised: a
  // view is made for every command).
  struct LastKey {
    const char* data;
    DbTable* table;
    Entry* entry;
    uint64_t hash;
    uint64_t epoch = ~uint64_t{0};
  };

  Keyspace* ks_;
  int index_;
  int64_t now_ms_;
  LastKey last_;
};

// Removes `e` from its table's volatile list (it must have a TTL). Exposed for Keyspace.
void RemoveFromVolatile(DbTable& t, Entry* e);
void AddToVolatile(DbTable& t, Entry* e);

}  // namespace hotkv

#include "engine/database.h"

#include <atomic>

#include "engine/expiry_pause.h"
#include "types/hash_value.h"

namespace hotkv {

namespace engine_internal {
std::atomic<uint64_t> g_expired_keys{0};
}

namespace {
thread_local bool t_keep_expired = false;
}

void SetLookupKeepsExpired(bool on) { t_keep_expired = on; }
bool LookupKeepsExpired() { return t_keep_expired; }

void AddToVolatile(DbTable& t, Entry* e) {
  e->set_volatile_index(static_cast<uint32_t>(t.volatile_keys.size()));
  t.volatile_keys.push_back(e);
}

void RemoveFromVolatile(DbTable& t, Entry* e) {
  uint32_t i = e->volatile_index();
  Entry* last = t.volatile_keys.back();
  t.volatile_keys[i] = last;
  last->set_volatile_index(i);
  t.volatile_keys.pop_back();
}

KeyRef Database::Lookup(std::string_view key) {
  uint32_t shard;
  uint64_t hash;
  uint32_t slot;
  LocateKey(key, &shard, &hash, &slot);
  return Lookup(key, shard, hash, slot);
}

KeyRef Database::Lookup(std::string_view key, uint32_t shard, uint64_t hash, uint32_t slot) {
  KeyRef ref;
  ref.table = &Table(shard);
  ref.hash = hash;
  ref.shard = shard;
  ref.slot = slot;
  ref.pos = ref.table->keys.Find(key, hash);
  if (ref && IsExpired(ref.entry())) {
    if (t_keep_expired) [[unlikely]] {
      ref.pos = KeyTable::kNotFound;  // CLIENT PAUSE: missing, but not deleted
    } else {
      ExpireNow(ref);
    }
  }
  last_.data = key.data();
  last_.table = ref.table;
  last_.entry = ref ? ref.entry() : nullptr;
  last_.hash = hash;
  last_.epoch = t_table_epoch;
  return ref;
}

void Database::ExpireNow(KeyRef& ref) {
  Entry* e = ref.entry();
  ks_->NotifyExpired(index_, e->key());
  engine_internal::g_expired_keys.fetch_add(1, std::memory_order_relaxed);
  Erase(ref);
}

void Database::Insert(KeyRef& ref, Entry* e) {
  if (last_.epoch == t_table_epoch && last_.entry == nullptr && last_.table == ref.table &&
      last_.hash == ref.hash) {
    last_.entry = e;  // the key the last lookup missed
    last_.epoch = t_table_epoch + 1;
  }
  t_table_epoch++;
  ks_->StampNew(e);
  // A key that appears now is not part of a running walk snapshot's image, even if its
  // block was made before the walk's barrier (or is a renamed key's).
  e->set_snapshot_mark(g_entry_snapshot_mark.load(std::memory_order_relaxed));
  ks_->NoteDbUsed(index_);
  ref.pos = ref.table->keys.Insert(ref.hash, e);
  SlotAdd(ref, e);
  ref.table->CountKeySize(e);
  if (e->has_ttl()) {
    AddToVolatile(*ref.table, e);
  }
  if (ObjectHasFieldTtls(e->type(), e)) {
    ref.table->NoteFieldTtls(e->key());
  }
  ks_->NotifyCreated(index_, e->key(), e->type());
}

void Database::SlotAdd(KeyRef& ref, Entry* e) {
  if (ref.slot == kNoSlot) {
    ref.slot = KeySlot(e->key());
  }
  DbTable& t = *ref.table;
  const uint32_t local = ref.slot & (kSlotsPerShard - 1);
  t.slot_keys[local]++;
  if (t.slot_indexed & (1u << local)) [[unlikely]] {
    t.slot_index->slots[local].Insert(ref.hash, e);
  }
}

void Database::SlotRemove(KeyRef& ref, const Entry* e) {
  if (ref.slot == kNoSlot) {
    ref.slot = KeySlot(e->key());
  }
  DbTable& t = *ref.table;
  const uint32_t local = ref.slot & (kSlotsPerShard - 1);
  t.slot_keys[local]--;
  if (t.slot_indexed & (1u << local)) [[unlikely]] {
    KeyTable& st = t.slot_index->slots[local];
    if (t.slot_keys[local] == 0) {
      // The slot emptied (migrated away, deleted): its set goes; a later GetKeysInSlot
      // builds it again if the slot fills up again.
      st = KeyTable();
      t.slot_indexed &= static_cast<uint16_t>(~(1u << local));
      return;
    }
    const size_t pos = st.FindPointer(ref.hash, e);
    if (pos != KeyTable::kNotFound) {
      st.EraseAt(pos);
    }
  }
}

void Database::SlotReplace(const KeyRef& ref, const Entry* old, Entry* e) {
  const uint32_t slot = ref.slot != kNoSlot ? ref.slot : KeySlot(e->key());
  const uint32_t local = slot & (kSlotsPerShard - 1);
  if (!(ref.table->slot_indexed & (1u << local))) {
    return;  // another slot of the shard is indexed, not this one
  }
  KeyTable& st = ref.table->slot_index->slots[local];
  const size_t pos = st.FindPointer(ref.hash, old);
  if (pos != KeyTable::kNotFound) {
    st.Replace(pos, e);
  }
}

void Database::NoteFieldTtls(std::string_view key) {
  uint32_t shard;
  uint64_t hash;
  LocateKey(key, &shard, &hash);
  Table(shard).NoteFieldTtls(key);
}

void Database::ExpireFields(KeyRef& ref, const std::vector<std::string>& fields, bool active) {
  Entry* e = ref.entry();
  auto* h = e->As<types::HashValue>();
  for (const std::string& f : fields) {
    h->Erase(f);
  }
  const bool gone = h->empty();
  ks_->NotifyFieldsExpired(index_, e->key(), fields, gone, active);
  ks_->CountExpiredFields(fields.size(), active);
  if (gone) {
    Erase(ref);
  } else {
    ref.table->RecountKeySize(e);
  }
}

Entry* Database::Replace(KeyRef& ref, Entry* e) {
  Entry* old = ref.entry();
  if (old == e) {
    return old;
  }
  e->set_snapshot_mark(g_entry_snapshot_mark.load(std::memory_order_relaxed));  // see Insert
  if (old->has_ttl()) {
    if (!e->has_expire_block()) {
      e = Entry::WithExpireBlock(e);
    }
    e->SetExpireMs(old->expire_ms());
    e->set_volatile_index(old->volatile_index());
    ref.table->volatile_keys[old->volatile_index()] = e;
  } else if (e->has_ttl()) {
    AddToVolatile(*ref.table, e);
  }
  ref.table->keys.Replace(ref.pos, e);
  SlotMoved(ref, old, e);
  ref.table->UncountKeySize(old);
  ref.table->CountKeySize(e);
  if (ObjectHasFieldTtls(e->type(), e)) {
    ref.table->NoteFieldTtls(e->key());
  }
  Remembered(old, e);
  return old;
}

void Database::Remembered(const Entry* old, Entry* e) {
  const bool same = last_.entry == old && last_.epoch == t_table_epoch;
  t_table_epoch++;
  if (same) {
    last_.entry = e;
    last_.epoch = t_table_epoch;
  }
}

void Database::Relocated(KeyRef& ref, Entry* e) {
  if (e->has_ttl()) {
    ref.table->volatile_keys[e->volatile_index()] = e;
  }
  Entry* old = ref.table->keys.At(ref.pos);  // freed by realloc: only compared
  ref.table->keys.Replace(ref.pos, e);
  SlotMoved(ref, old, e);
  Remembered(old, e);
}

void Database::Erase(KeyRef& ref) {
  Entry::Free(Detach(ref));
}

Entry* Database::Detach(KeyRef& ref) {
  t_table_epoch++;
  Entry* e = ref.entry();
  if (e->has_ttl()) {
    RemoveFromVolatile(*ref.table, e);
  }
  ref.table->keys.EraseAt(ref.pos);
  SlotRemove(ref, e);
  ref.table->UncountKeySize(e);
  ref.pos = KeyTable::kNotFound;
  return e;
}

void Database::UpdateKeySizeByLookup(std::string_view key) {
  uint32_t shard;
  uint64_t hash;
  LocateKey(key, &shard, &hash);
  DbTable& t = Table(shard);
  const size_t pos = t.keys.Find(key, hash);
  if (pos != KeyTable::kNotFound) {
    t.RecountKeySize(t.keys.At(pos));
  }
}

void Database::SetTtl(KeyRef& ref, int64_t expire_ms) {
  Entry* e = ref.entry();
  if (e->has_ttl()) {
    e->SetExpireMs(expire_ms);
    return;
  }
  if (!e->has_expire_block()) {
    Entry* old = e;
    e = Entry::WithExpireBlock(e);
    ref.table->keys.Replace(ref.pos, e);
    SlotMoved(ref, old, e);
    Remembered(old, e);
  }
  e->SetExpireMs(expire_ms);
  AddToVolatile(*ref.table, e);
}

bool Database::ClearTtl(KeyRef& ref) {
  Entry* e = ref.entry();
  if (!e->has_ttl()) {
    return false;
  }
  RemoveFromVolatile(*ref.table, e);
  e->ClearTtl();
  return true;
}

void Database::SetString(KeyRef& ref, std::string_view key, std::string_view value,
                         bool keep_ttl) {
  if (!ref) {
    Insert(ref, Entry::NewString(key, value, false));
    return;
  }
  Entry* e = ref.entry();
  if (!keep_ttl) {
    ClearTtl(ref);
  }
  if (e->is_string()) {
    const size_t cap = e->str_capacity();  // one malloc_usable_size
    if (value.size() <= cap && cap <= 2 * value.size() + 64) {
      // Same-sized overwrite: reuse the block (no allocation on the SET hot path).
      e->AssignString(value);
      return;
    }
  }
  Entry* n = Entry::NewString(key, value, e->has_ttl());
  Entry::Free(Replace(ref, n));
}

}  // namespace hotkv

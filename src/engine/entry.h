// Entry: the single heap block that holds one key and its value.
//
//   [ header 16 B ][ expire block 16 B, optional ][ object pointer 8 B, non-strings ]
//   [ key bytes ][ string value bytes ... up to the allocation's usable size ]
//
// A string key costs one allocation: header + key + value, so a 16-byte key with a
// 256-byte value is one ~300-byte block. Collections keep a pointer to their data
// structure (types/). The expire block is present only on keys that have (or had) a TTL;
// adding the first TTL re-allocates the block (the table slot and the volatile-key index
// are updated by the caller, DbTable).
//
// Strings are stored as bytes. OBJECT ENCODING reports what Redis would ("int" for a
// canonical 64-bit integer, "embstr" up to 44 bytes, else "raw"; APPEND/SETRANGE force
// "raw" as in Redis), computed from the bytes rather than stored.
//
// Thread safety: an Entry belongs to its shard; touch it only with the shard lock held.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hotkv {

enum class ValueType : uint8_t {
  kString = 0,
  kList = 1,
  kSet = 2,
  kZSet = 3,
  kHash = 4,
  kStream = 5,
  kVectorSet = 6,
  kJson = 7,  // ReJSON-RL: a json::Node document (json/json_node.h)
};

// The name TYPE and SCAN TYPE use.
std::string_view TypeName(ValueType t);

// The value of Entry::kSnapshotMark a block created now gets: flipped by each walk
// snapshot at its barrier (every shard locked), so that every key existing then reads as
// not saved (persistence/snapshot_walk.h).
extern std::atomic<uint8_t> g_entry_snapshot_mark;

class Entry {
 public:
  enum Flags : uint8_t {
    kExpireBlock = 1,  // layout has the 16-byte expire block
    kHasTtl = 2,       // the expire time is set
    kRawString = 4,    // encoding forced to "raw" (APPEND/SETRANGE)
    // A walk snapshot's per-key "saved" mark (persistence/snapshot_walk.h): an entry is
    // saved in the running walk when this bit equals g_entry_snapshot_mark. New blocks
    // take the current value (a key created during a walk is not in its image); copies of
    // a block for the same key (WithExpireBlock, GrowString, Rekey) keep it.
    kSnapshotMark = 8,
  };

  static constexpr size_t kHeaderSize = 16;
  static constexpr size_t kExpireBlockSize = 16;

  // Allocates a string entry. `reserve` extra bytes are guaranteed beyond the value.
  static Entry* NewString(std::string_view key, std::string_view value, bool expire_block,
                          size_t reserve = 0);
  // Allocates an entry holding a collection object (ownership passes to the entry).
  static Entry* NewObject(std::string_view key, ValueType type, void* object, bool expire_block);
  // Frees the block and, for collections, the object.
  static void Free(Entry* e);
  // Deep copy under a new key (COPY, RENAME keeps the block instead).
  static Entry* Clone(const Entry* e, std::string_view new_key);

  // Moves the value (and TTL state) of `e` into a new block under `new_key`; frees the
  // old block but not the collection object, which the new block now owns.
  static Entry* Rekey(Entry* e, std::string_view new_key);
  // Re-allocates `e` so it has an expire block; returns the new block (e is invalid).
  static Entry* WithExpireBlock(Entry* e);
  // Re-allocates a string entry so that its value can hold `capacity` bytes; existing
  // bytes are kept. Returns the new block (e is invalid: freed, not even readable; tell
  // the table with Database::Relocated).
  static Entry* GrowString(Entry* e, size_t capacity);

  std::string_view key() const { return {KeyPtr(), key_len_}; }
  ValueType type() const { return static_cast<ValueType>(type_); }
  bool is_string() const { return type_ == 0; }

  bool has_ttl() const { return flags_ & kHasTtl; }
  bool has_expire_block() const { return flags_ & kExpireBlock; }
  int64_t expire_ms() const {
    int64_t v;
    memcpy(&v, Base() + kHeaderSize, 8);
    return v;
  }
  // Requires has_expire_block().
  void SetExpireMs(int64_t ms) {
    memcpy(Base() + kHeaderSize, &ms, 8);
    flags_ |= kHasTtl;
  }
  void ClearTtl() { flags_ &= ~kHasTtl; }
  uint32_t volatile_index() const {
    uint32_t v;
    memcpy(&v, Base() + kHeaderSize + 8, 4);
    return v;
  }
  void set_volatile_index(uint32_t i) { memcpy(Base() + kHeaderSize + 8, &i, 4); }

  // Strings.
  std::string_view str() const { return {ValuePtr(), value_len_}; }
  char* str_data() { return ValuePtr(); }
  size_t str_size() const { return value_len_; }
  size_t str_capacity() const;
  // Sets the value length (bytes up to capacity must already be written).
  void set_str_size(size_t n) { value_len_ = static_cast<uint32_t>(n); }
  // Overwrites the value in place; requires value.size() <= str_capacity().
  void AssignString(std::string_view value) {
    memcpy(ValuePtr(), value.data(), value.size());
    value_len_ = static_cast<uint32_t>(value.size());
    flags_ &= ~kRawString;
  }
  bool raw_forced() const { return flags_ & kRawString; }
  // Walk snapshots (see kSnapshotMark). Under the shard lock.
  uint8_t snapshot_mark() const { return flags_ & kSnapshotMark; }
  void set_snapshot_mark(uint8_t m) {
    flags_ = static_cast<uint8_t>((flags_ & ~kSnapshotMark) | m);
  }
  void set_raw_forced() { flags_ |= kRawString; }
  std::string_view StringEncoding() const;

  // Collections.
  void* object() const {
    void* p;
    memcpy(&p, Base() + ObjectOffset(), sizeof(p));
    return p;
  }
  void set_object(void* p) { memcpy(Base() + ObjectOffset(), &p, sizeof(p)); }
  template <typename T>
  T* As() const {
    return static_cast<T*>(object());
  }

  // Access tracking for OBJECT IDLETIME / FREQ (LRU clock seconds or LFU minutes).
  uint32_t access_clock() const { return access_clock_; }
  void set_access_clock(uint32_t c) { access_clock_ = c; }
  uint8_t lfu_counter() const { return lfu_; }
  void set_lfu_counter(uint8_t c) { lfu_ = c; }

  // The INFO keysizes bin this key is counted in while it sits in a table (see
  // engine/key_sizes.h); kNotCounted for types Redis does not count. Copied with the
  // header when the block moves (Rekey, WithExpireBlock, GrowString).
  static constexpr uint8_t kNotCounted = 0xFF;
  uint8_t size_bin() const { return size_bin_; }
  void set_size_bin(uint8_t b) { size_bin_ = b; }

  // Bytes owned by this key (block + object), for MEMORY USAGE.
  size_t MemoryUsage() const;
  // OBJECT ENCODING name.
  std::string_view EncodingName() const;

 private:
  Entry() = default;
  char* Base() { return reinterpret_cast<char*>(this); }
  const char* Base() const { return reinterpret_cast<const char*>(this); }
  size_t ObjectOffset() const { return kHeaderSize + ((flags_ & kExpireBlock) ? kExpireBlockSize : 0); }
  size_t KeyOffset() const { return ObjectOffset() + (type_ == 0 ? 0 : sizeof(void*)); }
  const char* KeyPtr() const { return Base() + KeyOffset(); }
  char* ValuePtr() const { return const_cast<char*>(Base()) + KeyOffset() + key_len_; }

  static Entry* Allocate(size_t bytes);

  uint32_t key_len_;
  uint32_t value_len_;
  uint32_t access_clock_;
  uint8_t type_;
  uint8_t flags_;
  uint8_t lfu_;
  uint8_t size_bin_;
};

static_assert(sizeof(Entry) == Entry::kHeaderSize);

// Destroys a collection object of the given type (defined beside the types it knows).
void DestroyObject(ValueType type, void* object);
void* CloneObject(ValueType type, const void* object);
size_t ObjectMemoryUsage(ValueType type, const void* object);
// Elements of a list, set, sorted set or hash (0 for other types).
size_t ObjectLength(ValueType type, const void* object);
// Allocations freeing the object walks, as Redis's lazyfreeGetFreeEffort (lazy_free.h).
size_t ObjectFreeEffort(ValueType type, const void* object);
std::string_view ObjectEncodingName(ValueType type, const void* object);
// Whether `e` is a hash with at least one field TTL (a type check for anything else).
bool HashHasFieldTtls(const Entry* e);
inline bool ObjectHasFieldTtls(ValueType type, const Entry* e) {
  return type == ValueType::kHash && HashHasFieldTtls(e);
}

}  // namespace hotkv

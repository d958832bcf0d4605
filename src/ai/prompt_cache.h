// PromptCache: the value of a "pcache" key (PCACHE.*, docs/ai.md): the prefix cache of
// an LLM server. A prompt is a chain of token blocks; each block has a key (a hash of its
// parent's key and its tokens, computed by the client or by PCACHE.PUTTOKENS) and an
// opaque value (KV-cache bytes). Blocks form a forest through their parents.
//
//   Entry (kValueTypeExtension) -> PcacheValue -> std::shared_ptr<PromptCache> (shared
//   with the commands in flight) -> blocks: key -> Block {value (shared, immutable),
//   parent, children (intrusive sibling list), expiry, last use}
//
// Rules.
// - A block is present when it exists and has not expired. An expired block counts as
//   absent everywhere; it is removed (with its descendants) by writes (a bounded sweep per
//   write, and before any eviction).
// - A block never outlives its parent: its expiry is capped by its parent's (a child is
//   useless without its parent). Deleting a block deletes its descendants.
// - Byte budget (0: none): the bytes of keys and values. A write that would exceed it
//   first removes expired blocks, then evicts the least recently used leaf (a block with
//   no children), repeatedly. So a block whose descendants were used after it stays while
//   they do, and when a prefix goes it goes deepest block first: evicting block B "with its
//   descendants" is the same as evicting the leaves under B in LRU order up to B, which
//   is what the leaf order does, stopping as soon as the new blocks fit. The blocks a write
//   links to (the parent and its ancestors, and the blocks it replaces) are never evicted by
//   that write; when they and the new blocks cannot fit, the write fails and changes
//   nothing.
// - A use (GET, MGET, a LONGEST match, PUT) makes the block the most recently used.
// - PUT of an existing block replaces its value and expiry and keeps its children; its
//   parent cannot change.
//
// Changes that the write stream must replay are reported through a ChangeFn called under
// the mutex in apply order (evictions and expirations as one kDel before the kPut that
// caused them).
//
// Thread safety: every public method is thread-safe (one mutex, held for map work only:
// values are shared_ptrs handed out and copied into replies without it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hotkv::ai {

struct PromptCacheOptions {
  uint64_t budget_bytes = 0;  // keys + values; 0: unbounded
  int64_t ttl_ms = 0;         // default block TTL; 0: none
};

// Limits (documented in docs/ai.md).
inline constexpr size_t kMaxBlockKeyBytes = 1024;
inline constexpr size_t kMaxBlockValueBytes = size_t{512} << 20;
inline constexpr int64_t kMaxPcacheTtlSeconds = 315360000;  // 10 years
inline constexpr uint64_t kMaxBudgetBytes = uint64_t{1} << 50;

using BlockValue = std::shared_ptr<const std::string>;

class PromptCache {
 public:
  struct Change {
    enum class Kind { kPut, kDel, kConfig };
    Kind kind;
    // kPut: one block, as the PUT the AOF replays (parent empty: none).
    std::string_view key, parent;
    bool has_parent = false;
    const std::string* value = nullptr;
    int64_t expire_at_ms = 0;
    // kDel: keys removed (expired or evicted), each with its descendants.
    std::span<const std::string> keys;
  };
  using ChangeFn = std::function<void(const Change&)>;

  // One block of a Put: a chain, block i's parent is block i-1 (block 0's: `parent`).
  struct PutItem {
    std::string_view key;
    BlockValue value;
  };
  struct PutRequest {
    std::span<const PutItem> items;
    std::optional<std::string_view> parent;
    std::optional<int64_t> ttl_ms;        // nullopt: the namespace's default; 0: none
    std::optional<int64_t> expire_at_ms;  // the replay form (PXAT): absolute, 0 none
  };
  struct Stats {
    size_t blocks;
    uint64_t bytes;
    uint64_t hits, misses, evictions, expirations;
    size_t memory;
  };

  explicit PromptCache(const PromptCacheOptions& o) : options_(o) {}

  PromptCacheOptions options() const;
  // Sets the options; a lower budget evicts now. Reported as kDel then kConfig.
  void Configure(const PromptCacheOptions& o, int64_t now_ms, const ChangeFn& changes);

  // Stores a chain of blocks. Errors change nothing: missing (or expired) parent, a block
  // that exists under another parent, the blocks and their ancestors beyond the budget.
  Status Put(const PutRequest& req, int64_t now_ms, const ChangeFn& changes);
  // The number of leading keys present; each match is a use (hits += matches, misses +1
  // when a key is absent).
  size_t Longest(std::span<const std::string_view> keys, int64_t now_ms);
  // The same for the keys packed end to end in `blob`, each `width` bytes (a trailing
  // partial key is ignored): no view per key is built (PCACHE.LONGESTBLOB).
  size_t LongestPacked(std::string_view blob, size_t width, int64_t now_ms);
  // The values of `keys` (null: absent); each present one is a use.
  void Get(std::span<const std::string_view> keys, int64_t now_ms, std::vector<BlockValue>* out);
  // Removes blocks and their descendants; returns the number of present blocks removed.
  // Reports the keys given that existed as one kDel.
  size_t Delete(std::span<const std::string_view> keys, int64_t now_ms, const ChangeFn& changes);

  Stats GetStats() const;
  size_t size() const;
  size_t MemoryUsage() const;
  std::shared_ptr<PromptCache> Clone() const;  // values (immutable) are shared

  // Persistence: every block (expired ones too), parents before children, with its last
  // use order.
  struct SavedBlock {
    std::string key, parent;
    bool has_parent = false;
    int64_t expire_at_ms = 0;
    uint64_t used = 0;
    BlockValue value;
  };
  struct Snapshot {
    PromptCacheOptions options;
    uint64_t hits = 0, misses = 0, evictions = 0, expirations = 0, clock = 0;
    std::vector<SavedBlock> blocks;
  };
  Snapshot TakeSnapshot() const;
  // Rebuilds a snapshot into this (empty) cache; error on a dangling parent or duplicate.
  Status Restore(Snapshot snap);

  // Tests: checks every internal invariant (links, leaf and expiry sets, byte count,
  // expiries capped by parents); the first one broken as an error.
  Status CheckInvariants() const;

 private:
  // Up to this many key bytes are kept in the Block itself too (LONGEST's chain walk
  // compares keys without touching the map key's separate heap bytes: a cache miss per
  // block of a long chain, most of the walk's time).
  static constexpr size_t kInlineKey = 32;
  struct Block {
    // The fields LONGEST's walk reads first (the children's links, the expiry, the key).
    Block* first_child = nullptr;
    Block* next_sibling = nullptr;
    int64_t expire_at_ms = 0;  // 0: none
    uint64_t used = 0;         // last use (clock_ tick)
    uint8_t key_len = 0;       // key->size() when <= kInlineKey (then key_inline holds it)
    bool pinned = false;       // during a Put: not evictable
    char key_inline[kInlineKey];
    const std::string* key = nullptr;  // the map's key
    BlockValue value;
    Block* parent = nullptr;
    Block* prev_sibling = nullptr;
    size_t bytes() const { return key->size() + value->size(); }
    // Whether this block's key is k (prompt_cache.cc).
    inline bool KeyIs(std::string_view k) const;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };

  bool Expired(const Block& b, int64_t now_ms) const {
    return b.expire_at_ms != 0 && b.expire_at_ms <= now_ms;
  }
  Block* FindLocked(std::string_view key);
  // Longest over keys key_at(0) .. key_at(count - 1), each W bytes when W is not 0.
  template <size_t W, typename KeyAt>
  size_t LongestOf(size_t count, const KeyAt& key_at, int64_t now_ms);
  Block* FindLiveLocked(std::string_view key, int64_t now_ms);
  void UseLocked(Block* b);
  void SetExpiryLocked(Block* b, int64_t expire_at_ms);
  // Links a new block (value set) under `parent` (may be null).
  Block* InsertLocked(std::string_view key, BlockValue value, Block* parent, int64_t expire_at_ms,
                      uint64_t used);
  // Removes `b` and its descendants; returns how many blocks went.
  size_t RemoveSubtreeLocked(Block* b);
  // Removes up to `limit` expired blocks (with descendants); their keys to `removed`.
  void SweepLocked(int64_t now_ms, size_t limit, std::vector<std::string>* removed);
  // Evicts until bytes_ + extra <= budget (expired blocks first, then unpinned leaves);
  // false when nothing is left to evict.
  bool EvictLocked(uint64_t extra, int64_t now_ms, std::vector<std::string>* removed);
  void ReportDel(const std::vector<std::string>& removed, const ChangeFn& changes);

  // Values dropped under the mutex are moved to freed_ and released after it: freeing a
  // large value (or many) never holds up the namespace's other clients.
  struct ReleaseAfterUnlock {
    std::vector<BlockValue>& out;
    std::vector<BlockValue>& from;
    ~ReleaseAfterUnlock() { out.swap(from); }  // runs under the mutex, before the unlock
  };

  mutable std::mutex mu_;
  PromptCacheOptions options_;
  std::unordered_map<std::string, Block, Hash, Eq> blocks_;
  std::set<std::pair<uint64_t, Block*>> leaves_;       // by last use: eviction order
  std::set<std::pair<int64_t, Block*>> expiry_;        // blocks with an expiry
  uint64_t bytes_ = 0;
  uint64_t clock_ = 0;
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0, expirations_ = 0;
  std::vector<BlockValue> freed_;  // see ReleaseAfterUnlock
};

}  // namespace hotkv::ai

// Eviction: choosing and removing keys when used memory passes maxmemory, by Redis's
// policies and with Redis's approximation (sampling, not a global LRU list).
//
//   EvictionPool pool;                              // one per worker thread
//   EvictionParams p{.policy = EvictionPolicy::kAllkeysLru, .samples = 5, ...};
//   while (over_limit && EvictOneKey(ks, p, pool, rng)) { ... }
//
// LRU/LFU/TTL policies sample `samples` keys from each database of a random non-empty
// shard (its TTL list for volatile-*), offer them to a small pool of the best
// candidates seen so far (as Redis's evictionPoolPopulate), and evict the pool's best
// key that still exists. Random policies evict a random key of a random non-empty shard.
// Every eviction reports KeyObserver::OnKeyEvicted (every observer) before the key is freed.
//
// Thread safety: EvictOneKey locks one shard at a time and must be called with no shard
// lock held. An EvictionPool belongs to one thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/random.h"
#include "engine/keyspace.h"

namespace hotkv {

// In the order of the maxmemory-policy option's values.
enum class EvictionPolicy : int {
  kVolatileLru = 0,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoEviction,
};

struct EvictionParams {
  EvictionPolicy policy = EvictionPolicy::kNoEviction;
  int samples = 5;
  uint32_t lru_clock = 0;       // the server's LRU clock (seconds) for idle times
  int64_t lfu_decay_time = 1;   // minutes per counter decrement (lfu-decay-time)
  int64_t now_ms = 0;
};

// The LFU counter of `e` after decay: one step down per `decay_time` minutes since the
// entry's last access (its access clock holds minutes in LFU mode). Redis's
// LFUDecrAndReturn.
uint8_t LfuDecayedCounter(const Entry* e, uint32_t now_minutes, int64_t decay_time);

// The LFU counter after one access: +1 with probability 1 / ((counter - 5) * log_factor
// + 1), saturating at 255 (Redis's LFULogIncr with lfu-log-factor). Draws from `rng`
// (the caller's thread's generator on the server: no lock).
uint8_t LfuLogIncrement(uint8_t counter, int64_t log_factor, Rng& rng);

class EvictionPool {
 public:
  static constexpr size_t kSize = 16;

  struct Candidate {
    uint64_t score = 0;  // higher evicts first
    int db = 0;
    std::string key;
  };

  // Keeps the candidate if the pool has room or it beats the pool's worst.
  void Offer(uint64_t score, int db, std::string_view key);
  // Moves the best candidate out; false when empty.
  bool PopBest(Candidate* out);
  size_t size() const { return size_; }
  void Clear() { size_ = 0; }

 private:
  std::array<Candidate, kSize> items_;  // ascending by score
  size_t size_ = 0;
};

// Evicts one key by the policy. False when no key can be evicted (nothing, or nothing
// with a TTL for volatile-*). Counts the eviction in evicted_keys().
bool EvictOneKey(Keyspace& ks, const EvictionParams& params, EvictionPool& pool, Rng& rng);

// Keys evicted since start (or the last reset).
uint64_t EvictedKeys();
void ResetEvictedKeys();

}  // namespace hotkv

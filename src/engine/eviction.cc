#include "engine/eviction.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "engine/database.h"

namespace hotkv {

namespace {

std::atomic<uint64_t> g_evicted_keys{0};

bool IsVolatile(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileLru || p == EvictionPolicy::kVolatileLfu ||
         p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kVolatileTtl;
}

bool IsRandom(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kAllkeysRandom;
}

uint64_t Score(const Entry* e, const EvictionParams& p) {
  switch (p.policy) {
    case EvictionPolicy::kVolatileLru:
    case EvictionPolicy::kAllkeysLru: {
      uint32_t then = e->access_clock();
      return p.lru_clock > then ? p.lru_clock - then : 0;
    }
    case EvictionPolicy::kVolatileLfu:
    case EvictionPolicy::kAllkeysLfu: {
      uint32_t minutes = static_cast<uint32_t>(p.now_ms / 60000);
      return 255 - LfuDecayedCounter(e, minutes, p.lfu_decay_time);
    }
    case EvictionPolicy::kVolatileTtl:
      return std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(e->expire_ms());
    default:
      return 0;
  }
}

// Removes the key at `ref` as an eviction: observers first (the key's bytes are still
// there), then the entry is freed.
void EvictAt(Keyspace& ks, Database& view, KeyRef& ref) {
  ks.NotifyEvicted(view.index(), ref.entry()->key());
  view.Erase(ref);
  g_evicted_keys.fetch_add(1, std::memory_order_relaxed);
}

// Calls visit(shard_index) on up to every shard, random ones first, until it returns
// true. Returns whether one did.
template <typename F>
bool VisitShards(Rng& rng, F visit) {
  constexpr int kRandomProbes = 16;
  for (int i = 0; i < kRandomProbes; i++) {
    if (visit(static_cast<uint32_t>(rng.Below(Keyspace::kShardCount)))) {
      return true;
    }
  }
  const uint32_t start = static_cast<uint32_t>(rng.Below(Keyspace::kShardCount));
  for (uint32_t k = 0; k < Keyspace::kShardCount; k++) {
    if (visit((start + k) & (Keyspace::kShardCount - 1))) {
      return true;
    }
  }
  return false;
}

bool EvictRandomKey(Keyspace& ks, const EvictionParams& p, Rng& rng) {
  const bool vol = IsVolatile(p.policy);
  const int dbs = ks.num_dbs();
  return VisitShards(rng, [&](uint32_t idx) {
    Shard& s = ks.shard(idx);
    if (!s.lock.try_lock()) {
      return false;  // held by another thread (a long script): try another shard
    }
    const int first = static_cast<int>(rng.Below(static_cast<uint64_t>(dbs)));
    const uint64_t used = ks.used_dbs();
    bool done = false;
    for (int k = 0; k < dbs && !done; k++) {
      const int d = (first + k) % dbs;
      if (!(used & Keyspace::DbBit(d))) {
        continue;
      }
      DbTable& t = s.db(d);
      Entry* e = nullptr;
      if (vol) {
        if (!t.volatile_keys.empty()) {
          e = t.volatile_keys[rng.Below(t.volatile_keys.size())];
        }
      } else if (!t.keys.empty()) {
        e = t.keys.At(t.keys.RandomPosition(rng.Next()));
      }
      if (e == nullptr) {
        continue;
      }
      Database view(&ks, d, p.now_ms);
      KeyRef ref = view.Lookup(e->key(), idx, HashKey(e->key()));
      if (ref) {
        EvictAt(ks, view, ref);
      }  // else it had expired, and Lookup freed it: progress all the same
      done = true;
    }
    s.lock.unlock();
    return done;
  });
}

// Samples the shard's keys into the pool; returns how many were sampled.
size_t SampleShard(Keyspace& ks, uint32_t idx, const EvictionParams& p, EvictionPool& pool,
                   Rng& rng) {
  const bool vol = IsVolatile(p.policy);
  Shard& s = ks.shard(idx);
  size_t sampled = 0;
  const uint64_t used = ks.used_dbs();
  if (!s.lock.try_lock()) {
    return 0;  // held by another thread (a long script): sample elsewhere
  }
  for (int d = 0; d < ks.num_dbs(); d++) {
    if (!(used & Keyspace::DbBit(d))) {
      continue;  // never held a key: skip reading its table header (a cache miss)
    }
    DbTable& t = s.db(d);
    const size_t n = vol ? t.volatile_keys.size() : t.keys.size();
    if (n == 0) {
      continue;
    }
    // Distinct keys, as Redis's dictGetSomeKeys: all of a small table; else
    // consecutive occupied slots from a random one (slot order is unrelated to a key's
    // age), or random positions of the TTL list (whose order is by age).
    const size_t take = std::min(static_cast<size_t>(p.samples), n);
    if (vol) {
      for (size_t i = 0; i < take; i++) {
        const Entry* e = take == n ? t.volatile_keys[i] : t.volatile_keys[rng.Below(n)];
        pool.Offer(Score(e, p), d, e->key());
      }
    } else {
      const size_t mask = t.keys.capacity() - 1;
      size_t pos = t.keys.RandomPosition(rng.Next());
      for (size_t i = 0; i < take; pos = (pos + 1) & mask) {
        if (t.keys.Occupied(pos)) {
          const Entry* e = t.keys.At(pos);
          pool.Offer(Score(e, p), d, e->key());
          i++;
        }
      }
    }
    sampled += take;
  }
  s.lock.unlock();
  return sampled;
}

// Evicts the pool's best candidate that still exists (with a TTL, for volatile-*).
bool EvictFromPool(Keyspace& ks, const EvictionParams& p, EvictionPool& pool) {
  const bool vol = IsVolatile(p.policy);
  EvictionPool::Candidate c;
  while (pool.PopBest(&c)) {
    const uint32_t idx = Keyspace::ShardOf(c.key);
    Shard& s = ks.shard(idx);
    if (!s.lock.try_lock()) {
      continue;  // held by another thread (a long script): the next candidate
    }
    Database view(&ks, c.db, p.now_ms);
    KeyRef ref = view.Lookup(c.key, idx, HashKey(c.key));
    bool done = false;
    if (ref && (!vol || ref.entry()->has_ttl())) {
      EvictAt(ks, view, ref);
      done = true;
    }
    s.lock.unlock();
    if (done) {
      return true;
    }
  }
  return false;
}

}  // namespace

uint8_t LfuLogIncrement(uint8_t counter, int64_t log_factor, Rng& rng) {
  if (counter == 255) {
    return counter;
  }
  const double r = rng.NextDouble();
  const double base = counter > 5 ? counter - 5 : 0;
  const double p = 1.0 / (base * static_cast<double>(log_factor) + 1);
  return r < p ? static_cast<uint8_t>(counter + 1) : counter;
}

uint8_t LfuDecayedCounter(const Entry* e, uint32_t now_minutes, int64_t decay_time) {
  uint8_t counter = e->lfu_counter();
  const uint32_t last = e->access_clock();
  if (decay_time > 0 && now_minutes > last) {
    const uint64_t periods = (now_minutes - last) / static_cast<uint64_t>(decay_time);
    counter = periods >= counter ? 0 : static_cast<uint8_t>(counter - periods);
  }
  return counter;
}

void EvictionPool::Offer(uint64_t score, int db, std::string_view key) {
  size_t i = 0;  // insertion point: first item with a higher score
  while (i < size_ && items_[i].score <= score) {
    i++;
  }
  if (size_ == kSize) {
    if (i == 0) {
      return;  // worse than everything kept
    }
    // Drop the worst (index 0) and shift left the ones below the insertion point.
    std::string reuse = std::move(items_[0].key);
    for (size_t k = 1; k < i; k++) {
      items_[k - 1] = std::move(items_[k]);
    }
    i--;
    items_[i].key = std::move(reuse);
  } else {
    for (size_t k = size_; k > i; k--) {
      items_[k] = std::move(items_[k - 1]);
    }
    size_++;
  }
  items_[i].score = score;
  items_[i].db = db;
  items_[i].key.assign(key);
}

bool EvictionPool::PopBest(Candidate* out) {
  if (size_ == 0) {
    return false;
  }
  size_--;
  std::swap(*out, items_[size_]);
  return true;
}

bool EvictOneKey(Keyspace& ks, const EvictionParams& params, EvictionPool& pool, Rng& rng) {
  if (params.policy == EvictionPolicy::kNoEviction) {
    return false;
  }
  if (IsRandom(params.policy)) {
    return EvictRandomKey(ks, params, rng);
  }
  // Each round samples `samples` keys (from as many random shards as that takes: a
  // small keyspace has few keys per shard) into the pool, then evicts the pool's best.
  // Give up when no shard has a candidate.
  constexpr int kRounds = 16;
  for (int round = 0; round < kRounds; round++) {
    size_t sampled = 0;
    VisitShards(rng, [&](uint32_t idx) {
      sampled += SampleShard(ks, idx, params, pool, rng);
      return sampled >= static_cast<size_t>(params.samples);
    });
    if (sampled == 0 && pool.size() == 0) {
      return false;
    }
    if (EvictFromPool(ks, params, pool)) {
      return true;
    }
  }
  return false;
}

uint64_t EvictedKeys() { return g_evicted_keys.load(std::memory_order_relaxed); }
void ResetEvictedKeys() { g_evicted_keys.store(0, std::memory_order_relaxed); }

}  // namespace hotkv

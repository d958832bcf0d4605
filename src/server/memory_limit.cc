#include "server/memory_limit.h"

#include <cmath>
#include <cstdlib>

#include "common/clock.h"
#include "common/memory_usage.h"
#include "common/random.h"
#include "engine/eviction.h"
#include "server/command_clock.h"
#include "server/server.h"

namespace hotkv {

namespace {

struct UsedMemoryCache {
  int64_t sum = 0;      // AllocatedBytes() at the last refresh
  int64_t own_at = 0;   // ThreadAllocatedBytes() at the last refresh
  int64_t ms = -1;      // when it was taken
};
thread_local UsedMemoryCache t_used;
thread_local EvictionPool t_pool;

constexpr int64_t kRefreshBytes = 256 * 1024;

int64_t Refresh(int64_t now_ms) {
  t_used.own_at = ThreadAllocatedBytes();
  t_used.sum = AllocatedBytes();
  t_used.ms = now_ms;
  return t_used.sum;
}

}  // namespace

int64_t UsedMemoryEstimate(int64_t now_ms) {
  if (!CountingAllocatorActive()) {
    return AllocatedBytes();
  }
  const int64_t own = ThreadAllocatedBytes();
  const int64_t moved = own - t_used.own_at;
  if (now_ms != t_used.ms || std::llabs(moved) > kRefreshBytes) {
    return Refresh(now_ms);
  }
  return t_used.sum + moved;
}

int64_t EvictionTimeLimitUs(int64_t tenacity) {
  if (tenacity <= 10) {
    return 50 * tenacity;
  }
  if (tenacity < 100) {
    return static_cast<int64_t>(500.0 * std::pow(1.15, static_cast<double>(tenacity - 10)));
  }
  return -1;
}

MemoryState PerformEvictions(Server& server, int64_t now_ms) {
  Config& cfg = server.config();
  const int64_t maxmemory = cfg.maxmemory();
  if (maxmemory <= 0) {
    return MemoryState::kUnderLimit;
  }
  const int64_t used = UsedMemoryEstimate(now_ms);
  if (used <= maxmemory) {
    return MemoryState::kUnderLimit;
  }
  // Over the limit: what follows (evictions) is not the next command's time.
  RestartCommandClock();
  if (server.client_pause().WritesPaused(server, now_ms)) {
    return MemoryState::kUnderLimit;  // no eviction while writes are paused (Redis 7)
  }
  EvictionParams params;
  params.policy = static_cast<EvictionPolicy>(cfg.maxmemory_policy());
  if (params.policy == EvictionPolicy::kNoEviction) {
    return MemoryState::kOverLimit;
  }
  params.samples = static_cast<int>(cfg.maxmemory_samples());
  params.lru_clock = server.lru_clock();
  params.lfu_decay_time = cfg.lfu_decay_time();
  params.now_ms = now_ms;

  const int64_t to_free = used - maxmemory;
  const int64_t limit_us = EvictionTimeLimitUs(cfg.maxmemory_eviction_tenacity());
  const int64_t start_us = MonotonicUs();
  const int64_t own_before = ThreadAllocatedBytes();
  Rng& rng = ThreadRng();
  MemoryState state = MemoryState::kUnderLimit;
  for (uint64_t keys = 1;; keys++) {
    if (!EvictOneKey(server.keyspace(), params, t_pool, rng)) {
      state = MemoryState::kOverLimit;  // nothing (left) to evict
      break;
    }
    if (own_before - ThreadAllocatedBytes() >= to_free) {
      break;
    }
    if ((keys & 15) == 0 && limit_us >= 0 && MonotonicUs() - start_us > limit_us) {
      state = MemoryState::kEvicting;
      break;
    }
  }
  // LATENCY's "eviction-cycle" event (latency-monitor-threshold).
  server.latency().AddIfNeeded(cfg.latency_monitor_threshold(), "eviction-cycle",
                               (MonotonicUs() - start_us) / 1000);
  // Other threads kept allocating and freeing meanwhile: judge by a fresh sum.
  if (Refresh(now_ms) <= maxmemory) {
    return MemoryState::kUnderLimit;
  }
  return state;
}

}  // namespace hotkv

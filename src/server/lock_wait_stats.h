// Waits of the threads serving clients for a shard lock another thread held
// (LockContendedUnlessBusy: a command's try-lock failed), cumulative since start: INFO
// persistence `shard_lock_waits` (HotKV's own; docs/persistence.md, "The walk's p99").
// Only the contended path touches it. Single-key commands, lazily locked shards and
// scripts wait there; ShardLockSet::Lock (multi-key) and the all-shard barrier do not.
#pragma once

#include <atomic>
#include <cstdint>

namespace hotkv {

struct ShardLockWaitStats {
  std::atomic<uint64_t> waits{0};
  std::atomic<uint64_t> wait_ns{0};
  std::atomic<uint64_t> max_ns{0};
  std::atomic<uint64_t> over_100us{0};
  std::atomic<uint64_t> over_1ms{0};
};
extern ShardLockWaitStats g_shard_lock_waits;  // server/dispatcher.cc

}  // namespace hotkv

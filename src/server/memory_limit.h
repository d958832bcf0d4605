// The maxmemory limit: used-memory estimate, evictions, and the OOM decision.
//
//   if (PerformEvictions(server, now_ms) == MemoryState::kOverLimit && denyoom) reject;
//
// Used memory is the counting allocator's figure (common/memory_usage.h). Summing every
// thread's counter on every command would pull a cache line per thread, so each worker
// keeps the sum it last took and adds its own change since; it takes a fresh sum once a
// millisecond or when its own share moved by more than 256 KB.
//
// Evictions run on the worker that needs the memory, before its command takes locks
// (no shard lock is held), until the estimate is under the limit or the
// maxmemory-eviction-tenacity time budget is spent. The worker's cron calls it too, so
// a server over its limit (after CONFIG SET maxmemory) gets back under without traffic.
//
// Thread safety: call from worker threads (per-thread state is thread_local).
#pragma once

#include <cstdint>

namespace hotkv {

class Server;

enum class MemoryState {
  kUnderLimit,   // no limit, or used memory is under it (after evicting)
  kEvicting,     // still over, but keys are being evicted: commands proceed (as Redis)
  kOverLimit,    // over, and nothing can be evicted: deny-OOM commands are rejected
};

MemoryState PerformEvictions(Server& server, int64_t now_ms);

// This thread's estimate of the process's allocated bytes (see above).
int64_t UsedMemoryEstimate(int64_t now_ms);

// The time budget for one PerformEvictions call (Redis's evictionTimeLimitUs):
// 50 µs per tenacity step up to 10, then +15 % per step; 100 means no limit (-1).
int64_t EvictionTimeLimitUs(int64_t tenacity);

inline constexpr const char* kOomError = "OOM command not allowed when used memory > 'maxmemory'.";

}  // namespace hotkv

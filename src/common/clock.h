// Clocks used by the server.
//
// Command execution reads "now" many times (every expiry check), so each worker caches
// the wall-clock time in milliseconds once per batch of commands, as Redis does once per
// command: all the commands of one batch see the same time, which also keeps a MULTI
// block's expiry decisions consistent.
#pragma once

#include <cstdint>
#include <ctime>

namespace hotkv {

inline int64_t WallClockMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

inline int64_t WallClockUs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

inline int64_t MonotonicUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

inline int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The per-thread cached wall clock (milliseconds since the epoch).
namespace clock_internal {
inline thread_local int64_t cached_now_ms = 0;
}

inline int64_t CachedNowMs() {
  if (clock_internal::cached_now_ms == 0) {
    clock_internal::cached_now_ms = WallClockMs();
  }
  return clock_internal::cached_now_ms;
}

// Refreshes this thread's cached clock; called by a worker before each batch.
inline int64_t RefreshCachedClock() {
  clock_internal::cached_now_ms = WallClockMs();
  return clock_internal::cached_now_ms;
}

}  // namespace hotkv

// Monotonic clock helpers for hotkv-loadgen.
//
// Every timestamp in the load generator (intended send times, receive times, the
// stamps embedded in pub/sub payloads) is CLOCK_MONOTONIC in nanoseconds, read in one
// process, so differences between threads are meaningful.
#pragma once

#include <time.h>

#include <cstdint>

namespace hotkv::loadgen {

inline constexpr uint64_t kNsPerUs = 1000;
inline constexpr uint64_t kNsPerMs = 1000 * 1000;
inline constexpr uint64_t kNsPerSec = 1000 * 1000 * 1000;

// Current CLOCK_MONOTONIC time in nanoseconds (vDSO, ~20 ns). Thread-safe.
inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}

// Sleeps until the absolute CLOCK_MONOTONIC time `when_ns`. Thread-safe.
inline void SleepUntilNs(uint64_t when_ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(when_ns / kNsPerSec);
  ts.tv_nsec = static_cast<long>(when_ns % kNsPerSec);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
  }
}

}  // namespace hotkv::loadgen

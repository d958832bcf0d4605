// LatencyMonitor: Redis's latency monitor (LATENCY LATEST / HISTORY / RESET / GRAPH /
// DOCTOR). With latency-monitor-threshold > 0, an event that lasted at least that many
// milliseconds is recorded under its Redis name: "command" / "fast-command" (the
// dispatcher, by the command's fast flag), "expire-cycle" (a worker's active expiry
// cycle), "eviction-cycle" (one eviction run). Each event keeps its last 160 samples,
// one per second (a second's sample keeps its maximum), and its all-time maximum.
//
// Per-command latency histograms (LATENCY HISTOGRAM) are kept elsewhere: in each
// worker's CommandStats (command_table.h), summed when asked.
//
// Thread safety: every method may be called from any thread (one mutex; events are rare).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hotkv {

class LatencyMonitor {
 public:
  static constexpr int kSamples = 160;
  struct Sample {
    int64_t time = 0;      // unix seconds; 0: unused
    uint32_t latency = 0;  // ms
  };
  struct Series {
    int idx = 0;
    uint32_t max = 0;
    Sample samples[kSamples];
  };

  // Records `ms` under `event` when the threshold is on and reached.
  void AddIfNeeded(int64_t threshold_ms, const char* event, int64_t ms) {
    if (threshold_ms > 0 && ms >= threshold_ms) {
      Add(event, ms);
    }
  }
  void Add(const std::string& event, int64_t ms);
  // Copies, for the commands.
  std::map<std::string, Series> Snapshot();
  bool Get(const std::string& event, Series* out);
  // Resets the named events (all when empty); returns how many existed.
  int Reset(const std::vector<std::string>& events);

 private:
  std::mutex mu_;
  std::map<std::string, Series> events_;
};

// Redis's hdr_histogram-shaped latency buckets (LATENCY HISTOGRAM): bucket k holds
// durations up to 1024 * 2^k ns (reported as that bound's highest equivalent value / 1000,
// in microseconds: 1, 2, 4, 8, 16, 33, 66, 132 ...). Durations are whole microseconds, as
// Redis records them.
inline constexpr int kLatencyBuckets = 24;
int LatencyBucket(uint64_t usec);
int64_t LatencyBucketUsec(int k);

}  // namespace hotkv

#include "server/latency.h"

#include <ctime>

namespace hotkv {

void LatencyMonitor::Add(const std::string& event, int64_t ms) {
  const int64_t now = static_cast<int64_t>(time(nullptr));
  const uint32_t latency = ms > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(ms);
  std::lock_guard<std::mutex> g(mu_);
  Series& ts = events_[event];
  if (latency > ts.max) {
    ts.max = latency;
  }
  Sample& prev = ts.samples[(ts.idx + kSamples - 1) % kSamples];
  if (prev.time == now) {
    if (latency > prev.latency) {
      prev.latency = latency;
    }
    return;
  }
  ts.samples[ts.idx] = Sample{now, latency};
  ts.idx = (ts.idx + 1) % kSamples;
}

std::map<std::string, LatencyMonitor::Series> LatencyMonitor::Snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  return events_;
}

bool LatencyMonitor::Get(const std::string& event, Series* out) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = events_.find(event);
  if (it == events_.end()) {
    return false;
  }
  *out = it->second;
  return true;
}

int LatencyMonitor::Reset(const std::vector<std::string>& events) {
  std::lock_guard<std::mutex> g(mu_);
  if (events.empty()) {
    int n = static_cast<int>(events_.size());
    events_.clear();
    return n;
  }
  int n = 0;
  for (const std::string& e : events) {
    n += static_cast<int>(events_.erase(e));
  }
  return n;
}

int LatencyBucket(uint64_t usec) {
  if (usec > 1000000) {
    usec = 1000000;  // Redis's histograms stop at 1 s
  }
  uint64_t ns = usec * 1000;
  if (ns <= 1024) {
    return 0;
  }
  // hdr_histogram with 2 significant digits: values above 255 share a sub-bucket of
  // width 2^(magnitude - 7); a value counts where its lowest equivalent falls.
  const int magnitude = 63 - __builtin_clzll(ns);
  ns &= ~((uint64_t{1} << (magnitude - 7)) - 1);
  if (ns <= 1024) {
    return 0;
  }
  const int k = 64 - __builtin_clzll(ns - 1) - 10;  // smallest k with 1024 << k >= ns
  return k < kLatencyBuckets ? k : kLatencyBuckets - 1;
}

int64_t LatencyBucketUsec(int k) {
  const uint64_t v = uint64_t{1024} << k;  // 2^(10 + k)
  const uint64_t width = uint64_t{1} << (10 + k - 7);
  return static_cast<int64_t>((v + width - 1) / 1000);
}

}  // namespace hotkv

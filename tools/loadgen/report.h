// Output helpers for hotkv-loadgen: latency summaries, a tiny JSON object writer, and
// the run-wide facts every report carries (generator CPU, sustained verdict).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "histogram.h"

namespace hotkv::loadgen {

// A step is sustained when the achieved rate is at least this share of the asked rate.
inline constexpr double kSustainedShare = 0.97;
// A send-lag p99 above this (us) is flagged: the generator did not keep its schedule.
inline constexpr double kBehindLagUs = 1000.0;

// Percentiles of a histogram, in microseconds.
struct LatencySummary {
  uint64_t count = 0;
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0, max = 0, mean = 0;
};
LatencySummary Summarize(const Histogram& h);

// "p50 45.1  p90 ...  max 1203" (microseconds).
std::string FormatLatencyLine(const LatencySummary& s);
// 12.3 -> "12.3", 1234.5 -> "1235", for microseconds.
std::string FormatUs(double us);

// Builds one JSON object, keys in insertion order.
class JsonObject {
 public:
  JsonObject& Add(std::string_view key, std::string_view value);
  JsonObject& Add(std::string_view key, const char* value) {
    return Add(key, std::string_view(value));
  }
  JsonObject& Add(std::string_view key, double value);
  JsonObject& Add(std::string_view key, uint64_t value);
  JsonObject& Add(std::string_view key, int value) {
    return Add(key, static_cast<uint64_t>(value));
  }
  JsonObject& Add(std::string_view key, bool value);
  JsonObject& AddNull(std::string_view key);
  JsonObject& AddObject(std::string_view key, const JsonObject& value);
  JsonObject& AddLatency(std::string_view key, const LatencySummary& s);
  std::string str() const { return "{" + body_ + "}"; }

 private:
  void Key(std::string_view key);
  std::string body_;
};

std::string JsonEscape(std::string_view s);

// CPU time (user + system, all threads) of this process, ns.
uint64_t ProcessCpuNs();

}  // namespace hotkv::loadgen

// Histogram: a log-linear latency histogram in the spirit of HdrHistogram.
//
// Values are nanoseconds. Below 256 ns every value has its own bucket; above, each
// power-of-two range [2^e, 2^(e+1)) is split into 128 equal buckets, so a bucket is at
// most 1/128 (0.78 %) of its value wide: two significant decimal digits everywhere from
// 1 us to the 60 s ceiling. Values above 60 s are clamped into the top bucket (the exact
// maximum is still kept). 3,840 buckets of 8 bytes: cheap to keep one per thread and
// merge at the end.
//
// Thread safety: none; give each thread its own histogram and Merge() after joining.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hotkv::loadgen {

class Histogram {
 public:
  static constexpr int kSubBucketBits = 7;                        // 128 buckets per octave
  static constexpr uint64_t kMaxTrackableNs = 60'000'000'000ULL;  // 60 s

  Histogram();

  // Records one value (ns). O(1).
  void Record(uint64_t value_ns) { RecordN(value_ns, 1); }
  void RecordN(uint64_t value_ns, uint64_t n);

  // Adds every count of `other` into this histogram.
  void Merge(const Histogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  // Exact arithmetic mean of the recorded values (before clamping), 0 if empty.
  double Mean() const;

  // The value at `percentile` (0..100]: the smallest recorded bucket such that at least
  // that share of values is at or below it, reported as the bucket's highest value
  // (clamped to the exact min/max). 0 if empty.
  uint64_t ValueAtPercentile(double percentile) const;

  // Bucket arithmetic, public for tests.
  static size_t IndexOf(uint64_t value_ns);
  static uint64_t LowestEquivalent(size_t index);
  static uint64_t HighestEquivalent(size_t index);
  static size_t BucketCount();

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  long double sum_ = 0;
};

}  // namespace hotkv::loadgen

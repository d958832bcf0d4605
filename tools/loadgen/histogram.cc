#include "histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hotkv::loadgen {
namespace {

constexpr uint64_t kSubBuckets = uint64_t{1} << Histogram::kSubBucketBits;  // 128

// floor(log2(v)) for v > 0.
int Log2Floor(uint64_t v) { return 63 - std::countl_zero(v); }

}  // namespace

Histogram::Histogram() : counts_(BucketCount(), 0) {}

size_t Histogram::IndexOf(uint64_t value_ns) {
  uint64_t v = std::min(value_ns, kMaxTrackableNs);
  // Values below 2 * kSubBuckets map to themselves (shift 0).
  int shift = 0;
  if (v >= 2 * kSubBuckets) {
    shift = Log2Floor(v) - kSubBucketBits;
  }
  return static_cast<size_t>(shift) * kSubBuckets + static_cast<size_t>(v >> shift);
}

uint64_t Histogram::LowestEquivalent(size_t index) {
  if (index < 2 * kSubBuckets) {
    return index;
  }
  size_t shift = index / kSubBuckets - 1;
  uint64_t sub = index - shift * kSubBuckets;  // in [128, 256)
  return sub << shift;
}

uint64_t Histogram::HighestEquivalent(size_t index) {
  if (index < 2 * kSubBuckets) {
    return index;
  }
  size_t shift = index / kSubBuckets - 1;
  return LowestEquivalent(index) + (uint64_t{1} << shift) - 1;
}

size_t Histogram::BucketCount() { return IndexOf(kMaxTrackableNs) + 1; }

void Histogram::RecordN(uint64_t value_ns, uint64_t n) {
  if (n == 0) {
    return;
  }
  counts_[IndexOf(value_ns)] += n;
  count_ += n;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
  sum_ += static_cast<long double>(value_ns) * n;
}

void Histogram::Merge(const Histogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

double Histogram::Mean() const {
  if (count_ == 0) {
    return 0;
  }
  return static_cast<double>(sum_ / count_);
}

uint64_t Histogram::ValueAtPercentile(double percentile) const {
  if (count_ == 0) {
    return 0;
  }
  double p = std::clamp(percentile, 0.0, 100.0);
  // Rank of the value asked for, 1-based; at least the first value.
  // (The small epsilon keeps 99.9 % of 1000 at rank 999 despite rounding.)
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_) - 1e-7));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::clamp(HighestEquivalent(i), min(), max_);
    }
  }
  return max_;
}

}  // namespace hotkv::loadgen

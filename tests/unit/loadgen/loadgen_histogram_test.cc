// Tests of hotkv-loadgen's log-linear latency histogram.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "histogram.h"

namespace hotkv::loadgen {
namespace {

// The exact value at `percentile` of sorted `values` (same rank rule as the histogram).
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double percentile) {
  auto rank = static_cast<size_t>(std::ceil(percentile / 100.0 * sorted.size() - 1e-7));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void ExpectWithinRelative(uint64_t actual, uint64_t expected, double share) {
  EXPECT_LE(std::fabs(static_cast<double>(actual) - static_cast<double>(expected)),
            share * static_cast<double>(expected) + 1)
      << "actual " << actual << " expected " << expected;
}

TEST(LoadgenHistogram, EmptyReportsZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(50), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.Mean(), 0.0);
}

TEST(LoadgenHistogram, BucketsCoverValuesWithTwoSignificantDigits) {
  std::vector<uint64_t> probes;
  for (uint64_t v = 0; v < 5000; ++v) {
    probes.push_back(v);
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    probes.push_back(rng() % Histogram::kMaxTrackableNs);
  }
  for (uint64_t v : probes) {
    size_t index = Histogram::IndexOf(v);
    ASSERT_LT(index, Histogram::BucketCount());
    uint64_t lo = Histogram::LowestEquivalent(index);
    uint64_t hi = Histogram::HighestEquivalent(index);
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    // A bucket is at most 1/128 of its lowest value wide (< 1 %: 2 significant digits).
    ASSERT_LE(static_cast<double>(hi - lo), std::max(0.0, static_cast<double>(lo) / 128.0));
  }
}

TEST(LoadgenHistogram, BucketsAreContiguous) {
  for (size_t i = 0; i + 1 < Histogram::BucketCount(); ++i) {
    ASSERT_EQ(Histogram::HighestEquivalent(i) + 1, Histogram::LowestEquivalent(i + 1)) << i;
    ASSERT_EQ(Histogram::IndexOf(Histogram::LowestEquivalent(i)), i);
    ASSERT_EQ(Histogram::IndexOf(Histogram::HighestEquivalent(i)), i);
  }
  // 60 s fits in a few thousand buckets.
  EXPECT_LT(Histogram::BucketCount(), 4000u);
}

TEST(LoadgenHistogram, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 1; v <= 100; ++v) {
    h.Record(v);
  }
  EXPECT_EQ(h.ValueAtPercentile(50), 50u);
  EXPECT_EQ(h.ValueAtPercentile(99), 99u);
  EXPECT_EQ(h.ValueAtPercentile(100), 100u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.Mean(), 50.5);
}

TEST(LoadgenHistogram, UniformDistributionPercentiles) {
  // 1 us .. 100 ms in 1 us steps, shuffled.
  std::vector<uint64_t> values;
  for (uint64_t us = 1; us <= 100000; ++us) {
    values.push_back(us * 1000);
  }
  std::shuffle(values.begin(), values.end(), std::mt19937_64(1));
  Histogram h;
  for (uint64_t v : values) {
    h.Record(v);
  }
  EXPECT_EQ(h.count(), 100000u);
  ExpectWithinRelative(h.ValueAtPercentile(50), 50'000'000, 0.01);
  ExpectWithinRelative(h.ValueAtPercentile(90), 90'000'000, 0.01);
  ExpectWithinRelative(h.ValueAtPercentile(99), 99'000'000, 0.01);
  ExpectWithinRelative(h.ValueAtPercentile(99.9), 99'900'000, 0.01);
  EXPECT_EQ(h.max(), 100'000'000u);
  EXPECT_NEAR(h.Mean(), 50'000'500.0, 1.0);
}

TEST(LoadgenHistogram, ExponentialDistributionMatchesExactPercentiles) {
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> exp_dist(1.0 / 200'000.0);  // mean 200 us
  std::vector<uint64_t> values;
  Histogram h;
  for (int i = 0; i < 500000; ++i) {
    auto v = static_cast<uint64_t>(exp_dist(rng)) + 1000;
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    ExpectWithinRelative(h.ValueAtPercentile(p), ExactPercentile(values, p), 0.01);
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
}

TEST(LoadgenHistogram, RareOutlierShowsInHighPercentilesOnly) {
  Histogram h;
  h.RecordN(1'000'000, 9999);  // 9,999 values of 1 ms
  h.Record(1'000'000'000);     // one of 1 s
  ExpectWithinRelative(h.ValueAtPercentile(50), 1'000'000, 0.008);
  ExpectWithinRelative(h.ValueAtPercentile(99.99), 1'000'000, 0.008);
  EXPECT_EQ(h.ValueAtPercentile(100), 1'000'000'000u);
  EXPECT_EQ(h.max(), 1'000'000'000u);
}

TEST(LoadgenHistogram, ValuesAboveTheCeilingAreClampedButMaxIsExact) {
  Histogram h;
  h.Record(100'000'000'000ULL);  // 100 s
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.max(), 100'000'000'000ULL);
  EXPECT_EQ(h.ValueAtPercentile(50), 100'000'000'000ULL);  // clamped to [min, max]
  EXPECT_EQ(Histogram::IndexOf(100'000'000'000ULL), Histogram::BucketCount() - 1);
}

TEST(LoadgenHistogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(3);
  Histogram a, b, all;
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = rng() % 10'000'000;
    (i % 3 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  Histogram merged;
  merged.Merge(a);
  merged.Merge(b);
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_DOUBLE_EQ(merged.Mean(), all.Mean());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(merged.ValueAtPercentile(p), all.ValueAtPercentile(p)) << p;
  }
  merged.Reset();
  EXPECT_EQ(merged.count(), 0u);
  EXPECT_EQ(merged.ValueAtPercentile(99), 0u);
}

}  // namespace
}  // namespace hotkv::loadgen

// Tests of hotkv-loadgen's open-loop schedule (intended send times).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rate_scheduler.h"

namespace hotkv::loadgen {
namespace {

constexpr uint64_t kStart = 1'000'000'000'000ULL;  // an arbitrary monotonic time, ns

TEST(LoadgenRateScheduler, UniformTimesAreStartPlusKIntervals) {
  RateScheduler s(kStart, 1000.0, 0.0, Arrival::kUniform, 1);  // 1 ms apart
  for (uint64_t k = 0; k < 1000; ++k) {
    ASSERT_EQ(s.Next(), kStart + k * 1'000'000) << k;
    ASSERT_EQ(s.issued(), k);
    s.Advance();
  }
}

TEST(LoadgenRateScheduler, UniformDoesNotDriftOverMillionsOfRequests) {
  // 3 req/s: the interval (333,333,333.33 ns) is not an integer.
  RateScheduler s(kStart, 3.0, 0.0, Arrival::kUniform, 1);
  for (int i = 0; i < 3'000'000; ++i) {
    s.Advance();
  }
  // 3,000,000 requests at 3/s: exactly 1,000,000 s later.
  EXPECT_NEAR(static_cast<double>(s.Next() - kStart), 1e15, 1.0);
}

TEST(LoadgenRateScheduler, BurstyIsUniformPerConnection) {
  // --arrival bursty: the closed loop is the worker's; the times are uniform, and the
  // request mode gives every connection phase 0 (all in phase at the start).
  RateScheduler a(kStart, 2000.0, 0.0, Arrival::kBursty, 1);
  RateScheduler b(kStart, 2000.0, 0.0, Arrival::kBursty, 2);
  for (uint64_t k = 0; k < 100; ++k) {
    ASSERT_EQ(a.Next(), kStart + k * 500'000) << k;
    ASSERT_EQ(a.Next(), b.Next()) << k;
    a.Advance();
    b.Advance();
  }
  EXPECT_STREQ(ArrivalName(Arrival::kBursty), "bursty");
}

TEST(LoadgenRateScheduler, PhaseShiftsByAFractionOfAnInterval) {
  RateScheduler s(kStart, 1000.0, 0.25, Arrival::kUniform, 1);
  EXPECT_EQ(s.Next(), kStart + 250'000);
  s.Advance();
  EXPECT_EQ(s.Next(), kStart + 1'250'000);
}

TEST(LoadgenRateScheduler, ConnectionsInterleaveEvenlyAtTheTotalRate) {
  // 40,000 req/s over 8 connections: each at 5,000/s, phase i/8; together every 25 us.
  const int conns = 8;
  const double total = 40000;
  std::vector<uint64_t> times;
  for (int i = 0; i < conns; ++i) {
    RateScheduler s(kStart, total / conns, static_cast<double>(i) / conns, Arrival::kUniform, i);
    for (int k = 0; k < 1000; ++k) {
      times.push_back(s.Next());
      s.Advance();
    }
  }
  std::sort(times.begin(), times.end());
  for (size_t j = 0; j < times.size(); ++j) {
    ASSERT_NEAR(static_cast<double>(times[j] - kStart), j * 25'000.0, 1.0) << j;
  }
}

TEST(LoadgenRateScheduler, PoissonHasTheAskedMeanRateAndExponentialGaps) {
  const double rate = 10000;  // mean gap 100 us
  RateScheduler s(kStart, rate, 0.0, Arrival::kPoisson, 12345);
  const int n = 200000;
  std::vector<double> gaps;
  uint64_t prev = kStart;
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(s.Next(), prev);
    gaps.push_back(static_cast<double>(s.Next() - prev));
    prev = s.Next();
    s.Advance();
  }
  double mean = 0;
  for (double g : gaps) {
    mean += g;
  }
  mean /= n;
  double var = 0;
  for (double g : gaps) {
    var += (g - mean) * (g - mean);
  }
  var /= n;
  EXPECT_NEAR(mean, 100'000.0, 1'000.0);          // within 1 %
  EXPECT_NEAR(std::sqrt(var) / mean, 1.0, 0.02);  // exponential: CV = 1
  std::sort(gaps.begin(), gaps.end());
  EXPECT_NEAR(gaps[n / 2], 100'000.0 * std::log(2.0), 2'000.0);  // median = ln 2 / rate
}

TEST(LoadgenRateScheduler, PoissonIsReproducibleFromItsSeed) {
  RateScheduler a(kStart, 500, 0, Arrival::kPoisson, 99);
  RateScheduler b(kStart, 500, 0, Arrival::kPoisson, 99);
  RateScheduler c(kStart, 500, 0, Arrival::kPoisson, 100);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(a.Next(), b.Next());
    differs |= a.Next() != c.Next();
    a.Advance();
    b.Advance();
    c.Advance();
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace hotkv::loadgen

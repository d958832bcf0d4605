// LatencyBucket / LatencyBucketUsec (Redis's LATENCY HISTOGRAM buckets), LatencyMonitor's
// one-sample-per-second series, and MONITOR's argument quoting (sdscatrepr).
#include "server/latency.h"

#include <gtest/gtest.h>

#include "common/string_util.h"
#include "server/monitor.h"

namespace hotkv {
namespace {

TEST(LatencyBucketTest, BucketBoundsAreRedisHistogramKeys) {
  // What Redis 8.8 prints as histogram_usec keys (hdr_histogram, 2 significant digits).
  const int64_t expected[] = {1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227};
  for (int k = 0; k < 13; k++) {
    EXPECT_EQ(LatencyBucketUsec(k), expected[k]) << k;
  }
  EXPECT_EQ(LatencyBucketUsec(15), 33816);
}

TEST(LatencyBucketTest, DurationsLandWhereRedisCountsThem) {
  EXPECT_EQ(LatencyBucket(0), 0);  // below 1024 ns: the first bucket
  EXPECT_EQ(LatencyBucket(1), 0);  // 1000 ns
  EXPECT_EQ(LatencyBucket(2), 1);  // 2000 ns <= 2048
  EXPECT_EQ(LatencyBucket(3), 2);
  EXPECT_EQ(LatencyBucket(5), 3);
  EXPECT_EQ(LatencyBucket(6), 3);   // Redis reported a 6 us PAUSE under key 8
  EXPECT_EQ(LatencyBucket(33), 5);  // 33000 ns shares 32768's sub-bucket
  EXPECT_EQ(LatencyBucket(34), 6);
  EXPECT_EQ(LatencyBucket(20000), 15);  // DEBUG SLEEP 0.02: key 33816
  EXPECT_EQ(LatencyBucket(1000000000), LatencyBucket(1000000));  // capped at 1 s
}

TEST(LatencyMonitorTest, OneSamplePerSecondKeepsItsMaximum) {
  LatencyMonitor m;
  m.Add("command", 5);
  m.Add("command", 9);
  m.Add("command", 7);
  LatencyMonitor::Series ts;
  ASSERT_TRUE(m.Get("command", &ts));
  EXPECT_EQ(ts.max, 9u);
  int used = 0;
  for (const auto& s : ts.samples) {
    used += s.time != 0;
  }
  EXPECT_LE(used, 2);  // one per second (two if the second turned)
  EXPECT_FALSE(m.Get("fast-command", &ts));
  m.AddIfNeeded(0, "fast-command", 100);   // threshold 0: off
  m.AddIfNeeded(10, "fast-command", 9);    // below
  EXPECT_FALSE(m.Get("fast-command", &ts));
  m.AddIfNeeded(10, "fast-command", 10);
  EXPECT_TRUE(m.Get("fast-command", &ts));
  EXPECT_EQ(m.Reset({"nosuch", "command"}), 1);
  EXPECT_EQ(m.Reset({}), 1);
  EXPECT_TRUE(m.Snapshot().empty());
}

TEST(MonitorReprTest, QuotesAsSdscatrepr) {
  std::string out;
  AppendQuotedRepr(out, std::string_view("a\x01\n\"\\ \xc3\xa9\r\t\a\b", 12));
  EXPECT_EQ(out, R"("a\x01\n\"\\ \xc3\xa9\r\t\a\b")");
}

}  // namespace
}  // namespace hotkv

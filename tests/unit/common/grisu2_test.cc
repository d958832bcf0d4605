// Grisu2Digits: the digits Redis's fpconv_dtoa prints (checked against redis-server 8.8's
// ZSCORE replies), including the cases where Grisu2 is one digit longer than shortest.

#include "common/grisu2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace hotkv {
namespace {

std::string Digits(double v, int* k) {
  char buf[24];
  int n = Grisu2Digits(v, buf, k);
  return std::string(buf, n);
}

TEST(Grisu2, KnownDigits) {
  int k;
  EXPECT_EQ(Digits(0.3, &k), "3");
  EXPECT_EQ(k, -1);
  EXPECT_EQ(Digits(1.5, &k), "15");
  EXPECT_EQ(k, -1);
  EXPECT_EQ(Digits(1e21, &k), "1");
  EXPECT_EQ(k, 21);
  EXPECT_EQ(Digits(5e-324, &k), "5");
  EXPECT_EQ(k, -324);
  EXPECT_EQ(Digits(1.7976931348623157e308, &k), "17976931348623157");
  EXPECT_EQ(k, 292);
  EXPECT_EQ(Digits(37.14203083150203, &k), "37142030831502034");  // not the shortest
  EXPECT_EQ(k, -15);
}

TEST(Grisu2, DigitsReadBackAsTheSameDouble) {
  std::mt19937_64 gen(7);
  for (int i = 0; i < 200000; i++) {
    uint64_t bits = gen();
    double v;
    memcpy(&v, &bits, sizeof(v));
    if (!(v > 0) || v == HUGE_VAL) {
      continue;
    }
    int k;
    std::string s = Digits(v, &k);
    s += "e" + std::to_string(k);
    EXPECT_EQ(strtod(s.c_str(), nullptr), v) << s;
  }
}

}  // namespace
}  // namespace hotkv

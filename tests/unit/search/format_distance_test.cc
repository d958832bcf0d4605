// FormatDistance: byte for byte printf's "%.12g" (RediSearch formats KNN scores and
// VECTOR_RANGE distances so), on the fixed-point range computed by integer arithmetic and
// elsewhere by to_chars: random floats of every exponent, random doubles, values whose
// 13th significant digit is an exact tie (round half to even), the range's edges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "search/query_exec.h"

namespace hotkv::search {
namespace {

std::string Printf(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.12g", d);
  return buf;
}

TEST(FormatDistance, RandomFloatsOfEveryExponent) {
  std::mt19937 rng(1203);
  for (int i = 0; i < 200000; i++) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    if (std::isnan(f)) continue;
    const double d = f;
    ASSERT_EQ(FormatDistance(d), Printf(d)) << bits;
  }
}

TEST(FormatDistance, DistancesAsKnnProducesThem) {
  std::mt19937 rng(18);
  std::uniform_real_distribution<float> cos(0.0f, 2.0f);
  std::exponential_distribution<float> l2(0.01f);
  for (int i = 0; i < 100000; i++) {
    const double a = cos(rng);
    const double b = l2(rng);
    ASSERT_EQ(FormatDistance(a), Printf(a));
    ASSERT_EQ(FormatDistance(b), Printf(b));
  }
}

TEST(FormatDistance, RandomDoubles) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; i++) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isnan(d)) continue;
    ASSERT_EQ(FormatDistance(d), Printf(d)) << bits;
    // Doubles in the fixed-point range, any mantissa.
    const double e = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52,
                                static_cast<int>(rng() % 56) - 15);
    ASSERT_EQ(FormatDistance(e), Printf(e)) << e;
    ASSERT_EQ(FormatDistance(-e), Printf(-e)) << e;
  }
}

TEST(FormatDistance, TiesRoundHalfToEven) {
  std::mt19937_64 rng(7);
  // a / 2^j has exactly j decimals: with 13 significant digits the last is often a 5,
  // an exact tie for %.12g.
  for (int j = 1; j <= 20; j++) {
    for (int i = 0; i < 5000; i++) {
      const uint64_t a = rng() % 100000000000000ull + 1;
      const double d = std::ldexp(static_cast<double>(a), -j);
      ASSERT_EQ(FormatDistance(d), Printf(d)) << a << " / 2^" << j;
    }
  }
  for (double d : {1234567890.125, 1234567890.375, 123456789012.5, 123456789013.5,
                   12345678901.25, 0.5, 0.25, 0.125, 1.5, 2.5, 999999999999.5,
                   99999999999.95, 0.000099999999999995, 0.00009999999999999,
                   0.0001, 0.00010000000000005, 1e12, 999999999999.0, 1e11, 1e-5}) {
    EXPECT_EQ(FormatDistance(d), Printf(d)) << d;
    EXPECT_EQ(FormatDistance(-d), Printf(-d)) << d;
  }
}

TEST(FormatDistance, EdgesAndSpecialValues) {
  for (double d : {0.0, -0.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                   1e-4, std::nextafter(1e-4, 0.0), std::nextafter(1e-4, 1.0), 1e12,
                   std::nextafter(1e12, 0.0), 1.0, 10.0, 100.0, 0.1, 0.01, 0.001}) {
    EXPECT_EQ(FormatDistance(d), Printf(d)) << d;
    EXPECT_EQ(FormatDistance(-d), Printf(-d)) << d;
  }
  // Powers of ten and their neighbours across the range.
  for (int e = -6; e <= 14; e++) {
    double p = std::pow(10.0, e);
    for (double d : {p, std::nextafter(p, 0.0), std::nextafter(p, 1e300)}) {
      EXPECT_EQ(FormatDistance(d), Printf(d)) << d;
    }
  }
}

}  // namespace
}  // namespace hotkv::search

// Number parsing/formatting and glob matching with Redis's rules.
#include "common/string_util.h"
#include "common/parse_digits.h"
#include "common/double_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace hotkv {
namespace {

TEST(ParseInt64, StrictLikeRedis) {
  EXPECT_EQ(ParseInt64("0"), 0);
  EXPECT_EQ(ParseInt64("-1"), -1);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt64("-9223372036854775809"));
  EXPECT_FALSE(ParseInt64("01"));
  EXPECT_FALSE(ParseInt64("-0"));
  EXPECT_FALSE(ParseInt64("+1"));
  EXPECT_FALSE(ParseInt64(" 1"));
  EXPECT_FALSE(ParseInt64("1 "));
  EXPECT_FALSE(ParseInt64(""));
  EXPECT_FALSE(ParseInt64("-"));
  EXPECT_FALSE(ParseInt64("1.0"));
}

// Every length around the 18-digit fast path (no per-digit range check) and the checked
// path above it, against FormatInt64's round trip and a digit junk in each position.
TEST(ParseInt64, EveryLengthRoundTrips) {
  for (int digits = 1; digits <= 19; digits++) {
    for (int64_t first : {1, 5, 9}) {
      uint64_t u = static_cast<uint64_t>(first);
      for (int k = 1; k < digits; k++) {
        u = u * 10 + static_cast<uint64_t>((k * 7) % 10);
      }
      if (u > static_cast<uint64_t>(INT64_MAX)) {
        continue;  // 19 digits from 9: past int64
      }
      const auto v = static_cast<int64_t>(u);
      for (int64_t x : {v, -v}) {
        char buf[kInt64Digits];
        const std::string text(buf, FormatInt64(x, buf));
        EXPECT_EQ(ParseInt64(text), x) << text;
        for (size_t pos = 0; pos < text.size(); pos++) {
          std::string bad = text;
          bad[pos] = 'x';
          EXPECT_FALSE(ParseInt64(bad)) << bad;
        }
        if (digits >= 18) {
          EXPECT_FALSE(ParseInt64(text + "00")) << "overflow or over 20 chars: " << text;
        }
      }
    }
  }
  EXPECT_EQ(ParseInt64("999999999999999999"), 999999999999999999);
  EXPECT_EQ(ParseInt64("-999999999999999999"), -999999999999999999);
  EXPECT_EQ(ParseInt64("1000000000000000000"), 1000000000000000000);
}

TEST(ParseDouble, AcceptsInfRejectsNan) {
  EXPECT_EQ(ParseDouble("1.5"), 1.5);
  EXPECT_EQ(ParseDouble("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ParseDouble("+inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(ParseDouble("5.0e3"), 5000.0);
  EXPECT_FALSE(ParseDouble("nan"));
  EXPECT_FALSE(ParseDouble(" 1"));
  EXPECT_FALSE(ParseDouble("1x"));
  EXPECT_FALSE(ParseDouble(""));
  EXPECT_FALSE(ParseDouble("1e400"));
}

// ParseDigits (eight digits at a time) against a digit-by-digit loop: every length 0..19,
// random digits, and each position replaced by the bytes around '0'..'9' (and bytes
// whose +6 carries into the next one).
TEST(ParseDigits, MatchesDigitLoop) {
  std::mt19937_64 rng(22);
  const unsigned char junk[] = {0, '/', ':', '@', ' ', '-', '.', 0x7F, 0x80, 0xB0, 0xF9,
                                0xFA, 0xFF, 0x2A, 0x2F, 0x3A, 0x3F, 0x40};
  for (size_t n = 0; n <= 19; n++) {
    for (int round = 0; round < 200; round++) {
      char buf[24];
      uint64_t want = 0;
      for (size_t i = 0; i < n; i++) {
        const int d = static_cast<int>(rng() % 10);
        buf[i] = static_cast<char>('0' + d);
        want = want * 10 + static_cast<uint64_t>(d);
      }
      uint64_t got = 12345;
      ASSERT_TRUE(ParseDigits(buf, n, &got)) << std::string(buf, n);
      EXPECT_EQ(got, want) << std::string(buf, n);
      if (n == 0) {
        continue;
      }
      const size_t pos = rng() % n;
      for (unsigned char j : junk) {
        char bad[24];
        memcpy(bad, buf, n);
        bad[pos] = static_cast<char>(j);
        EXPECT_FALSE(ParseDigits(bad, n, &got)) << n << " " << pos << " " << int(j);
      }
    }
  }
}

// ParseDouble's fast path ([-]digits[.digits], up to 15 digits) returns strtod's double,
// bit for bit (the sign of zero included); inputs it does not take go to strtod.
TEST(ParseDouble, FastPathMatchesStrtod) {
  std::mt19937_64 rng(7);
  auto strtod_bits = [](const std::string& t) {
    char* end = nullptr;
    const double v = strtod(t.c_str(), &end);
    EXPECT_EQ(end, t.c_str() + t.size()) << t;
    return v;
  };
  auto same = [](double a, double b) { return memcmp(&a, &b, sizeof(a)) == 0; };
  std::vector<std::string> cases = {"0", "-0", "0.0", "-0.0", "1", "1.5", "00.5", "007",
                                    "1.", ".5", "-.5", "-", "180", "-180.000000", "85.05112878",
                                    "999999999999999", "9999999999999999", "0.000000000000001",
                                    "123456789012345.6", "1.7976931348623157", "0.1", "0.3"};
  for (int i = 0; i < 50000; i++) {
    const int int_digits = 1 + static_cast<int>(rng() % 9);
    const int frac_digits = static_cast<int>(rng() % 10);
    std::string t = rng() % 2 ? "-" : "";
    for (int k = 0; k < int_digits; k++) {
      t += static_cast<char>('0' + rng() % 10);
    }
    if (frac_digits > 0) {
      t += '.';
      for (int k = 0; k < frac_digits; k++) {
        t += static_cast<char>('0' + rng() % 10);
      }
    }
    cases.push_back(t);
  }
  for (const std::string& t : cases) {
    char* end = nullptr;
    const double ref = strtod(t.c_str(), &end);
    auto got = ParseDouble(t);
    if (end != t.c_str() + t.size()) {
      EXPECT_FALSE(got) << t;
      continue;
    }
    ASSERT_TRUE(got) << t;
    EXPECT_TRUE(same(*got, ref)) << t << " " << *got << " vs " << ref;
  }
  EXPECT_TRUE(same(*ParseDouble("-0"), strtod_bits("-0")));
  EXPECT_TRUE(std::signbit(*ParseDouble("-0.0")));
}

// fpconv_dtoa's layout without d2string's integer shortcut (Redis >= 7.2's DEBUG
// DIGEST-VALUE text for sorted-set scores; each value checked against Redis 8.8's digest).
TEST(FormatDoubleFpconv, NoIntegerShortcut) {
  auto f = [](double v) {
    char buf[64];
    return std::string(buf, FormatDoubleFpconv(v, buf));
  };
  EXPECT_EQ(f(1e16), "1e+16");
  EXPECT_EQ(f(1e8), "1e+8");
  EXPECT_EQ(f(1e7), "10000000");
  EXPECT_EQ(f(1.5e10), "1.5e+10");
  EXPECT_EQ(f(123456789), "123456789");
  EXPECT_EQ(f(1234567890123456789.0), "1234567890123456800");
  EXPECT_EQ(f(-1e15), "-1e+15");
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(1e-7), "1e-7");
  EXPECT_EQ(f(3), "3");
  EXPECT_EQ(f(-0.0), "-0");
  EXPECT_EQ(f(0.0), "0");
  EXPECT_EQ(f(HUGE_VAL), "inf");
  EXPECT_EQ(f(-HUGE_VAL), "-inf");
  // FormatDouble (replies) keeps the integer form.
  char buf[64];
  EXPECT_EQ(std::string(buf, FormatDouble(1e16, buf)), "10000000000000000");
}

TEST(FormatDouble, ShortestRoundTrip) {
  EXPECT_EQ(DoubleToString(1.5), "1.5");
  EXPECT_EQ(DoubleToString(0.1), "0.1");
  EXPECT_EQ(DoubleToString(3.0), "3");
  // Redis 8's layout (checked against redis-server 8.8's ZSCORE).
  EXPECT_EQ(DoubleToString(2.682209014892578e-6), "2.682209014892578e-6");
  EXPECT_EQ(DoubleToString(-1.5e-6), "-1.5e-6");
  EXPECT_EQ(DoubleToString(1.5e-7), "1.5e-7");
  EXPECT_EQ(DoubleToString(1e-5), "0.00001");
  EXPECT_EQ(DoubleToString(0.0001), "0.0001");
  EXPECT_EQ(DoubleToString(0.00012345678901), "1.2345678901e-4");
  EXPECT_EQ(DoubleToString(0.001234567), "0.001234567");
  EXPECT_EQ(DoubleToString(1e8), "100000000");
  EXPECT_EQ(DoubleToString(1234567890000000000.0), "1234567890000000000");
  EXPECT_EQ(DoubleToString(123456789012345678.0), "123456789012345680");
  EXPECT_EQ(DoubleToString(1e21), "1e+21");
  EXPECT_EQ(DoubleToString(1e100), "1e+100");
  EXPECT_EQ(DoubleToString(5e-324), "5e-324");
  EXPECT_EQ(DoubleToString(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(DoubleToString(13.361389338970184), "13.361389338970184");
  EXPECT_EQ(DoubleToString(-179.99999731779099), "-179.99999731779099");
  // Grisu2 is not always shortest; Redis prints its digits (the same double).
  EXPECT_EQ(DoubleToString(37.14203083150203), "37.142030831502034");
  EXPECT_EQ(DoubleToString(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(DoubleToString(-std::numeric_limits<double>::infinity()), "-inf");
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10000; i++) {
    double d;
    uint64_t bits = rng();
    memcpy(&d, &bits, 8);
    if (!std::isfinite(d)) {
      continue;
    }
    EXPECT_EQ(*ParseDouble(DoubleToString(d)), d);
  }
}

TEST(FormatLongDoubleHuman, LikeIncrByFloat) {
  char buf[128];
  auto f = [&](long double v) { return std::string(buf, FormatLongDoubleHuman(v, buf, sizeof(buf))); };
  EXPECT_EQ(f(10.5L), "10.5");
  EXPECT_EQ(f(5000.0L), "5000");
  EXPECT_EQ(f(0.1L + 0.2L), "0.3");
  EXPECT_EQ(f(-0.0L), "0");
  EXPECT_EQ(FormatLongDoubleHuman(std::numeric_limits<long double>::infinity(), buf, sizeof(buf)), 0u);
}

TEST(GlobMatch, RedisPatterns) {
  EXPECT_TRUE(GlobMatch("*", "anything"));
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_TRUE(GlobMatch("h*llo", "heeeello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_TRUE(GlobMatch("h\\*llo", "h*llo"));
  EXPECT_FALSE(GlobMatch("h\\*llo", "hello"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_TRUE(GlobMatch("HELLO", "hello", true));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  // A hostile pattern finishes quickly (no exponential backtracking).
  std::string pat(100, '*');
  pat += "b";
  EXPECT_FALSE(GlobMatch(pat + std::string(50, '*') + "c", std::string(5000, 'a')));
}

}  // namespace
}  // namespace hotkv

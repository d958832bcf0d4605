// ZSetValue: conversion between the encodings at the limits, the compact score
// encodings of the listpack, and ZRANGEBYSCORE / ZRANGEBYLEX argument parsing.

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "types/zset.h"

namespace hotkv::types {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- Encoding conversion -------------------------------------------------------------

TEST(ZSetEncodingTest, ConvertsAfterMaxEntries) {
  ZSetValue z;
  EXPECT_STREQ(z.EncodingName(), "listpack");
  for (int i = 0; i < 128; ++i) {
    z.Add("m" + std::to_string(i), i);
  }
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  z.Add("m5", 1000);  // an update never converts
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  ZAddFlags xx;
  xx.xx = true;
  z.Add("new", 1, xx);  // nor does a refused add
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  z.Add("m128", 128);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);
  EXPECT_STREQ(z.EncodingName(), "skiplist");
  EXPECT_EQ(z.Size(), 129u);
  EXPECT_EQ(z.Score("m5"), 1000);
  EXPECT_EQ(z.Rank("m5")->rank, 128u);
  EXPECT_EQ(z.Rank("m0")->rank, 0u);
  EXPECT_TRUE(z.Validate());
  // Never back: shrink to one element.
  z.RemoveRangeByRank(1, -1);
  EXPECT_EQ(z.Size(), 1u);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);
}

TEST(ZSetEncodingTest, ConvertsOnLongMember) {
  ZSetValue z;
  z.Add(std::string(64, 'a'), 1);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  z.Add(std::string(65, 'b'), 2);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);
  EXPECT_EQ(z.Size(), 2u);
  EXPECT_EQ(z.Score(std::string(64, 'a')), 1);
  EXPECT_TRUE(z.Validate());
}

TEST(ZSetEncodingTest, CustomLimits) {
  ZSetLimits limits{3, 5};
  ZSetValue z;
  for (const char* m : {"a", "b", "c"}) {
    z.Add(m, 1, {}, limits);
  }
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  z.Add("d", 1, {}, limits);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);

  ZSetValue zero;
  zero.Add("a", 1, {}, ZSetLimits{0, 64});  // zset-max-listpack-entries 0
  EXPECT_EQ(zero.encoding(), ZSetValue::Encoding::kSkiplist);
}

TEST(ZSetEncodingTest, CreateAndMaybeConvertFollowHints) {
  EXPECT_EQ(ZSetValue::Create(128, 64).encoding(), ZSetValue::Encoding::kListpack);
  EXPECT_EQ(ZSetValue::Create(129, 1).encoding(), ZSetValue::Encoding::kSkiplist);
  EXPECT_EQ(ZSetValue::Create(1, 65).encoding(), ZSetValue::Encoding::kSkiplist);
  ZSetValue z = ZSetValue::Create(2, 1);
  z.Add("a", 1);
  z.MaybeConvert(128);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  z.MaybeConvert(129);
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);
  EXPECT_EQ(z.Score("a"), 1);
}

// Every score round-trips bit for bit through the compact score encodings.
TEST(ZSetEncodingTest, ListpackScoresRoundTripExactly) {
  const double scores[] = {0.0,
                           -0.0,
                           1,
                           -1,
                           127,
                           128,
                           -128,
                           -129,
                           32767,
                           40000,
                           -40000,
                           8388607,
                           8388608,
                           -8388608,
                           -8388609,
                           2147483647.0,
                           2147483648.0,
                           -2147483649.0,
                           70368744177664.0,
                           140737488355327.0,
                           140737488355328.0,
                           -140737488355328.0,
                           9007199254740993.0,
                           1.7e12,
                           0.5,
                           0.1,
                           -2.75,
                           1e300,
                           -1e-300,
                           5e-324,
                           3.4028234663852886e38,
                           3.5e38,
                           std::numeric_limits<double>::max(),
                           kInf,
                           -kInf};
  ZSetValue z;
  int i = 0;
  for (double s : scores) {
    z.Add("m" + std::to_string(i++), s);
  }
  ASSERT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  ASSERT_TRUE(z.Validate());
  i = 0;
  for (double s : scores) {
    auto got = z.Score("m" + std::to_string(i++));
    ASSERT_TRUE(got);
    // -0 is stored as 0 in this encoding, as in Redis's listpack; the rest bit-exact.
    double want = s == 0.0 ? 0.0 : s;
    EXPECT_EQ(std::memcmp(&*got, &want, sizeof(double)), 0) << s << " came back as " << *got;
  }
  // The same values survive conversion.
  z.MaybeConvert(1000);
  i = 0;
  for (double s : scores) {
    auto got = z.Score("m" + std::to_string(i++));
    double want = s == 0.0 ? 0.0 : s;
    EXPECT_EQ(std::memcmp(&*got, &want, sizeof(double)), 0) << s;
  }
}

TEST(ZSetEncodingTest, ListpackIsCompact) {
  ZSetValue z;
  for (int i = 0; i < 10; ++i) {
    z.Add("user:" + std::to_string(1000 + i), i);  // 9-byte members, small int scores
  }
  // 1 header byte + 9 member bytes + 1 score byte per element, plus an 8-byte header.
  EXPECT_LE(z.MemoryUsage(), 8u + 10 * 11 + 16);
}

// ---- Parsing ---------------------------------------------------------------------------

TEST(ZSetParseTest, ScoreRange) {
  auto r = ParseZScoreRange("(1.5", "+inf");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min, 1.5);
  EXPECT_TRUE(r->min_exclusive);
  EXPECT_EQ(r->max, kInf);
  EXPECT_FALSE(r->max_exclusive);
  r = ParseZScoreRange("-inf", "(5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min, -kInf);
  EXPECT_EQ(r->max, 5);
  EXPECT_TRUE(r->max_exclusive);
  EXPECT_TRUE(ParseZScoreRange("inf", "1e3"));
  EXPECT_TRUE(ParseZScoreRange(" 1", "0x10"));  // strtod accepts both, as in Redis
  EXPECT_FALSE(ParseZScoreRange("abc", "1"));
  EXPECT_FALSE(ParseZScoreRange("1", "1x"));
  EXPECT_FALSE(ParseZScoreRange("nan", "1"));
  EXPECT_FALSE(ParseZScoreRange("1", "(nan"));
  EXPECT_FALSE(ParseZScoreRange("((1", "2"));
  EXPECT_FALSE(ParseZScoreRange(std::string_view("1\0", 2), "2"));
  EXPECT_FALSE(ParseZScoreRange(std::string(100, '1') + "x", "2"));
  // Redis quirk kept: strtod reads "" (and "(") as 0.
  r = ParseZScoreRange("(", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min, 0);
  EXPECT_TRUE(r->min_exclusive);
}

TEST(ZSetParseTest, LexRange) {
  auto r = ParseZLexRange("-", "+");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min.kind, ZLexBound::Kind::kMinusInf);
  EXPECT_EQ(r->max.kind, ZLexBound::Kind::kPlusInf);
  r = ParseZLexRange(std::string_view("[a\0b", 4), "(zz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min.kind, ZLexBound::Kind::kInclusive);
  EXPECT_EQ(r->min.member, std::string_view("a\0b", 3));
  EXPECT_EQ(r->max.kind, ZLexBound::Kind::kExclusive);
  EXPECT_EQ(r->max.member, "zz");
  EXPECT_TRUE(ParseZLexRange("[", "("));
  EXPECT_FALSE(ParseZLexRange("a", "+"));
  EXPECT_FALSE(ParseZLexRange("-", "b"));
  EXPECT_FALSE(ParseZLexRange("", "+"));
  EXPECT_FALSE(ParseZLexRange("+a", "+"));
  EXPECT_FALSE(ParseZLexRange("-", "-x"));
}

}  // namespace
}  // namespace hotkv::types

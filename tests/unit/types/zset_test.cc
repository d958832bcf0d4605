// ZSetValue: every operation in both encodings, and their edge cases. Conversion
// thresholds, score encodings and range parsing are in zset_encoding_test.cc, the
// randomized model test in zset_model_test.cc, the set algebra in
// zset_algebra_test.cc, table/tree internals in zset_internals_test.cc.

#include "types/zset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hotkv::types {
namespace {

using Encoding = ZSetValue::Encoding;
using Pairs = std::vector<std::pair<std::string, double>>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Limits that keep small test sets in the requested encoding.
ZSetLimits LimitsFor(Encoding e) {
  return e == Encoding::kSkiplist ? ZSetLimits{0, 0} : ZSetLimits{};
}

Pairs Collect(const ZSetValue& z, ZRankSpan span) {
  Pairs out;
  z.Visit(span, [&](std::string_view m, double s) { out.emplace_back(std::string(m), s); });
  return out;
}

std::vector<std::string> Members(const Pairs& pairs) {
  std::vector<std::string> out;
  for (const auto& p : pairs) {
    out.push_back(p.first);
  }
  return out;
}

std::vector<std::string> Names(std::initializer_list<const char*> names) {
  return std::vector<std::string>(names.begin(), names.end());
}

class ZSetTest : public ::testing::TestWithParam<Encoding> {
 protected:
  ZSetLimits limits() const { return LimitsFor(GetParam()); }

  ZAddOutcome Add(std::string_view member, double score, ZAddFlags flags = {}) {
    return z_.Add(member, score, flags, limits());
  }

  // a=1 b=2 c=3 d=4 e=5
  void AddFive() {
    for (int i = 0; i < 5; ++i) {
      Add(std::string(1, static_cast<char>('a' + i)), i + 1);
    }
  }

  void ExpectEncoding() {
    EXPECT_EQ(z_.encoding(), GetParam());
    EXPECT_TRUE(z_.Validate());
  }

  std::vector<std::string> RankRange(int64_t start, int64_t stop, bool reverse = false) {
    return Members(Collect(z_, z_.RankSpan(start, stop, reverse)));
  }

  std::vector<std::string> ScoreRange(std::string_view min, std::string_view max,
                                      bool reverse = false, ZLimit limit = {}) {
    auto range = ParseZScoreRange(min, max);
    EXPECT_TRUE(range.has_value());
    return Members(Collect(z_, z_.ScoreSpan(*range, reverse, limit)));
  }

  std::vector<std::string> LexRange(std::string_view min, std::string_view max,
                                    bool reverse = false, ZLimit limit = {}) {
    auto range = ParseZLexRange(min, max);
    EXPECT_TRUE(range.has_value());
    return Members(Collect(z_, z_.LexSpan(*range, reverse, limit)));
  }

  ZSetValue z_;
};

INSTANTIATE_TEST_SUITE_P(Encodings, ZSetTest,
                         ::testing::Values(Encoding::kListpack, Encoding::kSkiplist),
                         [](const auto& info) {
                           return info.param == Encoding::kListpack ? "Listpack" : "Skiplist";
                         });

TEST_P(ZSetTest, EmptySet) {
  EXPECT_EQ(z_.Size(), 0u);
  EXPECT_TRUE(z_.Empty());
  EXPECT_FALSE(z_.Score("a"));
  EXPECT_FALSE(z_.Rank("a"));
  EXPECT_FALSE(z_.Remove("a"));
  EXPECT_TRUE(z_.RankSpan(0, -1).empty());
  EXPECT_TRUE(z_.ScoreSpan({-kInf, kInf}).empty());
  EXPECT_TRUE(z_.LexSpan({}).empty());
  EXPECT_EQ(z_.Pop(3, false, [](std::string_view, double) { FAIL(); }), 0u);
  EXPECT_EQ(z_.Scan(0, 10, [](std::string_view, double) { FAIL(); }), 0u);
  Rng rng(1);
  EXPECT_FALSE(z_.RandomMember(rng));
  EXPECT_EQ(z_.RandomMembers(5, rng, [](std::string_view, double) { FAIL(); }), 0u);
  EXPECT_EQ(z_.RandomMembers(-5, rng, [](std::string_view, double) { FAIL(); }), 0u);
  EXPECT_TRUE(z_.Validate());
}

TEST_P(ZSetTest, AddUpdateScore) {
  ZAddOutcome r = Add("a", 1.5);
  EXPECT_EQ(r.result, ZAddResult::kAdded);
  EXPECT_EQ(r.score, 1.5);
  r = Add("a", 2.5);
  EXPECT_EQ(r.result, ZAddResult::kUpdated);
  EXPECT_EQ(r.score, 2.5);
  r = Add("a", 2.5);
  EXPECT_EQ(r.result, ZAddResult::kUnchanged);
  EXPECT_EQ(r.score, 2.5);
  Add("b", -1);
  EXPECT_EQ(z_.Size(), 2u);
  EXPECT_EQ(z_.Score("a"), 2.5);
  EXPECT_EQ(z_.Score("b"), -1);
  EXPECT_FALSE(z_.Score("c"));
  ExpectEncoding();
}

TEST_P(ZSetTest, UpdateMovesElement) {
  AddFive();
  Add("a", 10);  // lowest becomes highest
  EXPECT_EQ(RankRange(0, -1), Names({"b", "c", "d", "e", "a"}));
  Add("e", -10);
  EXPECT_EQ(RankRange(0, -1), Names({"e", "b", "c", "d", "a"}));
  Add("c", 2);  // tie with b: ordered by member
  EXPECT_EQ(RankRange(0, -1), Names({"e", "b", "c", "d", "a"}));
  Add("b", 2.5);
  EXPECT_EQ(RankRange(0, -1), Names({"e", "c", "b", "d", "a"}));
  ExpectEncoding();
}

TEST_P(ZSetTest, NxXx) {
  Add("a", 1);
  ZAddFlags nx;
  nx.nx = true;
  EXPECT_EQ(Add("a", 5, nx).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(z_.Score("a"), 1);
  EXPECT_EQ(Add("b", 5, nx).result, ZAddResult::kAdded);
  ZAddFlags xx;
  xx.xx = true;
  EXPECT_EQ(Add("c", 5, xx).result, ZAddResult::kNotPerformed);
  EXPECT_FALSE(z_.Score("c"));
  EXPECT_EQ(Add("a", 7, xx).result, ZAddResult::kUpdated);
  EXPECT_EQ(z_.Score("a"), 7);
  EXPECT_EQ(z_.Size(), 2u);
  ExpectEncoding();
}

TEST_P(ZSetTest, GtLt) {
  Add("a", 5);
  ZAddFlags gt;
  gt.gt = true;
  EXPECT_EQ(Add("a", 4, gt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(Add("a", 5, gt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(Add("a", 6, gt).result, ZAddResult::kUpdated);
  EXPECT_EQ(z_.Score("a"), 6);
  EXPECT_EQ(Add("new", -100, gt).result, ZAddResult::kAdded);  // GT does not block adds
  ZAddFlags lt;
  lt.lt = true;
  EXPECT_EQ(Add("a", 7, lt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(Add("a", 6, lt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(Add("a", 1, lt).result, ZAddResult::kUpdated);
  EXPECT_EQ(z_.Score("a"), 1);
  ZAddFlags xx_gt;
  xx_gt.xx = true;
  xx_gt.gt = true;
  EXPECT_EQ(Add("other", 1, xx_gt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(Add("a", 2, xx_gt).result, ZAddResult::kUpdated);
  ExpectEncoding();
}

TEST_P(ZSetTest, Incr) {
  ZAddFlags incr;
  incr.incr = true;
  ZAddOutcome r = Add("a", 2.5, incr);  // absent: starts from 0
  EXPECT_EQ(r.result, ZAddResult::kAdded);
  EXPECT_EQ(r.score, 2.5);
  r = Add("a", 1, incr);
  EXPECT_EQ(r.result, ZAddResult::kUpdated);
  EXPECT_EQ(r.score, 3.5);
  r = Add("a", 0, incr);
  EXPECT_EQ(r.result, ZAddResult::kUnchanged);
  EXPECT_EQ(r.score, 3.5);
  r = Add("a", kInf, incr);
  EXPECT_EQ(r.score, kInf);
  r = Add("a", -kInf, incr);  // inf + -inf
  EXPECT_EQ(r.result, ZAddResult::kNaN);
  EXPECT_EQ(z_.Score("a"), kInf);
  ZAddFlags incr_gt = incr;
  incr_gt.gt = true;
  Add("b", 10);
  EXPECT_EQ(Add("b", -1, incr_gt).result, ZAddResult::kNotPerformed);
  EXPECT_EQ(z_.Score("b"), 10);
  r = Add("b", 1, incr_gt);
  EXPECT_EQ(r.result, ZAddResult::kUpdated);
  EXPECT_EQ(r.score, 11);
  ZAddFlags incr_nx = incr;
  incr_nx.nx = true;
  EXPECT_EQ(Add("b", 1, incr_nx).result, ZAddResult::kNotPerformed);
  ZAddFlags incr_xx = incr;
  incr_xx.xx = true;
  EXPECT_EQ(Add("zz", 1, incr_xx).result, ZAddResult::kNotPerformed);
  EXPECT_FALSE(z_.Score("zz"));
  ExpectEncoding();
}

TEST_P(ZSetTest, NaNScoreIsRejected) {
  EXPECT_EQ(Add("a", std::nan("")).result, ZAddResult::kNaN);
  EXPECT_EQ(z_.Size(), 0u);
}

// Redis's listpack stores scores as text/integers, so -0 reads back as 0 there; its
// skiplist keeps the double's sign. HotKV does the same per encoding.
TEST_P(ZSetTest, NegativeZeroLikeRedis) {
  Add("a", -0.0);
  ASSERT_TRUE(z_.Score("a"));
  const bool listpack = z_.EncodingName() == std::string_view("listpack");
  EXPECT_EQ(std::signbit(*z_.Score("a")), !listpack);
  EXPECT_EQ(Add("a", 0.0).result, ZAddResult::kUnchanged);  // equal: stored value stays
  EXPECT_EQ(std::signbit(*z_.Score("a")), !listpack);
  Add("b", 0.0);
  EXPECT_FALSE(std::signbit(*z_.Score("b")));
  EXPECT_EQ(RankRange(0, -1), Names({"a", "b"}));  // -0 == 0: by member
  ExpectEncoding();
}

TEST_P(ZSetTest, InfiniteScores) {
  Add("pos", kInf);
  Add("neg", -kInf);
  Add("zero", 0);
  Add("big", 1e308);
  EXPECT_EQ(RankRange(0, -1), Names({"neg", "zero", "big", "pos"}));
  EXPECT_EQ(ScoreRange("-inf", "+inf"), Names({"neg", "zero", "big", "pos"}));
  EXPECT_EQ(ScoreRange("(-inf", "(+inf"), Names({"zero", "big"}));
  EXPECT_EQ(ScoreRange("+inf", "+inf"), Names({"pos"}));
  EXPECT_EQ(ScoreRange("-inf", "-inf"), Names({"neg"}));
  EXPECT_EQ(z_.CountInScoreRange({-kInf, kInf}), 4u);
  EXPECT_EQ(z_.Rank("pos")->rank, 3u);
  EXPECT_EQ(z_.Rank("pos", true)->rank, 0u);
  ExpectEncoding();
}

TEST_P(ZSetTest, Remove) {
  AddFive();
  EXPECT_TRUE(z_.Remove("c"));
  EXPECT_FALSE(z_.Remove("c"));
  EXPECT_FALSE(z_.Remove("zzz"));
  EXPECT_EQ(RankRange(0, -1), Names({"a", "b", "d", "e"}));
  for (const char* m : {"a", "b", "d", "e"}) {
    EXPECT_TRUE(z_.Remove(m));
  }
  EXPECT_TRUE(z_.Empty());
  EXPECT_TRUE(z_.Validate());
}

TEST_P(ZSetTest, Rank) {
  AddFive();
  for (int i = 0; i < 5; ++i) {
    const std::string m(1, static_cast<char>('a' + i));
    auto fwd = z_.Rank(m);
    auto rev = z_.Rank(m, /*reverse=*/true);
    ASSERT_TRUE(fwd && rev);
    EXPECT_EQ(fwd->rank, static_cast<size_t>(i));
    EXPECT_EQ(rev->rank, static_cast<size_t>(4 - i));
    EXPECT_EQ(fwd->score, i + 1);
    EXPECT_EQ(rev->score, i + 1);
  }
  EXPECT_FALSE(z_.Rank("x"));
}

TEST_P(ZSetTest, BinarySafeMembersOrderByBytes) {
  const std::string with_nul("a\0b", 3);
  const std::string nul_only("\0", 1);
  const std::string high("\xff\xfe", 2);
  const std::vector<std::string> sorted = {"",       nul_only, "a", std::string("a\0", 2),
                                           with_nul, "ab",     "b", high};
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
    Add(*it, 7);
  }
  EXPECT_EQ(Members(Collect(z_, z_.RankSpan(0, -1))), sorted);
  EXPECT_EQ(z_.Score(with_nul), 7);
  EXPECT_FALSE(z_.Score(std::string_view("a\0c", 3)));
  EXPECT_EQ(z_.Rank(high)->rank, sorted.size() - 1);
  EXPECT_EQ(z_.Rank("")->rank, 0u);
  EXPECT_TRUE(z_.Remove(nul_only));
  EXPECT_EQ(z_.Rank("a")->rank, 1u);
  ExpectEncoding();
}

TEST_P(ZSetTest, RankSpanRedisClamping) {
  AddFive();
  EXPECT_EQ(RankRange(0, -1), Names({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(RankRange(1, 3), Names({"b", "c", "d"}));
  EXPECT_EQ(RankRange(-2, -1), Names({"d", "e"}));
  EXPECT_EQ(RankRange(-100, 1), Names({"a", "b"}));
  EXPECT_EQ(RankRange(3, 100), Names({"d", "e"}));
  EXPECT_EQ(RankRange(4, 4), Names({"e"}));
  EXPECT_TRUE(RankRange(5, 10).empty());
  EXPECT_TRUE(RankRange(3, 2).empty());
  EXPECT_TRUE(RankRange(-1, -2).empty());
  EXPECT_TRUE(RankRange(0, -6).empty());
  EXPECT_EQ(RankRange(0, -5), Names({"a"}));
  // Reversed: index 0 is the highest.
  EXPECT_EQ(RankRange(0, -1, true), Names({"e", "d", "c", "b", "a"}));
  EXPECT_EQ(RankRange(0, 1, true), Names({"e", "d"}));
  EXPECT_EQ(RankRange(-2, -1, true), Names({"b", "a"}));
  EXPECT_EQ(RankRange(1, 100, true), Names({"d", "c", "b", "a"}));
  EXPECT_TRUE(RankRange(7, 9, true).empty());
  const ZRankSpan span = z_.RankSpan(1, 2, true);
  EXPECT_EQ(span.size(), 2u);
  EXPECT_TRUE(span.reverse);
}

TEST_P(ZSetTest, ScoreSpanBoundsAndLimit) {
  AddFive();
  EXPECT_EQ(ScoreRange("2", "4"), Names({"b", "c", "d"}));
  EXPECT_EQ(ScoreRange("(2", "4"), Names({"c", "d"}));
  EXPECT_EQ(ScoreRange("2", "(4"), Names({"b", "c"}));
  EXPECT_EQ(ScoreRange("(2", "(4"), Names({"c"}));
  EXPECT_EQ(ScoreRange("(2", "(3"), Names({}));
  EXPECT_EQ(ScoreRange("3", "3"), Names({"c"}));
  EXPECT_TRUE(ScoreRange("(3", "3").empty());
  EXPECT_TRUE(ScoreRange("3", "(3").empty());
  EXPECT_TRUE(ScoreRange("4", "2").empty());
  EXPECT_EQ(ScoreRange("1.5", "2.5"), Names({"b"}));
  EXPECT_EQ(ScoreRange("-inf", "2"), Names({"a", "b"}));
  EXPECT_EQ(ScoreRange("4", "+inf"), Names({"d", "e"}));
  EXPECT_TRUE(ScoreRange("6", "+inf").empty());
  EXPECT_TRUE(ScoreRange("-inf", "(1").empty());
  // Reverse: from max down.
  EXPECT_EQ(ScoreRange("2", "4", true), Names({"d", "c", "b"}));
  EXPECT_EQ(ScoreRange("(2", "+inf", true), Names({"e", "d", "c"}));
  // LIMIT offset count.
  EXPECT_EQ(ScoreRange("-inf", "+inf", false, {1, 2}), Names({"b", "c"}));
  EXPECT_EQ(ScoreRange("-inf", "+inf", false, {3, -1}), Names({"d", "e"}));
  EXPECT_EQ(ScoreRange("-inf", "+inf", false, {3, 100}), Names({"d", "e"}));
  EXPECT_TRUE(ScoreRange("-inf", "+inf", false, {5, 1}).empty());
  EXPECT_TRUE(ScoreRange("-inf", "+inf", false, {-1, 2}).empty());
  EXPECT_TRUE(ScoreRange("-inf", "+inf", false, {0, 0}).empty());
  EXPECT_EQ(ScoreRange("2", "5", false, {1, 1}), Names({"c"}));
  EXPECT_EQ(ScoreRange("-inf", "+inf", true, {1, 2}), Names({"d", "c"}));
  EXPECT_EQ(ScoreRange("2", "4", true, {2, 5}), Names({"b"}));
  EXPECT_TRUE(ScoreRange("2", "4", true, {3, 5}).empty());
  EXPECT_EQ(z_.ScoreSpan({-kInf, kInf}, false, {1, 2}).size(), 2u);
}

TEST_P(ZSetTest, CountInScoreRange) {
  AddFive();
  EXPECT_EQ(z_.CountInScoreRange({2, 4}), 3u);
  EXPECT_EQ(z_.CountInScoreRange({2, 4, true, true}), 1u);
  EXPECT_EQ(z_.CountInScoreRange({-kInf, kInf}), 5u);
  EXPECT_EQ(z_.CountInScoreRange({5, 1}), 0u);
  EXPECT_EQ(z_.CountInScoreRange({0, 0.5}), 0u);
  EXPECT_EQ(z_.CountInScoreRange({5, 5}), 1u);
}

TEST_P(ZSetTest, LexSpan) {
  for (const char* m : {"a", "b", "c", "d", "e", "f", "g"}) {
    Add(m, 0);
  }
  EXPECT_EQ(LexRange("-", "+"), Names({"a", "b", "c", "d", "e", "f", "g"}));
  EXPECT_EQ(LexRange("-", "[c"), Names({"a", "b", "c"}));
  EXPECT_EQ(LexRange("-", "(c"), Names({"a", "b"}));
  EXPECT_EQ(LexRange("[aaa", "(g"), Names({"b", "c", "d", "e", "f"}));
  EXPECT_EQ(LexRange("(b", "[d"), Names({"c", "d"}));
  EXPECT_EQ(LexRange("[b", "[b"), Names({"b"}));
  EXPECT_TRUE(LexRange("(b", "[b").empty());
  EXPECT_TRUE(LexRange("[d", "[b").empty());
  EXPECT_TRUE(LexRange("+", "-").empty());
  EXPECT_TRUE(LexRange("+", "+").empty());
  EXPECT_TRUE(LexRange("-", "-").empty());
  EXPECT_EQ(LexRange("[", "[b"), Names({"a", "b"}));  // "[" is the empty string
  EXPECT_EQ(LexRange("[f", "+"), Names({"f", "g"}));
  EXPECT_EQ(LexRange("-", "+", true), Names({"g", "f", "e", "d", "c", "b", "a"}));
  EXPECT_EQ(LexRange("[b", "(e", true), Names({"d", "c", "b"}));
  EXPECT_EQ(LexRange("-", "+", false, {2, 3}), Names({"c", "d", "e"}));
  EXPECT_EQ(LexRange("-", "+", true, {2, 3}), Names({"e", "d", "c"}));
  EXPECT_TRUE(LexRange("-", "+", false, {-1, 3}).empty());
  EXPECT_EQ(z_.CountInLexRange(*ParseZLexRange("[b", "[f")), 5u);
  EXPECT_EQ(z_.CountInLexRange(*ParseZLexRange("(b", "(f")), 3u);
  EXPECT_EQ(z_.CountInLexRange(*ParseZLexRange("-", "+")), 7u);
  EXPECT_EQ(z_.CountInLexRange(*ParseZLexRange("[z", "+")), 0u);
}

TEST_P(ZSetTest, RemoveRanges) {
  AddFive();
  EXPECT_EQ(z_.RemoveRangeByRank(1, 2), 2u);  // b c
  EXPECT_EQ(RankRange(0, -1), Names({"a", "d", "e"}));
  EXPECT_EQ(z_.RemoveRangeByRank(5, 9), 0u);
  EXPECT_EQ(z_.RemoveRangeByRank(-1, -1), 1u);  // e
  EXPECT_EQ(RankRange(0, -1), Names({"a", "d"}));
  AddFive();
  EXPECT_EQ(z_.RemoveRangeByScore(*ParseZScoreRange("(1", "3")), 2u);  // b c
  EXPECT_EQ(RankRange(0, -1), Names({"a", "d", "e"}));
  EXPECT_EQ(z_.RemoveRangeByScore(*ParseZScoreRange("10", "20")), 0u);
  EXPECT_EQ(z_.RemoveRangeByScore(*ParseZScoreRange("-inf", "+inf")), 3u);
  EXPECT_TRUE(z_.Empty());
  for (const char* m : {"a", "b", "c", "d", "e"}) {
    Add(m, 0);
  }
  EXPECT_EQ(z_.RemoveRangeByLex(*ParseZLexRange("[b", "(d")), 2u);
  EXPECT_EQ(RankRange(0, -1), Names({"a", "d", "e"}));
  EXPECT_EQ(z_.RemoveRangeByLex(*ParseZLexRange("(e", "+")), 0u);
  EXPECT_EQ(z_.RemoveRangeByLex(*ParseZLexRange("-", "+")), 3u);
  EXPECT_TRUE(z_.Empty());
  EXPECT_TRUE(z_.Validate());
}

TEST_P(ZSetTest, Pop) {
  AddFive();
  Pairs popped;
  auto collect = [&](std::string_view m, double s) { popped.emplace_back(std::string(m), s); };
  EXPECT_EQ(z_.Pop(2, /*from_max=*/false, collect), 2u);
  EXPECT_EQ(popped, (Pairs{{"a", 1}, {"b", 2}}));
  popped.clear();
  EXPECT_EQ(z_.Pop(1, /*from_max=*/true, collect), 1u);
  EXPECT_EQ(popped, (Pairs{{"e", 5}}));
  popped.clear();
  EXPECT_EQ(z_.Pop(0, true, collect), 0u);
  EXPECT_TRUE(popped.empty());
  EXPECT_EQ(z_.Pop(10, true, collect), 2u);
  EXPECT_EQ(popped, (Pairs{{"d", 4}, {"c", 3}}));
  EXPECT_TRUE(z_.Empty());
  EXPECT_TRUE(z_.Validate());
}

TEST_P(ZSetTest, ForEachIsOrdered) {
  AddFive();
  Add("aa", 1);
  Pairs all;
  z_.ForEach([&](std::string_view m, double s) { all.emplace_back(std::string(m), s); });
  EXPECT_EQ(all, (Pairs{{"a", 1}, {"aa", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}}));
}

TEST_P(ZSetTest, ScanReturnsEverythingOnce) {
  for (int i = 0; i < 100; ++i) {
    Add("m" + std::to_string(i), i);
  }
  std::multiset<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    cursor = z_.Scan(cursor, 10, [&](std::string_view m, double s) {
      seen.insert(std::string(m));
      EXPECT_EQ(z_.Score(m), s);
    });
    ++calls;
  } while (cursor != 0 && calls < 1000);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 100u);
  if (GetParam() == Encoding::kListpack) {
    EXPECT_EQ(calls, 1);  // all at once, cursor 0
  } else {
    EXPECT_GT(calls, 3);
  }
}

TEST_P(ZSetTest, RandomMembers) {
  AddFive();
  Rng rng(42);
  std::set<std::string> all = {"a", "b", "c", "d", "e"};
  for (int round = 0; round < 20; ++round) {
    auto one = z_.RandomMember(rng);
    ASSERT_TRUE(one);
    EXPECT_TRUE(all.count(std::string(one->member)));
    EXPECT_EQ(z_.Score(one->member), one->score);
    for (int64_t count : {1, 2, 3, 4}) {
      std::set<std::string> got;
      size_t n = z_.RandomMembers(count, rng, [&](std::string_view m, double s) {
        EXPECT_TRUE(got.insert(std::string(m)).second) << "repeated " << m;
        EXPECT_EQ(z_.Score(m), s);
      });
      EXPECT_EQ(n, static_cast<size_t>(count));
      EXPECT_EQ(got.size(), static_cast<size_t>(count));
      EXPECT_EQ(z_.RandomMembersLength(count), static_cast<size_t>(count));
    }
    std::vector<std::string> repeated;
    EXPECT_EQ(
        z_.RandomMembers(-12, rng, [&](std::string_view m, double) { repeated.emplace_back(m); }),
        12u);
    EXPECT_EQ(repeated.size(), 12u);
    for (const auto& m : repeated) {
      EXPECT_TRUE(all.count(m));
    }
  }
  std::vector<std::string> everything;
  EXPECT_EQ(
      z_.RandomMembers(50, rng, [&](std::string_view m, double) { everything.emplace_back(m); }),
      5u);
  EXPECT_EQ(z_.RandomMembersLength(50), 5u);
  EXPECT_EQ(z_.RandomMembersLength(-50), 50u);
  EXPECT_EQ(std::set<std::string>(everything.begin(), everything.end()), all);
  EXPECT_EQ(z_.RandomMembers(0, rng, [](std::string_view, double) { FAIL(); }), 0u);
}

TEST_P(ZSetTest, RandomMembersAreRoughlyUniform) {
  for (int i = 0; i < 10; ++i) {
    Add("m" + std::to_string(i), i);
  }
  Rng rng(7);
  std::map<std::string, int> hits;
  for (int i = 0; i < 2000; ++i) {
    z_.RandomMembers(3, rng, [&](std::string_view m, double) { ++hits[std::string(m)]; });
    z_.RandomMembers(-1, rng, [&](std::string_view m, double) { ++hits[std::string(m)]; });
  }
  ASSERT_EQ(hits.size(), 10u);
  for (const auto& [m, n] : hits) {
    EXPECT_GT(n, 600) << m;  // expected 800 each
    EXPECT_LT(n, 1000) << m;
  }
}

TEST_P(ZSetTest, CloneIsDeepAndSameEncoding) {
  AddFive();
  ZSetValue copy = z_.Clone();
  EXPECT_EQ(copy.encoding(), z_.encoding());
  Add("a", 100);
  z_.Remove("b");
  EXPECT_EQ(copy.Score("a"), 1);
  EXPECT_EQ(copy.Score("b"), 2);
  EXPECT_EQ(Members(Collect(copy, copy.RankSpan(0, -1))), Names({"a", "b", "c", "d", "e"}));
  EXPECT_TRUE(copy.Validate());
  ZSetValue moved = std::move(copy);
  EXPECT_EQ(moved.Size(), 5u);
}

TEST_P(ZSetTest, MemoryUsageGrowsAndShrinks) {
  const size_t empty = z_.MemoryUsage();
  for (int i = 0; i < 50; ++i) {
    Add("member:" + std::to_string(i), i);
  }
  const size_t full = z_.MemoryUsage();
  EXPECT_GT(full, empty + 50 * 8);
  for (int i = 0; i < 50; ++i) {
    z_.Remove("member:" + std::to_string(i));
  }
  EXPECT_LT(z_.MemoryUsage(), full);
  EXPECT_EQ(std::string(z_.EncodingName()),
            GetParam() == Encoding::kListpack ? "listpack" : "skiplist");
}

TEST_P(ZSetTest, LongMembers) {
  const std::string m200(200, 'x');
  const std::string m70k(70000, 'y');
  ZSetLimits big_values = limits();
  big_values.max_listpack_value = 100000;  // let the listpack take them, too
  z_.Add(m70k, 2, {}, big_values);
  z_.Add(m200, 1, {}, big_values);
  z_.Add("short", 3, {}, big_values);
  EXPECT_EQ(z_.Score(m70k), 2);
  EXPECT_EQ(RankRange(0, -1), (std::vector<std::string>{m200, m70k, "short"}));
  EXPECT_TRUE(z_.Remove(m70k));
  EXPECT_EQ(RankRange(0, -1), (std::vector<std::string>{m200, "short"}));
  ExpectEncoding();
}

}  // namespace
}  // namespace hotkv::types

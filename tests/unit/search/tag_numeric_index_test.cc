// TagIndex and NumericIndex: splitting, folding, matching, ranges, replacement, removal.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "search/numeric_index.h"
#include "search/tag_index.h"

namespace hotkv::search {
namespace {

TEST(TagIndexTest, SplitTrimsFoldsAndDeduplicates) {
  TagIndex t(',', false);
  EXPECT_EQ(t.Split(" Red , blue,,RED ", false), (std::vector<std::string>{"blue", "red"}));
  EXPECT_EQ(t.Split("a,,b", true), (std::vector<std::string>{"", "a", "b"}));
  TagIndex cs(';', true);
  EXPECT_EQ(cs.Split("A;a", false), (std::vector<std::string>{"A", "a"}));
  EXPECT_EQ(FoldTag("ÉCOLE"), "école");
}

TEST(TagIndexTest, MatchExactPrefixSuffixInfix) {
  TagIndex t(',', false);
  t.Set(1, t.Split("hello,world", false));
  t.Set(2, t.Split("help", false));
  t.Set(3, t.Split("yellow", false));
  auto m = [&](std::string v, TagValue::Match k) { return t.MatchOne(TagValue{v, k}); };
  EXPECT_EQ(m("HELLO", TagValue::Match::kExact), (DocIds{1}));
  EXPECT_EQ(m("hel", TagValue::Match::kPrefix), (DocIds{1, 2}));
  EXPECT_EQ(m("llo", TagValue::Match::kSuffix), (DocIds{1}));
  EXPECT_EQ(m("ell", TagValue::Match::kInfix), (DocIds{1, 3}));
  EXPECT_EQ(t.Match({TagValue{"help"}, TagValue{"world"}}), (DocIds{1, 2}));
  EXPECT_EQ(t.Values(), (std::vector<std::string>{"hello", "help", "world", "yellow"}));
}

TEST(TagIndexTest, ReplaceAndRemove) {
  TagIndex t(',', false);
  t.Set(5, {"a", "b"});
  t.Set(2, {"a"});
  EXPECT_EQ(t.MatchOne(TagValue{"a"}), (DocIds{2, 5}));
  t.Set(5, {"c"});
  EXPECT_EQ(t.MatchOne(TagValue{"a"}), (DocIds{2}));
  EXPECT_TRUE(t.MatchOne(TagValue{"b"}).empty());
  t.Remove(2);
  t.Remove(7);  // never set: no-op
  EXPECT_TRUE(t.MatchOne(TagValue{"a"}).empty());
  EXPECT_EQ(t.num_values(), 1u);
}

// Wide ranges are answered by a scan of every document, narrow ones by a walk of the
// ordered entries: both must give the same sorted, unique ids as a brute force, with
// multi-valued, replaced and removed documents, exclusive ends and infinities.
TEST(NumericIndexTest, WalkAndScanAgreeWithBruteForce) {
  NumericIndex n;
  std::mt19937 rng(5);
  std::vector<std::vector<double>> model(5000);
  for (DocId d = 0; d < model.size(); ++d) {
    const int count = d % 7 == 0 ? 3 : (d % 11 == 0 ? 0 : 1);
    std::vector<double> v;
    for (int i = 0; i < count; ++i) {
      v.push_back(static_cast<double>(rng() % 50) - 10);
    }
    n.Set(d, v);
    model[d] = v;
  }
  for (DocId d = 0; d < model.size(); d += 13) {
    n.Remove(d);
    model[d].clear();
  }
  for (DocId d = 5; d < model.size(); d += 17) {
    model[d] = {static_cast<double>(rng() % 50) - 10};
    n.Set(d, model[d]);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (int t = 0; t < 400; ++t) {
    double lo = static_cast<double>(rng() % 60) - 15;
    double hi = lo + static_cast<double>(rng() % (t % 2 ? 3 : 60));
    if (t % 50 == 0) lo = -inf;
    if (t % 70 == 0) hi = inf;
    const bool lo_ex = rng() % 2, hi_ex = rng() % 2;
    DocIds want;
    for (DocId d = 0; d < model.size(); ++d) {
      for (double v : model[d]) {
        if ((lo_ex ? v > lo : v >= lo) && (hi_ex ? v < hi : v <= hi)) {
          want.push_back(d);
          break;
        }
      }
    }
    EXPECT_EQ(n.Range(lo, hi, lo_ex, hi_ex), want) << lo << " " << hi << " " << lo_ex << hi_ex;
  }
}

TEST(NumericIndexTest, RangesWithExclusiveEnds) {
  NumericIndex n;
  n.Set(0, {1});
  n.Set(1, {5});
  n.Set(2, {10, 1});  // several values: one hit
  n.Set(3, {-3.5});
  EXPECT_EQ(n.Range(1, 10, false, false), (DocIds{0, 1, 2}));
  EXPECT_EQ(n.Range(1, 10, true, false), (DocIds{1, 2}));
  EXPECT_EQ(n.Range(1, 10, true, true), (DocIds{1}));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(n.Range(-inf, 0, false, false), (DocIds{3}));
  EXPECT_EQ(n.Range(-inf, inf, false, false), (DocIds{0, 1, 2, 3}));
  EXPECT_TRUE(n.Range(6, 2, false, false).empty());
  n.Set(2, {7});
  EXPECT_EQ(n.Range(1, 1, false, false), (DocIds{0}));
  n.Remove(0);
  EXPECT_TRUE(n.Range(1, 1, false, false).empty());
  EXPECT_EQ(n.num_entries(), 3u);
}

}  // namespace
}  // namespace hotkv::search

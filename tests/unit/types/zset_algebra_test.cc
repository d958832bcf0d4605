// ZSetBuilder and the set algebra (ZUNION / ZINTER / ZDIFF / ZINTERCARD).

#include "types/zset_algebra.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hotkv::types {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Pairs = std::vector<std::pair<std::string, double>>;

ZSetValue Make(const Pairs& pairs, ZSetLimits limits = {}) {
  ZSetValue z;
  for (const auto& [m, s] : pairs) {
    z.Add(m, s, {}, limits);
  }
  return z;
}

Pairs All(const ZSetValue& z) {
  Pairs out;
  z.ForEach([&](std::string_view m, double s) { out.emplace_back(std::string(m), s); });
  return out;
}

// A plain SET as the set type will expose it: every member scores 1.
class FakeSetSource final : public ZSetSource {
 public:
  explicit FakeSetSource(std::set<std::string> members) : members_(std::move(members)) {}
  size_t Size() const override { return members_.size(); }
  void ForEachUntil(ZFunctionRef<bool(std::string_view, double)> visit) const override {
    for (const auto& m : members_) {
      if (!visit(m, 1.0)) {
        return;
      }
    }
  }
  std::optional<double> Score(std::string_view member) const override {
    return members_.count(std::string(member)) ? std::optional<double>(1.0) : std::nullopt;
  }

 private:
  std::set<std::string> members_;
};

class ZSetAlgebraTest : public ::testing::TestWithParam<bool> {
 protected:
  // Inputs in the listpack encoding, or forced to skiplist.
  ZSetLimits limits() const { return GetParam() ? ZSetLimits{0, 0} : ZSetLimits{}; }
};

INSTANTIATE_TEST_SUITE_P(Encodings, ZSetAlgebraTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Skiplist" : "Listpack"; });

TEST_P(ZSetAlgebraTest, UnionWeightsAndAggregates) {
  const ZSetValue a = Make({{"x", 1}, {"y", 2}}, limits());
  const ZSetValue b = Make({{"y", 3}, {"z", 4}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  const ZWeightedSource in[] = {{&sa, 1}, {&sb, 2}};
  EXPECT_EQ(All(ZSetUnion(in, ZAggregate::kSum)), (Pairs{{"x", 1}, {"y", 8}, {"z", 8}}));
  EXPECT_EQ(All(ZSetUnion(in, ZAggregate::kMin)), (Pairs{{"x", 1}, {"y", 2}, {"z", 8}}));
  EXPECT_EQ(All(ZSetUnion(in, ZAggregate::kMax)), (Pairs{{"x", 1}, {"y", 6}, {"z", 8}}));
  // A missing key is an empty set.
  ZSetValueSource missing(nullptr);
  const ZWeightedSource with_missing[] = {{&sa, 1}, {&missing, 5}};
  EXPECT_EQ(All(ZSetUnion(with_missing, ZAggregate::kSum)), (Pairs{{"x", 1}, {"y", 2}}));
  EXPECT_TRUE(ZSetUnion(std::span<const ZWeightedSource>(), ZAggregate::kSum).Empty());
}

TEST_P(ZSetAlgebraTest, UnionInfinities) {
  const ZSetValue a = Make({{"p", kInf}, {"n", -kInf}, {"q", 1}}, limits());
  const ZSetValue b = Make({{"p", -kInf}, {"n", -kInf}, {"q", kInf}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  const ZWeightedSource in[] = {{&sa, 1}, {&sb, 1}};
  // +inf + -inf is 0 by Redis's convention.
  EXPECT_EQ(All(ZSetUnion(in, ZAggregate::kSum)), (Pairs{{"n", -kInf}, {"p", 0}, {"q", kInf}}));
  // Weight 0 times inf is NaN, counted as 0.
  const ZWeightedSource zero_weight[] = {{&sa, 0}, {&sb, 1}};
  EXPECT_EQ(All(ZSetUnion(zero_weight, ZAggregate::kSum)),
            (Pairs{{"n", -kInf}, {"p", -kInf}, {"q", kInf}}));
  EXPECT_EQ(All(ZSetUnion(zero_weight, ZAggregate::kMax)),
            (Pairs{{"n", 0}, {"p", 0}, {"q", kInf}}));
  // Negative weights flip the order.
  const ZWeightedSource negative[] = {{&sa, -1}};
  EXPECT_EQ(All(ZSetUnion(negative, ZAggregate::kSum)),
            (Pairs{{"p", -kInf}, {"q", -1}, {"n", kInf}}));
}

TEST_P(ZSetAlgebraTest, Inter) {
  const ZSetValue a = Make({{"x", 1}, {"y", 2}, {"w", 9}}, limits());
  const ZSetValue b = Make({{"y", 3}, {"z", 4}, {"x", 5}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  const ZWeightedSource in[] = {{&sa, 2}, {&sb, 1}};
  EXPECT_EQ(All(ZSetInter(in, ZAggregate::kSum)), (Pairs{{"x", 7}, {"y", 7}}));
  EXPECT_EQ(All(ZSetInter(in, ZAggregate::kMin)), (Pairs{{"x", 2}, {"y", 3}}));
  EXPECT_EQ(All(ZSetInter(in, ZAggregate::kMax)), (Pairs{{"y", 4}, {"x", 5}}));
  ZSetValueSource missing(nullptr);
  const ZWeightedSource with_missing[] = {{&sa, 1}, {&missing, 1}};
  EXPECT_TRUE(ZSetInter(with_missing, ZAggregate::kSum).Empty());
  // The same key twice.
  const ZWeightedSource twice[] = {{&sa, 1}, {&sa, 1}};
  EXPECT_EQ(All(ZSetInter(twice, ZAggregate::kSum)), (Pairs{{"x", 2}, {"y", 4}, {"w", 18}}));
  // A plain set scores 1.
  FakeSetSource set({"x", "w", "nope"});
  const ZWeightedSource with_set[] = {{&sa, 1}, {&set, 10}};
  EXPECT_EQ(All(ZSetInter(with_set, ZAggregate::kSum)), (Pairs{{"x", 11}, {"w", 19}}));
}

TEST_P(ZSetAlgebraTest, InterNaNConventions) {
  // Smallest input first: `a` (2 elements) is iterated, `b` looked up.
  const ZSetValue a = Make({{"x", kInf}, {"y", 1}}, limits());
  const ZSetValue b = Make({{"x", kInf}, {"y", kInf}, {"z", 0}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  // a's weighted inf * 0 is NaN -> 0 (first input); b's inf * 0 is NaN and SUM
  // turns the NaN total into 0; MIN/MAX ignore it.
  const ZWeightedSource in[] = {{&sa, 0}, {&sb, 0}};
  EXPECT_EQ(All(ZSetInter(in, ZAggregate::kSum)), (Pairs{{"x", 0}, {"y", 0}}));
  const ZWeightedSource later_nan[] = {{&sa, 1}, {&sb, 0}};
  EXPECT_EQ(All(ZSetInter(later_nan, ZAggregate::kSum)), (Pairs{{"x", 0}, {"y", 0}}));
  EXPECT_EQ(All(ZSetInter(later_nan, ZAggregate::kMin)), (Pairs{{"y", 1}, {"x", kInf}}));
  EXPECT_EQ(All(ZSetInter(later_nan, ZAggregate::kMax)), (Pairs{{"y", 1}, {"x", kInf}}));
}

TEST_P(ZSetAlgebraTest, CountAggregateSumsTheWeightsOfTheInputsHoldingAMember) {
  const ZSetValue a = Make({{"x", 1}, {"y", 2}, {"z", 3}}, limits());
  const ZSetValue b = Make({{"y", 10}, {"z", kInf}, {"w", -5}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  FakeSetSource set({"z", "w", "q"});
  const ZWeightedSource plain[] = {{&sa, 1}, {&sb, 1}, {&set, 1}};
  EXPECT_EQ(All(ZSetUnion(plain, ZAggregate::kCount)),
            (Pairs{{"q", 1}, {"x", 1}, {"w", 2}, {"y", 2}, {"z", 3}}));
  EXPECT_EQ(All(ZSetInter(plain, ZAggregate::kCount)), (Pairs{{"z", 3}}));
  // Weights are what is counted; the scores (inf included) never matter.
  const ZWeightedSource weighted[] = {{&sa, 2}, {&sb, 3}};
  EXPECT_EQ(All(ZSetUnion(weighted, ZAggregate::kCount)),
            (Pairs{{"x", 2}, {"w", 3}, {"y", 5}, {"z", 5}}));
  EXPECT_EQ(All(ZSetInter(weighted, ZAggregate::kCount)), (Pairs{{"y", 5}, {"z", 5}}));
  // +inf + -inf is 0, as for SUM; a weight of 0 counts 0.
  const ZWeightedSource infinite[] = {{&sa, kInf}, {&sb, -kInf}};
  EXPECT_EQ(All(ZSetUnion(infinite, ZAggregate::kCount)),
            (Pairs{{"w", -kInf}, {"y", 0}, {"z", 0}, {"x", kInf}}));
  const ZWeightedSource zero[] = {{&sa, 0}, {&sb, 0}};
  EXPECT_EQ(All(ZSetInter(zero, ZAggregate::kCount)), (Pairs{{"y", 0}, {"z", 0}}));
}

TEST_P(ZSetAlgebraTest, DiffAndInterCard) {
  const ZSetValue a = Make({{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}}, limits());
  const ZSetValue b = Make({{"b", 20}}, limits());
  const ZSetValue c = Make({{"d", 5}, {"e", 6}}, limits());
  ZSetValueSource sa(&a);
  ZSetValueSource sb(&b);
  ZSetValueSource sc(&c);
  ZSetValueSource missing(nullptr);
  const ZSetSource* in[] = {&sa, &sb, &sc, &missing};
  EXPECT_EQ(All(ZSetDiff(in)), (Pairs{{"a", 1}, {"c", 3}}));
  const ZSetSource* self[] = {&sa, &sb, &sa};
  EXPECT_TRUE(ZSetDiff(self).Empty());
  const ZSetSource* first_missing[] = {&missing, &sa};
  EXPECT_TRUE(ZSetDiff(first_missing).Empty());
  const ZSetSource* alone[] = {&sa};
  EXPECT_EQ(All(ZSetDiff(alone)), All(a));

  const ZSetSource* card[] = {&sa, &sc};
  EXPECT_EQ(ZSetInterCard(card), 1u);
  const ZSetSource* card_self[] = {&sa, &sa};
  EXPECT_EQ(ZSetInterCard(card_self), 4u);
  EXPECT_EQ(ZSetInterCard(card_self, 3), 3u);
  EXPECT_EQ(ZSetInterCard(card_self, 10), 4u);
  const ZSetSource* card_missing[] = {&sa, &missing};
  EXPECT_EQ(ZSetInterCard(card_missing), 0u);
}

// Random inputs against a naive implementation, covering both ZDIFF algorithms.
TEST_P(ZSetAlgebraTest, RandomAgainstNaive) {
  std::mt19937_64 rng(GetParam() ? 1 : 2);
  for (int round = 0; round < 60; ++round) {
    const int inputs = 1 + static_cast<int>(rng() % 4);
    std::vector<ZSetValue> sets;
    std::vector<std::map<std::string, double>> naive;
    for (int i = 0; i < inputs; ++i) {
      const int size = static_cast<int>(rng() % (round % 2 ? 300 : 40));
      std::map<std::string, double> m;
      for (int k = 0; k < size; ++k) {
        m["m" + std::to_string(rng() % 400)] = static_cast<double>(rng() % 50) - 10;
      }
      Pairs pairs(m.begin(), m.end());
      sets.push_back(Make(pairs, limits()));
      naive.push_back(m);
    }
    std::vector<ZSetValueSource> sources;
    sources.reserve(sets.size());
    for (const auto& s : sets) {
      sources.emplace_back(&s);
    }
    std::vector<ZWeightedSource> weighted;
    std::vector<const ZSetSource*> plain;
    std::vector<double> weights;
    for (auto& s : sources) {
      weights.push_back(static_cast<double>(rng() % 5) - 1);
      weighted.push_back({&s, weights.back()});
      plain.push_back(&s);
    }
    // Naive union / inter (SUM, integer-valued so summation order does not matter).
    std::map<std::string, double> uni;
    std::map<std::string, int> seen_in;
    for (int i = 0; i < inputs; ++i) {
      for (const auto& [m, s] : naive[i]) {
        uni[m] += s * weights[i];
        ++seen_in[m];
      }
    }
    std::map<std::string, double> inter;
    for (const auto& [m, n] : seen_in) {
      if (n == inputs) {
        inter[m] = uni[m];
      }
    }
    std::map<std::string, double> diff = naive[0];
    for (int i = 1; i < inputs; ++i) {
      for (const auto& [m, s] : naive[i]) {
        diff.erase(m);
      }
    }
    auto as_map = [](const ZSetValue& z) {
      std::map<std::string, double> out;
      z.ForEach([&](std::string_view m, double s) { out[std::string(m)] = s; });
      return out;
    };
    const ZSetValue u = ZSetUnion(weighted, ZAggregate::kSum);
    const ZSetValue n = ZSetInter(weighted, ZAggregate::kSum);
    const ZSetValue d = ZSetDiff(plain);
    EXPECT_EQ(as_map(u), uni);
    EXPECT_EQ(as_map(n), inter);
    EXPECT_EQ(as_map(d), diff);
    EXPECT_EQ(ZSetInterCard(plain), inter.size());
    for (const ZSetValue* z : {&u, &n, &d}) {
      EXPECT_TRUE(z->Validate());
      EXPECT_EQ(z->encoding() == ZSetValue::Encoding::kSkiplist, z->Size() > 128);
    }
  }
}

TEST(ZSetBuilderTest, BuildsTheRightEncoding) {
  ZSetBuilder b;
  EXPECT_TRUE(b.Insert("b", 2));
  EXPECT_TRUE(b.Insert("a", 2));
  EXPECT_FALSE(b.Insert("a", 5));  // present: unchanged
  EXPECT_EQ(b.Score("a"), 2);
  b.Accumulate("c", 1, ZAggregate::kSum);
  b.Accumulate("c", 1, ZAggregate::kSum);
  b.Accumulate("a", -10, ZAggregate::kMin);
  EXPECT_TRUE(b.Erase("b"));
  EXPECT_FALSE(b.Erase("b"));
  ZSetValue z = std::move(b).Build();
  EXPECT_EQ(All(z), (Pairs{{"a", -10}, {"c", 2}}));
  EXPECT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
  EXPECT_TRUE(z.Validate());

  ZSetBuilder exactly;
  for (int i = 0; i < 128; ++i) {
    exactly.Insert("m" + std::to_string(i), -i);
  }
  ZSetValue at_limit = std::move(exactly).Build();
  EXPECT_EQ(at_limit.encoding(), ZSetValue::Encoding::kListpack);
  EXPECT_EQ(at_limit.Rank("m0")->rank, 127u);
  EXPECT_TRUE(at_limit.Validate());

  ZSetBuilder over;
  for (int i = 0; i < 129; ++i) {
    over.Insert("m" + std::to_string(i), -i);
  }
  ZSetValue big = std::move(over).Build();
  EXPECT_EQ(big.encoding(), ZSetValue::Encoding::kSkiplist);
  EXPECT_EQ(big.Rank("m0")->rank, 128u);
  EXPECT_TRUE(big.Validate());

  ZSetBuilder long_member;
  long_member.Insert(std::string(65, 'x'), 1);
  EXPECT_EQ(std::move(long_member).Build().encoding(), ZSetValue::Encoding::kSkiplist);

  EXPECT_TRUE(ZSetBuilder().Build().Empty());
  ZSetBuilder unused;  // destroyed without Build: frees its entries
  unused.Insert("leak?", 1);
}

// ZRANGESTORE-style use: copy a span into a new key.
TEST(ZSetBuilderTest, RangeStore) {
  ZSetValue src;
  for (int i = 0; i < 1000; ++i) {
    src.Add("m" + std::to_string(i), i);
  }
  ZSetBuilder b;
  src.Visit(src.ScoreSpan({100, 199}), [&](std::string_view m, double s) { b.Insert(m, s); });
  ZSetValue dst = std::move(b).Build();
  EXPECT_EQ(dst.Size(), 100u);
  EXPECT_EQ(dst.encoding(), ZSetValue::Encoding::kListpack);
  EXPECT_EQ(dst.Rank("m150")->rank, 50u);
}

}  // namespace
}  // namespace hotkv::types

// Randomized differential test: ZSetValue against a reference model
// (std::map<std::string, double> + std::set<std::pair<double, std::string>>), seeded,
// tens of thousands of mixed operations per configuration, both encodings and the
// conversion between them. Ranks, rank/score/lex ranges with LIMIT, counts, pops and
// range removals are compared after every few operations; everything (plus the
// internal invariants) periodically.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "types/zset.h"

namespace hotkv::types {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Pair = std::pair<std::string, double>;
using Pairs = std::vector<Pair>;

class Model {
 public:
  size_t size() const { return scores_.size(); }

  std::optional<double> Score(const std::string& m) const {
    auto it = scores_.find(m);
    return it == scores_.end() ? std::nullopt : std::optional<double>(it->second);
  }

  // Redis zsetAdd, written independently of the implementation under test.
  ZAddOutcome Add(const std::string& m, double score, ZAddFlags f) {
    auto it = scores_.find(m);
    if (it == scores_.end()) {
      if (f.xx) {
        return {ZAddResult::kNotPerformed, 0};
      }
      Put(m, score);
      return {ZAddResult::kAdded, score};
    }
    const double cur = it->second;
    if (f.nx) {
      return {ZAddResult::kNotPerformed, 0};
    }
    double next = f.incr ? cur + score : score;
    if (std::isnan(next)) {
      return {ZAddResult::kNaN, 0};
    }
    if ((f.gt && !(next > cur)) || (f.lt && !(next < cur))) {
      return {ZAddResult::kNotPerformed, 0};
    }
    if (next == cur) {
      return {ZAddResult::kUnchanged, next};
    }
    Remove(m);
    Put(m, next);
    return {ZAddResult::kUpdated, next};
  }

  bool Remove(const std::string& m) {
    auto it = scores_.find(m);
    if (it == scores_.end()) {
      return false;
    }
    order_.erase({it->second, m});
    scores_.erase(it);
    return true;
  }

  // Elements with ascending ranks [begin, end), or (from_max) the `end` highest.
  Pairs Slice(size_t begin, size_t end, bool from_max = false) const {
    Pairs out;
    if (from_max) {
      for (auto it = order_.rbegin(); it != order_.rend() && out.size() < end; ++it) {
        out.emplace_back(it->second, it->first);
      }
      return out;
    }
    size_t i = 0;
    for (auto it = order_.begin(); it != order_.end() && i < end; ++it, ++i) {
      if (i >= begin) {
        out.emplace_back(it->second, it->first);
      }
    }
    return out;
  }

  template <typename Pred>
  Pairs Select(Pred pred) const {
    Pairs out;
    for (const auto& [s, m] : order_) {
      if (pred(Pair(m, s))) {
        out.emplace_back(m, s);
      }
    }
    return out;
  }

  Pairs Sorted() const {
    Pairs out;
    out.reserve(order_.size());
    for (const auto& [s, m] : order_) {
      out.emplace_back(m, s);
    }
    return out;
  }

 private:
  void Put(const std::string& m, double s) {
    scores_[m] = s;
    order_.insert({s, m});
  }

  std::map<std::string, double> scores_;
  std::set<std::pair<double, std::string>> order_;
};

Pairs Collect(const ZSetValue& z, ZRankSpan span) {
  Pairs out;
  z.Visit(span, [&](std::string_view m, double s) { out.emplace_back(std::string(m), s); });
  return out;
}

// Naive ZRANGE start stop [REV].
Pairs NaiveRank(Pairs sorted, int64_t start, int64_t stop, bool reverse) {
  if (reverse) {
    std::reverse(sorted.begin(), sorted.end());
  }
  const auto n = static_cast<int64_t>(sorted.size());
  if (start < 0) {
    start += n;
  }
  if (stop < 0) {
    stop += n;
  }
  start = std::max<int64_t>(start, 0);
  stop = std::min<int64_t>(stop, n - 1);
  if (start > stop) {
    return {};
  }
  return Pairs(sorted.begin() + start, sorted.begin() + stop + 1);
}

// Filter, orient, then apply LIMIT as Redis documents it.
template <typename InRange>
Pairs NaiveFiltered(const Pairs& sorted, InRange in_range, bool reverse, ZLimit limit) {
  Pairs matched;
  for (const auto& p : sorted) {
    if (in_range(p)) {
      matched.push_back(p);
    }
  }
  if (reverse) {
    std::reverse(matched.begin(), matched.end());
  }
  if (limit.offset < 0) {
    return {};
  }
  Pairs out;
  for (size_t i = static_cast<size_t>(limit.offset); i < matched.size(); ++i) {
    if (limit.count >= 0 && out.size() >= static_cast<size_t>(limit.count)) {
      break;
    }
    out.push_back(matched[i]);
  }
  return out;
}

bool InScore(double s, const ZScoreRange& r) {
  const bool above_min = r.min_exclusive ? s > r.min : s >= r.min;
  const bool below_max = r.max_exclusive ? s < r.max : s <= r.max;
  return above_min && below_max;
}

bool InLex(const std::string& m, const ZLexRange& r) {
  bool above_min = true;
  switch (r.min.kind) {
    case ZLexBound::Kind::kMinusInf:
      break;
    case ZLexBound::Kind::kPlusInf:
      above_min = false;
      break;
    case ZLexBound::Kind::kInclusive:
      above_min = std::string_view(m) >= r.min.member;
      break;
    case ZLexBound::Kind::kExclusive:
      above_min = std::string_view(m) > r.min.member;
      break;
  }
  bool below_max = true;
  switch (r.max.kind) {
    case ZLexBound::Kind::kMinusInf:
      below_max = false;
      break;
    case ZLexBound::Kind::kPlusInf:
      break;
    case ZLexBound::Kind::kInclusive:
      below_max = std::string_view(m) <= r.max.member;
      break;
    case ZLexBound::Kind::kExclusive:
      below_max = std::string_view(m) < r.max.member;
      break;
  }
  return above_min && below_max;
}

struct Config {
  const char* name;
  size_t pool;  // distinct members used
  bool lex;     // all scores 0: lex queries are meaningful
  ZSetLimits limits;
  int operations;
  int check_every;       // random queries
  int full_check_every;  // everything + Validate()
  bool stay_listpack;
  uint64_t seed;
};

class ZSetModelTest : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    const Config& c = GetParam();
    rng_.seed(c.seed);
    // Members: mostly short names, some binary (NUL, 0xff bytes), a few empty-ish.
    std::set<std::string> pool;
    while (pool.size() < c.pool) {
      const int kind = Rand(10);
      if (kind < 7) {
        pool.insert("m" + std::to_string(Rand(c.pool * 4)));
      } else {
        std::string m(static_cast<size_t>(Rand(12)), '\0');
        for (char& ch : m) {
          ch = static_cast<char>(Rand(4) == 0 ? 0 : Rand(256));
        }
        pool.insert(m);
      }
    }
    members_.assign(pool.begin(), pool.end());
  }

  uint64_t Rand(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  const std::string& RandomMember() { return members_[Rand(members_.size())]; }

  double RandomScore() {
    if (GetParam().lex) {
      return 0;
    }
    static const double kScores[] = {-kInf, -3.5, -2, -1, -0.0, 0, 1, 1.5, 2, 3, 1e9, kInf};
    if (Rand(5) == 0) {
      return std::uniform_real_distribution<double>(-100, 100)(rng_);
    }
    return kScores[Rand(std::size(kScores))];
  }

  ZScoreRange RandomScoreRange() {
    ZScoreRange r{RandomScore(), RandomScore(), Rand(3) == 0, Rand(3) == 0};
    if (Rand(4) != 0 && r.min > r.max) {
      std::swap(r.min, r.max);
    }
    return r;
  }

  ZLexBound RandomLexBound() {
    switch (Rand(8)) {
      case 0:
        return {ZLexBound::Kind::kMinusInf, {}};
      case 1:
        return {ZLexBound::Kind::kPlusInf, {}};
      default:
        return {Rand(2) == 0 ? ZLexBound::Kind::kInclusive : ZLexBound::Kind::kExclusive,
                RandomMember()};
    }
  }

  ZLimit RandomLimit(size_t n) {
    if (Rand(3) == 0) {
      return {};
    }
    return {static_cast<int64_t>(Rand(n + 3)) - 1, static_cast<int64_t>(Rand(n + 3)) - 1};
  }

  ZAddFlags RandomFlags() {
    ZAddFlags f;
    switch (Rand(8)) {
      case 0:
        f.nx = true;
        break;
      case 1:
        f.xx = true;
        break;
      case 2:
        f.gt = true;
        break;
      case 3:
        f.lt = true;
        break;
      case 4:
        f.xx = true;
        f.gt = Rand(2) == 0;
        f.lt = !f.gt;
        break;
      default:
        break;
    }
    f.incr = Rand(4) == 0;
    return f;
  }

  // Narrow ranges for removals, so the set is not wiped out too often.
  ZScoreRange RandomNarrowScoreRange() {
    if (Rand(10) == 0 && model_.size() < 200) {  // all elements of a frequent score
      const double s = RandomScore();
      return {s, s, false, false};
    }
    const double s = std::uniform_real_distribution<double>(-100, 100)(rng_);
    return {s, s + 5, Rand(3) == 0, Rand(3) == 0};
  }

  ZLexRange RandomNarrowLexRange() {
    const size_t i = Rand(members_.size());
    const size_t j = std::min(members_.size() - 1, i + Rand(6));
    return {
        {Rand(2) == 0 ? ZLexBound::Kind::kInclusive : ZLexBound::Kind::kExclusive, members_[i]},
        {Rand(2) == 0 ? ZLexBound::Kind::kInclusive : ZLexBound::Kind::kExclusive, members_[j]}};
  }

  void Mutate() {
    const Config& c = GetParam();
    // Tuned so the set grows to and then hovers around ~70% of the member pool (and
    // so crosses the listpack limit when the pool allows): at that fill most adds
    // update existing members, balancing removals and the pops / range removals.
    const double fill = static_cast<double>(model_.size()) / static_cast<double>(c.pool);
    if (Rand(1000) < static_cast<uint64_t>(1000 * (0.97 - 0.15 * fill))) {
      const std::string& m = RandomMember();
      const double s = RandomScore();
      const ZAddFlags f = RandomFlags();
      const ZAddOutcome got = z_.Add(m, s, f, c.limits);
      const ZAddOutcome want = model_.Add(m, s, f);
      ASSERT_EQ(got.result, want.result) << "member " << m << " score " << s;
      if (want.result == ZAddResult::kAdded || want.result == ZAddResult::kUpdated ||
          want.result == ZAddResult::kUnchanged) {
        ASSERT_EQ(got.score, want.score);
      }
      return;
    }
    const uint64_t op = Rand(100);
    if (op < 80) {
      const std::string& m = RandomMember();
      ASSERT_EQ(z_.Remove(m), model_.Remove(m));
    } else if (op < 88) {
      const size_t count = Rand(6);
      const bool from_max = Rand(2) == 0;
      const Pairs sorted = model_.Slice(0, count, from_max);
      Pairs popped;
      const size_t n = z_.Pop(count, from_max, [&](std::string_view m, double s) {
        popped.emplace_back(std::string(m), s);
      });
      ASSERT_EQ(popped, sorted);
      ASSERT_EQ(n, sorted.size());
      for (const auto& p : popped) {
        model_.Remove(p.first);
      }
    } else if (op < 94) {
      const auto n = static_cast<int64_t>(model_.size());
      const int64_t start = static_cast<int64_t>(Rand(6)) - 3 + (n > 0 ? Rand(n) : 0);
      const int64_t stop = start + static_cast<int64_t>(Rand(8)) - 1;
      int64_t first = start < 0 ? start + n : start;
      int64_t last = stop < 0 ? stop + n : stop;
      first = std::max<int64_t>(first, 0);
      const Pairs doomed = first > last ? Pairs() : model_.Slice(first, last + 1);
      ASSERT_EQ(z_.RemoveRangeByRank(start, stop), doomed.size());
      for (const auto& p : doomed) {
        model_.Remove(p.first);
      }
    } else if (!c.lex) {
      const ZScoreRange r = RandomNarrowScoreRange();
      const Pairs doomed = model_.Select([&](const Pair& p) { return InScore(p.second, r); });
      ASSERT_EQ(z_.RemoveRangeByScore(r), doomed.size());
      for (const auto& p : doomed) {
        model_.Remove(p.first);
      }
    } else {
      const ZLexRange r = RandomNarrowLexRange();
      const Pairs doomed = model_.Select([&](const Pair& p) { return InLex(p.first, r); });
      ASSERT_EQ(z_.RemoveRangeByLex(r), doomed.size());
      for (const auto& p : doomed) {
        model_.Remove(p.first);
      }
    }
  }

  void CheckQueries() {
    const Pairs sorted = model_.Sorted();
    const auto n = static_cast<int64_t>(sorted.size());
    ASSERT_EQ(z_.Size(), sorted.size());
    for (int i = 0; i < 2; ++i) {
      const bool reverse = Rand(2) == 0;
      const int64_t start = static_cast<int64_t>(Rand(n + 6)) - n / 2 - 3;
      const int64_t stop = static_cast<int64_t>(Rand(n + 6)) - n / 2 - 3;
      ASSERT_EQ(Collect(z_, z_.RankSpan(start, stop, reverse)),
                NaiveRank(sorted, start, stop, reverse))
          << start << " " << stop << " " << reverse;
    }
    if (!GetParam().lex) {
      for (int i = 0; i < 2; ++i) {
        const ZScoreRange r = RandomScoreRange();
        const bool reverse = Rand(2) == 0;
        const ZLimit limit = RandomLimit(sorted.size());
        auto in = [&](const Pair& p) { return InScore(p.second, r); };
        ASSERT_EQ(Collect(z_, z_.ScoreSpan(r, reverse, limit)),
                  NaiveFiltered(sorted, in, reverse, limit))
            << r.min << (r.min_exclusive ? "x " : " ") << r.max << (r.max_exclusive ? "x" : "");
        ASSERT_EQ(z_.CountInScoreRange(r), NaiveFiltered(sorted, in, false, {}).size());
      }
    } else {
      for (int i = 0; i < 2; ++i) {
        const ZLexRange r{RandomLexBound(), RandomLexBound()};
        const bool reverse = Rand(2) == 0;
        const ZLimit limit = RandomLimit(sorted.size());
        auto in = [&](const Pair& p) { return InLex(p.first, r); };
        ASSERT_EQ(Collect(z_, z_.LexSpan(r, reverse, limit)),
                  NaiveFiltered(sorted, in, reverse, limit));
        ASSERT_EQ(z_.CountInLexRange(r), NaiveFiltered(sorted, in, false, {}).size());
      }
    }
    for (int i = 0; i < 3; ++i) {
      const std::string& m = RandomMember();
      ASSERT_EQ(z_.Score(m), model_.Score(m));
    }
    if (n > 0) {
      for (int i = 0; i < 3; ++i) {
        const size_t rank = Rand(n);
        const auto info = z_.Rank(sorted[rank].first, /*reverse=*/i == 1);
        ASSERT_TRUE(info);
        ASSERT_EQ(info->rank, i == 1 ? n - 1 - rank : rank);
        ASSERT_EQ(info->score, sorted[rank].second);
      }
    }
  }

  void CheckEverything() {
    ASSERT_TRUE(z_.Validate());
    const Pairs sorted = model_.Sorted();
    Pairs all;
    z_.ForEach([&](std::string_view m, double s) { all.emplace_back(std::string(m), s); });
    ASSERT_EQ(all, sorted);
    for (size_t r = 0; r < sorted.size(); ++r) {
      const auto info = z_.Rank(sorted[r].first);
      ASSERT_TRUE(info);
      ASSERT_EQ(info->rank, r);
    }
    if (GetParam().stay_listpack) {
      ASSERT_EQ(z_.encoding(), ZSetValue::Encoding::kListpack);
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> members_;
  ZSetValue z_;
  Model model_;
};

TEST_P(ZSetModelTest, MatchesReferenceModel) {
  const Config& c = GetParam();
  for (int i = 1; i <= c.operations; ++i) {
    ASSERT_NO_FATAL_FAILURE(Mutate()) << "operation " << i;
    if (i % c.check_every == 0) {
      ASSERT_NO_FATAL_FAILURE(CheckQueries()) << "operation " << i;
    }
    if (i % c.full_check_every == 0) {
      ASSERT_NO_FATAL_FAILURE(CheckEverything()) << "operation " << i;
    }
  }
  CheckEverything();
  RecordProperty("final_size", static_cast<int>(z_.Size()));
  std::printf("  %s: final size %zu, encoding %s\n", c.name, z_.Size(), z_.EncodingName());
  if (!c.stay_listpack && c.pool > c.limits.max_listpack_entries * 2) {
    EXPECT_EQ(z_.encoding(), ZSetValue::Encoding::kSkiplist);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, ZSetModelTest,
    ::testing::Values(
        Config{"Listpack", 120, false, ZSetLimits{}, 30000, 1, 500, true, 1},
        Config{"ListpackLex", 100, true, ZSetLimits{}, 20000, 1, 500, true, 2},
        Config{"Converting", 300, false, ZSetLimits{}, 30000, 3, 1000, false, 3},
        Config{"Skiplist", 6000, false, ZSetLimits{0, 0}, 60000, 50, 5000, false, 4},
        Config{"SkiplistLex", 3000, true, ZSetLimits{0, 0}, 40000, 20, 5000, false, 5},
        Config{"SkiplistSmall", 40, false, ZSetLimits{0, 0}, 30000, 1, 500, false, 6}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace hotkv::types

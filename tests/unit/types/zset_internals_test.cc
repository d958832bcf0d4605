// The building blocks of the large-zset encoding at scale: the order-statistics
// B+tree (ZScoreTree) and the member table (ZMemberTable), including the ZSCAN
// guarantee across table resizes.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "types/zset.h"
#include "types/zset_entry.h"
#include "types/zset_table.h"
#include "types/zset_tree.h"

namespace hotkv::types {
namespace {

// A tree plus the entries it points to, freed at the end.
class TreeFixture : public ::testing::Test {
 protected:
  ~TreeFixture() override {
    tree_.Clear([](ZEntry* e) { ZEntry::Destroy(e); });
  }

  ZEntry* Make(const std::string& member, double score) { return ZEntry::Create(member, score); }

  // Reference order of what the tree should hold.
  std::vector<ZEntry*> Sorted(std::set<ZEntry*>& live) {
    std::vector<ZEntry*> v(live.begin(), live.end());
    std::sort(v.begin(), v.end(), ZEntryLess);
    return v;
  }

  void ExpectMatches(std::set<ZEntry*>& live) {
    ASSERT_TRUE(tree_.Validate());
    const std::vector<ZEntry*> sorted = Sorted(live);
    ASSERT_EQ(tree_.size(), sorted.size());
    size_t r = 0;
    for (auto it = tree_.Seek(0); it.Valid(); it.Next(), ++r) {
      ASSERT_EQ(it.entry(), sorted[r]);
    }
    ASSERT_EQ(r, sorted.size());
    std::mt19937_64 rng(r);
    for (int i = 0; i < 200 && !sorted.empty(); ++i) {
      const size_t k = rng() % sorted.size();
      ASSERT_EQ(tree_.Rank(sorted[k]), k);
      ASSERT_EQ(tree_.At(k), sorted[k]);
      const double s = sorted[k]->score();
      const size_t below =
          std::lower_bound(sorted.begin(), sorted.end(), s,
                           [](const ZEntry* e, double v) { return e->score() < v; }) -
          sorted.begin();
      const size_t not_above =
          std::upper_bound(sorted.begin(), sorted.end(), s,
                           [](double v, const ZEntry* e) { return v < e->score(); }) -
          sorted.begin();
      ASSERT_EQ(tree_.CountBelowScore(s, false), below);
      ASSERT_EQ(tree_.CountBelowScore(s, true), not_above);
    }
    // Backwards iteration sees the same sequence.
    auto it = tree_.Seek(sorted.empty() ? 0 : sorted.size() - 1);
    for (size_t k = sorted.size(); k-- > 0; it.Prev()) {
      ASSERT_TRUE(it.Valid());
      ASSERT_EQ(it.entry(), sorted[k]);
    }
    ASSERT_FALSE(it.Valid());
  }

  ZScoreTree tree_;
};

TEST_F(TreeFixture, RandomInsertEraseUpdateAtScale) {
  std::mt19937_64 rng(11);
  std::set<ZEntry*> live;
  std::vector<ZEntry*> order;  // for picking random live entries
  auto pick = [&]() -> ZEntry* {
    while (true) {
      const size_t i = rng() % order.size();
      if (live.count(order[i])) {
        return order[i];
      }
      order[i] = order.back();
      order.pop_back();
    }
  };
  int next_id = 0;
  for (int step = 1; step <= 300000; ++step) {
    const uint64_t op = rng() % 10;
    if (op < 6 || live.size() < 10) {
      // Few distinct scores: long runs of ties ordered by member.
      ZEntry* e = Make("k" + std::to_string(next_id++), static_cast<double>(rng() % 1000));
      tree_.Insert(e);
      live.insert(e);
      order.push_back(e);
    } else if (op < 8) {
      ZEntry* e = pick();
      tree_.Erase(e);
      live.erase(e);
      ZEntry::Destroy(e);
    } else {
      ZEntry* e = pick();
      const double delta = (rng() % 3 == 0) ? 0.25 : static_cast<double>(rng() % 2000) - 1000;
      tree_.UpdateScore(e, e->score() + delta);
    }
    if (step % 50000 == 0) {
      ASSERT_NO_FATAL_FAILURE(ExpectMatches(live)) << "step " << step;
    }
  }
  EXPECT_GE(tree_.height(), 3u);
  // Erase everything in random order; the tree must shrink back to nothing.
  std::vector<ZEntry*> rest(live.begin(), live.end());
  std::shuffle(rest.begin(), rest.end(), rng);
  for (size_t i = 0; i < rest.size(); ++i) {
    tree_.Erase(rest[i]);
    live.erase(rest[i]);
    ZEntry::Destroy(rest[i]);
    if (i % 20000 == 0) {
      ASSERT_NO_FATAL_FAILURE(ExpectMatches(live));
    }
  }
  EXPECT_EQ(tree_.size(), 0u);
  EXPECT_EQ(tree_.height(), 0u);
  EXPECT_EQ(tree_.MemoryUsage(), 0u);
  EXPECT_TRUE(tree_.Validate());
}

TEST_F(TreeFixture, AscendingAndDescendingInsertsPackLeaves) {
  std::set<ZEntry*> live;
  for (int i = 0; i < 100000; ++i) {  // timestamps-like appends
    ZEntry* e = Make("a" + std::to_string(i), 1e12 + i);
    tree_.Insert(e);
    live.insert(e);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(live));
  // Nearly full leaves: ~512 / 61 = 8.4 bytes per element plus inner nodes.
  EXPECT_LT(static_cast<double>(tree_.MemoryUsage()) / 100000, 9.5);
  for (int i = 0; i < 100000; ++i) {  // descending prepends
    ZEntry* e = Make("d" + std::to_string(i), -i);
    tree_.Insert(e);
    live.insert(e);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(live));
  EXPECT_LT(static_cast<double>(tree_.MemoryUsage()) / 200000, 10.0);
}

TEST_F(TreeFixture, EraseRangeAcrossManyLeaves) {
  std::vector<ZEntry*> entries;
  for (int i = 0; i < 120000; ++i) {
    entries.push_back(Make("e" + std::to_string(i), i / 7));
  }
  std::sort(entries.begin(), entries.end(), ZEntryLess);
  tree_.BuildFromSorted(entries.data(), entries.size());
  std::set<ZEntry*> live(entries.begin(), entries.end());
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(live));
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200 && tree_.size() > 0; ++round) {
    const size_t first = rng() % tree_.size();
    const size_t count = round % 10 == 0 ? 5000 + rng() % 20000 : rng() % 150;
    std::vector<ZEntry*> erased;
    std::vector<ZEntry*> expected;
    for (auto it = tree_.Seek(first); it.Valid() && expected.size() < count; it.Next()) {
      expected.push_back(it.entry());
    }
    tree_.EraseRange(first, count, [&](ZEntry* e) { erased.push_back(e); });
    ASSERT_EQ(erased, expected);
    for (ZEntry* e : erased) {
      live.erase(e);
      ZEntry::Destroy(e);
    }
    if (round % 20 == 0) {
      ASSERT_NO_FATAL_FAILURE(ExpectMatches(live)) << "round " << round;
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(live));
  // Everything that is left, in one call.
  tree_.EraseRange(0, tree_.size(), [&](ZEntry* e) {
    live.erase(e);
    ZEntry::Destroy(e);
  });
  EXPECT_TRUE(live.empty());
  EXPECT_EQ(tree_.size(), 0u);
  EXPECT_EQ(tree_.MemoryUsage(), 0u);
}

TEST(ZMemberTableTest, InsertFindEraseShrink) {
  ZMemberTable table;
  std::vector<ZEntry*> entries;
  for (int i = 0; i < 100000; ++i) {
    entries.push_back(ZEntry::Create("member:" + std::to_string(i), i));
    table.Insert(entries.back(), ZHashMember(entries.back()->member()));
  }
  EXPECT_EQ(table.size(), 100000u);
  EXPECT_LE(table.size() * 10, table.capacity() * 9);  // at most 90% full
  EXPECT_GE(table.size() * 10, table.capacity() * 5);  // and not wasteful
  EXPECT_LT(table.MaxDisplacement(), 100u);
  for (ZEntry* e : entries) {
    ASSERT_EQ(table.Find(e->member(), ZHashMember(e->member())), e);
  }
  EXPECT_EQ(table.Find("nope", ZHashMember("nope")), nullptr);
  for (int i = 0; i < 99000; ++i) {
    ZEntry* e = entries[i];
    ASSERT_EQ(table.Erase(e->member(), ZHashMember(e->member())), e);
    ASSERT_EQ(table.Find(e->member(), ZHashMember(e->member())), nullptr);
    ZEntry::Destroy(e);
  }
  EXPECT_EQ(table.size(), 1000u);
  EXPECT_LT(table.capacity(), 5000u);  // shrank
  for (int i = 99000; i < 100000; ++i) {
    ASSERT_EQ(table.Find(entries[i]->member(), ZHashMember(entries[i]->member())), entries[i]);
    ZEntry::Destroy(table.Erase(entries[i]->member(), ZHashMember(entries[i]->member())));
  }
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.MemoryUsage(), 0u);
}

// ZSCAN: members present for the whole scan are returned exactly once, even while
// other members come and go and the table grows and shrinks between calls.
TEST(ZSetScanTest, ExactlyOnceAcrossResizes) {
  for (int trial = 0; trial < 4; ++trial) {
    std::mt19937_64 rng(100 + trial);
    ZSetValue z;
    const ZSetLimits limits{0, 0};
    std::set<std::string> stable;
    for (int i = 0; i < 3000; ++i) {
      const std::string m = "stable:" + std::to_string(i);
      z.Add(m, i, {}, limits);
      stable.insert(m);
    }
    std::map<std::string, int> seen;
    uint64_t cursor = 0;
    int transient = 0;
    int calls = 0;
    do {
      cursor = z.Scan(cursor, 1 + rng() % 40,
                      [&](std::string_view m, double) { ++seen[std::string(m)]; });
      // Churn between calls: bursts that grow the table to ~5x (three 1.5x resizes),
      // then remove the transients again (the table shrinks back below 20% load).
      const bool grow = (calls / 15) % 2 == 0;
      for (int k = 0; k < 800; ++k) {
        if (grow) {
          z.Add("t:" + std::to_string(transient++), 0, {}, limits);
        } else if (transient > 0) {
          z.Remove("t:" + std::to_string(--transient));
        }
      }
      ++calls;
    } while (cursor != 0 && calls < 100000);
    ASSERT_EQ(cursor, 0u);
    for (const std::string& m : stable) {
      EXPECT_EQ(seen[m], 1) << m;
    }
    for (const auto& [m, n] : seen) {
      EXPECT_EQ(n, 1) << m;
    }
    EXPECT_TRUE(z.Validate());
  }
}

TEST(ZSetScanTest, CountIsAHint) {
  ZSetValue z;
  for (int i = 0; i < 10000; ++i) {
    z.Add("m" + std::to_string(i), i, {}, ZSetLimits{0, 0});
  }
  size_t total = 0;
  int calls = 0;
  uint64_t cursor = 0;
  do {
    size_t n = 0;
    cursor = z.Scan(cursor, 100, [&](std::string_view, double) { ++n; });
    EXPECT_LE(n, 120u);  // stops at the first bucket boundary after 100
    total += n;
    ++calls;
  } while (cursor != 0);
  EXPECT_EQ(total, 10000u);
  EXPECT_GE(calls, 84);
  EXPECT_LE(calls, 110);
}

}  // namespace
}  // namespace hotkv::types

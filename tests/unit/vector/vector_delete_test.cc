// HnswIndex removal and update: the graph stays connected and recall stays high
// through heavy deletion and churn; slots are reused.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "vector_test_util.h"

namespace hotkv::vector {
namespace {

using testing_util::ClusteredData;
using testing_util::Label;
using testing_util::Recall;

std::unique_ptr<HnswIndex> Build(const std::vector<std::vector<float>>& data, Metric metric) {
  IndexOptions o;
  o.dim = static_cast<uint32_t>(data[0].size());
  o.metric = metric;
  auto index = std::move(HnswIndex::Create(o)).value();
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_TRUE(*index->Add(Label(i), data[i]));
  }
  return index;
}

TEST(HnswDeleteTest, RemovingThirtyPercentKeepsRecallAndConnectivity) {
  const auto data = ClusteredData(5000, 64, 50, 42);
  const auto queries = ClusteredData(200, 64, 50, 1042);
  auto index = Build(data, Metric::kL2);
  const double before = Recall(*index, Metric::kL2, data, queries, 10, 100);

  std::mt19937 rng(1);
  std::vector<size_t> order(data.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<char> removed(data.size(), 0);
  for (size_t i = 0; i < data.size() * 3 / 10; ++i) {
    ASSERT_TRUE(index->Remove(Label(order[i])));
    removed[order[i]] = 1;
  }
  EXPECT_EQ(index->size(), data.size() - data.size() * 3 / 10);
  for (size_t i = 0; i < data.size(); ++i) {
    ASSERT_EQ(index->Contains(Label(i)), !removed[i]);
  }
  const double after = Recall(*index, Metric::kL2, data, queries, 10, 100, &removed);
  std::printf("recall@10 ef=100 before %.4f after removing 30%% %.4f; unreachable %zu, "
              "dangling links %zu, mean degree0 %.1f\n",
              before, after, HnswTestPeer::CountUnreachable(*index),
              HnswTestPeer::CountDanglingLinks(*index), HnswTestPeer::MeanDegree0(*index));
  EXPECT_GT(after, 0.95);
  EXPECT_GT(after, before - 0.02);
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
  // Removed elements never come back from a search.
  for (const auto& q : queries) {
    SearchParams p;
    p.k = 50;
    auto hits = index->Search(q, p);
    ASSERT_TRUE(hits.ok());
    for (const auto& h : *hits) {
      ASSERT_TRUE(index->Contains(h.label)) << h.label;
    }
  }
}

TEST(HnswDeleteTest, ChurnKeepsRecallAndReusesSlots) {
  // Ten rounds of: remove 10% at random, re-add them with new vectors.
  const size_t kN = 3000;
  auto data = ClusteredData(kN, 32, 30, 5);
  const auto queries = ClusteredData(100, 32, 30, 505);
  auto index = Build(data, Metric::kCosine);
  const double initial = Recall(*index, Metric::kCosine, data, queries, 10, 100);
  const size_t capacity = index->Info().capacity;
  std::mt19937 rng(2);
  std::uniform_int_distribution<size_t> pick(0, kN - 1);
  for (int round = 0; round < 10; ++round) {
    auto fresh = ClusteredData(kN / 10, 32, 30, 1000 + round);
    for (size_t j = 0; j < fresh.size(); ++j) {
      size_t victim = pick(rng);
      ASSERT_TRUE(index->Remove(Label(victim)));
      data[victim] = fresh[j];
      ASSERT_TRUE(*index->Add(Label(victim), data[victim]));
    }
  }
  EXPECT_EQ(index->size(), kN);
  const double final_recall = Recall(*index, Metric::kCosine, data, queries, 10, 100);
  std::printf("churn: recall %.4f -> %.4f, unreachable %zu, dangling %zu, degree0 %.1f\n",
              initial, final_recall, HnswTestPeer::CountUnreachable(*index),
              HnswTestPeer::CountDanglingLinks(*index), HnswTestPeer::MeanDegree0(*index));
  EXPECT_GT(final_recall, 0.95);
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
  // Freed slots are reused: the index did not grow by the 3000 re-inserts.
  EXPECT_LE(index->Info().capacity, capacity + 1024);
  EXPECT_LE(index->Info().num_nodes, kN + 64);
}

TEST(HnswDeleteTest, UpdatesMoveVectors) {
  const size_t kN = 3000;
  auto data = ClusteredData(kN, 32, 30, 6);
  auto index = Build(data, Metric::kL2);
  // Move 30% of the elements to new positions with Add (update).
  auto moved = ClusteredData(kN, 32, 30, 606);
  for (size_t i = 0; i < kN; i += 3) {
    data[i] = moved[i];
    auto r = index->Add(Label(i), data[i]);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(*r);
  }
  EXPECT_EQ(index->size(), kN);
  const auto queries = ClusteredData(100, 32, 30, 6006);
  EXPECT_GT(Recall(*index, Metric::kL2, data, queries, 10, 100), 0.95);
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
  // Each moved element is found at its new place.
  SearchParams p;
  p.k = 1;
  for (size_t i = 0; i < kN; i += 3 * 37) {
    auto hits = index->Search(data[i], p);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ((*hits)[0].label, Label(i));
  }
}

TEST(HnswDeleteTest, RemovingEntryPointsRepeatedly) {
  const auto data = ClusteredData(2000, 16, 20, 7);
  auto index = Build(data, Metric::kCosine);
  // Remove the element with the highest level, 200 times.
  std::vector<char> removed(data.size(), 0);
  for (int round = 0; round < 200; ++round) {
    int top = index->Info().max_level;
    ASSERT_GE(top, 0);
    // Find an element whose link list reaches the top level: the entry point.
    std::string victim;
    for (size_t i = 0; i < data.size() && victim.empty(); ++i) {
      if (removed[i]) {
        continue;
      }
      auto links = index->GetLinks(Label(i));
      if (links.has_value() && static_cast<int>(links->size()) == top + 1) {
        victim = Label(i);
        removed[i] = 1;
      }
    }
    ASSERT_FALSE(victim.empty());
    ASSERT_TRUE(index->Remove(victim));
  }
  const auto queries = ClusteredData(100, 16, 20, 707);
  EXPECT_GT(Recall(*index, Metric::kCosine, data, queries, 10, 100, &removed), 0.95);
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
}

TEST(HnswDeleteTest, RemoveEverythingThenReuse) {
  const auto data = ClusteredData(500, 8, 5, 8);
  auto index = Build(data, Metric::kL2);
  for (size_t i = 0; i < data.size(); ++i) {
    ASSERT_TRUE(index->Remove(Label(i)));
  }
  EXPECT_EQ(index->size(), 0u);
  EXPECT_EQ(index->Info().max_level, -1);
  auto hits = index->Search(data[0], {});
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  for (size_t i = 0; i < data.size(); ++i) {
    ASSERT_TRUE(*index->Add(Label(i), data[i]));
  }
  EXPECT_EQ(index->size(), data.size());
  EXPECT_LE(index->Info().num_nodes, data.size());
  SearchParams p;
  p.k = 1;
  auto hit = index->Search(data[17], p);
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ((*hit)[0].label, Label(17));
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
}

}  // namespace
}  // namespace hotkv::vector

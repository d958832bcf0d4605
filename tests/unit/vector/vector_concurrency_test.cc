// HnswIndex under concurrent Add / Remove / update / Search / accessors.
// Asserts correctness only (no crash, sizes right, every surviving vector findable);
// run it under ASan/UBSan too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "vector/filter_expr.h"
#include "vector_test_util.h"

namespace hotkv::vector {
namespace {

using testing_util::ClusteredData;
using testing_util::Label;

std::string NewLabel(int writer, size_t i) {
  return "w" + std::to_string(writer) + ":" + std::to_string(i);
}

TEST(HnswConcurrencyTest, AddSearchRemoveFromManyThreads) {
  const size_t kBase = 2000;
  const size_t kPerWriter = 1500;
  const int kWriters = 2;
  const uint32_t kDim = 32;
  const auto base = ClusteredData(kBase, kDim, 20, 1);
  std::vector<std::vector<std::vector<float>>> fresh;
  for (int w = 0; w < kWriters; ++w) {
    fresh.push_back(ClusteredData(kPerWriter, kDim, 20, 100 + static_cast<uint32_t>(w)));
  }
  IndexOptions o;
  o.dim = kDim;
  o.metric = Metric::kL2;
  auto index = std::move(HnswIndex::Create(o)).value();
  for (size_t i = 0; i < kBase; ++i) {
    ASSERT_TRUE(*index->Add(Label(i), base[i]));
  }

  auto compiled = FilterExpression::Compile(".w == 1 or .touched == 1");
  ASSERT_TRUE(compiled.ok());
  const std::unique_ptr<FilterExpression> filter = std::move(compiled).value();
  std::atomic<bool> stop{false};
  std::atomic<size_t> searches{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (size_t i = 0; i < kPerWriter; ++i) {
        auto r = index->Add(NewLabel(w, i), fresh[w][i], R"({"w": )" + std::to_string(w) + "}");
        if (!r.ok() || !*r) {
          errors++;
        }
      }
    });
  }
  // Remover: every even base element.
  threads.emplace_back([&] {
    for (size_t i = 0; i < kBase; i += 2) {
      if (!index->Remove(Label(i))) {
        errors++;
      }
    }
  });
  // Updater: moves base elements 1, 5, 9, ... to the position of another vector.
  threads.emplace_back([&] {
    for (size_t i = 1; i < kBase; i += 4) {
      auto r = index->Add(Label(i), base[(i * 7) % kBase]);
      if (!r.ok() || *r) {
        errors++;
      }
    }
  });
  // Readers.
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(static_cast<uint32_t>(r));
      size_t n = 0;
      while (!stop.load()) {
        const auto& q = base[rng() % kBase];
        SearchParams p;
        p.k = 10;
        p.ef = 50;
        p.with_attributes = (n % 3) == 0;
        // Every 4th search filters on attributes that other threads keep replacing.
        const bool filtered = (n % 4) == 1;
        if (filtered) {
          p.filter = filter.get();
          p.filter_ef = 500;
        }
        auto hits = index->Search(q, p);
        if (!hits.ok() || (!filtered && hits->empty())) {
          errors++;
        }
        if (filtered) {
          // Writer 0's elements carry {"w": 0} and are never touched: never a match.
          for (const auto& h : *hits) {
            if (h.label.rfind("w0:", 0) == 0) {
              errors++;
            }
          }
        }
        if (n % 16 == 0) {
          index->GetVector(Label(rng() % kBase));
          index->GetLinks(Label(rng() % kBase));
          index->RandomLabel();
          index->SetAttributes(Label(rng() % kBase), R"({"touched": 1})");
          index->GetAttributes(Label(rng() % kBase));
          index->SearchByLabel(Label(rng() % kBase), p);
          index->Info();
        }
        ++n;
      }
      searches += n;
    });
  }
  for (int t = 0; t < kWriters + 2; ++t) {
    threads[static_cast<size_t>(t)].join();
  }
  stop = true;
  for (size_t t = static_cast<size_t>(kWriters) + 2; t < threads.size(); ++t) {
    threads[t].join();
  }
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(searches.load(), 0u);
  EXPECT_EQ(index->size(), kBase - kBase / 2 + kWriters * kPerWriter);

  // Every element added by the writers is found by an exact-vector query.
  SearchParams p;
  p.k = 10;
  p.ef = 200;
  size_t missing = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (size_t i = 0; i < kPerWriter; ++i) {
      auto hits = index->Search(fresh[w][i], p);
      ASSERT_TRUE(hits.ok());
      bool found = false;
      for (const auto& h : *hits) {
        found |= h.label == NewLabel(w, i);
      }
      if (!found) {
        auto links = index->GetLinks(NewLabel(w, i));
        std::fprintf(stderr, "missing %s: levels=%zu out0=%zu first hit %s d=%f\n",
                     NewLabel(w, i).c_str(), links ? links->size() : 0,
                     links ? (*links)[0].size() : 0, (*hits)[0].label.c_str(),
                     (*hits)[0].distance);
      }
      missing += !found;
    }
  }
  EXPECT_EQ(missing, 0u);
  for (size_t i = 0; i < kBase; ++i) {
    EXPECT_EQ(index->Contains(Label(i)), i % 2 == 1);
  }
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
}

TEST(HnswConcurrencyTest, SameLabelRaces) {
  IndexOptions o;
  o.dim = 8;
  auto index = std::move(HnswIndex::Create(o)).value();
  const auto data = ClusteredData(200, 8, 4, 3);
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(*index->Add(Label(i), data[i]));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t));
      for (int i = 0; i < 2000; ++i) {
        const std::string label = Label(rng() % 8);  // Few labels: heavy contention.
        switch (rng() % 4) {
          case 0:
            index->Remove(label);
            break;
          case 1:
            index->SetAttributes(label, "{\"x\": 1}");
            break;
          default:
            ASSERT_TRUE(index->Add(label, data[rng() % data.size()]).ok());
        }
        index->Search(data[rng() % data.size()], {});
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  // Size matches what Contains reports.
  size_t present = 0;
  for (size_t i = 0; i < 100; ++i) {
    present += index->Contains(Label(i));
  }
  EXPECT_EQ(present, index->size());
  EXPECT_EQ(HnswTestPeer::CountUnreachable(*index), 0u);
}

TEST(HnswConcurrencyTest, CloneWhileWriting) {
  IndexOptions o;
  o.dim = 16;
  auto index = std::move(HnswIndex::Create(o)).value();
  const auto data = ClusteredData(3000, 16, 10, 4);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (size_t i = 0; i < data.size(); ++i) {
      index->Add(Label(i), data[i]);
      if (i % 3 == 0 && i > 0) {
        index->Remove(Label(i - 1));
      }
    }
    done = true;
  });
  while (!done.load()) {
    auto copy = index->Clone();
    // A clone is a consistent snapshot: its size matches its contents.
    size_t n = 0;
    copy->ForEachElement([&](const ElementView&) { ++n; });
    EXPECT_EQ(n, copy->size());
    EXPECT_EQ(HnswTestPeer::CountUnreachable(*copy), 0u);
  }
  writer.join();
}

}  // namespace
}  // namespace hotkv::vector

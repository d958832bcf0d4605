// Memory per element, by malloc_usable_size accounting (ZSetValue::MemoryUsage) and
// cross-checked against glibc's own heap counters (mallinfo2, which also counts the
// allocator's per-chunk headers). Prints the figures; asserts generous ceilings so a
// regression fails loudly. Under sanitizers the allocator differs, so only smaller
// sets are built and nothing is asserted about sizes.

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "types/zset.h"
#include "types/zset_builder.h"
#include "types/zset_treeset.h"

namespace hotkv::types {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
constexpr size_t kBig = 100000;
#else
constexpr bool kSanitized = false;
constexpr size_t kBig = 1000000;
#endif

size_t HeapInUse() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

std::string Member(size_t i) { return "member:" + std::to_string(i); }  // 8-14 bytes

void Report(const char* what, size_t elements, size_t usable, size_t heap) {
  std::printf("  %-44s %9zu elements  %6.1f B/elem (usable)  %6.1f B/elem (heap)\n", what, elements,
              static_cast<double>(usable) / elements, static_cast<double>(heap) / elements);
}

TEST(ZSetMemoryTest, OneLargeSet) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> score(0, 1e6);
  const size_t before = HeapInUse();
  ZSetValue z = ZSetValue::Create(0, 0, ZSetLimits{});
  for (size_t i = 0; i < kBig; ++i) {
    z.Add(Member(i), score(rng));
  }
  const size_t heap = HeapInUse() - before;
  ASSERT_EQ(z.encoding(), ZSetValue::Encoding::kSkiplist);
  Report("ZADD, random scores", kBig, z.MemoryUsage(), heap);

  // Same content, built in one go (ZUNIONSTORE result, COPY, RESTORE): full leaves.
  const size_t before_clone = HeapInUse();
  ZSetValue copy = z.Clone();
  Report("Clone / bulk build", kBig, copy.MemoryUsage(), HeapInUse() - before_clone);
  if (!kSanitized) {
    EXPECT_LT(static_cast<double>(z.MemoryUsage()) / kBig, 56.0);
    EXPECT_LT(static_cast<double>(copy.MemoryUsage()) / kBig, 52.0);
  }
}

TEST(ZSetMemoryTest, Breakdown) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> score(0, 1e6);
  ZTreeSet set;
  for (size_t i = 0; i < kBig; ++i) {
    set.Insert(Member(i), score(rng));
  }
  const ZTreeSet::MemoryBreakdown b = set.Breakdown();
  std::printf("  breakdown per element: entries %.1f  table %.1f  tree %.1f  (table %zu slots)\n",
              static_cast<double>(b.entries) / kBig, static_cast<double>(b.table) / kBig,
              static_cast<double>(b.tree) / kBig, set.table_capacity());
  EXPECT_EQ(set.MemoryUsage(), sizeof(ZTreeSet) + b.entries + b.table + b.tree);
}

TEST(ZSetMemoryTest, AscendingScores) {
  const size_t before = HeapInUse();
  ZSetValue z;
  for (size_t i = 0; i < kBig; ++i) {
    z.Add(Member(i), 1.7e12 + static_cast<double>(i));  // timestamps
  }
  Report("ZADD, ascending scores (timestamps)", kBig, z.MemoryUsage(), HeapInUse() - before);
  if (!kSanitized) {
    EXPECT_LT(static_cast<double>(z.MemoryUsage()) / kBig, 56.0);
  }
}

void SmallSets(const char* what, size_t sets, size_t per_set, bool integer_scores) {
  std::mt19937_64 rng(3);
  const size_t before = HeapInUse();
  std::vector<ZSetValue> zsets(sets);
  size_t usable = 0;
  for (size_t k = 0; k < sets; ++k) {
    for (size_t i = 0; i < per_set; ++i) {
      const double s = integer_scores ? static_cast<double>(rng() % 1000)
                                      : std::uniform_real_distribution<double>(0, 1)(rng);
      zsets[k].Add("user:" + std::to_string(1000 + rng() % 9000), s);
    }
  }
  size_t elements = 0;
  for (const ZSetValue& z : zsets) {
    ASSERT_EQ(z.encoding(), ZSetValue::Encoding::kListpack);
    usable += z.MemoryUsage();
    elements += z.Size();
  }
  Report(what, elements, usable, HeapInUse() - before - sets * sizeof(ZSetValue));
  std::printf("  %-44s per key: %.1f B usable + %zu B ZSetValue\n", "",
              static_cast<double>(usable) / sets, sizeof(ZSetValue));
  if (!kSanitized) {
    // member 9 bytes + 1 header byte + 0-8 score bytes, plus the buffer header.
    EXPECT_LT(static_cast<double>(usable) / elements, integer_scores ? 15.0 : 22.0);
  }
}

TEST(ZSetMemoryTest, ManySmallSets) {
  SmallSets("100k listpack zsets x 10, int scores", kBig / 10, 10, true);
  SmallSets("100k listpack zsets x 10, double scores", kBig / 10, 10, false);
  SmallSets("10k listpack zsets x 100, int scores", kBig / 100, 100, true);
}

}  // namespace
}  // namespace hotkv::types

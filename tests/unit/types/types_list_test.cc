// Tests for ListValue: every list operation in both encodings, the conversion point,
// and randomized runs against a std::deque model.

#include "types/list_value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace hotkv::types {
namespace {

using namespace std::string_literals;
using Strings = std::vector<std::string>;

Strings All(const ListValue& list) {
  Strings out;
  list.Range(0, -1, [&](std::string_view v) { out.emplace_back(v); });
  return out;
}

Strings RangeOf(const ListValue& list, int64_t start, int64_t stop) {
  Strings out;
  list.Range(start, stop, [&](std::string_view v) { out.emplace_back(v); });
  return out;
}

ListValue Make(const Strings& values, const EncodingLimits& limits = {}) {
  ListValue list;
  for (const std::string& v : values) {
    list.PushBack(v, limits);
  }
  return list;
}

// The limits used to exercise the quicklist with few elements: 3 entries per node.
EncodingLimits TinyNodes() {
  EncodingLimits limits;
  limits.list_max_listpack_size = 3;
  return limits;
}

class ListBothEncodingsTest : public ::testing::TestWithParam<bool> {
 protected:
  EncodingLimits limits() const { return GetParam() ? TinyNodes() : EncodingLimits{}; }
  ListValue Make(const Strings& values) const { return hotkv::types::Make(values, limits()); }
};

INSTANTIATE_TEST_SUITE_P(Encodings, ListBothEncodingsTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Quicklist" : "Listpack"; });

TEST(ListTest, EmptyList) {
  ListValue list;
  EXPECT_EQ(list.size(), 0u);
  EXPECT_TRUE(list.empty());
  EXPECT_STREQ(list.EncodingName(), "listpack");
  EXPECT_EQ(list.MemoryUsage(), 0u);
  EXPECT_FALSE(list.PopFront().has_value());
  EXPECT_FALSE(list.PopBack().has_value());
  EXPECT_EQ(list.PopFront(5, [](std::string_view) { FAIL(); }), 0u);
  EXPECT_FALSE(list.Index(0).has_value());
  EXPECT_FALSE(list.Index(-1).has_value());
  EXPECT_FALSE(list.Set(0, "x", {}));
  EXPECT_TRUE(All(list).empty());
  EXPECT_EQ(list.Remove("x", 0), 0u);
  list.Trim(0, -1);
  EXPECT_FALSE(list.Insert("p", "x", true, {}));
  EXPECT_TRUE(list.Positions("x", 1, 0, 0).empty());
}

TEST_P(ListBothEncodingsTest, PushPopBothEnds) {
  ListValue list;
  list.PushBack("b", limits());
  list.PushFront("a", limits());
  list.PushBack("c", limits());
  list.PushBack("d", limits());
  EXPECT_EQ(All(list), (Strings{"a", "b", "c", "d"}));
  EXPECT_EQ(list.PopFront(), "a");
  EXPECT_EQ(list.PopBack(), "d");
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list.PopBack(), "c");
  EXPECT_EQ(list.PopBack(), "b");
  EXPECT_FALSE(list.PopBack().has_value());
  EXPECT_EQ(list.Validate(), "");
}

TEST_P(ListBothEncodingsTest, PopWithCount) {
  ListValue list = Make({"1", "2", "3", "4", "5"});
  Strings popped;
  EXPECT_EQ(list.PopFront(2, [&](std::string_view v) { popped.emplace_back(v); }), 2u);
  EXPECT_EQ(popped, (Strings{"1", "2"}));
  popped.clear();
  EXPECT_EQ(list.PopBack(10, [&](std::string_view v) { popped.emplace_back(v); }), 3u);
  EXPECT_EQ(popped, (Strings{"5", "4", "3"}));
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.PopFront(0, [](std::string_view) {}), 0u);
}

TEST_P(ListBothEncodingsTest, IndexAndSetWithNegativeIndexes) {
  ListValue list = Make({"a", "b", "c", "d", "e", "f", "g"});
  EXPECT_EQ(list.Index(0)->view(), "a");
  EXPECT_EQ(list.Index(6)->view(), "g");
  EXPECT_EQ(list.Index(-1)->view(), "g");
  EXPECT_EQ(list.Index(-7)->view(), "a");
  EXPECT_FALSE(list.Index(7).has_value());
  EXPECT_FALSE(list.Index(-8).has_value());
  EXPECT_FALSE(list.Index(INT64_MIN).has_value());
  EXPECT_FALSE(list.Index(INT64_MAX).has_value());
  EXPECT_TRUE(list.Set(-2, "F", limits()));
  EXPECT_TRUE(list.Set(0, "123456", limits()));
  EXPECT_TRUE(list.Set(3, std::string(100, 'x'), limits()));
  EXPECT_FALSE(list.Set(7, "x", limits()));
  EXPECT_FALSE(list.Set(-8, "x", limits()));
  EXPECT_EQ(All(list), (Strings{"123456", "b", "c", std::string(100, 'x'), "e", "F", "g"}));
  EXPECT_EQ(list.Validate(), "");
}

TEST_P(ListBothEncodingsTest, RangeClampsLikeRedis) {
  ListValue list = Make({"one", "two", "three"});
  EXPECT_EQ(RangeOf(list, 0, 0), (Strings{"one"}));
  EXPECT_EQ(RangeOf(list, -3, 2), (Strings{"one", "two", "three"}));
  EXPECT_EQ(RangeOf(list, -100, 100), (Strings{"one", "two", "three"}));
  EXPECT_EQ(RangeOf(list, 5, 10), Strings{});
  EXPECT_EQ(RangeOf(list, 1, -1), (Strings{"two", "three"}));
  EXPECT_EQ(RangeOf(list, 2, 1), Strings{});
  EXPECT_EQ(RangeOf(list, -1, -1), (Strings{"three"}));
  EXPECT_EQ(RangeOf(list, -1, -2), Strings{});
  EXPECT_EQ(RangeOf(list, -5, -4), Strings{});
  EXPECT_EQ(RangeOf(list, 0, -4), Strings{});
  EXPECT_EQ(RangeOf(list, INT64_MIN, INT64_MAX), (Strings{"one", "two", "three"}));
  EXPECT_EQ(RangeOf(list, 3, 3), Strings{});
}

TEST_P(ListBothEncodingsTest, RemoveCountsFromHeadTailOrAll) {
  const Strings base = {"x", "a", "x", "b", "x", "c", "x"};
  ListValue list = Make(base);
  EXPECT_EQ(list.Remove("x", 2), 2u);
  EXPECT_EQ(All(list), (Strings{"a", "b", "x", "c", "x"}));
  list = Make(base);
  EXPECT_EQ(list.Remove("x", -3), 3u);
  EXPECT_EQ(All(list), (Strings{"x", "a", "b", "c"}));
  list = Make(base);
  EXPECT_EQ(list.Remove("x", 0), 4u);
  EXPECT_EQ(All(list), (Strings{"a", "b", "c"}));
  EXPECT_EQ(list.Remove("zzz", 0), 0u);
  EXPECT_EQ(list.Remove("a", 100), 1u);
  EXPECT_EQ(list.Remove("c", INT64_MIN), 1u);
  EXPECT_EQ(All(list), (Strings{"b"}));
  EXPECT_EQ(list.Validate(), "");
}

TEST_P(ListBothEncodingsTest, TrimKeepsTheClampedRange) {
  const Strings base = {"a", "b", "c", "d", "e", "f", "g", "h"};
  ListValue list = Make(base);
  list.Trim(1, -1);
  EXPECT_EQ(All(list), (Strings{"b", "c", "d", "e", "f", "g", "h"}));
  list.Trim(0, 4);
  EXPECT_EQ(All(list), (Strings{"b", "c", "d", "e", "f"}));
  list.Trim(-3, 100);
  EXPECT_EQ(All(list), (Strings{"d", "e", "f"}));
  list.Trim(-100, -2);
  EXPECT_EQ(All(list), (Strings{"d", "e"}));
  EXPECT_EQ(list.Validate(), "");
  list.Trim(2, 1);  // start > stop empties the list
  EXPECT_TRUE(list.empty());
  list = Make(base);
  list.Trim(8, 10);  // start past the end empties the list
  EXPECT_TRUE(list.empty());
  list = Make(base);
  list.Trim(3, 3);
  EXPECT_EQ(All(list), (Strings{"d"}));
}

TEST_P(ListBothEncodingsTest, InsertBeforeAndAfterPivot) {
  ListValue list = Make({"Hello", "World", "World"});
  EXPECT_TRUE(list.Insert("World", "There", /*before=*/true, limits()));
  EXPECT_EQ(All(list), (Strings{"Hello", "There", "World", "World"}));
  EXPECT_TRUE(list.Insert("World", "!", /*before=*/false, limits()));
  EXPECT_EQ(All(list), (Strings{"Hello", "There", "World", "!", "World"}));
  EXPECT_TRUE(list.Insert("Hello", "<", /*before=*/true, limits()));
  EXPECT_TRUE(list.Insert("World", ">", /*before=*/false, limits()));
  EXPECT_EQ(All(list), (Strings{"<", "Hello", "There", "World", ">", "!", "World"}));
  EXPECT_FALSE(list.Insert("missing", "x", true, limits()));
  EXPECT_EQ(list.size(), 7u);
  EXPECT_EQ(list.Validate(), "");
}

TEST_P(ListBothEncodingsTest, PositionsFollowLposSemantics) {
  // The example of Redis's LPOS documentation.
  ListValue list = Make({"a", "b", "c", "d", "1", "2", "3", "4", "3", "3", "3"});
  using V = std::vector<int64_t>;
  EXPECT_EQ(list.Positions("3", 1, 1, 0), (V{6}));
  EXPECT_EQ(list.Positions("3", 1, 0, 0), (V{6, 8, 9, 10}));
  EXPECT_EQ(list.Positions("3", 2, 1, 0), (V{8}));
  EXPECT_EQ(list.Positions("3", -1, 1, 0), (V{10}));
  EXPECT_EQ(list.Positions("3", -1, 2, 0), (V{10, 9}));
  EXPECT_EQ(list.Positions("3", -2, 0, 0), (V{9, 8, 6}));
  EXPECT_EQ(list.Positions("3", 1, 0, 7), (V{6}));
  EXPECT_EQ(list.Positions("3", 1, 0, 6), V{});
  EXPECT_EQ(list.Positions("3", -1, 0, 2), (V{10, 9}));
  EXPECT_EQ(list.Positions("3", 5, 0, 0), V{});
  EXPECT_EQ(list.Positions("3", INT64_MIN, 0, 0), V{});
  EXPECT_EQ(list.Positions("3", INT64_MAX, 1, 0), V{});
  EXPECT_EQ(list.Positions("a", 1, 1, 1), (V{0}));
  EXPECT_EQ(list.Positions("zz", 1, 0, 0), V{});
  EXPECT_EQ(list.Positions("3", 0, 0, 0), V{});  // rank 0 is the caller's error
}

TEST_P(ListBothEncodingsTest, BinarySafeValues) {
  const Strings values = {""s, "\0"s, "a\0b"s, "\0\0\0"s, "\xff"s, "-0"s, "00"s, "0"s};
  ListValue list = Make(values);
  EXPECT_EQ(All(list), values);
  EXPECT_EQ(list.Positions("\0"s, 1, 0, 0), (std::vector<int64_t>{1}));
  EXPECT_EQ(list.Positions("0"s, 1, 0, 0), (std::vector<int64_t>{7}));
  EXPECT_EQ(list.Remove("a\0b"s, 0), 1u);
  EXPECT_EQ(list.Index(2)->view(), "\0\0\0"s);
}

TEST_P(ListBothEncodingsTest, CloneIsDeep) {
  ListValue list = Make({"a", "b", "c", "d", "e"});
  ListValue copy = list.Clone();
  list.PopFront();
  list.Set(0, "X", limits());
  EXPECT_EQ(All(copy), (Strings{"a", "b", "c", "d", "e"}));
  EXPECT_STREQ(copy.EncodingName(), list.EncodingName());
  EXPECT_EQ(copy.Validate(), "");
}

TEST_P(ListBothEncodingsTest, ForEachStopsEarly) {
  ListValue list = Make({"a", "b", "c", "d", "e"});
  Strings seen;
  list.ForEach([&](std::string_view v) {
    seen.emplace_back(v);
    return seen.size() < 4;
  });
  EXPECT_EQ(seen, (Strings{"a", "b", "c", "d"}));
}

TEST(ListEncodingTest, ConvertsWhenTheListpackOutgrowsEightKilobytes) {
  // Default list-max-listpack-size -2: 8192 bytes. A 100-byte element costs 102 bytes
  // (header and back-link) and the array header 8, so 80 elements fit and the 81st
  // does not.
  const EncodingLimits limits;
  const std::string v(100, 'v');
  ASSERT_EQ(BidiPackedArray::BytesFor(v), 102u);
  ListValue list;
  for (int i = 0; i < 80; ++i) {
    list.PushBack(v, limits);
  }
  EXPECT_STREQ(list.EncodingName(), "listpack");
  list.PushFront(v, limits);
  EXPECT_STREQ(list.EncodingName(), "quicklist");
  EXPECT_EQ(list.NodeCount(), 2u);
  EXPECT_EQ(list.size(), 81u);
  // Never converts back, even down to one element.
  while (list.size() > 1) {
    list.PopBack();
  }
  EXPECT_STREQ(list.EncodingName(), "quicklist");
  EXPECT_EQ(list.Validate(), "");
}

// Quicklist end nodes grow their allocation by half at a time: the memory a long list
// holds stays within 1.5x of its encoded bytes plus the two end nodes' slack, whatever
// mix of pushes and pops at both ends built it.
TEST(ListEncodingTest, EndNodesGrowGeometricallyWithinBounds) {
  const EncodingLimits limits;
  const std::string v(256, 'v');
  ListValue list;
  std::mt19937 rng(5);
  size_t bytes_pushed = 0;
  for (int i = 0; i < 20000; ++i) {
    const unsigned op = rng() % 10;
    if (op < 4) {
      list.PushFront(v, limits);
    } else if (op < 8) {
      list.PushBack(v, limits);
    } else if (op == 8) {
      list.PopFront();
    } else {
      list.PopBack();
    }
    bytes_pushed = list.size() * BidiPackedArray::BytesFor(v);
    if (i % 1000 == 0) {
      ASSERT_EQ(list.Validate(), "");
    }
  }
  ASSERT_EQ(list.Validate(), "");
  EXPECT_GT(list.NodeCount(), 100u);
  // Inner nodes are exact; each end node may hold up to half its size again.
  EXPECT_LE(list.MemoryUsage(), bytes_pushed + bytes_pushed / 16 + 2 * 8192 + 4096);
}

TEST(ListEncodingTest, CountLimitedNodes) {
  EncodingLimits limits;
  limits.list_max_listpack_size = 5;
  ListValue list;
  for (int i = 0; i < 5; ++i) {
    list.PushBack(std::to_string(i), limits);
  }
  EXPECT_STREQ(list.EncodingName(), "listpack");
  list.PushBack("5", limits);
  EXPECT_STREQ(list.EncodingName(), "quicklist");
  for (int i = 6; i < 23; ++i) {
    list.PushBack(std::to_string(i), limits);
  }
  EXPECT_EQ(list.NodeCount(), 5u);  // ceil(23 / 5)
  EXPECT_EQ(list.Validate(), "");
  limits.list_max_listpack_size = 0;  // one entry per node
  ListValue single;
  single.PushBack("a", limits);
  EXPECT_STREQ(single.EncodingName(), "listpack");
  single.PushBack("b", limits);
  EXPECT_STREQ(single.EncodingName(), "quicklist");
  EXPECT_EQ(single.NodeCount(), 2u);
}

TEST(ListEncodingTest, NodeSizeLevels) {
  EXPECT_EQ(ListNodeLimitFor(-1).max_bytes, 4096u);
  EXPECT_EQ(ListNodeLimitFor(-2).max_bytes, 8192u);
  EXPECT_EQ(ListNodeLimitFor(-5).max_bytes, 65536u);
  EXPECT_EQ(ListNodeLimitFor(-100).max_bytes, 65536u);
  EXPECT_EQ(ListNodeLimitFor(128).max_entries, 128u);
  EXPECT_EQ(ListNodeLimitFor(128).max_bytes, 8192u);
  EXPECT_EQ(ListNodeLimitFor(0).max_entries, 1u);
}

TEST(ListEncodingTest, HugeElementGetsItsOwnNode) {
  const EncodingLimits limits;
  ListValue list;
  list.PushBack(std::string(10000, 'h'), limits);
  EXPECT_STREQ(list.EncodingName(), "quicklist");
  list.PushBack("small", limits);
  list.PushFront("first", limits);
  EXPECT_EQ(list.NodeCount(), 3u);
  EXPECT_EQ(list.Index(1)->size(), 10000u);
  EXPECT_EQ(list.Validate(), "");
  // Growing an element past the limit converts and splits.
  ListValue small;
  for (int i = 0; i < 10; ++i) {
    small.PushBack("x", limits);
  }
  EXPECT_TRUE(small.Set(5, std::string(9000, 's'), limits));
  EXPECT_STREQ(small.EncodingName(), "quicklist");
  EXPECT_EQ(small.Validate(), "");
  EXPECT_EQ(small.Index(5)->size(), 9000u);
  EXPECT_EQ(small.size(), 10u);
}

TEST(ListEncodingTest, InsertSplitsAFullNodeAndRemoveMergesNodes) {
  const EncodingLimits limits;
  const std::string v(100, 'v');
  ListValue list;
  for (int i = 0; i < 400; ++i) {
    list.PushBack(i % 2 == 0 ? v : "odd", limits);
  }
  const size_t nodes = list.NodeCount();
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(list.Insert("odd", std::string(100, 'i'), true, limits));
  }
  EXPECT_EQ(list.Validate(), "");
  EXPECT_GT(list.NodeCount(), nodes);
  EXPECT_EQ(list.Remove(v, 0), 200u);
  EXPECT_EQ(list.Validate(), "");
  EXPECT_LT(list.NodeCount(), nodes);  // the survivors were merged into fewer nodes
  EXPECT_EQ(list.size(), 250u);
}

TEST(ListEncodingTest, MemoryUsageGrowsWithContent) {
  const EncodingLimits limits;
  ListValue list;
  list.PushBack("hello", limits);
  const size_t small = list.MemoryUsage();
  EXPECT_GE(small, 8u + 7u);
  for (int i = 0; i < 10000; ++i) {
    list.PushBack("element-" + std::to_string(i), limits);
  }
  EXPECT_GT(list.MemoryUsage(), 10000u * 12);
  EXPECT_LT(list.MemoryUsage(), 10000u * 30);
}

// ---- randomized comparison with std::deque ----------------------------------------

std::string RandomElement(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
      return std::to_string(rng() % 20);
    case 1:
      return "e" + std::to_string(rng() % 30);
    case 2:
      return std::to_string(static_cast<int64_t>(rng()));
    case 3:
      return std::string(1 + rng() % 300, static_cast<char>('a' + rng() % 3));
    default:
      return std::string(1 + rng() % 3, '\0') + std::to_string(rng() % 5);
  }
}

void Clamp(int64_t n, int64_t& start, int64_t& stop, bool& empty) {
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  empty = start > stop || start >= n;
  if (stop >= n) stop = n - 1;
}

std::vector<int64_t> ModelPositions(const std::deque<std::string>& m, const std::string& e,
                                    int64_t rank, int64_t count, int64_t maxlen) {
  std::vector<int64_t> out;
  const int64_t n = static_cast<int64_t>(m.size());
  int64_t matches = 0;
  for (int64_t scanned = 0; scanned < n && (maxlen == 0 || scanned < maxlen); ++scanned) {
    const int64_t i = rank > 0 ? scanned : n - 1 - scanned;
    if (m[static_cast<size_t>(i)] == e && ++matches >= std::abs(rank)) {
      out.push_back(i);
      if (count != 0 && static_cast<int64_t>(out.size()) >= count) break;
    }
  }
  return out;
}

// `listpack_share`: the least fraction of steps expected in the "listpack" encoding.
void RunRandomized(const EncodingLimits& limits, uint64_t seed, int steps,
                   double listpack_share) {
  std::mt19937_64 rng(seed);
  ListValue list;
  std::deque<std::string> model;
  int steps_in[2] = {0, 0};  // steps spent in each encoding
  bool growing = true;
  auto random_index = [&](int64_t spread) {
    return static_cast<int64_t>(rng() % (2 * spread + 1)) - spread;
  };
  for (int step = 0; step < steps; ++step) {
    // Alternate between growing past a few hundred elements (so the list converts) and
    // shrinking; pushes are half of the operations while growing.
    if (growing && model.size() > 400) {
      growing = false;
    } else if (!growing && model.size() < 20) {
      growing = true;
      if (rng() % 2 == 0) {
        list = ListValue();  // start over as a listpack
        model.clear();
      }
    }
    const int64_t n = static_cast<int64_t>(model.size());
    const int op = growing && rng() % 2 == 0 ? static_cast<int>(rng() % 5)
                                               : static_cast<int>(rng() % 20);
    if (op < 5) {
      const std::string v = RandomElement(rng);
      if (op % 2 == 0) {
        list.PushFront(v, limits);
        model.push_front(v);
      } else {
        list.PushBack(v, limits);
        model.push_back(v);
      }
    } else if (op < 7) {
      const std::optional<std::string> got = op == 5 ? list.PopFront() : list.PopBack();
      if (model.empty()) {
        ASSERT_FALSE(got.has_value());
      } else {
        ASSERT_EQ(*got, op == 5 ? model.front() : model.back());
        op == 5 ? model.pop_front() : model.pop_back();
      }
    } else if (op == 7) {
      const size_t count = rng() % 6;
      const bool front = rng() % 2 == 0;
      Strings got;
      auto emit = [&](std::string_view v) { got.emplace_back(v); };
      const size_t popped = front ? list.PopFront(count, emit) : list.PopBack(count, emit);
      ASSERT_EQ(popped, std::min<size_t>(count, model.size()));
      for (const std::string& v : got) {
        ASSERT_EQ(v, front ? model.front() : model.back());
        front ? model.pop_front() : model.pop_back();
      }
    } else if (op == 8) {
      const int64_t i = random_index(n + 2);
      const std::optional<Element> got = list.Index(i);
      const int64_t j = i < 0 ? i + n : i;
      if (j < 0 || j >= n) {
        ASSERT_FALSE(got.has_value());
      } else {
        ASSERT_EQ(got->view(), model[static_cast<size_t>(j)]);
      }
    } else if (op == 9) {
      const int64_t i = random_index(n + 2);
      const std::string v = RandomElement(rng);
      const int64_t j = i < 0 ? i + n : i;
      const bool in_range = j >= 0 && j < n;
      ASSERT_EQ(list.Set(i, v, limits), in_range);
      if (in_range) {
        model[static_cast<size_t>(j)] = v;
      }
    } else if (op == 10 || op == 11) {
      int64_t start = random_index(n + 3);
      int64_t stop = random_index(n + 3);
      const Strings got = RangeOf(list, start, stop);
      bool empty;
      Clamp(n, start, stop, empty);
      const Strings want = empty ? Strings{}
                                 : Strings(model.begin() + start, model.begin() + stop + 1);
      ASSERT_EQ(got, want) << "step " << step << " n " << n << " range " << start << ".."
                           << stop << " nodes " << list.NodeCount() << " "
                           << list.EncodingName();
    } else if (op == 12) {
      const std::string v = n > 0 && rng() % 2 ? model[rng() % n] : RandomElement(rng);
      const int64_t count = static_cast<int64_t>(rng() % 5) - 2;
      const size_t removed = list.Remove(v, count);
      size_t want = 0;
      const size_t cap = count == 0 ? SIZE_MAX : static_cast<size_t>(std::abs(count));
      if (count >= 0) {
        for (auto it = model.begin(); it != model.end() && want < cap;) {
          if (*it == v) {
            it = model.erase(it);
            ++want;
          } else {
            ++it;
          }
        }
      } else {
        for (size_t i = model.size(); i-- > 0 && want < cap;) {
          if (model[i] == v) {
            model.erase(model.begin() + static_cast<ptrdiff_t>(i));
            ++want;
          }
        }
      }
      ASSERT_EQ(removed, want);
    } else if (op == 13 && rng() % 4 == 0) {
      int64_t start = random_index(3);
      int64_t stop = n - 1 + random_index(3);
      list.Trim(start, stop);
      bool empty;
      Clamp(n, start, stop, empty);
      if (empty) {
        model.clear();
      } else {
        model = std::deque<std::string>(model.begin() + start, model.begin() + stop + 1);
      }
    } else if (op == 14 || op == 15) {
      const std::string pivot = n > 0 && rng() % 4 ? model[rng() % n] : RandomElement(rng);
      const std::string v = RandomElement(rng);
      const bool before = rng() % 2 == 0;
      const auto it = std::find(model.begin(), model.end(), pivot);
      ASSERT_EQ(list.Insert(pivot, v, before, limits), it != model.end());
      if (it != model.end()) {
        model.insert(before ? it : it + 1, v);
      }
    } else if (op == 16 || op == 17) {
      const std::string v = n > 0 && rng() % 4 ? model[rng() % n] : RandomElement(rng);
      int64_t rank = static_cast<int64_t>(rng() % 7) - 3;
      if (rank == 0) rank = 1;
      const int64_t count = static_cast<int64_t>(rng() % 4);
      const int64_t maxlen = rng() % 2 ? 0 : static_cast<int64_t>(rng() % (n + 2));
      ASSERT_EQ(list.Positions(v, rank, count, maxlen),
                ModelPositions(model, v, rank, count, maxlen));
    } else if (op == 18 && rng() % 8 == 0) {
      ListValue copy = list.Clone();
      list = std::move(copy);
    } else {
      ASSERT_EQ(list.size(), model.size());
    }
    ASSERT_EQ(list.size(), model.size()) << "step " << step;
    if (step % 50 == 0) {
      ASSERT_EQ(All(list), Strings(model.begin(), model.end())) << "step " << step;
      ASSERT_EQ(list.Validate(), "") << "step " << step;
    }
    ++steps_in[static_cast<int>(list.encoding())];
  }
  EXPECT_GE(steps_in[0], steps * listpack_share);
  EXPECT_GT(steps_in[1], steps / 20);
  ASSERT_EQ(All(list), Strings(model.begin(), model.end()));
}

TEST(ListRandomizedTest, DefaultLimitsAgainstDeque) {
  RunRandomized(EncodingLimits{}, 1, 40000, 0.05);
}

TEST(ListRandomizedTest, TinyNodesAgainstDeque) { RunRandomized(TinyNodes(), 2, 40000, 0); }

TEST(ListRandomizedTest, SmallByteNodesAgainstDeque) {
  EncodingLimits limits;
  limits.list_max_listpack_size = -1;  // 4 KB nodes: many splits with 300-byte elements
  RunRandomized(limits, 3, 40000, 0.02);
}

}  // namespace
}  // namespace hotkv::types

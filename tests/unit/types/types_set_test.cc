// Tests for SetValue (intset, listpack and hashtable encodings, Redis's conversion
// rules, SPOP/SRANDMEMBER/SSCAN semantics) and for IntSet.

#include "types/set_value.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "types/member_hash.h"
#include "types/intset.h"

namespace hotkv::types {
namespace {

using namespace std::string_literals;
using Members = std::set<std::string>;

// The randomized tests check how many steps each encoding sees. Which member a pop or
// random pick takes from a hash table follows the process's hash seed, so pin it:
// otherwise the whole trajectory changes from run to run (and rarely starves an
// encoding).
const bool kHashSeedPinned = PinHashSeedForTesting(0x5eed);

Members Contents(const SetValue& set) {
  Members out;
  set.ForEach([&](std::string_view m) {
    EXPECT_TRUE(out.emplace(m).second) << "duplicate member " << m;
    return true;
  });
  return out;
}

SetValue Make(const std::vector<std::string>& members, const EncodingLimits& limits = {}) {
  SetValue set;
  for (const std::string& m : members) {
    set.Add(m, limits);
  }
  return set;
}

std::vector<std::string> Numbers(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) {
    out.push_back(std::to_string(i));
  }
  return out;
}

std::vector<std::string> Words(int n, const std::string& prefix = "m") {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(prefix + std::to_string(i));
  }
  return out;
}

// ---- IntSet -----------------------------------------------------------------------

TEST(IntSetTest, SortedDistinctAndWidening) {
  IntSet s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.MemoryUsage(), 0u);
  EXPECT_TRUE(s.Insert(5));
  EXPECT_TRUE(s.Insert(-3));
  EXPECT_FALSE(s.Insert(5));
  EXPECT_EQ(s.width(), 2u);
  EXPECT_TRUE(s.Insert(70000));  // needs 4 bytes, goes last
  EXPECT_EQ(s.width(), 4u);
  EXPECT_TRUE(s.Insert(INT64_MIN));  // needs 8 bytes, goes first
  EXPECT_EQ(s.width(), 8u);
  EXPECT_TRUE(s.Insert(INT64_MAX));
  ASSERT_EQ(s.size(), 5u);
  const std::vector<int64_t> want = {INT64_MIN, -3, 5, 70000, INT64_MAX};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.At(i), want[i]);
  }
  EXPECT_TRUE(s.Contains(70000));
  EXPECT_FALSE(s.Contains(70001));
  EXPECT_TRUE(s.Erase(-3));
  EXPECT_FALSE(s.Erase(-3));
  EXPECT_EQ(s.width(), 8u);  // never narrows
  EXPECT_EQ(s.Min(), INT64_MIN);
  EXPECT_EQ(s.Max(), INT64_MAX);
  IntSet copy = s.Clone();
  s.EraseAt(0);
  EXPECT_EQ(copy.size(), 4u);
  EXPECT_EQ(s.size(), 3u);
}

TEST(IntSetTest, NarrowSetRejectsWideLookups) {
  IntSet s;
  s.Insert(1);
  EXPECT_FALSE(s.Contains(int64_t{1} << 40));
  EXPECT_FALSE(s.Erase(int64_t{1} << 40));
  EXPECT_EQ(s.MemoryUsage() >= 8u + 2u, true);
}

TEST(IntSetTest, RandomAgainstStdSet) {
  std::mt19937_64 rng(5);
  IntSet s;
  std::set<int64_t> model;
  for (int step = 0; step < 20000; ++step) {
    const int64_t v = static_cast<int64_t>(rng()) >> (rng() % 64);
    if (rng() % 3 == 0 && !model.empty()) {
      const int64_t existing = *std::next(model.begin(), static_cast<ptrdiff_t>(rng() % model.size()));
      ASSERT_TRUE(s.Erase(existing));
      model.erase(existing);
    } else {
      ASSERT_EQ(s.Insert(v), model.insert(v).second);
    }
    if (step % 100 == 0) {
      ASSERT_EQ(s.size(), model.size());
      size_t i = 0;
      for (int64_t x : model) {
        ASSERT_EQ(s.At(i++), x);
      }
    }
    if (model.size() > 500) {
      s = IntSet();
      model.clear();
    }
  }
}

// ---- SetValue ---------------------------------------------------------------------

TEST(SetTest, EmptySet) {
  SetValue set;
  EXPECT_EQ(set.size(), 0u);
  EXPECT_STREQ(set.EncodingName(), "intset");
  EXPECT_EQ(set.MemoryUsage(), 0u);
  EXPECT_FALSE(set.Contains("1"));
  EXPECT_FALSE(set.Remove("1"));
  Rng rng(1);
  EXPECT_FALSE(set.Pop(rng).has_value());
  EXPECT_TRUE(set.Pop(3, rng).empty());
  set.RandomMembers(3, rng, [](std::string_view) { FAIL(); });
  set.RandomMembers(-3, rng, [](std::string_view) { FAIL(); });
  EXPECT_EQ(set.Scan(0, 10, [](std::string_view) { FAIL(); }), 0u);
  EXPECT_TRUE(Contents(set).empty());
}

// Each test body runs against a set in each encoding.
class SetAllEncodingsTest : public ::testing::TestWithParam<SetValue::Encoding> {
 protected:
  // Members that put a fresh set in the parameter's encoding: integers (intset), words
  // (listpack), or words with a low listpack limit (hashtable).
  EncodingLimits limits() const {
    EncodingLimits limits;
    if (GetParam() == SetValue::Encoding::kHashtable) {
      limits.set_max_listpack_entries = 0;
      limits.set_max_intset_entries = 0;
    }
    return limits;
  }
  std::vector<std::string> members(int n) const {
    return GetParam() == SetValue::Encoding::kIntset ? Numbers(-n / 2, n - n / 2) : Words(n);
  }
};

INSTANTIATE_TEST_SUITE_P(Encodings, SetAllEncodingsTest,
                         ::testing::Values(SetValue::Encoding::kIntset,
                                           SetValue::Encoding::kListpack,
                                           SetValue::Encoding::kHashtable),
                         [](const auto& info) {
                           switch (info.param) {
                             case SetValue::Encoding::kIntset:
                               return "Intset";
                             case SetValue::Encoding::kListpack:
                               return "Listpack";
                             default:
                               return "Hashtable";
                           }
                         });

TEST_P(SetAllEncodingsTest, AddRemoveContains) {
  const std::vector<std::string> ms = members(20);
  SetValue set = Make(ms, limits());
  EXPECT_EQ(set.encoding(), GetParam());
  EXPECT_EQ(set.size(), 20u);
  for (const std::string& m : ms) {
    EXPECT_TRUE(set.Contains(m)) << m;
    EXPECT_FALSE(set.Add(m, limits())) << m;
  }
  EXPECT_FALSE(set.Contains("nope"));
  EXPECT_FALSE(set.Contains("+1"));
  EXPECT_FALSE(set.Contains("01"));
  EXPECT_TRUE(set.Remove(ms[3]));
  EXPECT_FALSE(set.Remove(ms[3]));
  EXPECT_FALSE(set.Contains(ms[3]));
  EXPECT_FALSE(set.Remove("nope"));
  EXPECT_EQ(set.size(), 19u);
  Members want(ms.begin(), ms.end());
  want.erase(ms[3]);
  EXPECT_EQ(Contents(set), want);
  EXPECT_EQ(set.encoding(), GetParam());
}

TEST_P(SetAllEncodingsTest, PopWithAndWithoutCount) {
  const std::vector<std::string> ms = members(30);
  SetValue set = Make(ms, limits());
  Rng rng(9);
  Members popped;
  const std::optional<std::string> one = set.Pop(rng);
  ASSERT_TRUE(one.has_value());
  popped.insert(*one);
  for (const std::string& m : set.Pop(10, rng)) {
    EXPECT_TRUE(popped.insert(m).second) << m;
  }
  EXPECT_EQ(set.size(), 19u);
  for (const std::string& m : popped) {
    EXPECT_FALSE(set.Contains(m));
  }
  for (const std::string& m : set.Pop(100, rng)) {  // more than is left: everything
    EXPECT_TRUE(popped.insert(m).second) << m;
  }
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(popped, Members(ms.begin(), ms.end()));
  EXPECT_EQ(set.encoding(), GetParam());
  EXPECT_FALSE(set.Pop(rng).has_value());
}

TEST_P(SetAllEncodingsTest, RandomMembersDistinctAndRepeating) {
  const std::vector<std::string> ms = members(10);
  const SetValue set = Make(ms, limits());
  const Members all(ms.begin(), ms.end());
  Rng rng(4);
  auto sample = [&](int64_t count) {
    std::vector<std::string> out;
    set.RandomMembers(count, rng, [&](std::string_view m) {
      EXPECT_TRUE(all.count(std::string(m))) << m;
      out.emplace_back(m);
    });
    return out;
  };
  EXPECT_TRUE(sample(0).empty());
  for (int64_t count : {1, 2, 3, 5, 9, 10, 11, 1000}) {
    const std::vector<std::string> got = sample(count);
    EXPECT_EQ(got.size(), std::min<size_t>(count, 10));
    EXPECT_EQ(Members(got.begin(), got.end()).size(), got.size());
  }
  std::map<std::string, int> drawn;
  for (const std::string& m : sample(-20000)) {
    ++drawn[m];
  }
  EXPECT_EQ(drawn.size(), 10u);
  for (const auto& [m, n] : drawn) {
    EXPECT_GT(n, 1600) << m;
    EXPECT_LT(n, 2400) << m;
  }
  // Distinct picks of a strict subset are spread over every member too.
  std::map<std::string, int> picked;
  for (int i = 0; i < 4000; ++i) {
    for (const std::string& m : sample(2)) {
      ++picked[m];
    }
  }
  for (const auto& [m, n] : picked) {
    EXPECT_GT(n, 600) << m;
    EXPECT_LT(n, 1000) << m;
  }
}

TEST_P(SetAllEncodingsTest, CloneIsDeep) {
  const std::vector<std::string> ms = members(12);
  SetValue set = Make(ms, limits());
  SetValue copy = set.Clone();
  set.Remove(ms[0]);
  set.Add("extra", limits());
  EXPECT_EQ(Contents(copy), Members(ms.begin(), ms.end()));
  EXPECT_EQ(copy.encoding(), GetParam());
}

TEST_P(SetAllEncodingsTest, ForEachStopsEarly) {
  const SetValue set = Make(members(10), limits());
  int seen = 0;
  set.ForEach([&](std::string_view) { return ++seen < 4; });
  EXPECT_EQ(seen, 4);
}

TEST(SetEncodingTest, IntsetOrderAndConversionToHashtable) {
  const EncodingLimits limits;  // set-max-intset-entries 512
  SetValue set = Make({"3", "-1", "2"}, limits);
  std::vector<std::string> order;
  set.ForEach([&](std::string_view m) {
    order.emplace_back(m);
    return true;
  });
  EXPECT_EQ(order, (std::vector<std::string>{"-1", "2", "3"}));
  set = Make(Numbers(0, 512), limits);
  EXPECT_STREQ(set.EncodingName(), "intset");
  EXPECT_FALSE(set.Add("511", limits));
  EXPECT_STREQ(set.EncodingName(), "intset");
  EXPECT_TRUE(set.Add("512", limits));
  EXPECT_STREQ(set.EncodingName(), "hashtable");  // not listpack, as in Redis
  EXPECT_EQ(set.size(), 513u);
  EXPECT_TRUE(set.Contains("0"));
  EXPECT_TRUE(set.Contains("512"));
}

TEST(SetEncodingTest, NonIntegerMovesIntsetToListpackOrHashtable) {
  const EncodingLimits limits;  // set-max-listpack-entries 128, -value 64
  SetValue small = Make(Numbers(0, 127), limits);
  EXPECT_TRUE(small.Add("abc", limits));  // 127 < 128 members before: listpack
  EXPECT_STREQ(small.EncodingName(), "listpack");
  EXPECT_EQ(small.size(), 128u);
  EXPECT_TRUE(small.Contains("126"));

  SetValue full = Make(Numbers(0, 128), limits);
  EXPECT_TRUE(full.Add("abc", limits));  // 128 members before: hashtable
  EXPECT_STREQ(full.EncodingName(), "hashtable");

  SetValue long_member = Make(Numbers(0, 3), limits);
  EXPECT_TRUE(long_member.Add(std::string(65, 'x'), limits));
  EXPECT_STREQ(long_member.EncodingName(), "hashtable");

  SetValue edge = Make(Numbers(0, 3), limits);
  EXPECT_TRUE(edge.Add(std::string(64, 'x'), limits));
  EXPECT_STREQ(edge.EncodingName(), "listpack");

  // Integers written non-canonically are strings.
  for (const char* s : {"007", "+1", "-0", " 1", "1.5", "9223372036854775808"}) {
    SetValue set;
    set.Add(s, limits);
    EXPECT_STREQ(set.EncodingName(), "listpack") << s;
    EXPECT_TRUE(set.Contains(s));
  }
  SetValue extreme = Make({"9223372036854775807", "-9223372036854775808"}, limits);
  EXPECT_STREQ(extreme.EncodingName(), "intset");
  EXPECT_EQ(Contents(extreme), (Members{"9223372036854775807", "-9223372036854775808"}));

  // The intset's longest integer text counts against set-max-listpack-value.
  EncodingLimits tight = limits;
  tight.set_max_listpack_value = 5;
  SetValue wide = Make({"123456"}, tight);
  EXPECT_TRUE(wide.Add("a", tight));
  EXPECT_STREQ(wide.EncodingName(), "hashtable");
}

TEST(SetEncodingTest, ListpackConvertsAfterMaxEntries) {
  const EncodingLimits limits;
  SetValue set = Make(Words(128), limits);
  EXPECT_STREQ(set.EncodingName(), "listpack");
  EXPECT_FALSE(set.Add("m0", limits));
  EXPECT_TRUE(set.Add("123", limits));  // integers are fine in a listpack
  EXPECT_STREQ(set.EncodingName(), "hashtable");
  EXPECT_EQ(set.size(), 129u);
  EXPECT_TRUE(set.Contains("123"));
  SetValue big = Make(Words(3), limits);
  EXPECT_TRUE(big.Add(std::string(65, 'y'), limits));
  EXPECT_STREQ(big.EncodingName(), "hashtable");
  // Never back.
  for (const std::string& m : Words(3)) {
    big.Remove(m);
  }
  big.Remove(std::string(65, 'y'));
  EXPECT_STREQ(big.EncodingName(), "hashtable");
}

TEST(SetEncodingTest, ForMembersAndReserveForFollowSaddSizeHints) {
  const EncodingLimits limits;
  EXPECT_STREQ(SetValue::ForMembers("1", 512, limits).EncodingName(), "intset");
  EXPECT_STREQ(SetValue::ForMembers("1", 513, limits).EncodingName(), "hashtable");
  EXPECT_STREQ(SetValue::ForMembers("a", 128, limits).EncodingName(), "listpack");
  EXPECT_STREQ(SetValue::ForMembers("a", 129, limits).EncodingName(), "hashtable");
  EXPECT_STREQ(SetValue::ForMembers("1", 200, limits).EncodingName(), "intset");
  SetValue lp = Make({"a", "b"}, limits);
  lp.ReserveFor(128, limits);
  EXPECT_STREQ(lp.EncodingName(), "listpack");
  lp.ReserveFor(129, limits);
  EXPECT_STREQ(lp.EncodingName(), "hashtable");
  EXPECT_EQ(Contents(lp), (Members{"a", "b"}));
  SetValue is = Make({"1", "2"}, limits);
  is.ReserveFor(512, limits);
  EXPECT_STREQ(is.EncodingName(), "intset");
  is.ReserveFor(513, limits);
  EXPECT_STREQ(is.EncodingName(), "hashtable");
  EncodingLimits no_intset = limits;
  no_intset.set_max_intset_entries = 0;
  SetValue fresh;
  fresh.Add("5", no_intset);
  EXPECT_STREQ(fresh.EncodingName(), "listpack");
}

TEST(SetTest, BinarySafeMembers) {
  const Members want = {""s, "\0"s, "a\0b"s, "\0\0"s, "\xff\x01"s, "1"s, "-5"s};
  for (const EncodingLimits& limits : {EncodingLimits{}, [] {
         EncodingLimits l;
         l.set_max_listpack_entries = 0;
         return l;
       }()}) {
    SetValue set;
    for (const std::string& m : want) {
      EXPECT_TRUE(set.Add(m, limits));
    }
    EXPECT_EQ(Contents(set), want);
    EXPECT_TRUE(set.Contains("\0"s));
    EXPECT_FALSE(set.Contains("\0\0\0"s));
    EXPECT_TRUE(set.Remove("a\0b"s));
    EXPECT_FALSE(set.Contains("a\0b"s));
  }
}

TEST(SetScanTest, CompactEncodingsReturnEverythingAtOnce) {
  for (const SetValue& set : {Make(Numbers(0, 100)), Make(Words(100))}) {
    Members seen;
    EXPECT_EQ(set.Scan(0, 1, [&](std::string_view m) { seen.emplace(m); }), 0u);
    EXPECT_EQ(seen, Contents(set));
  }
}

TEST(SetScanTest, HashtableScanSurvivesResizes) {
  const EncodingLimits limits;
  SetValue set = Make(Words(3000), limits);
  ASSERT_STREQ(set.EncodingName(), "hashtable");
  Members seen;
  uint64_t cursor = 0;
  int step = 0;
  do {
    cursor = set.Scan(cursor, 8, [&](std::string_view m) { seen.emplace(m); });
    // Shrink the table through several halvings, then grow it again.
    for (int i = 0; i < 20; ++i) {
      const int k = step * 20 + i;
      if (k < 2900) {
        set.Remove("m" + std::to_string(100 + k));
      } else {
        set.Add("n" + std::to_string(k), limits);
      }
    }
    ++step;
  } while (cursor != 0 && step < 100000);
  ASSERT_EQ(cursor, 0u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(seen.count("m" + std::to_string(i))) << i;
  }
}

TEST(SetMemoryTest, CompactEncodingsAreSmall) {
  const EncodingLimits limits;
  // 100 small integers: 8-byte header + 2 bytes each.
  EXPECT_LE(Make(Numbers(0, 100), limits).MemoryUsage(), 8u + 200u + 16u);
  // 100 words of 2-3 bytes: 8-byte header + 1 length byte + the bytes.
  EXPECT_LE(Make(Words(100, ""), limits).MemoryUsage(), 8u + 100u * 3 + 16u);
  const SetValue table = Make(Words(100000), limits);
  EXPECT_LT(table.MemoryUsage(), 100000u * 48);
}

// ---- randomized comparison with std::set ------------------------------------------

std::string RandomMember(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
    case 1:
      return std::to_string(static_cast<int64_t>(rng() % 400) - 200);
    case 2:
      return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
    case 3:
      return "s" + std::to_string(rng() % 200);
    case 4:
      return std::string(rng() % 3, '\0') + "0" + std::to_string(rng() % 20);
    default:
      return std::string(1 + rng() % (rng() % 30 == 0 ? 90 : 20), 'x');
  }
}

// Each growth phase starting from an empty set uses integer members only (staying an
// intset for a while) with probability `integer_phases`, else a mix. `min_share`: the
// least fraction of steps expected in each encoding.
void RunRandomized(const EncodingLimits& limits, uint64_t seed, int steps,
                   double integer_phases, double min_share) {
  ASSERT_TRUE(kHashSeedPinned) << "a hash table was built before the seed was pinned";
  std::mt19937_64 rng(seed);
  Rng set_rng(seed);
  SetValue set;
  Members model;
  std::map<int, int> steps_in;
  bool growing = true;
  bool integers_only = true;
  size_t grow_to = 700;
  for (int step = 0; step < steps; ++step) {
    // Grow to a target, shrink back, repeat. Targets of 100 keep a fresh set in its
    // compact encoding for a whole phase; 700 pushes it into a hashtable.
    if (growing && model.size() > grow_to) {
      growing = false;
    } else if (!growing && model.size() < 10) {
      growing = true;
      grow_to = rng() % 2 == 0 ? 100 : 700;
      if (rng() % 2 == 0) {
        set = SetValue();
        model.clear();
        integers_only = static_cast<double>(rng() % 1000) < integer_phases * 1000;
      }
    }
    std::string member =
        integers_only ? std::to_string(static_cast<int64_t>(rng() % 2000) - 1000)
                      : RandomMember(rng);
    if (!growing && !model.empty() && rng() % 4 != 0) {
      member = *std::next(model.begin(), static_cast<ptrdiff_t>(rng() % model.size()));
    }
    const int op = static_cast<int>(rng() % 10);
    switch (growing ? op : (op < 4 ? 4 : op)) {
      case 0:
      case 1:
      case 2:
      case 3:
        ASSERT_EQ(set.Add(member, limits), model.insert(member).second);
        break;
      case 4:
        ASSERT_EQ(set.Remove(member), model.erase(member) == 1);
        break;
      case 5:
      case 6:
        ASSERT_EQ(set.Contains(member), model.count(member) == 1);
        break;
      case 7:
        if (rng() % 4 == 0) {
          for (const std::string& m : set.Pop(rng() % 4, set_rng)) {
            ASSERT_EQ(model.erase(m), 1u) << m;
          }
        } else if (const std::optional<std::string> m = rng() % 8 == 0 ? set.Pop(set_rng)
                                                                          : std::nullopt) {
          ASSERT_EQ(model.erase(*m), 1u) << *m;
        }
        break;
      case 8: {
        const int64_t count = static_cast<int64_t>(rng() % 11) - 5;
        std::vector<std::string> got;
        set.RandomMembers(count, set_rng, [&](std::string_view m) {
          got.emplace_back(m);
        });
        const size_t want = count >= 0 ? std::min<size_t>(count, model.size())
                                       : (model.empty() ? 0 : static_cast<size_t>(-count));
        ASSERT_EQ(got.size(), want);
        for (const std::string& m : got) {
          ASSERT_EQ(model.count(m), 1u) << m;
        }
        if (count > 0) {
          ASSERT_EQ(Members(got.begin(), got.end()).size(), got.size());
        }
        break;
      }
      default:
        if (rng() % 50 == 0) {
          SetValue copy = set.Clone();
          set = std::move(copy);
        }
    }
    ASSERT_EQ(set.size(), model.size()) << "step " << step;
    ++steps_in[static_cast<int>(set.encoding())];
    if (step % 100 == 0) {
      ASSERT_EQ(Contents(set), model) << "step " << step;
    }
  }
  ASSERT_EQ(Contents(set), model);
  for (const auto& [encoding, n] : steps_in) {
    ::testing::Test::RecordProperty("steps_in_encoding_" + std::to_string(encoding), n);
  }
  for (int encoding = 0; encoding < 3; ++encoding) {
    EXPECT_GE(steps_in[encoding], steps * min_share) << "encoding " << encoding;
  }
}

TEST(SetRandomizedTest, MixedMembersAgainstStdSet) {
  RunRandomized(EncodingLimits{}, 21, 80000, /*integer_phases=*/0.4, /*min_share=*/0.01);
}

TEST(SetRandomizedTest, IntegerMembersAgainstStdSet) {
  RunRandomized(EncodingLimits{}, 22, 60000, /*integer_phases=*/1, /*min_share=*/0);
}

TEST(SetRandomizedTest, SmallLimitsAgainstStdSet) {
  EncodingLimits limits;
  limits.set_max_intset_entries = 60;
  limits.set_max_listpack_entries = 40;
  limits.set_max_listpack_value = 8;
  RunRandomized(limits, 23, 60000, /*integer_phases=*/0.4, /*min_share=*/0);
}

}  // namespace
}  // namespace hotkv::types

// Tests for HashValue (both encodings, conversion points, HRANDFIELD and HSCAN
// semantics) and for the StringTable beneath its "hashtable" encoding.

#include "types/hash_value.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "types/member_hash.h"
#include "types/string_table.h"

namespace hotkv::types {
namespace {

using namespace std::string_literals;
using Map = std::map<std::string, std::string>;

// The randomized tests check how many steps each encoding sees. Which member a pop or
// random pick takes from a hash table follows the process's hash seed, so pin it:
// otherwise the whole trajectory changes from run to run (and rarely starves an
// encoding).
const bool kHashSeedPinned = PinHashSeedForTesting(0x5eed);

Map Contents(const HashValue& hash) {
  Map out;
  hash.ForEach([&](std::string_view f, std::string_view v) {
    EXPECT_TRUE(out.emplace(f, v).second) << "duplicate field " << f;
    return true;
  });
  return out;
}

std::vector<std::string> FieldOrder(const HashValue& hash) {
  std::vector<std::string> out;
  hash.ForEach([&](std::string_view f, std::string_view) {
    out.emplace_back(f);
    return true;
  });
  return out;
}

HashValue Make(size_t n, const EncodingLimits& limits = {}) {
  HashValue hash;
  for (size_t i = 0; i < n; ++i) {
    hash.Set("field" + std::to_string(i), "value" + std::to_string(i), limits);
  }
  return hash;
}

// Runs a test body against a small hash in each encoding: listpack by default,
// hashtable when hash-max-listpack-entries is 0.
class HashBothEncodingsTest : public ::testing::TestWithParam<bool> {
 protected:
  EncodingLimits limits() const {
    EncodingLimits limits;
    if (GetParam()) {
      limits.hash_max_listpack_entries = 0;
    }
    return limits;
  }
  const char* encoding() const { return GetParam() ? "hashtable" : "listpack"; }
};

INSTANTIATE_TEST_SUITE_P(Encodings, HashBothEncodingsTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Hashtable" : "Listpack"; });

TEST(HashTest, EmptyHash) {
  HashValue hash;
  EXPECT_EQ(hash.size(), 0u);
  EXPECT_TRUE(hash.empty());
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  EXPECT_EQ(hash.MemoryUsage(), 0u);
  EXPECT_FALSE(hash.Get("f").has_value());
  EXPECT_FALSE(hash.Contains("f"));
  EXPECT_EQ(hash.ValueLength("f"), 0u);
  EXPECT_FALSE(hash.Erase("f"));
  EXPECT_TRUE(Contents(hash).empty());
  EXPECT_EQ(hash.Scan(0, 10, [](std::string_view, std::string_view) { FAIL(); }), 0u);
  Rng rng(1);
  hash.RandomFields(5, rng, [](std::string_view, std::string_view) { FAIL(); });
  hash.RandomFields(-5, rng, [](std::string_view, std::string_view) { FAIL(); });
}

TEST_P(HashBothEncodingsTest, SetGetEraseSemantics) {
  HashValue hash;
  EXPECT_TRUE(hash.Set("name", "hotkv", limits()));
  EXPECT_STREQ(hash.EncodingName(), encoding());
  EXPECT_FALSE(hash.Set("name", "HotKV", limits()));  // update: not a new field
  EXPECT_EQ(hash.Get("name")->view(), "HotKV");
  EXPECT_FALSE(hash.SetIfAbsent("name", "other", limits()));
  EXPECT_EQ(hash.Get("name")->view(), "HotKV");
  EXPECT_TRUE(hash.SetIfAbsent("lang", "C++", limits()));
  EXPECT_TRUE(hash.Set("count", "12345", limits()));
  EXPECT_EQ(hash.size(), 3u);
  EXPECT_TRUE(hash.Contains("lang"));
  EXPECT_FALSE(hash.Contains("LANG"));
  EXPECT_EQ(hash.ValueLength("count"), 5u);
  EXPECT_EQ(hash.ValueLength("name"), 5u);
  EXPECT_EQ(hash.ValueLength("nope"), 0u);
  EXPECT_TRUE(hash.Erase("lang"));
  EXPECT_FALSE(hash.Erase("lang"));
  EXPECT_EQ(Contents(hash), (Map{{"name", "HotKV"}, {"count", "12345"}}));
  // Values of every length class, growing and shrinking in place.
  EXPECT_FALSE(hash.Set("name", "", limits()));
  EXPECT_EQ(hash.Get("name")->view(), "");
  EXPECT_FALSE(hash.Set("count", "-9223372036854775808", limits()));
  EXPECT_EQ(hash.Get("count")->view(), "-9223372036854775808");
}

TEST_P(HashBothEncodingsTest, IncrementIsGetThenSet) {
  HashValue hash;
  hash.Set("n", "41", limits());
  const int64_t next = *ParseCanonicalInt(hash.Get("n")->view()) + 1;
  EXPECT_FALSE(hash.Set("n", std::to_string(next), limits()));
  EXPECT_EQ(hash.Get("n")->view(), "42");
}

TEST_P(HashBothEncodingsTest, BinarySafeFieldsAndValues) {
  HashValue hash;
  const Map want = {{""s, "empty field"s},   {"\0"s, "\0\0"s},      {"a\0b"s, "x\0y"s},
                    {"123"s, "0123"s},        {"0123"s, "123"s},     {"-0"s, "0"s},
                    {"\xff\xfe"s, "\x80"s}};
  for (const auto& [f, v] : want) {
    EXPECT_TRUE(hash.Set(f, v, limits()));
  }
  EXPECT_EQ(Contents(hash), want);
  EXPECT_EQ(hash.Get("\0"s)->view(), "\0\0"s);
  EXPECT_FALSE(hash.Get("\0\0"s).has_value());
  EXPECT_EQ(hash.Get("123")->view(), "0123");
  EXPECT_FALSE(hash.Contains("+123"));
}

TEST_P(HashBothEncodingsTest, CloneIsDeep) {
  HashValue hash = Make(10, limits());
  HashValue copy = hash.Clone();
  hash.Set("field1", "changed", limits());
  hash.Erase("field2");
  EXPECT_EQ(copy.size(), 10u);
  EXPECT_EQ(copy.Get("field1")->view(), "value1");
  EXPECT_EQ(copy.Get("field2")->view(), "value2");
  EXPECT_STREQ(copy.EncodingName(), encoding());
  EXPECT_EQ(copy.MemoryUsage(), Make(10, limits()).MemoryUsage());
}

TEST_P(HashBothEncodingsTest, ForEachStopsEarly) {
  HashValue hash = Make(10, limits());
  int seen = 0;
  hash.ForEach([&](std::string_view, std::string_view) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
}

TEST(HashTest, ListpackKeepsInsertionOrder) {
  HashValue hash = Make(5);
  hash.Erase("field1");
  hash.Set("field0", "updated", {});
  hash.Set("new", "x", {});
  EXPECT_EQ(FieldOrder(hash),
            (std::vector<std::string>{"field0", "field2", "field3", "field4", "new"}));
}

TEST(HashEncodingTest, ConvertsAfterMaxListpackEntries) {
  const EncodingLimits limits;  // hash-max-listpack-entries 128
  HashValue hash = Make(128, limits);
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  EXPECT_FALSE(hash.Set("field0", "update", limits));  // updates do not grow it
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  EXPECT_TRUE(hash.Set("field128", "value128", limits));
  EXPECT_STREQ(hash.EncodingName(), "hashtable");
  EXPECT_EQ(hash.size(), 129u);
  EXPECT_EQ(hash.Get("field0")->view(), "update");
  EXPECT_EQ(hash.Get("field127")->view(), "value127");
  // Never converts back.
  for (int i = 0; i < 129; ++i) {
    hash.Erase("field" + std::to_string(i));
  }
  EXPECT_TRUE(hash.empty());
  EXPECT_STREQ(hash.EncodingName(), "hashtable");
}

TEST(HashEncodingTest, ConvertsOnLongFieldOrValue) {
  const EncodingLimits limits;  // hash-max-listpack-value 64
  HashValue hash;
  hash.Set(std::string(64, 'f'), std::string(64, 'v'), limits);
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  hash.Set("f", std::string(65, 'v'), limits);
  EXPECT_STREQ(hash.EncodingName(), "hashtable");
  EXPECT_EQ(hash.ValueLength("f"), 65u);
  EXPECT_EQ(hash.ValueLength(std::string(64, 'f')), 64u);

  HashValue by_field;
  by_field.Set("a", "1", limits);
  by_field.Set(std::string(65, 'f'), "v", limits);
  EXPECT_STREQ(by_field.EncodingName(), "hashtable");
  EXPECT_EQ(Contents(by_field), (Map{{"a", "1"}, {std::string(65, 'f'), "v"}}));

  // Updating an existing field with a long value converts too; HSETNX on an existing
  // field converts before finding the field, as Redis does.
  HashValue update = Make(3, limits);
  update.Set("field1", std::string(100, 'x'), limits);
  EXPECT_STREQ(update.EncodingName(), "hashtable");
  HashValue setnx = Make(3, limits);
  EXPECT_FALSE(setnx.SetIfAbsent("field1", std::string(100, 'x'), limits));
  EXPECT_STREQ(setnx.EncodingName(), "hashtable");
  EXPECT_EQ(setnx.Get("field1")->view(), "value1");
}

TEST(HashEncodingTest, ReserveForConvertsOnlyPastTheLimit) {
  const EncodingLimits limits;
  HashValue hash = Make(3, limits);
  hash.ReserveFor(128, limits);
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  hash.ReserveFor(129, limits);
  EXPECT_STREQ(hash.EncodingName(), "hashtable");
  EXPECT_EQ(hash.size(), 3u);
  EXPECT_EQ(hash.Get("field2")->view(), "value2");
}

TEST(HashEncodingTest, CustomLimits) {
  EncodingLimits limits;
  limits.hash_max_listpack_entries = 4;
  limits.hash_max_listpack_value = 8;
  HashValue hash = Make(4, limits);  // "value3" is 6 bytes, "field3" 6
  EXPECT_STREQ(hash.EncodingName(), "listpack");
  hash.Set("f", "12345678", limits);  // 8 bytes: still fits the value limit...
  EXPECT_STREQ(hash.EncodingName(), "hashtable");  // ...but it is the fifth field
  HashValue other;
  other.Set("f", "123456789", limits);
  EXPECT_STREQ(other.EncodingName(), "hashtable");
}

TEST_P(HashBothEncodingsTest, RandomFieldsDistinctAndRepeating) {
  HashValue hash = Make(10, limits());
  Rng rng(7);
  const Map all = Contents(hash);
  auto sample = [&](int64_t count) {
    std::vector<std::string> fields;
    hash.RandomFields(count, rng, [&](std::string_view f, std::string_view v) {
      EXPECT_EQ(all.at(std::string(f)), v);
      fields.emplace_back(f);
    });
    return fields;
  };
  EXPECT_TRUE(sample(0).empty());
  for (int64_t count : {1, 3, 4, 9, 10}) {
    const std::vector<std::string> got = sample(count);
    EXPECT_EQ(got.size(), static_cast<size_t>(count));
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), got.size());
  }
  std::vector<std::string> everything = sample(1000);  // more than the hash holds
  EXPECT_EQ(everything.size(), 10u);
  EXPECT_EQ(std::set<std::string>(everything.begin(), everything.end()).size(), 10u);
  // Negative counts repeat, and every field is drawn about equally often.
  std::map<std::string, int> drawn;
  for (const std::string& f : sample(-20000)) {
    ++drawn[f];
  }
  EXPECT_EQ(drawn.size(), 10u);
  for (const auto& [f, n] : drawn) {
    EXPECT_GT(n, 1600) << f;
    EXPECT_LT(n, 2400) << f;
  }
  EXPECT_EQ(sample(-3).size(), 3u);
}

TEST(HashScanTest, ListpackReturnsEverythingWithCursorZero) {
  HashValue hash = Make(50);
  Map seen;
  EXPECT_EQ(hash.Scan(0, 1, [&](std::string_view f, std::string_view v) { seen.emplace(f, v); }),
            0u);
  EXPECT_EQ(seen, Contents(hash));
}

TEST(HashScanTest, HashtableScanVisitsEverything) {
  HashValue hash = Make(1000);
  ASSERT_STREQ(hash.EncodingName(), "hashtable");
  Map seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    cursor = hash.Scan(cursor, 10, [&](std::string_view f, std::string_view v) {
      seen.emplace(f, v);
    });
    ++calls;
  } while (cursor != 0);
  EXPECT_EQ(seen, Contents(hash));
  EXPECT_GT(calls, 20);  // it really was incremental
}

// Elements present for the whole scan are returned even while the table grows and
// shrinks between calls.
TEST(HashScanTest, ScanSurvivesResizes) {
  for (int mode = 0; mode < 2; ++mode) {
    const EncodingLimits limits;
    HashValue hash = Make(2000, limits);
    std::set<std::string> seen;
    std::mt19937_64 rng(mode);
    uint64_t cursor = 0;
    int extra = 0;
    int step = 0;
    do {
      cursor = hash.Scan(cursor, 5, [&](std::string_view f, std::string_view) { seen.emplace(f); });
      // mode 0 grows the table several times over, mode 1 empties half of it.
      for (int i = 0; i < 3; ++i) {
        if (mode == 0) {
          hash.Set("extra" + std::to_string(extra++), "x", limits);
        } else {
          const std::string victim = "field" + std::to_string(1000 + rng() % 1000);
          hash.Erase(victim);
        }
      }
      ++step;
    } while (cursor != 0 && step < 20000);
    ASSERT_EQ(cursor, 0u);
    for (int i = 0; i < 1000; ++i) {  // field0..field999 were never touched
      ASSERT_TRUE(seen.count("field" + std::to_string(i))) << "mode " << mode << " field" << i;
    }
  }
}

TEST(HashMemoryTest, SmallHashIsCompact) {
  // Five fields of ~6 bytes with ~8-byte values: 8-byte header + 10 entries of one
  // length byte each = 88 bytes of listpack.
  HashValue hash;
  for (int i = 0; i < 5; ++i) {
    hash.Set("field" + std::to_string(i), "value-0" + std::to_string(i), {});
  }
  EXPECT_LE(hash.MemoryUsage(), 96u);
  EXPECT_GE(hash.MemoryUsage(), 88u);
  HashValue big = Make(10000);
  // Entries of 1 + 10 + 1 + 10 bytes plus 8-byte slots at >= 3/8 load.
  EXPECT_LT(big.MemoryUsage(), 10000u * 60);
}

// ---- randomized comparison with std::map ------------------------------------------

std::string RandomField(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return std::to_string(rng() % 300);
    case 1:
      return "f" + std::to_string(rng() % 300);
    case 2:
      return std::string(rng() % 3, '\0') + std::to_string(rng() % 50);
    default:
      // Now and then longer than hash-max-listpack-value (64).
      return std::string(1 + rng() % (rng() % 40 == 0 ? 80 : 10), static_cast<char>('a' + rng() % 4));
  }
}

std::string RandomValue(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
    case 1:
      return "";
    case 2:
      return std::string(rng() % (rng() % 40 == 0 ? 70 : 30), 'v');
    default:
      return "v\0"s + std::to_string(rng() % 1000);
  }
}

// `listpack_share`: the least fraction of steps expected in the "listpack" encoding.
void RunRandomized(const EncodingLimits& limits, uint64_t seed, int steps,
                   double listpack_share) {
  ASSERT_TRUE(kHashSeedPinned) << "a hash table was built before the seed was pinned";
  std::mt19937_64 rng(seed);
  HashValue hash;
  Map model;
  int steps_in[2] = {0, 0};
  bool growing = true;
  for (int step = 0; step < steps; ++step) {
    // Alternate between growing past the listpack limit and shrinking; half the
    // restarts begin again from an empty (listpack) hash.
    if (growing && model.size() > 300) {
      growing = false;
    } else if (!growing && model.size() < 10) {
      growing = true;
      if (rng() % 2 == 0) {
        hash = HashValue();
        model.clear();
      }
    }
    // While shrinking, mostly pick fields that exist.
    std::string field = RandomField(rng);
    if (!growing && !model.empty() && rng() % 4 != 0) {
      field = std::next(model.begin(), static_cast<ptrdiff_t>(rng() % model.size()))->first;
    }
    const auto it = model.find(field);
    // Growing: sets are 4 of 8 operations; shrinking: erases are 5 of 8.
    const int op = static_cast<int>(rng() % 8);
    switch (growing ? op : (op < 5 ? 4 : op)) {
      case 0:
      case 1: {
        const std::string value = RandomValue(rng);
        ASSERT_EQ(hash.Set(field, value, limits), it == model.end());
        model[field] = value;
        break;
      }
      case 2:
      case 3: {
        const std::string value = RandomValue(rng);
        ASSERT_EQ(hash.SetIfAbsent(field, value, limits), it == model.end());
        model.emplace(field, value);
        break;
      }
      case 4:
        ASSERT_EQ(hash.Erase(field), it != model.end());
        if (it != model.end()) {
          model.erase(it);
        }
        break;
      case 5: {
        const std::optional<Element> got = hash.Get(field);
        ASSERT_EQ(got.has_value(), it != model.end());
        if (got) {
          ASSERT_EQ(got->view(), it->second);
        }
        break;
      }
      case 6:
        ASSERT_EQ(hash.Contains(field), it != model.end());
        ASSERT_EQ(hash.ValueLength(field), it == model.end() ? 0 : it->second.size());
        break;
      default:
        if (rng() % 50 == 0) {
          HashValue copy = hash.Clone();
          hash = std::move(copy);
        }
    }
    ASSERT_EQ(hash.size(), model.size()) << "step " << step;
    ++steps_in[static_cast<int>(hash.encoding())];
    if (step % 100 == 0) {
      ASSERT_EQ(Contents(hash), model) << "step " << step;
    }
  }
  ASSERT_EQ(Contents(hash), model);
  EXPECT_GE(steps_in[0], steps * listpack_share);
  EXPECT_GT(steps_in[1], steps / 20);
}

TEST(HashRandomizedTest, DefaultLimitsAgainstMap) { RunRandomized(EncodingLimits{}, 11, 60000, 0.05); }

TEST(HashRandomizedTest, SmallLimitsAgainstMap) {
  EncodingLimits limits;
  limits.hash_max_listpack_entries = 16;
  limits.hash_max_listpack_value = 75;
  RunRandomized(limits, 12, 60000, 0.005);
}

// ---- StringTable directly ---------------------------------------------------------

TEST(StringTableTest, KeyOnlyTableGrowsAndShrinks) {
  StringTable table(/*with_values=*/false);
  EXPECT_EQ(table.capacity(), 4u);
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(table.Insert("k" + std::to_string(i)));
  }
  EXPECT_FALSE(table.Insert("k5"));
  EXPECT_EQ(table.size(), 10000u);
  EXPECT_LE(table.size() * 4, table.capacity() * 3);
  EXPECT_EQ(table.Find("k5"), std::optional<std::string_view>(""));
  for (int i = 0; i < 9990; ++i) {
    ASSERT_TRUE(table.Erase("k" + std::to_string(i)));
  }
  EXPECT_EQ(table.size(), 10u);
  EXPECT_LE(table.capacity(), 64u);  // shrinks below 1/8 load to at most 3/8
  for (int i = 9990; i < 10000; ++i) {
    EXPECT_TRUE(table.Contains("k" + std::to_string(i)));
  }
  Rng rng(3);
  std::set<std::string> popped;
  while (table.size() > 0) {
    popped.insert(table.PopRandom(rng));
  }
  EXPECT_EQ(popped.size(), 10u);
}

// Growing from 4 slots to 32K moves every element through several rehashes (which
// prefetch entries ahead): each must stay findable with its value, and a walk must see
// each exactly once.
TEST(StringTableTest, RehashesKeepEveryElementAndValue) {
  StringTable table(/*with_values=*/true);
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(table.Set("f" + std::to_string(i), "v" + std::to_string(i * 7)));
  }
  EXPECT_EQ(table.size(), static_cast<size_t>(kN));
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(table.Find("f" + std::to_string(i)),
              std::optional<std::string_view>("v" + std::to_string(i * 7)))
        << i;
  }
  EXPECT_FALSE(table.Contains("f" + std::to_string(kN)));
  std::set<std::string> seen;
  size_t visits = 0;
  table.ForEach([&](std::string_view key, std::string_view) {
    seen.emplace(key);
    ++visits;
    return true;
  });
  EXPECT_EQ(visits, static_cast<size_t>(kN));
  EXPECT_EQ(seen.size(), static_cast<size_t>(kN));
}

TEST(StringTableTest, PresizedAndCloned) {
  StringTable table(/*with_values=*/true, 1000);
  const size_t capacity = table.capacity();
  EXPECT_GE(capacity * 3, 1000u * 4);
  for (int i = 0; i < 1000; ++i) {
    table.Set("k" + std::to_string(i), std::string(i % 300, 'v'));
  }
  EXPECT_EQ(table.capacity(), capacity);  // no rehash needed
  StringTable copy = table.Clone();
  table.Set("k1", "changed");
  EXPECT_EQ(copy.Find("k1"), std::optional<std::string_view>("v"));
  EXPECT_EQ(copy.Find("k299")->size(), 299u);
  EXPECT_EQ(copy.size(), 1000u);
  EXPECT_EQ(copy.capacity(), capacity);
  EXPECT_GT(copy.MemoryUsage(), capacity * 8 + 139500);  // slots + the values alone
}

}  // namespace
}  // namespace hotkv::types

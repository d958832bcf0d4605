// Tests for hash field expiry in the value layer: FieldTtls (both views stay in step),
// HashValue's TTL calls in both encodings, the listpackex order, HSET clearing a TTL,
// conversion to "hashtable" keeping TTLs, Clone, and a randomized model check.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/random.h"
#include "types/field_ttls.h"
#include "types/hash_value.h"

namespace hotkv::types {
namespace {

std::vector<std::string> Fields(const HashValue& h) {
  std::vector<std::string> out;
  h.ForEach([&](std::string_view f, std::string_view) {
    out.emplace_back(f);
    return true;
  });
  return out;
}

TEST(FieldTtls, SetGetEraseMinDue) {
  FieldTtls t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.Min(), 0);
  t.Set("a", 30);
  t.Set("b", 10);
  t.Set("c", 20);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.Get("a"), 30);
  EXPECT_EQ(t.Get("zz"), 0);
  EXPECT_EQ(t.Min(), 10);
  EXPECT_EQ(t.Due(20, 10), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(t.Due(100, 1), (std::vector<std::string>{"b"}));
  t.Set("b", 40);  // replaces: the by-time view moves too
  EXPECT_EQ(t.Min(), 20);
  EXPECT_TRUE(t.Erase("c"));
  EXPECT_FALSE(t.Erase("c"));
  EXPECT_EQ(t.Min(), 30);
  FieldTtls copy(t);
  t.Erase("a");
  EXPECT_EQ(copy.Get("a"), 30);
  EXPECT_EQ(copy.Min(), 30);
  EXPECT_GT(copy.MemoryUsage(), 0u);
}

TEST(HashFieldTtl, NoTtlMeansPlainListpack) {
  HashValue h;
  EncodingLimits limits;
  h.Set("a", "1", limits);
  EXPECT_STREQ(h.EncodingName(), "listpack");
  EXPECT_FALSE(h.HasFieldTtls());
  EXPECT_EQ(h.ExpireAt("a"), 0);
  EXPECT_FALSE(h.Persist("a"));
  EXPECT_STREQ(h.EncodingName(), "listpack");
}

TEST(HashFieldTtl, ListpackexOrderAndEncoding) {
  HashValue h;
  EncodingLimits limits;
  for (const char* f : {"a", "b", "c", "d"}) {
    h.Set(f, f, limits);
  }
  h.SetExpireAt("c", 100);
  EXPECT_STREQ(h.EncodingName(), "listpackex");
  EXPECT_EQ(Fields(h), (std::vector<std::string>{"c", "a", "b", "d"}));
  h.SetExpireAt("d", 50);
  EXPECT_EQ(Fields(h), (std::vector<std::string>{"d", "c", "a", "b"}));
  h.SetExpireAt("a", 100);  // before an equal expiry
  EXPECT_EQ(Fields(h), (std::vector<std::string>{"d", "a", "c", "b"}));
  EXPECT_TRUE(h.Persist("d"));  // to the end
  EXPECT_EQ(Fields(h), (std::vector<std::string>{"a", "c", "b", "d"}));
  h.Set("a", "new", limits);  // HSET clears the TTL: to the end
  EXPECT_EQ(h.ExpireAt("a"), 0);
  EXPECT_EQ(Fields(h), (std::vector<std::string>{"c", "b", "d", "a"}));
  EXPECT_EQ(h.Get("a")->view(), "new");
  h.Set("c", "kept", limits, /*keep_ttl=*/true);
  EXPECT_EQ(h.ExpireAt("c"), 100);
  EXPECT_EQ(h.MinExpire(), 100);
  h.Persist("c");
  EXPECT_FALSE(h.HasFieldTtls());
  EXPECT_STREQ(h.EncodingName(), "listpackex");  // stays, as in Redis
}

TEST(HashFieldTtl, DueFieldsEraseAndLiveIteration) {
  HashValue h;
  EncodingLimits limits;
  for (int i = 0; i < 10; i++) {
    h.Set("f" + std::to_string(i), std::to_string(i), limits);
  }
  h.SetExpireAt("f1", 10);
  h.SetExpireAt("f2", 20);
  h.SetExpireAt("f3", 30);
  EXPECT_TRUE(h.HasDueFields(20));
  EXPECT_FALSE(h.HasDueFields(9));
  EXPECT_TRUE(h.IsExpired("f2", 20));
  EXPECT_FALSE(h.IsExpired("f3", 20));
  EXPECT_FALSE(h.IsExpired("f4", 1000));
  EXPECT_EQ(h.DueFields(25, 100), (std::vector<std::string>{"f1", "f2"}));
  size_t live = 0;
  h.ForEachLive(25, [&](std::string_view f, std::string_view) {
    EXPECT_NE(f, "f1");
    EXPECT_NE(f, "f2");
    live++;
    return true;
  });
  EXPECT_EQ(live, 8u);
  EXPECT_EQ(h.size(), 10u);  // the value layer has no clock: expired fields still count
  h.Erase("f1");
  EXPECT_EQ(h.ExpireAt("f1"), 0);
  EXPECT_EQ(h.MinExpire(), 20);
}

TEST(HashFieldTtl, ConversionCloneAndLongValues) {
  HashValue h;
  EncodingLimits limits;
  limits.hash_max_listpack_entries = 4;
  h.Set("a", "1", limits);
  h.SetExpireAt("a", 77);
  // HSET of a long value on a field with a TTL converts and clears it.
  h.Set("a", std::string(100, 'x'), limits);
  EXPECT_STREQ(h.EncodingName(), "hashtable");
  EXPECT_EQ(h.ExpireAt("a"), 0);
  h.SetExpireAt("a", 88);
  for (int i = 0; i < 10; i++) {
    h.Set("f" + std::to_string(i), "v", limits);
  }
  EXPECT_EQ(h.ExpireAt("a"), 88);
  HashValue copy = h.Clone();
  h.Persist("a");
  EXPECT_EQ(copy.ExpireAt("a"), 88);
  std::map<std::string, int64_t> ttls;
  copy.ForEachWithTtl([&](std::string_view f, std::string_view, int64_t at) {
    ttls[std::string(f)] = at;
    return true;
  });
  EXPECT_EQ(ttls.size(), 11u);
  EXPECT_EQ(ttls["a"], 88);
  EXPECT_EQ(ttls["f0"], 0);
  EXPECT_GT(copy.MemoryUsage(), h.MemoryUsage() - 1);
}

// Random operations on both encodings against a std::map model.
TEST(HashFieldTtl, RandomAgainstModel) {
  for (size_t entries : {size_t{8}, size_t{128}}) {
    Rng rng(42 + entries);
    EncodingLimits limits;
    limits.hash_max_listpack_entries = entries;
    HashValue h;
    std::map<std::string, std::pair<std::string, int64_t>> model;
    for (int step = 0; step < 20000; step++) {
      const std::string f = "f" + std::to_string(rng.Below(40));
      switch (rng.Below(5)) {
        case 0: {
          const std::string v = std::to_string(rng.Below(1000));
          const bool keep = rng.Below(2) == 0;
          EXPECT_EQ(h.Set(f, v, limits, keep), model.count(f) == 0);
          auto& m = model[f];
          m.first = v;
          if (!keep) {
            m.second = 0;
          }
          break;
        }
        case 1:
          EXPECT_EQ(h.Erase(f), model.erase(f) == 1);
          break;
        case 2:
          if (model.count(f)) {
            const int64_t at = 1 + rng.Below(100);
            h.SetExpireAt(f, at);
            model[f].second = at;
          }
          break;
        case 3:
          if (model.count(f)) {
            EXPECT_EQ(h.Persist(f), model[f].second != 0);
            model[f].second = 0;
          }
          break;
        default: {
          const int64_t now = static_cast<int64_t>(rng.Below(100));
          std::vector<std::string> due;
          for (const auto& [k, m] : model) {
            if (m.second != 0 && m.second <= now) {
              due.push_back(k);
            }
          }
          auto got = h.DueFields(now, 1000);
          std::sort(got.begin(), got.end());
          EXPECT_EQ(got, due);
        }
      }
      ASSERT_EQ(h.size(), model.size());
    }
    int64_t min = 0;
    for (const auto& [k, m] : model) {
      ASSERT_EQ(h.Get(k)->view(), m.first);
      ASSERT_EQ(h.ExpireAt(k), m.second);
      if (m.second != 0 && (min == 0 || m.second < min)) {
        min = m.second;
      }
    }
    EXPECT_EQ(h.MinExpire(), min);
    if (std::string(h.EncodingName()) != "hashtable") {
      // listpackex order: TTL'd fields by expiry, then the rest.
      int64_t prev = 1;
      bool in_tail = false;
      for (const std::string& f : Fields(h)) {
        const int64_t at = h.ExpireAt(f);
        if (at == 0) {
          in_tail = true;
        } else {
          ASSERT_FALSE(in_tail);
          ASSERT_GE(at, prev);
          prev = at;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hotkv::types

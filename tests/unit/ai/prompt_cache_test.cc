// PromptCache (ai/prompt_cache.h) without a server: chains and trees, LONGEST, descendants
// deleted with their block, expiries capped by the parent, the byte budget's eviction
// order (least recently used leaf), failed writes changing nothing, snapshot/restore, the
// change reports, and a randomised run checking every invariant after each operation.
#include "ai/prompt_cache.h"

#include <gtest/gtest.h>

#include <random>

namespace hotkv::ai {
namespace {

using Item = PromptCache::PutItem;

BlockValue V(size_t n, char c = 'x') { return std::make_shared<const std::string>(n, c); }

Status Put(PromptCache& pc, std::string_view key, BlockValue v,
           std::optional<std::string_view> parent = std::nullopt, int64_t now = 0,
           std::optional<int64_t> ttl_ms = std::nullopt) {
  Item item{key, std::move(v)};
  PromptCache::PutRequest req;
  req.items = std::span<const Item>(&item, 1);
  req.parent = parent;
  req.ttl_ms = ttl_ms;
  return pc.Put(req, now, {});
}

size_t Longest(PromptCache& pc, std::vector<std::string_view> keys, int64_t now = 0) {
  return pc.Longest(keys, now);
}

TEST(PromptCacheTest, ChainTreeLongestAndDescendants) {
  PromptCache pc({});
  ASSERT_TRUE(Put(pc, "a", V(1)).ok());
  ASSERT_TRUE(Put(pc, "b", V(1), "a").ok());
  ASSERT_TRUE(Put(pc, "c", V(1), "b").ok());
  ASSERT_TRUE(Put(pc, "b2", V(1), "a").ok());
  EXPECT_EQ(Longest(pc, {"a", "b", "c", "d"}), 3u);
  EXPECT_EQ(Longest(pc, {"a", "b2", "c"}), 3u);  // presence, not linkage
  EXPECT_EQ(Put(pc, "x", V(1), "nope").code(), StatusCode::kNotFound);
  EXPECT_EQ(Put(pc, "c", V(1), "b2").code(), StatusCode::kFailedPrecondition);
  std::vector<std::string_view> del = {"b"};
  EXPECT_EQ(pc.Delete(del, 0, {}), 2u);
  EXPECT_EQ(pc.size(), 2u);
  EXPECT_TRUE(pc.CheckInvariants().ok());
}

// LongestPacked (PCACHE.LONGESTBLOB): the same answers as Longest over the blob's
// width-byte keys, binary bytes included; a trailing partial key is ignored.
TEST(PromptCacheTest, LongestPackedMatchesLongest) {
  PromptCache pc({});
  std::mt19937_64 rng(5);
  std::vector<std::string> keys(50);
  for (size_t i = 0; i < keys.size(); i++) {
    keys[i].resize(16);
    for (char& ch : keys[i]) ch = static_cast<char>(rng());
    keys[i][3] = '\0';
    ASSERT_TRUE(Put(pc, keys[i], V(2), i == 0 ? std::nullopt
                                              : std::optional<std::string_view>(keys[i - 1]))
                    .ok());
  }
  std::string blob;
  for (const std::string& k : keys) blob += k;
  EXPECT_EQ(pc.LongestPacked(blob, 16, 0), 50u);
  EXPECT_EQ(pc.LongestPacked(blob + "tail", 16, 0), 50u);
  EXPECT_EQ(pc.LongestPacked(blob.substr(0, 16 * 7), 16, 0), 7u);
  EXPECT_EQ(pc.LongestPacked(blob.substr(16), 16, 0), 49u);  // presence, not a root
  std::string broken = blob;
  broken[16 * 20 + 5] ^= 1;
  EXPECT_EQ(pc.LongestPacked(broken, 16, 0), 20u);
  EXPECT_EQ(pc.LongestPacked(blob, 32, 0), 0u);
  EXPECT_EQ(pc.LongestPacked(blob, 8, 0), 0u);
  // 32-byte keys (the other fixed-width compare) and a width of no fixed compare (24).
  PromptCache wide({});
  std::string blob32, blob24;
  for (int i = 0; i < 5; i++) {
    std::string k32(32, static_cast<char>('a' + i)), k24(24, static_cast<char>('a' + i));
    k32[31] = '\0';
    ASSERT_TRUE(Put(wide, k32, V(1), i == 0 ? std::nullopt
                                            : std::optional<std::string_view>(blob32.substr(32 * (i - 1), 32)))
                    .ok());
    ASSERT_TRUE(Put(wide, k24, V(1)).ok());
    blob32 += k32;
    blob24 += k24;
  }
  EXPECT_EQ(wide.LongestPacked(blob32, 32, 0), 5u);
  EXPECT_EQ(wide.LongestPacked(blob24, 24, 0), 5u);
  blob32[32 * 3] = 'z';
  EXPECT_EQ(wide.LongestPacked(blob32, 32, 0), 3u);
  std::vector<std::string_view> views(keys.begin(), keys.begin() + 20);
  EXPECT_EQ(pc.Longest(views, 0), 20u);
  EXPECT_TRUE(pc.CheckInvariants().ok());
}

TEST(PromptCacheTest, ExpiryCappedByParentAndReplacedShorter) {
  PromptCache pc({.budget_bytes = 0, .ttl_ms = 0});
  ASSERT_TRUE(Put(pc, "a", V(1), std::nullopt, 0, 10000).ok());
  ASSERT_TRUE(Put(pc, "b", V(1), "a", 0, 50000).ok());
  ASSERT_TRUE(Put(pc, "c", V(1), "b", 0).ok());
  EXPECT_EQ(Longest(pc, {"a", "b", "c"}, 9999), 3u);
  EXPECT_EQ(Longest(pc, {"a", "b", "c"}, 10000), 0u);
  // A root put again with a shorter TTL caps its descendants.
  PromptCache pc2({});
  ASSERT_TRUE(Put(pc2, "a", V(1)).ok());
  ASSERT_TRUE(Put(pc2, "b", V(1), "a").ok());
  ASSERT_TRUE(Put(pc2, "a", V(2), std::nullopt, 0, 500).ok());
  EXPECT_EQ(Longest(pc2, {"a", "b"}, 499), 2u);
  EXPECT_EQ(Longest(pc2, {"b"}, 500), 0u);
  EXPECT_TRUE(pc2.CheckInvariants().ok());
}

TEST(PromptCacheTest, BudgetEvictsLeastRecentlyUsedLeafAndRefusesWhatCannotFit) {
  PromptCache pc({.budget_bytes = 40, .ttl_ms = 0});  // blocks of 10 bytes (1 + 9)
  ASSERT_TRUE(Put(pc, "a", V(9)).ok());
  ASSERT_TRUE(Put(pc, "b", V(9), "a").ok());
  ASSERT_TRUE(Put(pc, "c", V(9)).ok());
  ASSERT_TRUE(Put(pc, "d", V(9), "c").ok());
  EXPECT_EQ(Longest(pc, {"a", "b"}), 2u);          // c-d is now the colder prefix
  ASSERT_TRUE(Put(pc, "e", V(9), "b").ok());        // evicts d (the oldest leaf)
  EXPECT_EQ(Longest(pc, {"c", "d"}), 1u);
  // The leaves are now c (used by that LONGEST) and e; e is pinned as f's parent, so c
  // goes although it was used last.
  ASSERT_TRUE(Put(pc, "f", V(9), "e").ok());
  EXPECT_EQ(Longest(pc, {"c"}), 0u);
  EXPECT_EQ(Longest(pc, {"a", "b", "e", "f"}), 4u);
  const std::string before = std::to_string(pc.GetStats().bytes) + "/" + std::to_string(pc.size());
  EXPECT_EQ(Put(pc, "g", V(9), "f").code(), StatusCode::kFailedPrecondition);  // 50 > 40
  EXPECT_EQ(std::to_string(pc.GetStats().bytes) + "/" + std::to_string(pc.size()), before);
  EXPECT_EQ(pc.GetStats().evictions, 2u);
  EXPECT_TRUE(pc.CheckInvariants().ok());
}

TEST(PromptCacheTest, ChangesReportEvictionsBeforeThePut) {
  PromptCache pc({.budget_bytes = 20, .ttl_ms = 0});
  ASSERT_TRUE(Put(pc, "a", V(9)).ok());
  ASSERT_TRUE(Put(pc, "b", V(9)).ok());
  std::vector<std::string> log;
  Item item{"c", V(9)};
  PromptCache::PutRequest req;
  req.items = std::span<const Item>(&item, 1);
  req.parent = "b";
  ASSERT_TRUE(pc.Put(req, 0, [&](const PromptCache::Change& c) {
                  if (c.kind == PromptCache::Change::Kind::kDel) {
                    for (const std::string& k : c.keys) log.push_back("del " + k);
                  } else {
                    log.push_back("put " + std::string(c.key) + " " + std::string(c.parent));
                  }
                }).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"del a", "put c b"}));
}

TEST(PromptCacheTest, SnapshotRestoreRoundTrip) {
  PromptCache pc({.budget_bytes = 100000, .ttl_ms = 5000});
  ASSERT_TRUE(Put(pc, "r", V(3)).ok());
  for (int i = 0; i < 50; i++) {
    ASSERT_TRUE(Put(pc, "k" + std::to_string(i), V(i), i == 0 ? "r" : "k" + std::to_string(i - 1)).ok());
  }
  ASSERT_TRUE(Put(pc, "side", V(1), "k10").ok());
  auto copy = pc.Clone();
  EXPECT_TRUE(copy->CheckInvariants().ok());
  EXPECT_EQ(copy->size(), pc.size());
  EXPECT_EQ(copy->GetStats().bytes, pc.GetStats().bytes);
  const auto a = pc.TakeSnapshot(), b = copy->TakeSnapshot();
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); i++) {
    EXPECT_EQ(a.blocks[i].key, b.blocks[i].key);
    EXPECT_EQ(a.blocks[i].parent, b.blocks[i].parent);
    EXPECT_EQ(a.blocks[i].used, b.blocks[i].used);
    EXPECT_EQ(a.blocks[i].expire_at_ms, b.blocks[i].expire_at_ms);
  }
  PromptCache::Snapshot bad = pc.TakeSnapshot();
  std::swap(bad.blocks[0], bad.blocks[1]);  // a child before its parent
  PromptCache empty({});
  EXPECT_FALSE(empty.Restore(std::move(bad)).ok());
}

TEST(PromptCacheTest, RandomisedOperationsKeepEveryInvariant) {
  std::mt19937 rng(12345);
  PromptCache pc({.budget_bytes = 3000, .ttl_ms = 0});
  std::vector<std::string> names;
  for (int i = 0; i < 60; i++) names.push_back("b" + std::to_string(i));
  int64_t now = 0;
  for (int step = 0; step < 20000; step++) {
    const int op = static_cast<int>(rng() % 100);
    const std::string& k = names[rng() % names.size()];
    const std::string& p = names[rng() % names.size()];
    if (op < 45) {
      std::optional<int64_t> ttl;
      if (rng() % 4 == 0) ttl = static_cast<int64_t>(rng() % 5000);
      (void)Put(pc, k, V(rng() % 300), rng() % 5 == 0 ? std::nullopt : std::optional<std::string_view>(p),
                now, ttl);
    } else if (op < 55) {
      std::vector<Item> items;
      std::vector<std::string> keys;
      for (int i = 0; i < 4; i++) keys.push_back(names[rng() % names.size()]);
      for (const std::string& key : keys) items.push_back({key, V(rng() % 100)});
      PromptCache::PutRequest req;
      req.items = items;
      if (rng() % 2) req.parent = p;
      (void)pc.Put(req, now, {});
    } else if (op < 75) {
      std::vector<std::string_view> keys = {k, p, names[rng() % names.size()]};
      pc.Longest(keys, now);
      std::vector<BlockValue> out;
      pc.Get(keys, now, &out);
    } else if (op < 85) {
      std::vector<std::string_view> keys = {k};
      pc.Delete(keys, now, {});
    } else if (op < 90) {
      pc.Configure({.budget_bytes = 1000 + rng() % 4000, .ttl_ms = 0}, now, {});
    } else {
      now += rng() % 700;
    }
    Status st = pc.CheckInvariants();
    ASSERT_TRUE(st.ok()) << "step " << step << ": " << st.message();
    if (op < 55) {
      ASSERT_LE(pc.GetStats().bytes, pc.options().budget_bytes) << "step " << step;
    }
  }
  auto copy = pc.Clone();
  EXPECT_TRUE(copy->CheckInvariants().ok());
}

}  // namespace
}  // namespace hotkv::ai

// Eviction: the candidate pool's order, each policy's choice of key, the listener and
// the counter, and the LFU decay.
#include "engine/eviction.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/database.h"

namespace hotkv {
namespace {

class Recorder : public KeyObserver {
 public:
  void OnKeyExpired(int, std::string_view) override {}
  void OnKeyCreated(int, std::string_view, ValueType) override {}
  void OnKeyEvicted(int db, std::string_view key) override {
    evicted.insert(std::to_string(db) + ":" + std::string(key));
  }
  std::set<std::string> evicted;
};

void Put(Keyspace& ks, int db, const std::string& key, int64_t expire_ms = 0,
         uint32_t clock = 0, uint8_t lfu = 0) {
  Database view(&ks, db, 0);
  KeyRef r = view.Lookup(key);
  view.SetString(r, key, "value", false);
  if (expire_ms > 0) {
    view.SetTtl(r, expire_ms);
  }
  r = view.Lookup(key);
  r.entry()->set_access_clock(clock);
  r.entry()->set_lfu_counter(lfu);
}

bool Exists(Keyspace& ks, int db, const std::string& key) {
  return Database(&ks, db, 0).Find(key) != nullptr;
}

TEST(EvictionPool, KeepsTheBestAndPopsHighestFirst) {
  EvictionPool pool;
  for (int i = 0; i < 40; i++) {
    pool.Offer(static_cast<uint64_t>((i * 7) % 40), 0, "k" + std::to_string((i * 7) % 40));
  }
  EXPECT_EQ(pool.size(), EvictionPool::kSize);
  EvictionPool::Candidate c;
  for (int expect = 39; expect >= 40 - static_cast<int>(EvictionPool::kSize); expect--) {
    ASSERT_TRUE(pool.PopBest(&c));
    EXPECT_EQ(c.score, static_cast<uint64_t>(expect));
    EXPECT_EQ(c.key, "k" + std::to_string(expect));
  }
  EXPECT_FALSE(pool.PopBest(&c));
  pool.Offer(1, 3, "low");  // an empty pool takes anything
  ASSERT_TRUE(pool.PopBest(&c));
  EXPECT_EQ(c.db, 3);
}

TEST(Eviction, NoEvictionAndEmptyKeyspaceEvictNothing) {
  Keyspace ks(2);
  EvictionPool pool;
  Rng rng(1);
  EvictionParams p;
  p.policy = EvictionPolicy::kAllkeysLru;
  EXPECT_FALSE(EvictOneKey(ks, p, pool, rng));
  Put(ks, 0, "k");
  p.policy = EvictionPolicy::kNoEviction;
  EXPECT_FALSE(EvictOneKey(ks, p, pool, rng));
  EXPECT_TRUE(Exists(ks, 0, "k"));
}

TEST(Eviction, VolatilePoliciesOnlyTakeKeysWithATtl) {
  for (auto policy : {EvictionPolicy::kVolatileLru, EvictionPolicy::kVolatileLfu,
                      EvictionPolicy::kVolatileRandom, EvictionPolicy::kVolatileTtl}) {
    Keyspace ks(2);
    Recorder rec;
    ks.AddObserver(&rec);
    for (int i = 0; i < 200; i++) {
      Put(ks, i % 2, "p" + std::to_string(i));
    }
    for (int i = 0; i < 20; i++) {
      Put(ks, 1, "v" + std::to_string(i), 1'000'000 + i);
    }
    EvictionPool pool;
    Rng rng(7);
    EvictionParams p;
    p.policy = policy;
    const uint64_t before = EvictedKeys();
    int n = 0;
    while (EvictOneKey(ks, p, pool, rng)) {
      n++;
      ASSERT_LE(n, 20);
    }
    EXPECT_EQ(n, 20);
    EXPECT_EQ(EvictedKeys() - before, 20u);
    EXPECT_EQ(rec.evicted.size(), 20u);
    EXPECT_EQ(ks.DbSize(0) + ks.DbSize(1), 200u);
    for (const auto& k : rec.evicted) {
      EXPECT_EQ(k.substr(0, 3), "1:v");
    }
  }
}

TEST(Eviction, LruTakesTheIdlestKeysFirst) {
  Keyspace ks(1);
  // 700 keys used at clock 100, 300 keys last used at clock 10.
  for (int i = 0; i < 1000; i++) {
    Put(ks, 0, "k" + std::to_string(i), 0, i < 300 ? 10 : 100);
  }
  EvictionPool pool;
  Rng rng(3);
  EvictionParams p;
  p.policy = EvictionPolicy::kAllkeysLru;
  p.lru_clock = 101;
  int old_evicted = 0;
  for (int i = 0; i < 50; i++) {
    ASSERT_TRUE(EvictOneKey(ks, p, pool, rng));
  }
  for (int i = 0; i < 300; i++) {
    old_evicted += !Exists(ks, 0, "k" + std::to_string(i));
  }
  // Sampling is approximate (Redis's too): 50 evictions see about 250 samples, 75 of
  // them old, and the pool keeps the old ones it did not evict yet for the next rounds.
  EXPECT_GE(old_evicted, 45);
}

TEST(Eviction, LfuTakesTheLeastUsedAndTtlTheSoonestToExpire) {
  {
    Keyspace ks(1);
    for (int i = 0; i < 1000; i++) {
      Put(ks, 0, "k" + std::to_string(i), 0, 0, i < 300 ? 1 : 200);
    }
    EvictionPool pool;
    Rng rng(5);
    EvictionParams p;
    p.policy = EvictionPolicy::kAllkeysLfu;
    p.lfu_decay_time = 0;  // no decay: the counters as set
    for (int i = 0; i < 50; i++) {
      ASSERT_TRUE(EvictOneKey(ks, p, pool, rng));
    }
    int rare_evicted = 0;
    for (int i = 0; i < 300; i++) {
      rare_evicted += !Exists(ks, 0, "k" + std::to_string(i));
    }
    EXPECT_GE(rare_evicted, 45);
  }
  {
    Keyspace ks(1);
    for (int i = 0; i < 1000; i++) {
      Put(ks, 0, "k" + std::to_string(i), i < 300 ? 5'000 : 9'000'000);
    }
    EvictionPool pool;
    Rng rng(9);
    EvictionParams p;
    p.policy = EvictionPolicy::kVolatileTtl;
    for (int i = 0; i < 50; i++) {
      ASSERT_TRUE(EvictOneKey(ks, p, pool, rng));
    }
    int soon_evicted = 0;
    for (int i = 0; i < 300; i++) {
      soon_evicted += !Exists(ks, 0, "k" + std::to_string(i));
    }
    EXPECT_GE(soon_evicted, 45);
  }
}

TEST(Eviction, AllKeysRandomEmptiesEveryDatabase) {
  Keyspace ks(3);
  for (int i = 0; i < 300; i++) {
    Put(ks, i % 3, "k" + std::to_string(i));
  }
  EvictionPool pool;
  Rng rng(11);
  EvictionParams p;
  p.policy = EvictionPolicy::kAllkeysRandom;
  int n = 0;
  while (EvictOneKey(ks, p, pool, rng)) {
    n++;
    ASSERT_LE(n, 300);
  }
  EXPECT_EQ(n, 300);
  EXPECT_EQ(ks.DbSize(0) + ks.DbSize(1) + ks.DbSize(2), 0u);
}

TEST(Eviction, CandidatesDeletedMeanwhileAreSkipped) {
  Keyspace ks(1);
  for (int i = 0; i < 50; i++) {
    Put(ks, 0, "k" + std::to_string(i), 0, 1);
  }
  EvictionPool pool;
  Rng rng(13);
  EvictionParams p;
  p.policy = EvictionPolicy::kAllkeysLru;
  p.lru_clock = 5;
  pool.Offer(1000, 0, "gone");  // the best score, but no such key
  ASSERT_TRUE(EvictOneKey(ks, p, pool, rng));
  EXPECT_EQ(ks.DbSize(0), 49u);
}

TEST(Eviction, LfuCounterDecaysOneStepPerPeriod) {
  Keyspace ks(1);
  Put(ks, 0, "k", 0, /*clock=*/100, /*lfu=*/10);
  Entry* e = Database(&ks, 0, 0).Find("k");
  EXPECT_EQ(LfuDecayedCounter(e, 100, 1), 10);
  EXPECT_EQ(LfuDecayedCounter(e, 103, 1), 7);
  EXPECT_EQ(LfuDecayedCounter(e, 106, 2), 7);
  EXPECT_EQ(LfuDecayedCounter(e, 200, 1), 0);
  EXPECT_EQ(LfuDecayedCounter(e, 200, 0), 10);  // decay off
}

}  // namespace
}  // namespace hotkv

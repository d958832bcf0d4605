// Per-slot key counts and per-slot key iteration (Keyspace::CountKeysInSlot /
// GetKeysInSlot): checked against the keys actually present after every kind of change,
// with the slot index on (cluster mode) and off. With it on, Check's iterations build
// every slot's set, so the changes after a Check test how the sets are kept.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/key_hash.h"
#include "engine/database.h"
#include "engine/eviction.h"
#include "engine/keyspace.h"
#include "engine/lazy_free.h"

namespace hotkv {
namespace {

class SlotKeys : public ::testing::TestWithParam<bool> {
 protected:
  SlotKeys() : ks_(4) { ks_.SetSlotIndex(GetParam()); }

  void Put(int db, const std::string& key, std::string_view value = "v", int64_t now = 0) {
    Database view(&ks_, db, now);
    KeyRef r = view.Lookup(key);
    view.SetString(r, key, value, false);
  }
  bool Del(int db, const std::string& key) {
    Database view(&ks_, db, 0);
    KeyRef r = view.Lookup(key);
    if (!r) {
      return false;
    }
    view.Erase(r);
    return true;
  }

  // Every slot's count and key list agree with the keys the tables hold.
  void Check(int db) {
    std::map<uint32_t, std::multiset<std::string>> want;
    for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
      ks_.shard(i).db(db).keys.ForEach(
          [&](Entry* e) { want[KeySlot(e->key())].emplace(e->key()); });
    }
    for (uint32_t slot = 0; slot < 16384; slot++) {
      auto it = want.find(slot);
      const size_t n = it == want.end() ? 0 : it->second.size();
      ASSERT_EQ(ks_.CountKeysInSlot(db, slot), n) << "slot " << slot;
    }
    for (const auto& [slot, keys] : want) {
      std::vector<std::string> got;
      ks_.GetKeysInSlot(slot, keys.size() + 5, &got, false, db);
      std::multiset<std::string> got_set(got.begin(), got.end());
      ASSERT_EQ(got_set, keys) << "slot " << slot;
    }
    // An empty slot gives nothing.
    for (uint32_t slot = 0; slot < 16384; slot += 977) {
      if (want.count(slot) == 0) {
        std::vector<std::string> got;
        ks_.GetKeysInSlot(slot, 10, &got, false, db);
        EXPECT_TRUE(got.empty());
      }
    }
  }

  Keyspace ks_;
};

TEST_P(SlotKeys, InsertOverwriteDelete) {
  for (int i = 0; i < 2000; i++) {
    Put(0, "key:" + std::to_string(i));
  }
  Check(0);
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("key:7")), 1u);
  // Overwrites: same size (in place), larger (a new block, Replace).
  for (int i = 0; i < 2000; i += 3) {
    Put(0, "key:" + std::to_string(i), i % 2 ? "w" : std::string(500, 'x'));
  }
  Check(0);
  for (int i = 0; i < 2000; i += 2) {
    ASSERT_TRUE(Del(0, "key:" + std::to_string(i)));
  }
  Check(0);
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("key:0")), 0u);
}

TEST_P(SlotKeys, TtlAndGrowReallocateBlocks) {
  Database view(&ks_, 0, 0);
  for (int i = 0; i < 500; i++) {
    std::string k = "t" + std::to_string(i);
    KeyRef r = view.Lookup(k);
    view.SetString(r, k, "abc", false);
    view.SetTtl(r, 1'000'000 + i);  // re-allocates with an expire block
    if (i % 2 == 0) {
      Entry* e = Entry::GrowString(r.entry(), 4000);  // realloc: the old block is gone
      view.Relocated(r, e);
    }
  }
  Check(0);
  // Deleting a relocated key finds it in the slot index by its new block.
  for (int i = 0; i < 500; i += 4) {
    ASSERT_TRUE(Del(0, "t" + std::to_string(i)));
  }
  Check(0);
}

TEST_P(SlotKeys, RenameAndMoveBetweenDatabases) {
  for (int i = 0; i < 300; i++) {
    Put(0, "r" + std::to_string(i));
  }
  Database db0(&ks_, 0, 0);
  Database db1(&ks_, 1, 0);
  for (int i = 0; i < 300; i += 2) {
    // RENAME: detach, re-key, insert under the new name.
    std::string from = "r" + std::to_string(i);
    std::string to = "renamed:" + std::to_string(i);
    KeyRef r = db0.Lookup(from);
    Entry* e = Entry::Rekey(db0.Detach(r), to);
    KeyRef d = db0.Lookup(to);
    db0.Insert(d, e);
  }
  for (int i = 1; i < 300; i += 4) {
    // MOVE: detach from db 0, insert into db 1.
    std::string k = "r" + std::to_string(i);
    KeyRef r = db0.Lookup(k);
    Entry* e = db0.Detach(r);
    KeyRef d = db1.Lookup(k);
    db1.Insert(d, e);
  }
  Check(0);
  Check(1);
}

TEST_P(SlotKeys, FlushAndSwapDb) {
  for (int i = 0; i < 400; i++) {
    Put(0, "a" + std::to_string(i));
    Put(1, "b" + std::to_string(i));
    Put(2, "c" + std::to_string(i));
  }
  ks_.SwapDb(0, 1);
  Check(0);
  Check(1);
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("b3")), 1u);
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("a3")), KeySlot("a3") == KeySlot("b3") ? 1u : 0u);
  ks_.Flush(0, /*async=*/false);
  Check(0);
  ks_.Flush(1, /*async=*/true);
  WaitForLazyFree();
  Check(1);
  Check(2);
  ks_.Flush(-1, false);
  for (int d = 0; d < 3; d++) {
    Check(d);
  }
  // Keys added after a flush are counted and indexed afresh.
  for (int i = 0; i < 100; i++) {
    Put(0, "n" + std::to_string(i));
  }
  Check(0);
}

TEST_P(SlotKeys, LazyAndActiveExpiry) {
  Database view(&ks_, 0, 0);
  for (int i = 0; i < 1000; i++) {
    std::string k = "e" + std::to_string(i);
    KeyRef r = view.Lookup(k);
    view.SetString(r, k, "v", false);
    if (i % 2 == 0) {
      view.SetTtl(r, 100);
    }
  }
  // Expired keys not yet removed still count, as in Redis.
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("e0")), 1u);
  Database later(&ks_, 0, 200);
  EXPECT_EQ(later.Find("e0"), nullptr);  // lazy
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("e0")), KeySlot("e0") == KeySlot("e1") ? 1u : 0u);
  size_t cursor = 0;
  for (int round = 0; round < 100 && ks_.DbSize(0) > 500; round++) {
    ks_.ExpireCycle(0, 1, &cursor, 200, 1'000'000);
  }
  EXPECT_EQ(ks_.DbSize(0), 500u);
  Check(0);
}

TEST_P(SlotKeys, Eviction) {
  for (int i = 0; i < 500; i++) {
    Put(0, "ev" + std::to_string(i));
  }
  EvictionPool pool;
  Rng rng(3);
  EvictionParams p;
  p.policy = EvictionPolicy::kAllkeysRandom;
  for (int i = 0; i < 200; i++) {
    ASSERT_TRUE(EvictOneKey(ks_, p, pool, rng));
  }
  EXPECT_EQ(ks_.DbSize(0), 300u);
  Check(0);
}

TEST_P(SlotKeys, IterationHonoursCountAndReturnsEachKeyOnce) {
  const uint32_t slot = KeySlot("{tag}");
  for (int i = 0; i < 100; i++) {
    Put(0, "{tag}:" + std::to_string(i));
    Put(0, "other" + std::to_string(i));  // other slots, many in the same shards
  }
  EXPECT_EQ(ks_.CountKeysInSlot(0, slot), 100u);
  std::vector<std::string> got;
  ks_.GetKeysInSlot(slot, 10, &got);
  EXPECT_EQ(got.size(), 10u);
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), 10u);
  for (const auto& k : got) {
    EXPECT_EQ(KeySlot(k), slot);
  }
  got.clear();
  ks_.GetKeysInSlot(slot, 0, &got);
  EXPECT_TRUE(got.empty());
  ks_.GetKeysInSlot(slot, 1000, &got);
  EXPECT_EQ(got.size(), 100u);
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), 100u);
  // Draining a slot the way a reshard does: take 7, delete them, repeat.
  size_t rounds = 0;
  for (;;) {
    std::vector<std::string> batch;
    ks_.GetKeysInSlot(slot, 7, &batch);
    if (batch.empty()) {
      break;
    }
    for (const auto& k : batch) {
      ASSERT_TRUE(Del(0, k));
    }
    ASSERT_LT(++rounds, 100u);
  }
  EXPECT_EQ(rounds, 15u);
  EXPECT_EQ(ks_.CountKeysInSlot(0, slot), 0u);
  Check(0);
}

TEST_P(SlotKeys, OneLargeSlot) {
  // More keys in one slot than the slot table's tag bits cover (its resizes then rehash).
  const int n = GetParam() ? 100000 : 3000;
  for (int i = 0; i < n; i++) {
    Put(0, "{big}" + std::to_string(i));
  }
  for (int i = 0; i < n; i += 3) {
    ASSERT_TRUE(Del(0, "{big}" + std::to_string(i)));
  }
  const size_t left = n - (n + 2) / 3;
  EXPECT_EQ(ks_.CountKeysInSlot(0, KeySlot("big")), left);
  std::vector<std::string> got;
  ks_.GetKeysInSlot(KeySlot("big"), n, &got);
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), left);
}

// The slot index is built by a slot's first iteration, kept by the changes after it,
// and dropped when the slot empties; slots nobody iterates are never indexed.
TEST_P(SlotKeys, IndexBuiltOnFirstIterationKeptDroppedWhenEmpty) {
  const uint32_t slot = KeySlot("{lazy}");
  const uint32_t shard = Keyspace::ShardOfSlot(slot);
  const uint16_t bit = static_cast<uint16_t>(1u << (slot & (kSlotsPerShard - 1)));
  const DbTable& t = ks_.shard(shard).db(0);
  // Keys of the slot and of the shard's other slots (found by name).
  std::vector<std::string> others;
  for (int i = 0; others.size() < 50 && i < 2'000'000; i++) {
    std::string k = "o" + std::to_string(i);
    if (Keyspace::ShardOf(k) == shard && KeySlot(k) != slot) {
      others.push_back(k);
    }
  }
  ASSERT_EQ(others.size(), 50u);
  for (int i = 0; i < 40; i++) {
    Put(0, "{lazy}" + std::to_string(i));
  }
  for (const auto& k : others) {
    Put(0, k);
  }
  EXPECT_EQ(t.slot_indexed, 0);  // nothing iterated yet
  std::vector<std::string> got;
  ks_.GetKeysInSlot(slot, 5, &got);
  EXPECT_EQ(got.size(), 5u);
  EXPECT_EQ(t.slot_indexed, GetParam() ? bit : 0);
  // Changes after the build: new keys, deletes, overwrites with a larger block, a TTL
  // (re-allocation), a realloc, in the slot and next to it.
  Database view(&ks_, 0, 0);
  for (int i = 40; i < 80; i++) {
    Put(0, "{lazy}" + std::to_string(i));
  }
  for (int i = 0; i < 80; i += 3) {
    ASSERT_TRUE(Del(0, "{lazy}" + std::to_string(i)));
  }
  for (int i = 1; i < 80; i += 3) {
    Put(0, "{lazy}" + std::to_string(i), std::string(300, 'y'));
  }
  for (int i = 2; i < 80; i += 6) {
    std::string k = "{lazy}" + std::to_string(i);
    KeyRef r = view.Lookup(k);
    ASSERT_TRUE(r);
    view.SetTtl(r, 1'000'000);
    Entry* e = Entry::GrowString(r.entry(), 3000);
    view.Relocated(r, e);
  }
  for (size_t i = 0; i < others.size(); i += 2) {
    ASSERT_TRUE(Del(0, others[i]));
  }
  EXPECT_EQ(t.slot_indexed, GetParam() ? bit : 0);  // the other slots stay unindexed
  got.clear();
  ks_.GetKeysInSlot(slot, 1000, &got);
  std::set<std::string> want;
  for (int i = 0; i < 80; i++) {
    if (i % 3 != 0) {
      want.insert("{lazy}" + std::to_string(i));
    }
  }
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want);
  EXPECT_EQ(got.size(), want.size());
  // Emptying the slot drops its set; filling it again and iterating builds it afresh.
  for (const auto& k : want) {
    ASSERT_TRUE(Del(0, k));
  }
  EXPECT_EQ(t.slot_indexed, 0);
  got.clear();
  ks_.GetKeysInSlot(slot, 10, &got);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(t.slot_indexed, 0);  // an empty slot builds nothing
  Put(0, "{lazy}again");
  got.clear();
  ks_.GetKeysInSlot(slot, 10, &got);
  EXPECT_EQ(got, std::vector<std::string>{"{lazy}again"});
  EXPECT_EQ(t.slot_indexed, GetParam() ? bit : 0);
  Check(0);
}

INSTANTIATE_TEST_SUITE_P(IndexOnOff, SlotKeys, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Index" : "NoIndex"; });

}  // namespace
}  // namespace hotkv

// Database: lookups with lazy expiry, TTL bookkeeping across re-allocation, active expiry.
#include "engine/database.h"

#include <gtest/gtest.h>

#include <string>

namespace hotkv {
namespace {

class Recorder : public KeyObserver {
 public:
  void OnKeyExpired(int db, std::string_view key) override { expired.emplace_back(key); }
  void OnKeyCreated(int, std::string_view, ValueType) override {}
  std::vector<std::string> expired;
};

// Sets keys prefix0 .. prefix<n-1> to `value`; the even-numbered ones expire at expire_ms.
void SetKeysHalfWithTtl(Database& db, const std::string& prefix, int n, std::string_view value,
                        int64_t expire_ms) {
  for (int i = 0; i < n; i++) {
    std::string k = prefix + std::to_string(i);
    KeyRef r = db.Lookup(k);
    db.SetString(r, k, value, false);
    if (i % 2 == 0) {
      db.SetTtl(r, expire_ms);
    }
  }
}

TEST(Database, LazyExpiryAndListener) {
  Keyspace ks(2);
  Recorder rec;
  ks.AddObserver(&rec);
  Database db(&ks, 0, 1000);
  KeyRef r = db.Lookup("k");
  ASSERT_FALSE(r);
  db.SetString(r, "k", "v", false);
  db.SetTtl(r, 1500);
  EXPECT_TRUE(r.entry()->has_ttl());
  EXPECT_EQ(ks.shard(r.shard).db(0).expires(), 1u);
  Database later(&ks, 0, 1500);
  EXPECT_EQ(later.Find("k"), nullptr);
  EXPECT_EQ(rec.expired, std::vector<std::string>{"k"});
  EXPECT_EQ(ks.DbSize(0), 0u);
  EXPECT_EQ(ks.expired_keys(), 1u);
}

// Several observers each see every event, in registration order; a removed one no more.
class EventLog : public KeyObserver {
 public:
  EventLog(std::vector<std::string>* log, std::string name, bool atomic = false)
      : log_(log), name_(std::move(name)), atomic_(atomic) {}
  void OnKeyExpired(int db, std::string_view key) override { Add("expired", db, key); }
  void OnKeyCreated(int db, std::string_view key, ValueType) override { Add("created", db, key); }
  void OnFlush(int db) override { Add("flush", db, ""); }
  void OnSwapDb(int a, int b) override { Add("swapdb", a, std::to_string(b)); }
  bool AtomicFlushWanted() const override { return atomic_; }

 private:
  void Add(const char* what, int db, std::string_view key) {
    log_->push_back(name_ + ":" + what + ":" + std::to_string(db) + ":" + std::string(key));
  }
  std::vector<std::string>* log_;
  std::string name_;
  bool atomic_;
};

TEST(Database, SeveralObservers) {
  Keyspace ks(2);
  std::vector<std::string> log;
  EventLog a(&log, "a"), b(&log, "b", true);
  ks.AddObserver(&a);
  ks.AddObserver(&b);
  EXPECT_TRUE(ks.AtomicFlushWanted());
  Database db(&ks, 1, 1000);
  KeyRef r = db.Lookup("k");
  db.SetString(r, "k", "v", false);
  db.SetTtl(r, 1500);
  Database later(&ks, 1, 2000);
  EXPECT_EQ(later.Find("k"), nullptr);
  ks.SwapDb(0, 1);
  ks.Flush(1, false);
  ks.RemoveObserver(&b);
  EXPECT_FALSE(ks.AtomicFlushWanted());
  ks.Flush(-1, false);
  EXPECT_EQ(log, (std::vector<std::string>{"a:created:1:k", "b:created:1:k", "a:expired:1:k",
                                           "b:expired:1:k", "a:swapdb:0:1", "b:swapdb:0:1",
                                           "a:flush:1:", "b:flush:1:", "a:flush:-1:"}));
}

TEST(Database, TtlSurvivesReplaceAndClear) {
  Keyspace ks(1);
  Database db(&ks, 0, 0);
  KeyRef r = db.Lookup("k");
  db.SetString(r, "k", "short", false);
  db.SetTtl(r, 5000);
  // A bigger value needs a new block; the TTL and the volatile index follow it.
  db.SetString(r, "k", std::string(1000, 'x'), true);
  ASSERT_TRUE(r.entry()->has_ttl());
  EXPECT_EQ(r.entry()->expire_ms(), 5000);
  DbTable& t = ks.shard(r.shard).db(0);
  ASSERT_EQ(t.expires(), 1u);
  EXPECT_EQ(t.volatile_keys[0], r.entry());
  EXPECT_TRUE(db.ClearTtl(r));
  EXPECT_EQ(t.expires(), 0u);
  db.SetString(r, "k", "v", false);
  EXPECT_FALSE(r.entry()->has_ttl());
}

TEST(Database, GrownStringBlockKeepsTtlAndTableSlot) {
  // APPEND/SETRANGE grow the block with realloc; the old pointer must not be read after
  // (AddressSanitizer caught Replace doing so), and the table and the volatile index
  // must point at the moved block.
  Keyspace ks(1);
  Database db(&ks, 0, 0);
  for (bool with_ttl : {false, true}) {
    const std::string key = with_ttl ? "volatile" : "plain";
    KeyRef r = db.Lookup(key);
    db.SetString(r, key, "abc", false);
    if (with_ttl) {
      db.SetTtl(r, 9000);
    }
    for (int i = 0; i < 12; ++i) {
      Entry* grown = Entry::GrowString(r.entry(), r.entry()->str_capacity() * 2 + 64);
      db.Relocated(r, grown);
      ASSERT_EQ(r.entry(), grown);
    }
    Entry* e = db.Find(key);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->str(), "abc");
    EXPECT_EQ(e->has_ttl(), with_ttl);
    if (with_ttl) {
      DbTable& t = ks.shard(r.shard).db(0);
      ASSERT_EQ(t.expires(), 1u);
      EXPECT_EQ(t.volatile_keys[e->volatile_index()], e);
      EXPECT_EQ(e->expire_ms(), 9000);
    }
  }
}

TEST(Database, ActiveExpiryRemovesUnreadKeys) {
  Keyspace ks(1);
  Recorder rec;
  ks.AddObserver(&rec);
  Database db(&ks, 0, 0);
  SetKeysHalfWithTtl(db, "key:", 5000, "v", 10);
  size_t cursor = 0;
  size_t total = 0;
  for (int round = 0; round < 100 && total < 2500; round++) {
    total += ks.ExpireCycle(0, 1, &cursor, 100, 1000000);
  }
  EXPECT_EQ(total, 2500u);
  EXPECT_EQ(ks.DbSize(0), 2500u);
  EXPECT_EQ(rec.expired.size(), 2500u);
}

TEST(Database, ActiveExpiryFindsFewDueKeysAmongManyWithTtl) {
  // 20,000 keys with a TTL far ahead and 100 due: each pass stops early (under 10 % of
  // its checks due) but resumes where it stopped, so the due keys still go.
  Keyspace ks(1);
  Database db(&ks, 0, 0);
  for (int i = 0; i < 20000; i++) {
    std::string k = "far:" + std::to_string(i);
    KeyRef r = db.Lookup(k);
    db.SetString(r, k, "v", false);
    db.SetTtl(r, 1'000'000'000);
  }
  for (int i = 0; i < 100; i++) {
    std::string k = "due:" + std::to_string(i);
    KeyRef r = db.Lookup(k);
    db.SetString(r, k, "v", false);
    db.SetTtl(r, 10);
  }
  size_t cursor = 0;
  size_t total = 0;
  int rounds = 0;
  for (; rounds < 1000 && total < 100; rounds++) {
    total += ks.ExpireCycle(0, 1, &cursor, 100, 1000000);
  }
  EXPECT_EQ(total, 100u);
  EXPECT_GT(rounds, 1);  // not all in one pass: the pass stopped at low yield
  EXPECT_EQ(ks.DbSize(0), 20000u);
}

TEST(Database, RenameKeepsTtl) {
  Keyspace ks(1);
  Database db(&ks, 0, 0);
  KeyRef r = db.Lookup("a");
  db.SetString(r, "a", "v", false);
  db.SetTtl(r, 777);
  Entry* e = Entry::Rekey(db.Detach(r), "b{other}");
  KeyRef to = db.Lookup("b{other}");
  db.Insert(to, e);
  Entry* got = db.Find("b{other}");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->expire_ms(), 777);
  EXPECT_EQ(db.Find("a"), nullptr);
  EXPECT_EQ(ks.shard(to.shard).db(0).expires(), 1u);
}

TEST(Database, SwapDbMovesKeysBetweenInlineAndOtherDatabases) {
  // Database 0 lives inside the shard, the others in a separate array: SWAPDB must move
  // keys, TTLs and the volatile lists across that boundary in both directions.
  Keyspace ks(4);
  Database d0(&ks, 0, 0);
  Database d3(&ks, 3, 0);
  SetKeysHalfWithTtl(d0, "zero:", 200, "v0", 100000);
  KeyRef r3 = d3.Lookup("three");
  d3.SetString(r3, "three", "v3", false);
  ks.SwapDb(0, 3);
  EXPECT_EQ(ks.DbSize(0), 1u);
  EXPECT_EQ(ks.DbSize(3), 200u);
  EXPECT_NE(d0.Find("three"), nullptr);
  EXPECT_EQ(d0.Find("zero:7"), nullptr);
  Entry* e = d3.Find("zero:8");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->has_ttl());
  EXPECT_EQ(ks.Stats(3, 0).expires, 100u);
  EXPECT_EQ(ks.Stats(0, 0).expires, 0u);
  ks.SwapDb(3, 0);
  EXPECT_EQ(ks.DbSize(0), 200u);
  EXPECT_NE(d0.Find("zero:199"), nullptr);
  EXPECT_EQ(ks.Stats(0, 0).expires, 100u);
}

}  // namespace
}  // namespace hotkv

namespace hotkv {
namespace {

// INFO keysizes: the histogram follows keys in and out of the table and UpdateKeySize
// re-bins a changed one, through the remembered last lookup or a fresh lookup alike.
uint64_t Count(Keyspace& ks, int db, ValueType t, int bin) {
  std::vector<uint64_t> sums = ks.KeySizes();
  constexpr int kBins = KeySizeHistogram::kBins;
  return sums[(static_cast<size_t>(db) * KeySizeHistogram::kTypes + static_cast<size_t>(t)) * kBins + bin];
}

TEST(Database, KeySizesFollowInsertReplaceDetach) {
  Keyspace ks(2);
  Database db(&ks, 0, 0);
  std::string key = "k";
  KeyRef r = db.Lookup(key);
  db.SetString(r, key, "abc", false);
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 2), 1u);  // 3 bytes: bin "2"
  // Grown in place (as APPEND does), then told.
  Entry* e = Entry::GrowString(r.entry(), 100);
  db.Relocated(r, e);
  memset(e->str_data() + 3, 'x', 97);
  e->set_str_size(100);
  db.UpdateKeySize(key);  // the remembered entry
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 2), 0u);
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 7), 1u);  // 64..127
  // A first TTL re-allocates the block: still counted once.
  db.SetTtl(r, 1000000);
  e = r.entry();
  e->set_str_size(1);
  db.UpdateKeySize(std::string("k"));  // another argument: a fresh lookup
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 7), 0u);
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 1), 1u);
  db.SetString(r, key, std::string(5000, 'y'), true);  // a new, bigger block
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 1), 0u);
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 13), 1u);  // 4K..8K
  Entry::Free(db.Detach(r));
  EXPECT_EQ(Count(ks, 0, ValueType::kString, 13), 0u);
  db.UpdateKeySize(key);  // the key is gone: nothing to do (and no stale entry used)
  std::vector<uint64_t> sums = ks.KeySizes();
  for (uint64_t v : sums) {
    EXPECT_EQ(v, 0u);
  }
}

// What a Database view remembers of its last lookup is trusted only while
// t_table_epoch is unchanged: every change that can free or move an entry must bump it.
TEST(Database, EveryEntryChangeBumpsTheTableEpoch) {
  Keyspace ks(2);
  Database db(&ks, 0, 0);
  auto bumps = [](auto&& change) {
    uint64_t before = t_table_epoch;
    change();
    return t_table_epoch != before;
  };
  KeyRef r = db.Lookup("k");
  EXPECT_TRUE(bumps([&] { db.Insert(r, Entry::NewString("k", "v", false)); }));
  EXPECT_TRUE(bumps([&] { Entry::Free(db.Replace(r, Entry::NewString("k", "vv", false))); }));
  EXPECT_TRUE(bumps([&] { db.Relocated(r, Entry::GrowString(r.entry(), 200)); }));
  EXPECT_TRUE(bumps([&] { db.SetTtl(r, 100); }));  // adds the expire block: a new block
  EXPECT_TRUE(bumps([&] { db.SetString(r, "k", std::string(3000, 'z'), true); }));
  EXPECT_TRUE(bumps([&] { Entry::Free(db.Detach(r)); }));
  r = db.Lookup("k2");
  db.Insert(r, Entry::NewString("k2", "v", false));
  EXPECT_TRUE(bumps([&] { db.Erase(r); }));
  EXPECT_TRUE(bumps([&] { ks.Flush(-1, false); }));
  EXPECT_TRUE(bumps([&] { ks.SwapDb(0, 1); }));
}

}  // namespace
}  // namespace hotkv

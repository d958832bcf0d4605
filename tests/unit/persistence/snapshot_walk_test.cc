// SnapshotWalk (bgsave-mode walk): a walk started at a barrier, its walkers held back,
// then writes to shards not yet saved (SET over existing keys, DEL, RENAME across
// shards, EXEC, active expiry, a blocking pop served, SWAPDB, FLUSHALL, FLUSHDB ASYNC):
// the file written holds exactly the keyspace as it was at the barrier (compared with a
// sequential save made at the barrier), however many shards the writes saved first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../commands/in_process.h"
#include "persistence/snapshot_walk.h"
#include "persistence/snapshot_writer.h"
#include "rdb/rdb.h"
#include "server/blocking.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace hotkv::persistence {
namespace {

using Image = std::map<std::pair<int, std::string>, std::pair<std::string, int64_t>>;

// Every key of a file (expired or not): (db, key) -> (DUMP payload, expiry).
Image ReadImage(const std::string& path) {
  Image img;
  rdb::LoadOptions o;
  Result<rdb::LoadStats> r = rdb::LoadFile(path, o, [&](rdb::LoadedKey&& k) {
    std::string key(k.entry->key());
    auto [it, fresh] =
        img.emplace(std::make_pair(k.db, key), std::make_pair(rdb::DumpPayload(*k.entry, false),
                                                              k.expire_ms));
    Entry::Free(k.entry);
    return fresh ? Status::Ok() : Status::InvalidArgument("duplicate key " + key);
  });
  EXPECT_TRUE(r.ok()) << r.status().message();
  return img;
}

class SnapshotWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hotkv-walk-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    std::filesystem::remove_all(dir_);
  }

  void Populate() {
    LocalClient& c = s_.NewClient();
    for (int i = 0; i < 400; i++) {
      ASSERT_EQ(s_.Run(c, {"SET", "k" + std::to_string(i), "v" + std::to_string(i)}), "+OK\r\n");
    }
    for (int i = 0; i < 50; i++) {
      s_.Run(c, {"RPUSH", "list" + std::to_string(i), "a", "b", "c"});
      s_.Run(c, {"HSET", "h" + std::to_string(i), "f", "x", "g", "y"});
      s_.Run(c, {"SET", "ttl" + std::to_string(i), "t", "PX", "100000"});
    }
    s_.Run(c, {"SELECT", "3"});
    for (int i = 0; i < 100; i++) {
      s_.Run(c, {"SET", "d3-" + std::to_string(i), std::string(100, 'x')});
    }
  }

  // The barrier: a sequential save of the keyspace as it is (expected.rdb) and a walk
  // started, its walkers paused.
  std::unique_ptr<SnapshotWalk> StartWalk(
      int64_t key_delay_us = 0, const std::function<void(SnapshotWalk::Options&)>& tweak = {}) {
    Keyspace& ks = s_.server().keyspace();
    ks.LockAll();
    const int64_t now = WallClockMs();
    Result<WriteStats> w = WriteSnapshotFile(ks, "expected.rdb", {}, now);
    EXPECT_TRUE(w.ok()) << w.status().message();
    SnapshotWalk::Options o;
    o.dest = "walk.rdb";
    o.now_ms = now;
    o.threads = 2;
    o.paused = true;
    o.access.key_delay_us = key_delay_us;
    if (tweak) {
      tweak(o);
    }
    Result<std::unique_ptr<SnapshotWalk>> r = SnapshotWalk::Start(ks, o);
    ks.UnlockAll();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(*r) : nullptr;
  }

  // `expired_by_ms`: keys whose TTL passed by then are left out of both images (the
  // active expiry cycle drops such keys without saving them first: loading would).
  void FinishAndCompare(std::unique_ptr<SnapshotWalk> walk, int64_t expired_by_ms = 0) {
    ASSERT_NE(walk, nullptr);
    walk->Resume();
    walk->Join();
    ASSERT_TRUE(walk->finished());
    Result<WriteStats> r = walk->result();
    ASSERT_TRUE(r.ok()) << r.status().message();
    // Every shard lock is free and no hook can run once the epoch is over.
    EXPECT_EQ(g_snapshot_epoch.load(), 0u);
    walk.reset();
    Image expected = ReadImage("expected.rdb");
    Image got = ReadImage("walk.rdb");
    EXPECT_EQ(r->keys, got.size());  // each key written once
    for (Image* img : {&expected, &got}) {
      std::erase_if(*img, [&](const auto& kv) {
        return kv.second.second >= 0 && kv.second.second <= expired_by_ms;
      });
    }
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
  }

  testing::InProcessServer s_;
  std::filesystem::path dir_, old_cwd_;
};

TEST_F(SnapshotWalkTest, KeyWritesAfterTheBarrierAreNotInTheFile) {
  Populate();
  LocalClient& c = s_.NewClient();
  LocalClient& blocked = s_.NewClient();
  EXPECT_EQ(s_.Run(blocked, {"BLPOP", "newlist", "0"}), "");  // blocks: the key is missing
  auto walk = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SET", "k1", "changed"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"DEL", "k2", "k3", "list1"}), ":3\r\n");
  EXPECT_EQ(s_.Run(c, {"RENAME", "k4", "k5"}), "+OK\r\n");  // two shards
  EXPECT_EQ(s_.Run(c, {"MULTI"}), "+OK\r\n");
  s_.Run(c, {"INCR", "k100"});
  s_.Run(c, {"LPUSH", "list2", "z"});
  s_.Run(c, {"HDEL", "h3", "f"});
  s_.Run(c, {"SET", "brand-new", "x"});
  EXPECT_NE(s_.Run(c, {"EXEC"}), "");
  EXPECT_EQ(s_.Run(c, {"RPUSH", "newlist", "served"}), ":1\r\n");  // BLPOP served
  s_.RunPendingWork();
  EXPECT_NE(blocked.TakeOutput().find("served"), std::string::npos);
  // Active expiry, as if 200 s had passed: deletes every ttl* key.
  size_t cursor = 0;
  const int64_t later = WallClockMs() + 200000;
  EXPECT_EQ(s_.server().keyspace().ExpireCycle(0, 1, &cursor, later, 1000000), 50u);
  EXPECT_EQ(s_.Run(c, {"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"SET", "d3-1", "new"}), "+OK\r\n");
  FinishAndCompare(std::move(walk), later);
}

TEST_F(SnapshotWalkTest, SwapDbAfterTheBarrier) {
  Populate();
  LocalClient& c = s_.NewClient();
  auto walk = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SWAPDB", "0", "3"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"SET", "k7", "after-swap"}), "+OK\r\n");
  FinishAndCompare(std::move(walk));
}

TEST_F(SnapshotWalkTest, FlushAllAfterTheBarrier) {
  Populate();
  LocalClient& c = s_.NewClient();
  auto walk = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SET", "k8", "before-flush"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"FLUSHALL", "ASYNC"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"SET", "k9", "after-flush"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"DBSIZE"}), ":1\r\n");
  FinishAndCompare(std::move(walk));
}

TEST_F(SnapshotWalkTest, FlushDbAsyncAfterTheBarrier) {
  Populate();
  LocalClient& c = s_.NewClient();
  auto walk = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"FLUSHDB", "ASYNC"}), "+OK\r\n");
  FinishAndCompare(std::move(walk));
}

TEST_F(SnapshotWalkTest, NoWritesGivesTheSameImage) {
  Populate();
  FinishAndCompare(StartWalk());
}

TEST_F(SnapshotWalkTest, LocksHeldWalkWritesEverything) {
  Populate();
  Keyspace& ks = s_.server().keyspace();
  ks.LockAll();
  const int64_t now = WallClockMs();
  ASSERT_TRUE(WriteSnapshotFile(ks, "expected.rdb", {}, now).ok());
  SnapshotWalk::Options o;
  o.dest = "walk.rdb";
  o.now_ms = now;
  o.locks_held = true;
  auto r = SnapshotWalk::Start(ks, o);
  ASSERT_TRUE(r.ok());
  (*r)->Join();
  ks.UnlockAll();
  EXPECT_EQ(g_snapshot_epoch.load(), 0u);
  ASSERT_TRUE((*r)->result().ok());
  EXPECT_TRUE(ReadImage("walk.rdb") == ReadImage("expected.rdb"));
}

TEST_F(SnapshotWalkTest, CancelledWalkNeverReplacesTheFile) {
  Populate();
  auto walk = StartWalk();
  walk->Cancel();
  walk->Resume();
  walk->Join();
  EXPECT_FALSE(walk->result().ok());
  EXPECT_FALSE(std::filesystem::exists("walk.rdb"));
  for (const auto& f : std::filesystem::directory_iterator(".")) {
    EXPECT_EQ(f.path().filename().string().rfind("temp-", 0), std::string::npos) << f.path();
  }
  EXPECT_EQ(g_snapshot_epoch.load(), 0u);
}

// Shards of many keys (hash tags) are walked in chunks while the writes run: the walkers
// release the lock between chunks, and a write saves just its keys (SET, DEL, RENAME,
// HSET, MSET) or, in EXEC, what is left of the shard.
TEST_F(SnapshotWalkTest, WritesBetweenChunksOfAShard) {
  LocalClient& c = s_.NewClient();
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < 600; i++) {  // ~10 chunks per shard
      s_.Run(c, {"SET", "{t" + std::to_string(t) + "}k" + std::to_string(i), std::string(40, 'v')});
    }
    s_.Run(c, {"HSET", "{t" + std::to_string(t) + "}h", "f", "1"});
  }
  auto walk = StartWalk(/*key_delay_us=*/200);  // ~13 ms per chunk: writes land in between
  walk->Resume();
  for (int round = 0; round < 2000 && !walk->finished(); round++) {  // bounded
    const std::string t = "{t" + std::to_string(round % 4) + "}";
    const std::string i = std::to_string((round * 37) % 600);
    const std::string j = std::to_string((round * 91 + 7) % 600);
    switch (round % 6) {
      case 0:
        s_.Run(c, {"SET", t + "k" + i, "new-" + std::to_string(round)});
        break;
      case 1:
        s_.Run(c, {"DEL", t + "k" + i});
        break;
      case 2:
        s_.Run(c, {"RENAME", t + "k" + i, t + "k" + j});
        break;
      case 3:
        s_.Run(c, {"HSET", t + "h", "f" + i, "x"});
        break;
      case 4:
        s_.Run(c, {"MSET", t + "k" + i, "m", t + "n" + j, "created"});
        break;
      default:
        s_.Run(c, {"MULTI"});
        s_.Run(c, {"SET", t + "k" + j, "in-exec"});
        s_.Run(c, {"EXEC"});
        break;
    }
    usleep(500);
  }
  FinishAndCompare(std::move(walk));
}

// Keys a write saves first (SaveKeys) wait in their shard's own buffer until the walker
// takes them with its next chunk of that shard, or a write without a key hint (EXEC:
// SaveShard) takes them with the shard's rest: runs of two databases in one shard's
// buffer (each opened by its SELECTDB), and a buffer taken by SaveShard. The hooks are
// called as the shard lock calls them (shard locked; SaveKeys with a command's hint).
TEST_F(SnapshotWalkTest, KeysSavedByWritesReachTheFileThroughTheShardBuffer) {
  LocalClient& c = s_.NewClient();
  for (int i = 0; i < 20; i++) {
    s_.Run(c, {"SET", "{a}k" + std::to_string(i), "db0-" + std::to_string(i)});
    s_.Run(c, {"SET", "{b}k" + std::to_string(i), "db0-" + std::to_string(i)});
  }
  s_.Run(c, {"SELECT", "3"});
  for (int i = 0; i < 20; i++) {
    s_.Run(c, {"SET", "{a}k" + std::to_string(i), "db3-" + std::to_string(i)});
  }
  auto walk = StartWalk();  // walkers paused: every shard is still to be walked
  Keyspace& ks = s_.server().keyspace();
  auto save_keys = [&](int db, std::vector<std::string_view> keys) {
    Shard& shard = ks.shard(Keyspace::ShardOf(keys[0]));
    shard.lock.lock_read();  // no hook of its own
    walk->SaveKeys(shard, g_snapshot_epoch.load(), SnapshotKeyHint{db, keys.data(), keys.size()});
    shard.lock.unlock();
  };
  // Shard {a}: db 3, db 0, db 3 again (three SELECTDB runs in one buffer), then a key
  // saved twice (once).
  save_keys(3, {"{a}k1", "{a}k4"});
  save_keys(0, {"{a}k2", "{a}k3"});
  save_keys(3, {"{a}k9", "{a}k1"});
  // Shard {b}: one key, left for the walker.
  save_keys(0, {"{b}k5"});
  EXPECT_EQ(walk->stats().hook_keys, 0u);  // in the shards' buffers, not taken yet
  // A write to {a} without a hint (EXEC, a script): SaveShard saves the rest of the
  // shard and takes the buffer's five keys. Then the shard is saved: no hook.
  Shard& a = ks.shard(Keyspace::ShardOf("{a}k1"));
  a.lock.lock_read();
  walk->SaveShard(a, g_snapshot_epoch.load());
  a.lock.unlock();
  EXPECT_EQ(walk->stats().hook_keys, 5u);
  EXPECT_EQ(walk->stats().hook_shards, 1u);
  EXPECT_EQ(s_.Run(c, {"SET", "{a}k1", "changed"}), "+OK\r\n");
  EXPECT_EQ(walk->stats().hook_shards, 1u);
  walk->Resume();
  walk->Join();
  const SnapshotWalk::Stats st = walk->stats();
  EXPECT_EQ(st.hook_keys, 6u);  // {b}k5, taken by the walker
  EXPECT_EQ(st.hook_shards, 1u);
  EXPECT_GT(st.chunks, 0u);
  EXPECT_GE(st.hold_max_us, st.hold_p50_us / 2);  // p50 is a bucket's upper bound
  FinishAndCompare(std::move(walk));
}

// bgsave-walk-yield-us: the walk's threads yield their core between chunks (no lock
// held); the image is the same. With 0 they never do.
TEST_F(SnapshotWalkTest, YieldingWalkersWriteTheSameImage) {
  Populate();
  auto walk = StartWalk(0, [](SnapshotWalk::Options& o) { o.yield_us = 1; });
  LocalClient& c = s_.NewClient();
  EXPECT_EQ(s_.Run(c, {"SET", "k1", "changed"}), "+OK\r\n");
  walk->Resume();
  walk->Join();
  EXPECT_GT(walk->stats().yields, 0u);
  FinishAndCompare(std::move(walk));
  auto still = StartWalk();  // yield_us 0
  still->Resume();
  still->Join();
  EXPECT_EQ(still->stats().yields, 0u);
  FinishAndCompare(std::move(still));
}

// Each walk flips the keys' saved mark: a second walk (and one after a cancelled walk,
// which still marks every key before it ends) sees every key as not saved again.
TEST_F(SnapshotWalkTest, WalkAfterWalkAndAfterCancel) {
  Populate();
  LocalClient& c = s_.NewClient();
  auto first = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SET", "k1", "one"}), "+OK\r\n");
  FinishAndCompare(std::move(first));
  auto cancelled = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SET", "k2", "two"}), "+OK\r\n");
  cancelled->Cancel();
  cancelled->Resume();
  cancelled->Join();
  cancelled.reset();
  auto second = StartWalk();
  EXPECT_EQ(s_.Run(c, {"SET", "k3", "three"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"DEL", "k5"}), ":1\r\n");
  FinishAndCompare(std::move(second));
}

// --- Large keys saved in slices --------------------------------------------------------------

// Every key of a file as sorted text: (db, key) -> (type, elements, expiry). Hashes and
// sets are written in table order, which need not match between two files.
using Canon = std::map<std::pair<int, std::string>,
                       std::tuple<int, std::vector<std::string>, int64_t>>;
Canon ReadCanon(const std::string& path) {
  Canon out;
  rdb::LoadOptions o;
  Result<rdb::LoadStats> r = rdb::LoadFile(path, o, [&](rdb::LoadedKey&& k) {
    std::vector<std::string> v;
    const Entry& e = *k.entry;
    bool sort = true;
    switch (e.type()) {
      case ValueType::kString: v.emplace_back(e.str()); break;
      case ValueType::kList:
        sort = false;
        e.As<types::ListValue>()->ForEach([&](std::string_view x) { v.emplace_back(x); return true; });
        break;
      case ValueType::kSet:
        e.As<types::SetValue>()->ForEach([&](std::string_view x) { v.emplace_back(x); return true; });
        break;
      case ValueType::kZSet:
        sort = false;
        e.As<types::ZSetValue>()->ForEach([&](std::string_view m, double sc) {
          v.push_back(std::string(m) + "=" + std::to_string(sc));
        });
        break;
      case ValueType::kHash:
        e.As<types::HashValue>()->ForEach([&](std::string_view f, std::string_view x) {
          v.push_back(std::string(f) + "=" + std::string(x));
          return true;
        });
        break;
      default: v.push_back(rdb::DumpPayload(e, false)); break;
    }
    if (sort) {
      std::sort(v.begin(), v.end());
    }
    const bool fresh = out.emplace(std::make_pair(k.db, std::string(e.key())),
                                   std::make_tuple(static_cast<int>(e.type()), std::move(v),
                                                   k.expire_ms)).second;
    Entry::Free(k.entry);
    return fresh ? Status::Ok() : Status::InvalidArgument("duplicate key");
  });
  EXPECT_TRUE(r.ok()) << r.status().message();
  return out;
}

class LargeKeyWalkTest : public SnapshotWalkTest {
 protected:
  // Writes get a key hint only while no client is blocked anywhere in the process
  // (SnapshotHintFits); a test of this binary may leave the global count raised when its
  // server goes away with a client blocked. None blocks here: count from zero.
  void SetUp() override {
    SnapshotWalkTest::SetUp();
    saved_blocked_ = g_blocked_clients.exchange(0);
  }
  void TearDown() override {
    g_blocked_clients.fetch_add(saved_blocked_);
    SnapshotWalkTest::TearDown();
  }
  int64_t saved_blocked_ = 0;

  // Four large keys and 100 small ones, all in one shard ({t}), plus Populate's keys.
  void PopulateLarge() {
    Populate();
    LocalClient& c = s_.NewClient();
    for (int i = 0; i < 3000; i += 100) {
      std::vector<std::string> h{"HSET", "{t}hash"}, z{"ZADD", "{t}zset"}, l{"RPUSH", "{t}list"},
          st{"SADD", "{t}set"};
      for (int j = i; j < i + 100; j++) {
        const std::string n = std::to_string(j);
        h.insert(h.end(), {"f" + n, "value-" + n});
        z.insert(z.end(), {std::to_string(j % 97), "m" + n});
        l.push_back("e" + n);
        st.push_back("s" + n);
      }
      s_.Run(c, h);
      s_.Run(c, z);
      s_.Run(c, l);
      s_.Run(c, st);
    }
    for (int i = 0; i < 100; i++) {
      s_.Run(c, {"SET", "{t}k" + std::to_string(i), "small"});
    }
  }

  // A walk of one walker, large keys from 1000 elements in slices of 100, which parks in
  // after_chunk the first time a key is open (the shard unlocked) until Release().
  std::unique_ptr<SnapshotWalk> StartParkingWalk() {
    auto walk = StartWalk(0, [&](SnapshotWalk::Options& o) {
      o.threads = 1;
      o.big_key_elements = 1000;
      o.slice_elements = 100;
      o.after_chunk = [&](bool open) {
        std::unique_lock<std::mutex> lk(mu_);
        if (open && stage_ == 0) {
          stage_ = 1;
          cv_.notify_all();
          cv_.wait(lk, [&] { return stage_ == 2; });
        }
      };
    });
    walk->Resume();
    std::unique_lock<std::mutex> lk(mu_);
    EXPECT_TRUE(cv_.wait_for(lk, std::chrono::seconds(30), [&] { return stage_ == 1; }));
    return walk;
  }
  void Release() {
    std::lock_guard<std::mutex> g(mu_);
    stage_ = 2;
    cv_.notify_all();
  }
  void FinishAndCompareCanon(std::unique_ptr<SnapshotWalk> walk) {
    Release();
    walk->Join();
    ASSERT_TRUE(walk->result().ok()) << walk->result().status().message();
    const uint64_t keys = walk->result()->keys;
    walk.reset();
    Canon expected = ReadCanon("expected.rdb");
    Canon got = ReadCanon("walk.rdb");
    EXPECT_EQ(keys, got.size());
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int stage_ = 0;
};

// The shard is unlocked between the slices of a large key: a write to another key of the
// shard meanwhile saves just that key; a write to each large key (one of them the open
// one) saves the rest of that key first. The file is the data at the barrier.
TEST_F(LargeKeyWalkTest, WritesBetweenSlicesOfALargeKey) {
  PopulateLarge();
  LocalClient& c = s_.NewClient();
  auto walk = StartParkingWalk();
  EXPECT_EQ(walk->sliced_keys(), 1u);
  EXPECT_EQ(s_.Run(c, {"SET", "{t}k1", "changed"}), "+OK\r\n");
  EXPECT_EQ(s_.Run(c, {"DEL", "{t}k2"}), ":1\r\n");
  EXPECT_EQ(walk->keys_finished_by_writes(), 0u);  // the open key stays open
  s_.Run(c, {"HSET", "{t}hash", "f1", "changed", "new", "x"});
  s_.Run(c, {"ZADD", "{t}zset", "1000", "m5", "1", "new"});
  s_.Run(c, {"RPUSH", "{t}list", "new"});
  s_.Run(c, {"SREM", "{t}set", "s1", "s2"});
  EXPECT_EQ(walk->keys_finished_by_writes(), 1u);
  FinishAndCompareCanon(std::move(walk));
}

// A write without a key hint (EXEC) saves what is left of the shard, the open key's rest
// first; deleting the large keys afterwards changes nothing in the file.
TEST_F(LargeKeyWalkTest, ExecBetweenSlicesFinishesTheOpenKey) {
  PopulateLarge();
  LocalClient& c = s_.NewClient();
  auto walk = StartParkingWalk();
  s_.Run(c, {"MULTI"});
  s_.Run(c, {"SET", "{t}k3", "in-exec"});
  EXPECT_NE(s_.Run(c, {"EXEC"}), "");
  EXPECT_EQ(walk->keys_finished_by_writes(), 1u);
  EXPECT_EQ(s_.Run(c, {"DEL", "{t}hash", "{t}zset", "{t}list", "{t}set"}), ":4\r\n");
  FinishAndCompareCanon(std::move(walk));
}

// No writes: every large key goes in slices, and the file equals the sequential save.
TEST_F(LargeKeyWalkTest, LargeKeysWithoutWrites) {
  PopulateLarge();
  auto walk = StartParkingWalk();
  Release();
  walk->Join();
  // One key is open at a time: a large key met in the same chunk as the open one is
  // saved whole, and which keys share a chunk depends on the table's per-process hash
  // seed (ctest saw 3 of 4 once). The file is the check.
  EXPECT_GE(walk->sliced_keys(), 1u);
  EXPECT_LE(walk->sliced_keys(), 4u);
  FinishAndCompareCanon(std::move(walk));
}

// FLUSHALL ASYNC while a key is open cancels the walk and frees the key: the walker
// drops the open key without reading it, and the next walk saves everything.
TEST_F(LargeKeyWalkTest, FlushAllWhileAKeyIsOpen) {
  PopulateLarge();
  LocalClient& c = s_.NewClient();
  auto walk = StartParkingWalk();
  walk->Cancel();  // as FLUSHALL does (Snapshotter), before it frees the tables
  EXPECT_EQ(s_.Run(c, {"FLUSHALL", "ASYNC"}), "+OK\r\n");
  Release();
  walk->Join();
  EXPECT_FALSE(walk->result().ok());
  walk.reset();
  PopulateLarge();
  stage_ = 0;
  FinishAndCompareCanon(StartParkingWalk());
}

}  // namespace
}  // namespace hotkv::persistence

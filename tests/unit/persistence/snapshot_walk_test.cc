// SnapshotWalk (bgsave-mode walk): a walk started at a barrier, its walkers held back,
// then writes to shards not yet saved (SET over existing keys, DEL, RENAME across
// shards, EXEC, active expiry, a blocking pop served, SWAPDB, FLUSHALL, FLUSHDB ASYNC):
// the file written holds exactly the keyspace as it was at the barrier (compared with a
// sequential save made at the barrier), however many shards the writes saved first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../commands/in_process.h"
#include "persistence/snapshot_walk.h"
#include "persistence/snapshot_writer.h"
#include "rdb/rdb.h"

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
  std::unique_ptr<SnapshotWalk> StartWalk(int64_t key_delay_us = 0) {
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

}  // namespace
}  // namespace hotkv::persistence

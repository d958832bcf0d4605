// Lazy freeing in-process, with the background thread held: FLUSHALL SYNC blocks only its
// client until the thread has freed the tables (other clients go on, CLIENT UNBLOCK
// cannot end it), and INFO's lazyfree_pending_objects shows what is queued.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "engine/database.h"
#include "engine/lazy_free.h"
#include "in_process.h"

namespace hotkv::testing {
namespace {

// Holds the lazy-free thread for the test's scope.
class HoldLazyFree {
 public:
  HoldLazyFree() { PauseLazyFreeForTesting(true); }
  ~HoldLazyFree() { Release(); }
  void Release() { PauseLazyFreeForTesting(false); }
};

// Runs the worker's posted work until `c` has output (bounded).
std::string AwaitOutput(InProcessServer& s, LocalClient& c) {
  for (int i = 0; i < 5000; i++) {
    s.RunPendingWork();
    std::string out = c.TakeOutput();
    if (!out.empty()) {
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return "";
}

// Waits until the lazy-free queue is empty (bounded).
LazyFreeStats AwaitIdle() {
  for (int i = 0; i < 5000; i++) {
    LazyFreeStats st = GetLazyFreeStats();
    if (st.pending == 0) {
      return st;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return GetLazyFreeStats();
}

std::string InfoField(InProcessServer& s, LocalClient& c, const std::string& name) {
  std::string text = s.Run(c, {"INFO", "everything"});
  size_t at = text.find("\r\n" + name + ":");
  if (at == std::string::npos) {
    return "<missing>";
  }
  at += name.size() + 3;
  return text.substr(at, text.find("\r\n", at) - at);
}

TEST(LazyFree, FlushallSyncWaitsForTheBackgroundThread) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  for (int i = 0; i < 100; i++) {
    s.Run(a, {"SET", "k" + std::to_string(i), "v"});
  }
  const LazyFreeStats before = AwaitIdle();
  HoldLazyFree hold;
  EXPECT_EQ(s.Run(a, {"FLUSHALL"}), "");  // blocked until the tables are freed
  EXPECT_TRUE(a.blocked());
  EXPECT_EQ(s.Run(b, {"DBSIZE"}), ":0\r\n");  // the keys are gone already
  EXPECT_EQ(s.Run(b, {"SET", "new", "1"}), "+OK\r\n");
  EXPECT_EQ(InfoField(s, b, "lazyfree_pending_objects"), std::to_string(before.pending + 100));
  EXPECT_EQ(s.Run(b, {"CLIENT", "UNBLOCK", std::to_string(a.id())}), ":0\r\n");
  s.RunPendingWork();
  EXPECT_TRUE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "");
  const CommandSpec* flushall = s.server().commands().Find("flushall");
  EXPECT_EQ(s.worker().command_stats()[flushall->id].calls.load(), 0u);  // not ended yet

  hold.Release();
  EXPECT_EQ(AwaitOutput(s, a), "+OK\r\n");
  EXPECT_FALSE(a.blocked());
  const LazyFreeStats after = GetLazyFreeStats();
  EXPECT_EQ(after.pending, before.pending);
  EXPECT_EQ(after.freed, before.freed + 100);
  EXPECT_EQ(s.Run(a, {"GET", "new"}), "$1\r\n1\r\n");  // written after the flush: kept
  // Counted once, when it ended.
  EXPECT_EQ(s.worker().command_stats()[flushall->id].calls.load(), 1u);
}

TEST(LazyFree, FlushUnderClientReplyOffOrSkipSendsNoLateReply) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  for (const char* mode : {"OFF", "SKIP"}) {
    s.Run(a, {"SET", "k", "v"});
    EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", mode}), "");
    EXPECT_EQ(s.Run(a, {"FLUSHALL"}), "");
    for (int i = 0; i < 5000 && a.blocked(); i++) {
      s.RunPendingWork();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_FALSE(a.blocked());
    EXPECT_EQ(a.TakeOutput(), "") << mode;
    if (std::string(mode) == "OFF") {
      EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "ON"}), "+OK\r\n");
    }
  }
  EXPECT_EQ(s.Run(a, {"FLUSHALL"}), "");
  EXPECT_EQ(AwaitOutput(s, a), "+OK\r\n");  // replies again
}

TEST(LazyFree, FlushInsideExecFreesAtOnce) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"SET", "k", "v"});
  const LazyFreeStats before = AwaitIdle();
  HoldLazyFree hold;
  s.Run(a, {"MULTI"});
  s.Run(a, {"FLUSHALL"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n+OK\r\n");
  EXPECT_EQ(GetLazyFreeStats().pending, before.pending);
  EXPECT_EQ(GetLazyFreeStats().freed, before.freed);
}

TEST(LazyFree, UnlinkQueuesOnlyBigValues) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"CONFIG", "SET", "set-max-listpack-entries", "0"});
  std::vector<std::string> big = {"SADD", "big"}, small = {"SADD", "small"};
  for (int i = 0; i < 65; i++) {
    big.push_back("m" + std::to_string(i));
    if (i < 64) {
      small.push_back("m" + std::to_string(i));
    }
  }
  s.Run(a, big);
  s.Run(a, small);
  const LazyFreeStats before = AwaitIdle();
  HoldLazyFree hold;
  EXPECT_EQ(s.Run(a, {"UNLINK", "small", "big"}), ":2\r\n");
  EXPECT_EQ(GetLazyFreeStats().pending, before.pending + 1);
  EXPECT_EQ(s.Run(a, {"EXISTS", "big"}), ":0\r\n");
  hold.Release();
  const LazyFreeStats after = AwaitIdle();
  EXPECT_EQ(after.freed, before.freed + 1);
}

TEST(LazyFree, FreeEffortIsRedis) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"SET", "str", std::string(100000, 'x')});
  s.Run(a, {"RPUSH", "list", "a", "b", "c"});
  s.Run(a, {"CONFIG", "SET", "list-max-listpack-size", "1"});
  s.Run(a, {"RPUSH", "ql", "a", "b", "c", "d"});
  s.Run(a, {"ZADD", "zlp", "1", "a", "2", "b"});
  Database db(&s.server().keyspace(), 0, CachedNowMs());
  auto effort = [&](const char* key) {
    uint32_t shard = Keyspace::ShardOf(key);
    s.server().keyspace().shard(shard).lock.lock();
    size_t e = FreeEffort(db.Find(key));
    s.server().keyspace().shard(shard).lock.unlock();
    return e;
  };
  EXPECT_EQ(effort("str"), 1u);
  EXPECT_EQ(effort("list"), 1u);  // one listpack
  EXPECT_EQ(effort("ql"), 4u);    // four quicklist nodes
  EXPECT_EQ(effort("zlp"), 1u);
}

}  // namespace
}  // namespace hotkv::testing

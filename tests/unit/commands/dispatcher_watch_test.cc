// WATCH through the dispatcher, in-process: a change by anyone between WATCH and EXEC
// (another client, expiry, FLUSHDB, the watcher itself) aborts the transaction.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "in_process.h"

namespace hotkv::testing {
namespace {

TEST(DispatcherWatch, UntouchedKeyLetsExecRun) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"SET", "k", "1"});
  EXPECT_EQ(s.Run(a, {"WATCH", "k"}), "+OK\r\n");
  EXPECT_EQ(a.watched_keys().size(), 1u);
  s.Run(a, {"MULTI"});
  s.Run(a, {"INCR", "k"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n:2\r\n");
  EXPECT_TRUE(a.watched_keys().empty());  // EXEC unwatches
}

TEST(DispatcherWatch, AnotherClientsWriteAbortsExec) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"SET", "k", "1"});
  s.Run(a, {"WATCH", "k"});
  EXPECT_EQ(s.Run(b, {"SET", "k", "other"}), "+OK\r\n");
  s.Run(a, {"MULTI"});
  s.Run(a, {"SET", "k", "mine"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*-1\r\n");
  EXPECT_EQ(s.Run(a, {"GET", "k"}), "$5\r\nother\r\n");
  // The watch is gone after the failed EXEC: the next transaction runs.
  s.Run(a, {"MULTI"});
  s.Run(a, {"SET", "k", "mine"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n+OK\r\n");
}

TEST(DispatcherWatch, WatchingAMissingKeyThatAppears) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"WATCH", "new"});
  s.Run(b, {"LPUSH", "new", "x"});
  s.Run(a, {"MULTI"});
  s.Run(a, {"PING"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*-1\r\n");
}

TEST(DispatcherWatch, ExpiryCountsAsAChange) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"SET", "k", "v", "PX", "5"});
  s.Run(a, {"WATCH", "k"});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.Run(a, {"MULTI"});
  s.Run(a, {"PING"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*-1\r\n");
}

TEST(DispatcherWatch, FlushdbAbortsWatchersOfExistingKeys) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"SET", "k", "v"});
  s.Run(a, {"WATCH", "k"});
  s.Run(b, {"FLUSHDB"});
  s.Run(a, {"MULTI"});
  s.Run(a, {"PING"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*-1\r\n");
}

TEST(DispatcherWatch, UnwatchForgetsAndQueuedUnwatchDoesNotHang) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"WATCH", "k"});
  EXPECT_EQ(s.Run(a, {"UNWATCH"}), "+OK\r\n");
  s.Run(b, {"SET", "k", "v"});
  s.Run(a, {"MULTI"});
  s.Run(a, {"GET", "k"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n$1\r\nv\r\n");
  // UNWATCH queued inside the transaction (EXEC holds the watched key's shard lock).
  s.Run(a, {"WATCH", "k"});
  s.Run(a, {"MULTI"});
  EXPECT_EQ(s.Run(a, {"UNWATCH"}), "+QUEUED\r\n");
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n+OK\r\n");
}

TEST(DispatcherWatch, WatchInsideMultiIsAnError) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"MULTI"});
  EXPECT_EQ(s.Run(a, {"WATCH", "k"}), "-ERR WATCH inside MULTI is not allowed\r\n");
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*0\r\n");
}

TEST(DispatcherWatch, OwnWriteBeforeMultiAlsoAborts) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"WATCH", "k"});
  s.Run(a, {"SET", "k", "v"});
  s.Run(a, {"MULTI"});
  s.Run(a, {"PING"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*-1\r\n");
}

}  // namespace
}  // namespace hotkv::testing

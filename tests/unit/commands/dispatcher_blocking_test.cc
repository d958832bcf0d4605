// Blocking commands through the dispatcher, in-process: a client blocks, another
// client's write serves it in FIFO order while the write's locks are held, and the
// reply reaches the blocked client through its worker's mailbox; timeouts; no blocking
// inside MULTI.
#include <gtest/gtest.h>

#include "in_process.h"

namespace hotkv::testing {
namespace {

TEST(DispatcherBlocking, PushServesABlockedPop) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  EXPECT_EQ(s.Run(a, {"BLPOP", "list", "0"}), "");
  EXPECT_TRUE(a.blocked());
  EXPECT_EQ(s.Run(b, {"RPUSH", "list", "v"}), ":1\r\n");
  // The element is already taken (served under RPUSH's lock); the reply is posted.
  EXPECT_EQ(s.Run(b, {"LLEN", "list"}), ":0\r\n");
  s.RunPendingWork();
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "*2\r\n$4\r\nlist\r\n$1\r\nv\r\n");
}

TEST(DispatcherBlocking, WaitersAreServedFirstComeFirstServed) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& c = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"BLPOP", "q", "0"});
  s.Run(c, {"BRPOP", "q", "0"});
  EXPECT_EQ(s.Run(b, {"RPUSH", "q", "first", "second", "third"}), ":3\r\n");
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "*2\r\n$1\r\nq\r\n$5\r\nfirst\r\n");   // BLPOP: head
  EXPECT_EQ(c.TakeOutput(), "*2\r\n$1\r\nq\r\n$5\r\nthird\r\n");   // BRPOP: tail
  EXPECT_EQ(s.Run(b, {"LRANGE", "q", "0", "-1"}), "*1\r\n$6\r\nsecond\r\n");
}

TEST(DispatcherBlocking, TimeoutRepliesNull) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"BLPOP", "list", "0.05"});
  EXPECT_TRUE(a.blocked());
  s.RunPendingWork(0);
  EXPECT_TRUE(a.blocked());  // not due yet
  s.RunPendingWork(10000);
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "*-1\r\n");
  // BLMOVE times out with a null bulk, not a null array.
  s.Run(a, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0.05"});
  s.RunPendingWork(10000);
  EXPECT_EQ(a.TakeOutput(), "$-1\r\n");
}

TEST(DispatcherBlocking, DataPresentMeansNoBlocking) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"RPUSH", "list", "x"});
  EXPECT_EQ(s.Run(a, {"BLPOP", "list", "0"}), "*2\r\n$4\r\nlist\r\n$1\r\nx\r\n");
  EXPECT_FALSE(a.blocked());
}

TEST(DispatcherBlocking, InsideMultiTheCommandDoesNotBlock) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"MULTI"});
  s.Run(a, {"BLPOP", "list", "0"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n*-1\r\n");
  EXPECT_FALSE(a.blocked());
}

TEST(DispatcherBlocking, TransactionWakesWaitersWithItsFinalState) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"BLPOP", "list", "0"});
  s.Run(b, {"MULTI"});
  s.Run(b, {"RPUSH", "list", "1"});
  s.Run(b, {"RPUSH", "list", "2"});
  s.Run(b, {"LPOP", "list"});
  EXPECT_EQ(s.Run(b, {"EXEC"}), "*3\r\n:1\r\n:2\r\n$1\r\n1\r\n");
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "*2\r\n$4\r\nlist\r\n$1\r\n2\r\n");
}

TEST(DispatcherBlocking, BlmoveMovesToTheDestination) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"});
  s.Run(b, {"RPUSH", "src", "e"});
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "$1\r\ne\r\n");
  EXPECT_EQ(s.Run(b, {"LRANGE", "dst", "0", "-1"}), "*1\r\n$1\r\ne\r\n");
}

TEST(DispatcherBlocking, SortedSetPopWaitsForASortedSet) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"BZPOPMIN", "z", "0"});
  s.Run(b, {"ZADD", "z", "2", "two", "1", "one"});
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "*3\r\n$1\r\nz\r\n$3\r\none\r\n$1\r\n1\r\n");
}

TEST(DispatcherBlocking, RemovedClientLeavesTheQueue) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& c = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"BLPOP", "list", "0"});
  s.Run(c, {"BLPOP", "list", "0"});
  s.worker().RemoveLocalClient(&a);  // as a disconnection would
  EXPECT_FALSE(a.blocked());
  s.worker().AddLocalClient(&a);     // the fixture removes it again at the end
  s.Run(b, {"RPUSH", "list", "v"});
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "");
  EXPECT_EQ(c.TakeOutput(), "*2\r\n$4\r\nlist\r\n$1\r\nv\r\n");
}

}  // namespace
}  // namespace hotkv::testing

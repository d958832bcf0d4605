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

// Redis re-runs a woken BLMOVE/BRPOPLPUSH, which answers WRONGTYPE when the destination
// holds another type; the element stays in the source for the next waiter in line.
TEST(DispatcherBlocking, WrongTypeDestinationAnswersWrongTypeAndTheNextWaiterIsServed) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  LocalClient& c = s.NewClient();
  s.Run(c, {"SET", "wdst", "string"});
  EXPECT_EQ(s.Run(a, {"BRPOPLPUSH", "src", "wdst", "0"}), "");
  EXPECT_EQ(s.Run(b, {"BRPOPLPUSH", "src", "gdst", "0"}), "");
  EXPECT_EQ(s.Run(c, {"RPUSH", "src", "e1", "e2"}), ":2\r\n");
  s.RunPendingWork();
  EXPECT_FALSE(a.blocked());
  EXPECT_FALSE(b.blocked());
  EXPECT_EQ(a.TakeOutput(), "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_EQ(b.TakeOutput(), "$2\r\ne2\r\n");
  EXPECT_EQ(s.Run(c, {"LRANGE", "src", "0", "-1"}), "*1\r\n$2\r\ne1\r\n");
  EXPECT_EQ(s.Run(c, {"LRANGE", "gdst", "0", "-1"}), "*1\r\n$2\r\ne2\r\n");
  EXPECT_EQ(s.Run(c, {"GET", "wdst"}), "$6\r\nstring\r\n");
  // Counted as a failed call of the blocked command, and as a WRONGTYPE error reply.
  // (INFO sums the server's own workers; this one is the test's, so read it directly.)
  const CommandStats& st =
      s.worker().command_stats()[s.server().commands().Find("brpoplpush")->id];
  EXPECT_EQ(st.calls.load(), 2u);
  EXPECT_EQ(st.failed.load(), 1u);
  auto errors = s.worker().error_counts().Snapshot();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, "WRONGTYPE");
  EXPECT_EQ(errors[0].second, 1u);
}

TEST(DispatcherBlocking, DestinationGivenAnotherTypeWhileBlockedLeavesTheSourceAlone) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  LocalClient& m = s.NewClient();
  LocalClient& c = s.NewClient();
  s.Run(a, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"});
  s.Run(b, {"BLPOP", "src", "0"});
  s.Run(m, {"BLMPOP", "0", "1", "src", "RIGHT", "COUNT", "2"});
  EXPECT_EQ(s.Run(c, {"HSET", "dst", "f", "v"}), ":1\r\n");
  EXPECT_EQ(s.Run(c, {"RPUSH", "src", "e1", "e2", "e3", "e4"}), ":4\r\n");
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  // BLPOP and BLMPOP do not care about dst: they are served in order, from the same list.
  EXPECT_EQ(b.TakeOutput(), "*2\r\n$3\r\nsrc\r\n$2\r\ne1\r\n");
  EXPECT_EQ(m.TakeOutput(), "*2\r\n$3\r\nsrc\r\n*2\r\n$2\r\ne4\r\n$2\r\ne3\r\n");
  EXPECT_EQ(s.Run(c, {"LRANGE", "src", "0", "-1"}), "*1\r\n$2\r\ne2\r\n");
  EXPECT_EQ(s.Run(c, {"TYPE", "dst"}), "+hash\r\n");
}

TEST(DispatcherBlocking, TwoWrongTypeWaitersBothFailAndTheListIsUnchanged) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  LocalClient& c = s.NewClient();
  s.Run(c, {"SADD", "wdst", "m"});
  s.Run(a, {"HELLO", "3"});  // the error reads the same in RESP3
  s.Run(a, {"BLMOVE", "src", "wdst", "RIGHT", "LEFT", "0"});
  s.Run(b, {"BRPOPLPUSH", "src", "wdst", "0"});
  EXPECT_EQ(s.Run(c, {"RPUSH", "src", "x", "y", "z"}), ":3\r\n");
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_EQ(b.TakeOutput(), "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_EQ(s.Run(c, {"LRANGE", "src", "0", "-1"}), "*3\r\n$1\r\nx\r\n$1\r\ny\r\n$1\r\nz\r\n");
  // Both are unblocked: their next commands run.
  EXPECT_EQ(s.Run(a, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(s.Run(b, {"PING"}), "+PONG\r\n");
}

TEST(DispatcherBlocking, WaitBlocksOnNoKeyUntilItsTimeout) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  EXPECT_EQ(s.Run(a, {"WAIT", "0", "0"}), ":0\r\n");  // nothing to wait for
  EXPECT_EQ(s.Run(a, {"WAIT", "1", "50"}), "");
  EXPECT_TRUE(a.blocked());
  s.RunPendingWork(0);
  EXPECT_TRUE(a.blocked());
  s.RunPendingWork(10000);
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), ":0\r\n");
  EXPECT_EQ(s.Run(a, {"WAITAOF", "0", "1", "50"}), "");
  s.RunPendingWork(10000);
  EXPECT_EQ(a.TakeOutput(), "*2\r\n:0\r\n:0\r\n");
  // A write meanwhile wakes nothing: WAIT waits on no key.
  LocalClient& b = s.NewClient();
  s.Run(a, {"WAIT", "1", "0"});
  s.Run(b, {"RPUSH", "list", "x"});
  s.RunPendingWork();
  EXPECT_TRUE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "");
}

// CLIENT REPLY OFF/SKIP silences a blocked command's late reply too (Redis drops it).
TEST(DispatcherBlocking, LateRepliesFollowClientReplyOffAndSkip) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(s.Run(a, {"BLPOP", "list", "0"}), "");
  s.Run(b, {"RPUSH", "list", "served"});
  s.RunPendingWork();
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "");
  EXPECT_EQ(s.Run(a, {"BLPOP", "list", "0.01"}), "");
  s.RunPendingWork(10000);
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "");  // the timeout's null too
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  // SKIP is used up by the blocking command: its reply goes, the next one comes.
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(s.Run(a, {"BLMOVE", "list", "dst", "LEFT", "RIGHT", "0"}), "");
  s.Run(b, {"RPUSH", "list", "moved"});
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "");
  EXPECT_EQ(s.Run(a, {"LRANGE", "dst", "0", "-1"}), "*1\r\n$5\r\nmoved\r\n");
  // And so is a WRONGTYPE answer to a woken BRPOPLPUSH.
  s.Run(b, {"SET", "str", "v"});
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "SKIP"}), "");
  s.Run(a, {"BRPOPLPUSH", "list", "str", "0"});
  s.Run(b, {"RPUSH", "list", "x"});
  s.RunPendingWork();
  EXPECT_FALSE(a.blocked());
  EXPECT_EQ(a.TakeOutput(), "");
  EXPECT_EQ(s.Run(a, {"PING"}), "+PONG\r\n");
}

}  // namespace
}  // namespace hotkv::testing

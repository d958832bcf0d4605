// MULTI/EXEC through the dispatcher, in-process: queueing, the reply array, errors that
// abort the transaction before it runs and errors that do not.
#include <gtest/gtest.h>

#include "in_process.h"

namespace hotkv::testing {
namespace {

TEST(DispatcherExec, QueuesThenRunsEverythingInOrder) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  EXPECT_EQ(s.Run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_TRUE(a.in_multi());
  EXPECT_EQ(s.Run(a, {"SET", "k", "1"}), "+QUEUED\r\n");
  EXPECT_EQ(s.Run(a, {"INCR", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(s.Run(a, {"GET", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(a.multi_queue().size(), 3u);
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*3\r\n+OK\r\n:2\r\n$1\r\n2\r\n");
  EXPECT_FALSE(a.in_multi());
  EXPECT_EQ(s.Run(a, {"GET", "k"}), "$1\r\n2\r\n");
}

TEST(DispatcherExec, OtherClientsSeeNothingBeforeExec) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  s.Run(a, {"MULTI"});
  s.Run(a, {"SET", "k", "v"});
  EXPECT_EQ(s.Run(b, {"EXISTS", "k"}), ":0\r\n");
  s.Run(a, {"EXEC"});
  EXPECT_EQ(s.Run(b, {"EXISTS", "k"}), ":1\r\n");
}

TEST(DispatcherExec, WithoutMultiAndNestedMultiAreErrors) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  EXPECT_EQ(s.Run(a, {"EXEC"}), "-ERR EXEC without MULTI\r\n");
  EXPECT_EQ(s.Run(a, {"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
  s.Run(a, {"MULTI"});
  EXPECT_EQ(s.Run(a, {"MULTI"}), "-ERR MULTI calls can not be nested\r\n");
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*0\r\n");  // the nested MULTI did not poison the queue
}

TEST(DispatcherExec, QueueingErrorAbortsTheTransaction) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"MULTI"});
  EXPECT_EQ(s.Run(a, {"SET", "k", "v"}), "+QUEUED\r\n");
  EXPECT_EQ(s.Run(a, {"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(s.Run(a, {"NOSUCHCOMMAND"}).rfind("-ERR unknown command 'NOSUCHCOMMAND'", 0), 0u);
  EXPECT_EQ(s.Run(a, {"EXEC"}),
            "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_FALSE(a.in_multi());
  EXPECT_EQ(s.Run(a, {"EXISTS", "k"}), ":0\r\n");  // nothing ran
}

TEST(DispatcherExec, RuntimeErrorsDoNotStopTheOtherCommands) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"SET", "s", "text"});
  s.Run(a, {"MULTI"});
  s.Run(a, {"INCR", "s"});
  s.Run(a, {"LPUSH", "s", "x"});
  s.Run(a, {"SET", "t", "1"});
  EXPECT_EQ(s.Run(a, {"EXEC"}),
            "*3\r\n-ERR value is not an integer or out of range\r\n"
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n+OK\r\n");
  EXPECT_EQ(s.Run(a, {"GET", "t"}), "$1\r\n1\r\n");
}

TEST(DispatcherExec, DiscardDropsTheQueue) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"MULTI"});
  s.Run(a, {"SET", "k", "v"});
  EXPECT_EQ(s.Run(a, {"DISCARD"}), "+OK\r\n");
  EXPECT_FALSE(a.in_multi());
  EXPECT_TRUE(a.multi_queue().empty());
  EXPECT_EQ(s.Run(a, {"EXISTS", "k"}), ":0\r\n");
}

TEST(DispatcherExec, MultiKeyCommandsAcrossShardsInOneTransaction) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  s.Run(a, {"MULTI"});
  s.Run(a, {"MSET", "a", "1", "b", "2", "c", "3"});
  s.Run(a, {"RENAME", "a", "z"});
  s.Run(a, {"MGET", "a", "b", "c", "z"});
  EXPECT_EQ(s.Run(a, {"EXEC"}),
            "*3\r\n+OK\r\n+OK\r\n*4\r\n$-1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n1\r\n");
}

TEST(DispatcherExec, Resp3RepliesFollowTheClientsProtocol) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  ASSERT_EQ(s.Run(a, {"HELLO", "3"}).substr(0, 1), "%");
  s.Run(a, {"MULTI"});
  s.Run(a, {"GET", "missing"});
  EXPECT_EQ(s.Run(a, {"EXEC"}), "*1\r\n_\r\n");
}

TEST(DispatcherExec, ClientReplyOffSilencesRepliesOnly) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(s.Run(a, {"SET", "k", "v"}), "");
  EXPECT_EQ(s.Run(a, {"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  EXPECT_EQ(s.Run(a, {"GET", "k"}), "$1\r\nv\r\n");
}

}  // namespace
}  // namespace hotkv::testing

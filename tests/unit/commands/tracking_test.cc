// Client-side caching in-process: invalidation pushes land in the tracking client's own
// output, one-shot, after the writer's reply for its own writes, per prefix in BCAST mode,
// and the table limit evicts with an invalidation. (Across workers and sockets:
// tests/integration/test_client_tracking.py.)
#include <gtest/gtest.h>

#include "in_process.h"
#include "server/tracking.h"

namespace hotkv::testing {
namespace {

std::string Push(std::initializer_list<std::string> keys) {
  std::string s = ">2\r\n$10\r\ninvalidate\r\n*" + std::to_string(keys.size()) + "\r\n";
  for (const std::string& k : keys) {
    s += "$" + std::to_string(k.size()) + "\r\n" + k + "\r\n";
  }
  return s;
}

LocalClient& Tracker(InProcessServer& s, std::vector<std::string> tracking_args) {
  LocalClient& c = s.NewClient();
  s.Run(c, {"HELLO", "3"});
  std::vector<std::string> args = {"CLIENT", "TRACKING", "ON"};
  args.insert(args.end(), tracking_args.begin(), tracking_args.end());
  EXPECT_EQ(s.Run(c, args), "+OK\r\n");
  return c;
}

TEST(Tracking, OtherClientsWriteInvalidatesOnce) {
  InProcessServer s;
  LocalClient& t = Tracker(s, {});
  LocalClient& w = s.NewClient();
  EXPECT_EQ(s.Run(t, {"GET", "k"}), "_\r\n");
  EXPECT_EQ(g_tracking_keys.load(), 1);
  EXPECT_EQ(s.Run(w, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(t.TakeOutput(), Push({"k"}));
  EXPECT_EQ(s.Run(w, {"SET", "k", "w"}), "+OK\r\n");
  EXPECT_EQ(t.TakeOutput(), "");
  EXPECT_EQ(g_tracking_keys.load(), 0);
}

TEST(Tracking, OwnWriteInvalidationFollowsTheReply) {
  InProcessServer s;
  LocalClient& t = Tracker(s, {});
  s.Run(t, {"MGET", "a", "b"});
  EXPECT_EQ(s.Run(t, {"SET", "a", "1"}), "+OK\r\n" + Push({"a"}));
  s.Run(t, {"MULTI"});
  s.Run(t, {"SET", "b", "1"});
  s.Run(t, {"GET", "c"});
  EXPECT_EQ(s.Run(t, {"EXEC"}), "*2\r\n+OK\r\n_\r\n" + Push({"b"}));
  EXPECT_EQ(s.Run(t, {"DEL", "c"}), ":0\r\n");  // nothing deleted: nothing sent
  EXPECT_EQ(s.Run(t, {"SET", "c", "1"}), "+OK\r\n" + Push({"c"}));
}

TEST(Tracking, NoloopAndOptin) {
  InProcessServer s;
  LocalClient& t = Tracker(s, {"NOLOOP"});
  s.Run(t, {"GET", "k"});
  EXPECT_EQ(s.Run(t, {"SET", "k", "1"}), "+OK\r\n");
  LocalClient& o = Tracker(s, {"OPTIN"});
  LocalClient& w = s.NewClient();
  s.Run(o, {"GET", "x"});
  s.Run(o, {"CLIENT", "CACHING", "YES"});
  s.Run(o, {"GET", "y"});
  s.Run(w, {"MSET", "x", "1", "y", "1"});
  EXPECT_EQ(o.TakeOutput(), Push({"y"}));
}

TEST(Tracking, BcastGroupsKeysPerPrefix) {
  InProcessServer s;
  LocalClient& t = Tracker(s, {"BCAST", "PREFIX", "a:", "PREFIX", "b:"});
  LocalClient& w = s.NewClient();
  s.Run(w, {"MSET", "a:1", "1", "c:1", "1", "a:2", "1", "b:1", "1"});
  EXPECT_EQ(t.TakeOutput(), Push({"a:1", "a:2"}) + Push({"b:1"}));
  EXPECT_EQ(TrackingTotalPrefixes(), 2u);
  s.Run(t, {"CLIENT", "TRACKING", "OFF"});
  EXPECT_EQ(TrackingTotalPrefixes(), 0u);
  s.Run(w, {"SET", "a:1", "2"});
  EXPECT_EQ(t.TakeOutput(), "");
}

TEST(Tracking, TableLimitEvictsWithAnInvalidation) {
  InProcessServer s;
  LocalClient& t = Tracker(s, {});
  LocalClient& w = s.NewClient();
  s.Run(w, {"CONFIG", "SET", "tracking-table-max-keys", "2"});
  s.Run(t, {"GET", "k1"});
  s.Run(t, {"GET", "k2"});
  EXPECT_EQ(s.Run(t, {"GET", "k3"}).substr(0, 3), "_\r\n");
  EXPECT_EQ(TrackingTotalKeys(), 2u);
  s.Run(w, {"MSET", "k1", "1", "k2", "1", "k3", "1"});
  EXPECT_EQ(TrackingTotalKeys(), 0u);
}

TEST(Tracking, FlushEmptiesTheTableAndDisconnectTurnsOff) {
  InProcessServer s;
  const int64_t before = g_tracking_clients.load();
  LocalClient& t = Tracker(s, {});
  EXPECT_EQ(g_tracking_clients.load(), before + 1);
  s.Run(t, {"MGET", "a", "b", "c"});
  EXPECT_EQ(TrackingTotalKeys(), 3u);
  EXPECT_EQ(TrackingTotalItems(), 3u);
  s.Run(t, {"FLUSHALL", "SYNC"});
  s.RunPendingWork();
  EXPECT_EQ(TrackingTotalKeys(), 0u);
  s.Run(t, {"RESET"});
  EXPECT_EQ(g_tracking_clients.load(), before);
}

}  // namespace
}  // namespace hotkv::testing

// IoBackend::Poll called from inside one of its callbacks (a busy script's worker
// serving its other connections, server/worker.h ServeWhileBusy), with the running
// connection's input held (HoldInput/ReleaseInput): the nested call delivers only new
// events, never the one being handled again, and nothing is appended to the held
// connection's input until it is released. Both backends, over socketpairs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/io_backend.h"
#include "net/net_connection.h"

namespace hotkv {
namespace {

class NestingSink : public IoSink {
 public:
  IoBackend* backend = nullptr;
  NetConnection* a = nullptr;  // the "script" connection
  NetConnection* b = nullptr;  // another connection of the worker
  int a_peer = -1, b_peer = -1;
  int a_inputs = 0, b_inputs = 0;
  std::string a_in_during, b_seen;
  bool nested_done = false;

  void OnAccepted(int) override {}
  void OnHangup(NetConnection*) override {}
  void OnWake() override {}
  void OnOutputDrained(NetConnection*) override {}
  void OnInput(NetConnection* c) override {
    if (c == b) {
      b_inputs++;
      b_seen.append(c->in.view());
      c->in.Clear();
      return;
    }
    a_inputs++;
    if (nested_done) {
      return;
    }
    // A's command runs long: hold A, let both peers send, serve B from inside.
    nested_done = true;
    backend->HoldInput(a);
    const std::string before(a->in.view());
    ASSERT_EQ(write(a_peer, "more", 4), 4);
    ASSERT_EQ(write(b_peer, "b1", 2), 2);
    for (int i = 0; i < 100000 && b_inputs == 0; i++) {  // bounded: no timing
      backend->Poll(0, *this);
    }
    a_in_during = std::string(a->in.view());
    EXPECT_EQ(a_in_during, before);  // nothing appended while held
  }
};

void NestedPoll(const char* kind) {
  IoStats stats;
  auto created = IoBackend::Create(kind, &stats);
  ASSERT_TRUE(created.ok());
  IoBackend& backend = **created;
  if (std::string(backend.name()) != kind) {
    GTEST_SKIP() << kind << " unavailable here";
  }
  int sa[2], sb[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sa), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sb), 0);
  fcntl(sa[0], F_SETFL, fcntl(sa[0], F_GETFL) | O_NONBLOCK);
  fcntl(sb[0], F_SETFL, fcntl(sb[0], F_GETFL) | O_NONBLOCK);
  NetConnection a(sa[0]), b(sb[0]);
  backend.AddConnection(&a);
  backend.AddConnection(&b);
  NestingSink sink;
  sink.backend = &backend;
  sink.a = &a;
  sink.b = &b;
  sink.a_peer = sa[1];
  sink.b_peer = sb[1];

  ASSERT_EQ(write(sa[1], "first", 5), 5);
  for (int i = 0; i < 1000 && !sink.nested_done; i++) {
    backend.Poll(100, sink);
  }
  ASSERT_TRUE(sink.nested_done);
  EXPECT_EQ(sink.b_seen, "b1");     // served from inside A's callback
  EXPECT_EQ(sink.a_inputs, 1);      // A's event was not delivered again by the nested Poll
  EXPECT_EQ(sink.a_in_during, "first");

  // A's command is over: release. io_uring appends what a completed recv set aside
  // (true), or its recv completes later; epoll left the bytes in the socket (false) and
  // reports them at a later Poll.
  const bool appended = backend.ReleaseInput(&a);
  if (appended) {
    EXPECT_EQ(a.in.view(), "firstmore");
  }
  for (int i = 0; i < 1000 && a.in.view() != "firstmore"; i++) {
    backend.Poll(100, sink);
  }
  EXPECT_EQ(a.in.view(), "firstmore");
  if (std::string(kind) == "epoll") {
    EXPECT_FALSE(appended);
  }
  // Reading goes on as usual after the release.
  ASSERT_EQ(write(sa[1], "!", 1), 1);
  for (int i = 0; i < 1000 && a.in.view() != "firstmore!"; i++) {
    backend.Poll(100, sink);
  }
  EXPECT_EQ(a.in.view(), "firstmore!");

  backend.RemoveConnection(&a);
  backend.RemoveConnection(&b);
  std::vector<NetConnection*> released;
  for (int i = 0; i < 100 && released.size() < 2; i++) {
    backend.Poll(10, sink);
    backend.ReleasedConnections(&released);
  }
  close(sa[1]);
  close(sb[1]);
}

TEST(NestedPoll, Epoll) { NestedPoll("epoll"); }
TEST(NestedPoll, Uring) { NestedPoll("io_uring"); }

}  // namespace
}  // namespace hotkv

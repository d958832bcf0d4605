// BlockingSocket: connect, write, line reads across arbitrary packet boundaries, time
// limits, a peer that hangs up, and Redis's rule that only resolving can fail Connect.
#include "net/blocking_socket.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace hotkv {
namespace {

// A listening socket on a free loopback port; accept() hands out the server side.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { close(fd_); }
  int port() const { return port_; }
  int Accept() { return accept(fd_, nullptr, nullptr); }

 private:
  int fd_;
  int port_;
};

void Send(int fd, std::string_view s) { ASSERT_EQ(write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size())); }

TEST(BlockingSocket, WritesAndReadsLines) {
  Listener l;
  auto s = BlockingSocket::Connect("127.0.0.1", l.port(), 1000);
  ASSERT_TRUE(s.ok()) << s.status().message();
  int peer = l.Accept();
  ASSERT_GE(peer, 0);
  EXPECT_EQ(s->Write("PING\r\n", 1000), IoOutcome::kOk);
  char buf[16];
  ASSERT_EQ(read(peer, buf, sizeof(buf)), 6);
  EXPECT_EQ(std::string(buf, 6), "PING\r\n");

  // Two lines in one packet, then one line in pieces; a bare "\n" ends a line too.
  Send(peer, "+OK\r\n-ERR x\r\n+PA");
  std::string line;
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, "+OK");
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, "-ERR x");
  Send(peer, "RT\nnext");
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, "+PART");
  // A long line is cut to `max` bytes and consumed whole.
  Send(peer, "\r\n" + std::string(100, 'x') + "\r\n+END\r\n");
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, "next");
  EXPECT_EQ(s->ReadLine(&line, 10, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, std::string(10, 'x'));
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kOk);
  EXPECT_EQ(line, "+END");
  close(peer);
}

TEST(BlockingSocket, ReadTimesOutOnASilentPeer) {
  Listener l;
  auto s = BlockingSocket::Connect("127.0.0.1", l.port(), 1000);
  ASSERT_TRUE(s.ok());
  int peer = l.Accept();
  Send(peer, "+partial");
  std::string line;
  EXPECT_EQ(s->ReadLine(&line, 1023, 50), IoOutcome::kTimeout);
  close(peer);
}

TEST(BlockingSocket, APeerThatHangsUpIsAnError) {
  Listener l;
  auto s = BlockingSocket::Connect("127.0.0.1", l.port(), 1000);
  ASSERT_TRUE(s.ok());
  close(l.Accept());
  std::string line;
  EXPECT_EQ(s->ReadLine(&line, 1023, 1000), IoOutcome::kError);
}

TEST(BlockingSocket, ARefusedConnectionFailsTheWriteNotTheConnect) {
  int port;
  {
    Listener l;  // a port that was free a moment ago and is closed now
    port = l.port();
  }
  auto s = BlockingSocket::Connect("127.0.0.1", port, 1000);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->Write("PING\r\n", 1000), IoOutcome::kOk);
}

TEST(BlockingSocket, AHostThatDoesNotResolveFailsConnect) {
  auto s = BlockingSocket::Connect("nonexistent.invalid", 6379, 1000);
  EXPECT_FALSE(s.ok());
}

TEST(BlockingSocket, AClosedSocketRefusesIo) {
  BlockingSocket s;
  std::string line;
  EXPECT_FALSE(s.valid());
  EXPECT_EQ(s.Write("x", 10), IoOutcome::kError);
  EXPECT_EQ(s.ReadLine(&line, 10, 10), IoOutcome::kError);
}

}  // namespace
}  // namespace hotkv

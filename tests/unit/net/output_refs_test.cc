// Output buffers holding references to stored values (protocol/byte_buffer.h's Ref,
// net/io_vec.h): the logical bytes, how Insert/Truncate/Clear/Swap keep references in
// step, ReplyBuilder::BulkRef, and both backends sending a reply whose value is released
// by its owner before the send ends (the reference keeps it alive) over a real socket.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

#include "net/io_backend.h"
#include "net/io_vec.h"
#include "net/net_connection.h"
#include "protocol/byte_buffer.h"
#include "protocol/reply_builder.h"

namespace hotkv {
namespace {

// The logical content of b from `off`, through FillIov (in steps of at most `max` iovecs).
std::string Flatten(const ByteBuffer& b, size_t off = 0, size_t max = kMaxSendIov) {
  std::string s;
  for (;;) {
    iovec iov[kMaxSendIov];
    size_t n = FillIov(b, off, iov, max);
    if (n == 0) {
      return s;
    }
    for (size_t i = 0; i < n; i++) {
      s.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      off += iov[i].iov_len;
    }
  }
}

std::shared_ptr<const std::string> Value(size_t n, char c) {
  return std::make_shared<const std::string>(n, c);
}

TEST(OutputRefs, NotAllowedCopies) {
  ByteBuffer b;
  auto v = Value(10, 'x');
  b.AppendRef(v, *v);
  EXPECT_TRUE(b.refs().empty());
  EXPECT_EQ(b.view(), "xxxxxxxxxx");
  EXPECT_EQ(b.total_size(), 10u);
}

TEST(OutputRefs, SplicedAtOffsetsFromAnyStart) {
  ByteBuffer b;
  b.set_refs_allowed(true);
  auto v1 = Value(5, 'a'), v2 = Value(3, 'b');
  b.Append("H1");
  b.AppendRef(v1, *v1);
  b.Append("M");
  b.AppendRef(v2, *v2);
  b.AppendRef(v1, std::string_view(*v1).substr(0, 2));  // two in a row
  b.Append("T");
  const std::string want = "H1aaaaaMbbbaaT";
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(b.total_size(), want.size());
  EXPECT_FALSE(b.empty());
  for (size_t off = 0; off <= want.size(); off++) {
    EXPECT_EQ(Flatten(b, off), want.substr(off)) << off;
    EXPECT_EQ(Flatten(b, off, 1), want.substr(off)) << off;  // one iovec per call
  }
}

TEST(OutputRefs, InsertTruncateClearSwap) {
  ByteBuffer b;
  b.set_refs_allowed(true);
  auto v = Value(4, 'v');
  std::weak_ptr<const std::string> weak = v;
  b.Append("ab");
  b.AppendRef(v, *v);
  b.Append("cd");
  b.Insert(0, "*1\r\n", 4);  // a deferred header before the reference shifts it
  EXPECT_EQ(Flatten(b), "*1\r\nabvvvvcd");
  b.Insert(6, "X", 1);  // at the reference's place: goes before it
  EXPECT_EQ(Flatten(b), "*1\r\nabXvvvvcd");
  b.Insert(8, "Y", 1);  // after it: the reference stays
  EXPECT_EQ(Flatten(b), "*1\r\nabXvvvvcYd");

  ByteBuffer other;
  other.set_refs_allowed(true);
  other.Append("zz");
  b.Swap(other);
  EXPECT_EQ(Flatten(b), "zz");
  EXPECT_EQ(Flatten(other), "*1\r\nabXvvvvcYd");
  EXPECT_TRUE(b.refs().empty());

  other.Truncate(8);  // keeps the reference (placed before own byte 7)
  EXPECT_EQ(Flatten(other), "*1\r\nabXvvvvc");
  other.Truncate(7);  // drops it
  EXPECT_EQ(Flatten(other), "*1\r\nabX");
  EXPECT_EQ(other.total_size(), 7u);

  other.AppendRef(v, *v);
  v.reset();
  EXPECT_FALSE(weak.expired());  // the buffer holds the value
  other.Clear();
  EXPECT_TRUE(other.empty());
  EXPECT_TRUE(weak.expired());
}

TEST(OutputRefs, BulkRefThresholdAndEncoding) {
  ByteBuffer b;
  b.set_refs_allowed(true);
  ReplyBuilder rb(&b);
  auto small = Value(100, 's');
  rb.BulkRef(small, *small);
  EXPECT_TRUE(b.refs().empty());  // small values are copied
  auto big = Value(ReplyBuilder::kMinRefBulk, 'B');
  rb.BulkRef(big, *big);
  ASSERT_EQ(b.refs().size(), 1u);
  EXPECT_EQ(Flatten(b), "$100\r\n" + *small + "\r\n$" + std::to_string(big->size()) + "\r\n" +
                            *big + "\r\n");

  ByteBuffer plain;  // not a connection's buffer: copied
  ReplyBuilder rb2(&plain);
  rb2.BulkRef(big, *big);
  EXPECT_TRUE(plain.refs().empty());
  EXPECT_EQ(plain.size(), big->size() + 10);
}

class NullSink : public IoSink {
 public:
  void OnAccepted(int) override {}
  void OnInput(NetConnection*) override {}
  void OnHangup(NetConnection*) override { hangups++; }
  void OnWake() override {}
  void OnOutputDrained(NetConnection*) override { drained++; }
  int hangups = 0;
  int drained = 0;
};

// Sends header + 8 MiB referenced value + trailer through `kind`, the value's owner
// dropping it right after queueing; the peer reads everything and checks every byte.
void SendThrough(const char* kind) {
  IoStats stats;
  auto backend = IoBackend::Create(kind, &stats);
  ASSERT_TRUE(backend.ok());
  if (std::string((*backend)->name()) != kind) {
    GTEST_SKIP() << kind << " unavailable here";
  }
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  NetConnection c(sv[0]);
  c.out.set_refs_allowed(true);
  c.sending.set_refs_allowed(true);
  (*backend)->AddConnection(&c);

  std::string bytes(8 << 20, 0);
  for (size_t i = 0; i < bytes.size(); i++) {
    bytes[i] = static_cast<char>(i * 131 + i / 4099);
  }
  auto value = std::make_shared<const std::string>(bytes);
  std::weak_ptr<const std::string> weak = value;
  c.out.Append("head");
  c.out.AppendRef(value, *value);
  c.out.Append("tail");
  value.reset();  // the stored value is deleted: the reply keeps it alive
  const std::string want = "head" + bytes + "tail";

  std::string got;
  std::thread reader([&] {
    char buf[1 << 16];
    while (got.size() < want.size()) {
      ssize_t n = read(sv[1], buf, sizeof(buf));
      if (n <= 0) {
        break;
      }
      got.append(buf, static_cast<size_t>(n));
    }
  });
  NullSink sink;
  ASSERT_TRUE((*backend)->Send(&c));
  for (int i = 0; i < 10000 && c.pending_output() > 0; i++) {
    (*backend)->Poll(100, sink);
  }
  reader.join();
  EXPECT_EQ(c.pending_output(), 0u);
  EXPECT_EQ(sink.hangups, 0);
  EXPECT_TRUE(got == want);
  EXPECT_TRUE(weak.expired());  // released once sent
  (*backend)->RemoveConnection(&c);
  std::vector<NetConnection*> released;
  for (int i = 0; i < 100 && released.empty(); i++) {
    (*backend)->Poll(10, sink);
    (*backend)->ReleasedConnections(&released);
  }
  close(sv[1]);
}

TEST(OutputRefs, EpollSendsReferencedValue) { SendThrough("epoll"); }
TEST(OutputRefs, UringSendsReferencedValue) { SendThrough("io_uring"); }

}  // namespace
}  // namespace hotkv

// DUMP, RESTORE and MIGRATE in-process (so the sanitizer build runs the handlers'
// entry handling: replace, TTL re-allocation, payloads refused after decoding started,
// keys deleted after a MIGRATE): round trips of every type, options, damaged payloads,
// and MIGRATE against a scripted target on a local socket.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>
#include <thread>

#include "in_process.h"
#include "rdb/rdb.h"

namespace hotkv::testing {
namespace {

// The payload of a bulk reply ("$<n>\r\n<bytes>\r\n").
std::string Bulk(const std::string& reply) {
  EXPECT_EQ(reply[0], '$') << reply;
  size_t start = reply.find("\r\n") + 2;
  return reply.substr(start, reply.size() - start - 2);
}

class DumpRestore : public ::testing::Test {
 protected:
  // The LRU clock is advanced by the server's cron, which does not run here.
  DumpRestore() { s_.server().UpdateLruClock(WallClockMs()); }

  std::string Run(const std::vector<std::string>& args) { return s_.Run(c_, args); }
  std::string Dump(const std::string& key) { return Bulk(Run({"DUMP", key})); }
  // The length of a value, whatever its type.
  std::string Size(const std::string& key) {
    const std::string type = Run({"TYPE", key});
    const char* cmd = type == "+string\r\n" ? "STRLEN"
                      : type == "+list\r\n" ? "LLEN"
                      : type == "+hash\r\n" ? "HLEN"
                      : type == "+set\r\n"  ? "SCARD"
                                              : "ZCARD";
    return Run({cmd, key});
  }

  InProcessServer s_;
  LocalClient& c_ = s_.NewClient();
};

TEST_F(DumpRestore, EveryTypeRoundTrips) {
  Run({"SET", "s", "value"});
  Run({"RPUSH", "l", "a", "1", "b"});
  Run({"HSET", "h", "f", "v", "g", std::string(100, 'x')});
  Run({"SADD", "i", "1", "2", "3"});
  Run({"SADD", "t", "a", "b"});
  Run({"ZADD", "z", "1", "a", "inf", "b"});
  for (const char* key : {"s", "l", "h", "i", "t", "z"}) {
    std::string copy = std::string(key) + ":copy";
    ASSERT_EQ(Run({"RESTORE", copy, "0", Dump(key)}), "+OK\r\n") << key;
  }
  // Ordered values DUMP the same; a hash table's order may differ after the rebuild.
  for (const char* key : {"s", "l", "i", "z"}) {
    EXPECT_EQ(Dump(std::string(key) + ":copy"), Dump(key)) << key;
  }
  EXPECT_EQ(Run({"LRANGE", "l:copy", "0", "-1"}), "*3\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"HLEN", "h:copy"}), ":2\r\n");
  EXPECT_EQ(Run({"HGET", "h:copy", "g"}), "$100\r\n" + std::string(100, 'x') + "\r\n");
  EXPECT_EQ(Run({"SMISMEMBER", "t:copy", "a", "b", "c"}), "*3\r\n:1\r\n:1\r\n:0\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z:copy", "0", "-1", "WITHSCORES"}),
            "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$3\r\ninf\r\n");
  EXPECT_EQ(Run({"DUMP", "missing"}), "$-1\r\n");
}

TEST_F(DumpRestore, ReplaceAndTtl) {
  Run({"SET", "src", "new"});
  const std::string p = Dump("src");
  // The old key had a TTL (an expire block); the restored one gets a new TTL.
  Run({"RPUSH", "k", "x"});
  Run({"PEXPIRE", "k", "100000"});
  EXPECT_EQ(Run({"RESTORE", "k", "0", p}), "-BUSYKEY Target key name already exists.\r\n");
  EXPECT_EQ(Run({"RESTORE", "k", "50000", p, "REPLACE"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$3\r\nnew\r\n");
  EXPECT_EQ(Run({"TYPE", "k"}), "+string\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":50\r\n");
  EXPECT_EQ(Run({"RESTORE", "k", "0", p, "REPLACE"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  // A past absolute TTL with REPLACE deletes the old key and creates nothing.
  EXPECT_EQ(Run({"RESTORE", "k", "1", p, "REPLACE", "ABSTTL"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"RESTORE", "k", "1000", p, "IDLETIME", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "k"}), ":100\r\n");
}

TEST_F(DumpRestore, DamagedPayloadsCreateNothing) {
  Run({"RPUSH", "l", "a", "bb", "ccc", "12345"});
  Run({"HSET", "h", "f1", "v1", "f2", "v2"});
  Run({"ZADD", "z", "1", "a", "2.5", "b"});
  Run({"SADD", "i", "1", "70000", "5000000000"});
  const std::vector<std::string> payloads = {Dump("l"), Dump("h"), Dump("z"), Dump("i")};
  std::mt19937 rng(15);  // test-only randomness: seeded, reproducible
  for (int n = 0; n < 2000; n++) {
    std::string body = payloads[rng() % payloads.size()];
    body.resize(body.size() - 10);
    if (rng() % 2 == 0) {
      body.resize(rng() % body.size());
    } else {
      body[rng() % body.size()] ^= static_cast<char>(1 << (rng() % 8));
    }
    std::string p = body + std::string("\x0a\x00", 2);
    uint64_t crc = rdb::Crc64(0, p.data(), p.size());
    for (int i = 0; i < 8; i++) {
      p += static_cast<char>(crc >> (8 * i));
    }
    std::string reply = Run({"RESTORE", "fz", "0", p});
    if (reply == "+OK\r\n") {
      // Accepted: the value DUMPs and RESTOREs again, with the same type and size.
      ASSERT_EQ(Run({"RESTORE", "fz2", "0", Dump("fz")}), "+OK\r\n");
      ASSERT_EQ(Run({"TYPE", "fz2"}), Run({"TYPE", "fz"}));
      ASSERT_EQ(Size("fz2"), Size("fz"));
      Run({"DEL", "fz", "fz2"});
    } else {
      ASSERT_EQ(reply, "-ERR Bad data format\r\n");
      ASSERT_EQ(Run({"EXISTS", "fz"}), ":0\r\n");
    }
  }
}

// A target on a local port: reads until it has seen `restores` RESTORE commands, then
// replies +OK to SELECT and to each of them, or the error line `fail` to the first RESTORE.
class ScriptedTarget {
 public:
  ScriptedTarget(int restores, std::string fail = "") {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(fd_, 1);
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, restores, fail] {
      int c = accept(fd_, nullptr, nullptr);
      std::string in;
      char buf[65536];
      size_t seen = 0;
      while (seen < static_cast<size_t>(restores)) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) {
          break;
        }
        in.append(buf, static_cast<size_t>(n));
        seen = 0;
        for (size_t at = in.find("RESTORE"); at != std::string::npos; at = in.find("RESTORE", at + 1)) {
          seen++;
        }
      }
      request_ = in;
      std::string out = "+OK\r\n";
      for (int i = 0; i < restores; i++) {
        out += (i == 0 && !fail.empty()) ? fail : "+OK\r\n";
      }
      (void)!write(c, out.data(), out.size());
      close(c);
    });
  }
  ~ScriptedTarget() {
    Join();
    close(fd_);
  }
  std::string port() const { return std::to_string(port_); }
  // What MIGRATE sent (waits for the exchange to end).
  std::string request() {
    Join();
    return request_;
  }

 private:
  void Join() {
    if (thread_.joinable()) {
      thread_.join();
    }
  }

  int fd_;
  int port_;
  std::thread thread_;
  std::string request_;
};

TEST_F(DumpRestore, MigrateDeletesWhatTheTargetAccepted) {
  Run({"SET", "a", "1"});
  Run({"RPUSH", "b", "x", "y"});
  Run({"PEXPIRE", "b", "100000"});
  ScriptedTarget t(2);
  EXPECT_EQ(Run({"MIGRATE", "127.0.0.1", t.port(), "", "0", "5000", "REPLACE", "KEYS", "a", "b",
                 "missing"}),
            "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "a", "b"}), ":0\r\n");
  const std::string req = t.request();
  EXPECT_EQ(req.rfind("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*5\r\n$7\r\nRESTORE\r\n$1\r\na\r\n$1\r\n0\r\n", 0), 0u);
  EXPECT_NE(req.find("$7\r\nREPLACE\r\n"), std::string::npos);
}

TEST_F(DumpRestore, MigrateKeepsKeysTheTargetRefused) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2"});
  ScriptedTarget t(2, "-BUSYKEY Target key name already exists.\r\n");
  EXPECT_EQ(Run({"MIGRATE", "127.0.0.1", t.port(), "", "0", "5000", "KEYS", "a", "b"}),
            "-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "b"}), ":0\r\n");
}

TEST_F(DumpRestore, MigrateNokeyAndArguments) {
  EXPECT_EQ(Run({"MIGRATE", "127.0.0.1", "1", "missing", "0", "100"}), "+NOKEY\r\n");
  EXPECT_EQ(Run({"MIGRATE", "127.0.0.1", "1", "k", "0", "100", "KEYS", "a"}),
            "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string\r\n");
  EXPECT_EQ(Run({"MIGRATE", "127.0.0.1", "1", "k", "x", "100"}),
            "-ERR value is not an integer or out of range\r\n");
}

}  // namespace
}  // namespace hotkv::testing

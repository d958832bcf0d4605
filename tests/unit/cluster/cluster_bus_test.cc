// The cluster bus runtime, in process: several ClusterState + ClusterBus pairs on
// loopback (ephemeral bus ports) meet, learn each other's slots, and detect a stopped
// node. Waits are bounded polls; nothing asserts on timing.
#include "cluster/cluster_bus.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <random>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster/bus_message.h"

namespace hotkv::cluster {
namespace {

struct TestNode {
  std::unique_ptr<ClusterState> state;
  std::unique_ptr<ClusterBus> bus;
  int cport = 0;
  int port = 0;
  std::string name;
};

class ClusterBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hotkv_clbus_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    nodes_.reserve(8);  // AddNode returns references into it
  }
  void TearDown() override {
    for (auto& n : nodes_) {
      if (n.bus) n.bus->Stop();
    }
    nodes_.clear();
    std::filesystem::remove_all(dir_);
  }

  TestNode& AddNode(int64_t timeout_ms = 15000, const std::string& hostname = "") {
    TestNode n;
    n.state = std::make_unique<ClusterState>();
    n.bus = std::make_unique<ClusterBus>(n.state.get());
    EXPECT_TRUE(n.bus->Start({"127.0.0.1"}, 0).ok());
    n.cport = n.bus->listen_port();
    n.port = 20000 + static_cast<int>(nodes_.size());  // client port: only advertised
    ClusterSettings s;
    s.config_file = (dir_ / ("nodes-" + std::to_string(nodes_.size()) + ".conf")).string();
    s.port = n.port;
    s.cport = n.cport;
    s.node_timeout_ms = timeout_ms;
    s.announce_hostname = hostname;
    n.state->SetSettings(s);
    EXPECT_TRUE(n.state->LoadOrCreate().ok());
    n.state->SetBus(n.bus.get());
    n.name = n.state->MyName();
    nodes_.push_back(std::move(n));
    return nodes_.back();
  }

  // Polls `pred` every 20 ms for at most `seconds`.
  static bool WaitFor(const std::function<bool()>& pred, int seconds = 15) {
    for (int i = 0; i < seconds * 50; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pred();
  }

  // Every node knows every other under its real name, none in handshake.
  bool AllAgree() {
    for (auto& n : nodes_) {
      std::vector<Node> list = n.state->Nodes();
      if (list.size() != nodes_.size()) return false;
      for (const Node& x : list) {
        if (x.Has(kFlagHandshake)) return false;
      }
      for (auto& other : nodes_) {
        if (!n.state->GetNode(other.name)) return false;
      }
    }
    return true;
  }

  // A real Redis node (7.0 or 8.x) and a HotKV bus meet; each shows the other.
  void MeetRealRedis(const char* redis);

  std::filesystem::path dir_;
  std::vector<TestNode> nodes_;
};

TEST_F(ClusterBusTest, MeetHandshakeRenamesAndGossipSpreads) {
  TestNode& a = AddNode();
  AddNode();
  AddNode();
  // a meets b; c meets a: b learns c through gossip.
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", nodes_[1].port, nodes_[1].cport, true));
  ASSERT_TRUE(nodes_[2].state->StartHandshake("127.0.0.1", a.port, a.cport, true));
  ASSERT_TRUE(WaitFor([&] { return AllAgree(); }));
  // Addresses as the peers see them.
  auto b_in_a = a.state->GetNode(nodes_[1].name);
  ASSERT_TRUE(b_in_a);
  EXPECT_EQ(b_in_a->ip, "127.0.0.1");
  EXPECT_EQ(b_in_a->port, nodes_[1].port);
  EXPECT_EQ(b_in_a->cport, nodes_[1].cport);
  EXPECT_TRUE(b_in_a->IsPrimary());
  // Every node learned its own address from a link.
  EXPECT_TRUE(WaitFor([&] {
    for (auto& n : nodes_) {
      if (n.state->Myself().ip != "127.0.0.1") return false;
    }
    return true;
  }));
  // Shard ids travel in ping extensions between HotKV nodes.
  EXPECT_TRUE(WaitFor([&] {
    auto b = a.state->GetNode(nodes_[1].name);
    return b && b->shard_id == nodes_[1].state->MyShardId();
  }));
  // CLUSTER LINKS: a has links to and from both others.
  EXPECT_TRUE(WaitFor([&] { return a.bus->Links().size() >= 4; }));
  auto stats = a.bus->MessageStats();
  bool saw_ping = false;
  for (auto& [k, v] : stats) saw_ping |= (k == "cluster_stats_messages_ping_sent" && v > 0);
  EXPECT_TRUE(saw_ping);
}

TEST_F(ClusterBusTest, SlotsPropagateAndHigherEpochWins) {
  TestNode& a = AddNode();
  TestNode& b = AddNode();
  ASSERT_TRUE(a.state->AddSlots({0, 1, 2, 100}).ok());
  ASSERT_TRUE(a.state->SetConfigEpoch(1).ok());
  ASSERT_TRUE(b.state->AddSlots({200, 16383}).ok());
  ASSERT_TRUE(b.state->SetConfigEpoch(2).ok());
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", b.port, b.cport, true));
  ASSERT_TRUE(WaitFor([&] {
    return b.state->SlotOwner(100) == a.name && a.state->SlotOwner(16383) == b.name &&
           a.state->SlotOwner(200) == b.name && b.state->SlotOwner(0) == a.name;
  }));
  // b takes slot 100 with a higher epoch (as SETSLOT NODE + BUMPEPOCH would): a gives it up.
  {
    auto lock = b.state->Lock();
    Node* me = b.state->MyselfLocked();
    ASSERT_TRUE(me);
  }
  ASSERT_TRUE(b.state->SetSlotNode(100, b.name, 0).ok());
  b.state->BumpEpoch();
  EXPECT_TRUE(WaitFor([&] { return a.state->SlotOwner(100) == b.name; }));
  EXPECT_GE(a.state->current_epoch(), b.state->Myself().config_epoch);
}

TEST_F(ClusterBusTest, ConfigEpochCollisionIsResolved) {
  TestNode& a = AddNode();
  TestNode& b = AddNode();
  // Both primaries at config epoch 0: the one with the smaller name moves on.
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", b.port, b.cport, true));
  ASSERT_TRUE(WaitFor([&] { return AllAgree(); }));
  EXPECT_TRUE(WaitFor([&] {
    return a.state->Myself().config_epoch != b.state->Myself().config_epoch;
  }));
}

TEST_F(ClusterBusTest, StoppedNodeBecomesFail) {
  for (int i = 0; i < 3; ++i) AddNode(/*timeout_ms=*/500);
  ASSERT_TRUE(nodes_[0].state->AddSlots({0}).ok());
  ASSERT_TRUE(nodes_[1].state->AddSlots({1}).ok());
  ASSERT_TRUE(nodes_[2].state->AddSlots({2}).ok());
  ASSERT_TRUE(nodes_[0].state->StartHandshake("127.0.0.1", nodes_[1].port, nodes_[1].cport, true));
  ASSERT_TRUE(nodes_[0].state->StartHandshake("127.0.0.1", nodes_[2].port, nodes_[2].cport, true));
  ASSERT_TRUE(WaitFor([&] { return AllAgree(); }));
  ASSERT_TRUE(WaitFor([&] {
    return nodes_[0].state->SlotOwner(2) == nodes_[2].name &&
           nodes_[1].state->SlotOwner(2) == nodes_[2].name;
  }));
  std::string dead = nodes_[2].name;
  nodes_[2].bus->Stop();
  // PFAIL after the timeout, then FAIL once the two remaining primaries (a majority of
  // three) agree; FAIL is broadcast, so both end up with it.
  EXPECT_TRUE(WaitFor([&] {
    auto x = nodes_[0].state->GetNode(dead);
    auto y = nodes_[1].state->GetNode(dead);
    return x && y && x->Has(kFlagFail) && y->Has(kFlagFail);
  }));
}

TEST_F(ClusterBusTest, PublishFansOut) {
  TestNode& a = AddNode();
  TestNode& b = AddNode();
  std::mutex mu;
  std::vector<std::string> got;
  // (Set after Start here: nothing is published to b before the callback is in place.)
  b.bus->SetDeliver([&](std::string_view ch, std::string_view msg, bool shard) {
    std::lock_guard g(mu);
    got.push_back(std::string(ch) + "=" + std::string(msg) + (shard ? "/shard" : ""));
  });
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", b.port, b.cport, true));
  ASSERT_TRUE(WaitFor([&] { return AllAgree(); }));
  // Links come up a little after agreement: publish until one arrives (bounded).
  ASSERT_TRUE(WaitFor([&] {
    a.bus->Publish("news", std::string("hi\0there", 8), false);
    std::lock_guard g(mu);
    return !got.empty();
  }));
  b.bus->Stop();  // its thread calls the callback, which refers to this frame
  EXPECT_EQ(got[0], "news=" + std::string("hi\0there", 8));
}

TEST_F(ClusterBusTest, UnansweredHandshakeIsDropped) {
  TestNode& a = AddNode(/*timeout_ms=*/500);
  // Nothing listens there (a port just closed): the handshake node goes after
  // max(node timeout, 1 s).
  int sock = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
  socklen_t len = sizeof(sa);
  getsockname(sock, reinterpret_cast<sockaddr*>(&sa), &len);
  int dead_port = ntohs(sa.sin_port);
  close(sock);
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", 7000, dead_port, true));
  EXPECT_EQ(a.state->Nodes().size(), 2u);
  EXPECT_TRUE(WaitFor([&] { return a.state->Nodes().size() == 1; }, 10));
}

TEST_F(ClusterBusTest, MeetingItselfChangesNothing) {
  TestNode& a = AddNode();
  ASSERT_TRUE(a.state->AddSlots({5}).ok());
  uint64_t epoch = a.state->Myself().config_epoch;
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", a.port, a.cport, true));
  // The handshake reaches ourselves and is dropped; nothing else changes.
  EXPECT_TRUE(WaitFor([&] { return a.state->Nodes().size() == 1; }, 10));
  EXPECT_EQ(a.state->Myself().config_epoch, epoch);
  EXPECT_TRUE(a.state->Myself().IsPrimary());
  EXPECT_EQ(a.state->SlotOwner(5), a.name);
}

TEST_F(ClusterBusTest, MalformedInputClosesTheLinkOnly) {
  TestNode& a = AddNode();
  TestNode& b = AddNode();
  auto send_raw = [&](const std::string& bytes) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(a.cport));
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    // The bus closes the link: read returns 0 (bounded by a receive timeout).
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[4096];
    ssize_t n;
    do {
      n = read(fd, buf, sizeof(buf));
    } while (n > 0);
    EXPECT_EQ(n, 0);
    close(fd);
  };
  send_raw("GET / HTTP/1.0\r\n\r\n");
  // A PING whose gossip count runs past its length.
  bus::Message m;
  m.hdr.type = bus::kPing;
  m.hdr.sender = std::string(40, 'a');
  std::string raw = bus::Encode(m);
  raw[14] = 5;
  send_raw(raw);
  // The bus still works.
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", b.port, b.cport, true));
  EXPECT_TRUE(WaitFor([&] { return AllAgree(); }));
}

}  // namespace
}  // namespace hotkv::cluster

// ---------------------------------------------------------------------------------------
// Interop with a real Redis 7.0 node (Debian's /usr/bin/redis-server; skipped without it).

namespace hotkv::cluster {
namespace {

bool PortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  close(fd);
  return ok;
}

// A free client port whose bus port (+10000) is free too.
int FreePort() {
  std::mt19937 rng(static_cast<unsigned>(getpid()) * 7919u + static_cast<unsigned>(time(nullptr)));
  for (int i = 0; i < 200; ++i) {
    int p = 21000 + static_cast<int>(rng() % 20000);
    if (PortFree(p) && PortFree(p + 10000)) return p;
  }
  return 0;
}

// One inline command, the whole reply (read until a short pause).
std::string RedisCall(int port, const std::string& cmd) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return "";
  }
  std::string line = cmd + "\r\n";
  if (write(fd, line.data(), line.size()) < 0) {
    close(fd);
    return "";
  }
  timeval tv{0, 200000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string out;
  char buf[8192];
  for (int i = 0; i < 50; ++i) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

void ClusterBusTest::MeetRealRedis(const char* redis) {
  int rport = FreePort();
  std::string rdir = (dir_ / "redis").string();
  std::filesystem::create_directories(rdir);
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(rdir.c_str()) != 0) _exit(1);
    std::string p = std::to_string(rport);
    execl(redis, redis, "--port", p.c_str(), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
          "--save", "", "--appendonly", "no", "--cluster-node-timeout", "5000",
          "--logfile", "redis.log", "--cluster-announce-hostname", "redis-host",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  struct Killer {
    pid_t pid;
    ~Killer() {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } killer{pid};
  ASSERT_TRUE(WaitFor([&] { return RedisCall(rport, "PING").rfind("+PONG", 0) == 0; }, 10));
  std::string myid = RedisCall(rport, "CLUSTER MYID");
  ASSERT_GT(myid.size(), 40u);
  std::string rname = myid.substr(myid.find('\n') + 1, 40);
  ASSERT_EQ(RedisCall(rport, "CLUSTER ADDSLOTSRANGE 0 10"), "+OK\r\n");

  TestNode& a = AddNode(15000, "hotkv-host");
  ASSERT_TRUE(a.state->AddSlots({11, 12, 13}).ok());
  ASSERT_TRUE(a.state->StartHandshake("127.0.0.1", rport, rport + 10000, true));
  ASSERT_TRUE(WaitFor([&] {
    auto r = a.state->GetNode(rname);
    return r && !r->Has(kFlagHandshake) && a.state->SlotOwner(10) == rname;
  }));
  // Redis shows us with our name, as a connected primary with our slots.
  // Hostnames travel in ping extensions both ways.
  std::string want = a.name + " 127.0.0.1:" + std::to_string(a.port) + "@" +
                     std::to_string(a.cport) + ",hotkv-host master - ";
  std::string nodes;
  EXPECT_TRUE(WaitFor([&] {
    nodes = RedisCall(rport, "CLUSTER NODES");
    size_t at = nodes.find(want);
    if (at == std::string::npos) return false;
    std::string line = nodes.substr(at, nodes.find('\n', at) - at);
    return line.find(" connected 11-13") != std::string::npos;
  })) << nodes;
  EXPECT_TRUE(WaitFor([&] {
    auto r = a.state->GetNode(rname);
    return r && r->hostname == "redis-host";
  }));
  // Nothing HotKV sent was unknown to that Redis (7.0 knows only the hostname extension).
  std::ifstream log(rdir + "/redis.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("unknown extension"), std::string::npos) << text;
  EXPECT_EQ(text.find("invalid"), std::string::npos) << text;
}

TEST_F(ClusterBusTest, MeetsRealRedis70) {
  const char* redis = "/usr/bin/redis-server";
  if (access(redis, X_OK) != 0) GTEST_SKIP() << "no " << redis;
  MeetRealRedis(redis);
}

TEST_F(ClusterBusTest, MeetsRealRedis8) {
  const char* redis = HOTKV_SOURCE_DIR "/../shared/peers/redis-8.8/redis-server";
  std::string alt = "/work/shared/peers/redis-8.8/redis-server";
  if (access(redis, X_OK) != 0) redis = alt.c_str();
  if (access(redis, X_OK) != 0) GTEST_SKIP() << "no Redis 8 peer";
  MeetRealRedis(redis);
}

}  // namespace
}  // namespace hotkv::cluster

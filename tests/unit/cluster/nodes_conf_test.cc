#include "cluster/nodes_conf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "cluster/cluster_state.h"

namespace hotkv::cluster {
namespace {

const char kA[] = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca";
const char kB[] = "07c37dfeb235213a872192d90877d0cd55635b91";
const char kC[] = "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f";

std::string RedisFile() {
  return std::string(kA) + " 127.0.0.1:30001@31001 myself,master - 0 1426238316232 2 connected 0-5460 [5461->-" + kB + "] [6000-<-" + kC + "]\n" +
         kB + " 127.0.0.1:30002@31002,host-b master - 1426238316232 1426238317741 3 disconnected 5461-10922\n" +
         kC + " 127.0.0.1:30004@31004 slave " + kB + " 0 1426238317239 3 connected\n" +
         "vars currentEpoch 6 lastVoteEpoch 4\n";
}

TEST(NodesConf, ParsesRedisFile) {
  ParsedNodesConf c;
  ASSERT_TRUE(ParseNodesConf(RedisFile(), &c).ok());
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.current_epoch, 6u);
  EXPECT_EQ(c.last_vote_epoch, 4u);
  const Node& a = c.nodes[0];
  EXPECT_EQ(a.name, kA);
  EXPECT_EQ(a.ip, "127.0.0.1");
  EXPECT_EQ(a.port, 30001);
  EXPECT_EQ(a.cport, 31001);
  EXPECT_EQ(a.flags, kFlagMyself | kFlagMaster);
  EXPECT_EQ(a.config_epoch, 2u);
  EXPECT_EQ(a.NumSlots(), 5461);
  EXPECT_EQ(c.nodes[1].hostname, "host-b");
  EXPECT_EQ(c.nodes[1].NumSlots(), 10922 - 5461 + 1);
  EXPECT_EQ(c.nodes[2].primary, kB);
  EXPECT_TRUE(c.nodes[2].IsReplica());
  ASSERT_EQ(c.migrating.size(), 1u);
  EXPECT_EQ(c.migrating[0].first, 5461);
  EXPECT_EQ(c.migrating[0].second, kB);
  ASSERT_EQ(c.importing.size(), 1u);
  EXPECT_EQ(c.importing[0].first, 6000);
  EXPECT_EQ(c.importing[0].second, kC);
}

TEST(NodesConf, ParsesRedis72AuxFields) {
  std::string text = std::string(kA) +
                     " 127.0.0.1:30001@31001,,tls-port=0,shard-id=" + kB +
                     " myself,master - 0 0 1 connected 0-1\nvars currentEpoch 1 lastVoteEpoch 0\n";
  ParsedNodesConf c;
  ASSERT_TRUE(ParseNodesConf(text, &c).ok());
  EXPECT_EQ(c.nodes[0].hostname, "");
  EXPECT_EQ(c.nodes[0].shard_id, kB);
}

TEST(NodesConf, CorruptFilesAreErrors) {
  const std::string good = std::string(kA) + " 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-1\n";
  const std::string bad[] = {
      std::string(kA) + " 127.0.0.1:30001@31001 myself,master - 0 0 1\n",        // too short
      std::string("xyz 127.0.0.1:30001@31001 myself,master - 0 0 1 connected\n"),  // bad id
      std::string(kA) + " 127.0.0.1 myself,master - 0 0 1 connected\n",            // no port
      std::string(kA) + " 127.0.0.1:99999@1 myself,master - 0 0 1 connected\n",    // port range
      std::string(kA) + " 127.0.0.1:1@2 myself,bogus - 0 0 1 connected\n",         // flag
      std::string(kA) + " 127.0.0.1:1@2 myself,master - 0 0 1 connected 16384\n",  // slot range
      std::string(kA) + " 127.0.0.1:1@2 myself,master - 0 0 1 connected 9-3\n",    // reversed
      std::string(kA) + " 127.0.0.1:1@2 myself,master - 0 0 1 connected [5->-xx]\n",
      std::string(kA) + " 127.0.0.1:1@2 myself,master - x 0 1 connected\n",        // ping
      std::string(kA) + " 127.0.0.1:1@2 myself,master - 0 0 1 sideways\n",         // link
      std::string(kA) + " 127.0.0.1:1@2 master - 0 0 1 connected\n",               // no myself
      good + good,                                                                    // duplicate
      good + "vars currentEpoch\n",
      good + "vars currentEpoch x lastVoteEpoch 0\n",
      std::string("\x01\x02\xff garbage\n"),
  };
  for (const std::string& text : bad) {
    ParsedNodesConf c;
    Status st = ParseNodesConf(text, &c);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find("corrupted cluster config file"), std::string::npos) << st.message();
  }
  ParsedNodesConf c;
  EXPECT_TRUE(ParseNodesConf(good, &c).ok());
}

TEST(NodesConf, SlotRanges) {
  SlotBitmap b;
  b.set(0);
  b.set(1);
  b.set(2);
  b.set(7);
  b.set(16383);
  std::string out;
  AppendSlotRanges(b, &out);
  EXPECT_EQ(out, " 0-2 7 16383");
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/hotkv_nodesconf_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(NodesConf, StateRoundTripsThroughTheFile) {
  TempDir dir;
  std::string file = dir.path() + "/nodes.conf";
  ASSERT_TRUE(WriteFileAtomic(file, RedisFile()).ok());
  ClusterSettings s;
  s.config_file = file;
  s.port = 30001;
  s.cport = 31001;
  std::string first;
  {
    ClusterState st;
    st.SetSettings(s);
    ASSERT_TRUE(st.LoadOrCreate().ok());
    EXPECT_EQ(st.MyName(), kA);
    EXPECT_EQ(st.current_epoch(), 6u);
    EXPECT_EQ(st.last_vote_epoch(), 4u);
    EXPECT_EQ(st.SlotOwner(100), kA);
    EXPECT_EQ(st.SlotOwner(6000), kB);
    EXPECT_EQ(st.MigratingTo(5461), kB);  // kept as the file says
    EXPECT_FALSE(st.Route(5461).migrating());  // but B owns it: not routed as migrating
    EXPECT_EQ(st.ImportingFrom(6000), kC);
    EXPECT_TRUE(st.Route(100).plain_mine());
    SlotRoute r = st.Route(7000);
    EXPECT_EQ(r.kind(), SlotRoute::kOther);
    EXPECT_EQ(st.Endpoint(r.owner_endpoint()), "127.0.0.1:30002");
    EXPECT_EQ(st.Route(16000).kind(), SlotRoute::kUnassigned);
    first = st.NodesText(true);
  }
  {
    ClusterState st;
    st.SetSettings(s);
    ASSERT_TRUE(st.LoadOrCreate().ok());
    // Times read from a file become "now" (as Redis does): compare without them.
    auto strip = [](std::string t) {
      std::string out;
      for (size_t i = 0; i < t.size();) {
        if (isdigit(static_cast<unsigned char>(t[i])) && i + 13 <= t.size() &&
            std::all_of(t.begin() + i, t.begin() + i + 13, ::isdigit)) {
          out += "T";
          i += 13;
        } else {
          out += t[i++];
        }
      }
      return out;
    };
    EXPECT_EQ(strip(st.NodesText(true)), strip(first));
  }
}

TEST(NodesConf, FreshNodeIsCreatedAndSaved) {
  TempDir dir;
  ClusterSettings s;
  s.config_file = dir.path() + "/nodes.conf";
  s.port = 7000;
  s.cport = 17000;
  std::string name;
  {
    ClusterState st;
    st.SetSettings(s);
    ASSERT_TRUE(st.LoadOrCreate().ok());
    name = st.MyName();
    EXPECT_TRUE(IsValidNodeName(name));
    EXPECT_FALSE(st.cluster_ok());
    ASSERT_TRUE(st.AddSlots({1, 2, 3}).ok());
    EXPECT_FALSE(st.AddSlots({3}).ok());
    ASSERT_TRUE(st.SaveConfig().ok());
  }
  ClusterState st;
  st.SetSettings(s);
  ASSERT_TRUE(st.LoadOrCreate().ok());
  EXPECT_EQ(st.MyName(), name);
  EXPECT_EQ(st.SlotOwner(2), name);
  EXPECT_EQ(st.NodesText(false), name + " :7000@17000 myself,master - 0 0 0 connected 1-3\n");
}

TEST(NodesConf, CorruptFileRefusesToLoad) {
  TempDir dir;
  std::string file = dir.path() + "/nodes.conf";
  ASSERT_TRUE(WriteFileAtomic(file, "this is not a nodes.conf\n").ok());
  ClusterSettings s;
  s.config_file = file;
  ClusterState st;
  st.SetSettings(s);
  Status r = st.LoadOrCreate();
  EXPECT_FALSE(r.ok());
}

TEST(ClusterState, ClaimSlotsByConfigEpoch) {
  TempDir dir;
  ClusterSettings s;
  s.config_file = dir.path() + "/nodes.conf";
  ClusterState st;
  st.SetSettings(s);
  ASSERT_TRUE(st.LoadOrCreate().ok());
  ASSERT_TRUE(st.AddSlots({10, 11}).ok());
  ASSERT_TRUE(st.SetConfigEpoch(5).ok());
  {
    auto lock = st.Lock();
    st.AddNodeLocked(kB, kFlagMaster);
  }
  st.SetNodeAddress(kB, "10.0.0.2", 7001, 17001);
  SlotBitmap claim;
  claim.set(10);
  claim.set(12);
  EXPECT_FALSE(st.ClaimSlots(kB, 4, claim));  // lower epoch: only the free slot 12
  EXPECT_EQ(st.SlotOwner(10), st.MyName());
  EXPECT_EQ(st.SlotOwner(12), kB);
  EXPECT_TRUE(st.ClaimSlots(kB, 6, claim));  // higher epoch: takes 10 from myself
  EXPECT_EQ(st.SlotOwner(10), kB);
  EXPECT_EQ(st.Endpoint(st.Route(10).owner_endpoint()), "10.0.0.2:7001");
}

// Slots myself loses to a higher config epoch are queued as dirty (their keys go), once
// each; slots it imports and slots it did not own are not. Losing the last slot leaves
// myself a primary (no replication: it cannot become the sender's replica).
TEST(ClusterState, ClaimSlotsQueuesDirtySlots) {
  TempDir dir;
  ClusterSettings s;
  s.config_file = dir.path() + "/nodes.conf";
  ClusterState st;
  st.SetSettings(s);
  ASSERT_TRUE(st.LoadOrCreate().ok());
  ASSERT_TRUE(st.AddSlots({10, 11, 20}).ok());
  ASSERT_TRUE(st.SetConfigEpoch(5).ok());
  {
    auto lock = st.Lock();
    st.AddNodeLocked(kB, kFlagMaster);
  }
  st.SetNodeAddress(kB, "10.0.0.2", 7001, 17001);
  ASSERT_TRUE(st.SetSlotImporting(30, kB).ok());
  const uint64_t v0 = st.route_version();
  EXPECT_TRUE(st.TakeLostSlots().empty());
  SlotBitmap claim;
  claim.set(10);
  claim.set(11);
  claim.set(12);  // unassigned: not ours, not dirty
  claim.set(30);  // importing: left alone
  EXPECT_TRUE(st.ClaimSlots(kB, 6, claim));
  EXPECT_GT(st.route_version(), v0);
  EXPECT_EQ(st.TakeLostSlots(), (std::vector<int>{10, 11}));
  EXPECT_TRUE(st.TakeLostSlots().empty());
  EXPECT_EQ(st.ImportingFrom(30), kB);
  EXPECT_EQ(st.SlotOwner(30), "");
  // The same claim again changes nothing.
  const uint64_t v1 = st.route_version();
  EXPECT_FALSE(st.ClaimSlots(kB, 6, claim));
  EXPECT_TRUE(st.TakeLostSlots().empty());
  EXPECT_EQ(st.route_version(), v1);
  // The last slot.
  SlotBitmap last;
  last.set(20);
  EXPECT_TRUE(st.ClaimSlots(kB, 7, last));
  EXPECT_EQ(st.TakeLostSlots(), (std::vector<int>{20}));
  EXPECT_EQ(st.Myself().NumSlots(), 0);
  EXPECT_TRUE(st.Myself().IsPrimary());
  EXPECT_EQ(st.Myself().primary, "");
}

}  // namespace
}  // namespace hotkv::cluster

namespace hotkv::cluster {
namespace {

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hotkv_clstate_XXXXXX";
    dir_ = mkdtemp(tmpl);
    ClusterSettings s;
    s.config_file = dir_ + "/nodes.conf";
    s.port = 7000;
    s.cport = 17000;
    st_.SetSettings(s);
    ASSERT_TRUE(st_.LoadOrCreate().ok());
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string AddOther(const char* name, const char* ip, int port) {
    {
      auto lock = st_.Lock();
      st_.AddNodeLocked(name, kFlagMaster);
    }
    st_.SetNodeAddress(name, ip, port, port + 10000);
    return name;
  }
  std::string dir_;
  ClusterState st_;
};

TEST_F(StateTest, OpenSlotsInTheRouteTable) {
  std::string b = AddOther("07c37dfeb235213a872192d90877d0cd55635b91", "10.0.0.2", 7001);
  ASSERT_TRUE(st_.AddSlots({100}).ok());
  EXPECT_TRUE(st_.Route(100).plain_mine());
  EXPECT_FALSE(st_.SetSlotImporting(100, b).ok());  // already mine
  ASSERT_TRUE(st_.SetSlotMigrating(100, b).ok());
  SlotRoute r = st_.Route(100);
  EXPECT_TRUE(r.mine() && r.migrating() && !r.plain_mine());
  EXPECT_EQ(st_.Endpoint(r.migrating_endpoint()), "10.0.0.2:7001");
  // The target moves: the route follows.
  st_.SetNodeAddress(b, "10.0.0.3", 7002, 17002);
  EXPECT_EQ(st_.Endpoint(st_.Route(100).migrating_endpoint()), "10.0.0.3:7002");
  ASSERT_TRUE(st_.SetSlotStable(100).ok());
  EXPECT_TRUE(st_.Route(100).plain_mine());
  // Importing a slot B owns.
  ASSERT_TRUE(st_.SetSlotNode(200, b, 0).ok());
  ASSERT_TRUE(st_.SetSlotImporting(200, b).ok());
  r = st_.Route(200);
  EXPECT_EQ(r.kind(), SlotRoute::kOther);
  EXPECT_TRUE(r.importing());
  // Taking it closes the import and bumps myself's config epoch.
  ASSERT_TRUE(st_.SetSlotNode(200, st_.MyName(), 0).ok());
  EXPECT_TRUE(st_.Route(200).plain_mine());
  EXPECT_EQ(st_.Myself().config_epoch, 1u);
  // A slot with keys cannot be given away.
  EXPECT_FALSE(st_.SetSlotNode(200, b, 3).ok());
}

TEST_F(StateTest, EpochsForgetReset) {
  EXPECT_EQ(st_.BumpEpoch(), "BUMPED 1");
  EXPECT_EQ(st_.BumpEpoch(), "STILL 1");
  std::string b = AddOther("07c37dfeb235213a872192d90877d0cd55635b91", "10.0.0.2", 7001);
  EXPECT_FALSE(st_.SetConfigEpoch(5).ok());  // another node is known
  st_.SetNodeConfigEpoch(b, 4);
  EXPECT_EQ(st_.current_epoch(), 4u);
  EXPECT_EQ(st_.BumpEpoch(), "BUMPED 5");
  ASSERT_TRUE(st_.Forget(b, 1000).ok());
  EXPECT_FALSE(st_.GetNode(b).has_value());
  EXPECT_TRUE(st_.IsBlacklisted(b, 2000));
  EXPECT_FALSE(st_.IsBlacklisted(b, 1000 + 60001));
  std::string old = st_.MyName();
  ASSERT_TRUE(st_.AddSlots({1, 2}).ok());
  st_.Reset(false);
  EXPECT_EQ(st_.MyName(), old);
  EXPECT_EQ(st_.SlotOwner(1), "");
  EXPECT_EQ(st_.Myself().config_epoch, 5u);
  st_.Reset(true);
  EXPECT_NE(st_.MyName(), old);
  EXPECT_EQ(st_.current_epoch(), 0u);
  EXPECT_EQ(st_.Myself().config_epoch, 0u);
}

TEST_F(StateTest, HandshakeNodesTimeOutAndStateNeedsCoverage) {
  std::string name;
  ASSERT_TRUE(st_.StartHandshake("127.0.0.1", 7005, 17005, true, &name));
  EXPECT_FALSE(st_.StartHandshake("127.0.0.1", 7005, 17005, true));  // in progress
  EXPECT_TRUE(st_.HandshakeInProgress("127.0.0.1", 7005, 17005));
  EXPECT_FALSE(st_.StartHandshake("not an ip", 7005, 17005, true));
  EXPECT_FALSE(st_.StartHandshake("127.0.0.1", 0, 17005, true));
  int64_t created = st_.GetNode(name)->ctime_ms;
  st_.Tick(created + 1000);  // within max(node timeout, 1 s)... node timeout is 15 s
  EXPECT_TRUE(st_.GetNode(name).has_value());
  st_.Tick(created + 16000);
  EXPECT_FALSE(st_.GetNode(name).has_value());
  EXPECT_FALSE(st_.cluster_ok());
  std::vector<int> all(kNumSlots);
  for (int i = 0; i < kNumSlots; ++i) all[i] = i;
  ASSERT_TRUE(st_.AddSlots(all).ok());
  EXPECT_EQ(st_.ClusterSize(), 1);
  // ok only after the rejoin delay (5 s for a 15 s node timeout) past the minority state.
  EXPECT_FALSE(st_.cluster_ok());
}

}  // namespace
}  // namespace hotkv::cluster

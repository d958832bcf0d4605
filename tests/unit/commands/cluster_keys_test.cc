// commands/cluster_keys.h: the COUNTKEYSINSLOT / GETKEYSINSLOT replies and errors (Redis
// 7.0's), through a test-only command standing in for the cluster family's CLUSTER.
#include "commands/cluster_keys.h"

#include <gtest/gtest.h>

#include <string>

#include "common/key_hash.h"
#include "in_process.h"
#include "server/command_context.h"

namespace hotkv::testing {
namespace {

void TestClusterCommand(CommandContext& ctx) {
  if (ctx.arg(1) == "countkeysinslot") {
    return ClusterCountKeysInSlot(ctx);
  }
  ClusterGetKeysInSlot(ctx);
}

void Register(CommandTable& t) {
  t.Add({.name = "xcluster", .arity = -3, .flags = "readonly", .acl = "@slow",
         .handler = TestClusterCommand});
}

TEST(ClusterKeys, CountAndGetKeysInSlot) {
  InProcessServer s(Register);
  LocalClient& c = s.NewClient();
  const std::string slot = std::to_string(KeySlot("tag"));
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", slot}), ":0\r\n");
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", slot, "10"}), "*0\r\n");
  s.Run(c, {"MSET", "{tag}a", "1", "{tag}b", "2", "{tag}c", "3", "other", "4"});
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", slot}), ":3\r\n");
  const std::string two = s.Run(c, {"XCLUSTER", "getkeysinslot", slot, "2"});
  EXPECT_EQ(two.substr(0, 4), "*2\r\n");
  const std::string all = s.Run(c, {"XCLUSTER", "getkeysinslot", slot, "100"});
  EXPECT_EQ(all.size(), std::string("*3\r\n$6\r\n{tag}a\r\n$6\r\n{tag}b\r\n$6\r\n{tag}c\r\n").size());
  for (const char* k : {"{tag}a", "{tag}b", "{tag}c"}) {
    EXPECT_NE(all.find(k), std::string::npos);
  }
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", slot, "0"}), "*0\r\n");
  s.Run(c, {"DEL", "{tag}a"});
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", slot}), ":2\r\n");
  // Inside MULTI/EXEC.
  s.Run(c, {"MULTI"});
  s.Run(c, {"SET", "{tag}z", "1"});
  s.Run(c, {"XCLUSTER", "countkeysinslot", slot});
  EXPECT_EQ(s.Run(c, {"EXEC"}), "*2\r\n+OK\r\n:3\r\n");
}

TEST(ClusterKeys, ErrorsAsRedis7) {
  InProcessServer s(Register);
  LocalClient& c = s.NewClient();
  const std::string not_int = "-ERR value is not an integer or out of range\r\n";
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", "x"}), not_int);
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", "-1"}), "-ERR Invalid slot\r\n");
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "countkeysinslot", "16384"}), "-ERR Invalid slot\r\n");
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", "5", "y"}), not_int);
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", "x", "1"}), not_int);
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", "16384", "y"}), not_int);
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", "16384", "1"}),
            "-ERR Invalid slot or number of keys\r\n");
  EXPECT_EQ(s.Run(c, {"XCLUSTER", "getkeysinslot", "1", "-1"}),
            "-ERR Invalid slot or number of keys\r\n");
}

}  // namespace
}  // namespace hotkv::testing

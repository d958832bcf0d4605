// CLIENT INFO / CLIENT LIST figures kept by the dispatcher, in-process: tot-cmds (only
// commands that ran), cmd (the command looked up last), multi-mem, argv-mem of the
// running and of a blocked command, flags. A LocalClient has no socket: fd=-1 and no
// traffic.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "in_process.h"

namespace hotkv::testing {
namespace {

// The fields of the one line of a CLIENT INFO / CLIENT LIST ID reply (a RESP2 bulk).
std::map<std::string, std::string> Fields(const std::string& reply) {
  std::map<std::string, std::string> out;
  size_t start = reply.find("\r\n");
  EXPECT_NE(start, std::string::npos) << reply;
  std::istringstream in(reply.substr(start + 2));
  std::string item;
  while (in >> item) {
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      out[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  return out;
}

// The line CLIENT LIST prints for `c`, as another client sees it (in-process clients are
// not in the client registry, as Redis's fake clients are not listed).
std::map<std::string, std::string> InfoOf(InProcessServer&, LocalClient&, const LocalClient& c) {
  return Fields("$0\r\n" + FormatClientInfo(c, CachedNowMs()));
}

TEST(DispatcherClientInfo, ALocalClientHasNoSocketAndNoTraffic) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  auto f = Fields(s.Run(a, {"CLIENT", "INFO"}));
  EXPECT_EQ(f["fd"], "-1");
  EXPECT_EQ(f["tot-net-in"], "0");
  EXPECT_EQ(f["tot-net-out"], "0");
  EXPECT_EQ(f["read-events"], "0");
  EXPECT_EQ(f["argv-mem"], "10");  // CLIENT INFO's own arguments
  EXPECT_EQ(f["cmd"], "client|info");
  EXPECT_EQ(f["tot-cmds"], "0");
  EXPECT_EQ(f["io-thread"], "0");
}

TEST(DispatcherClientInfo, TotCmdsCountsOnlyCommandsThatRan) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& observer = s.NewClient();
  s.Run(a, {"SET", "k", "v"});
  s.Run(a, {"LPUSH", "k", "x"});  // WRONGTYPE: ran, and failed
  s.Run(a, {"NOSUCH"});
  s.Run(a, {"GET"});
  EXPECT_EQ(InfoOf(s, observer, a)["tot-cmds"], "2");
  s.Run(a, {"MULTI"});
  s.Run(a, {"SET", "a", "1"});
  s.Run(a, {"GET", "a"});
  auto f = InfoOf(s, observer, a);
  EXPECT_EQ(f["tot-cmds"], "3");
  EXPECT_EQ(f["multi"], "2");
  EXPECT_EQ(f["multi-mem"], "9");  // "SET" "a" "1" "GET" "a"
  EXPECT_EQ(f["flags"], "x");
  EXPECT_EQ(f["cmd"], "get");  // the queued command
  s.Run(a, {"EXEC"});
  f = InfoOf(s, observer, a);
  EXPECT_EQ(f["tot-cmds"], "6");
  EXPECT_EQ(f["multi-mem"], "0");
  EXPECT_EQ(f["flags"], "N");
}

TEST(DispatcherClientInfo, CmdIsTheLastCommandLookedUp) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& observer = s.NewClient();
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "NULL");
  s.Run(a, {"GET"});
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "get");
  s.Run(a, {"NOSUCH"});
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "NULL");
  s.Run(a, {"CONFIG"});
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "config");
  s.Run(a, {"CONFIG", "NOSUCH"});
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "NULL");
  s.Run(a, {"CONFIG", "GET", "hz"});
  EXPECT_EQ(InfoOf(s, observer, a)["cmd"], "config|get");
}

TEST(DispatcherClientInfo, ABlockedCommandHoldsItsArgumentsAndCountsWhenServed) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& b = s.NewClient();
  EXPECT_EQ(s.Run(a, {"BLPOP", "list", "0"}), "");
  auto f = InfoOf(s, b, a);
  EXPECT_EQ(f["flags"], "b");
  EXPECT_EQ(f["argv-mem"], "10");  // "BLPOP" "list" "0"
  EXPECT_EQ(f["tot-cmds"], "0");   // not finished yet
  EXPECT_EQ(f["cmd"], "blpop");
  s.Run(b, {"RPUSH", "list", "x"});
  s.RunPendingWork();
  EXPECT_EQ(a.TakeOutput(), "*2\r\n$4\r\nlist\r\n$1\r\nx\r\n");
  f = InfoOf(s, b, a);
  EXPECT_EQ(f["flags"], "N");
  EXPECT_EQ(f["argv-mem"], "0");
  EXPECT_EQ(f["tot-cmds"], "1");
}

TEST(DispatcherClientInfo, OwnArgvMemIsClearedAfterTheCommand) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  LocalClient& observer = s.NewClient();
  EXPECT_EQ(Fields(s.Run(a, {"CLIENT", "INFO"}))["argv-mem"], "10");
  EXPECT_EQ(InfoOf(s, observer, a)["argv-mem"], "0");
}

}  // namespace
}  // namespace hotkv::testing

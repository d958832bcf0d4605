// Loading AOF command files in-process: replay, torn tails (dropped and truncated, or
// refused), an unfinished MULTI, and the write stream replayed into a second server gives
// the same data (the rewrites make random and relative commands deterministic).
#include "persistence/aof_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "../commands/in_process.h"

namespace hotkv::persistence {
namespace {

using hotkv::testing::InProcessServer;

std::string Cmd(std::initializer_list<std::string_view> args) {
  std::string out;
  WriteStream::EncodeCommand(&out, std::vector<std::string_view>(args));
  return out;
}

class AofLoaderTest : public ::testing::Test {
 protected:
  AofLoaderTest() {
    char tmpl[] = "/tmp/aof_loader_testXXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/appendonly.aof.1.incr.aof";
  }
  ~AofLoaderTest() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  void WriteFile(const std::string& data) {
    std::ofstream f(path_, std::ios::binary | std::ios::trunc);
    f << data;
  }
  Status Load(InProcessServer& s, bool load_truncated, AofLoadReport* report) {
    return LoadAofCommands(s.server(), s.worker(), path_, true, load_truncated, report);
  }
  std::string Get(InProcessServer& s, const std::string& key) {
    LocalClient& c = s.NewClient();
    return s.Run(c, {"GET", key});
  }
  off_t FileSize() {
    std::ifstream f(path_, std::ios::binary | std::ios::ate);
    return static_cast<off_t>(f.tellg());
  }

  std::string dir_, path_;
};

TEST_F(AofLoaderTest, ReplaysCommandsAndAnnotations) {
  WriteFile(Cmd({"SELECT", "2"}) + "#TS:1700000000\r\n" + Cmd({"SET", "a", "1"}) +
            Cmd({"MULTI"}) + Cmd({"INCR", "a"}) + Cmd({"RPUSH", "l", "x"}) + Cmd({"EXEC"}));
  InProcessServer s;
  AofLoadReport report;
  ASSERT_TRUE(Load(s, true, &report).ok());
  EXPECT_EQ(report.commands, 6u);
  LocalClient& c = s.NewClient();
  s.Run(c, {"SELECT", "2"});
  EXPECT_EQ(s.Run(c, {"GET", "a"}), "$1\r\n2\r\n");
  EXPECT_EQ(s.Run(c, {"LLEN", "l"}), ":1\r\n");
}

TEST_F(AofLoaderTest, TornTailIsDroppedAndTruncated) {
  const std::string good = Cmd({"SET", "a", "1"});
  WriteFile(good + "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhel");
  InProcessServer s;
  AofLoadReport report;
  ASSERT_TRUE(Load(s, true, &report).ok());
  EXPECT_EQ(report.truncated_bytes, 27u);
  EXPECT_EQ(FileSize(), static_cast<off_t>(good.size()));
  EXPECT_EQ(Get(s, "a"), "$1\r\n1\r\n");
  EXPECT_EQ(Get(s, "b"), "$-1\r\n");
}

TEST_F(AofLoaderTest, TornTailRefusedWithoutAofLoadTruncated) {
  const std::string good = Cmd({"SET", "a", "1"});
  WriteFile(good + "*2\r\n$3\r\nDEL");
  InProcessServer s;
  AofLoadReport report;
  Status st = Load(s, false, &report);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("appendonly.aof.1.incr.aof at offset " + std::to_string(good.size())),
            std::string::npos)
      << st.message();
}

TEST_F(AofLoaderTest, UnfinishedMultiIsDropped) {
  const std::string good = Cmd({"SET", "a", "1"});
  WriteFile(good + Cmd({"MULTI"}) + Cmd({"SET", "a", "2"}) + Cmd({"SET", "b", "2"}));
  InProcessServer s;
  AofLoadReport report;
  ASSERT_TRUE(Load(s, true, &report).ok());
  EXPECT_EQ(Get(s, "a"), "$1\r\n1\r\n");
  EXPECT_EQ(Get(s, "b"), "$-1\r\n");
  EXPECT_EQ(FileSize(), static_cast<off_t>(good.size()));
}

TEST_F(AofLoaderTest, BadInputStopsWithFileAndOffset) {
  const std::string good = Cmd({"SET", "a", "1"});
  for (const std::string& bad :
       {std::string("+OK\r\n"), std::string("*1\r\n:5\r\n"), std::string("*1\r\n$2\r\nab!!"),
        Cmd({"NOSUCHCOMMAND", "x"})}) {
    WriteFile(good + bad);
    InProcessServer s;
    AofLoadReport report;
    Status st = Load(s, true, &report);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("appendonly.aof.1.incr.aof at offset " +
                                std::to_string(good.size())),
              std::string::npos)
        << st.message();
  }
}

TEST_F(AofLoaderTest, TheWriteStreamReplaysToTheSameData) {
  std::string stream;
  // Reads that show every key's value and absolute expiry.
  const std::vector<std::vector<std::string>> reads = {
      {"SMISMEMBER", "s", "a", "b", "c", "d", "e", "f"}, {"GET", "f"}, {"HGETALL", "h"},
      {"GET", "e"}, {"LRANGE", "l", "0", "-1"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      {"GET", "n"}, {"PEXPIRETIME", "e"}, {"PEXPIRETIME", "f"}, {"SCARD", "s"}};
  std::vector<std::string> before;
  {
    InProcessServer s;
    s.server().write_stream().AddConsumer();
    LocalClient& c = s.NewClient();
    s.Run(c, {"SADD", "s", "a", "b", "c", "d", "e", "f"});
    s.Run(c, {"SPOP", "s"});
    s.Run(c, {"SPOP", "s", "2"});
    s.Run(c, {"SET", "f", "0.1"});
    s.Run(c, {"INCRBYFLOAT", "f", "0.2"});
    s.Run(c, {"HINCRBYFLOAT", "h", "x", "1e-3"});
    s.Run(c, {"SET", "e", "v", "EX", "1000"});
    s.Run(c, {"EXPIRE", "f", "500"});
    s.Run(c, {"RPUSH", "l", "1", "2", "3"});
    s.Run(c, {"LMPOP", "1", "l", "RIGHT", "COUNT", "2"});
    s.Run(c, {"ZADD", "z", "1", "a", "2", "b"});
    s.Run(c, {"MULTI"});
    s.Run(c, {"INCR", "n"});
    s.Run(c, {"ZPOPMIN", "z"});
    s.Run(c, {"EXEC"});
    int db = -1;
    s.server().write_stream().Drain(&stream, &db);
    for (const auto& r : reads) {
      before.push_back(s.Run(c, r));
      EXPECT_NE(before.back()[0], '-') << before.back();
    }
    EXPECT_EQ(before[9], ":3\r\n");   // SPOP took 3 of 6 members
    EXPECT_NE(before[8], ":-1\r\n");  // f has a TTL
    s.server().write_stream().RemoveConsumer();
  }
  WriteFile(stream);
  InProcessServer t;
  AofLoadReport report;
  ASSERT_TRUE(Load(t, true, &report).ok());
  LocalClient& c = t.NewClient();
  std::vector<std::string> after;
  for (const auto& r : reads) {
    after.push_back(t.Run(c, r));
  }
  EXPECT_EQ(after, before);
}

}  // namespace
}  // namespace hotkv::persistence

// Config: file + command line, CONFIG GET patterns, CONFIG SET atomicity and errors.
#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace hotkv {
namespace {

bool Load(Config& c, std::vector<std::string> args, std::string* err) {
  std::vector<char*> argv;
  static std::string prog = "hotkv-server";
  argv.push_back(prog.data());
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  Status st = c.LoadArgs(static_cast<int>(argv.size()), argv.data());
  *err = st.message();
  return st.ok();
}

// CONFIG SET through the Status API, reporting its message the way the tests read it.
bool Set(Config& c, const std::vector<std::pair<std::string, std::string>>& pairs,
         std::string* err) {
  Status st = c.Set(pairs);
  *err = st.message();
  return st.ok();
}

TEST(Config, FileThenCommandLineOverride) {
  std::string path = testing::TempDir() + "/hotkv_config_test.conf";
  {
    std::ofstream f(path);
    f << "# comment\nmaxclients 50\nport 7000\nsave \"\"\nrequirepass \"p w\"\n";
  }
  Config c;
  std::string err;
  ASSERT_TRUE(Load(c, {path, "--port", "7001", "--threads", "3"}, &err)) << err;
  EXPECT_EQ(c.maxclients(), 50);
  EXPECT_EQ(c.port(), 7001);
  EXPECT_EQ(c.threads(), 3);
  EXPECT_EQ(c.requirepass(), "p w");
  EXPECT_TRUE(c.requirepass_set());
  EXPECT_EQ(c.GetString("save"), "");
  std::remove(path.c_str());
}

TEST(Config, UnknownOptionFails) {
  Config c;
  std::string err;
  EXPECT_FALSE(Load(c, {"--no-such-option", "1"}, &err));
  EXPECT_NE(err.find("Bad directive"), std::string::npos);
  Config d;
  EXPECT_FALSE(Load(d, {"--port", "notanumber"}, &err));
}

TEST(Config, MemoryUnits) {
  int64_t v;
  ASSERT_TRUE(ParseMemory("1kb", &v));
  EXPECT_EQ(v, 1024);
  ASSERT_TRUE(ParseMemory("1k", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseMemory("2GB", &v));
  EXPECT_EQ(v, 2LL << 30);
  EXPECT_FALSE(ParseMemory("1xb", &v));
  EXPECT_FALSE(ParseMemory("-1", &v));
}

TEST(Config, GetPatternsAndSetAtomicity) {
  Config c;
  auto all = c.Get({"maxclient*", "hz"});
  ASSERT_EQ(all.size(), 2u);
  std::string err;
  // One bad value: nothing changes.
  EXPECT_FALSE(Set(c, {{"maxclients", "100"}, {"hz", "abc"}}, &err));
  EXPECT_EQ(c.maxclients(), 10000);
  EXPECT_NE(err.find("argument couldn't be parsed into an integer"), std::string::npos);
  EXPECT_TRUE(Set(c, {{"maxclients", "100"}, {"hz", "20"}}, &err));
  EXPECT_EQ(c.maxclients(), 100);
  EXPECT_EQ(c.hz(), 20);
  EXPECT_FALSE(Set(c, {{"port", "1"}}, &err));
  EXPECT_NE(err.find("can't set immutable config"), std::string::npos);
  EXPECT_FALSE(Set(c, {{"nope", "1"}}, &err));
  EXPECT_EQ(err, "ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
  EXPECT_FALSE(Set(c, {{"hz", "1"}, {"hz", "2"}}, &err));
  EXPECT_NE(err.find("duplicate parameter"), std::string::npos);
}

TEST(Config, NotifyKeyspaceEvents) {
  Config c;
  std::string err;
  ASSERT_TRUE(Set(c, {{"notify-keyspace-events", "KEA"}}, &err));
  EXPECT_EQ(c.GetString("notify-keyspace-events"), "AKE");
  ASSERT_TRUE(Set(c, {{"notify-keyspace-events", "Kx"}}, &err));
  EXPECT_EQ(c.GetString("notify-keyspace-events"), "xK");
  EXPECT_FALSE(Set(c, {{"notify-keyspace-events", "Q"}}, &err));
  EXPECT_EQ(c.GetString("notify-keyspace-events"), "xK");  // unchanged
}

TEST(Config, PersistenceIsRefusedNotFaked) {
  Config c;
  std::string err;
  EXPECT_FALSE(Set(c, {{"appendonly", "yes"}}, &err));
  EXPECT_TRUE(Set(c, {{"appendonly", "no"}}, &err));
  EXPECT_TRUE(Set(c, {{"save", "3600 1 300 100"}}, &err));
  EXPECT_EQ(c.GetString("save"), "3600 1 300 100");
  EXPECT_FALSE(Set(c, {{"save", "3600"}}, &err));
}

}  // namespace
}  // namespace hotkv

// Config: the parameter table, parsing with Redis's rules and texts, the config file and
// command line, CONFIG GET patterns, CONFIG SET atomicity, rollback and errors. The
// expected texts were read off redis-server 8.8 (CONFIG SET / start-up errors).
#include "server/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>

namespace hotkv {
namespace {

Status LoadStatus(Config& c, std::vector<std::string> args) {
  std::vector<char*> argv;
  static std::string prog = "hotkv-server";
  argv.push_back(prog.data());
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  return c.LoadArgs(static_cast<int>(argv.size()), argv.data());
}

bool Load(Config& c, std::vector<std::string> args, std::string* err) {
  Status st = LoadStatus(c, std::move(args));
  *err = st.message();
  return st.ok();
}

// CONFIG SET of one parameter: "OK" or the error reply's text.
std::string Set1(Config& c, const std::string& name, const std::string& value) {
  Status st = c.Set({{name, value}});
  return st.ok() ? "OK" : st.message();
}

std::string SetMany(Config& c, const std::vector<std::pair<std::string, std::string>>& pairs) {
  Status st = c.Set(pairs);
  return st.ok() ? "OK" : st.message();
}

std::string Failed(const std::string& name, const std::string& why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream f(path);
  f << text;
  return path;
}

TEST(Config, FileThenCommandLineOverride) {
  std::string path =
      WriteFile("hotkv_config_test.conf",
                "# comment\nmaxclients 50\nport 7000\nsave \"\"\nrequirepass \"p w\"\n");
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

// Redis 8 takes an unknown name for a module's parameter and gives up after loading.
TEST(Config, UnknownDirectiveIsUnresolved) {
  Config c;
  std::string err;
  EXPECT_FALSE(Load(c, {"--no-such-option", "1", "--hz", "20"}, &err));
  EXPECT_EQ(err,
            "# Unresolved Configuration(s) Detected:\n# >>> 'no-such-option 1'\n"
            "# Module Configuration detected without loadmodule directive or no ApplyConfig "
            "call: aborting\n");
}

TEST(Config, FatalErrorsShowTheLineAsRedis) {
  // Command-line directives are numbered after the file's lines (none here) and one
  // more, with their arguments quoted.
  Config a;
  std::string err;
  EXPECT_FALSE(Load(a, {"--port", "0", "--save", "--databases", "abc"}, &err));
  EXPECT_EQ(err,
            "\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line 4\n"
            ">>> 'databases \"abc\"'\nargument couldn't be parsed into an integer\n");
  Config b;
  EXPECT_FALSE(Load(b, {"--databases", "1", "abc"}, &err));
  EXPECT_NE(err.find(">>> 'databases \"1\" \"abc\"'\nwrong number of arguments\n"),
            std::string::npos);
  EXPECT_NE(err.find("at line 2\n"), std::string::npos);
  Config d;
  EXPECT_FALSE(Load(d, {"--maxclients"}, &err));
  EXPECT_NE(err.find(">>> 'maxclients'\nwrong number of arguments"), std::string::npos);
  // A file line is shown as written; after a 3-line file, the first option is line 5.
  std::string path = WriteFile("hotkv_config_lines.conf", "port 0\n\n  databases  \"1 2\" \n");
  Config e;
  EXPECT_FALSE(Load(e, {path}, &err));
  EXPECT_EQ(err,
            "\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line 3\n"
            ">>> 'databases  \"1 2\"'\nargument couldn't be parsed into an integer\n");
  std::string ok = WriteFile("hotkv_config_ok.conf", "port 0\n\nhz 5\n");
  Config f;
  EXPECT_FALSE(Load(f, {ok, "--port", "1", "--hz", "x"}, &err));
  EXPECT_NE(err.find("at line 6\n>>> 'hz \"x\"'"), std::string::npos) << err;
  Config g;
  EXPECT_FALSE(Load(g, {"--daemonize", "maybe"}, &err));
  EXPECT_NE(err.find("argument must be 'yes' or 'no'"), std::string::npos);
  Config h;
  EXPECT_FALSE(Load(h, {"--sentinel", "monitor"}, &err));
  EXPECT_NE(err.find("sentinel directive while not in sentinel mode"), std::string::npos);
  std::remove(path.c_str());
  std::remove(ok.c_str());
}

TEST(Config, IncludeAndRemovedDirectives) {
  std::string inner = WriteFile("hotkv_config_inner.conf", "hz 33\nio-threads-do-reads yes\n");
  std::string outer =
      WriteFile("hotkv_config_outer.conf", "include " + inner +
                                               "\nlua-replicate-commands yes\n"
                                               "list-max-ziplist-entries 5\nmaxclients 77\n");
  Config c;
  std::string err;
  ASSERT_TRUE(Load(c, {outer}, &err)) << err;
  EXPECT_EQ(c.hz(), 33);
  EXPECT_EQ(c.maxclients(), 77);
  // Removed parameters are not CONFIG parameters.
  EXPECT_TRUE(c.Get({"io-threads-do-reads"}).empty());
  EXPECT_EQ(Set1(c, "lua-replicate-commands", "yes"),
            "ERR Unknown option or number of arguments for CONFIG SET - 'lua-replicate-commands'");
  Config d;
  EXPECT_FALSE(Load(d, {"--io-threads-do-reads"}, &err));
  EXPECT_NE(err.find("Bad directive or wrong number of arguments"), std::string::npos);
  Config e;
  EXPECT_FALSE(Load(e, {"--include", "/nonexistent/hotkv.conf"}, &err));
  EXPECT_EQ(
      err,
      "Fatal error, can't open config file '/nonexistent/hotkv.conf': No such file or directory");
  std::remove(inner.c_str());
  std::remove(outer.c_str());
}

TEST(Config, SaveLinesAddUpInOneLoad) {
  std::string path =
      WriteFile("hotkv_config_save.conf", "save 3600 1\nsave 300 100\nsave \"60 10000\"\n");
  Config c;
  std::string err;
  ASSERT_TRUE(Load(c, {path}, &err)) << err;
  EXPECT_EQ(c.GetString("save"), "3600 1 300 100 60 10000");
  EXPECT_EQ(Set1(c, "save", "900 1"), "OK");  // CONFIG SET replaces
  EXPECT_EQ(c.GetString("save"), "900 1");
  Config d;
  ASSERT_TRUE(Load(d, {path, "--save", ""}, &err)) << err;
  EXPECT_EQ(d.GetString("save"), "");
  std::remove(path.c_str());
}

TEST(Config, MemoryUnits) {
  uint64_t v;
  ASSERT_TRUE(ParseMemory("1kb", &v));
  EXPECT_EQ(v, 1024u);
  ASSERT_TRUE(ParseMemory("1k", &v));
  EXPECT_EQ(v, 1000u);
  ASSERT_TRUE(ParseMemory("2GB", &v));
  EXPECT_EQ(v, 2ULL << 30);
  ASSERT_TRUE(ParseMemory("005kb", &v));
  EXPECT_EQ(v, 5120u);
  ASSERT_TRUE(ParseMemory("b", &v));  // no digits: 0
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(ParseMemory("99999999999999999999", &v));  // saturates
  EXPECT_EQ(v, UINT64_MAX);
  ASSERT_TRUE(ParseMemory("99999999999999999999kb", &v));  // then wraps, as Redis
  EXPECT_EQ(v, 18446744073709550592ULL);
  for (const char* bad : {"1xb", "-1", "+1", " 1", "1 ", "1.5mb", "1tb", "0x10", "1kbb"}) {
    EXPECT_FALSE(ParseMemory(bad, &v)) << bad;
  }
}

TEST(Config, IntegersAreParsedStrictly) {
  Config c;
  const std::string not_int = Failed("hz", "argument couldn't be parsed into an integer");
  for (const char* bad :
       {"+5", " 5", "5 ", "05", "-0", "0x10", "1e2", "", "abc", "99999999999999999999"}) {
    EXPECT_EQ(Set1(c, "hz", bad), not_int) << bad;
  }
  EXPECT_EQ(Set1(c, "hz", "-1"),
            Failed("hz", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(Set1(c, "maxclients", "0"),
            Failed("maxclients", "argument must be between 1 and 4294967295 inclusive"));
  EXPECT_EQ(Set1(c, "slowlog-log-slower-than", "-2"),
            Failed("slowlog-log-slower-than",
                   "argument must be between -1 and 9223372036854775807 inclusive"));
  EXPECT_EQ(Set1(c, "list-max-listpack-size", "-5"), "OK");
  EXPECT_EQ(c.list_max_listpack_size(), -5);
  // hz is kept within 1..500.
  EXPECT_EQ(Set1(c, "hz", "0"), "OK");
  EXPECT_EQ(c.GetString("hz"), "1");
  EXPECT_EQ(Set1(c, "hz", "1000"), "OK");
  EXPECT_EQ(c.hz(), 500);
}

TEST(Config, HllSparseMaxBytes) {
  Config c;
  EXPECT_EQ(c.hll_sparse_max_bytes(), 3000);
  EXPECT_EQ(c.GetString("hll-sparse-max-bytes"), "3000");
  EXPECT_EQ(Set1(c, "hll-sparse-max-bytes", "1kb"), "OK");
  EXPECT_EQ(c.hll_sparse_max_bytes(), 1024);
  EXPECT_EQ(Set1(c, "hll-sparse-max-bytes", "0"), "OK");
  EXPECT_EQ(c.hll_sparse_max_bytes(), 0);
  EXPECT_EQ(Set1(c, "hll-sparse-max-bytes", "-1"),
            Failed("hll-sparse-max-bytes", "argument must be a memory value"));
  EXPECT_EQ(c.hll_sparse_max_bytes(), 0);
}

TEST(Config, MemoryAndPercentValues) {
  Config c;
  EXPECT_EQ(Set1(c, "maxmemory", "1kb"), "OK");
  EXPECT_EQ(c.maxmemory(), 1024);
  EXPECT_EQ(Set1(c, "maxmemory", "5k"), "OK");
  EXPECT_EQ(c.GetString("maxmemory"), "5000");
  EXPECT_EQ(Set1(c, "maxmemory", ""), "OK");
  EXPECT_EQ(c.maxmemory(), 0);
  EXPECT_EQ(Set1(c, "maxmemory", "18446744073709551616"), "OK");  // unsigned, saturated
  EXPECT_EQ(c.GetString("maxmemory"), "18446744073709551615");
  EXPECT_EQ(c.maxmemory(), INT64_MAX);
  EXPECT_EQ(Set1(c, "maxmemory", "-1"), Failed("maxmemory", "argument must be a memory value"));
  EXPECT_EQ(Set1(c, "maxmemory", "10%"), Failed("maxmemory", "argument must be a memory value"));
  EXPECT_EQ(Set1(c, "hash-max-listpack-value", "9223372036854775808"),
            Failed("hash-max-listpack-value",
                   "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(Set1(c, "client-query-buffer-limit", "1kb"),
            Failed("client-query-buffer-limit",
                   "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(Set1(c, "proto-max-bulk-len", "2gb"), "OK");
  EXPECT_EQ(c.proto_max_bulk_len(), 2LL << 30);
  // maxmemory-clients: bytes or a percentage (of maxmemory).
  const std::string mm = "maxmemory-clients";
  EXPECT_EQ(Set1(c, mm, "10%"), "OK");
  EXPECT_EQ(c.GetString(mm), "10%");
  EXPECT_EQ(Set1(c, mm, "0%"), "OK");
  EXPECT_EQ(c.GetString(mm), "0");
  EXPECT_EQ(Set1(c, mm, "100%"), "OK");
  EXPECT_EQ(Set1(c, mm, "101%"), Failed(mm, "percentage argument must be less or equal to 100"));
  EXPECT_EQ(Set1(c, mm, "9223372036854775808"),
            Failed(mm, "percentage argument must be less or equal to 100"));
  for (const char* bad : {"-5%", "5.5%", "%", "1kb%", "050%", "abc"}) {
    EXPECT_EQ(Set1(c, mm, bad), Failed(mm, "argument must be a memory or percent value")) << bad;
  }
  EXPECT_EQ(Set1(c, mm, "1mb"), "OK");
  EXPECT_EQ(c.GetString(mm), "1048576");
  // Past 2^63 the bits read as a negative number, i.e. a percentage, as in Redis.
  EXPECT_EQ(Set1(c, mm, "18446744073709551615"), "OK");
  EXPECT_EQ(c.GetString(mm), "1%");
  // repl-backlog-size is raised to Redis's minimum.
  EXPECT_EQ(Set1(c, "repl-backlog-size", "1"), "OK");
  EXPECT_EQ(c.GetString("repl-backlog-size"), "16384");
}

TEST(Config, BooleansEnumsAndFlags) {
  Config c;
  EXPECT_EQ(Set1(c, "activerehashing", "No"), "OK");
  EXPECT_EQ(c.GetString("activerehashing"), "no");
  EXPECT_EQ(Set1(c, "activerehashing", "1"),
            Failed("activerehashing", "argument must be 'yes' or 'no'"));
  EXPECT_EQ(Set1(c, "maxmemory-policy", "AllKeys-LRU"), "OK");
  EXPECT_EQ(c.GetString("maxmemory-policy"), "allkeys-lru");
  EXPECT_EQ(c.maxmemory_policy(), 4);  // EvictionPolicy::kAllkeysLru
  EXPECT_EQ(Set1(c, "maxmemory-policy", "allkeys-lfu"), "OK");
  EXPECT_TRUE(c.lfu_policy());
  EXPECT_EQ(Set1(c, "maxmemory-policy", "bogus"),
            Failed("maxmemory-policy",
                   "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                   "volatile-random, volatile-ttl, volatile-lrm, allkeys-lru, allkeys-lfu, "
                   "allkeys-random, allkeys-lrm, noeviction"));
  EXPECT_NE(Set1(c, "maxmemory-policy", "allkeys-lrm").find("not implemented by HotKV"),
            std::string::npos);
  EXPECT_EQ(c.GetString("maxmemory-policy"), "allkeys-lfu");
  EXPECT_EQ(
      Set1(c, "loglevel", "notice warning"),
      Failed("loglevel",
             "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"));
  // HotKV's own snapshot mode (persistence/snapshot_walk.h).
  EXPECT_EQ(c.GetString("bgsave-mode"), "fork");
  EXPECT_EQ(Set1(c, "bgsave-mode", "WALK"), "OK");
  EXPECT_EQ(c.GetString("bgsave-mode"), "walk");
  EXPECT_EQ(Set1(c, "bgsave-mode", "thread"),
            Failed("bgsave-mode", "argument(s) must be one of the following: fork, walk"));
  EXPECT_EQ(c.GetString("bgsave-mode"), "walk");
  // Synonyms show as the first name of their value.
  EXPECT_EQ(Set1(c, "oom-score-adj", "relative"), "OK");
  EXPECT_EQ(c.GetString("oom-score-adj"), "yes");
  // Several values at once, shown in Redis's order.
  EXPECT_EQ(Set1(c, "shutdown-on-sigint", "now nosave"), "OK");
  EXPECT_EQ(c.GetString("shutdown-on-sigint"), "nosave now");
  EXPECT_EQ(Set1(c, "shutdown-on-sigint", "default now"), "OK");
  EXPECT_EQ(c.GetString("shutdown-on-sigint"), "now");
  EXPECT_EQ(Set1(c, "shutdown-on-sigint", "save nosave"),
            Failed("shutdown-on-sigint",
                   "shutdown options SAVE and NOSAVE can't be used simultaneously"));
  EXPECT_EQ(Set1(c, "cluster-slot-stats-enabled", "net cpu"), "OK");
  EXPECT_EQ(c.GetString("cluster-slot-stats-enabled"), "cpu net");
  EXPECT_EQ(Set1(c, "cluster-slot-stats-enabled", "yes"),
            Failed("cluster-slot-stats-enabled", "memory tracking cannot be enabled at runtime"));
  Config d;
  std::string err;
  ASSERT_TRUE(Load(d, {"--cluster-slot-stats-enabled", "cpu", "net", "mem"}, &err)) << err;
  EXPECT_EQ(d.GetString("cluster-slot-stats-enabled"), "yes");
}

TEST(Config, SpecialSyntaxes) {
  Config c;
  const std::string cobl = "client-output-buffer-limit";
  EXPECT_EQ(Set1(c, cobl, "normal 1mb 2mb 60 replica 1 2 3"), "OK");
  EXPECT_EQ(c.GetString(cobl), "normal 1048576 2097152 60 slave 1 2 3 pubsub 33554432 8388608 60");
  EXPECT_EQ(Set1(c, cobl, "PUBSUB 1kb 1k 5"), "OK");
  EXPECT_EQ(c.pubsub_hard_limit(), 1024);
  EXPECT_EQ(c.pubsub_soft_limit(), 1000);
  EXPECT_EQ(c.pubsub_soft_seconds(), 5);
  EXPECT_EQ(Set1(c, cobl, ""), "OK");  // nothing changes
  EXPECT_EQ(c.pubsub_hard_limit(), 1024);
  EXPECT_EQ(Set1(c, cobl, "normal 1 2"),
            Failed(cobl, "Wrong number of arguments in buffer limit configuration."));
  EXPECT_EQ(Set1(c, cobl, "foo 1 2 3"),
            Failed(cobl, "Invalid client class specified in buffer limit configuration."));
  EXPECT_EQ(
      Set1(c, cobl, "normal 1 2 -1"),
      Failed(cobl, "Error in hard, soft or soft_seconds setting in buffer limit configuration."));

  EXPECT_EQ(Set1(c, "save", "3600 1 300 100"), "OK");
  EXPECT_EQ(c.GetString("save"), "3600 1 300 100");
  for (const char* bad : {"3600", "0 1", "-1 1", "3600 1  300 100", "  3600 1", "abc def"}) {
    EXPECT_EQ(Set1(c, "save", bad), Failed("save", "Invalid save parameters")) << bad;
  }
  EXPECT_EQ(Set1(c, "save", "3600 0"), "OK");
  EXPECT_EQ(Set1(c, "save", ""), "OK");
  EXPECT_EQ(c.GetString("save"), "");

  const std::string lat = "latency-tracking-info-percentiles";
  EXPECT_EQ(Set1(c, lat, "50 99.99999 0.0001 100"), "OK");
  EXPECT_EQ(c.GetString(lat), "50 99.99999 0.0001 100");
  EXPECT_EQ(Set1(c, lat, "50,99"),
            Failed(lat, "Invalid latency-tracking-info-percentiles parameters"));
  EXPECT_EQ(
      Set1(c, lat, "-1"),
      Failed(lat, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"));
  EXPECT_EQ(Set1(c, "oom-score-adj-values", "0 0"),
            Failed("oom-score-adj-values", "wrong number of arguments"));
  EXPECT_EQ(Set1(c, "oom-score-adj-values", "a b c"),
            Failed("oom-score-adj-values",
                   "Invalid oom-score-adj-values, elements must be between -2000 and 2000."));
  EXPECT_EQ(Set1(c, "cluster-announce-hostname", "a_b"),
            Failed("cluster-announce-hostname",
                   "Hostnames may only contain alphanumeric characters, hyphens or dots"));
  EXPECT_EQ(Set1(c, "cluster-announce-human-nodename", "a b"),
            Failed("cluster-announce-human-nodename",
                   "Announced human node name contained invalid character"));
  EXPECT_EQ(Set1(c, "cluster-announce-human-nodename", "n_1/é"), "OK");
  EXPECT_EQ(
      Set1(c, "proc-title-template", "{title}"),
      Failed("proc-title-template", "template format is invalid or contains unknown variables"));
  EXPECT_EQ(Set1(c, "proc-title-template", "{title} {port}"), "OK");
  EXPECT_EQ(Set1(c, "locale-collate", "no-such-locale"),
            Failed("locale-collate", "Invalid locale name"));
  EXPECT_EQ(Set1(c, "notify-keyspace-events", "Q"),
            Failed("notify-keyspace-events",
                   "Invalid event class character. Use 'Ag$lshzxeKEtmdnocaSTIV'."));
  std::string err;
  Config d;
  EXPECT_FALSE(Load(d, {"--unixsocketperm", "8"}, &err));
  EXPECT_NE(err.find("argument couldn't be parsed as an octal number"), std::string::npos);
  Config e;
  EXPECT_FALSE(Load(e, {"--unixsocketperm", "1000"}, &err));
  EXPECT_NE(err.find("argument must be between 0 and 777 inclusive"), std::string::npos);
  Config f;
  ASSERT_TRUE(Load(f, {"--unixsocketperm", "0700", "--replicaof", "10.0.0.1", "6380"}, &err))
      << err;
  EXPECT_EQ(f.GetString("unixsocketperm"), "700");
  EXPECT_EQ(f.GetString("slaveof"), "10.0.0.1 6380");
  Config g;
  EXPECT_FALSE(Load(g, {"--replicaof", "10.0.0.1"}, &err));
  EXPECT_NE(err.find("wrong number of arguments"), std::string::npos);
  Config h;
  EXPECT_FALSE(Load(h, {"--appendfilename", "a/b"}, &err));
  EXPECT_NE(err.find("appendfilename can't be a path, just a filename"), std::string::npos);
  Config k;
  std::vector<std::string> many = {"--bind"};
  for (int i = 0; i < 17; i++) {
    many.push_back("127.0.0." + std::to_string(i + 1));
  }
  EXPECT_FALSE(Load(k, many, &err));
  EXPECT_NE(err.find("Too many bind addresses specified."), std::string::npos);
}

TEST(Config, NotifyKeyspaceEvents) {
  Config c;
  const std::string n = "notify-keyspace-events";
  ASSERT_EQ(Set1(c, n, "KEA"), "OK");
  EXPECT_EQ(c.GetString(n), "AKE");
  ASSERT_EQ(Set1(c, n, "Kx"), "OK");
  EXPECT_EQ(c.GetString(n), "xK");
  EXPECT_NE(Set1(c, n, "Q"), "OK");
  EXPECT_EQ(c.GetString(n), "xK");  // unchanged
  // Redis 8.8's letters and order; n, o and c are not shown beside A.
  ASSERT_EQ(Set1(c, n, "VITSmEKconad"), "OK");
  EXPECT_EQ(c.GetString(n), "danocKEmSTIV");
  ASSERT_EQ(Set1(c, n, "KEAn"), "OK");
  EXPECT_EQ(c.GetString(n), "AKE");
  ASSERT_EQ(Set1(c, n, "oc$"), "OK");
  EXPECT_EQ(c.GetString(n), "$oc");
}

TEST(Config, AppendOnlyValues) {
  Config c;
  EXPECT_EQ(Set1(c, "appendonly", "yes"), "OK");
  EXPECT_EQ(Set1(c, "appendonly", "no"), "OK");
  EXPECT_EQ(Set1(c, "appendonly", "maybe"), Failed("appendonly", "argument must be 'yes' or 'no'"));
  std::string err;
  Config d;
  EXPECT_TRUE(Load(d, {"--appendonly", "yes", "--appendfsync", "always"}, &err)) << err;
  EXPECT_EQ(d.GetString("appendonly"), "yes");
  EXPECT_EQ(d.GetString("appendfsync"), "always");
}

TEST(Config, GetPatternsNamesAndHidden) {
  Config c;
  auto got = c.Get({"maxclient*", "hz"});
  ASSERT_EQ(got.size(), 2u);
  // An exact name answers under the name as typed, hidden parameters included; patterns
  // match case-insensitively and skip hidden ones; nothing is listed twice.
  EXPECT_EQ(c.Get({"HZ"}), (std::vector<std::pair<std::string, std::string>>{{"HZ", "10"}}));
  EXPECT_EQ(c.Get({"HZ*"}), (std::vector<std::pair<std::string, std::string>>{{"hz", "10"}}));
  EXPECT_EQ(c.Get({"hz", "hz", "h?"}).size(), 1u);
  EXPECT_EQ(c.Get({"KEY-LOAD-DELAY"}),
            (std::vector<std::pair<std::string, std::string>>{{"KEY-LOAD-DELAY", "0"}}));
  EXPECT_TRUE(c.Get({"key-load-dela?"}).empty());
  std::set<std::string> names;
  for (const auto& [k, v] : c.Get({"*"})) {
    names.insert(k);
  }
  EXPECT_TRUE(names.count("slaveof") && names.count("replicaof") &&
              names.count("hash-max-ziplist-entries"));
  EXPECT_FALSE(names.count("key-load-delay"));
  EXPECT_FALSE(names.count("io-threads-do-reads"));
  // 231 names of Redis 8.8 (13 of them hidden) and HotKV's 8 options.
  EXPECT_EQ(names.size(), 218u + 8u);
  EXPECT_EQ(c.Get({"hash-max-*-entries"}),
            (std::vector<std::pair<std::string, std::string>>{
                {"hash-max-listpack-entries", "512"}, {"hash-max-ziplist-entries", "512"}}));
}

TEST(Config, DefaultsAsRedis88ReportsThem) {
  Config c;
  const std::vector<std::pair<const char*, const char*>> expected = {
      {"hash-max-listpack-entries", "512"},
      {"client-output-buffer-limit",
       "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
      {"maxmemory-policy", "noeviction"},
      {"proto-max-bulk-len", "536870912"},
      {"enable-debug-command", "no"},
      {"latency-tracking-info-percentiles", "50 99 99.9"},
      {"oom-score-adj-values", "0 200 800"},
      {"proc-title-template", "{title} {listen-addr} {server-mode}"},
      {"shutdown-on-sigterm", "default"},
      {"unixsocketperm", "0"},
      {"socket-mark-id", "0"},
      {"lazyfree-lazy-user-del", "no"},
      {"slowlog-entry-max-argc", "32"},
      {"syslog-ident", "redis"},
      {"repl-backlog-size", "1048576"},
  };
  for (const auto& [name, value] : expected) {
    EXPECT_EQ(c.GetString(name), value) << name;
  }
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(c.GetString("dir"), cwd);
  EXPECT_EQ(c.slowlog_entry_max_string_len(), 128);
  EXPECT_FALSE(c.lazyfree_lazy_user_flush());
}

// Every value CONFIG GET shows can be set back and reads the same.
TEST(Config, EveryValueRoundTrips) {
  Config c;
  int mutable_count = 0;
  for (const auto& o : c.options()) {
    if (o->is(Config::kDeprecated)) {
      continue;
    }
    std::string before = c.GetString(o->name);
    std::string reply = Set1(c, o->name, before);
    if (o->is(Config::kImmutable)) {
      EXPECT_EQ(reply, Failed(o->name, "can't set immutable config"));
    } else if (o->is(Config::kProtected)) {
      EXPECT_EQ(reply, Failed(o->name, "can't set protected config"));
    } else {
      EXPECT_EQ(reply, "OK") << o->name << " = '" << before << "'";
      EXPECT_EQ(c.GetString(o->name), before) << o->name;
      mutable_count++;
    }
  }
  EXPECT_GT(mutable_count, 150);
}

TEST(Config, SetIsAllOrNothing) {
  Config c;
  // One bad value: nothing changes.
  EXPECT_EQ(SetMany(c, {{"maxclients", "100"}, {"hz", "abc"}}),
            Failed("hz", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(c.maxclients(), 10000);
  EXPECT_EQ(SetMany(c, {{"maxclients", "100"}, {"hz", "20"}}), "OK");
  EXPECT_EQ(c.maxclients(), 100);
  EXPECT_EQ(c.hz(), 20);
  EXPECT_EQ(
      SetMany(c, {{"hz", "11"}, {"notify-keyspace-events", "KEA"}, {"maxmemory-policy", "bad"}})
          .substr(0, 80),
      Failed("maxmemory-policy", "argument(s)").substr(0, 80));
  EXPECT_EQ(c.hz(), 20);
  EXPECT_EQ(c.notify_flags(), 0);
  // Names are checked first, in order, before any value: unknown, immutable, protected,
  // repeated (as typed: an alias and its name are different arguments).
  EXPECT_EQ(SetMany(c, {{"hz", "abc"}, {"nope", "1"}}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
  EXPECT_EQ(SetMany(c, {{"hz", "abc"}, {"daemonize", "yes"}}),
            Failed("daemonize", "can't set immutable config"));
  EXPECT_EQ(SetMany(c, {{"nope", "1"}, {"daemonize", "yes"}}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
  EXPECT_EQ(SetMany(c, {{"hz", "1"}, {"daemonize", "yes"}, {"hz", "2"}}),
            Failed("daemonize", "can't set immutable config"));
  EXPECT_EQ(SetMany(c, {{"hz", "1"}, {"HZ", "2"}, {"daemonize", "yes"}}),
            Failed("HZ", "duplicate parameter"));
  EXPECT_EQ(SetMany(c, {{"hz", "1"}, {"dir", "/tmp"}}),
            Failed("dir", "can't set protected config"));
  EXPECT_EQ(SetMany(c, {{"hash-max-ziplist-entries", "1"}, {"hash-max-listpack-entries", "2"}}),
            "OK");
  EXPECT_EQ(c.hash_max_listpack_entries(), 2);
  EXPECT_EQ(c.hz(), 20);
  EXPECT_EQ(Set1(c, "databases", "1"), Failed("databases", "can't set immutable config"));
}

// port and bind go to the listen hook together; a failure puts every value back.
TEST(Config, ListenersRebindAllOrNothing) {
  Config c;
  std::vector<std::pair<std::vector<std::string>, int64_t>> calls;
  bool fail = false;
  c.SetListenHook([&](const std::vector<std::string>& bind, int64_t port) {
    calls.emplace_back(bind, port);
    return fail ? Status::IoError("bind: Address already in use") : Status::Ok();
  });
  EXPECT_EQ(SetMany(c, {{"port", "7001"}, {"hz", "20"}}), "OK");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].first, (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_EQ(calls[0].second, 7001);
  EXPECT_EQ(SetMany(c, {{"bind", "* -::*"}, {"port", "7002"}}), "OK");
  ASSERT_EQ(calls.size(), 2u);  // one rebind for both
  EXPECT_EQ(calls[1].first, (std::vector<std::string>{"*", "-::*"}));
  EXPECT_EQ(Set1(c, "port", "7002"), "OK");  // unchanged: nothing to rebind
  EXPECT_EQ(calls.size(), 2u);
  fail = true;
  EXPECT_EQ(SetMany(c, {{"hz", "30"}, {"port", "7003"}}),
            Failed("port", "Unable to listen on this port. Check server logs."));
  EXPECT_EQ(SetMany(c, {{"hz", "30"}, {"bind", "10.1.1.1"}, {"port", "7003"}}),
            Failed("bind", "Failed to bind to specified addresses."));
  EXPECT_EQ(c.hz(), 20);
  EXPECT_EQ(c.port(), 7002);
  EXPECT_EQ(c.GetString("bind"), "* -::*");
  EXPECT_EQ(Set1(c, "bind", ""), Failed("bind", "Failed to bind to specified addresses."));
  fail = false;
  EXPECT_EQ(Set1(c, "bind", ""), "OK");  // no address: every address
  EXPECT_EQ(calls.back().first, (std::vector<std::string>{"*", "-::*"}));
  EXPECT_EQ(c.GetString("bind"), "");
}

TEST(Config, ProtectedConfigs) {
  std::string err;
  Config c;
  ASSERT_TRUE(Load(c, {"--enable-protected-configs", "local"}, &err)) << err;
  EXPECT_EQ(c.Set({{"dbfilename", "x.rdb"}}, false).message(),
            Failed("dbfilename", "can't set protected config"));
  EXPECT_TRUE(c.Set({{"dbfilename", "x.rdb"}}, true).ok());
  EXPECT_EQ(c.GetString("dbfilename"), "x.rdb");
  EXPECT_EQ(c.Set({{"dbfilename", "a/b"}}, true).message(),
            Failed("dbfilename", "dbfilename can't be a path, just a filename"));
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(c.Set({{"dir", "/nonexistent-hotkv-dir"}}, true).message(),
            Failed("dir", "No such file or directory"));
  EXPECT_EQ(c.GetString("dir"), cwd);
  EXPECT_TRUE(c.Set({{"dir", "/"}}, true).ok());
  EXPECT_EQ(c.GetString("dir"), "/");
  EXPECT_TRUE(c.Set({{"dir", cwd}}, true).ok());
}

TEST(Config, RewriteKeepsTheFileAndWritesWhatChanged) {
  std::string path = WriteFile("hotkv_config_rewrite.conf",
                               "# keep me\nslave-read-only no\nsave 3600 1\nsave 300 100\n"
                               "client-output-buffer-limit pubsub 1mb 1mb 0\nmaxmemory 2gb\n");
  Config c;
  std::string err;
  ASSERT_TRUE(Load(c, {path}, &err)) << err;
  ASSERT_EQ(SetMany(c, {{"hz", "20"},
                        {"save", "60 5"},
                        {"client-output-buffer-limit", "pubsub 32mb 8mb 60 replica 1gb 2kb 3"},
                        {"requirepass", "p \"w"},
                        {"maxmemory-clients", "5%"}}),
            "OK");
  ASSERT_TRUE(c.Rewrite().ok());
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    lines.push_back(l);
  }
  EXPECT_EQ(lines,
            (std::vector<std::string>{"# keep me", "replica-read-only no", "save 60 5",
                                      "client-output-buffer-limit slave 1gb 2kb 3", "maxmemory 2gb",
                                      "", "# Generated by CONFIG REWRITE", "hz 20",
                                      "maxmemory-clients 5%", "requirepass \"p \\\"w\""}));
  Config d;
  ASSERT_TRUE(Load(d, {path}, &err)) << err;
  for (const char* name : {"hz", "save", "client-output-buffer-limit", "requirepass",
                           "maxmemory-clients", "maxmemory", "replica-read-only"}) {
    EXPECT_EQ(d.GetString(name), c.GetString(name)) << name;
  }
  std::remove(path.c_str());
  Config none;
  EXPECT_EQ(none.Rewrite().message(), "The server is running without a config file");
}

TEST(Config, EveryParameterIsDocumented) {
  Config c;
  for (const auto& o : c.options()) {
    EXPECT_FALSE(o->note.empty()) << o->name;
  }
}

}  // namespace
}  // namespace hotkv

// Fixture files SAVEd and DUMPed by real Redis 7.0 and 8.8 (scripts/gen_rdb_fixtures.sh,
// tests/unit/rdb/fixtures/): every key, value, TTL and IDLE/FREQ must come out as the
// peer reported it (the .expected files), and the values HotKV has no type for must be
// refused with a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "rdb/rdb.h"
#include "types/hash_value.h"
#include "rdb_test_util.h"

namespace hotkv::rdb {
namespace {

using testing::KeyJson;

std::string Fixture(const std::string& name) { return std::string(RDB_FIXTURE_DIR) + "/" + name; }

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

class RdbFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(RdbFixture, FileLoadsEveryKeyValueAndTtl) {
  const std::string tag = GetParam();
  std::vector<std::string> expected = ReadLines(Fixture(tag + ".expected"));
  ASSERT_GT(expected.size(), 20u);
  std::vector<std::string> got;
  size_t with_idle = 0, with_freq = 0;
  Result<LoadStats> stats = LoadFile(Fixture(tag + ".rdb"), {}, [&](LoadedKey&& k) {
    got.push_back(KeyJson(k.db, *k.entry, k.expire_ms));
    EXPECT_EQ(k.entry->has_expire_block(), k.expire_ms >= 0);
    with_idle += k.idle_seconds.has_value();
    with_freq += k.lfu_freq.has_value();
    Entry::Free(k.entry);
    return Status();
  });
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->keys, expected.size());
  EXPECT_EQ(stats->version, tag == "redis70" ? 10 : 14);
  bool has_ver = false;
  for (const auto& [k, v] : stats->aux) has_ver |= k == "redis-ver";
  EXPECT_TRUE(has_ver);
  // The generator sets an LRU policy on 7.0 (IDLE before each key), LFU on 8.8 (FREQ).
  EXPECT_EQ(tag == "redis70" ? with_idle : with_freq, expected.size());
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]);
}

TEST_P(RdbFixture, DumpPayloadsRestoreEveryKey) {
  const std::string tag = GetParam();
  std::map<std::string, std::string> expected;  // key hex -> line with expire_ms -1
  for (std::string line : ReadLines(Fixture(tag + ".expected"))) {
    if (line.rfind("{\"db\":0,", 0) != 0) continue;
    const size_t k = line.find("\"key\":\"") + 7;
    const std::string key = line.substr(k, line.find('"', k) - k);
    const size_t e = line.find("\"expire_ms\":") + 12;
    line.replace(e, line.find(',', e) - e, "-1");
    expected[key] = line;
  }
  std::vector<std::string> dumps = ReadLines(Fixture(tag + ".dumps"));
  ASSERT_EQ(dumps.size(), expected.size());
  for (const std::string& line : dumps) {
    std::istringstream in(line);
    std::string key_hex, payload_hex;
    in >> key_hex >> payload_hex;
    const std::string payload = Unhex(payload_hex);
    ASSERT_TRUE(VerifyDumpPayload(payload)) << key_hex;
    Result<Entry*> e = LoadDumpPayload(payload, Unhex(key_hex), {});
    ASSERT_TRUE(e.ok()) << key_hex << ": " << e.status().message();
    EXPECT_EQ(KeyJson(0, **e, -1), expected[key_hex]);
    Entry::Free(*e);
  }
}

INSTANTIATE_TEST_SUITE_P(Peers, RdbFixture, ::testing::Values("redis70", "redis88"));

// Redis 8.8 in cluster mode writes SLOT_INFO before the keys of each slot.
TEST(RdbFixtureCluster, SlotInfoIsSkipped) {
  std::vector<std::string> expected = ReadLines(Fixture("redis88_cluster.expected"));
  ASSERT_EQ(expected.size(), 51u);
  std::vector<std::string> got;
  Result<LoadStats> stats = LoadFile(Fixture("redis88_cluster.rdb"), {}, [&](LoadedKey&& k) {
    got.push_back(KeyJson(k.db, *k.entry, k.expire_ms));
    Entry::Free(k.entry);
    return Status();
  });
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
}

std::string LoadError(const std::string& file) {
  std::vector<Entry*> keys;
  Result<LoadStats> st = LoadFile(Fixture(file), {}, [&](LoadedKey&& k) {
    keys.push_back(k.entry);
    return Status();
  });
  for (Entry* e : keys) Entry::Free(e);
  return st.ok() ? "ok" : st.status().message();
}

TEST(RdbFixture, HashWithFieldExpiry) {
  // Redis 8.8's HASH_LISTPACK_EX: "hfe" = {f: v (HEXPIRE 100000 at generation), g: w}.
  std::vector<Entry*> keys;
  Result<LoadStats> st = LoadFile(Fixture("redis88_hfe.rdb"), {}, [&](LoadedKey&& k) {
    keys.push_back(k.entry);
    return Status();
  });
  ASSERT_TRUE(st.ok()) << st.status().message();
  ASSERT_EQ(keys.size(), 1u);
  const auto* h = keys[0]->As<types::HashValue>();
  EXPECT_EQ(keys[0]->key(), "hfe");
  EXPECT_EQ(h->size(), 2u);
  EXPECT_EQ(h->Get("f")->view(), "v");
  EXPECT_GT(h->ExpireAt("f"), int64_t{1700000000000});
  EXPECT_EQ(h->ExpireAt("g"), 0);
  EXPECT_STREQ(h->EncodingName(), "listpackex");
  // Written back (HASH_METADATA) and read again, the TTLs are the same.
  std::string payload = DumpPayload(*keys[0], false);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), 24);
  Result<Entry*> back = LoadDumpPayload(payload, "hfe", types::EncodingLimits());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)->As<types::HashValue>()->ExpireAt("f"), h->ExpireAt("f"));
  EXPECT_EQ((*back)->As<types::HashValue>()->ExpireAt("g"), 0);
  Entry::Free(*back);
  for (Entry* e : keys) Entry::Free(e);
}

TEST(RdbFixtureRefused, TooFewDatabases) {
  LoadOptions opts;
  opts.num_dbs = 4;  // the fixture has keys in db 9
  Result<LoadStats> st = LoadFile(Fixture("redis70.rdb"), opts, [&](LoadedKey&& k) {
    Entry::Free(k.entry);
    return Status();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("more than 4 databases"), std::string::npos);
}

TEST(RdbFixtureRefused, CallbackErrorStopsTheLoad) {
  int calls = 0;
  Result<LoadStats> st = LoadFile(Fixture("redis70.rdb"), {}, [&](LoadedKey&& k) {
    Entry::Free(k.entry);
    return ++calls == 3 ? Status::InvalidArgument("stop here") : Status();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().message(), "stop here");
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace hotkv::rdb

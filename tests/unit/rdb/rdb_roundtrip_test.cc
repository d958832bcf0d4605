// Round trips through the RDB library: DUMP payloads and whole files written by HotKV
// and read back, for every value type and encoding size class, plus the exact bytes of a
// few encodings Redis defines (integer strings, LZF, CRC64).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>

#include "rdb/rdb.h"
#include "rdb_test_util.h"

namespace hotkv::rdb {
namespace {

using testing::MakeHash;
using testing::MakeList;
using testing::MakeSet;
using testing::MakeZSet;
using testing::Render;

struct EntryDeleter {
  void operator()(Entry* e) const { Entry::Free(e); }
};
using EntryPtr = std::unique_ptr<Entry, EntryDeleter>;

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::string RoundTrip(const Entry& e, bool compress) {
  std::string p = DumpPayload(e, compress);
  EXPECT_TRUE(VerifyDumpPayload(p));
  Result<Entry*> back = LoadDumpPayload(p, e.key(), {});
  if (!back.ok()) return "error: " + back.status().message();
  EntryPtr holder(*back);
  EXPECT_EQ(holder->key(), e.key());
  return Render(*holder);
}

std::vector<std::pair<std::string, double>> ZItems(int n) {
  std::vector<std::pair<std::string, double>> v;
  for (int i = 0; i < n; ++i) v.emplace_back("m" + std::to_string(i), i * 1.5 - 7);
  return v;
}

TEST(RdbCrc64, MatchesRedisTestVector) {
  EXPECT_EQ(Crc64(0, "123456789", 9), 0xe9c6d914c4b8d9caULL);
  // Chunked computation equals one pass.
  std::string s(1000, 'x');
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i * 7);
  EXPECT_EQ(Crc64(Crc64(0, s.data(), 333), s.data() + 333, 667), Crc64(0, s.data(), 1000));
}

TEST(RdbDump, StringEncodingsAreRedisBytes) {
  EntryPtr hello(Entry::NewString("k", "hello", false));
  std::string p = DumpPayload(*hello, true);
  EXPECT_EQ(Hex(p.substr(0, p.size() - 8)), "000568656c6c6f0a00");
  EntryPtr small(Entry::NewString("k", "123", false));
  p = DumpPayload(*small, true);
  EXPECT_EQ(Hex(p.substr(0, p.size() - 8)), "00c07b0a00");  // INT8
  EntryPtr neg(Entry::NewString("k", "-1000", false));
  p = DumpPayload(*neg, true);
  EXPECT_EQ(Hex(p.substr(0, p.size() - 8)), "00c118fc0a00");  // INT16 LE
  EntryPtr i32(Entry::NewString("k", "2147483647", false));
  p = DumpPayload(*i32, true);
  EXPECT_EQ(Hex(p.substr(0, p.size() - 8)), "00c2ffffff7f0a00");  // INT32 LE
  EntryPtr big(Entry::NewString("k", "2147483648", false));  // beyond int32: raw
  p = DumpPayload(*big, true);
  EXPECT_EQ(Hex(p.substr(0, 3)), "000a32");
  EntryPtr lead(Entry::NewString("k", "007", false));  // not canonical: raw
  p = DumpPayload(*lead, true);
  EXPECT_EQ(Hex(p.substr(0, p.size() - 8)), "00033030370a00");
  EntryPtr rep(Entry::NewString("k", std::string(100, 'a'), false));
  p = DumpPayload(*rep, true);
  EXPECT_EQ(static_cast<uint8_t>(p[1]), 0xC3);  // LZF
  p = DumpPayload(*rep, false);
  EXPECT_EQ(Hex(p.substr(0, 3)), "004064");  // 14-bit length 100, raw
}

TEST(RdbDump, StringsRoundTrip) {
  std::mt19937 rng(7);
  std::string random(100000, '\0');
  for (auto& c : random) c = static_cast<char>(rng());
  std::vector<std::string> values = {"", "hello", "0", "-1", "127", "128", "-32768", "65536",
                                     "-2147483648", "9223372036854775807", "007", "-0", "1e3",
                                     std::string("a\0b", 3), std::string(21, 'z'),
                                     std::string(100000, 'q'), random};
  for (bool compress : {false, true}) {
    for (const auto& v : values) {
      EntryPtr e(Entry::NewString("key", v, false));
      EXPECT_EQ(RoundTrip(*e, compress), "string:" + v) << v.size();
    }
  }
}

TEST(RdbDump, CollectionsRoundTrip) {
  std::vector<std::string> small = {"a", "1", "-5", "bb", std::string(200, 'x')};
  std::vector<std::string> large;
  for (int i = 0; i < 5000; ++i) large.push_back("element-" + std::to_string(i));
  std::vector<std::string> ints;
  for (int i = 0; i < 3000; ++i) ints.push_back(std::to_string(i * 37 - 1000));
  std::vector<std::pair<std::string, std::string>> hsmall = {{"f", "v"}, {"1", "2"}};
  std::vector<std::pair<std::string, std::string>> hlarge;
  for (int i = 0; i < 1000; ++i) hlarge.emplace_back("f" + std::to_string(i), std::string(i % 90, 'v'));

  std::vector<EntryPtr> entries;
  entries.emplace_back(MakeList("l1", small));
  entries.emplace_back(MakeList("l2", large));
  entries.emplace_back(MakeSet("s1", small));
  entries.emplace_back(MakeSet("s2", large));
  entries.emplace_back(MakeSet("s3", {"1", "2", "3"}));
  entries.emplace_back(MakeSet("s4", ints));
  entries.emplace_back(MakeZSet("z1", {{"a", 1}, {"b", -INFINITY}, {"c", INFINITY}, {"d", -0.0},
                                       {"e", 0.1}, {"f", 1e300}}));
  entries.emplace_back(MakeZSet("z2", ZItems(3000)));
  entries.emplace_back(MakeHash("h1", hsmall));
  entries.emplace_back(MakeHash("h2", hlarge));
  for (bool compress : {false, true}) {
    for (const auto& e : entries) {
      EXPECT_EQ(RoundTrip(*e, compress), Render(*e)) << e->key();
    }
  }
}

TEST(RdbDump, VerifyRejectsBadVersionAndChecksum) {
  EntryPtr e(Entry::NewString("k", "value", false));
  std::string p = DumpPayload(*e, true);
  ASSERT_TRUE(VerifyDumpPayload(p));
  std::string bad = p;
  bad[2] ^= 1;
  EXPECT_FALSE(VerifyDumpPayload(bad));
  bad = p;
  bad[p.size() - 10] = static_cast<char>(kMaxReadVersion + 1);  // version low byte
  EXPECT_FALSE(VerifyDumpPayload(bad));
  EXPECT_FALSE(VerifyDumpPayload(""));
  EXPECT_FALSE(VerifyDumpPayload("short"));
}

TEST(RdbDump, LoadedCollectionsFollowTheEncodingLimits) {
  EntryPtr h(MakeHash("h", {{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EntryPtr z(MakeZSet("z", {{"a", 1}, {"b", 2}, {"c", 3}}));
  EntryPtr s(MakeSet("s", {"1", "2", "3"}));
  const std::string hp = DumpPayload(*h, true), zp = DumpPayload(*z, true), sp = DumpPayload(*s, true);
  auto encoding = [](Result<Entry*> e) {
    EXPECT_TRUE(e.ok());
    EntryPtr holder(*e);
    return std::string(holder->EncodingName());
  };
  EXPECT_EQ(encoding(LoadDumpPayload(hp, "h", {})), "listpack");
  EXPECT_EQ(encoding(LoadDumpPayload(zp, "z", {})), "listpack");
  EXPECT_EQ(encoding(LoadDumpPayload(sp, "s", {})), "intset");
  types::EncodingLimits small;
  small.hash_max_listpack_entries = 2;
  small.set_max_intset_entries = 2;
  small.set_max_listpack_entries = 2;
  types::ZSetLimits zsmall;
  zsmall.max_listpack_entries = 2;
  EXPECT_EQ(encoding(LoadDumpPayload(hp, "h", small)), "hashtable");
  EXPECT_EQ(encoding(LoadDumpPayload(sp, "s", small)), "hashtable");
  EXPECT_EQ(encoding(LoadDumpPayload(zp, "z", small, zsmall)), "skiplist");
}

class TempFile {
 public:
  TempFile() {
    char tmpl[] = "/tmp/rdb_test_XXXXXX";
    fd_ = mkstemp(tmpl);
    path_ = tmpl;
  }
  ~TempFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

TEST(RdbFile, WriteThenLoadEveryType) {
  std::vector<std::string> large;
  for (int i = 0; i < 2000; ++i) large.push_back("e" + std::to_string(i));
  std::vector<EntryPtr> db0, db3;
  db0.emplace_back(Entry::NewString("str", "hello world", false));
  db0.emplace_back(Entry::NewString("int", "42", false));
  db0.emplace_back(MakeList("list", large));
  db0.emplace_back(MakeSet("set", large));
  db3.emplace_back(MakeZSet("zset", ZItems(200)));
  db3.emplace_back(MakeHash("hash", {{"a", "1"}, {"b", std::string(5000, 'b')}}));

  TempFile tmp;
  for (bool compress : {false, true}) {
    ASSERT_EQ(ftruncate(tmp.fd(), 0), 0);
    ASSERT_EQ(lseek(tmp.fd(), 0, SEEK_SET), 0);
    FileWriter w(tmp.fd(), {.compress = compress, .checksum = true});
    ASSERT_TRUE(w.Begin({{"redis-ver", "7.0.15"}, {"redis-bits", "64"}}).ok());
    ASSERT_TRUE(w.SelectDb(0, db0.size(), 1).ok());
    ASSERT_TRUE(w.WriteKey(*db0[0], 1893456000000).ok());
    for (size_t i = 1; i < db0.size(); ++i) ASSERT_TRUE(w.WriteKey(*db0[i], -1, 17).ok());
    ASSERT_TRUE(w.SelectDb(3, db3.size(), 0).ok());
    for (const auto& e : db3) ASSERT_TRUE(w.WriteKey(*e, -1, std::nullopt, 5).ok());
    ASSERT_TRUE(w.Finish().ok());
    EXPECT_EQ(w.bytes_written(), static_cast<uint64_t>(lseek(tmp.fd(), 0, SEEK_CUR)));

    std::map<std::string, std::string> got;
    std::vector<LoadedKey> keys;
    uint64_t progress_calls = 0;
    Result<LoadStats> stats = LoadFile(
        tmp.path(), {},
        [&](LoadedKey&& k) {
          got[std::to_string(k.db) + "/" + std::string(k.entry->key())] = Render(*k.entry);
          keys.push_back(std::move(k));
          return Status();
        },
        [&](uint64_t, uint64_t) { ++progress_calls; });
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_EQ(stats->version, kWriteVersion);
    EXPECT_EQ(stats->keys, 6u);
    EXPECT_GE(progress_calls, 1u);
    ASSERT_EQ(stats->aux.size(), 2u);
    EXPECT_EQ(stats->aux[0], (std::pair<std::string, std::string>("redis-ver", "7.0.15")));
    EXPECT_EQ(stats->aux[1].second, "64");
    for (const auto& e : db0) EXPECT_EQ(got["0/" + std::string(e->key())], Render(*e));
    for (const auto& e : db3) EXPECT_EQ(got["3/" + std::string(e->key())], Render(*e));
    ASSERT_EQ(keys.size(), 6u);
    EXPECT_EQ(keys[0].expire_ms, 1893456000000);
    EXPECT_TRUE(keys[0].entry->has_expire_block());
    EXPECT_EQ(keys[1].expire_ms, -1);
    EXPECT_EQ(keys[1].idle_seconds, std::optional<uint64_t>(17));
    EXPECT_EQ(keys[5].lfu_freq, std::optional<uint8_t>(5));
    EXPECT_EQ(keys[5].db, 3);
    for (auto& k : keys) Entry::Free(k.entry);
  }
}

TEST(RdbFile, ChecksumMismatchAndBadSignatureAreErrors) {
  TempFile tmp;
  {
    FileWriter w(tmp.fd(), {});
    ASSERT_TRUE(w.Begin({}).ok());
    ASSERT_TRUE(w.SelectDb(0, 1, 0).ok());
    EntryPtr e(Entry::NewString("k", "v", false));
    ASSERT_TRUE(w.WriteKey(*e, -1).ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  // Flip a byte of the value: the checksum no longer matches.
  char c;
  off_t at = lseek(tmp.fd(), 0, SEEK_END) - 10;
  ASSERT_EQ(pread(tmp.fd(), &c, 1, at), 1);
  c ^= 0x20;
  ASSERT_EQ(pwrite(tmp.fd(), &c, 1, at), 1);
  std::vector<Entry*> loaded;
  auto keep = [&](LoadedKey&& k) {
    loaded.push_back(k.entry);
    return Status();
  };
  Result<LoadStats> st = LoadFile(tmp.path(), {}, keep);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("Wrong RDB checksum"), std::string::npos)
      << st.status().message();
  LoadOptions no_check;
  no_check.verify_checksum = false;
  EXPECT_TRUE(LoadFile(tmp.path(), no_check, keep).ok());
  ASSERT_EQ(pwrite(tmp.fd(), "XEDIS", 5, 0), 5);
  st = LoadFile(tmp.path(), {}, keep);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("Wrong signature"), std::string::npos);
  for (Entry* e : loaded) Entry::Free(e);
  EXPECT_FALSE(LoadFile("/nonexistent/dump.rdb", {}, keep).ok());
}

}  // namespace
}  // namespace hotkv::rdb

// Encodings HotKV reads but neither writes nor gets from the Redis 7.0/8.8 fixtures:
// ziplists (lists, zsets, hashes), quicklist v1, zipmaps, intsets of every width, ZSET
// with ASCII doubles, LZF-compressed blobs, every file opcode (AUX, MODULE_AUX,
// FUNCTION2, SLOT_INFO, KEY_META, EXPIRETIME in seconds), and the errors for what is
// refused (duplicates, NaN, Redis 8.6 streams, modules, unknown types and versions, empty keys).
#include <gtest/gtest.h>
#include <liblzf/lzf.h>
#include <unistd.h>

#include <cmath>

#include "rdb/rdb.h"
#include "rdb_builder.h"
#include "rdb_test_util.h"

namespace hotkv::rdb {
namespace {

using testing::Intset;
using testing::Item;
using testing::KeyJson;
using testing::Listpack;
using testing::Payload;
using testing::RdbFile;
using testing::RdbLen;
using testing::RdbStr;
using testing::Ziplist;
using testing::Zipmap;

const std::string kNul(1, '\0');  // type STRING

std::string H(const std::string& s) { return testing::HexQuoted(s); }

// Loads a DUMP payload; the key's JSON line, or "error: ...".
std::string Restore(const std::string& payload) {
  if (!VerifyDumpPayload(payload)) return "error: verify";
  Result<Entry*> e = LoadDumpPayload(payload, "k", {});
  if (!e.ok()) return "error: " + e.status().message();
  std::string out = KeyJson(0, **e, -1);
  Entry::Free(*e);
  return out;
}

std::string Line(const std::string& type, const std::string& value, int db = 0,
                 int64_t expire = -1, const std::string& key = "k") {
  return "{\"db\":" + std::to_string(db) + ",\"key\":" + H(key) + ",\"type\":\"" + type +
         "\",\"expire_ms\":" + std::to_string(expire) + ",\"value\":" + value + "}";
}

struct FileResult {
  std::vector<std::string> keys;
  std::string error;  // "" when the load succeeded
  LoadStats stats;
};

FileResult LoadBytes(const std::string& content) {
  char tmpl[] = "/tmp/rdb_legacy_XXXXXX";
  int fd = mkstemp(tmpl);
  EXPECT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  close(fd);
  FileResult r;
  Result<LoadStats> st = LoadFile(tmpl, {}, [&](LoadedKey&& k) {
    r.keys.push_back(KeyJson(k.db, *k.entry, k.expire_ms));
    Entry::Free(k.entry);
    return Status();
  });
  unlink(tmpl);
  if (st.ok()) {
    r.stats = *st;
  } else {
    r.error = st.status().message();
  }
  return r;
}

const std::vector<Item> kMixed = {std::string("a"),  int64_t{0},          int64_t{12},
                                  int64_t{13},       int64_t{-100},       int64_t{1000},
                                  int64_t{-100000},  int64_t{1000000000}, int64_t{-1000000000000000},
                                  std::string(300, 'x'), std::string("b")};
const std::string kMixedJson = "[" + H("a") + "," + H("0") + "," + H("12") + "," + H("13") + "," +
                               H("-100") + "," + H("1000") + "," + H("-100000") + "," +
                               H("1000000000") + "," + H("-1000000000000000") + "," +
                               H(std::string(300, 'x')) + "," + H("b") + "]";

TEST(RdbLegacy, ListZiplistWithEveryEntryEncoding) {
  EXPECT_EQ(Restore(Payload(10, RdbStr(Ziplist(kMixed)))), Line("list", kMixedJson));
}

TEST(RdbLegacy, QuicklistV1SkipsEmptyNodes) {
  std::string body = RdbLen(3) + RdbStr(Ziplist({std::string("a"), int64_t{1}})) + RdbStr(Ziplist({})) +
                     RdbStr(Ziplist({std::string("b")}));
  EXPECT_EQ(Restore(Payload(14, body)), Line("list", "[" + H("a") + "," + H("1") + "," + H("b") + "]"));
  EXPECT_EQ(Restore(Payload(14, RdbLen(1) + RdbStr(Ziplist({})))), "error: Empty keys are not allowed");
}

TEST(RdbLegacy, QuicklistV2PlainAndPackedNodes) {
  std::string body = RdbLen(2) + RdbLen(1) + RdbStr(std::string(5000, 'p')) + RdbLen(2) +
                     RdbStr(Listpack(kMixed));
  std::string expected = kMixedJson;
  expected.insert(1, H(std::string(5000, 'p')) + ",");
  EXPECT_EQ(Restore(Payload(18, body)), Line("list", expected));
  // A container other than PLAIN (1) or PACKED (2) is corrupt.
  EXPECT_EQ(Restore(Payload(18, RdbLen(1) + RdbLen(3) + RdbStr("x"))),
            "error: Quicklist integrity check failed.");
}

TEST(RdbLegacy, IntsetsOfEveryWidth) {
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(2, {-5, 7, 300})))),
            Line("set", "[" + H("-5") + "," + H("300") + "," + H("7") + "]"));
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(4, {-70000, 70000})))),
            Line("set", "[" + H("-70000") + "," + H("70000") + "]"));
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(8, {INT64_MIN, INT64_MAX})))),
            Line("set", "[" + H("-9223372036854775808") + "," + H("9223372036854775807") + "]"));
  // Unsorted, duplicated, empty or badly sized intsets are refused.
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(2, {7, -5})))), "error: Intset integrity check failed.");
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(2, {7, 7})))), "error: Intset integrity check failed.");
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(2, {})))), "error: Intset integrity check failed.");
  EXPECT_EQ(Restore(Payload(11, RdbStr(Intset(3, {1})))), "error: Intset integrity check failed.");
}

TEST(RdbLegacy, SetListpack) {
  EXPECT_EQ(Restore(Payload(20, RdbStr(Listpack({std::string("x"), int64_t{5}})))),
            Line("set", "[" + H("5") + "," + H("x") + "]"));
  EXPECT_EQ(Restore(Payload(20, RdbStr(Listpack({std::string("5"), int64_t{5}})))),
            "error: Duplicate set members detected");
}

TEST(RdbLegacy, ZsetZiplistAndListpackScores) {
  std::vector<Item> items = {std::string("a"), int64_t{3},           std::string("b"),
                             std::string("1.5"), std::string("c"), std::string("inf"),
                             std::string("d"), std::string("-inf")};
  std::string expected = "[[" + H("d") + ",\"-inf\"],[" + H("b") + ",\"1.5\"],[" + H("a") +
                         ",\"3\"],[" + H("c") + ",\"inf\"]]";
  EXPECT_EQ(Restore(Payload(12, RdbStr(Ziplist(items)))), Line("zset", expected));
  EXPECT_EQ(Restore(Payload(17, RdbStr(Listpack(items)))), Line("zset", expected));
  EXPECT_EQ(Restore(Payload(17, RdbStr(Listpack({std::string("a"), std::string("nan")})))),
            "error: Zset with NAN score detected");
  EXPECT_EQ(Restore(Payload(17, RdbStr(Listpack({std::string("a"), int64_t{1}, std::string("a"),
                                                 int64_t{2}})))),
            "error: Duplicate zset fields detected");
  EXPECT_EQ(Restore(Payload(17, RdbStr(Listpack({std::string("a")})))),
            "error: Zset ziplist or listpack integrity check failed.");
}

TEST(RdbLegacy, ZsetAsciiDoubles) {
  std::string body = RdbLen(4) + RdbStr("a") + "\x03" "1.5" + RdbStr("b") + "\xfe" + RdbStr("c") +
                     "\xff" + RdbStr("d") + "\x02" "-2";
  EXPECT_EQ(Restore(Payload(3, body)),
            Line("zset", "[[" + H("c") + ",\"-inf\"],[" + H("d") + ",\"-2\"],[" + H("a") +
                             ",\"1.5\"],[" + H("b") + ",\"inf\"]]"));
  EXPECT_EQ(Restore(Payload(3, RdbLen(1) + RdbStr("a") + "\xfd")), "error: Zset with NAN score detected");
}

TEST(RdbLegacy, HashZiplistListpackZipmap) {
  std::string expected = "[[" + H("f") + "," + H(std::string(300, 'v')) + "],[" + H("n") + "," +
                         H("-7") + "]]";
  std::vector<Item> items = {std::string("f"), std::string(300, 'v'), std::string("n"), int64_t{-7}};
  EXPECT_EQ(Restore(Payload(13, RdbStr(Ziplist(items)))), Line("hash", expected));
  EXPECT_EQ(Restore(Payload(16, RdbStr(Listpack(items)))), Line("hash", expected));
  EXPECT_EQ(Restore(Payload(9, RdbStr(Zipmap({{"f", std::string(300, 'v')}, {"n", "-7"}})))),
            Line("hash", expected));
  EXPECT_EQ(Restore(Payload(16, RdbStr(Listpack({std::string("f"), int64_t{1}, std::string("f"),
                                                 int64_t{2}})))),
            "error: Duplicate hash fields detected");
  EXPECT_EQ(Restore(Payload(9, RdbStr(Zipmap({{"f", "1"}, {"f", "2"}})))),
            "error: Duplicate hash fields detected");
}

TEST(RdbLegacy, LzfCompressedBlob) {
  std::vector<Item> items;
  std::string expected = "[";
  for (int i = 0; i < 50; ++i) {
    items.emplace_back(std::string("repeated-element"));
    expected += (i ? "," : "") + H("repeated-element");
  }
  expected += "]";
  std::string blob = Ziplist(items);
  std::string c(blob.size(), '\0');
  unsigned int clen = lzf_compress(blob.data(), blob.size(), c.data(), c.size());
  ASSERT_GT(clen, 0u);
  std::string body = std::string("\xc3") + RdbLen(clen) + RdbLen(blob.size()) + c.substr(0, clen);
  EXPECT_EQ(Restore(Payload(10, body)), Line("list", expected));
  // A claimed size the data does not decompress to is refused.
  std::string bad = std::string("\xc3") + RdbLen(clen) + RdbLen(blob.size() + 1) + c.substr(0, clen);
  EXPECT_EQ(Restore(Payload(10, bad)), "error: Invalid LZF compressed string");
}

TEST(RdbLegacy, BlobIntegrityChecks) {
  std::string zl = Ziplist({std::string("a"), std::string("b")});
  std::string bad = zl;
  bad[0] ^= 1;  // zlbytes
  EXPECT_EQ(Restore(Payload(10, RdbStr(bad))), "error: Ziplist integrity check failed.");
  bad = zl;
  bad[4] ^= 1;  // zltail
  EXPECT_EQ(Restore(Payload(10, RdbStr(bad))), "error: Ziplist integrity check failed.");
  bad = zl;
  bad[8] = 3;  // zllen
  EXPECT_EQ(Restore(Payload(10, RdbStr(bad))), "error: Ziplist integrity check failed.");
  std::string lp = Listpack({std::string("a"), std::string("b")});
  bad = lp;
  bad[8] = 5;  // backlen of the first entry
  EXPECT_EQ(Restore(Payload(20, RdbStr(bad))), "error: Listpack integrity check failed.");
  bad = lp;
  bad[4] = 7;  // count
  EXPECT_EQ(Restore(Payload(20, RdbStr(bad))), "error: Listpack integrity check failed.");
  bad = lp;
  bad[6] = static_cast<char>(0x85);  // first string claims 5 bytes
  EXPECT_EQ(Restore(Payload(20, RdbStr(bad))), "error: Listpack integrity check failed.");
}

TEST(RdbLegacy, RefusedTypes) {
  // Streams are read up to Redis 8.8's RDB_TYPE_STREAM_LISTPACKS_5 (rdb_stream_test.cc,
  // test_streams_redis86.py): a truncated one is a short read, not a refused type.
  EXPECT_EQ(Restore(Payload(26, RdbLen(0))), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(27, RdbLen(0))), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(42, RdbLen(0))), "error: Unknown RDB encoding type 42");
  // Module id: 9 name characters of 6 bits each, then a 10-bit encoding version.
  const std::string charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint64_t id = 0;
  // (ReJSON-RL and vectorset are read: json_codec, vector_set_codec.)
  for (char c : std::string("MBbloom--")) id = (id << 6) | charset.find(c);
  id = (id << 10) | 3;
  std::string body = "\x81";
  for (int i = 7; i >= 0; --i) body.push_back(static_cast<char>(id >> (8 * i)));
  EXPECT_EQ(Restore(Payload(7, body)), "error: module type 'MBbloom--' is not supported");
}

TEST(RdbLegacy, CorruptCountsFailWithoutHugeAllocations) {
  const std::string huge("\x81\x00\x00\x10\x00\x00\x00\x00\x00", 9);  // 2^44 elements
  EXPECT_EQ(Restore(Payload(1, huge)), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(4, huge)), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(5, huge)), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(0, "\x80\xff\xff\xff\xff" "abc")), "error: Short read or OOM loading DB");
  EXPECT_EQ(Restore(Payload(1, RdbLen(0))), "error: Empty keys are not allowed");
  EXPECT_EQ(Restore(Payload(2, RdbLen(2) + RdbStr("a") + RdbStr("a"))),
            "error: Duplicate set members detected");
}

TEST(RdbLegacy, FileOpcodesAreHandled) {
  std::string body;
  body += "\xfa" + RdbStr("redis-ver") + RdbStr("6.2.0");
  // MODULE_AUX: module id, when_opcode UINT, when, then SINT, STRING, FLOAT, DOUBLE, EOF.
  body += "\xf7" + RdbLen(12345) + RdbLen(2) + RdbLen(2) + RdbLen(1) + RdbLen(5) + RdbLen(5) +
          RdbStr("aux") + RdbLen(3) + std::string(4, '\0') + RdbLen(4) + std::string(8, '\0') + RdbLen(0);
  body += "\xf5" + RdbStr("#!lua name=lib\nreturn 1");  // FUNCTION2: skipped
  body += "\xfe" + RdbLen(0) + "\xfb" + RdbLen(3) + RdbLen(1);
  body += "\xf4" + RdbLen(100) + RdbLen(3) + RdbLen(1);  // SLOT_INFO
  body += "\xfd" + std::string("\x80\x96\x98\x00", 4);      // EXPIRETIME 10000000 s
  body += kNul + RdbStr("a") + RdbStr("1");
  // KEY_META: one class, its 4-byte spec and a module value (UINT 7, EOF).
  body += "\xf3" + RdbLen(1) + std::string("abcd") + RdbLen(2) + RdbLen(7) + RdbLen(0);
  body += std::string("\xf9\x05") + kNul + RdbStr("b") + RdbStr("2");
  body += "\xfe" + RdbLen(2);
  body += std::string("\x01") + RdbStr("empty") + RdbLen(0);  // an empty list: skipped
  body += std::string("\xf8") + RdbLen(300) + "\x01" + RdbStr("l") + RdbLen(1) + RdbStr("x");
  for (int version : {9, 11, 12, 14}) {
    FileResult r = LoadBytes(RdbFile(body, version));
    ASSERT_EQ(r.error, "") << version;
    EXPECT_EQ(r.stats.version, version);
    ASSERT_EQ(r.keys.size(), 3u);
    EXPECT_EQ(r.keys[0], Line("string", H("1"), 0, 10000000000LL, "a"));
    EXPECT_EQ(r.keys[1], Line("string", H("2"), 0, -1, "b"));
    EXPECT_EQ(r.keys[2], Line("list", "[" + H("x") + "]", 2, -1, "l"));
    ASSERT_EQ(r.stats.aux.size(), 1u);
    EXPECT_EQ(r.stats.aux[0].second, "6.2.0");
  }
  // RDB 4 and older have no checksum after EOF.
  EXPECT_EQ(LoadBytes(RdbFile(kNul + RdbStr("a") + RdbStr("1"), 4)).keys.size(), 1u);
}

TEST(RdbLegacy, FileErrors) {
  EXPECT_NE(LoadBytes(RdbFile("", 15)).error.find("Can't handle RDB format version 15"), std::string::npos);
  EXPECT_NE(LoadBytes("REDIS").error.find("Wrong signature"), std::string::npos);
  EXPECT_NE(LoadBytes("").error.find("Wrong signature"), std::string::npos);
  EXPECT_NE(LoadBytes(RdbFile("\xf6" + RdbStr("f"))).error.find("Pre-release function format not supported"),
            std::string::npos);
  EXPECT_NE(LoadBytes(RdbFile(std::string("\x2a") + RdbStr("k"))).error.find("Unknown RDB encoding type 42"),
            std::string::npos);
  FileResult r = LoadBytes(RdbFile(kNul + RdbStr("a") + RdbStr("1") + "\x2a" + RdbStr("s")));
  EXPECT_NE(r.error.find("Unknown RDB encoding type 42"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("offset 14"), std::string::npos) << r.error;
  EXPECT_EQ(r.keys.size(), 1u);  // the key before the error was handed over
  std::string truncated = RdbFile(kNul + RdbStr("a") + RdbStr("1"));
  truncated.resize(truncated.size() - 12);
  EXPECT_NE(LoadBytes(truncated).error.find("Short read"), std::string::npos);
}

}  // namespace
}  // namespace hotkv::rdb

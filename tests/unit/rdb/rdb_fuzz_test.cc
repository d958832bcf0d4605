// Corrupt input never crashes or leaks: every fixture file and DUMP payload (from Redis
// 7.0 and 8.8 including vector sets, and the hand-built legacy encodings) is loaded truncated at every length
// (densely sampled for files) and with thousands of seeded random bit flips and byte
// overwrites; payloads get their CRC recomputed, files are loaded with checksum
// verification off, so the decoder itself meets the garbage. A failed load must return
// an error with a message; under `make asan-test` ASan/LSan check memory and leaks.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "rdb/rdb.h"
#include "rdb_builder.h"
#include "rdb_fixture_util.h"

namespace hotkv::rdb {
namespace {

using testing::Corrupt;
using testing::Fixture;
using testing::ReadFile;

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<std::string> Payloads() {
  std::vector<std::string> out;
  for (const char* tag : {"redis70", "redis88", "redis88_vset"}) {
    std::ifstream in(Fixture(std::string(tag) + ".dumps"));
    for (std::string key, payload; in >> key >> payload;) out.push_back(Unhex(payload));
  }
  using namespace testing;  // NOLINT: the builder's short names
  std::vector<Item> mixed = {std::string("a"), int64_t{0}, int64_t{-100}, int64_t{100000},
                             int64_t{1} << 40, std::string(300, 'x'), std::string("b"), int64_t{7}};
  out.push_back(Payload(10, RdbStr(Ziplist(mixed))));
  out.push_back(Payload(12, RdbStr(Ziplist(mixed))));
  out.push_back(Payload(13, RdbStr(Ziplist(mixed))));
  out.push_back(Payload(16, RdbStr(Listpack(mixed))));
  out.push_back(Payload(17, RdbStr(Listpack(mixed))));
  out.push_back(Payload(14, RdbLen(2) + RdbStr(Ziplist(mixed)) + RdbStr(Ziplist(mixed))));
  out.push_back(Payload(18, RdbLen(2) + RdbLen(1) + RdbStr("plain") + RdbLen(2) + RdbStr(Listpack(mixed))));
  out.push_back(Payload(11, RdbStr(Intset(4, {-70000, 1, 2, 70000}))));
  out.push_back(Payload(9, RdbStr(Zipmap({{"f", "v"}, {"g", std::string(300, 'w')}}))));
  out.push_back(Payload(3, RdbLen(2) + RdbStr("a") + "\x03" "1.5" + RdbStr("b") + "\xfe"));
  return out;
}

// Loads a (possibly corrupt) payload: the CRC is recomputed first. Returns whether a
// value came out; an error must carry a message.
bool TryPayload(std::string p) {
  if (p.size() >= 10) {
    uint64_t crc = Crc64(0, p.data(), p.size() - 8);
    for (int i = 0; i < 8; ++i) p[p.size() - 8 + i] = static_cast<char>(crc >> (8 * i));
  }
  if (!VerifyDumpPayload(p)) return false;
  Result<Entry*> e = LoadDumpPayload(p, "key", {});
  if (!e.ok()) {
    EXPECT_FALSE(e.status().message().empty());
    return false;
  }
  Entry::Free(*e);
  return true;
}

TEST(RdbFuzz, PayloadsTruncatedAndFlipped) {
  std::vector<std::string> payloads = Payloads();
  ASSERT_GT(payloads.size(), 40u);
  std::mt19937_64 rng(20261202);
  size_t loaded = 0, refused = 0;
  for (const std::string& p : payloads) {
    ASSERT_TRUE(TryPayload(p));
    // Every truncation of the body, footer rebuilt (version kept).
    const std::string body = p.substr(0, p.size() - 10), version = p.substr(p.size() - 10, 2);
    const size_t step = body.size() > 4000 ? body.size() / 2000 : 1;
    for (size_t n = 0; n < body.size(); n += step) {
      (TryPayload(body.substr(0, n) + version + std::string(8, '\0')) ? loaded : refused)++;
    }
    for (int i = 0; i < 300; ++i) {
      std::string q = p;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) Corrupt(&q, 0, q.size() - 10, rng);
      (TryPayload(q) ? loaded : refused)++;
    }
  }
  EXPECT_GT(refused, 1000u);  // the corruption reached the decoder
  EXPECT_GT(loaded, 0u);
}

class RdbFileFuzz : public ::testing::TestWithParam<std::string> {};

// Loads `content` from a temp file; every key handed over is freed (as a loader would
// drop them after a failed load).
// `fd` is a memfd; `path` names it (/proc/self/fd/N), so no disk is involved.
bool TryFile(const std::string& content, int fd, const std::string& path) {
  EXPECT_EQ(ftruncate(fd, 0), 0);
  EXPECT_EQ(pwrite(fd, content.data(), content.size(), 0), static_cast<ssize_t>(content.size()));
  LoadOptions opts;
  opts.verify_checksum = false;
  Result<LoadStats> st = LoadFile(path, opts, [](LoadedKey&& k) {
    Entry::Free(k.entry);
    return Status();
  });
  if (!st.ok()) {
    EXPECT_FALSE(st.status().message().empty());
  }
  return st.ok();
}

TEST_P(RdbFileFuzz, TruncatedAndFlipped) {
  const std::string file = ReadFile(Fixture(GetParam()));
  ASSERT_GT(file.size(), 100u);
  const int fd = memfd_create("rdb_fuzz", 0);
  ASSERT_GE(fd, 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  size_t refused = 0, tried = 0;
  // Every length for the first 2 KB and the last 256 bytes, a dense sample between.
  for (size_t n = 0; n < file.size(); n += (n < 2048 || n + 256 > file.size()) ? 1 : 53) {
    refused += !TryFile(file.substr(0, n), fd, path);
    ++tried;
  }
  EXPECT_EQ(refused, tried);  // a truncated file never loads
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  size_t loaded = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string q = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) Corrupt(&q, 9, q.size() - 9, rng);
    loaded += TryFile(q, fd, path);
  }
  EXPECT_LT(loaded, 1500u);
  close(fd);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RdbFileFuzz, ::testing::ValuesIn(testing::FixtureFiles()),
                         [](const auto& info) { return testing::FixtureTestName(info.param); });

}  // namespace
}  // namespace hotkv::rdb

// LoadFileParallel against LoadFile: on every fixture file written by Redis (all types and
// encodings, streams, vector sets, hashes with field TTLs), and on truncated and
// bit-flipped copies of them, the parallel load must load exactly the same keys, or fail
// with exactly the same message (the error at the lowest offset), and free what it did
// not hand over (ASan's leak check). An on_key error (as a duplicate key) must also be
// the first one in file order.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <random>

#include "rdb/rdb.h"
#include "rdb_fixture_util.h"
#include "rdb_test_util.h"

namespace hotkv::rdb {
namespace {

using testing::Corrupt;
using testing::Fixture;
using testing::ReadFile;

struct Outcome {
  bool ok = false;
  std::string error;
  std::map<std::string, std::string> keys;  // "db/key" -> rendered value, expiry, idle, freq
  bool operator==(const Outcome& o) const { return ok == o.ok && error == o.error && keys == o.keys; }
};

// `fail_key`: on_key refuses the keys whose name ends with it (a stand-in for a
// duplicate key), with the key's name in the message.
Outcome Load(const std::string& path, int lanes, const std::string& fail_key = "") {
  std::mutex mu;
  Outcome out;
  auto on_key = [&](LoadedKey&& k) -> Status {
    const std::string key(k.entry->key());
    std::string v = std::to_string(k.db) + "|" + testing::Render(*k.entry) + "|" +
                    std::to_string(k.expire_ms) + "|" +
                    (k.idle_seconds ? std::to_string(*k.idle_seconds) : "-") + "|" +
                    (k.lfu_freq ? std::to_string(*k.lfu_freq) : "-");
    Entry::Free(k.entry);
    if (!fail_key.empty() && key.size() >= fail_key.size() &&
        key.compare(key.size() - fail_key.size(), fail_key.size(), fail_key) == 0) {
      return Status::InvalidArgument("refused key " + key);
    }
    std::lock_guard<std::mutex> lock(mu);
    out.keys[std::to_string(k.db) + "/" + key] = std::move(v);
    return Status();
  };
  LoadOptions opts;
  opts.verify_checksum = false;  // the flipped copies keep their old checksum
  auto lane_of = [lanes](std::string_view key) {
    return static_cast<int>(std::hash<std::string_view>()(key) % static_cast<size_t>(lanes));
  };
  Result<LoadStats> st = lanes <= 1 ? LoadFile(path, opts, on_key)
                                    : LoadFileParallel(path, opts, lanes, lane_of, on_key);
  out.ok = st.ok();
  if (!st.ok()) {
    out.error = st.status().message();
    out.keys.clear();  // what a failed load handed over is not compared
  }
  return out;
}

class RdbParallel : public ::testing::TestWithParam<std::string> {};

TEST_P(RdbParallel, SameKeysAndSameErrorsAsOneThread) {
  const std::string file = ReadFile(Fixture(GetParam()));
  ASSERT_GT(file.size(), 100u);
  const int fd = memfd_create("rdb_parallel", 0);
  ASSERT_GE(fd, 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto put = [&](const std::string& content) {
    ASSERT_EQ(ftruncate(fd, 0), 0);
    ASSERT_EQ(pwrite(fd, content.data(), content.size(), 0),
              static_cast<ssize_t>(content.size()));
  };

  put(file);
  const Outcome whole = Load(path, 1);
  ASSERT_TRUE(whole.ok) << whole.error;
  ASSERT_FALSE(whole.keys.empty());
  for (int lanes : {2, 3, 5}) EXPECT_EQ(Load(path, lanes), whole) << lanes << " lanes";
  // The first refused key in file order, whichever lane meets it first.
  for (const char* suffix : {"1", "2", "a", "e"}) {
    const Outcome one = Load(path, 1, suffix);
    EXPECT_EQ(Load(path, 3, suffix), one) << "refusing keys ending in " << suffix;
  }

  size_t failed = 0, tried = 0;
  for (size_t n = 9; n < file.size(); n += 1 + file.size() / 80) {
    put(file.substr(0, n));
    const Outcome one = Load(path, 1);
    EXPECT_EQ(Load(path, 3), one) << "truncated at " << n;
    failed += !one.ok;
    ++tried;
  }
  EXPECT_EQ(failed, tried);
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 1);
  for (int i = 0; i < 150; ++i) {
    std::string q = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) Corrupt(&q, 9, q.size() - 9, rng);
    put(q);
    const Outcome one = Load(path, 1);
    EXPECT_EQ(Load(path, 2 + i % 3), one) << "variant " << i << ": " << one.error;
  }
  close(fd);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RdbParallel, ::testing::ValuesIn(testing::FixtureFiles()),
                         [](const auto& info) { return testing::FixtureTestName(info.param); });

}  // namespace
}  // namespace hotkv::rdb

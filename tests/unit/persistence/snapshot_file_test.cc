// WriteSnapshotFile / LoadSnapshotFile: a keyspace written to dump.rdb and loaded into
// another one holds the same keys, values and TTLs in the same databases; keys already
// expired are neither written nor loaded; the destination is replaced atomically; a
// truncated file is an error naming the offset, and a duplicate key is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/clock.h"
#include "engine/database.h"
#include "persistence/snapshot_writer.h"

namespace hotkv::persistence {
namespace {

class SnapshotFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hotkv-snap-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    std::filesystem::remove_all(dir_);
  }

  static void Put(Keyspace& ks, int db, const std::string& key, const std::string& value,
                  int64_t expire_ms = -1) {
    Database d(&ks, db, WallClockMs());
    KeyRef ref = d.Lookup(key);
    d.Insert(ref, Entry::NewString(key, value, expire_ms >= 0));
    if (expire_ms >= 0) {
      d.SetTtl(ref, expire_ms);
    }
  }
  static Entry* Get(Keyspace& ks, int db, const std::string& key) {
    Database d(&ks, db, WallClockMs());
    return d.Find(key);
  }
  static rdb::LoadOptions Opts() { return rdb::LoadOptions{}; }

  std::filesystem::path dir_, old_cwd_;
};

TEST_F(SnapshotFileTest, RoundTripKeepsValuesTtlsAndDatabases) {
  Keyspace a(16);
  const int64_t future = WallClockMs() + 3'600'000;
  Put(a, 0, "plain", "hello");
  Put(a, 0, "number", "12345");
  Put(a, 5, "in-db5", std::string(3000, 'z'));
  Put(a, 15, "ttl", "soon", future);
  Put(a, 0, "expired", "gone", WallClockMs() - 1000);
  Result<WriteStats> w = WriteSnapshotFile(a, "dump.rdb", {}, WallClockMs());
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->keys, 4u);
  EXPECT_FALSE(std::filesystem::exists("temp-" + std::to_string(getpid()) + ".rdb"));

  Keyspace b(16);
  LoadProgress progress;
  Status st = LoadSnapshotFile(b, "dump.rdb", Opts(), true, &progress);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(progress.keys_loaded.load(), 4u);
  ASSERT_NE(Get(b, 0, "plain"), nullptr);
  EXPECT_EQ(Get(b, 0, "plain")->str(), "hello");
  ASSERT_NE(Get(b, 5, "in-db5"), nullptr);
  EXPECT_EQ(Get(b, 5, "in-db5")->str(), std::string(3000, 'z'));
  EXPECT_EQ(Get(b, 0, "in-db5"), nullptr);
  Entry* ttl = Get(b, 15, "ttl");
  ASSERT_NE(ttl, nullptr);
  ASSERT_TRUE(ttl->has_ttl());
  EXPECT_EQ(ttl->expire_ms(), future);
  EXPECT_EQ(Get(b, 0, "expired"), nullptr);
  EXPECT_GT(progress.total_bytes.load(), 0u);
  EXPECT_EQ(progress.loaded_bytes.load(), progress.total_bytes.load());
}

TEST_F(SnapshotFileTest, TruncatedFileIsAnErrorWithOffset) {
  Keyspace a(16);
  for (int i = 0; i < 100; i++) {
    Put(a, 0, "key:" + std::to_string(i), std::string(40, 'v'));
  }
  ASSERT_TRUE(WriteSnapshotFile(a, "dump.rdb", {}, WallClockMs()).ok());
  std::filesystem::resize_file("dump.rdb", std::filesystem::file_size("dump.rdb") / 2);
  Keyspace b(16);
  LoadProgress progress;
  Status st = LoadSnapshotFile(b, "dump.rdb", Opts(), true, &progress);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dump.rdb"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("offset"), std::string::npos) << st.message();
}

TEST_F(SnapshotFileTest, LoadingOverAnExistingKeyIsRefused) {
  Keyspace a(16);
  Put(a, 0, "k", "v");
  ASSERT_TRUE(WriteSnapshotFile(a, "dump.rdb", {}, WallClockMs()).ok());
  LoadProgress progress;
  Status st = LoadSnapshotFile(a, "dump.rdb", Opts(), true, &progress);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Duplicate key"), std::string::npos) << st.message();
}

TEST_F(SnapshotFileTest, UnwritableDirectoryLeavesOldFile) {
  Keyspace a(16);
  Put(a, 0, "k", "v");
  ASSERT_TRUE(WriteSnapshotFile(a, "dump.rdb", {}, WallClockMs()).ok());
  const auto size = std::filesystem::file_size("dump.rdb");
  Result<WriteStats> w = WriteSnapshotFile(a, "no-such-dir/dump.rdb", {}, WallClockMs());
  ASSERT_FALSE(w.ok());  // the rename into a missing directory fails
  EXPECT_EQ(std::filesystem::file_size("dump.rdb"), size);
  EXPECT_FALSE(std::filesystem::exists("temp-" + std::to_string(getpid()) + ".rdb"));
}

}  // namespace
}  // namespace hotkv::persistence

// SlicedKeyEncoder: a large collection written in several steps gives the bytes of the
// same key written whole (lists and sorted sets, whose order is fixed) or a key that
// loads to the same value (sets and hashes, in table order); a value changed between
// steps is reported, never written with a wrong count.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

std::vector<EntryPtr> LargeEntries() {
  std::vector<std::string> items;
  std::vector<std::pair<std::string, double>> scored;
  std::vector<std::pair<std::string, std::string>> fields;
  for (int i = 0; i < 3000; i++) {
    items.push_back("element-" + std::to_string(i) + (i % 7 == 0 ? std::string(40, 'x') : ""));
    scored.emplace_back("m" + std::to_string(i), (i * 37) % 101 + 0.5);
    fields.emplace_back("f" + std::to_string(i), std::to_string(i));
  }
  std::vector<EntryPtr> v;
  v.emplace_back(MakeList("list", items));
  v.emplace_back(MakeSet("set", items));
  v.emplace_back(MakeZSet("zset", scored));
  v.emplace_back(MakeHash("hash", fields));
  return v;
}

// The key's bytes in steps of `step` elements, and how many steps it took.
std::string Sliced(const Entry& e, size_t step, int* steps, bool compress = true) {
  SlicedKeyEncoder k(e, -1, std::nullopt, std::nullopt, compress);
  std::string out;
  k.Begin(e, &out);
  *steps = 1;
  while (!k.Next(e, &out, step, SIZE_MAX)) {
    (*steps)++;
  }
  EXPECT_EQ(k.error(), "");
  EXPECT_EQ(k.written(), SlicedKeyEncoder::Elements(e));
  return out;
}

TEST(RdbSliced, ListsAndSortedSetsGiveTheWholeKeysBytes) {
  for (const EntryPtr& e : LargeEntries()) {
    ASSERT_TRUE(SlicedKeyEncoder::Sliceable(*e));
    if (e->type() != ValueType::kList && e->type() != ValueType::kZSet) {
      continue;
    }
    std::string whole;
    ASSERT_TRUE(ChunkEncoder(&whole, true).Key(*e, -1).ok());
    int steps = 0;
    EXPECT_EQ(Sliced(*e, 100, &steps), whole) << e->key();
    EXPECT_EQ(steps, 30) << e->key();
  }
}

TEST(RdbSliced, EveryTypeLoadsBackFromAFile) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("hotkv-sliced-" + std::to_string(getpid()) + ".rdb");
  std::vector<EntryPtr> entries = LargeEntries();
  {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    FileWriter w(fd, {});
    ASSERT_TRUE(w.Begin({}).ok());
    for (const EntryPtr& e : entries) {
      std::string bytes;
      ChunkEncoder(&bytes, false).SelectDb(0);
      int steps = 0;
      bytes += Sliced(*e, 128, &steps);
      EXPECT_GT(steps, 5) << e->key();
      ASSERT_TRUE(w.WriteRaw(bytes).ok());
    }
    ASSERT_TRUE(w.Finish().ok());
    close(fd);
  }
  std::map<std::string, std::string> got;
  Result<LoadStats> st = LoadFile(path, {}, [&](LoadedKey&& k) {
    got[std::string(k.entry->key())] = Render(*k.entry);
    Entry::Free(k.entry);
    return Status();
  });
  std::filesystem::remove(path);
  ASSERT_TRUE(st.ok()) << st.status().message();
  ASSERT_EQ(got.size(), entries.size());
  for (const EntryPtr& e : entries) {
    EXPECT_EQ(got[std::string(e->key())], Render(*e)) << e->key();
  }
}

TEST(RdbSliced, AValueChangedBetweenStepsIsAnError) {
  EntryPtr e(MakeList("list", std::vector<std::string>(500, "x")));
  SlicedKeyEncoder k(*e, -1, std::nullopt, std::nullopt, false);
  std::string out;
  k.Begin(*e, &out);
  EXPECT_FALSE(k.Next(*e, &out, 100, SIZE_MAX));
  e->As<types::ListValue>()->PushBack("y", {});
  EXPECT_TRUE(k.Next(*e, &out, 100, SIZE_MAX));
  EXPECT_NE(k.error(), "");
}

TEST(RdbSliced, OnlyCollectionsWithoutFieldTtlsAreSliceable) {
  EntryPtr s(Entry::NewString("s", "value", false));
  EXPECT_FALSE(SlicedKeyEncoder::Sliceable(*s));
}

}  // namespace
}  // namespace hotkv::rdb

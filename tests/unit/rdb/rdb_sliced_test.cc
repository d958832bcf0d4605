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

// ChunkEncoder with defer_compression writes strings raw and CompressDeferred rewrites
// them into exactly the bytes a compressing encoder writes, for every type and string
// size class (int-encoded, short, compressible, incompressible, a 20 KB value whose
// length takes 5 bytes), expiry and IDLE opcodes between them.
TEST(RdbChunkEncoder, DeferredCompressionGivesTheCompressedBytes) {
  std::string incompressible;
  uint32_t x = 12345;
  for (int i = 0; i < 300; i++) {
    x = x * 1103515245u + 12345u;
    incompressible.push_back(static_cast<char>(x >> 24));
  }
  std::vector<EntryPtr> entries;
  entries.emplace_back(Entry::NewString("int", "12345", false));
  entries.emplace_back(Entry::NewString("short", "hello", false));
  entries.emplace_back(Entry::NewString("k:" + std::string(30, 'k'), std::string(256, 'a'), false));
  entries.emplace_back(Entry::NewString("random", incompressible, false));
  entries.emplace_back(Entry::NewString("big", std::string(20000, 'z') + "end", false));
  entries.emplace_back(Entry::NewString("mid", std::string(100, 'm') + incompressible, false));
  for (EntryPtr& e : LargeEntries()) {
    entries.push_back(std::move(e));
  }
  std::string want, got;
  ChunkEncoder plain(&want, /*compress=*/true);
  ChunkEncoder deferred(&got, /*compress=*/true, /*defer_compression=*/true);
  plain.SelectDb(3);
  deferred.SelectDb(3);
  for (size_t i = 0; i < entries.size(); i++) {
    const int64_t expire = i % 2 == 0 ? -1 : 1700000000000 + static_cast<int64_t>(i);
    ASSERT_TRUE(plain.Key(*entries[i], expire, i % 3 == 0 ? std::optional<uint64_t>(7)
                                                          : std::nullopt).ok());
    ASSERT_TRUE(deferred.Key(*entries[i], expire, i % 3 == 0 ? std::optional<uint64_t>(7)
                                                             : std::nullopt).ok());
  }
  EXPECT_GT(got.size(), want.size());  // raw until compressed
  deferred.CompressDeferred();
  EXPECT_EQ(got, want);
  deferred.CompressDeferred();  // nothing left to do
  EXPECT_EQ(got, want);
  // Without compression the deferred encoder writes the plain bytes and keeps them.
  std::string raw_want, raw_got;
  ChunkEncoder raw_plain(&raw_want, false);
  ChunkEncoder raw_deferred(&raw_got, false, /*defer_compression=*/true);
  for (const EntryPtr& e : entries) {
    ASSERT_TRUE(raw_plain.Key(*e, -1).ok());
    ASSERT_TRUE(raw_deferred.Key(*e, -1).ok());
  }
  raw_deferred.CompressDeferred();
  EXPECT_EQ(raw_got, raw_want);
}

}  // namespace
}  // namespace hotkv::rdb

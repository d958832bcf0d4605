// The FT.CURSOR store: ids, take/put, delete, MAXIDLE expiry, per-index stats.
#include "search/aggregate_cursor.h"

#include <gtest/gtest.h>

namespace hotkv::search {
namespace {

std::unique_ptr<Cursor> NewCursor(const std::string& index, uint64_t max_idle_ms) {
  auto c = std::make_unique<Cursor>();
  c->index = index;
  c->max_idle_ms = max_idle_ms;
  return c;
}

TEST(AggregateCursorTest, TakePutDelete) {
  CursorStore store;
  uint64_t a = store.Add(NewCursor("i1", 1000), 0);
  uint64_t b = store.Add(NewCursor("i2", 1000), 0);
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(store.Stats("i1").global_total, 2u);
  EXPECT_EQ(store.Stats("i1").index_total, 1u);
  auto c = store.Take(a, "i1", 10);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(store.Take(a, "i1", 10), nullptr);  // being read
  EXPECT_EQ(store.Stats("i1").global_idle, 1u);
  store.Put(a, std::move(c), 20);
  EXPECT_NE(store.Take(a, "other-name", 30), nullptr);  // the id alone finds it
  EXPECT_TRUE(store.Delete(b, "i2"));
  EXPECT_FALSE(store.Delete(b, "i2"));
  EXPECT_TRUE(store.Delete(a, "i1"));  // deleted while taken
  EXPECT_EQ(store.Stats("i1").global_total, 0u);
}

TEST(AggregateCursorTest, IdleExpiry) {
  CursorStore store;
  uint64_t a = store.Add(NewCursor("i", 100), 0);
  uint64_t b = store.Add(NewCursor("i", 1000), 0);
  EXPECT_EQ(store.Take(a, "i", 101), nullptr);  // idle past MAXIDLE
  EXPECT_EQ(store.Expire(500), 0u);
  EXPECT_EQ(store.Expire(1001), 1u);
  EXPECT_EQ(store.Take(b, "i", 1002), nullptr);
  uint64_t c = store.Add(NewCursor("j", 1000), 0);
  store.DropIndex("j");
  EXPECT_EQ(store.Take(c, "j", 1), nullptr);
}

}  // namespace
}  // namespace hotkv::search

// The change counter behind INFO rdb_changes_since_last_save and the save rules (Redis's
// server.dirty): each worker counts the changes its commands report (KeyModified: one per
// key changed, plus AddDirty where Redis counts elements: SADD of 3 new members is 3 —
// those rules are checked against Redis 7.0 in tests/integration/test_bgsave_walk.py),
// reads count nothing, and FLUSHALL/FLUSHDB count every key they remove.
#include <gtest/gtest.h>

#include "in_process.h"

namespace hotkv::testing {
namespace {

uint64_t Dirty(InProcessServer& s) { return s.worker().stats().dirty.load(); }

TEST(DirtyCounter, WritesCountReadsDoNot) {
  InProcessServer s;
  LocalClient& c = s.NewClient();
  const uint64_t d0 = Dirty(s);
  s.Run(c, {"SET", "a", "1"});
  EXPECT_EQ(Dirty(s), d0 + 1);
  s.Run(c, {"GET", "a"});
  s.Run(c, {"EXISTS", "a", "b"});
  EXPECT_EQ(Dirty(s), d0 + 1);
  s.Run(c, {"MSET", "b", "1", "c", "2"});
  EXPECT_EQ(Dirty(s), d0 + 3);
  s.Run(c, {"INCR", "a"});
  EXPECT_EQ(Dirty(s), d0 + 4);
  s.Run(c, {"DEL", "a", "b", "missing"});
  EXPECT_EQ(Dirty(s), d0 + 6);
  s.Run(c, {"DEL", "missing"});  // nothing removed, nothing changed
  EXPECT_EQ(Dirty(s), d0 + 6);
}

TEST(DirtyCounter, FlushCountsRemovedKeys) {
  InProcessServer s;
  LocalClient& c = s.NewClient();
  s.Run(c, {"MSET", "a", "1", "b", "2", "c", "3"});
  s.Run(c, {"SELECT", "2"});
  s.Run(c, {"SET", "d", "4"});
  const uint64_t d0 = Dirty(s);
  EXPECT_EQ(s.Run(c, {"FLUSHALL", "ASYNC"}), "+OK\r\n");
  EXPECT_EQ(Dirty(s), d0 + 4);
  s.Run(c, {"SET", "e", "5"});
  EXPECT_EQ(s.Run(c, {"FLUSHDB", "ASYNC"}), "+OK\r\n");
  EXPECT_EQ(Dirty(s), d0 + 6);
}

}  // namespace
}  // namespace hotkv::testing

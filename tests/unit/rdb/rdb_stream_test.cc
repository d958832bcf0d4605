// Streams through DUMP payloads (RDB_TYPE_STREAM_LISTPACKS_2): entries across nodes with
// differing fields and deletions, metadata, groups, PELs and consumers come back equal.
// Interoperability with live Redis 7.0 and 8.8 (DUMP payloads and dump.rdb files both
// ways, redis-check-rdb) is checked by tests/integration/test_stream_interop.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rdb/rdb.h"
#include "types/stream.h"

namespace hotkv::rdb {
namespace {

using types::StreamId;
using types::StreamValue;

std::string Describe(const StreamValue& s) {
  std::string out;
  s.Range(StreamId::Min(), StreamId::Max(), false, 0,
          [&](const StreamId& id, const types::StreamFields& fv) {
            out += id.ToString() + ":";
            for (std::string_view x : fv) {
              out += std::string(x) + ",";
            }
            out += ";";
            return true;
          });
  out += "|" + std::to_string(s.length()) + "|" + s.last_id().ToString() + "|" +
         s.max_deleted_id().ToString() + "|" + std::to_string(s.entries_added());
  for (const auto& [name, g] : s.groups()) {
    out += "|" + name + "@" + g->last_id.ToString() + "/" + std::to_string(g->entries_read);
    for (const auto& [id, pe] : g->pel) {
      out += " " + id.ToString() + ">" + pe->consumer->name + "#" +
             std::to_string(pe->delivery_count) + "t" + std::to_string(pe->delivery_time);
    }
    for (const auto& [cname, c] : g->consumers) {
      out += " c:" + cname + "/" + std::to_string(c->seen_time) + "/" +
             std::to_string(c->pel.size());
    }
  }
  return out;
}

TEST(RdbStream, DumpPayloadRoundTrip) {
  auto* s = new StreamValue();
  for (uint64_t i = 1; i <= 350; i++) {
    std::string v = std::to_string(i * 977);
    std::string big(i % 11 == 0 ? 5000 : 3, 'x');
    if (i % 4 == 0) {
      const std::vector<std::string_view> fv = {"other", v, "k", big};
      s->Append({1700000000000 + i, i % 3}, fv, {});
    } else {
      const std::vector<std::string_view> fv = {"f", v, "g", "-12"};
      s->Append({1700000000000 + i, i % 3}, fv, {});
    }
  }
  s->Delete({1700000000010, 1});
  s->set_max_deleted_id({1700000000010, 1});
  s->set_last_id({1800000000000, 5});
  types::StreamGroup* g = s->CreateGroup("g1", {1700000000005, 2}, 5);
  types::StreamConsumer* a = g->CreateConsumer("alice", 123456);
  types::StreamConsumer* b = g->CreateConsumer("bob", 99);
  g->AddPending({1700000000001, 1}, a, 1000);
  g->AddPending({1700000000002, 2}, b, 2000);
  g->pel.at({1700000000002, 2})->delivery_count = 7;
  s->CreateGroup("g2", StreamId::Min(), types::kInvalidEntriesRead);
  Entry* e = Entry::NewObject("key", ValueType::kStream, s, false);
  const std::string before = Describe(*s);
  std::string p = DumpPayload(*e, true);
  EXPECT_TRUE(VerifyDumpPayload(p));
  Result<Entry*> back = LoadDumpPayload(p, "key", {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Describe(*(*back)->As<StreamValue>()), before);
  Entry::Free(*back);
  Entry::Free(e);
}

TEST(RdbStream, EmptyStreamWithGroup) {
  auto* s = new StreamValue();
  s->set_last_id({5, 5});
  s->CreateGroup("g", {5, 5}, 0);
  Entry* e = Entry::NewObject("k", ValueType::kStream, s, false);
  Result<Entry*> back = LoadDumpPayload(DumpPayload(*e, false), "k", {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Describe(*(*back)->As<StreamValue>()), Describe(*s));
  Entry::Free(*back);
  Entry::Free(e);
}

}  // namespace
}  // namespace hotkv::rdb

// StreamValue: block layout (append, ranges both ways across blocks, shared master
// fields), deletion, trimming as Redis's streamTrim, lag/entries-read estimates, groups,
// Clone, checked against a simple model where it helps.
#include "types/stream.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace hotkv::types {
namespace {

using Entry = std::pair<StreamId, std::vector<std::string>>;

std::vector<Entry> All(const StreamValue& s, bool rev = false, StreamId start = StreamId::Min(),
                       StreamId end = StreamId::Max(), size_t count = 0) {
  std::vector<Entry> out;
  s.Range(start, end, rev, count, [&](const StreamId& id, const StreamFields& fv) {
    out.emplace_back(id, std::vector<std::string>(fv.begin(), fv.end()));
    return true;
  });
  return out;
}

void Add(StreamValue& s, uint64_t ms, uint64_t seq, std::vector<std::string_view> fv,
         StreamNodeLimits limits = {}) {
  s.Append({ms, seq}, fv, limits);
}

TEST(StreamId, ParseAndFormat) {
  EXPECT_EQ(StreamId::Parse("1-2", 0), (StreamId{1, 2}));
  EXPECT_EQ(StreamId::Parse("5", 7), (StreamId{5, 7}));
  EXPECT_EQ(StreamId::Parse("18446744073709551615-18446744073709551615", 0), StreamId::Max());
  EXPECT_FALSE(StreamId::Parse("18446744073709551616", 0));
  EXPECT_FALSE(StreamId::Parse("-1", 0));
  EXPECT_FALSE(StreamId::Parse("1-", 0));
  EXPECT_FALSE(StreamId::Parse("a-1", 0));
  EXPECT_EQ(StreamId::Parse("+5", 0), (StreamId{5, 0}));  // strtoull accepts it, as Redis
  EXPECT_EQ((StreamId{3, 4}).ToString(), "3-4");
  StreamId id{1, UINT64_MAX};
  EXPECT_TRUE(id.Incr());
  EXPECT_EQ(id, (StreamId{2, 0}));
  EXPECT_TRUE(id.Decr());
  EXPECT_EQ(id, (StreamId{1, UINT64_MAX}));
  StreamId max = StreamId::Max();
  EXPECT_FALSE(max.Incr());
  StreamId min;
  EXPECT_FALSE(min.Decr());
}

TEST(StreamValue, AppendAndRangeAcrossBlocks) {
  StreamValue s;
  std::vector<Entry> model;
  for (uint64_t i = 1; i <= 1000; i++) {
    std::string v = std::to_string(i);
    if (i % 7 == 0) {
      Add(s, i, i % 3, {"other", v, "x", "y"});
      model.push_back({{i, i % 3}, {"other", v, "x", "y"}});
    } else {
      Add(s, i, i % 3, {"f", v});
      model.push_back({{i, i % 3}, {"f", v}});
    }
  }
  EXPECT_EQ(s.length(), 1000u);
  EXPECT_EQ(s.BlockCount(), 10u);  // 100 entries per block
  EXPECT_EQ(All(s), model);
  std::vector<Entry> rev(model.rbegin(), model.rend());
  EXPECT_EQ(All(s, true), rev);
  auto mid = All(s, false, {250, 0}, {260, UINT64_MAX});
  ASSERT_EQ(mid.size(), 11u);
  EXPECT_EQ(mid.front().first.ms, 250u);
  auto midrev = All(s, true, {250, 0}, {260, UINT64_MAX}, 3);
  ASSERT_EQ(midrev.size(), 3u);
  EXPECT_EQ(midrev.front().first.ms, 260u);
  EXPECT_EQ(s.FirstId(), (StreamId{1, 1}));
  EXPECT_EQ(s.LastEntryId(), (StreamId{1000, 1}));
  EXPECT_EQ(s.entries_added(), 1000u);
}

TEST(StreamValue, ByteLimitStartsNewBlocks) {
  StreamValue s;
  std::string big(1000, 'x');
  for (uint64_t i = 1; i <= 10; i++) {
    Add(s, i, 0, {"f", big}, {4096, 100});
  }
  EXPECT_GE(s.BlockCount(), 3u);
  EXPECT_EQ(All(s).size(), 10u);
}

TEST(StreamValue, DeleteMarksAndFreesEmptyBlocks) {
  StreamValue s;
  for (uint64_t i = 1; i <= 150; i++) {
    Add(s, i, 0, {"f", "v"});
  }
  EXPECT_TRUE(s.Delete({5, 0}));
  EXPECT_FALSE(s.Delete({5, 0}));
  EXPECT_FALSE(s.Delete({500, 0}));
  EXPECT_FALSE(s.Delete({5, 1}));
  EXPECT_EQ(s.length(), 149u);
  EXPECT_FALSE(s.Contains({5, 0}));
  EXPECT_TRUE(s.Contains({6, 0}));
  for (uint64_t i = 101; i <= 150; i++) {
    EXPECT_TRUE(s.Delete({i, 0}));
  }
  EXPECT_EQ(s.BlockCount(), 1u);
  EXPECT_EQ(s.LastEntryId(), (StreamId{100, 0}));
  EXPECT_EQ(s.last_id(), (StreamId{150, 0}));
  Add(s, 151, 0, {"g", "w"});
  EXPECT_EQ(s.BlockCount(), 2u);
  EXPECT_EQ(All(s, true, StreamId::Min(), StreamId::Max(), 2).front().second,
            (std::vector<std::string>{"g", "w"}));
}

TEST(StreamValue, TrimExactAndApprox) {
  StreamValue s;
  for (uint64_t i = 1; i <= 250; i++) {
    Add(s, i, 0, {"f", "v"});
  }
  StreamValue::TrimSpec approx{StreamValue::TrimSpec::kMaxLen, 120, {}, true, 10000};
  EXPECT_EQ(s.Trim(approx), 100);  // only whole blocks go
  EXPECT_EQ(s.length(), 150u);
  StreamValue::TrimSpec exact{StreamValue::TrimSpec::kMaxLen, 120, {}, false, 0};
  EXPECT_EQ(s.Trim(exact), 30);
  EXPECT_EQ(s.FirstId(), (StreamId{131, 0}));
  StreamValue::TrimSpec minid{StreamValue::TrimSpec::kMinId, 0, {200, 0}, false, 0};
  EXPECT_EQ(s.Trim(minid), 69);
  EXPECT_EQ(s.FirstId(), (StreamId{200, 0}));
  StreamValue::TrimSpec limited{StreamValue::TrimSpec::kMaxLen, 0, {}, true, 10};
  EXPECT_EQ(s.Trim(limited), 1);  // the block 101..200 holds one live entry: it goes
  EXPECT_EQ(s.Trim(limited), 0);  // the next holds more than LIMIT allows
}

TEST(StreamValue, LagAndEstimates) {
  StreamValue s;
  for (uint64_t i = 1; i <= 5; i++) {
    Add(s, i, 0, {"f", "v"});
  }
  StreamGroup* g = s.CreateGroup("g", {2, 0}, 2);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(s.CreateGroup("g", {0, 0}, -1), nullptr);
  EXPECT_EQ(s.Lag(*g), 3);
  EXPECT_EQ(s.EstimateDistance({5, 0}), 5);
  EXPECT_EQ(s.EstimateDistance({1, 0}), 1);
  EXPECT_EQ(s.EstimateDistance({0, 5}), 0);
  EXPECT_EQ(s.EstimateDistance({9, 0}), kInvalidEntriesRead);
  s.Delete({4, 0});
  s.set_max_deleted_id({4, 0});
  EXPECT_FALSE(s.Lag(*g).has_value());  // a tombstone after the group's id
  g->last_id = {5, 0};
  g->entries_read = 5;
  EXPECT_EQ(s.Lag(*g), 0);
}

TEST(StreamGroup, PendingEntriesAndConsumers) {
  StreamValue s;
  Add(s, 1, 0, {"f", "v"});
  Add(s, 2, 0, {"f", "v"});
  StreamGroup* g = s.CreateGroup("g", {0, 0}, -1);
  StreamConsumer* a = g->CreateConsumer("a", 100);
  EXPECT_EQ(g->CreateConsumer("a", 100), nullptr);
  StreamConsumer* b = g->CreateConsumer("b", 100);
  g->AddPending({1, 0}, a, 100);
  g->AddPending({2, 0}, a, 100);
  EXPECT_EQ(a->pel.size(), 2u);
  PendingEntry* pe = g->pel.at({1, 0}).get();
  g->Reassign(pe, {1, 0}, b);
  EXPECT_EQ(a->pel.size(), 1u);
  EXPECT_EQ(b->pel.size(), 1u);
  EXPECT_EQ(pe->consumer, b);
  // Delivering an entry again to another consumer moves it, count back to 1.
  pe->delivery_count = 5;
  g->AddPending({1, 0}, a, 200);
  EXPECT_EQ(pe->consumer, a);
  EXPECT_EQ(pe->delivery_count, 1u);
  EXPECT_TRUE(g->Ack({2, 0}));
  EXPECT_FALSE(g->Ack({2, 0}));
  EXPECT_EQ(g->DeleteConsumer("a"), 1u);
  EXPECT_TRUE(g->pel.empty());
  EXPECT_TRUE(s.DestroyGroup("g"));
  EXPECT_FALSE(s.DestroyGroup("g"));
}

TEST(StreamValue, CloneIsDeep) {
  StreamValue s;
  for (uint64_t i = 1; i <= 120; i++) {
    Add(s, i, 0, {"f", std::to_string(i)});
  }
  StreamGroup* g = s.CreateGroup("g", {3, 0}, 3);
  StreamConsumer* c = g->CreateConsumer("c", 1);
  g->AddPending({2, 0}, c, 5);
  StreamValue copy = s.Clone();
  EXPECT_EQ(All(copy), All(s));
  s.Delete({1, 0});
  EXPECT_EQ(copy.length(), 120u);
  StreamGroup* cg = copy.FindGroup("g");
  ASSERT_NE(cg, nullptr);
  EXPECT_EQ(cg->last_id, (StreamId{3, 0}));
  ASSERT_EQ(cg->pel.size(), 1u);
  StreamConsumer* cc = cg->FindConsumer("c");
  ASSERT_NE(cc, nullptr);
  EXPECT_NE(cc, c);
  EXPECT_EQ(cg->pel.at({2, 0})->consumer, cc);
  EXPECT_EQ(cc->pel.at({2, 0}), cg->pel.at({2, 0}).get());
  EXPECT_GT(copy.MemoryUsage(), 0u);
}

TEST(StreamValue, MemoryPerEntryIsCompact) {
  StreamValue s;
  for (uint64_t i = 1; i <= 10000; i++) {
    Add(s, 1700000000000 + i, 0,
        {"name", "alice", "age", "30", "city", "paris", "zip", "75001", "score", "12"});
  }
  // Redis 7 spends ~60 bytes per such entry in its listpacks; the blocks must not do worse.
  EXPECT_LT(s.MemoryUsage() / 10000, 60u);
}

// Integer-like items are stored as numbers and read back byte for byte; strings that only
// look like numbers (leading zeros, "+", "-0", spaces, out of int64 range) stay strings.
TEST(StreamValue, IntegerItemsRoundTrip) {
  const std::vector<std::string> items = {
      "0", "1", "-1", "7", "63", "64", "-64", "-65", "127", "128", "12345678", "99999999",
      "-12345678", "1700000000000", "9223372036854775807", "-9223372036854775808",
      "4611686018427387903", "4611686018427387904", "-4611686018427387904",
      "-4611686018427387905", "00", "007", "-0", "+5", " 5", "5 ", "1e3", "", "-",
      "9223372036854775808", "-9223372036854775809", "18446744073709551616", "3.5", "abc",
      std::string(70, '7'), std::string(200, 'x')};
  StreamValue s;
  std::vector<Entry> want;
  uint64_t ms = 1;
  // Each item as a value, as a field name (first entry of a block: the master fields, and
  // later entries with other fields), and many per entry (past the inline number buffer).
  for (size_t i = 0; i < items.size(); i++) {
    std::vector<std::string> fv = {items[i], items[(i + 1) % items.size()], "f", items[i]};
    want.emplace_back(StreamId{ms, 0}, fv);
    Add(s, ms++, 0, std::vector<std::string_view>(fv.begin(), fv.end()), {4096, 3});
  }
  std::vector<std::string> many;
  for (size_t i = 0; i < 2 * items.size(); i++) {
    many.push_back(items[i % items.size()]);
  }
  want.emplace_back(StreamId{ms, 0}, many);
  Add(s, ms++, 0, std::vector<std::string_view>(many.begin(), many.end()));
  // Same fields as the master, integer names included.
  std::vector<std::string> same = {"12", "34", "x", "-5"};
  for (int k = 0; k < 2; k++) {
    want.emplace_back(StreamId{ms, 0}, same);
    Add(s, ms++, 0, std::vector<std::string_view>(same.begin(), same.end()), {4096, 2});
  }
  EXPECT_EQ(All(s), want);
  std::vector<Entry> rev(want.rbegin(), want.rend());
  EXPECT_EQ(All(s, true), rev);
  // Clone and delete keep decoding right.
  StreamValue copy = s.Clone();
  EXPECT_EQ(All(copy), want);
  EXPECT_TRUE(s.Delete({3, 0}));
  want.erase(want.begin() + 2);
  EXPECT_EQ(All(s), want);
}

// Forward ranges seek into a block through its marks (every 8th entry): every start id,
// present, deleted or in a gap, for blocks smaller and larger than the marks cover, and
// XDEL / LastEntryId after deletions at the end of a block.
TEST(StreamValue, SeekFromEveryStart) {
  for (size_t max_entries : {5u, 100u, 250u}) {
    StreamValue s;
    std::vector<Entry> model;
    for (uint64_t i = 1; i <= 600; i++) {
      const uint64_t ms = 1000 + i / 3, seq = i * 2;  // gaps between ids
      std::vector<std::string> fv = {"f", std::to_string(i), "g", "v" + std::to_string(i)};
      if (i % 7 == 0) {
        fv = {"other", std::to_string(i)};
      }
      Add(s, ms, seq, std::vector<std::string_view>(fv.begin(), fv.end()), {0, max_entries});
      model.emplace_back(StreamId{ms, seq}, fv);
    }
    for (size_t k = 0; k < model.size(); k += 5) {
      ASSERT_TRUE(s.Delete(model[k].first));
    }
    for (size_t k = 0; k < model.size(); k++) {
      if (k % 5 == 0) {
        model[k].first = StreamId::Max();  // deleted
      }
    }
    std::erase_if(model, [](const Entry& e) { return e.first == StreamId::Max(); });
    std::vector<StreamId> starts;
    for (uint64_t i = 0; i <= 602; i++) {
      starts.push_back({1000 + i / 3, i * 2});
      starts.push_back({1000 + i / 3, i * 2 + 1});
    }
    for (const StreamId& start : starts) {
      std::vector<Entry> want;
      for (const Entry& e : model) {
        if (e.first >= start && want.size() < 3) {
          want.push_back(e);
        }
      }
      ASSERT_EQ(All(s, false, start, StreamId::Max(), 3), want)
          << max_entries << " " << start.ToString();
    }
    // Deleting the last entries one by one: LastEntryId follows.
    for (size_t k = 0; k < 20; k++) {
      ASSERT_EQ(s.LastEntryId(), model.back().first);
      ASSERT_TRUE(s.Delete(model.back().first));
      ASSERT_FALSE(s.Delete(model.back().first));
      model.pop_back();
    }
    ASSERT_EQ(s.FirstId(), model.front().first);
  }
}

// An entry with 5 fields of 8-digit values: Redis 7/8's listpacks take ~41.7 bytes each
// (integers stored as integers); the blocks must not do worse.
TEST(StreamValue, IntegerValuesAreCompact) {
  StreamValue s;
  uint64_t x = 12345678;
  for (uint64_t i = 1; i <= 10000; i++) {
    std::vector<std::string> v;
    for (int f = 0; f < 5; f++) {
      x = (x * 1103515245 + 12345) % 90000000;
      v.push_back(std::to_string(10000000 + x));
    }
    Add(s, 1700000000000 + i / 3, i, {"f1", v[0], "f2", v[1], "f3", v[2], "f4", v[3], "f5", v[4]});
  }
  EXPECT_LT(s.MemoryUsage() / 10000, 40u);
}

TEST(StreamIdmp, RecordsPerProducerWithMaxSizeAndExpiry) {
  StreamIdmp im;
  im.Record("p", "a", {1000, 0}, 2);
  im.Record("p", "b", {2000, 0}, 2);
  im.Record("q", "a", {3000, 0}, 2);
  ASSERT_NE(im.Find("p", "a"), nullptr);
  EXPECT_EQ(*im.Find("q", "a"), (StreamId{3000, 0}));
  EXPECT_EQ(im.Find("q", "b"), nullptr);
  im.Record("p", "c", {4000, 0}, 2);  // p keeps 2: "a" goes
  EXPECT_EQ(im.Find("p", "a"), nullptr);
  EXPECT_EQ(im.tracked, 3u);
  EXPECT_EQ(im.iids_added, 4u);
  uint64_t pids = 0, iids = 0;
  im.CountLive(3500, 1, &pids, &iids);  // horizon 2500: p/b (2000) is past it
  EXPECT_EQ(pids, 2u);
  EXPECT_EQ(iids, 2u);
  im.Expire(3500, 1);
  EXPECT_EQ(im.Find("p", "b"), nullptr);
  EXPECT_EQ(im.tracked, 2u);
  im.Expire(10000, 1);  // everything: the producers go too
  EXPECT_TRUE(im.producers.empty());
  EXPECT_EQ(im.tracked, 0u);
  EXPECT_EQ(im.iids_added, 4u);
}

TEST(StreamValue, NackedEntriesAndClone) {
  StreamValue s;
  for (uint64_t i = 1; i <= 3; i++) {
    Add(s, i, 0, {"f", "v"});
  }
  StreamGroup* g = s.CreateGroup("g", {3, 0}, 3);
  StreamConsumer* c = g->CreateConsumer("c", 5);
  for (uint64_t i = 1; i <= 3; i++) {
    g->AddPending({i, 0}, c, 100);
  }
  g->Nack(g->pel.at({2, 0}).get(), {2, 0});
  g->Nack(g->pel.at({1, 0}).get(), {1, 0});
  EXPECT_EQ(c->pel.size(), 1u);
  EXPECT_EQ(g->NackedCount(), 2u);
  const PendingEntry* two = g->pel.at({2, 0}).get();
  EXPECT_EQ(two->consumer, nullptr);
  EXPECT_EQ(two->delivery_time, 0);
  EXPECT_LT(two->nack_seq, g->pel.at({1, 0})->nack_seq);
  s.EnsureIdmp().Record("p", "i", {3, 0}, 100);
  StreamValue copy = s.Clone();
  StreamGroup* cg = copy.FindGroup("g");
  EXPECT_EQ(cg->NackedCount(), 2u);
  EXPECT_EQ(cg->pel.at({1, 0})->nack_seq, g->pel.at({1, 0})->nack_seq);
  EXPECT_EQ(cg->pel.at({3, 0})->consumer, cg->FindConsumer("c"));
  ASSERT_NE(copy.idmp(), nullptr);
  EXPECT_NE(copy.idmp()->Find("p", "i"), nullptr);
  // Re-delivering a released entry gives it an owner again.
  g->Reassign(g->pel.at({2, 0}).get(), {2, 0}, c);
  EXPECT_EQ(g->NackedCount(), 1u);
  PendingEntry fatal;
  fatal.delivery_count = static_cast<uint64_t>(INT64_MAX);
  BumpDeliveryCount(fatal);
  EXPECT_EQ(fatal.delivery_count, static_cast<uint64_t>(INT64_MAX));
}

}  // namespace
}  // namespace hotkv::types

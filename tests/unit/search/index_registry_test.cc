// IndexRegistry::WriterView: the keyspace observer's lock-free list of indexes. A view
// sees the registry as of its start; a list replaced meanwhile (FT.CREATE, FT.DROPINDEX)
// stays readable, and the indexes it holds stay alive, until no view can hold it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "search/index_registry.h"
#include "search/index_spec.h"
#include "search/search_index.h"

namespace hotkv::search {
namespace {

std::shared_ptr<SearchIndex> MakeIndex(std::string_view name, std::string_view prefix) {
  std::vector<std::string_view> args = {"PREFIX", "1", prefix, "SCHEMA", "t", "TEXT"};
  Result<IndexSpec> spec = ParseCreateArgs(name, args);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  Result<std::shared_ptr<SearchIndex>> idx = SearchIndex::Create(std::move(*spec));
  EXPECT_TRUE(idx.ok());
  return *idx;
}

std::vector<std::string> Names(const IndexRegistry::WriterView& v) {
  std::vector<std::string> out;
  for (const auto& idx : v) {
    out.push_back(idx->name());
  }
  return out;
}

TEST(IndexRegistryWriterView, FollowsChangesAndKeepsReplacedListsWhileHeld) {
  IndexRegistry reg;
  {
    IndexRegistry::WriterView v(reg);
    EXPECT_TRUE(Names(v).empty());
  }
  std::shared_ptr<SearchIndex> a = MakeIndex("a", "a:");
  std::weak_ptr<SearchIndex> weak_a = a;
  ASSERT_TRUE(reg.Add(std::move(a)));
  ASSERT_TRUE(reg.Add(MakeIndex("c", "c:")));
  {
    IndexRegistry::WriterView held(reg);
    EXPECT_EQ(Names(held), (std::vector<std::string>{"a", "c"}));
    // Dropped while a view holds the list: gone for new views, alive for the old one.
    EXPECT_NE(reg.Remove("a"), nullptr);
    ASSERT_TRUE(reg.Add(MakeIndex("b", "b:")));
    reg.Reclaim();
    EXPECT_FALSE(weak_a.expired());
    EXPECT_EQ(Names(held), (std::vector<std::string>{"a", "c"}));
    EXPECT_TRUE((*held.begin())->MatchesPrefix("a:1"));
    IndexRegistry::WriterView fresh(reg);
    EXPECT_EQ(Names(fresh), (std::vector<std::string>{"b", "c"}));
  }
  // No view left: the next reclaim frees the old lists and, with them, the dropped index.
  reg.Reclaim();
  EXPECT_TRUE(weak_a.expired());
  IndexRegistry::WriterView after(reg);
  EXPECT_EQ(Names(after), (std::vector<std::string>{"b", "c"}));
  reg.Clear();
  IndexRegistry::WriterView empty(reg);
  EXPECT_TRUE(Names(empty).empty());
}

}  // namespace
}  // namespace hotkv::search

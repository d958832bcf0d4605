// SearchIndex::Sync on updates: a document re-indexed after a write keeps its vectors in
// place unless their bytes changed (an HNSW re-insertion costs a graph search), its other
// fields follow the write, and the FT.INFO counters follow RediSearch 2.10 (a new doc id
// per indexing, records of replaced documents kept until the emulated GC).
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/entry.h"
#include "search/index_spec.h"
#include "search/search_index.h"
#include "types/hash_value.h"

namespace hotkv::search {
namespace {

std::string Blob(std::vector<float> v) {
  std::string b(v.size() * 4, '\0');
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A hash entry, freed at scope exit.
struct Hash {
  explicit Hash(std::initializer_list<std::pair<std::string, std::string>> items) {
    auto* h = new types::HashValue();
    types::EncodingLimits limits;
    for (const auto& [f, v] : items) h->Set(f, v, limits);
    e = Entry::NewObject("d:1", ValueType::kHash, h, false);
  }
  ~Hash() { Entry::Free(e); }
  Entry* e;
};

std::shared_ptr<SearchIndex> MakeIndex(VectorAlgo algo) {
  std::vector<std::string_view> args = {"SCHEMA", "t", "TEXT", "g", "TAG", "n", "NUMERIC",
                                        "v", "VECTOR", algo == VectorAlgo::kHnsw ? "HNSW" : "FLAT",
                                        "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC",
                                        "L2"};
  Result<IndexSpec> spec = ParseCreateArgs("idx", args);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  Result<std::shared_ptr<SearchIndex>> idx = SearchIndex::Create(std::move(*spec));
  EXPECT_TRUE(idx.ok());
  return *idx;
}

const VectorField& VectorOf(const SearchIndex& idx) {
  return *idx.fields()[idx.FieldIndexOf("v")].vector;
}

void CheckUpdates(VectorAlgo algo) {
  std::shared_ptr<SearchIndex> idx = MakeIndex(algo);
  const std::string v1 = Blob({1, 2}), v2 = Blob({5, 6});
  {
    Hash h({{"t", "hello world"}, {"g", "a"}, {"n", "1"}, {"v", v1}});
    idx->Sync("d:1", h.e, 0);
  }
  const VectorField& vf = VectorOf(*idx);
  EXPECT_EQ(vf.writes(), 1u);
  const DocId d = idx->DocOf("d:1");
  ASSERT_NE(d, kNoDoc);
  // A non-vector field changes: the vector is not stored again; the others follow.
  {
    Hash h({{"t", "hello world"}, {"g", "b"}, {"n", "7"}, {"v", v1}});
    idx->Sync("d:1", h.e, 0);
  }
  EXPECT_EQ(vf.writes(), 1u);
  EXPECT_EQ(idx->DocOf("d:1"), d);
  const FieldIndex& tag = idx->fields()[idx->FieldIndexOf("g")];
  EXPECT_EQ(tag.tag->ValuesOf(d), std::vector<std::string>{"b"});
  EXPECT_EQ(idx->fields()[idx->FieldIndexOf("n")].numeric->ValuesOf(d), std::vector<double>{7});
  std::vector<VectorMatch> m = vf.Knn(v1, 1, std::nullopt, nullptr);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].doc, d);
  EXPECT_EQ(m[0].distance, 0.0f);
  // The vector changes: stored again.
  {
    Hash h({{"t", "hello world"}, {"g", "b"}, {"n", "7"}, {"v", v2}});
    idx->Sync("d:1", h.e, 0);
  }
  EXPECT_EQ(vf.writes(), 2u);
  m = vf.Knn(v2, 1, std::nullopt, nullptr);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].distance, 0.0f);
  // The vector field goes away: so does the vector.
  {
    Hash h({{"t", "hello"}, {"g", "b"}});
    idx->Sync("d:1", h.e, 0);
  }
  EXPECT_EQ(vf.Info().num_vectors, 0u);
  EXPECT_TRUE(vf.Knn(v2, 1, std::nullopt, nullptr).empty());
  // And comes back.
  {
    Hash h({{"t", "hello"}, {"v", v1}});
    idx->Sync("d:1", h.e, 0);
  }
  EXPECT_EQ(vf.Info().num_vectors, 1u);
  // An unstorable vector (NaN) replacing a good one leaves none.
  {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Hash h({{"t", "hello"}, {"v", Blob({nan, 1})}});
    idx->Sync("d:1", h.e, 0);
  }
  EXPECT_EQ(vf.Info().num_vectors, 0u);
  EXPECT_EQ(idx->num_docs(), 1u);
}

TEST(SearchIndexUpdateTest, HnswVectorStoredOnlyWhenChanged) { CheckUpdates(VectorAlgo::kHnsw); }
TEST(SearchIndexUpdateTest, FlatVectorStoredOnlyWhenChanged) { CheckUpdates(VectorAlgo::kFlat); }

TEST(SearchIndexUpdateTest, InfoCountersFollowRediSearch) {
  std::shared_ptr<SearchIndex> idx = MakeIndex(VectorAlgo::kFlat);
  {
    Hash h({{"t", "hello world"}, {"g", "a,b"}, {"n", "1"}});
    idx->Sync("d:1", h.e, 0);
  }
  IndexStats s = idx->Stats();
  EXPECT_EQ(s.max_doc_id, 1u);
  EXPECT_EQ(s.num_records, 5u);  // 2 terms + 2 tags + 1 number
  {
    Hash h({{"t", "cat"}});
    idx->Sync("d:1", h.e, 0);
  }
  s = idx->Stats();
  EXPECT_EQ(s.num_docs, 1u);
  EXPECT_EQ(s.max_doc_id, 2u);
  EXPECT_EQ(s.num_records, 6u);  // the old 5 stay until the GC
  EXPECT_EQ(s.num_terms, 3u);    // hello, world, cat
  idx->Remove("d:1");
  s = idx->Stats();
  EXPECT_EQ(s.num_docs, 0u);
  EXPECT_EQ(s.num_records, 6u);
  // The 100th removal: the emulated GC forgets the old records and terms (2 removals so
  // far, then 98 updates).
  for (int i = 0; i < 99; i++) {
    Hash h({{"t", "x"}});
    idx->Sync("d:1", h.e, 0);
  }
  s = idx->Stats();
  EXPECT_EQ(s.max_doc_id, 101u);
  EXPECT_EQ(s.num_records, 1u);
  EXPECT_EQ(s.num_terms, 1u);
  idx->Clear();
  EXPECT_EQ(idx->Stats().max_doc_id, 0u);
}

}  // namespace
}  // namespace hotkv::search

// HnswIndex::SearchFloats: the same hits as Search() for every space (float32 L2 and
// inner product take the floats as the record; cosine and the quantized spaces go
// through Search()).
#include <gtest/gtest.h>

#include <vector>

#include "vector_test_util.h"
#include "vector/hnsw_index.h"

namespace hotkv::vector {
namespace {

using testing_util::ClusteredData;
using testing_util::Label;

TEST(HnswSearchFloatsTest, SameHitsAsSearch) {
  const auto data = ClusteredData(1500, 24, 20, 5);
  const auto queries = ClusteredData(40, 24, 20, 55);
  for (Metric metric : {Metric::kL2, Metric::kInnerProduct, Metric::kCosine}) {
    for (Quantization quant : {Quantization::kFloat32, Quantization::kQ8}) {
      IndexOptions o;
      o.dim = 24;
      o.metric = metric;
      o.quant = quant;
      auto index = HnswIndex::Create(o);
      ASSERT_TRUE(index.ok());
      for (size_t i = 0; i < data.size(); ++i) {
        ASSERT_TRUE((*index)->Add(Label(i), data[i]).ok());
      }
      for (const auto& q : queries) {
        for (uint32_t ef : {10u, 100u}) {
          SearchParams p;
          p.k = 10;
          p.ef = ef;
          auto a = (*index)->Search(q, p);
          auto b = (*index)->SearchFloats(q, p);
          ASSERT_TRUE(a.ok() && b.ok());
          ASSERT_EQ(a->size(), b->size());
          for (size_t i = 0; i < a->size(); ++i) {
            EXPECT_EQ((*a)[i].label, (*b)[i].label);
            EXPECT_EQ((*a)[i].distance, (*b)[i].distance);
          }
        }
      }
      // A wrong dimension goes through Search()'s check.
      std::vector<float> short_q(3, 0.5f);
      EXPECT_FALSE((*index)->SearchFloats(short_q, SearchParams{}).ok());
    }
  }
}

}  // namespace
}  // namespace hotkv::vector

// VectorSet (engine/vector_set_value.h): REDUCE projection, COPY, counters, and the
// self_locking command flag staying out of COMMAND INFO.
#include "engine/vector_set_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/entry.h"
#include "server/command_table.h"

namespace hotkv {
namespace {

std::shared_ptr<VectorSet> MakeSet(uint32_t dim, VectorSetFlags flags = {}) {
  vector::IndexOptions options;
  options.dim = dim;
  auto index = vector::HnswIndex::Create(options);
  EXPECT_TRUE(index.ok());
  return std::make_shared<VectorSet>(std::move(index.value()), flags);
}

TEST(VectorSetTest, ProjectionIsRedisSignMatrix) {
  VectorSetFlags flags;
  flags.projection_input_dim = 6;
  auto set = MakeSet(3, flags);
  const std::vector<float> in = {1.0f, -2.0f, 0.5f, 3.0f, 0.0f, -1.0f};
  std::vector<float> out = set->Project(in);
  ASSERT_EQ(out.size(), 3u);
  for (uint32_t i = 0; i < 3; i++) {
    double sum = 0;
    for (uint32_t j = 0; j < in.size(); j++) {
      int bits = __builtin_popcount(i & j);
      sum += (bits % 2 == 0 ? 1.0 : -1.0) * in[j];
    }
    EXPECT_NEAR(out[i], sum / std::sqrt(6.0), 1e-6) << i;
  }
}

TEST(VectorSetTest, FullSizeProjectionOfPowerOfTwoKeepsTheNorm) {
  // With n = 2^k and n outputs the matrix is an orthonormal Hadamard matrix.
  VectorSetFlags flags;
  flags.projection_input_dim = 8;
  auto set = MakeSet(8, flags);
  const std::vector<float> in = {0.5f, 1.0f, -2.0f, 0.25f, 3.0f, -1.5f, 0.0f, 2.0f};
  std::vector<float> out = set->Project(in);
  double a = 0, b = 0;
  for (size_t i = 0; i < in.size(); i++) {
    a += in[i] * in[i];
    b += out[i] * out[i];
  }
  EXPECT_NEAR(a, b, 1e-4);
}

TEST(VectorSetTest, CloneIsIndependentAndRecountsAttributes) {
  auto set = MakeSet(2);
  ASSERT_TRUE(set->index().Add("a", std::vector<float>{1, 0}, std::string_view(R"({"x":1})")).ok());
  ASSERT_TRUE(set->index().Add("b", std::vector<float>{0, 1}).ok());
  set->AddAttributeCount(1);
  auto copy = set->Clone();
  EXPECT_NE(copy->uid(), set->uid());
  EXPECT_EQ(copy->attribute_count(), 1);
  EXPECT_EQ(copy->index().size(), 2u);
  copy->index().Remove("a");
  EXPECT_TRUE(set->index().Contains("a"));
  EXPECT_FALSE(copy->persistent());
}

TEST(VectorSetTest, WriteCounter) {
  auto set = MakeSet(2);
  set->BeginWrite();
  set->BeginWrite();
  EXPECT_EQ(set->writes_in_flight(), 2);
  EXPECT_EQ(set->EndWrite(), 1);
  EXPECT_EQ(set->EndWrite(), 0);
}

TEST(VectorSetTest, EntryOwnsAReference) {
  auto set = MakeSet(2);
  std::weak_ptr<VectorSet> weak = set;
  Entry* e = Entry::NewObject("k", ValueType::kVectorSet, new VectorSetValue{set}, false);
  EXPECT_EQ(e->EncodingName(), "raw");
  EXPECT_GT(e->MemoryUsage(), sizeof(VectorSet));
  Entry* c = Entry::Clone(e, "k2");
  EXPECT_NE(c->As<VectorSetValue>()->set.get(), set.get());
  set.reset();
  EXPECT_FALSE(weak.expired());  // the entry still holds it
  Entry::Free(e);
  EXPECT_TRUE(weak.expired());
  Entry::Free(c);
}

TEST(VectorSetTest, SelfLockingFlagIsInternal) {
  auto names = CommandFlagNames(kCmdWrite | kCmdSelfLocking, false);
  EXPECT_EQ(names, std::vector<std::string_view>{"write"});
}

}  // namespace
}  // namespace hotkv

// HnswIndex::SearchNear (the semantic cache's first walk) and IndexOptions::sketch: the
// walk measured on Q8 / binary sketches finds a near-duplicate, reports the record's
// exact distance (the one Search reports), keeps to the radius and the filter, and a
// sketch changes nothing else (Search, GetVector, Clone).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "vector/filter_expr.h"
#include "vector/hnsw_index.h"
#include "vector/vector_space.h"
#include "vector_test_util.h"

namespace hotkv::vector {
namespace {

using testing_util::ClusteredData;
using testing_util::ExactDistance;
using testing_util::Label;

std::vector<float> Unit(std::vector<float> v) {
  double n = 0;
  for (float f : v) n += double(f) * f;
  for (float& f : v) f = static_cast<float>(f / std::sqrt(n));
  return v;
}

std::unique_ptr<HnswIndex> Build(const std::vector<std::vector<float>>& data, Metric metric,
                                 IndexOptions::Sketch sketch) {
  IndexOptions o;
  o.dim = static_cast<uint32_t>(data[0].size());
  o.metric = metric;
  o.sketch = sketch;
  auto index = HnswIndex::Create(o);
  EXPECT_TRUE(index.ok()) << index.status().message();
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string attrs = std::string(R"({"mod":)") + std::to_string(i % 3) + "}";
    EXPECT_TRUE((*index)->Add(Label(i), data[i], attrs).ok());
  }
  return std::move(index.value());
}

TEST(HnswSearchNearTest, CreateChecksTheSketch) {
  IndexOptions o;
  o.dim = 8;
  o.sketch = IndexOptions::Sketch::kQ8;
  o.quant = Quantization::kQ8;
  EXPECT_FALSE(HnswIndex::Create(o).ok());
  o.quant = Quantization::kFloat32;
  o.sketch = IndexOptions::Sketch::kBinary;
  o.metric = Metric::kL2;
  EXPECT_FALSE(HnswIndex::Create(o).ok());
  o.metric = Metric::kCosine;
  auto index = HnswIndex::Create(o);
  ASSERT_TRUE(index.ok());
  EXPECT_TRUE((*index)->has_sketch());
  EXPECT_TRUE((*index)->SearchNear(std::vector<float>(8, 1.0f), 1.0f, 4, 4).value().empty());
  EXPECT_FALSE((*index)->SearchNear(std::vector<float>(3, 1.0f), 1.0f, 4, 4).ok());
}

// Every entry is found from a near-duplicate, at the exact distance Search reports, for
// every sketch and metric (inner product has no "near-duplicate is nearest"); a query far from everything finds nothing within the radius.
TEST(HnswSearchNearTest, FindsNearDuplicatesAtTheirExactDistance) {
  constexpr size_t kN = 1200, kDim = 96;
  const auto data = ClusteredData(kN, kDim, 40, 21);
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 1.0f);
  struct Case {
    Metric metric;
    IndexOptions::Sketch sketch;
    size_t min_percent;  // 96 sign bits are a coarse sketch: a lower bar
  };
  for (Case c : {Case{Metric::kCosine, IndexOptions::Sketch::kQ8, 98},
                 Case{Metric::kCosine, IndexOptions::Sketch::kBinary, 90},
                 Case{Metric::kCosine, IndexOptions::Sketch::kNone, 98},
                 Case{Metric::kL2, IndexOptions::Sketch::kQ8, 98}}) {
    SCOPED_TRACE(std::string(MetricName(c.metric)) + " sketch " +
                 std::to_string(static_cast<int>(c.sketch)));
    auto index = Build(data, c.metric, c.sketch);
    size_t found = 0;
    for (size_t i = 0; i < kN; i += 4) {
      std::vector<float> q = data[i];
      for (float& f : q) f += 0.01f * g(rng);
      const double exact = ExactDistance(c.metric, data[i], q);
      // A radius that takes the entry in with room to spare.
      const float radius = static_cast<float>(std::fabs(exact) * 1.5 + 1e-3);
      auto near = index->SearchNear(q, radius, 8, 4);
      ASSERT_TRUE(near.ok());
      if (near->empty() || (*near)[0].label != Label(i)) {
        continue;
      }
      found++;
      SearchParams p;
      p.k = 1;
      p.exact = true;
      auto truth = index->Search(q, p);
      ASSERT_TRUE(truth.ok() && !truth->empty());
      EXPECT_EQ((*truth)[0].label, Label(i));
      EXPECT_EQ((*near)[0].distance, (*truth)[0].distance);  // the record's, bit for bit
      for (size_t j = 1; j < near->size(); ++j) {
        EXPECT_LE((*near)[j - 1].distance, (*near)[j].distance);
        EXPECT_LE((*near)[j].distance, radius);
      }
    }
    EXPECT_GE(found, kN / 4 * c.min_percent / 100);
    // Far from every entry (L2: a point far away; cosine / IP: the opposite direction of
    // the first entry, then a tiny radius): nothing within it.
    std::vector<float> far = data[0];
    for (float& f : far) f = -f * 50.0f;
    auto none = index->SearchNear(far, 1e-6f, 8, 4);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
  }
}

// Just inside and just outside the radius, with and without a filter: the radius is
// applied to the exact distance (not the sketch's), and a filtered-out nearer entry
// gives way to the nearest one that passes.
TEST(HnswSearchNearTest, RadiusIsExactAndFilterRespected) {
  constexpr size_t kDim = 256;
  std::mt19937 rng(9);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<std::vector<float>> data;
  for (size_t i = 0; i < 600; i++) {
    std::vector<float> v(kDim);
    for (float& f : v) f = g(rng);
    data.push_back(Unit(v));
  }
  // Entry 1 is a slightly farther twin of entry 0 (both near the query).
  std::vector<float> q = data[0];
  for (float& f : q) f += 0.05f * g(rng);
  q = Unit(q);
  data[1] = data[0];
  for (float& f : data[1]) f += 0.08f * g(rng);
  data[1] = Unit(data[1]);
  auto index = Build(data, Metric::kCosine, IndexOptions::Sketch::kQ8);
  SearchParams p;
  p.k = 2;
  p.exact = true;
  auto truth = index->Search(q, p).value();
  ASSERT_EQ(truth.size(), 2u);
  ASSERT_EQ(truth[0].label, Label(0));
  ASSERT_EQ(truth[1].label, Label(1));
  const float d0 = truth[0].distance, d1 = truth[1].distance;
  ASSERT_LT(d0, d1);

  auto at = [&](float radius, const AttributePredicate* f) {
    auto r = index->SearchNear(q, radius, 8, 4, f);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<SearchHit>{};
  };
  EXPECT_TRUE(at(std::nextafter(d0, 0.0f), nullptr).empty());  // just outside
  auto r = at(d0, nullptr);                                    // just inside
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].label, Label(0));
  r = at(d1, nullptr);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].label, Label(0));
  EXPECT_EQ(r[1].label, Label(1));
  // Entry 0 has mod 0, entry 1 mod 1.
  auto mod1 = FilterExpression::Compile(".mod == 1");
  ASSERT_TRUE(mod1.ok());
  r = at(d1, mod1.value().get());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].label, Label(1));
  EXPECT_TRUE(at(std::nextafter(d1, 0.0f), mod1.value().get()).empty());
  auto mod2 = FilterExpression::Compile(".mod == 2");
  EXPECT_TRUE(at(d1, mod2.value().get()).empty());
}

// A sketch is invisible elsewhere: Search, GetVector and a clone's answers are those of
// the same index built without one.
TEST(HnswSearchNearTest, SketchChangesNothingElse) {
  const auto data = ClusteredData(800, 40, 10, 33);
  auto plain = Build(data, Metric::kCosine, IndexOptions::Sketch::kNone);
  auto sketched = Build(data, Metric::kCosine, IndexOptions::Sketch::kQ8);
  auto clone = sketched->Clone();
  EXPECT_GT(sketched->Info().node_bytes, plain->Info().node_bytes);
  for (size_t i = 0; i < data.size(); i += 37) {
    SearchParams p;
    p.k = 5;
    p.ef = 50;
    auto a = plain->Search(data[i], p).value();
    auto b = sketched->Search(data[i], p).value();
    auto c = clone->Search(data[i], p).value();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), c.size());
    for (size_t j = 0; j < a.size(); ++j) {
      EXPECT_EQ(a[j].label, b[j].label);
      EXPECT_EQ(a[j].distance, b[j].distance);
      EXPECT_EQ(b[j].label, c[j].label);
    }
    auto va = plain->GetVector(Label(i));
    auto vb = sketched->GetVector(Label(i));
    ASSERT_TRUE(va.has_value() && vb.has_value());
    EXPECT_TRUE(*va == *vb);
    auto near = clone->SearchNear(data[i], 1e-4f, 4, 4).value();
    ASSERT_FALSE(near.empty());
    EXPECT_EQ(near[0].label, Label(i));
  }
}

// Q8 codes round to nearest, ties to even (as std::nearbyint in the default mode).
TEST(HnswSearchNearTest, Q8CodesRoundHalfToEven) {
  // L2 keeps the vector as given; max |x| = 127 makes the scale 1, so codes = round(x).
  std::vector<float> v = {127.0f, 2.5f, -3.5f, 0.5f, -0.5f, 126.5f, 1.49f, -1.51f, 3.0f};
  VectorSpace space(static_cast<uint32_t>(v.size()), Metric::kL2, Quantization::kQ8);
  std::vector<uint8_t> rec(space.record_bytes());
  space.Encode(v, rec.data(), false);
  const int8_t* codes = reinterpret_cast<const int8_t*>(rec.data() + 2 * sizeof(float));
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(codes[i], static_cast<int8_t>(std::nearbyint(v[i]))) << v[i];
  }
  EXPECT_EQ(codes[1], 2);
  EXPECT_EQ(codes[2], -4);
  EXPECT_EQ(codes[5], 126);
}

}  // namespace
}  // namespace hotkv::vector

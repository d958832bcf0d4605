// VectorField: input types, RediSearch's distances per metric, FLAT exactness, HNSW
// recall (plain, pre-filtered at 1/10/50 %, range), remove/replace, and Set/Remove
// running concurrently with Knn.
#include "search/vector_field.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace hotkv::search {
namespace {

std::string F32(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

std::string F64(const std::vector<float>& v) {
  std::string out;
  for (float f : v) {
    double d = f;
    out.append(reinterpret_cast<const char*>(&d), 8);
  }
  return out;
}

// Exact for the small integers and halves used below.
std::string F16(const std::vector<float>& v) {
  std::string out;
  for (float f : v) {
    // Encode sign, exponent and 10 mantissa bits of a normal half.
    uint16_t h = 0;
    if (f != 0.0f) {
      int e;
      const float m = std::frexp(std::fabs(f), &e);  // f = m * 2^e, m in [0.5, 1)
      const uint16_t mant = static_cast<uint16_t>(std::lround((m * 2.0f - 1.0f) * 1024.0f));
      h = static_cast<uint16_t>(((e - 1 + 15) << 10) | mant);
      if (f < 0) {
        h |= 0x8000u;
      }
    }
    out.append(reinterpret_cast<const char*>(&h), 2);
  }
  return out;
}

std::string BF16(const std::vector<float>& v) {
  std::string out;
  for (float f : v) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t b = static_cast<uint16_t>(bits >> 16);
    out.append(reinterpret_cast<const char*>(&b), 2);
  }
  return out;
}

VectorFieldOptions Opts(VectorAlgo algo, VectorMetric metric, uint32_t dim,
                        VectorType type = VectorType::kFloat32) {
  VectorFieldOptions o;
  o.algo = algo;
  o.metric = metric;
  o.dim = dim;
  o.type = type;
  return o;
}

// The four points of the RediSearch probe: a=[1,0] b=[.5,.5] c=[-1,2] d=[3,4], q=[1,1].
const std::vector<std::vector<float>> kPoints = {{1, 0}, {0.5f, 0.5f}, {-1, 2}, {3, 4}};
const std::vector<float> kQuery = {1, 1};

std::string Encode(VectorType type, const std::vector<float>& v) {
  switch (type) {
    case VectorType::kFloat32:
      return F32(v);
    case VectorType::kFloat64:
      return F64(v);
    case VectorType::kFloat16:
      return F16(v);
    case VectorType::kBFloat16:
      return BF16(v);
  }
  return F32(v);
}

// Distance of every point to kQuery, indexed by doc.
std::vector<float> ProbeDistances(VectorAlgo algo, VectorMetric metric, VectorType type) {
  VectorField f(Opts(algo, metric, 2, type));
  for (DocId d = 0; d < kPoints.size(); ++d) {
    EXPECT_TRUE(f.Set(d, Encode(type, kPoints[d])).ok());
  }
  std::vector<VectorMatch> hits = f.Knn(Encode(type, kQuery), 10, std::nullopt, nullptr);
  EXPECT_EQ(hits.size(), kPoints.size());
  std::vector<float> out(kPoints.size(), -100.0f);
  for (const VectorMatch& m : hits) {
    out[m.doc] = m.distance;
  }
  for (size_t i = 1; i < hits.size(); ++i) {
    EXPECT_LE(hits[i - 1].distance, hits[i].distance);
  }
  return out;
}

TEST(VectorFieldTest, DistancesAsRediSearchReportsThem) {
  // Values from Redis 8.8 + RediSearch 2.10 for the same points (FT.SEARCH __v_score).
  for (VectorAlgo algo : {VectorAlgo::kFlat, VectorAlgo::kHnsw}) {
    for (VectorType type : {VectorType::kFloat32, VectorType::kFloat64, VectorType::kFloat16,
                            VectorType::kBFloat16}) {
      SCOPED_TRACE(static_cast<int>(algo) * 10 + static_cast<int>(type));
      std::vector<float> l2 = ProbeDistances(algo, VectorMetric::kL2, type);
      EXPECT_FLOAT_EQ(l2[0], 1.0f);
      EXPECT_FLOAT_EQ(l2[1], 0.5f);
      EXPECT_FLOAT_EQ(l2[2], 5.0f);
      EXPECT_FLOAT_EQ(l2[3], 13.0f);
      std::vector<float> ip = ProbeDistances(algo, VectorMetric::kIp, type);
      EXPECT_FLOAT_EQ(ip[0], 0.0f);
      EXPECT_FLOAT_EQ(ip[1], 0.0f);
      EXPECT_FLOAT_EQ(ip[2], 0.0f);
      EXPECT_FLOAT_EQ(ip[3], -6.0f);
      std::vector<float> cos = ProbeDistances(algo, VectorMetric::kCosine, type);
      if (type == VectorType::kFloat16) {
        // RediSearch stores normalised FLOAT16 vectors: 0.29296875, 0.000213623046875,
        // 0.683769226074, 0.0102252960205.
        EXPECT_FLOAT_EQ(cos[0], 0.29296875f);
        EXPECT_NEAR(cos[1], 0.000213623046875f, 1e-7);
        EXPECT_NEAR(cos[2], 0.683769226074f, 1e-6);
        EXPECT_NEAR(cos[3], 0.0102252960205f, 1e-6);
      } else if (type == VectorType::kBFloat16) {
        EXPECT_NEAR(cos[0], 0.2928932f, 3e-3);
        EXPECT_NEAR(cos[2], 0.6837722f, 3e-3);
        EXPECT_NEAR(cos[3], 0.0100505f, 3e-3);
      } else {
        EXPECT_NEAR(cos[0], 0.292893218813, 1e-6);
        EXPECT_NEAR(cos[1], 0.0, 1e-6);
        EXPECT_NEAR(cos[2], 0.683772233983, 1e-6);
        EXPECT_NEAR(cos[3], 0.0100505063388, 1e-6);
      }
    }
  }
}

TEST(VectorFieldTest, HalfPrecisionConversions) {
  // FLOAT16: 1.5, -2, 65504 (max), 2^-24 (smallest subnormal), 0x3555 ~ 0.333.
  VectorField f(Opts(VectorAlgo::kFlat, VectorMetric::kIp, 5, VectorType::kFloat16));
  const uint16_t h[5] = {0x3e00, 0xc000, 0x7bff, 0x0001, 0x3555};
  ASSERT_TRUE(f.Set(1, std::string(reinterpret_cast<const char*>(h), 10)).ok());
  // IP with the unit vector e_i: 1 - v_i.
  for (int i = 0; i < 5; ++i) {
    uint16_t q[5] = {0, 0, 0, 0, 0};
    q[i] = 0x3c00;  // 1.0
    std::vector<VectorMatch> hits =
        f.Knn(std::string(reinterpret_cast<const char*>(q), 10), 1, std::nullopt, nullptr);
    ASSERT_EQ(hits.size(), 1u);
    const double want[5] = {1.5, -2.0, 65504.0, std::ldexp(1.0, -24), 0.333251953125};
    EXPECT_FLOAT_EQ(hits[0].distance, static_cast<float>(1.0 - want[i])) << i;
  }
  // BFLOAT16: the upper half of a float32.
  VectorField b(Opts(VectorAlgo::kFlat, VectorMetric::kL2, 3, VectorType::kBFloat16));
  ASSERT_TRUE(b.Set(7, BF16({1.0f, -3.0f, 0.15625f})).ok());
  std::vector<VectorMatch> hits = b.Knn(BF16({0, 0, 0}), 1, std::nullopt, nullptr);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].doc, 7u);
  EXPECT_FLOAT_EQ(hits[0].distance, 1.0f + 9.0f + 0.15625f * 0.15625f);
  // FLOAT64 input is converted to float32.
  VectorField d(Opts(VectorAlgo::kHnsw, VectorMetric::kL2, 2, VectorType::kFloat64));
  ASSERT_TRUE(d.Set(3, F64({0.1f, 0.2f})).ok());
  hits = d.Knn(F64({0, 0}), 1, std::nullopt, nullptr);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NEAR(hits[0].distance, 0.05, 1e-6);
  // JSON arrays (SetFromFloats) are rounded through the type like blobs.
  VectorField j(Opts(VectorAlgo::kFlat, VectorMetric::kIp, 1, VectorType::kFloat16));
  ASSERT_TRUE(j.SetFromFloats(1, {1.0f / 3.0f}).ok());
  hits = j.Knn(F16({1.0f}), 1, std::nullopt, nullptr);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FLOAT_EQ(hits[0].distance, 1.0f - 0.333251953125f);
}

TEST(VectorFieldTest, BlobSizesAndErrors) {
  VectorField f(Opts(VectorAlgo::kHnsw, VectorMetric::kL2, 2));
  EXPECT_FALSE(f.Set(1, "abc").ok());
  EXPECT_FALSE(f.SetFromFloats(1, {1, 2, 3}).ok());
  EXPECT_FALSE(f.Set(1, F32({NAN, 1})).ok());
  EXPECT_EQ(f.Info().num_vectors, 0u);
  Status st = f.CheckQueryBlob("abc");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "Error parsing vector similarity query: query vector blob size (3) does not match "
            "index's expected size (8).");
  EXPECT_TRUE(f.CheckQueryBlob(F32({1, 2})).ok());
  VectorField h(Opts(VectorAlgo::kFlat, VectorMetric::kL2, 4, VectorType::kFloat16));
  EXPECT_TRUE(h.CheckQueryBlob(std::string(8, '\0')).ok());
  EXPECT_FALSE(h.CheckQueryBlob(std::string(16, '\0')).ok());
  EXPECT_TRUE(f.Knn("abc", 3, std::nullopt, nullptr).empty());
  EXPECT_TRUE(f.Knn(F32({1, 2}), 3, std::nullopt, nullptr).empty());  // Empty index.
}

TEST(VectorFieldTest, InfoAttributes) {
  VectorFieldOptions o = Opts(VectorAlgo::kHnsw, VectorMetric::kIp, 4);
  o.m = 8;
  o.ef_construction = 50;
  VectorField f(o);
  ASSERT_TRUE(f.Set(1, F32({1, 2, 3, 4})).ok());
  VectorFieldInfo info = f.Info();
  EXPECT_EQ(info.num_vectors, 1u);
  EXPECT_GT(info.memory_bytes, 0u);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"algorithm", "HNSW"}, {"data_type", "FLOAT32"}, {"dim", "4"},
      {"distance_metric", "IP"}, {"M", "8"}, {"ef_construction", "50"}};
  EXPECT_EQ(info.attributes, want);
  EXPECT_TRUE(VectorFieldInfo::IsIntegerAttribute("dim"));
  EXPECT_TRUE(VectorFieldInfo::IsIntegerAttribute("M"));
  EXPECT_FALSE(VectorFieldInfo::IsIntegerAttribute("data_type"));

  VectorField flat(Opts(VectorAlgo::kFlat, VectorMetric::kCosine, 3, VectorType::kBFloat16));
  const std::vector<std::pair<std::string, std::string>> want_flat = {
      {"algorithm", "FLAT"}, {"data_type", "BFLOAT16"}, {"dim", "3"},
      {"distance_metric", "COSINE"}};
  EXPECT_EQ(flat.Info().attributes, want_flat);
  EXPECT_EQ(flat.Info().num_vectors, 0u);
}

// ---- data sets and exact answers

struct DataSet {
  uint32_t dim;
  std::vector<std::vector<float>> vecs;  // Doc i = vecs[i].
  std::vector<std::vector<float>> queries;
};

// Gaussian clusters (closer to real embeddings than uniform noise).
DataSet MakeData(size_t n, size_t nq, uint32_t dim, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<std::vector<float>> centers(40, std::vector<float>(dim));
  for (auto& c : centers) {
    for (float& x : c) {
      x = 3.0f * g(rng);
    }
  }
  DataSet ds;
  ds.dim = dim;
  auto draw = [&] {
    const auto& c = centers[rng() % centers.size()];
    std::vector<float> v(dim);
    for (uint32_t i = 0; i < dim; ++i) {
      v[i] = c[i] + g(rng);
    }
    return v;
  };
  for (size_t i = 0; i < n; ++i) {
    ds.vecs.push_back(draw());
  }
  for (size_t i = 0; i < nq; ++i) {
    ds.queries.push_back(draw());
  }
  return ds;
}

double ExactDistance(VectorMetric metric, const std::vector<float>& a,
                     const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0, l2 = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double{a[i]} * b[i];
    na += double{a[i]} * a[i];
    nb += double{b[i]} * b[i];
    l2 += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  }
  switch (metric) {
    case VectorMetric::kL2:
      return l2;
    case VectorMetric::kIp:
      return 1.0 - dot;
    case VectorMetric::kCosine:
      return 1.0 - dot / std::sqrt(na * nb);
  }
  return 0;
}

// The exact k nearest (doc, distance) among `allowed` (or all docs).
std::vector<std::pair<double, DocId>> Exact(const DataSet& ds, VectorMetric metric,
                                            const std::vector<float>& q, size_t k,
                                            const DocIds* allowed) {
  std::vector<std::pair<double, DocId>> all;
  auto add = [&](DocId d) {
    if (d < ds.vecs.size()) {
      all.emplace_back(ExactDistance(metric, ds.vecs[d], q), d);
    }
  };
  if (allowed != nullptr) {
    for (DocId d : *allowed) {
      add(d);
    }
  } else {
    for (DocId d = 0; d < ds.vecs.size(); ++d) {
      add(d);
    }
  }
  std::sort(all.begin(), all.end());
  if (all.size() > k) {
    all.resize(k);
  }
  return all;
}

// Recall@k of `got` against the exact answer; a document tied with the k-th exact
// distance counts as correct.
double Recall(const std::vector<VectorMatch>& got,
              const std::vector<std::pair<double, DocId>>& truth) {
  if (truth.empty()) {
    return got.empty() ? 1.0 : 0.0;
  }
  std::set<DocId> want;
  for (const auto& t : truth) {
    want.insert(t.second);
  }
  const double kth = truth.back().first;
  size_t hit = 0;
  for (const VectorMatch& m : got) {
    hit += want.count(m.doc) > 0 || m.distance <= kth + 1e-5;
  }
  return std::min(1.0, static_cast<double>(hit) / truth.size());
}

void Fill(VectorField& f, const DataSet& ds) {
  for (DocId d = 0; d < ds.vecs.size(); ++d) {
    ASSERT_TRUE(f.Set(d, F32(ds.vecs[d])).ok());
  }
}

DocIds Sample(size_t n, double fraction, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  DocIds out;
  for (DocId d = 0; d < n; ++d) {
    if (u(rng) < fraction) {
      out.push_back(d);
    }
  }
  return out;
}

TEST(VectorFieldTest, FlatKnnIsExact) {
  const DataSet ds = MakeData(2000, 20, 24, 1);
  for (VectorMetric metric : {VectorMetric::kL2, VectorMetric::kIp, VectorMetric::kCosine}) {
    VectorField f(Opts(VectorAlgo::kFlat, metric, ds.dim));
    Fill(f, ds);
    const DocIds allowed = Sample(ds.vecs.size(), 0.05, 9);
    for (const auto& q : ds.queries) {
      for (const DocIds* filter : {static_cast<const DocIds*>(nullptr), &allowed}) {
        std::vector<VectorMatch> got = f.Knn(F32(q), 10, std::nullopt, filter);
        auto truth = Exact(ds, metric, q, 10, filter);
        ASSERT_EQ(got.size(), truth.size());
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_NEAR(got[i].distance, truth[i].first, 1e-3 * (1 + std::fabs(truth[i].first)));
        }
        EXPECT_EQ(Recall(got, truth), 1.0);
      }
    }
  }
}

TEST(VectorFieldTest, HnswRecallPlainAndFiltered) {
  // 20k docs so that the 10 % and 50 % filters take the filtered graph walk (the 1 %
  // one is searched exactly); recall is measured against exact answers.
  const DataSet ds = MakeData(20000, 40, 16, 2);
  VectorFieldOptions o = Opts(VectorAlgo::kHnsw, VectorMetric::kCosine, ds.dim);
  o.ef_construction = 100;
  VectorField f(o);
  Fill(f, ds);
  ASSERT_EQ(f.Info().num_vectors, ds.vecs.size());
  const size_t k = 10;
  for (uint32_t ef : {10u, 100u}) {
    double plain = 0;
    for (const auto& q : ds.queries) {
      plain += Recall(f.Knn(F32(q), k, ef, nullptr), Exact(ds, o.metric, q, k, nullptr));
    }
    plain /= ds.queries.size();
    if (ef == 100) {
      EXPECT_GE(plain, 0.95) << "ef " << ef;
    }
    for (double sel : {0.01, 0.10, 0.50}) {
      const DocIds allowed = Sample(ds.vecs.size(), sel, 100 + static_cast<uint64_t>(sel * 100));
      double recall = 0;
      for (const auto& q : ds.queries) {
        std::vector<VectorMatch> got = f.Knn(F32(q), k, ef, &allowed);
        for (const VectorMatch& m : got) {
          ASSERT_TRUE(std::binary_search(allowed.begin(), allowed.end(), m.doc));
        }
        recall += Recall(got, Exact(ds, o.metric, q, k, &allowed));
      }
      recall /= ds.queries.size();
      // At least as good as the unfiltered walk with the same ef, and >= 0.95 with a
      // beam that gives that unfiltered.
      EXPECT_GE(recall, std::min(0.95, plain - 0.02)) << "ef " << ef << " sel " << sel;
      std::printf("ef %u selectivity %.2f recall %.3f (unfiltered %.3f)\n", ef, sel, recall,
                  plain);
    }
  }
}

TEST(VectorFieldTest, RangeMatchesExact) {
  const DataSet ds = MakeData(5000, 10, 16, 3);
  for (VectorAlgo algo : {VectorAlgo::kFlat, VectorAlgo::kHnsw}) {
    VectorField f(Opts(algo, VectorMetric::kL2, ds.dim));
    Fill(f, ds);
    const DocIds allowed = Sample(ds.vecs.size(), 0.3, 5);
    for (const auto& q : ds.queries) {
      // A radius that holds 50 documents (halfway to the 51st, clear of float error).
      auto near = Exact(ds, VectorMetric::kL2, q, 51, nullptr);
      const double radius = (near[49].first + near[50].first) / 2;
      for (const DocIds* filter : {static_cast<const DocIds*>(nullptr), &allowed}) {
        auto truth = Exact(ds, VectorMetric::kL2, q, ds.vecs.size(), filter);
        while (!truth.empty() && truth.back().first > radius) {
          truth.pop_back();
        }
        std::vector<VectorMatch> got = f.Range(F32(q), radius, std::nullopt, filter);
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_LE(got[i].distance, radius * (1 + 1e-5));
          if (i > 0) {
            EXPECT_LE(got[i - 1].distance, got[i].distance);
          }
          if (filter != nullptr) {
            EXPECT_TRUE(std::binary_search(filter->begin(), filter->end(), got[i].doc));
          }
        }
        if (algo == VectorAlgo::kFlat) {
          EXPECT_EQ(got.size(), truth.size());
        } else {
          EXPECT_LE(got.size(), truth.size());
          EXPECT_GE(got.size(), truth.size() * 0.95);
        }
      }
      EXPECT_TRUE(f.Range(F32(q), -1.0, std::nullopt, nullptr).empty());
    }
  }
}

// HNSW range search (RediSearch's: greedy descent, then a layer-0 walk bounded by the
// dynamic range widened by EPSILON) against exact answers, at several radii and both
// metrics; FLAT stays exact. Mean recall >= 0.95 with the default EPSILON 0.01, and a
// larger EPSILON never finds fewer.
TEST(VectorFieldTest, HnswRangeRecallAgainstFlat) {
  const DataSet ds = MakeData(8000, 20, 24, 11);
  for (VectorMetric metric : {VectorMetric::kL2, VectorMetric::kCosine}) {
    VectorField flat(Opts(VectorAlgo::kFlat, metric, ds.dim));
    VectorField hnsw(Opts(VectorAlgo::kHnsw, metric, ds.dim));
    Fill(flat, ds);
    Fill(hnsw, ds);
    for (size_t want : {1u, 20u, 300u}) {
      double recall = 0;
      size_t wide_total = 0, default_total = 0;
      for (const auto& q : ds.queries) {
        auto near = Exact(ds, metric, q, want + 1, nullptr);
        const double radius = (near[want - 1].first + near[want].first) / 2;
        std::vector<VectorMatch> exact = flat.Range(F32(q), radius, std::nullopt, nullptr);
        ASSERT_EQ(exact.size(), want);
        std::vector<VectorMatch> got = hnsw.Range(F32(q), radius, std::nullopt, nullptr);
        std::set<DocId> truth;
        for (const VectorMatch& m : exact) {
          truth.insert(m.doc);
        }
        size_t hit = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_LE(got[i].distance, radius);
          hit += truth.count(got[i].doc);
          if (i > 0) {
            ASSERT_TRUE(got[i - 1].distance < got[i].distance ||
                        (got[i - 1].distance == got[i].distance && got[i - 1].doc < got[i].doc));
          }
        }
        ASSERT_EQ(hit, got.size());  // nothing outside the exact answer
        recall += static_cast<double>(hit) / want;
        default_total += got.size();
        wide_total += hnsw.Range(F32(q), radius, 0.5, nullptr).size();
      }
      recall /= ds.queries.size();
      EXPECT_GE(recall, 0.95) << "metric " << static_cast<int>(metric) << " want " << want;
      EXPECT_GE(wide_total, default_total);
      std::printf("range metric %d results %zu recall %.3f\n", static_cast<int>(metric), want,
                  recall);
    }
  }
}

TEST(VectorFieldTest, RemoveAndReplace) {
  for (VectorAlgo algo : {VectorAlgo::kFlat, VectorAlgo::kHnsw}) {
    VectorField f(Opts(algo, VectorMetric::kL2, 2));
    for (DocId d = 0; d < 100; ++d) {
      ASSERT_TRUE(f.Set(d, F32({static_cast<float>(d), 0})).ok());
    }
    EXPECT_EQ(f.Info().num_vectors, 100u);
    // Replace: doc 5 moves to x = 1000.
    ASSERT_TRUE(f.Set(5, F32({1000, 0})).ok());
    EXPECT_EQ(f.Info().num_vectors, 100u);
    std::vector<VectorMatch> hits = f.Knn(F32({1000, 0}), 1, std::nullopt, nullptr);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].doc, 5u);
    EXPECT_EQ(hits[0].distance, 0.0f);
    hits = f.Knn(F32({5, 0}), 3, std::nullopt, nullptr);
    ASSERT_EQ(hits.size(), 3u);
    EXPECT_EQ(hits[0].doc, 4u);  // Tie with 6 at distance 1: lower doc first.
    EXPECT_EQ(hits[1].doc, 6u);
    // Remove: FLAT moves the last slot into the hole; every other doc stays findable.
    f.Remove(0);
    f.Remove(5);
    f.Remove(5);    // Absent: no-op.
    f.Remove(500);  // Never set.
    EXPECT_EQ(f.Info().num_vectors, 98u);
    for (DocId d = 1; d < 100; ++d) {
      hits = f.Knn(F32({static_cast<float>(d), 0}), 1, std::nullopt, nullptr);
      ASSERT_EQ(hits.size(), 1u);
      EXPECT_EQ(hits[0].doc, d == 5 ? 4u : d);
    }
    const DocIds allowed = {0, 5, 50, 99};
    hits = f.Knn(F32({0, 0}), 10, std::nullopt, &allowed);
    ASSERT_EQ(hits.size(), 2u);
    EXPECT_EQ(hits[0].doc, 50u);
    EXPECT_EQ(hits[1].doc, 99u);
    const DocIds none;
    EXPECT_TRUE(f.Knn(F32({0, 0}), 10, std::nullopt, &none).empty());
    // A removed doc can come back.
    ASSERT_TRUE(f.Set(0, F32({-7, 0})).ok());
    hits = f.Knn(F32({-7, 0}), 1, std::nullopt, nullptr);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].doc, 0u);
  }
}

TEST(VectorFieldTest, ConcurrentSetAndKnn) {
  const DataSet ds = MakeData(3000, 1, 8, 4);
  for (VectorAlgo algo : {VectorAlgo::kFlat, VectorAlgo::kHnsw}) {
    VectorFieldOptions o = Opts(algo, VectorMetric::kL2, ds.dim);
    o.ef_construction = 40;
    VectorField f(o);
    // Docs 0..999 stay; 1000..2999 are added, replaced and removed while searching.
    for (DocId d = 0; d < 1000; ++d) {
      ASSERT_TRUE(f.Set(d, F32(ds.vecs[d])).ok());
    }
    std::atomic<bool> done{false};
    std::atomic<size_t> bad{0};
    std::thread writer([&] {
      for (DocId d = 1000; d < 3000; ++d) {
        if (!f.Set(d, F32(ds.vecs[d])).ok()) {
          bad++;
        }
        if (d % 3 == 0) {
          f.Set(d - 1, F32(ds.vecs[d - 500]));
        }
        if (d % 4 == 0) {
          f.Remove(d - 2);
        }
      }
      done = true;
    });
    size_t searches = 0;
    for (size_t i = 0; i < 5000 && (!done || searches < 50); ++i, ++searches) {
      const auto& q = ds.vecs[i % 1000];
      std::vector<VectorMatch> hits = f.Knn(F32(q), 5, 50, nullptr);
      if (hits.empty() || hits.size() > 5) {
        bad++;
        continue;
      }
      for (size_t j = 0; j < hits.size(); ++j) {
        if (hits[j].doc >= 3000 || (j > 0 && hits[j - 1].distance > hits[j].distance)) {
          bad++;
        }
      }
    }
    writer.join();
    EXPECT_EQ(bad.load(), 0u);
    // 3000 docs minus the removed ones (d-2 for d % 4 == 0, d in 1000..2999).
    EXPECT_EQ(f.Info().num_vectors, 3000u - 500u);
    // Stable docs are still found exactly (each query is a stored vector).
    for (DocId d = 0; d < 1000; d += 97) {
      std::vector<VectorMatch> hits = f.Knn(F32(ds.vecs[d]), 1, 50, nullptr);
      ASSERT_EQ(hits.size(), 1u);
      EXPECT_EQ(hits[0].distance, 0.0f);
    }
  }
}

// TIMEOUT: a range search whose deadline has passed stops early (FLAT every 1024
// vectors, HNSW every 32 expanded nodes) and returns what it found; a deadline in the
// future changes nothing.
TEST(VectorFieldRangeTest, DeadlineStopsTheSearch) {
  const DataSet ds = MakeData(3000, 1, 8, 7);
  for (VectorAlgo algo : {VectorAlgo::kFlat, VectorAlgo::kHnsw}) {
    VectorField f(Opts(algo, VectorMetric::kL2, ds.dim));
    Fill(f, ds);
    const std::string q = F32(ds.queries[0]);
    const size_t all = f.Range(q, 1e30, 1000.0, nullptr).size();
    EXPECT_GE(all, ds.vecs.size() * 0.9);
    Deadline passed;
    passed.at_ns = 1;
    const size_t cut = f.Range(q, 1e30, 1000.0, nullptr, &passed).size();
    EXPECT_LT(cut, all / 2) << static_cast<int>(algo);
    const Deadline later = Deadline::AfterMs(100000);
    EXPECT_EQ(f.Range(q, 1e30, 1000.0, nullptr, &later).size(), all);
  }
}

}  // namespace
}  // namespace hotkv::search

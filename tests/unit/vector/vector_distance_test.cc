// Distance kernels (every SIMD variant against scalar) and vector encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "vector/distance.h"
#include "vector/vector_space.h"

namespace hotkv::vector {
namespace {

const size_t kDims[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
                        300, 784, 1000, 1536};

std::vector<float> RandomFloats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    x = u(rng);
  }
  return v;
}

TEST(VectorDistanceTest, DetectsAvx512OnThisMachine) {
  // Informational: the suite runs every level the CPU supports.
  std::vector<SimdLevel> levels = SupportedLevels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), SimdLevel::kScalar);
  std::string names;
  for (SimdLevel l : levels) {
    names += std::string(SimdLevelName(l)) + " ";
  }
  RecordProperty("simd_levels", names);
  EXPECT_EQ(KernelsFor(DetectSimdLevel()).level, DetectSimdLevel());
}

TEST(VectorDistanceTest, FloatKernelsMatchScalar) {
  const DistanceKernels& scalar = KernelsFor(SimdLevel::kScalar);
  std::mt19937 rng(7);
  for (SimdLevel level : SupportedLevels()) {
    const DistanceKernels& k = KernelsFor(level);
    for (size_t dim : kDims) {
      for (int rep = 0; rep < 5; ++rep) {
        std::vector<float> a = RandomFloats(dim, rng);
        std::vector<float> b = RandomFloats(dim, rng);
        // Reference in double precision; float sums may differ in the last bits.
        double l2 = 0.0;
        double dot = 0.0;
        for (size_t i = 0; i < dim; ++i) {
          double d = static_cast<double>(a[i]) - b[i];
          l2 += d * d;
          dot += static_cast<double>(a[i]) * b[i];
        }
        const double tol = 1e-4 * (1.0 + std::sqrt(static_cast<double>(dim)));
        EXPECT_NEAR(k.l2_f32(a.data(), b.data(), dim), l2, tol * (1.0 + l2 / dim))
            << SimdLevelName(level) << " dim=" << dim;
        EXPECT_NEAR(k.dot_f32(a.data(), b.data(), dim), dot, tol * 4.0)
            << SimdLevelName(level) << " dim=" << dim;
        EXPECT_NEAR(k.l2_f32(a.data(), b.data(), dim), scalar.l2_f32(a.data(), b.data(), dim),
                    tol * (1.0 + l2 / dim));
      }
    }
  }
}

TEST(VectorDistanceTest, Int8AndHammingKernelsMatchScalarExactly) {
  const DistanceKernels& scalar = KernelsFor(SimdLevel::kScalar);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(-127, 127);
  for (SimdLevel level : SupportedLevels()) {
    const DistanceKernels& k = KernelsFor(level);
    for (size_t dim : kDims) {
      std::vector<int8_t> a(dim);
      std::vector<int8_t> b(dim);
      for (size_t i = 0; i < dim; ++i) {
        a[i] = static_cast<int8_t>(byte(rng));
        b[i] = static_cast<int8_t>(byte(rng));
      }
      // Extremes too: -127 * -127 summed over 1536 lanes must not overflow.
      if (dim > 2) {
        a[0] = b[0] = -127;
        a[dim - 1] = b[dim - 1] = 127;
      }
      EXPECT_EQ(k.dot_i8(a.data(), b.data(), dim), scalar.dot_i8(a.data(), b.data(), dim))
          << SimdLevelName(level) << " dim=" << dim;

      const size_t words = (dim + 63) / 64;
      std::vector<uint64_t> x(words);
      std::vector<uint64_t> y(words);
      for (size_t i = 0; i < words; ++i) {
        x[i] = (uint64_t{rng()} << 32) | rng();
        y[i] = (uint64_t{rng()} << 32) | rng();
      }
      EXPECT_EQ(k.hamming(x.data(), y.data(), words), scalar.hamming(x.data(), y.data(), words))
          << SimdLevelName(level) << " words=" << words;
    }
  }
}

TEST(VectorDistanceTest, UnalignedInputs) {
  // Kernels use unaligned loads; feed them odd offsets.
  std::mt19937 rng(3);
  std::vector<float> buf_a = RandomFloats(801, rng);
  std::vector<float> buf_b = RandomFloats(801, rng);
  const DistanceKernels& scalar = KernelsFor(SimdLevel::kScalar);
  for (SimdLevel level : SupportedLevels()) {
    const DistanceKernels& k = KernelsFor(level);
    for (size_t off = 0; off < 4; ++off) {
      float got = k.dot_f32(buf_a.data() + off, buf_b.data() + 1, 784);
      float want = scalar.dot_f32(buf_a.data() + off, buf_b.data() + 1, 784);
      EXPECT_NEAR(got, want, 1e-2);
    }
  }
}

// ------------------------------------------------------------- VectorSpace

TEST(VectorSpaceTest, ValidateRejectsBadCombinations) {
  EXPECT_FALSE(VectorSpace::Validate(0, Metric::kCosine, Quantization::kFloat32).ok());
  EXPECT_FALSE(VectorSpace::Validate(100000, Metric::kCosine, Quantization::kFloat32).ok());
  EXPECT_FALSE(VectorSpace::Validate(8, Metric::kL2, Quantization::kBinary).ok());
  EXPECT_TRUE(VectorSpace::Validate(8, Metric::kCosine, Quantization::kBinary).ok());
  EXPECT_TRUE(VectorSpace::Validate(8, Metric::kL2, Quantization::kQ8).ok());
}

TEST(VectorSpaceTest, CheckInputRejectsWrongDimensionAndNonFinite) {
  VectorSpace space(4, Metric::kL2, Quantization::kFloat32);
  std::vector<float> ok = {1, 2, 3, 4};
  EXPECT_TRUE(space.CheckInput(ok).ok());
  std::vector<float> short_vec = {1, 2, 3};
  EXPECT_FALSE(space.CheckInput(short_vec).ok());
  std::vector<float> nan = {1, NAN, 3, 4};
  EXPECT_FALSE(space.CheckInput(nan).ok());
  std::vector<float> inf = {1, 2, INFINITY, 4};
  EXPECT_FALSE(space.CheckInput(inf).ok());
}

double Reference(Metric m, const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0;
  double na = 0;
  double nb = 0;
  double l2 = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double{a[i]} * b[i];
    na += double{a[i]} * a[i];
    nb += double{b[i]} * b[i];
    l2 += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  }
  if (m == Metric::kL2) {
    return l2;
  }
  if (m == Metric::kInnerProduct) {
    return 1.0 - dot;
  }
  return 1.0 - dot / std::sqrt(na * nb);
}

TEST(VectorSpaceTest, DistancesMatchDefinitions) {
  std::mt19937 rng(5);
  for (Metric m : {Metric::kCosine, Metric::kL2, Metric::kInnerProduct}) {
    for (size_t dim : {3u, 17u, 128u}) {
      VectorSpace f32(static_cast<uint32_t>(dim), m, Quantization::kFloat32);
      VectorSpace q8(static_cast<uint32_t>(dim), m, Quantization::kQ8);
      std::vector<float> a = RandomFloats(dim, rng);
      std::vector<float> b = RandomFloats(dim, rng);
      std::vector<uint8_t> ra(f32.record_bytes());
      std::vector<uint8_t> rb(f32.record_bytes());
      f32.Encode(a, ra.data());
      f32.Encode(b, rb.data());
      const double want = Reference(m, a, b);
      EXPECT_NEAR(f32.Distance(ra.data(), rb.data()), want, 1e-3 * (1 + std::fabs(want)));

      std::vector<uint8_t> qa(q8.record_bytes());
      std::vector<uint8_t> qb(q8.record_bytes());
      q8.Encode(a, qa.data());
      q8.Encode(b, qb.data());
      // 8-bit codes: error grows with magnitude; generous bound.
      EXPECT_NEAR(q8.Distance(qa.data(), qb.data()), want, 0.03 * (1 + std::fabs(want)))
          << MetricName(m) << " dim=" << dim;
    }
  }
}

TEST(VectorSpaceTest, Q8RoundTripAndDenormalisation) {
  VectorSpace q8(5, Metric::kCosine, Quantization::kQ8);
  std::vector<float> v = {3.0f, -4.0f, 0.0f, 1.0f, 2.0f};
  std::vector<uint8_t> rec(q8.record_bytes());
  const float norm = q8.Encode(v, rec.data());
  EXPECT_NEAR(norm, std::sqrt(30.0f), 1e-5);
  std::vector<float> back = q8.Decode(rec.data(), norm);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(back[i], v[i], 0.03f);
  }
}

TEST(VectorSpaceTest, BinaryIsSignBitsAndHammingBased) {
  VectorSpace bin(70, Metric::kCosine, Quantization::kBinary);
  EXPECT_EQ(bin.record_bytes(), 16u);
  std::vector<float> a(70, 1.0f);
  std::vector<float> b(70, 1.0f);
  for (int i = 0; i < 7; ++i) {
    b[static_cast<size_t>(i * 10)] = -1.0f;
  }
  std::vector<uint8_t> ra(bin.record_bytes());
  std::vector<uint8_t> rb(bin.record_bytes());
  bin.Encode(a, ra.data());
  bin.Encode(b, rb.data());
  EXPECT_FLOAT_EQ(bin.Distance(ra.data(), ra.data()), 0.0f);
  EXPECT_FLOAT_EQ(bin.Distance(ra.data(), rb.data()), 2.0f * 7.0f / 70.0f);
  std::vector<float> back = bin.Decode(rb.data(), 1.0f);
  EXPECT_LT(back[0], 0.0f);
  EXPECT_GT(back[1], 0.0f);
}

TEST(VectorSpaceTest, ZeroVectorIsAcceptedForCosine) {
  VectorSpace f32(4, Metric::kCosine, Quantization::kFloat32);
  std::vector<float> zero(4, 0.0f);
  std::vector<uint8_t> rec(f32.record_bytes());
  EXPECT_EQ(f32.Encode(zero, rec.data()), 0.0f);
  EXPECT_FLOAT_EQ(f32.Distance(rec.data(), rec.data()), 1.0f);
}

TEST(VectorSpaceTest, SimilarityConversionsRoundTrip) {
  for (Metric m : {Metric::kCosine, Metric::kL2, Metric::kInnerProduct}) {
    for (double d : {0.0, 0.3, 1.0, 1.7}) {
      double s = SimilarityFromDistance(m, d);
      EXPECT_NEAR(DistanceFromSimilarity(m, s), d, 1e-9);
    }
  }
  EXPECT_DOUBLE_EQ(SimilarityFromDistance(Metric::kCosine, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(SimilarityFromDistance(Metric::kCosine, 2.0), 0.0);
}

}  // namespace
}  // namespace hotkv::vector

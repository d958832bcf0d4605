// Distance kernels for the vector engine: float32 (squared L2, dot product), symmetric
// int8 dot product (Q8 storage) and Hamming distance over sign bits (binary storage).
//
// Every kernel exists in three variants — portable scalar, AVX2(+FMA) and AVX-512 —
// compiled with per-function `target` attributes, so the library needs no global -m
// flags. The best variant the CPU (and OS) supports is chosen once at run time with
// __builtin_cpu_supports; the environment variable HOTKV_VECTOR_SIMD=scalar|avx2|avx512
// caps the level (for benchmarking and tests).
//
//   const DistanceKernels& k = BestKernels();
//   float d = k.l2_f32(a, b, dim);
//
// Thread safety: all functions are pure and thread-safe. The kernel tables are
// immutable after static initialisation.
#ifndef HOTKV_VECTOR_DISTANCE_H_
#define HOTKV_VECTOR_DISTANCE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hotkv::vector {

enum class SimdLevel { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

const char* SimdLevelName(SimdLevel level);

// A set of kernels of one SIMD level. Lengths are element counts (floats, int8
// values) except `hamming`, which takes a count of 64-bit words.
struct DistanceKernels {
  SimdLevel level;
  // Sum of squared differences.
  float (*l2_f32)(const float* a, const float* b, size_t n);
  // Sum of products.
  float (*dot_f32)(const float* a, const float* b, size_t n);
  // Sum of products of signed 8-bit values, exact in int32 for n < 2^17.
  int32_t (*dot_i8)(const int8_t* a, const int8_t* b, size_t n);
  // Number of differing bits.
  uint32_t (*hamming)(const uint64_t* a, const uint64_t* b, size_t words);
};

// The highest level this CPU supports (ignoring HOTKV_VECTOR_SIMD).
SimdLevel DetectSimdLevel();

// Kernels of the given level. A level the CPU does not support must not be called;
// SupportedLevels() lists the ones that may be.
const DistanceKernels& KernelsFor(SimdLevel level);

// Levels usable on this CPU, lowest first (always includes kScalar).
std::vector<SimdLevel> SupportedLevels();

// The kernels used by the engine: the best supported level, capped by
// HOTKV_VECTOR_SIMD when set.
const DistanceKernels& BestKernels();

namespace internal {
// Per-level tables, defined in distance.cc (scalar) and distance_x86.cc.
extern const DistanceKernels kScalarKernels;
extern const DistanceKernels kAvx2Kernels;
extern const DistanceKernels kAvx512Kernels;
// Hamming over 64-bit words needs AVX512_VPOPCNTDQ for the AVX-512 variant; CPUs with
// AVX-512F but without it use this table (AVX-512 float/int8, AVX2 popcount).
extern const DistanceKernels kAvx512NoPopcntKernels;
}  // namespace internal

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_DISTANCE_H_

// Run-time selection of distance kernels, and the portable scalar variants.
#include "vector/distance.h"

#include <cstdlib>
#include <cstring>

namespace hotkv::vector {
namespace {

float L2F32Scalar(const float* a, const float* b, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  return sum;
}

float DotF32Scalar(const float* a, const float* b, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}

int32_t DotI8Scalar(const int8_t* a, const int8_t* b, size_t n) {
  int32_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  }
  return sum;
}

uint32_t HammingScalar(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t sum = 0;
  for (size_t i = 0; i < words; ++i) {
    sum += static_cast<uint32_t>(__builtin_popcountll(a[i] ^ b[i]));
  }
  return sum;
}

bool CpuHasAvx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("popcnt");
}

bool CpuHasAvx512() {
  return CpuHasAvx2() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

bool CpuHasAvx512Popcnt() { return __builtin_cpu_supports("avx512vpopcntdq"); }

SimdLevel CappedLevel() {
  SimdLevel level = DetectSimdLevel();
  const char* env = std::getenv("HOTKV_VECTOR_SIMD");
  if (env == nullptr) {
    return level;
  }
  SimdLevel cap = level;
  if (std::strcmp(env, "scalar") == 0) {
    cap = SimdLevel::kScalar;
  } else if (std::strcmp(env, "avx2") == 0) {
    cap = SimdLevel::kAvx2;
  }
  return static_cast<int>(cap) < static_cast<int>(level) ? cap : level;
}

}  // namespace

namespace internal {
const DistanceKernels kScalarKernels = {SimdLevel::kScalar, L2F32Scalar, DotF32Scalar,
                                        DotI8Scalar, HammingScalar};
}  // namespace internal

const char* SimdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return "scalar";
    case SimdLevel::kAvx2:
      return "avx2";
    case SimdLevel::kAvx512:
      return "avx512";
  }
  return "unknown";
}

SimdLevel DetectSimdLevel() {
  __builtin_cpu_init();
  if (CpuHasAvx512()) {
    return SimdLevel::kAvx512;
  }
  if (CpuHasAvx2()) {
    return SimdLevel::kAvx2;
  }
  return SimdLevel::kScalar;
}

const DistanceKernels& KernelsFor(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512:
      return CpuHasAvx512Popcnt() ? internal::kAvx512Kernels
                                  : internal::kAvx512NoPopcntKernels;
    case SimdLevel::kAvx2:
      return internal::kAvx2Kernels;
    case SimdLevel::kScalar:
      break;
  }
  return internal::kScalarKernels;
}

std::vector<SimdLevel> SupportedLevels() {
  std::vector<SimdLevel> levels = {SimdLevel::kScalar};
  SimdLevel best = DetectSimdLevel();
  if (static_cast<int>(best) >= static_cast<int>(SimdLevel::kAvx2)) {
    levels.push_back(SimdLevel::kAvx2);
  }
  if (best == SimdLevel::kAvx512) {
    levels.push_back(SimdLevel::kAvx512);
  }
  return levels;
}

const DistanceKernels& BestKernels() {
  static const DistanceKernels& kernels = KernelsFor(CappedLevel());
  return kernels;
}

}  // namespace hotkv::vector

// AVX2(+FMA) and AVX-512 distance kernels. Each function carries its own `target`
// attribute; nothing here runs unless distance.cc found the CPU features.
// GCC 12's AVX-512 headers build several intrinsics from an "undefined" register and
// then warn about it at -O2 (-Wuninitialized); the warning is spurious.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "vector/distance.h"

namespace hotkv::vector {
namespace {

#define HOTKV_AVX2 __attribute__((target("avx2,fma,popcnt")))
#define HOTKV_AVX512 __attribute__((target("avx2,fma,popcnt,avx512f,avx512bw,avx512vl")))
#define HOTKV_AVX512_POPCNT \
  __attribute__((target("avx2,fma,popcnt,avx512f,avx512bw,avx512vl,avx512vpopcntdq")))

// ---------------------------------------------------------------- AVX2 + FMA

HOTKV_AVX2 inline float HorizontalSum256(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v);
  __m128 hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  __m128 shuf = _mm_movehdup_ps(lo);
  __m128 sums = _mm_add_ps(lo, shuf);
  shuf = _mm_movehl_ps(shuf, sums);
  sums = _mm_add_ss(sums, shuf);
  return _mm_cvtss_f32(sums);
}

HOTKV_AVX2 inline int32_t HorizontalSum256i(__m256i v) {
  __m128i lo = _mm256_castsi256_si128(v);
  __m128i hi = _mm256_extracti128_si256(v, 1);
  lo = _mm_add_epi32(lo, hi);
  lo = _mm_add_epi32(lo, _mm_shuffle_epi32(lo, 0x4e));
  lo = _mm_add_epi32(lo, _mm_shuffle_epi32(lo, 0xb1));
  return _mm_cvtsi128_si32(lo);
}

HOTKV_AVX2 float L2F32Avx2(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps();
  __m256 acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    acc0 = _mm256_fmadd_ps(d0, d0, acc0);
    acc1 = _mm256_fmadd_ps(d1, d1, acc1);
    acc2 = _mm256_fmadd_ps(d2, d2, acc2);
    acc3 = _mm256_fmadd_ps(d3, d3, acc3);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    acc0 = _mm256_fmadd_ps(d, d, acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  for (; i < n; ++i) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  return sum;
}

HOTKV_AVX2 float DotF32Avx2(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps();
  __m256 acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
    acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), acc2);
    acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), acc3);
  }
  for (; i + 8 <= n; i += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
  }
  float sum = HorizontalSum256(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
  for (; i < n; ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}

HOTKV_AVX2 int32_t DotI8Avx2(const int8_t* a, const int8_t* b, size_t n) {
  __m256i acc0 = _mm256_setzero_si256();
  __m256i acc1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    __m256i a1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 16)));
    __m256i b1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16)));
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, b0));
    acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(a1, b1));
  }
  for (; i + 16 <= n; i += 16) {
    __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, b0));
  }
  int32_t sum = HorizontalSum256i(_mm256_add_epi32(acc0, acc1));
  for (; i < n; ++i) {
    sum += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  }
  return sum;
}

HOTKV_AVX2 uint32_t HammingAvx2(const uint64_t* a, const uint64_t* b, size_t words) {
  // Four independent popcount chains; the scalar popcnt instruction does 64 bits per
  // cycle, which beats a pshufb nibble table for the word counts used here.
  uint64_t c0 = 0;
  uint64_t c1 = 0;
  uint64_t c2 = 0;
  uint64_t c3 = 0;
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    c0 += static_cast<uint64_t>(_mm_popcnt_u64(a[i] ^ b[i]));
    c1 += static_cast<uint64_t>(_mm_popcnt_u64(a[i + 1] ^ b[i + 1]));
    c2 += static_cast<uint64_t>(_mm_popcnt_u64(a[i + 2] ^ b[i + 2]));
    c3 += static_cast<uint64_t>(_mm_popcnt_u64(a[i + 3] ^ b[i + 3]));
  }
  for (; i < words; ++i) {
    c0 += static_cast<uint64_t>(_mm_popcnt_u64(a[i] ^ b[i]));
  }
  return static_cast<uint32_t>(c0 + c1 + c2 + c3);
}

// ---------------------------------------------------------------- AVX-512

HOTKV_AVX512 inline float HorizontalSum512(__m512 v) {
  __m512 folded = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
  return HorizontalSum256(_mm512_castps512_ps256(folded));
}

HOTKV_AVX512 inline int32_t HorizontalSum512i(__m512i v) {
  __m512i folded = _mm512_add_epi32(v, _mm512_shuffle_i32x4(v, v, 0x4e));
  return HorizontalSum256i(_mm512_castsi512_si256(folded));
}

HOTKV_AVX512 inline uint64_t HorizontalSum512u64(__m512i v) {
  __m512i folded = _mm512_add_epi64(v, _mm512_shuffle_i64x2(v, v, 0x4e));
  __m256i half = _mm512_castsi512_si256(folded);
  __m128i q = _mm_add_epi64(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(q)) +
         static_cast<uint64_t>(_mm_extract_epi64(q, 1));
}

HOTKV_AVX512 float L2F32Avx512(const float* a, const float* b, size_t n) {
  __m512 acc0 = _mm512_setzero_ps();
  __m512 acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps();
  __m512 acc3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32));
    __m512 d3 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48));
    acc0 = _mm512_fmadd_ps(d0, d0, acc0);
    acc1 = _mm512_fmadd_ps(d1, d1, acc1);
    acc2 = _mm512_fmadd_ps(d2, d2, acc2);
    acc3 = _mm512_fmadd_ps(d3, d3, acc3);
  }
  for (; i + 16 <= n; i += 16) {
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    acc0 = _mm512_fmadd_ps(d, d, acc0);
  }
  if (i < n) {
    __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, a + i), _mm512_maskz_loadu_ps(mask, b + i));
    acc1 = _mm512_fmadd_ps(d, d, acc1);
  }
  return HorizontalSum512(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

HOTKV_AVX512 float DotF32Avx512(const float* a, const float* b, size_t n) {
  __m512 acc0 = _mm512_setzero_ps();
  __m512 acc1 = _mm512_setzero_ps();
  __m512 acc2 = _mm512_setzero_ps();
  __m512 acc3 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
    acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), acc2);
    acc3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), acc3);
  }
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
  }
  if (i < n) {
    __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + i), _mm512_maskz_loadu_ps(mask, b + i),
                           acc1);
  }
  return HorizontalSum512(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}

HOTKV_AVX512 int32_t DotI8Avx512(const int8_t* a, const int8_t* b, size_t n) {
  __m512i acc0 = _mm512_setzero_si512();
  __m512i acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i a0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    __m512i b0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    __m512i a1 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 32)));
    __m512i b1 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i + 32)));
    acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(a0, b0));
    acc1 = _mm512_add_epi32(acc1, _mm512_madd_epi16(a1, b1));
  }
  for (; i + 32 <= n; i += 32) {
    __m512i a0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    __m512i b0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    acc0 = _mm512_add_epi32(acc0, _mm512_madd_epi16(a0, b0));
  }
  if (i < n) {
    __mmask32 mask = static_cast<__mmask32>((uint64_t{1} << (n - i)) - 1);
    __m512i a0 = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mask, a + i));
    __m512i b0 = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mask, b + i));
    acc1 = _mm512_add_epi32(acc1, _mm512_madd_epi16(a0, b0));
  }
  return HorizontalSum512i(_mm512_add_epi32(acc0, acc1));
}

HOTKV_AVX512_POPCNT uint32_t HammingAvx512(const uint64_t* a, const uint64_t* b, size_t words) {
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 8 <= words; i += 8) {
    __m512i x = _mm512_xor_si512(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i));
    acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
  }
  if (i < words) {
    __mmask8 mask = static_cast<__mmask8>((1u << (words - i)) - 1);
    __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi64(mask, a + i),
                                 _mm512_maskz_loadu_epi64(mask, b + i));
    acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(x));
  }
  return static_cast<uint32_t>(HorizontalSum512u64(acc));
}

}  // namespace

namespace internal {
const DistanceKernels kAvx2Kernels = {SimdLevel::kAvx2, L2F32Avx2, DotF32Avx2, DotI8Avx2,
                                      HammingAvx2};
const DistanceKernels kAvx512Kernels = {SimdLevel::kAvx512, L2F32Avx512, DotF32Avx512,
                                        DotI8Avx512, HammingAvx512};
const DistanceKernels kAvx512NoPopcntKernels = {SimdLevel::kAvx512, L2F32Avx512, DotF32Avx512,
                                                DotI8Avx512, HammingAvx2};
}  // namespace internal

}  // namespace hotkv::vector

// Micro: 16 MB popcount, unaligned vs aligned AVX-512 (thread CPU time).
#include <immintrin.h>
#include <sys/mman.h>
#include <time.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <algorithm>

static inline uint64_t Load64(const uint8_t* p) { uint64_t w; memcpy(&w, p, 8); return w; }
__attribute__((target("popcnt"))) uint64_t CountPopcnt(const uint8_t* p, size_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0; size_t i = 0;
  for (; i + 32 <= n; i += 32) { a += __builtin_popcountll(Load64(p + i)); b += __builtin_popcountll(Load64(p + i + 8)); c += __builtin_popcountll(Load64(p + i + 16)); d += __builtin_popcountll(Load64(p + i + 24)); }
  for (; i + 8 <= n; i += 8) a += __builtin_popcountll(Load64(p + i));
  for (; i < n; i++) b += __builtin_popcount(p[i]);
  return a + b + c + d;
}
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) uint64_t Old(const uint8_t* p, size_t n) {
  __m512i a = _mm512_set1_epi64(0), b = a, c = a, d = a; size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i)));
    b = _mm512_add_epi64(b, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 64)));
    c = _mm512_add_epi64(c, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 128)));
    d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 192)));
  }
  for (; i + 64 <= n; i += 64) a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i)));
  const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d));
  return _mm512_reduce_add_epi64(sum) + CountPopcnt(p + i, n - i);
}
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) uint64_t New(const uint8_t* p, size_t n) {
  size_t head = (64 - (reinterpret_cast<uintptr_t>(p) & 63)) & 63;
  if (head >= n) return CountPopcnt(p, n);
  uint64_t total = CountPopcnt(p, head);
  p += head; n -= head;
  __m512i a = _mm512_set1_epi64(0), b = a, c = a, d = a; size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_load_si512(p + i)));
    b = _mm512_add_epi64(b, _mm512_popcnt_epi64(_mm512_load_si512(p + i + 64)));
    c = _mm512_add_epi64(c, _mm512_popcnt_epi64(_mm512_load_si512(p + i + 128)));
    d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_load_si512(p + i + 192)));
  }
  for (; i + 64 <= n; i += 64) a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_load_si512(p + i)));
  const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d));
  return total + _mm512_reduce_add_epi64(sum) + CountPopcnt(p + i, n - i);
}
static double Now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
  size_t n = 16 << 20; int off = argc > 1 ? atoi(argv[1]) : 24; bool huge = argc > 2 && atoi(argv[2]);
  uint8_t* base = static_cast<uint8_t*>(aligned_alloc(1 << 21, n + 4096));
  if (huge) madvise(base, n + 4096, MADV_HUGEPAGE);
  std::mt19937_64 rng(1); for (size_t i = 0; i < n + 4096; i += 8) { uint64_t v = rng(); memcpy(base + i, &v, 8); }
  const uint8_t* p = base + off;
  uint64_t want = Old(p, n);
  for (int round = 0; round < 3; round++) {
    for (int which = 0; which < 2; which++) {
      std::vector<double> t;
      for (int k = 0; k < 200; k++) { double t0 = Now(); uint64_t c = which ? New(p, n) : Old(p, n); t.push_back(Now() - t0); if (c != want) { puts("MISMATCH"); return 1; } }
      std::sort(t.begin(), t.end());
      printf("%s off %d huge %d: median %.0f us, p10 %.0f us\n", which ? "aligned  " : "unaligned", off, huge, t[100] * 1e6, t[20] * 1e6);
    }
  }
}

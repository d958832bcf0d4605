#include <cmath>
#include <vector>
#include <cstdio>
#include <cstring>
#include <emmintrin.h>
__attribute__((noinline)) void PrepOld(std::vector<float>& v) {
  double sq = 0.0;
  for (float x : v) sq += static_cast<double>(x) * x;
  const float norm = static_cast<float>(std::sqrt(sq));
  if (norm > 0.0f && std::isfinite(norm)) for (float& x : v) x /= norm;
}
__attribute__((noinline)) void PrepNew(std::vector<float>& v) {
  float* p = v.data();
  const size_t n = v.size();
  double sq = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double a = p[i], b = p[i + 1], c = p[i + 2], d = p[i + 3];
    sq += a * a; sq += b * b; sq += c * c; sq += d * d;
  }
  for (; i < n; ++i) sq += static_cast<double>(p[i]) * p[i];
  const float norm = static_cast<float>(std::sqrt(sq));
  if (norm > 0.0f && std::isfinite(norm)) {
    i = 0;
    const __m128 dv = _mm_set1_ps(norm);
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(p + i, _mm_div_ps(_mm_loadu_ps(p + i), dv));
    for (; i < n; ++i) p[i] /= norm;
  }
}
int main(int argc, char** argv) {
  std::vector<float> a(784), b(784);
  unsigned s = 1;
  for (int t = 0; t < 20000; t++) {
    for (int i = 0; i < 785 - (t % 7); i++) { s = s * 1103515245 + 12345; float x = (s >> 8) % 256; if (i < 784) a[i] = b[i] = x * ((t % 3) ? 1.0f : 0.37f); }
    a.resize(784 - t % 7); b.resize(784 - t % 7);
    PrepOld(a); PrepNew(b);
    if (std::memcmp(a.data(), b.data(), a.size() * 4) != 0) { printf("DIFF at %d\n", t); return 1; }
    a.resize(784); b.resize(784);
  }
  printf("same\n");
  return 0;
}

#include <time.h>
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include "types/hyperloglog.h"
using namespace hotkv::types::hll;
static double Now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main() {
  std::string v = NewSparse();
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000000; i++) { std::string e = "e" + std::to_string(rng() >> 24); int r; (void)r; Add(&v, e, 3000); }
  const uint8_t* regs = reinterpret_cast<const uint8_t*>(v.data()) + kHeaderSize;
  int h1[64], h2[64];
  for (int round = 0; round < 3; round++) {
    for (int which = 0; which < 3; which++) {
      std::vector<double> t;
      for (int k = 0; k < 2000; k++) {
        double t0 = Now();
        if (which == 0) DenseHistogramPortable(regs, h1); else if (which == 1) DenseHistogramVbmi(regs, h2); else { InvalidateCache(v.data()); (void)Count(v); }
        t.push_back(Now() - t0);
      }
      std::sort(t.begin(), t.end());
      printf("%s: median %.2f us p10 %.2f us\n", which == 0 ? "portable" : which == 1 ? "vbmi    " : "Count   ", t[1000] * 1e6, t[200] * 1e6);
    }
  }
  printf("equal %d\n", std::equal(h1, h1 + 64, h2));
}

// Time to fill a StringTable the way SADD/HSET of redis-benchmark's "element:__rand_int__"
// do (random members, 167k inserts, ~8 % repeats), growing from empty: the rehashes
// included. Best of REPS runs, ns per insert.  st_bench [N] [REPS]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "types/string_table.h"
using namespace hotkv::types;
int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 167000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
  std::vector<std::string> keys;
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    keys.push_back("element:" + std::to_string(x % 1000000));
  }
  const std::string value(256, 'x');
  for (int with_values = 0; with_values < 2; with_values++) {
    double best = 1e18, best_rehash = 0;
    for (int r = 0; r < reps; r++) {
      StringTable t(with_values != 0);
      timespec a, b; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
      for (const std::string& k : keys) {
        if (with_values) t.Set(k, value); else t.Insert(k);
      }
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b); double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
      if (ns < best) best = ns;
    }
    std::printf("%s: %zu inserts, best of %d: %.1f ns/insert (thread CPU time)\n", with_values ? "hash (256 B values)" : "set", n, reps, best);
  }
}

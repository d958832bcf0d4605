// The LFU counter's logarithmic increment (every read of a key under allkeys-lfu /
// volatile-lfu, and OBJECT FREQ's counter), on one and on two threads at once.
//
//   ninja -C build/bench lfu_bench && build/bench/bench/lfu_bench
//
// BM_LfuIncrement_ThreadRng is the server's path (engine/eviction.h LfuLogIncrement with
// the calling thread's Rng). BM_LfuIncrement_GlibcRandom is the same arithmetic with
// glibc's random(), which the server used before: random() takes a process-wide lock,
// so two workers reading keys at once contend on it. Compare the /threads:2 rows.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>

#include "common/random.h"
#include "engine/eviction.h"

namespace hotkv {
namespace {

// The counters of a small key population, per thread (each thread "reads" its keys).
constexpr int kKeys = 1024;

void BM_LfuIncrement_ThreadRng(benchmark::State& state) {
  uint8_t counters[kKeys] = {};
  Rng& rng = ThreadRng();
  int i = 0;
  for (auto _ : state) {
    counters[i] = LfuLogIncrement(counters[i], 10, rng);
    i = (i + 1) & (kKeys - 1);
  }
  benchmark::DoNotOptimize(counters);
}
BENCHMARK(BM_LfuIncrement_ThreadRng)->Threads(1)->Threads(2)->UseRealTime();

// The increment as the server computed it before (Redis's LFULogIncr with random()).
uint8_t LfuIncrementWithGlibcRandom(uint8_t counter, int64_t log_factor) {
  if (counter == 255) {
    return counter;
  }
  const double r = static_cast<double>(random()) / RAND_MAX;
  const double base = counter > 5 ? counter - 5 : 0;
  const double p = 1.0 / (base * static_cast<double>(log_factor) + 1);
  return r < p ? static_cast<uint8_t>(counter + 1) : counter;
}

void BM_LfuIncrement_GlibcRandom(benchmark::State& state) {
  uint8_t counters[kKeys] = {};
  int i = 0;
  for (auto _ : state) {
    counters[i] = LfuIncrementWithGlibcRandom(counters[i], 10);
    i = (i + 1) & (kKeys - 1);
  }
  benchmark::DoNotOptimize(counters);
}
BENCHMARK(BM_LfuIncrement_GlibcRandom)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace hotkv

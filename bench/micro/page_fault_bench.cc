// What a fresh page of memory costs on this machine, three ways (why prefault-memory
// exists and why hugepages is off by default; bench/notes/2026-11-30-page-faults-hugepages.md):
//   BM_TouchFreshPages      one write per 4 KB page of a fresh mapping: a fault per page
//   BM_PopulateThenTouch    MADV_POPULATE_WRITE on the range first (what the prefault
//                           thread does), then the same writes
//   BM_TouchHugePageRegion  the mapping madvise(MADV_HUGEPAGE)d first (hugepages yes)
// Time is per 4 KB page, CPU of this thread (user + kernel) included. The mapping is
// created and removed outside the timed region.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstddef>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

constexpr size_t kBytes = size_t{64} << 20;
constexpr size_t kPage = 4096;

enum class Mode { kTouch, kPopulate, kHuge };

void Run(benchmark::State& state, Mode mode) {
  for (auto _ : state) {
    state.PauseTiming();
    auto* p = static_cast<char*>(
        mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    if (mode == Mode::kHuge) {
      madvise(p, kBytes, MADV_HUGEPAGE);
    }
    state.ResumeTiming();
    if (mode == Mode::kPopulate && madvise(p, kBytes, MADV_POPULATE_WRITE) != 0) {
      state.SkipWithError("MADV_POPULATE_WRITE unsupported");
    }
    for (size_t off = 0; off < kBytes; off += kPage) {
      p[off] = 1;
    }
    benchmark::ClobberMemory();
    state.PauseTiming();
    munmap(p, kBytes);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * (kBytes / kPage)));
  state.counters["time_per_page"] = benchmark::Counter(
      static_cast<double>(state.iterations() * (kBytes / kPage)),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TouchFreshPages(benchmark::State& state) { Run(state, Mode::kTouch); }
void BM_PopulateThenTouch(benchmark::State& state) { Run(state, Mode::kPopulate); }
void BM_TouchHugePageRegion(benchmark::State& state) { Run(state, Mode::kHuge); }

BENCHMARK(BM_TouchFreshPages)->Iterations(8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PopulateThenTouch)->Iterations(8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TouchHugePageRegion)->Iterations(8)->Unit(benchmark::kMillisecond);

}  // namespace

// Micro-benchmarks of ZSetValue: ZADD (insert and update), ZSCORE, ZRANK, ZRANGEBYSCORE
// and ZRANGE by rank, at listpack (<= 128) and skiplist sizes.
//
//   build/dev/bench/zset_bench --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "types/zset.h"

namespace hotkv::types {
namespace {

const std::vector<std::string>& Members() {
  static const std::vector<std::string> members = [] {
    std::vector<std::string> v;
    v.reserve(1000000);
    for (int i = 0; i < 1000000; ++i) {
      v.push_back("member:" + std::to_string(i));
    }
    return v;
  }();
  return members;
}

ZSetValue Filled(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> score(0, 1e6);
  ZSetValue z;
  for (size_t i = 0; i < n; ++i) {
    z.Add(Members()[i], score(rng));
  }
  return z;
}

// Builds a zset of N members from empty: cost per ZADD of a new member.
void BM_ZAddNew(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const auto& members = Members();
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> score(0, 1e6);
  for (auto _ : state) {
    ZSetValue z;
    for (size_t i = 0; i < n; ++i) {
      z.Add(members[i], score(rng));
    }
    benchmark::DoNotOptimize(z.Size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_ZAddNew)->Arg(16)->Arg(128)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

// ZADD of an existing member with a new random score (moves it).
void BM_ZAddUpdate(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(2);
  ZSetValue z = Filled(n, rng);
  std::uniform_real_distribution<double> score(0, 1e6);
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.Add(Members()[rng() % n], score(rng)));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZAddUpdate)->Arg(128)->Arg(10000)->Arg(1000000);

// ZINCRBY by a small amount: usually stays in place.
void BM_ZIncrSmall(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(3);
  ZSetValue z = Filled(n, rng);
  ZAddFlags incr;
  incr.incr = true;
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.Add(Members()[rng() % n], 1e-6, incr));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZIncrSmall)->Arg(128)->Arg(1000000);

void BM_ZScore(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(4);
  const ZSetValue z = Filled(n, rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.Score(Members()[rng() % n]));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZScore)->Arg(16)->Arg(128)->Arg(10000)->Arg(1000000);

void BM_ZRank(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(5);
  const ZSetValue z = Filled(n, rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(z.Rank(Members()[rng() % n]));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZRank)->Arg(128)->Arg(10000)->Arg(1000000);

// ZRANGEBYSCORE key <random> +inf LIMIT 0 10: resolve the span, visit 10 elements.
void BM_ZRangeByScore10(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(6);
  const ZSetValue z = Filled(n, rng);
  std::uniform_real_distribution<double> score(0, 1e6);
  size_t bytes = 0;
  for (auto _ : state) {
    const ZScoreRange range{score(rng), 2e6, false, false};
    const ZRankSpan span = z.ScoreSpan(range, /*reverse=*/false, ZLimit{0, 10});
    z.Visit(span, [&](std::string_view m, double s) { bytes += m.size(); });
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZRangeByScore10)->Arg(128)->Arg(10000)->Arg(1000000);

// ZCOUNT over a random window: two O(log n) descents, nothing visited.
void BM_ZCount(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(7);
  const ZSetValue z = Filled(n, rng);
  std::uniform_real_distribution<double> score(0, 1e6);
  for (auto _ : state) {
    const double lo = score(rng);
    benchmark::DoNotOptimize(z.CountInScoreRange({lo, lo + 1e5, false, false}));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZCount)->Arg(128)->Arg(1000000);

// ZRANGE key r r+9: 10 elements from a random rank.
void BM_ZRangeByRank10(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(8);
  const ZSetValue z = Filled(n, rng);
  size_t bytes = 0;
  for (auto _ : state) {
    const auto start = static_cast<int64_t>(rng() % n);
    z.Visit(z.RankSpan(start, start + 9), [&](std::string_view m, double) { bytes += m.size(); });
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ZRangeByRank10)->Arg(128)->Arg(1000000);

}  // namespace
}  // namespace hotkv::types

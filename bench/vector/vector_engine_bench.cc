// In-process benchmark of HotKV's vector engine against hnswlib (same data, same
// M / ef_construction / seed): build rate, recall@10 and single-thread queries/s per
// ef, bytes per vector, 2-thread build. Prints a Markdown report to stdout.
//
//   vector_engine_bench --dataset=fashion
//   vector_engine_bench --dataset=synthetic --n=100000 --dim=128 --queries=1000
//
// Flags: --dataset=fashion|synthetic  --fashion-dir=DIR  --metric=cosine (fashion:
//        unit-normalised, cosine ground truth)  --n --dim --queries --clusters
//        --noise (synthetic spread, default 3)  --seed  --ef=40,80,150,300,500  --reps=3 (query runs per ef and index,
//        alternating order)  --build-reps=1  --threads=2  --m=16  --ef-construction=200
//        --data-dir=bench/vector/data (ground-truth cache)  --skip-hnswlib
//        --index-seed=100 (level generator seed of both indexes)
//        --recall-only (stop after the single-thread build and query lines on stderr)
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ann_index.h"
#include "bench_data.h"
#include "vector/distance.h"

namespace hotkv::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds used by the calling thread: robust to other processes competing for the
// (shared, 2-core) machine, unlike wall time.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

size_t HeapBytes() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

struct Flags {
  std::map<std::string, std::string> kv;
  std::string Get(const std::string& k, const std::string& def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  }
  size_t GetInt(const std::string& k, size_t def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stoull(it->second);
  }
  bool Has(const std::string& k) const { return kv.count(k) > 0; }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

struct BuildResult {
  std::vector<double> cpu_rates;   // vectors per CPU-second, per rep
  std::vector<double> wall_rates;  // vectors per wall-clock second, per rep
  size_t heap_bytes = 0;      // malloc growth (+ mapped chunks) during the (last) build
  size_t own_bytes = 0;       // the index's own accounting
  size_t unused_bytes = 0;    // of which reserved for elements not yet added
};

std::unique_ptr<AnnIndex> Make(const std::string& which, const AnnParams& p) {
  return which == "hotkv" ? MakeHotkvIndex(p) : MakeHnswlibIndex(p);
}

struct Rate {
  double wall = 0;  // items per wall-clock second
  double cpu = 0;   // items per CPU second (summed over the working threads)
};

// Runs work(begin, end) over [0, n) on `threads` threads; returns wall and CPU rates.
template <typename Fn>
Rate RunSplit(size_t n, int threads, Fn&& work) {
  std::atomic<size_t> next{0};
  std::vector<double> cpu(static_cast<size_t>(std::max(threads, 1)), 0.0);
  auto worker = [&](size_t t) {
    const double c0 = ThreadCpuSeconds();
    const size_t batch = 16;
    for (size_t b = next.fetch_add(batch); b < n; b = next.fetch_add(batch)) {
      work(b, std::min(n, b + batch));
    }
    cpu[t] = ThreadCpuSeconds() - c0;
  };
  auto t0 = Clock::now();
  if (threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back(worker, static_cast<size_t>(t));
    }
    for (auto& t : pool) {
      t.join();
    }
  }
  const double wall = Seconds(t0, Clock::now());
  double cpu_total = 0;
  for (double c : cpu) {
    cpu_total += c;
  }
  return {static_cast<double>(n) / wall, static_cast<double>(n) / cpu_total};
}

std::unique_ptr<AnnIndex> Build(const std::string& which, const AnnParams& p, const Dataset& ds,
                                int threads, Rate* rate, size_t* heap) {
  const size_t before = HeapBytes();
  auto index = Make(which, p);
  *rate = RunSplit(ds.n, threads, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      index->Add(i, ds.Base(i));
    }
  });
  // Plus the memory the index mapped itself (HotKV's node chunks), which malloc does not
  // see.
  *heap = HeapBytes() - before + index->MappedBytes();
  return index;
}

struct QueryResult {
  Rate qps;
  double recall = 0;
};

QueryResult RunQueries(AnnIndex& index, const Dataset& ds, const std::vector<int32_t>& gt,
                       size_t k, size_t ef, int threads) {
  index.SetEf(ef);
  std::vector<int32_t> got(ds.nq * k, -1);
  const Rate rate = RunSplit(ds.nq, threads, [&](size_t begin, size_t end) {
    for (size_t q = begin; q < end; ++q) {
      index.Search(ds.Query(q), k, &got[q * k]);
    }
  });
  size_t hits = 0;
  for (size_t q = 0; q < ds.nq; ++q) {
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = 0; j < k; ++j) {
        hits += got[q * k + i] == gt[q * k + j];
      }
    }
  }
  return {rate, static_cast<double>(hits) / static_cast<double>(ds.nq * k)};
}

// Queries/s at `target` recall, interpolated (recall linear, log QPS) between the
// measured ef points; NaN when the target is not reached.
double QpsAtRecall(const std::vector<std::pair<double, double>>& recall_qps, double target) {
  for (size_t i = 0; i < recall_qps.size(); ++i) {
    if (recall_qps[i].first >= target) {
      if (i == 0) {
        return recall_qps[0].second;
      }
      auto [r0, q0] = recall_qps[i - 1];
      auto [r1, q1] = recall_qps[i];
      double t = (target - r0) / (r1 - r0);
      return std::exp(std::log(q0) + t * (std::log(q1) - std::log(q0)));
    }
  }
  return NAN;
}

int Main(int argc, char** argv) {
  Flags flags;
  std::string command;
  for (int i = 0; i < argc; ++i) {
    command += (i ? " " : "") + std::string(argv[i]);
    if (i == 0) {
      continue;
    }
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      std::fprintf(stderr, "bad argument %s\n", a.c_str());
      return 2;
    }
    auto eq = a.find('=');
    flags.kv[a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "1" : a.substr(eq + 1);
  }
  const size_t k = 10;
  const int threads = static_cast<int>(flags.GetInt("threads", 2));
  const size_t reps = flags.GetInt("reps", 3);
  const size_t build_reps = flags.GetInt("build-reps", 1);
  const std::string data_dir = flags.Get("data-dir", "bench/vector/data");
  std::vector<size_t> efs;
  {
    std::string list = flags.Get("ef", "40,80,150,300,500");
    for (size_t pos = 0; pos < list.size();) {
      size_t comma = list.find(',', pos);
      efs.push_back(std::stoull(list.substr(pos, comma - pos)));
      pos = comma == std::string::npos ? list.size() : comma + 1;
    }
  }

  Dataset ds;
  if (flags.Get("dataset", "fashion") == "fashion") {
    auto loaded = LoadFashionMnist(flags.Get("fashion-dir", "/usr/share/datasets/fashion-mnist"),
                                   flags.GetInt("queries", 10000));
    if (!loaded) {
      return 1;
    }
    ds = std::move(*loaded);
    AdaptDataset(&ds, flags.GetInt("n", ds.n), flags.Get("metric", "l2") == "cosine");
  } else {
    ds = MakeEmbeddingLike(flags.GetInt("n", 100000), flags.GetInt("queries", 1000),
                           static_cast<uint32_t>(flags.GetInt("dim", 128)),
                           flags.GetInt("clusters", 1000), std::stod(flags.Get("noise", "3")),
                           flags.GetInt("seed", 1));
  }
  const std::vector<int32_t> gt = GroundTruth(ds, k, data_dir, threads);

  AnnParams params;
  params.dim = ds.dim;
  params.cosine = ds.cosine;
  params.max_elements = ds.n;
  params.m = static_cast<uint32_t>(flags.GetInt("m", 16));
  params.ef_construction = static_cast<uint32_t>(flags.GetInt("ef-construction", 200));
  params.seed = flags.GetInt("index-seed", 100);

  std::vector<std::string> libs = {"hotkv"};
  if (!flags.Has("skip-hnswlib")) {
    libs.push_back("hnswlib");
  }

  // Single-threaded builds (alternating order), keeping the last index of each.
  std::map<std::string, BuildResult> builds;
  std::map<std::string, std::unique_ptr<AnnIndex>> indexes;
  for (size_t r = 0; r < build_reps; ++r) {
    for (size_t li = 0; li < libs.size(); ++li) {
      const std::string& lib = libs[(li + r) % libs.size()];
      indexes.erase(lib);
      Rate rate;
      size_t heap = 0;
      auto index = Build(lib, params, ds, 1, &rate, &heap);
      builds[lib].cpu_rates.push_back(rate.cpu);
      builds[lib].wall_rates.push_back(rate.wall);
      builds[lib].heap_bytes = heap;
      builds[lib].own_bytes = index->MemoryBytes();
      builds[lib].unused_bytes = index->UnusedBytes();
      std::fprintf(stderr, "build %s: %.0f vectors/CPU-s, %.0f vectors/s wall\n", lib.c_str(),
                   rate.cpu, rate.wall);
      indexes[lib] = std::move(index);
    }
  }

  // Queries: for each ef, `reps` runs per index, alternating order.
  std::map<std::string, std::map<size_t, std::vector<QueryResult>>> runs;
  for (size_t ef : efs) {
    for (size_t r = 0; r < reps; ++r) {
      for (size_t li = 0; li < libs.size(); ++li) {
        const std::string& lib = libs[(li + r) % libs.size()];
        runs[lib][ef].push_back(RunQueries(*indexes[lib], ds, gt, k, ef, 1));
      }
    }
    for (const auto& lib : libs) {
      std::fprintf(stderr, "ef=%zu %s: recall %.4f, %.0f q/CPU-s, %.0f q/s wall\n", ef,
                   lib.c_str(), runs[lib][ef][0].recall, runs[lib][ef][0].qps.cpu,
                   runs[lib][ef][0].qps.wall);
    }
  }
  if (flags.Has("recall-only")) {
    return 0;  // the single-thread build and query lines above (stderr) are all it wanted
  }
  // Multi-threaded queries at one ef.
  const size_t mt_ef = std::find(efs.begin(), efs.end(), 150) != efs.end() ? 150 : efs.back();
  std::map<std::string, std::vector<double>> mt_qps;
  std::map<std::string, std::vector<double>> mt_qps_cpu;
  for (size_t r = 0; r < reps; ++r) {
    for (size_t li = 0; li < libs.size(); ++li) {
      const std::string& lib = libs[(li + r) % libs.size()];
      QueryResult q = RunQueries(*indexes[lib], ds, gt, k, mt_ef, threads);
      mt_qps[lib].push_back(q.qps.wall);
      mt_qps_cpu[lib].push_back(q.qps.cpu);
    }
  }
  // Multi-threaded builds.
  std::map<std::string, Rate> mt_build;
  for (const auto& lib : libs) {
    indexes.erase(lib);
    Rate rate;
    size_t heap = 0;
    Build(lib, params, ds, threads, &rate, &heap);
    mt_build[lib] = rate;
    std::fprintf(stderr, "build %s with %d threads: %.0f vectors/s wall, %.0f per CPU-s\n",
                 lib.c_str(), threads, rate.wall, rate.cpu);
  }

  // ---- Report (Markdown).
  auto range = [](const std::vector<double>& v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.0f [%.0f-%.0f]", Median(v),
                  *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
    return std::string(buf);
  };
  std::printf("### %s: %zu x %u (%s), %zu queries, M=%u, ef_construction=%u\n\n", ds.name.c_str(),
              ds.n, ds.dim, ds.cosine ? "cosine" : "L2", ds.nq, params.m, params.ef_construction);
  std::printf("Command: `%s`  \nHotKV kernels: %s. Rates per CPU-second of the working "
              "thread(s) (wall-clock in the last columns); medians of %zu runs per ef and "
              "index, [min-max], alternating order.\n\n",
              command.c_str(), vector::SimdLevelName(vector::BestKernels().level), reps);
  std::printf("| index | build, 1 thread (vectors/CPU-s) | build, 1 thread (vectors/s wall) "
              "| build, %d threads (vectors/s wall) | bytes/vector (malloc + mapped) "
              "| bytes/vector (engine's own accounting; without the unused slots of its last "
              "chunk) |\n|---|---|---|---|---|---|\n",
              threads);
  for (const auto& lib : libs) {
    const BuildResult& b = builds[lib];
    char own[64] = "-";
    if (b.own_bytes > 0) {
      std::snprintf(own, sizeof(own), "%.1f; %.1f",
                    static_cast<double>(b.own_bytes) / static_cast<double>(ds.n),
                    static_cast<double>(b.own_bytes - b.unused_bytes) / static_cast<double>(ds.n));
    }
    std::printf("| %s | %s | %s | %.0f | %.1f | %s |\n", lib.c_str(), range(b.cpu_rates).c_str(),
                range(b.wall_rates).c_str(), mt_build[lib].wall,
                static_cast<double>(b.heap_bytes) / static_cast<double>(ds.n), own);
  }
  std::printf("\n| ef |");
  for (const auto& lib : libs) {
    std::printf(" %s recall@10 | %s q/CPU-s |", lib.c_str(), lib.c_str());
  }
  for (const auto& lib : libs) {
    std::printf(" %s q/s wall |", lib.c_str());
  }
  std::printf("\n|---|");
  for (size_t i = 0; i < 3 * libs.size(); ++i) {
    std::printf("---|");
  }
  std::printf("\n");
  std::map<std::string, std::vector<std::pair<double, double>>> curves;
  for (size_t ef : efs) {
    std::printf("| %zu |", ef);
    std::vector<std::string> wall_cells;
    for (const auto& lib : libs) {
      std::vector<double> cpu;
      std::vector<double> wall;
      std::vector<double> rec;
      for (const auto& r : runs[lib][ef]) {
        cpu.push_back(r.qps.cpu);
        wall.push_back(r.qps.wall);
        rec.push_back(r.recall);
      }
      curves[lib].emplace_back(Median(rec), Median(cpu));
      std::printf(" %.4f | %s |", Median(rec), range(cpu).c_str());
      wall_cells.push_back(range(wall));
    }
    for (const auto& c : wall_cells) {
      std::printf(" %s |", c.c_str());
    }
    std::printf("\n");
  }
  std::printf("\nQueries per CPU-second at matched recall (interpolated between ef points):\n\n"
              "| recall@10 |");
  for (const auto& lib : libs) {
    std::printf(" %s |", lib.c_str());
  }
  std::printf("%s\n|---|", libs.size() > 1 ? " hotkv / hnswlib |" : "");
  for (size_t i = 0; i < libs.size() + (libs.size() > 1); ++i) {
    std::printf("---|");
  }
  std::printf("\n");
  for (double target : {0.90, 0.95, 0.98, 0.99}) {
    std::printf("| %.2f |", target);
    std::vector<double> v;
    for (const auto& lib : libs) {
      v.push_back(QpsAtRecall(curves[lib], target));
      std::printf(std::isnan(v.back()) ? " not reached |" : " %.0f |", v.back());
    }
    if (libs.size() > 1) {
      std::printf(std::isnan(v[0] / v[1]) ? " - |" : " %.2f |", v[0] / v[1]);
    }
    std::printf("\n");
  }
  std::printf("\n%d-thread queries at ef=%zu, median q/s wall (q/CPU-s):", threads, mt_ef);
  for (const auto& lib : libs) {
    std::printf(" %s %.0f (%.0f);", lib.c_str(), Median(mt_qps[lib]), Median(mt_qps_cpu[lib]));
  }
  std::printf("\n\n");
  return 0;
}

}  // namespace
}  // namespace hotkv::bench

int main(int argc, char** argv) { return hotkv::bench::Main(argc, argv); }

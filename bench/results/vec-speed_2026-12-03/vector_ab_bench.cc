// EXP (experiment only): interleaved in-process A/B of two engine variants on one data
// set, for a shared, noisy machine. Two HnswIndex objects (variant A and B, switched by
// vector/exp_flags.h) are built side by side in alternating batches of inserts, then
// queried in alternating batches; each variant's thread CPU time is summed over its own
// batches, so both see the same machine load at nearly the same moments.
//
//   vector_ab_bench --a=new --b=old [--n=20000] [--queries=1000] [--ef=40,150,500]
//                   [--batch=200] [--qreps=3] [--dataset=fashion|synthetic --dim --clusters --noise]
// Variants: new (all on), old (all off), nohuge, nogdpf (one off).
#include <time.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_data.h"
#include "vector/exp_flags.h"
#include "vector/hnsw_index.h"

namespace hotkv::bench {
namespace {

double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Variant {
  bool nohuge = false, nogdpf = false, nogdvis = false, pflist = false;
  unsigned pfnext = 0, pflines = 0;
  void Apply() const {
    vector::exp::g_nohuge = nohuge;
    vector::exp::g_nogdpf = nogdpf;
    vector::exp::g_pflist = pflist;
    vector::exp::g_nogdvis = nogdvis;
    vector::exp::g_pfnext = pfnext;
    vector::exp::g_pflines = pflines;
  }
};

Variant ParseVariant(const std::string& s) {
  Variant v;
  if (s == "old") v = {true, true, true};
  else if (s == "nohuge") v.nohuge = true;
  else if (s == "nogdpf") v.nogdpf = true;
  else if (s == "pflist") v.pflist = true;
  else if (s == "nogdvis") v.nogdvis = true;
  else if (s.rfind("lines", 0) == 0) v.pflines = static_cast<unsigned>(std::stoul(s.substr(5)));
  else if (s.rfind("pf", 0) == 0) v.pfnext = static_cast<unsigned>(std::stoul(s.substr(2)));
  else if (s != "new") { std::fprintf(stderr, "bad variant %s\n", s.c_str()); std::exit(2); }
  return v;
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto eq = a.find('=');
    f[a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "1" : a.substr(eq + 1);
  }
  auto get = [&](const char* k, const char* d) { return f.count(k) ? f[k] : std::string(d); };
  auto geti = [&](const char* k, size_t d) { return f.count(k) ? std::stoull(f[k]) : d; };
  const std::string an = get("a", "new"), bn = get("b", "old");
  Variant va = ParseVariant(an), vb = ParseVariant(bn);
  Dataset ds;
  if (get("dataset", "fashion") == "fashion") {
    auto loaded = LoadFashionMnist("/usr/share/datasets/fashion-mnist", geti("queries", 1000));
    if (!loaded) return 1;
    ds = std::move(*loaded);
    AdaptDataset(&ds, geti("n", 20000), true);
  } else {
    ds = MakeEmbeddingLike(geti("n", 20000), geti("queries", 1000),
                           static_cast<uint32_t>(geti("dim", 1536)), geti("clusters", 200),
                           std::stod(get("noise", "6")), 1);
  }
  const size_t k = 10;
  std::vector<int32_t> gt = GroundTruth(ds, k, get("data-dir", "bench/vector/data"), 2);
  std::vector<size_t> efs;
  {
    std::string list = get("ef", "40,150,500");
    for (size_t pos = 0; pos < list.size();) {
      size_t c = list.find(',', pos);
      efs.push_back(std::stoull(list.substr(pos, c - pos)));
      pos = c == std::string::npos ? list.size() : c + 1;
    }
  }
  vector::IndexOptions o;
  o.dim = ds.dim;
  o.metric = vector::Metric::kCosine;
  o.m = 16;
  o.ef_construction = static_cast<uint32_t>(geti("ef-construction", 200));
  o.seed = 100;
  const Variant* vars[2] = {&va, &vb};
  std::unique_ptr<vector::HnswIndex> idx[2];
  for (int v = 0; v < 2; ++v) {
    vars[v]->Apply();
    idx[v] = std::move(vector::HnswIndex::Create(o)).value();
  }
  std::vector<std::string> labels(ds.n);
  for (size_t i = 0; i < ds.n; ++i) labels[i] = std::to_string(i);
  const size_t batch = geti("batch", 200);
  double build_cpu[2] = {0, 0};
  for (size_t start = 0, round = 0; start < ds.n; start += batch, ++round) {
    const size_t end = std::min(ds.n, start + batch);
    for (int j = 0; j < 2; ++j) {
      const int v = static_cast<int>((round + j) % 2);  // Alternate who goes first.
      vars[v]->Apply();
      const double t0 = ThreadCpu();
      for (size_t i = start; i < end; ++i) {
        (void)idx[v]->Add(labels[i], std::span<const float>(ds.Base(i), ds.dim));
      }
      build_cpu[v] += ThreadCpu() - t0;
    }
  }
  auto dump = [](const char* what, double per) {
    auto& g = vector::exp::g_dist;
    std::printf("%s distances per op: L0 %.0f/%.0f L1 %.0f/%.0f L2 %.0f/%.0f L3+ %.0f/%.0f greedy %.0f/%.0f (query/insert-ef)\n", what,
                g[0][0] / per, g[0][1] / per, g[1][0] / per, g[1][1] / per, g[2][0] / per, g[2][1] / per, g[3][0] / per, g[3][1] / per, g[4][0] / per, g[4][1] / per);
    std::memset(g, 0, sizeof(g));
  };
  dump("build", 2.0 * ds.n);
  std::printf("build %s: %.0f vectors/CPU-s (%.3f ms/vector) | %s: %.0f (%.3f ms) | A/B CPU %.3f\n",
              an.c_str(), ds.n / build_cpu[0], 1e3 * build_cpu[0] / ds.n, bn.c_str(),
              ds.n / build_cpu[1], 1e3 * build_cpu[1] / ds.n, build_cpu[0] / build_cpu[1]);
  const size_t qreps = geti("qreps", 3);
  const size_t qbatch = geti("qbatch", 50);
  for (size_t ef : efs) {
    double qcpu[2] = {0, 0};
    size_t hits[2] = {0, 0};
    for (size_t rep = 0; rep < qreps; ++rep) {
      for (size_t start = 0, round = 0; start < ds.nq; start += qbatch, ++round) {
        const size_t end = std::min(ds.nq, start + qbatch);
        for (int j = 0; j < 2; ++j) {
          const int v = static_cast<int>((round + rep + j) % 2);
          vars[v]->Apply();
          vector::SearchParams p;
          p.k = k;
          p.ef = static_cast<uint32_t>(ef);
          const double t0 = ThreadCpu();
          for (size_t q = start; q < end; ++q) {
            auto r = idx[v]->Search(std::span<const float>(ds.Query(q), ds.dim), p);
            if (rep == 0) {
              for (const auto& h : *r) {
                int32_t id = -1;
                std::from_chars(h.label.data(), h.label.data() + h.label.size(), id);
                const int32_t* g = &gt[q * k];
                hits[v] += std::find(g, g + k, id) != g + k ? 1 : 0;
              }
            }
          }
          qcpu[v] += ThreadCpu() - t0;
        }
      }
    }
    const double nq = static_cast<double>(ds.nq * qreps);
    dump("query", 2.0 * nq);
      std::printf("ef=%zu %s: recall %.4f, %.0f q/CPU-s | %s: recall %.4f, %.0f q/CPU-s | A/B CPU %.3f\n",
                ef, an.c_str(), hits[0] / double(ds.nq * k), nq / qcpu[0], bn.c_str(),
                hits[1] / double(ds.nq * k), nq / qcpu[1], qcpu[0] / qcpu[1]);
  }
  return 0;
}

}  // namespace
}  // namespace hotkv::bench

int main(int argc, char** argv) { return hotkv::bench::Main(argc, argv); }

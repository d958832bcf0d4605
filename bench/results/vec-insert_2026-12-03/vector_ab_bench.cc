// EXP (experiment only, to be removed): interleaved in-process A/B of two engine variants
// (switched by vector/exp_flags.h), after bench/results/vec-speed_2026-12-03's tool. Two
// HnswIndex objects are built side by side in alternating batches of inserts, then queried
// in alternating batches; each variant's thread CPU time, rdtsc per insert phase and
// distance counters are summed over its own batches. With --check-graph, the two graphs'
// link lists are compared element by element at the end of the build.
//
//   vector_ab_bench --a=new --b=old [--n=20000] [--queries=1000] [--ef=40,150,500]
//                   [--batch=200] [--qreps=2] [--check-graph]
//                   [--dataset=fashion|synthetic --dim --clusters --noise]
// Variants: new (memo + order), old (neither), nomemo, noorder, w<N> (new + scan window N).
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
  bool memo = true, order = true;
  uint32_t window = 0;
  void Apply() const {
    vector::exp::g_memo = memo;
    vector::exp::g_selorder = order;
    vector::exp::g_window = window;
  }
};

Variant ParseVariant(const std::string& s) {
  Variant v;
  if (s == "old") { v.memo = false; v.order = false; }
  else if (s == "nomemo") v.memo = false;
  else if (s == "noorder") v.order = false;
  else if (s.rfind("w", 0) == 0) v.window = static_cast<uint32_t>(std::stoul(s.substr(1)));
  else if (s != "new") { std::fprintf(stderr, "bad variant %s\n", s.c_str()); std::exit(2); }
  return v;
}

struct Acc {
  double dist[8] = {};
  double tsc[8] = {};
  void Begin(uint64_t* d0, uint64_t* t0) const {
    std::memcpy(d0, vector::exp::g_dist, sizeof(vector::exp::g_dist));
    std::memcpy(t0, vector::exp::g_tsc, sizeof(vector::exp::g_tsc));
  }
  void End(const uint64_t* d0, const uint64_t* t0) {
    for (int i = 0; i < 8; ++i) {
      dist[i] += static_cast<double>(vector::exp::g_dist[i] - d0[i]);
      tsc[i] += static_cast<double>(vector::exp::g_tsc[i] - t0[i]);
    }
  }
};

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
  const std::string names[2] = {get("a", "new"), get("b", "old")};
  Variant vars[2] = {ParseVariant(names[0]), ParseVariant(names[1])};
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
  o.seed = geti("seed", 100);
  std::unique_ptr<vector::HnswIndex> idx[2];
  for (int v = 0; v < 2; ++v) {
    idx[v] = std::move(vector::HnswIndex::Create(o)).value();
  }
  std::vector<std::string> labels(ds.n);
  for (size_t i = 0; i < ds.n; ++i) labels[i] = std::to_string(i);
  const size_t batch = geti("batch", 200);
  const bool solo = f.count("solo") > 0;  // Variant A only (for callgrind).
  double build_cpu[2] = {0, 0};
  Acc acc[2];
  uint64_t d0[8], t0s[8];
  for (size_t start = 0, round = 0; start < ds.n; start += batch, ++round) {
    const size_t end = std::min(ds.n, start + batch);
    for (int j = 0; j < 2; ++j) {
      const int v = static_cast<int>((round + j) % 2);  // Alternate who goes first.
      if (solo && v == 1) continue;
      vars[v].Apply();
      acc[v].Begin(d0, t0s);
      const double t0 = ThreadCpu();
      for (size_t i = start; i < end; ++i) {
        (void)idx[v]->Add(labels[i], std::span<const float>(ds.Base(i), ds.dim));
      }
      build_cpu[v] += ThreadCpu() - t0;
      acc[v].End(d0, t0s);
    }
  }
  const double n = static_cast<double>(ds.n);
  for (int v = 0; v < 2; ++v) {
    const Acc& a = acc[v];
    std::printf("%s insert distances: greedy %.1f upper %.1f L0 %.1f select %.1f prune %.1f | memo hits walk %.1f prune %.1f | total %.1f\n",
                names[v].c_str(), a.dist[0] / n, a.dist[1] / n, a.dist[2] / n, a.dist[3] / n,
                a.dist[4] / n, a.dist[5] / n, a.dist[6] / n,
                (a.dist[0] + a.dist[1] + a.dist[2] + a.dist[3] + a.dist[4]) / n);
    double tot = 0;
    for (int i = 0; i < 6; ++i) tot += a.tsc[i];
    std::printf("%s insert ktsc: descent %.1f upper %.1f L0 %.1f select %.1f write %.1f backlinks %.1f | sum %.1f\n",
                names[v].c_str(), a.tsc[0] / n / 1e3, a.tsc[1] / n / 1e3, a.tsc[2] / n / 1e3,
                a.tsc[3] / n / 1e3, a.tsc[4] / n / 1e3, a.tsc[5] / n / 1e3, tot / n / 1e3);
  }
  std::printf("build %s: %.0f vectors/CPU-s (%.3f ms/vector) | %s: %.0f (%.3f ms) | A/B CPU %.3f\n",
              names[0].c_str(), n / build_cpu[0], 1e3 * build_cpu[0] / n, names[1].c_str(),
              n / build_cpu[1], 1e3 * build_cpu[1] / n, build_cpu[0] / build_cpu[1]);
  if (solo) {
    return 0;
  }
  if (f.count("check-graph")) {
    size_t diff = 0, links = 0;
    for (size_t i = 0; i < ds.n; ++i) {
      auto la = idx[0]->GetLinks(labels[i]);
      auto lb = idx[1]->GetLinks(labels[i]);
      if (la->size() != lb->size()) { ++diff; continue; }
      for (size_t l = 0; l < la->size(); ++l) {
        links += (*la)[l].size();
        if ((*la)[l].size() != (*lb)[l].size()) { ++diff; break; }
        bool same = true;
        for (size_t t = 0; t < (*la)[l].size(); ++t) {
          same = same && (*la)[l][t].label == (*lb)[l][t].label &&
                 (*la)[l][t].distance == (*lb)[l][t].distance;
        }
        if (!same) { ++diff; break; }
      }
    }
    std::printf("graph check: %zu of %zu nodes differ (%zu links compared)\n", diff, ds.n, links);
  }
  const size_t qreps = geti("qreps", 2);
  const size_t qbatch = geti("qbatch", 50);
  for (size_t ef : efs) {
    double qcpu[2] = {0, 0};
    size_t hits[2] = {0, 0};
    Acc qacc[2];
    for (size_t rep = 0; rep < qreps; ++rep) {
      for (size_t start = 0, round = 0; start < ds.nq; start += qbatch, ++round) {
        const size_t end = std::min(ds.nq, start + qbatch);
        for (int j = 0; j < 2; ++j) {
          const int v = static_cast<int>((round + rep + j) % 2);
          vars[v].Apply();
          vector::SearchParams p;
          p.k = k;
          p.ef = static_cast<uint32_t>(ef);
          qacc[v].Begin(d0, t0s);
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
          qacc[v].End(d0, t0s);
        }
      }
    }
    const double nq = static_cast<double>(ds.nq * qreps);
    std::printf("ef=%zu %s: recall %.4f, %.0f q/CPU-s, dist/q greedy %.1f L0 %.1f memo %.1f | %s: recall %.4f, %.0f q/CPU-s, dist/q greedy %.1f L0 %.1f memo %.1f | A/B CPU %.3f\n",
                ef, names[0].c_str(), hits[0] / double(ds.nq * k), nq / qcpu[0],
                qacc[0].dist[0] / nq, qacc[0].dist[7] / nq, qacc[0].dist[5] / nq,
                names[1].c_str(), hits[1] / double(ds.nq * k), nq / qcpu[1],
                qacc[1].dist[0] / nq, qacc[1].dist[7] / nq, qacc[1].dist[5] / nq,
                qcpu[0] / qcpu[1]);
  }
  return 0;
}

}  // namespace
}  // namespace hotkv::bench

int main(int argc, char** argv) { return hotkv::bench::Main(argc, argv); }

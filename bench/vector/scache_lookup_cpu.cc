// CPU per semantic-cache lookup in-process (issue 19, bench/notes/2026-12-03-scache-cpu.md):
// one HnswIndex built as SCACHE builds its own (M 16, EF 200, cosine, float32 records
// with Q8 sketches), on bench/ai_scache.py's kind of data (--topics topics, cosine ~0.6
// within a topic, ~0 across; hit queries = an entry + noise, cosine ~0.98; miss
// queries = random unit vectors), then the graph walks the lookups make, each timed by
// the thread's CPU clock over every query, in turn, --rounds times:
//
//   near<ef>  SearchNear (sketch walk, beam ef, 4 re-measured exactly): SCACHE.GET's first
//             walk now
//   new       near<8>, then near<40> (8 re-measured) when it returns nothing: SCACHE.GET's
//             semantic path now without FILTER
//   new_f     near<8>, and the exact beam search when it returns nothing: the path with
//             FILTER (its walks then also evaluate the filter)
//   beam40    the exact beam search alone (k 8, ef 40)
//   old       the range walk (EPSILON 0, no beam, cut after 64 expanded nodes), and the
//             exact beam search (k 8, ef 40) when it found nothing: SCACHE.GET before
//   ft        the range walk FT.SEARCH VECTOR_RANGE makes (EPSILON 0.01, beam 20)
//
// Build (after ninja -C build/release hotkv_vector):
//   g++ -O2 -std=c++20 -Isrc bench/vector/scache_lookup_cpu.cc build/release/libhotkv_vector.a \
//     build/release/libhotkv_json.a build/release/libhotkv_common.a -lpthread -o /tmp/scache_lookup_cpu
// Run: /tmp/scache_lookup_cpu [--n 10000] [--dim 1536] [--topics 1000] [--queries 300] [--rounds 3]
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "vector/hnsw_index.h"

using hotkv::vector::HnswIndex;
using hotkv::vector::IndexOptions;
using hotkv::vector::SearchHit;
using hotkv::vector::SearchParams;
using hotkv::vector::StopCheck;

namespace {

double ThreadCpuUs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void Unit(std::vector<float>& v) {
  double n = 0;
  for (float f : v) n += double(f) * f;
  const float inv = static_cast<float>(1.0 / std::sqrt(n));
  for (float& f : v) f *= inv;
}

class WalkLimit final : public StopCheck {
 public:
  explicit WalkLimit(int polls) : left_(polls) {}
  bool ShouldStop() const override { return --left_ <= 0; }

 private:
  mutable int left_;
};

}  // namespace

int main(int argc, char** argv) {
  size_t n = 10000, dim = 1536, topics = 1000, nq = 300, rounds = 3, threads = 2;
  std::string sketch = "q8";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const size_t v = std::strtoull(argv[i + 1], nullptr, 10);
    if (a == "--n") n = v;
    else if (a == "--dim") dim = v;
    else if (a == "--topics") topics = v;
    else if (a == "--queries") nq = v;
    else if (a == "--rounds") rounds = v;
    else if (a == "--threads") threads = v;
    else if (a == "--sketch") sketch = argv[i + 1];
  }
  std::mt19937_64 rng(19);
  std::normal_distribution<float> g(0.0f, 1.0f);
  auto gauss = [&](std::vector<float>& v) {
    for (float& f : v) f = g(rng);
  };
  std::vector<std::vector<float>> centres(topics, std::vector<float>(dim));
  for (auto& c : centres) {
    gauss(c);
    Unit(c);
  }
  std::vector<std::vector<float>> vecs(n, std::vector<float>(dim));
  std::vector<float> noise(dim);
  const float a = std::sqrt(0.6f), b = std::sqrt(0.4f);
  for (size_t i = 0; i < n; i++) {
    const auto& c = centres[rng() % topics];
    gauss(noise);
    Unit(noise);
    for (size_t j = 0; j < dim; j++) vecs[i][j] = a * c[j] + b * noise[j];
    Unit(vecs[i]);
  }
  std::vector<std::vector<float>> hits, misses;
  std::vector<size_t> want;
  for (size_t q = 0; q < nq; q++) {
    const size_t t = rng() % n;
    std::vector<float> v = vecs[t];
    gauss(noise);
    Unit(noise);
    for (size_t j = 0; j < dim; j++) v[j] += 0.2f * noise[j];
    Unit(v);
    hits.push_back(v);
    want.push_back(t);
    gauss(noise);
    Unit(noise);
    misses.push_back(noise);
  }

  IndexOptions io;
  io.dim = static_cast<uint32_t>(dim);
  io.m = 16;
  io.ef_construction = 200;
  io.sketch = sketch == "none" ? IndexOptions::Sketch::kNone
              : sketch == "bin" ? IndexOptions::Sketch::kBinary
                                : IndexOptions::Sketch::kQ8;
  auto made = HnswIndex::Create(io);
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().message().c_str());
    return 1;
  }
  HnswIndex& index = *made.value();
  const double t0 = ThreadCpuUs();
  std::vector<std::thread> ts;
  for (size_t w = 0; w < threads; w++) {
    ts.emplace_back([&, w] {
      for (size_t i = w; i < n; i += threads) {
        (void)index.Add(std::to_string(i), vecs[i]);
      }
    });
  }
  for (auto& t : ts) t.join();
  std::fprintf(stderr, "built %zu x %zu (sketch %s, node %zu bytes) in %.1f s wall-ish\n", n,
               dim, sketch.c_str(), index.Info().node_bytes, (ThreadCpuUs() - t0) / 1e6);

  const float radius = 0.1f;  // SCACHE 0.95 similarity = FT distance 0.1
  auto beam = [&](const std::vector<float>& q) {
    SearchParams p;
    p.k = 8;
    p.ef = 40;
    p.max_distance = radius;
    return index.Search(q, p).value();
  };
  using Method = std::function<std::vector<SearchHit>(const std::vector<float>&)>;
  std::vector<std::pair<std::string, Method>> methods;
  for (size_t ef : {1, 2, 4, 8, 16, 40}) {
    methods.emplace_back("near" + std::to_string(ef), [&, ef](const std::vector<float>& q) {
      return index.SearchNear(q, radius, ef, 4).value();
    });
  }
  methods.emplace_back("new", [&](const std::vector<float>& q) {
    auto r = index.SearchNear(q, radius, 8, 4).value();
    return r.empty() ? index.SearchNear(q, radius, 40, 8).value() : r;
  });
  methods.emplace_back("new_f", [&](const std::vector<float>& q) {
    auto r = index.SearchNear(q, radius, 8, 4).value();
    return r.empty() ? beam(q) : r;
  });
  methods.emplace_back("beam40", beam);
  methods.emplace_back("old", [&](const std::vector<float>& q) {
    WalkLimit limit(2);
    auto r = index.SearchRange(q, radius, 0.0, 0, nullptr, &limit).value();
    return r.empty() ? beam(q) : r;
  });
  methods.emplace_back("ft", [&](const std::vector<float>& q) {
    return index.SearchRange(q, radius, 0.01, 20).value();
  });

  std::printf("%-8s %-5s %6s %12s %8s %8s\n", "method", "kind", "round", "cpu_us/query", "right",
              "none");
  for (size_t r = 0; r < rounds; r++) {
    for (auto& [name, fn] : methods) {
      for (int kind = 0; kind < 2; kind++) {
        const auto& qs = kind == 0 ? hits : misses;
        size_t right = 0, none = 0;
        const double c0 = ThreadCpuUs();
        for (size_t q = 0; q < qs.size(); q++) {
          auto res = fn(qs[q]);
          if (res.empty()) none++;
          else if (kind == 0 && res[0].label == std::to_string(want[q])) right++;
        }
        const double us = (ThreadCpuUs() - c0) / qs.size();
        std::printf("%-8s %-5s %6zu %12.1f %8zu %8zu\n", name.c_str(), kind == 0 ? "hit" : "miss",
                    r + 1, us, right, none);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

// Helpers shared by the vector engine tests: deterministic data sets, exact
// neighbours in double precision, recall, and graph inspection.
#ifndef HOTKV_TESTS_UNIT_VECTOR_TEST_UTIL_H_
#define HOTKV_TESTS_UNIT_VECTOR_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <queue>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "vector/hnsw_index.h"

namespace hotkv::vector {

// Reaches into the index for graph-level checks.
struct HnswTestPeer {
  static uint32_t SelectNeighbors(const HnswIndex& index,
                                  std::vector<std::pair<float, uint32_t>>& cands, uint32_t max,
                                  bool fill) {
    return index.SelectNeighbors(cands, max, fill);
  }
  // Distance between two stored nodes, as the index computes it.
  static float NodeDistance(const HnswIndex& index, uint32_t a, uint32_t b) {
    return index.Distance(internal::Record(index.Node(a), index.layout_), b);
  }
  static uint32_t HighWater(const HnswIndex& index) { return index.high_water_.load(); }

  // Live nodes not reachable from the entry point over layer-0 links between live
  // nodes (upper layers are subsets of layer 0 reachability, so layer 0 decides).
  static size_t CountUnreachable(const HnswIndex& index) {
    const auto& l = index.layout_;
    const uint32_t hw = index.high_water_.load();
    size_t live = 0;
    for (uint32_t id = 0; id < hw; ++id) {
      live += internal::LoadState(index.Node(id), l) == internal::kLive;
    }
    HnswIndex::Entry entry = index.LoadEntry();
    if (entry.level < 0) {
      return live;
    }
    std::vector<char> seen(hw, 0);
    std::queue<uint32_t> q;
    q.push(entry.id);
    seen[entry.id] = 1;
    size_t reached = 0;
    while (!q.empty()) {
      uint32_t id = q.front();
      q.pop();
      ++reached;
      uint8_t* node = index.Node(id);
      const uint8_t* list = internal::ListPtr(node, 0, l);
      uint32_t n = std::min(internal::LoadCount(list), l.m0);
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t nb = internal::LoadId(list, i);
        if (nb < hw && !seen[nb] &&
            internal::LoadState(index.Node(nb), l) == internal::kLive) {
          seen[nb] = 1;
          q.push(nb);
        }
      }
    }
    if (std::getenv("HOTKV_DEBUG_UNREACHABLE") != nullptr) {
      for (uint32_t id = 0; id < hw; ++id) {
        uint8_t* node = index.Node(id);
        if (internal::LoadState(node, l) != internal::kLive || seen[id]) {
          continue;
        }
        size_t indeg = 0;
        for (uint32_t o = 0; o < hw; ++o) {
          uint8_t* on = index.Node(o);
          if (internal::LoadState(on, l) == internal::kFree) {
            continue;
          }
          const uint8_t* ol = internal::ListPtr(on, 0, l);
          uint32_t n = std::min(internal::LoadCount(ol), l.m0);
          for (uint32_t i = 0; i < n; ++i) {
            indeg += internal::LoadId(ol, i) == id;
          }
        }
        std::fprintf(stderr, "unreachable id=%u label=%s level=%u out0=%u indeg0=%zu\n", id,
                     std::string(internal::NodeLabel(node, l)).c_str(), internal::NodeLevel(node),
                     internal::LoadCount(internal::ListPtr(node, 0, l)), indeg);
      }
    }
    return live - reached;
  }

  // Links (all layers) that point at non-live slots.
  static size_t CountDanglingLinks(const HnswIndex& index) {
    const auto& l = index.layout_;
    const uint32_t hw = index.high_water_.load();
    size_t dangling = 0;
    for (uint32_t id = 0; id < hw; ++id) {
      uint8_t* node = index.Node(id);
      if (internal::LoadState(node, l) != internal::kLive) {
        continue;
      }
      for (uint32_t level = 0; level <= internal::NodeLevel(node); ++level) {
        const uint8_t* list = internal::ListPtr(node, level, l);
        uint32_t n = std::min(internal::LoadCount(list), internal::ListCapacity(level, l));
        for (uint32_t i = 0; i < n; ++i) {
          uint32_t nb = internal::LoadId(list, i);
          dangling += internal::LoadState(index.Node(nb), l) != internal::kLive;
        }
      }
    }
    return dangling;
  }

  // Checks every list's clean prefix (node_store.h): sorted by distance to the owner
  // and each link passing the heuristic against every link before it. Returns the
  // number of violations; `*clean_links` (if given) gets the prefixes' total length.
  static size_t CleanPrefixViolations(const HnswIndex& index, size_t* clean_links = nullptr) {
    const auto& l = index.layout_;
    const uint32_t hw = index.high_water_.load();
    size_t bad = 0;
    size_t total = 0;
    auto dist = [&](uint32_t a, uint32_t b) {
      return index.space_.Distance(internal::Record(index.Node(a), l),
                                   internal::Record(index.Node(b), l));
    };
    for (uint32_t id = 0; id < hw; ++id) {
      uint8_t* node = index.Node(id);
      if (internal::LoadState(node, l) != internal::kLive) {
        continue;
      }
      for (uint32_t level = 0; level <= internal::NodeLevel(node); ++level) {
        const uint8_t* list = internal::ListPtr(node, level, l);
        const uint32_t clean = internal::LoadCleanPrefix(list);
        bad += clean > internal::LoadCount(list);
        total += clean;
        for (uint32_t b = 0; b < clean; ++b) {
          const uint32_t nb = internal::LoadId(list, b);
          const float db = dist(id, nb);
          if (b > 0 && dist(id, internal::LoadId(list, b - 1)) > db) {
            ++bad;
          }
          for (uint32_t a = 0; a < b; ++a) {
            bad += dist(nb, internal::LoadId(list, a)) < db;
          }
        }
      }
    }
    if (clean_links != nullptr) {
      *clean_links = total;
    }
    return bad;
  }

  static double MeanDegree0(const HnswIndex& index) {
    const auto& l = index.layout_;
    const uint32_t hw = index.high_water_.load();
    size_t live = 0;
    size_t links = 0;
    for (uint32_t id = 0; id < hw; ++id) {
      uint8_t* node = index.Node(id);
      if (internal::LoadState(node, l) != internal::kLive) {
        continue;
      }
      ++live;
      links += internal::LoadCount(internal::ListPtr(node, 0, l));
    }
    return live == 0 ? 0.0 : static_cast<double>(links) / static_cast<double>(live);
  }
};

namespace testing_util {

// `n` points of dimension `dim` around `clusters` Gaussian centres.
inline std::vector<std::vector<float>> ClusteredData(size_t n, size_t dim, size_t clusters,
                                                     uint32_t seed, float spread = 0.35f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> centres(clusters, std::vector<float>(dim));
  for (auto& c : centres) {
    for (float& x : c) {
      x = normal(rng);
    }
  }
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  std::vector<std::vector<float>> data(n, std::vector<float>(dim));
  for (auto& v : data) {
    const auto& c = centres[pick(rng)];
    for (size_t i = 0; i < dim; ++i) {
      v[i] = c[i] + spread * normal(rng);
    }
  }
  return data;
}

inline double ExactDistance(Metric metric, const std::vector<float>& a,
                            const std::vector<float>& b) {
  double dot = 0.0;
  double na = 0.0;
  double nb = 0.0;
  double l2 = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
    double d = static_cast<double>(a[i]) - b[i];
    l2 += d * d;
  }
  switch (metric) {
    case Metric::kL2:
      return l2;
    case Metric::kInnerProduct:
      return 1.0 - dot;
    case Metric::kCosine:
      return 1.0 - dot / std::sqrt(na * nb);
  }
  return 0.0;
}

// Indices of the k nearest of `data` (skipping `skip`ped ones) to `q`.
inline std::vector<size_t> ExactTopK(Metric metric, const std::vector<std::vector<float>>& data,
                                     const std::vector<float>& q, size_t k,
                                     const std::vector<char>* skip = nullptr) {
  std::vector<std::pair<double, size_t>> all;
  all.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (skip != nullptr && (*skip)[i]) {
      continue;
    }
    all.emplace_back(ExactDistance(metric, data[i], q), i);
  }
  k = std::min(k, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<long>(k), all.end());
  std::vector<size_t> out;
  for (size_t i = 0; i < k; ++i) {
    out.push_back(all[i].second);
  }
  return out;
}

inline std::string Label(size_t i) { return "item:" + std::to_string(i); }

// Mean recall@k of index searches against exact neighbours.
inline double Recall(const HnswIndex& index, Metric metric,
                     const std::vector<std::vector<float>>& data,
                     const std::vector<std::vector<float>>& queries, size_t k, uint32_t ef,
                     const std::vector<char>* skip = nullptr) {
  double total = 0.0;
  for (const auto& q : queries) {
    std::vector<size_t> truth = ExactTopK(metric, data, q, k, skip);
    std::unordered_set<std::string> want;
    for (size_t i : truth) {
      want.insert(Label(i));
    }
    SearchParams p;
    p.k = static_cast<uint32_t>(k);
    p.ef = ef;
    auto hits = index.Search(q, p);
    size_t found = 0;
    if (hits.ok()) {
      for (const auto& h : *hits) {
        found += want.count(h.label);
      }
    }
    total += truth.empty() ? 1.0 : static_cast<double>(found) / static_cast<double>(truth.size());
  }
  return total / static_cast<double>(queries.size());
}

}  // namespace testing_util
}  // namespace hotkv::vector

#endif  // HOTKV_TESTS_UNIT_VECTOR_TEST_UTIL_H_

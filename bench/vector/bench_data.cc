#include "bench_data.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

namespace hotkv::bench {
namespace {

bool ReadGzip(const std::string& path, std::vector<uint8_t>* out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    return false;
  }
  uint8_t buf[1 << 16];
  for (;;) {
    int got = gzread(f, buf, sizeof(buf));
    if (got < 0) {
      gzclose(f);
      return false;
    }
    if (got == 0) {
      break;
    }
    out->insert(out->end(), buf, buf + got);
  }
  gzclose(f);
  return true;
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// IDX3 (unsigned byte images): magic 0x00000803, count, rows, cols, pixels.
bool LoadIdxImages(const std::string& path, size_t limit, std::vector<float>* out, uint32_t* dim,
                   size_t* count) {
  std::vector<uint8_t> raw;
  if (!ReadGzip(path, &raw) || raw.size() < 16 || BigEndian32(raw.data()) != 0x803) {
    std::fprintf(stderr, "cannot read IDX images from %s\n", path.c_str());
    return false;
  }
  const size_t n = BigEndian32(raw.data() + 4);
  *dim = BigEndian32(raw.data() + 8) * BigEndian32(raw.data() + 12);
  *count = std::min(n, limit);
  if (raw.size() < 16 + n * *dim) {
    std::fprintf(stderr, "truncated IDX file %s\n", path.c_str());
    return false;
  }
  out->resize(*count * *dim);
  for (size_t i = 0; i < out->size(); ++i) {
    (*out)[i] = static_cast<float>(raw[16 + i]);
  }
  return true;
}

void Normalize(float* v, uint32_t dim) {
  double sq = 0;
  for (uint32_t i = 0; i < dim; ++i) {
    sq += double{v[i]} * v[i];
  }
  const float inv = sq > 0 ? static_cast<float>(1.0 / std::sqrt(sq)) : 0.0f;
  for (uint32_t i = 0; i < dim; ++i) {
    v[i] *= inv;
  }
}

// Distance in double precision: squared L2, or 1 - cosine (inputs are unit-norm).
double ExactDistance(const float* a, const float* b, uint32_t dim, bool cosine) {
  // Eight independent partial sums let the compiler vectorise without reassociating.
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint32_t i = 0;
  if (cosine) {
    for (; i + 8 <= dim; i += 8) {
      for (int j = 0; j < 8; ++j) {
        acc[j] += double{a[i + j]} * double{b[i + j]};
      }
    }
    for (; i < dim; ++i) {
      acc[0] += double{a[i]} * double{b[i]};
    }
  } else {
    for (; i + 8 <= dim; i += 8) {
      for (int j = 0; j < 8; ++j) {
        double d = double{a[i + j]} - double{b[i + j]};
        acc[j] += d * d;
      }
    }
    for (; i < dim; ++i) {
      double d = double{a[i]} - double{b[i]};
      acc[0] += d * d;
    }
  }
  double sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return cosine ? 1.0 - sum : sum;
}

}  // namespace

std::optional<Dataset> LoadFashionMnist(const std::string& dir, size_t max_queries) {
  Dataset ds;
  ds.name = "fashion-mnist-784-l2";
  ds.cosine = false;
  uint32_t qdim = 0;
  if (!LoadIdxImages(dir + "/train-images-idx3-ubyte.gz", SIZE_MAX, &ds.base, &ds.dim, &ds.n) ||
      !LoadIdxImages(dir + "/t10k-images-idx3-ubyte.gz", max_queries, &ds.queries, &qdim,
                     &ds.nq) ||
      qdim != ds.dim) {
    return std::nullopt;
  }
  if (ds.nq != 10000) {
    ds.name += "-q" + std::to_string(ds.nq);
  }
  return ds;
}

void AdaptDataset(Dataset* ds, size_t n, bool cosine) {
  if (n < ds->n) {
    ds->n = n;
    ds->base.resize(n * ds->dim);
    ds->name += "-n" + std::to_string(n);
  }
  if (cosine && !ds->cosine) {
    for (size_t i = 0; i < ds->n; ++i) {
      Normalize(&ds->base[i * ds->dim], ds->dim);
    }
    for (size_t i = 0; i < ds->nq; ++i) {
      Normalize(&ds->queries[i * ds->dim], ds->dim);
    }
    ds->cosine = true;
    ds->name += "-cos";
  }
}

Dataset MakeEmbeddingLike(size_t n, size_t nq, uint32_t dim, size_t clusters, double noise,
                          uint64_t seed) {
  Dataset ds;
  char noise_str[32];
  std::snprintf(noise_str, sizeof(noise_str), "%g", noise);
  ds.name = "synthetic-" + std::to_string(n) + "x" + std::to_string(dim) + "-c" +
            std::to_string(clusters) + "-n" + noise_str + "-q" + std::to_string(nq) + "-s" +
            std::to_string(seed) + "-cos";
  ds.cosine = true;
  ds.dim = dim;
  ds.n = n;
  ds.nq = nq;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Real embeddings put most variance in few directions: decay the per-dimension
  // scale, and give each cluster its own spread.
  std::vector<float> scale(dim);
  for (uint32_t i = 0; i < dim; ++i) {
    scale[i] = 1.0f / std::sqrt(1.0f + static_cast<float>(i) / 16.0f);
  }
  std::vector<float> centres(clusters * dim);
  std::vector<float> spread(clusters);
  std::uniform_real_distribution<float> spread_dist(0.6f, 1.2f);
  for (size_t c = 0; c < clusters; ++c) {
    for (uint32_t i = 0; i < dim; ++i) {
      centres[c * dim + i] = normal(rng) * scale[i];
    }
    Normalize(&centres[c * dim], dim);
    spread[c] = spread_dist(rng);
  }
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  auto sample = [&](float* out) {
    const size_t c = pick(rng);
    const float s = spread[c] / std::sqrt(static_cast<float>(dim));
    for (uint32_t i = 0; i < dim; ++i) {
      out[i] = centres[c * dim + i] + s * normal(rng) * scale[i] * static_cast<float>(noise);
    }
    Normalize(out, dim);
  };
  ds.base.resize(n * dim);
  for (size_t i = 0; i < n; ++i) {
    sample(&ds.base[i * dim]);
  }
  ds.queries.resize(nq * dim);
  for (size_t i = 0; i < nq; ++i) {
    sample(&ds.queries[i * dim]);
  }
  return ds;
}

std::vector<int32_t> GroundTruth(const Dataset& ds, size_t k, const std::string& cache_dir,
                                 int threads) {
  const std::string path = cache_dir + "/" + ds.name + ".gt" + std::to_string(k);
  std::vector<int32_t> gt(ds.nq * k);
  {
    std::ifstream in(path, std::ios::binary);
    if (in && in.read(reinterpret_cast<char*>(gt.data()),
                      static_cast<std::streamsize>(gt.size() * sizeof(int32_t)))) {
      std::fprintf(stderr, "ground truth: cached %s\n", path.c_str());
      return gt;
    }
  }
  std::fprintf(stderr, "ground truth: computing %zu x %zu in double precision (%d threads)...\n",
               ds.nq, ds.n, threads);
  auto work = [&](size_t begin, size_t end) {
    std::vector<std::pair<double, int32_t>> all(ds.n);
    for (size_t q = begin; q < end; ++q) {
      for (size_t i = 0; i < ds.n; ++i) {
        all[i] = {ExactDistance(ds.Query(q), ds.Base(i), ds.dim, ds.cosine),
                  static_cast<int32_t>(i)};
      }
      std::partial_sort(all.begin(), all.begin() + static_cast<long>(k), all.end());
      for (size_t j = 0; j < k; ++j) {
        gt[q * k + j] = all[j].second;
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t per = (ds.nq + static_cast<size_t>(threads) - 1) / static_cast<size_t>(threads);
  for (int t = 0; t < threads; ++t) {
    const size_t b = std::min(ds.nq, per * static_cast<size_t>(t));
    const size_t e = std::min(ds.nq, b + per);
    pool.emplace_back(work, b, e);
  }
  for (auto& t : pool) {
    t.join();
  }
  std::filesystem::create_directories(cache_dir);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(gt.data()),
            static_cast<std::streamsize>(gt.size() * sizeof(int32_t)));
  return gt;
}

}  // namespace hotkv::bench

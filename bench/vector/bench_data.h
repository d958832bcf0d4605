// Data sets and exact ground truth for the vector engine benchmark.
//
// Fashion-MNIST comes from Debian's dataset-fashion-mnist (IDX files, gzip, read with
// zlib). Synthetic "embedding-like" sets are clustered, anisotropic, unit-norm
// vectors with held-out queries drawn from the same clusters. Ground truth is
// computed by brute force in double precision (independent of any index) and cached
// under bench/vector/data/.
//
// Thread safety: functions are independent; ComputeGroundTruth uses its own threads.
#ifndef HOTKV_BENCH_VECTOR_BENCH_DATA_H_
#define HOTKV_BENCH_VECTOR_BENCH_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hotkv::bench {

struct Dataset {
  std::string name;
  bool cosine = false;  // Else L2.
  uint32_t dim = 0;
  size_t n = 0;
  size_t nq = 0;
  std::vector<float> base;     // n * dim
  std::vector<float> queries;  // nq * dim
  const float* Base(size_t i) const { return base.data() + i * dim; }
  const float* Query(size_t i) const { return queries.data() + i * dim; }
};

// Loads Fashion-MNIST (60,000 train vectors, `max_queries` of the 10,000 test
// vectors; 784 dims, pixel values 0..255 as floats, L2). nullopt (with a message on
// stderr) if the files are missing.
std::optional<Dataset> LoadFashionMnist(const std::string& dir, size_t max_queries);

// Keeps the first `n` base vectors (n < ds->n: its own name and ground truth) and, when
// `cosine`, unit-normalises base and queries and switches the set to cosine (name
// suffix "-cos"): Fashion-MNIST as a VADD set, as Redis 8 vector sets are cosine only.
void AdaptDataset(Dataset* ds, size_t n, bool cosine);

// `n` base + `nq` query unit vectors in `clusters` clusters (cosine). `noise` scales
// the spread of points around their cluster centre (larger = harder).
Dataset MakeEmbeddingLike(size_t n, size_t nq, uint32_t dim, size_t clusters, double noise,
                          uint64_t seed);

// Exact top-k ids (nq * k, int32) for the data set, from `cache_dir` when cached,
// otherwise computed with `threads` threads in double precision and cached.
std::vector<int32_t> GroundTruth(const Dataset& ds, size_t k, const std::string& cache_dir,
                                 int threads);

}  // namespace hotkv::bench

#endif  // HOTKV_BENCH_VECTOR_BENCH_DATA_H_

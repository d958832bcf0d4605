// A minimal common interface over the two indexes the engine benchmark compares:
// HotKV's HnswIndex and hnswlib's HierarchicalNSW (the reference; used only here).
#ifndef HOTKV_BENCH_VECTOR_ANN_INDEX_H_
#define HOTKV_BENCH_VECTOR_ANN_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hotkv::bench {

class AnnIndex {
 public:
  virtual ~AnnIndex() = default;
  virtual const char* name() const = 0;
  // Thread-safe: the multi-threaded build calls it from several threads.
  virtual void Add(size_t id, const float* vec) = 0;
  // Sets the query beam width for subsequent Search calls (not thread-safe).
  virtual void SetEf(size_t ef) = 0;
  // Writes up to k ids, nearest first; returns how many. Thread-safe.
  virtual size_t Search(const float* query, size_t k, int32_t* out) const = 0;
  // The index's own memory accounting, or 0 if it has none.
  virtual size_t MemoryBytes() const = 0;
  // Of MemoryBytes(), bytes reserved for elements not yet added (capacity slack).
  virtual size_t UnusedBytes() const { return 0; }
  // Memory the index maps from the kernel itself, which malloc statistics do not see.
  virtual size_t MappedBytes() const { return 0; }
};

struct AnnParams {
  uint32_t dim = 0;
  bool cosine = false;  // Else L2. Cosine data is unit-norm.
  size_t max_elements = 0;
  uint32_t m = 16;
  uint32_t ef_construction = 200;
  uint64_t seed = 100;
};

std::unique_ptr<AnnIndex> MakeHotkvIndex(const AnnParams& p);
std::unique_ptr<AnnIndex> MakeHnswlibIndex(const AnnParams& p);

}  // namespace hotkv::bench

#endif  // HOTKV_BENCH_VECTOR_ANN_INDEX_H_

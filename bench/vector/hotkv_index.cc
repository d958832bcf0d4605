// HotKV's engine behind the benchmark interface. Labels are decimal ids.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "ann_index.h"
#include "vector/hnsw_index.h"

namespace hotkv::bench {
namespace {

class HotkvIndex : public AnnIndex {
 public:
  explicit HotkvIndex(const AnnParams& p) {
    vector::IndexOptions o;
    o.dim = p.dim;
    o.metric = p.cosine ? vector::Metric::kCosine : vector::Metric::kL2;
    o.m = p.m;
    o.ef_construction = p.ef_construction;
    o.seed = p.seed;
    auto r = vector::HnswIndex::Create(o);
    if (!r.ok()) {
      std::fprintf(stderr, "HnswIndex::Create: %s\n", r.status().message().c_str());
      std::abort();
    }
    index_ = std::move(r).value();
    dim_ = p.dim;
  }
  const char* name() const override { return "hotkv"; }
  void Add(size_t id, const float* vec) override {
    auto r = index_->Add(std::to_string(id), std::span<const float>(vec, dim_));
    if (!r.ok()) {
      std::fprintf(stderr, "Add: %s\n", r.status().message().c_str());
      std::abort();
    }
  }
  void SetEf(size_t ef) override { ef_ = static_cast<uint32_t>(ef); }
  size_t Search(const float* query, size_t k, int32_t* out) const override {
    vector::SearchParams p;
    p.k = static_cast<uint32_t>(k);
    p.ef = ef_;
    auto hits = index_->Search(std::span<const float>(query, dim_), p);
    if (!hits.ok()) {
      return 0;
    }
    size_t n = 0;
    for (const auto& h : *hits) {
      int32_t id = -1;
      std::from_chars(h.label.data(), h.label.data() + h.label.size(), id);
      out[n++] = id;
    }
    return n;
  }
  size_t MemoryBytes() const override { return index_->MemoryUsage(); }
  size_t MappedBytes() const override { return index_->Info().mapped_bytes; }
  size_t UnusedBytes() const override {
    vector::IndexInfo info = index_->Info();
    return (info.capacity - info.num_nodes) * info.node_bytes;
  }

 private:
  std::unique_ptr<vector::HnswIndex> index_;
  uint32_t dim_ = 0;
  uint32_t ef_ = 10;
};

}  // namespace

std::unique_ptr<AnnIndex> MakeHotkvIndex(const AnnParams& p) {
  return std::make_unique<HotkvIndex>(p);
}

}  // namespace hotkv::bench

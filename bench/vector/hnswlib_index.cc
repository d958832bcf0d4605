// The hnswlib reference (Debian's libhnswlib-dev, header-only). hnswlib.h defines
// non-inline functions, so this must stay the only file that includes it. Built with
// -march=native so hnswlib gets its AVX-512 distance functions.
#include <hnswlib/hnswlib.h>

#include "ann_index.h"

namespace hotkv::bench {
namespace {

class HnswlibIndex : public AnnIndex {
 public:
  explicit HnswlibIndex(const AnnParams& p) {
    if (p.cosine) {
      space_ = std::make_unique<hnswlib::InnerProductSpace>(p.dim);
    } else {
      space_ = std::make_unique<hnswlib::L2Space>(p.dim);
    }
    index_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(
        space_.get(), p.max_elements, p.m, p.ef_construction, p.seed);
  }
  const char* name() const override { return "hnswlib"; }
  void Add(size_t id, const float* vec) override { index_->addPoint(vec, id); }
  void SetEf(size_t ef) override { index_->setEf(ef); }
  size_t Search(const float* query, size_t k, int32_t* out) const override {
    auto heap = index_->searchKnn(query, k);
    size_t n = heap.size();
    for (size_t i = n; i > 0; --i) {
      out[i - 1] = static_cast<int32_t>(heap.top().second);
      heap.pop();
    }
    return n;
  }
  size_t MemoryBytes() const override { return 0; }

 private:
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index_;
};

}  // namespace

std::unique_ptr<AnnIndex> MakeHnswlibIndex(const AnnParams& p) {
  return std::make_unique<HnswlibIndex>(p);
}

}  // namespace hotkv::bench

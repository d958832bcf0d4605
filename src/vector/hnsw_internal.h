// Internal to the HNSW index implementation (hnsw_*.cc): per-thread search scratch
// space and the small heaps the graph walks use.
//
// Thread safety: ThreadScratch() returns the calling thread's own object.
#ifndef HOTKV_VECTOR_HNSW_INTERNAL_H_
#define HOTKV_VECTOR_HNSW_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vector/node_store.h"

namespace hotkv::vector::internal {

struct Cand {
  float dist;
  uint32_t id;
};

struct CloserFirst {  // For a min-heap with std::*_heap (which build max-heaps).
  bool operator()(const Cand& a, const Cand& b) const { return a.dist > b.dist; }
};
struct FartherFirst {
  bool operator()(const Cand& a, const Cand& b) const { return a.dist < b.dist; }
};

// Min-heap of candidates to expand.
class MinHeap {
 public:
  void clear() { v_.clear(); }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const Cand& top() const { return v_.front(); }
  void push(Cand c) {
    v_.push_back(c);
    std::push_heap(v_.begin(), v_.end(), CloserFirst());
  }
  void pop() {
    std::pop_heap(v_.begin(), v_.end(), CloserFirst());
    v_.pop_back();
  }

 private:
  std::vector<Cand> v_;
};

// Max-heap of the best results so far (top() is the worst kept).
class MaxHeap {
 public:
  void clear() { v_.clear(); }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const Cand& top() const { return v_.front(); }
  void push(Cand c) {
    v_.push_back(c);
    std::push_heap(v_.begin(), v_.end(), FartherFirst());
  }
  void pop() {
    std::pop_heap(v_.begin(), v_.end(), FartherFirst());
    v_.pop_back();
  }
  // Contents in arbitrary order.
  const std::vector<Cand>& items() const { return v_; }
  // Moves the contents out sorted nearest first and clears the heap.
  void DrainSorted(std::vector<Cand>& out) {
    out.assign(v_.begin(), v_.end());
    std::sort(out.begin(), out.end(), [](const Cand& a, const Cand& b) {
      return a.dist < b.dist || (a.dist == b.dist && a.id < b.id);
    });
    v_.clear();
  }

 private:
  std::vector<Cand> v_;
};

struct SearchScratch {
  MinHeap candidates;
  MaxHeap top;
  MaxHeap filtered;
  std::vector<Cand> sorted;
  std::vector<uint32_t> referrers;
  std::vector<uint8_t> record;  // Encoded query / element vector.
};

SearchScratch& ThreadScratch();

// Prefetches the state word and the first lines of a node's record. Issuing all of a
// short record's lines at once overlaps their misses (about 2x on 128-d data); beyond 8
// lines the extra prefetches only compete with the hardware prefetcher.
inline void PrefetchRecord(const uint8_t* node, const NodeLayout& l, uint32_t lines) {
  const uint8_t* p = node + l.state_offset;
  for (uint32_t i = 0; i < lines; ++i) {
    __builtin_prefetch(p + 64 * i);
  }
}

}  // namespace hotkv::vector::internal

#endif  // HOTKV_VECTOR_HNSW_INTERNAL_H_

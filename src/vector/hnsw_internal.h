// Internal to the HNSW index implementation (hnsw_*.cc): per-thread search scratch
// space and the small heaps the graph walks use.
//
// Thread safety: ThreadScratch() returns the calling thread's own object.
#ifndef HOTKV_VECTOR_HNSW_INTERNAL_H_
#define HOTKV_VECTOR_HNSW_INTERNAL_H_

#include <algorithm>
#include <bit>
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

// Distances from one base record (an insert's new node, or a query) to the nodes
// already measured against it, so no node is measured twice by the walks of one
// operation: an insert's upper-layer beams meet again on the layers below, the greedy
// descent's nodes are met again by the beam, and back-link pruning needs the new node's
// distance to its neighbours' links, most of which the layer-0 beam measured.
// Distances are symmetric bit for bit (every kernel is), so a remembered distance is the
// one a fresh computation would give: the walks and the graph are unchanged.
//
// Open addressing with linear probing over (generation << 32 | id) keys; Reset() bumps
// the generation instead of clearing. Holds only nodes that were Live when measured.
class DistMemo {
 public:
  void Reset() {
    size_ = 0;
    if (++generation_ == 0) {
      std::fill(keys_.begin(), keys_.end(), 0);
      generation_ = 1;
    }
    if (keys_.empty()) {
      Rehash(kInitialSlots);
    }
  }
  bool empty() const { return size_ == 0; }

  // The remembered distance of `id`, if any.
  bool Find(uint32_t id, float* dist) const {
    if (size_ == 0) {
      return false;
    }
    const uint64_t key = Key(id);
    for (size_t i = Slot(id);; i = (i + 1) & mask_) {
      const uint64_t k = keys_[i];
      if (k == key) {
        *dist = dists_[i];
        return true;
      }
      if ((k >> 32) != generation_) {
        return false;
      }
    }
  }

  // Remembers `dist` for `id` (not yet present).
  void Put(uint32_t id, float dist) {
    if (2 * (size_ + 1) > keys_.size()) {
      Rehash(std::max(kInitialSlots, 2 * keys_.size()));
    }
    size_t i = Slot(id);
    while ((keys_[i] >> 32) == generation_) {
      i = (i + 1) & mask_;
    }
    keys_[i] = Key(id);
    dists_[i] = dist;
    ++size_;
  }

 private:
  static constexpr size_t kInitialSlots = 4096;
  uint64_t Key(uint32_t id) const { return (uint64_t{generation_} << 32) | id; }
  // Fibonacci hashing: the product's high bits.
  static size_t SlotOf(uint32_t id, uint32_t shift) { return (id * 0x9E3779B1u) >> shift; }
  size_t Slot(uint32_t id) const { return SlotOf(id, shift_); }
  void Rehash(size_t slots) {
    std::vector<uint64_t> keys(slots, 0);
    std::vector<float> dists(slots, 0.0f);
    const size_t mask = slots - 1;
    const uint32_t shift = static_cast<uint32_t>(32 - std::countr_zero(slots));
    for (size_t i = 0; i < keys_.size(); ++i) {
      if ((keys_[i] >> 32) == generation_) {
        const uint32_t id = static_cast<uint32_t>(keys_[i]);
        size_t j = SlotOf(id, shift);
        while (keys[j] != 0) {
          j = (j + 1) & mask;
        }
        keys[j] = keys_[i];
        dists[j] = dists_[i];
      }
    }
    keys_.swap(keys);
    dists_.swap(dists);
    mask_ = mask;
    shift_ = shift;
  }

  std::vector<uint64_t> keys_;
  std::vector<float> dists_;
  size_t mask_ = 0;
  uint32_t shift_ = 32;
  size_t size_ = 0;
  uint32_t generation_ = 0;
};

struct SearchScratch {
  MinHeap candidates;
  MaxHeap top;
  MaxHeap filtered;
  std::vector<Cand> sorted;
  std::vector<uint32_t> referrers;
  std::vector<uint8_t> record;  // Encoded query / element vector.
  DistMemo memo;                // Distances to the current operation's base record.
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

#include "vector/node_store.h"

#include <new>

namespace hotkv::vector::internal {

NodeStore::NodeStore(size_t node_bytes) : node_bytes_(node_bytes), big_shift_(kMinBigShift) {
  while (big_shift_ < kMaxBigShift && (node_bytes << (big_shift_ + 1)) <= kBigChunkBytes) {
    ++big_shift_;
  }
}

NodeStore::~NodeStore() {
  uint8_t** dir = dir_.load(std::memory_order_relaxed);
  for (uint32_t c = 0; c < num_chunks_; ++c) {
    ::operator delete(dir[c], std::align_val_t(64));
  }
}

void NodeStore::EnsureCapacity(uint32_t n) {
  while (capacity_.load(std::memory_order_relaxed) < n) {
    if (num_chunks_ == dir_size_) {
      uint32_t new_size = dir_size_ == 0 ? 16 : dir_size_ * 2;
      std::unique_ptr<uint8_t*[]> dir(new uint8_t*[new_size]());
      uint8_t** old = dir_.load(std::memory_order_relaxed);
      for (uint32_t c = 0; c < num_chunks_; ++c) {
        dir[c] = old[c];
      }
      dir_.store(dir.get(), std::memory_order_release);
      allocated_bytes_.fetch_add(sizeof(uint8_t*) * new_size, std::memory_order_relaxed);
      dirs_.push_back(std::move(dir));
      dir_size_ = new_size;
    }
    const size_t bytes = size_t{ChunkNodes(num_chunks_)} * node_bytes_;
    void* chunk = ::operator new(bytes, std::align_val_t(64));
    std::memset(chunk, 0, bytes);
    dir_.load(std::memory_order_relaxed)[num_chunks_] = static_cast<uint8_t*>(chunk);
    allocated_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    const uint32_t cap = capacity_.load(std::memory_order_relaxed) + ChunkNodes(num_chunks_);
    ++num_chunks_;
    // Release: a reader that sees the new capacity (or an id it admits) sees the chunk.
    capacity_.store(cap, std::memory_order_release);
  }
}

}  // namespace hotkv::vector::internal

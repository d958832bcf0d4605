#include "vector/node_store.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#include "common/memory_usage.h"

namespace hotkv::vector::internal {

namespace {

// 2^shift * node_bytes is a multiple of 4096 when shift >= 12 - (trailing zero bits).
uint32_t BigShiftFor(size_t node_bytes, uint32_t min_shift, uint32_t max_shift) {
  const int zeros = std::countr_zero(node_bytes);
  const int need = 12 - zeros;
  return static_cast<uint32_t>(
      std::clamp<int>(need, static_cast<int>(min_shift), static_cast<int>(max_shift)));
}

}  // namespace

NodeStore::NodeStore(size_t node_bytes)
    : node_bytes_(node_bytes), big_shift_(BigShiftFor(node_bytes, kMinBigShift, kMaxBigShift)) {}

NodeStore::~NodeStore() {
  if (slab_next_ != slab_end_) {
    munmap(slab_next_, static_cast<size_t>(slab_end_ - slab_next_));
  }
  uint8_t** dir = dir_.load(std::memory_order_relaxed);
  for (uint32_t c = 0; c < num_chunks_; ++c) {
    const size_t bytes = size_t{ChunkNodes(c)} * node_bytes_;
    if (bytes >= kMapThreshold) {
      munmap(dir[c], bytes);
      CountMappedBytes(-static_cast<int64_t>(bytes));
    } else {
      ::operator delete(dir[c], std::align_val_t(64));
    }
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
    void* chunk;
    if (bytes >= kMapThreshold) {
      chunk = MapChunk(bytes);
      mapped_bytes_.fetch_add(bytes, std::memory_order_relaxed);
      CountMappedBytes(static_cast<int64_t>(bytes));
    } else {
      chunk = ::operator new(bytes, std::align_val_t(64));
      std::memset(chunk, 0, bytes);
    }
    dir_.load(std::memory_order_relaxed)[num_chunks_] = static_cast<uint8_t*>(chunk);
    allocated_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    const uint32_t cap = capacity_.load(std::memory_order_relaxed) + ChunkNodes(num_chunks_);
    ++num_chunks_;
    // Release: a reader that sees the new capacity (or an id it admits) sees the chunk.
    capacity_.store(cap, std::memory_order_release);
  }
}

void* NodeStore::MapChunk(size_t bytes) {
  if (mapped_bytes_.load(std::memory_order_relaxed) >= kHugeFromBytes) {
    if (static_cast<size_t>(slab_end_ - slab_next_) < bytes) {
      // Too little left for a chunk (chunks of one store are all the same size here):
      // give the rest back and reserve the next slab.
      if (slab_next_ != slab_end_) {
        munmap(slab_next_, static_cast<size_t>(slab_end_ - slab_next_));
      }
      slab_next_ = slab_end_ = nullptr;
      size_t slab = std::max({kMinSlabBytes, mapped_bytes_.load(std::memory_order_relaxed), bytes});
      slab = (slab + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
      void* p = mmap(nullptr, slab + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        // Trim to a 2 MiB-aligned start: the slack before and after goes back.
        const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
        const uintptr_t start = (raw + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
        if (start > raw) {
          munmap(p, start - raw);
        }
        const uintptr_t end = start + slab;
        const uintptr_t raw_end = raw + slab + kHugePageBytes;
        if (raw_end > end) {
          munmap(reinterpret_cast<void*>(end), raw_end - end);
        }
        madvise(reinterpret_cast<void*>(start), slab, MADV_HUGEPAGE);  // advice only
        slab_next_ = reinterpret_cast<uint8_t*>(start);
        slab_end_ = reinterpret_cast<uint8_t*>(end);
      }
    }
    if (static_cast<size_t>(slab_end_ - slab_next_) >= bytes) {
      void* chunk = slab_next_;
      slab_next_ += bytes;
      return chunk;
    }
    // No slab (the reservation failed, e.g. under strict overcommit): map on its own.
  }
  void* chunk = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (chunk == MAP_FAILED) {
    throw std::bad_alloc();
  }
  return chunk;
}

}  // namespace hotkv::vector::internal

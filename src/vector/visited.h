// VisitedTable: the "already seen" set of one graph search, one 16-bit tag per node
// slot. Starting a search bumps the generation instead of clearing the table, so a
// search costs nothing proportional to the index size; the table is cleared only when
// the 16-bit generation wraps (every 65535 searches).
//
// Each thread owns one table (ThreadVisitedTable()), shared by all indexes it
// searches: searches on one thread are sequential.
//
// Thread safety: not thread-safe; use the calling thread's own table.
#ifndef HOTKV_VECTOR_VISITED_H_
#define HOTKV_VECTOR_VISITED_H_

#include <cstdint>
#include <cstring>
#include <memory>

namespace hotkv::vector {

class VisitedTable {
 public:
  // Starts a new search over node ids < capacity.
  void Reset(uint32_t capacity) {
    if (capacity > size_) {
      Grow(capacity);
    }
    if (++generation_ == 0) {
      std::memset(tags_.get(), 0, sizeof(uint16_t) * size_);
      generation_ = 1;
    }
  }

  // Marks `id`; returns whether it was already marked in this search. Ids beyond the
  // capacity given to Reset (nodes added during the search) grow the table.
  bool TestAndSet(uint32_t id) {
    if (id >= size_) [[unlikely]] {
      Grow(id + 1);
    }
    uint16_t* tag = &tags_[id];
    if (*tag == generation_) {
      return true;
    }
    *tag = generation_;
    return false;
  }

  bool Test(uint32_t id) const { return id < size_ && tags_[id] == generation_; }

  void Prefetch(uint32_t id) const {
    if (id < size_) {
      __builtin_prefetch(&tags_[id]);
    }
  }

 private:
  void Grow(uint32_t min_size) {
    uint32_t new_size = size_ == 0 ? 1024 : size_;
    while (new_size < min_size) {
      new_size = new_size * 2 < new_size ? UINT32_MAX : new_size * 2;
    }
    std::unique_ptr<uint16_t[]> tags(new uint16_t[new_size]());
    if (size_ > 0) {
      std::memcpy(tags.get(), tags_.get(), sizeof(uint16_t) * size_);
    }
    tags_ = std::move(tags);
    size_ = new_size;
  }

  std::unique_ptr<uint16_t[]> tags_;
  uint32_t size_ = 0;
  uint16_t generation_ = 0;
};

// The calling thread's table.
VisitedTable& ThreadVisitedTable();

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_VISITED_H_

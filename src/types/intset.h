// IntSet: a sorted array of distinct int64 values stored at the smallest width (2, 4 or
// 8 bytes) that holds them all — the "intset" encoding of small all-integer sets.
//
// One allocation: an 8-byte header (count, width) followed by the values in ascending
// order. Lookup is a binary search; insert and erase move the tail. Adding a value that
// needs a wider width rewrites the array at the new width (never narrower again). An
// empty IntSet owns no memory.
//
//   hotkv::types::IntSet s;
//   s.Insert(42);
//   s.Contains(42);   // true
//
// Thread safety: none; callers serialise access.

#ifndef HOTKV_TYPES_INTSET_H_
#define HOTKV_TYPES_INTSET_H_

#include <cstddef>
#include <cstdint>

namespace hotkv::types {

class IntSet {
 public:
  IntSet() = default;
  ~IntSet();
  IntSet(IntSet&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  IntSet& operator=(IntSet&& other) noexcept;
  IntSet(const IntSet&) = delete;
  IntSet& operator=(const IntSet&) = delete;

  IntSet Clone() const;

  size_t size() const;
  bool empty() const { return data_ == nullptr; }
  // Bytes per value: 2, 4 or 8 (2 when empty).
  size_t width() const;
  size_t MemoryUsage() const;

  bool Contains(int64_t v) const;
  // Returns false if `v` was already present.
  bool Insert(int64_t v);
  // Returns false if `v` was absent.
  bool Erase(int64_t v);
  // The value at `index` (0 <= index < size()), in ascending order.
  int64_t At(size_t index) const;
  void EraseAt(size_t index);
  int64_t Min() const { return At(0); }
  int64_t Max() const { return At(size() - 1); }

 private:
  // Index of `v` if present, else where it would be inserted.
  size_t LowerBound(int64_t v) const;
  void Set(size_t index, int64_t v);
  void Resize(size_t count, size_t width);

  char* data_ = nullptr;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_INTSET_H_

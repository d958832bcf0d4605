#include "types/intset.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hotkv::types {
namespace {

constexpr size_t kHeaderSize = 8;  // uint32 count, uint32 width

size_t WidthFor(int64_t v) {
  if (v >= INT16_MIN && v <= INT16_MAX) {
    return 2;
  }
  if (v >= INT32_MIN && v <= INT32_MAX) {
    return 4;
  }
  return 8;
}

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void Store32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }

int64_t LoadValue(const char* p, size_t width) {
  if (width == 2) {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void StoreValue(char* p, size_t width, int64_t v) {
  if (width == 2) {
    const auto x = static_cast<int16_t>(v);
    std::memcpy(p, &x, 2);
  } else if (width == 4) {
    const auto x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
  } else {
    std::memcpy(p, &v, 8);
  }
}

}  // namespace

IntSet::~IntSet() { std::free(data_); }

IntSet& IntSet::operator=(IntSet&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

IntSet IntSet::Clone() const {
  IntSet copy;
  if (data_ != nullptr) {
    const size_t bytes = kHeaderSize + size() * width();
    copy.data_ = static_cast<char*>(std::malloc(bytes));
    if (copy.data_ == nullptr) {
      std::abort();
    }
    std::memcpy(copy.data_, data_, bytes);
  }
  return copy;
}

size_t IntSet::size() const { return data_ == nullptr ? 0 : Load32(data_); }

size_t IntSet::width() const { return data_ == nullptr ? 2 : Load32(data_ + 4); }

size_t IntSet::MemoryUsage() const { return data_ == nullptr ? 0 : malloc_usable_size(data_); }

int64_t IntSet::At(size_t index) const {
  const size_t w = width();
  return LoadValue(data_ + kHeaderSize + index * w, w);
}

void IntSet::Set(size_t index, int64_t v) {
  const size_t w = width();
  StoreValue(data_ + kHeaderSize + index * w, w, v);
}

size_t IntSet::LowerBound(int64_t v) const {
  size_t lo = 0;
  size_t hi = size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (At(mid) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

bool IntSet::Contains(int64_t v) const {
  if (data_ == nullptr || WidthFor(v) > width()) {
    return false;
  }
  const size_t i = LowerBound(v);
  return i < size() && At(i) == v;
}

void IntSet::Resize(size_t count, size_t width) {
  const size_t bytes = kHeaderSize + count * width;
  if (data_ == nullptr || bytes > malloc_usable_size(data_) ||
      malloc_usable_size(data_) >= 2 * bytes + 32) {
    char* p = static_cast<char*>(std::realloc(data_, bytes));
    if (p == nullptr) {
      std::fprintf(stderr, "hotkv: intset: cannot allocate %zu bytes\n", bytes);
      std::abort();
    }
    data_ = p;
  }
  Store32(data_, static_cast<uint32_t>(count));
  Store32(data_ + 4, static_cast<uint32_t>(width));
}

bool IntSet::Insert(int64_t v) {
  const size_t n = size();
  const size_t old_width = width();
  const size_t new_width = WidthFor(v);
  if (data_ != nullptr && new_width > old_width) {
    // Widen: the new value is beyond every stored one, so it goes first or last.
    Resize(n + 1, new_width);
    const bool first = v < 0;
    for (size_t i = n; i-- > 0;) {
      const int64_t x = LoadValue(data_ + kHeaderSize + i * old_width, old_width);
      StoreValue(data_ + kHeaderSize + (i + (first ? 1 : 0)) * new_width, new_width, x);
    }
    Set(first ? 0 : n, v);
    return true;
  }
  const size_t i = LowerBound(v);
  if (i < n && At(i) == v) {
    return false;
  }
  const size_t w = data_ == nullptr ? new_width : old_width;
  Resize(n + 1, w);
  char* base = data_ + kHeaderSize;
  std::memmove(base + (i + 1) * w, base + i * w, (n - i) * w);
  Set(i, v);
  return true;
}

void IntSet::EraseAt(size_t index) {
  const size_t n = size();
  if (n == 1) {
    std::free(data_);
    data_ = nullptr;
    return;
  }
  const size_t w = width();
  char* base = data_ + kHeaderSize;
  std::memmove(base + index * w, base + (index + 1) * w, (n - index - 1) * w);
  Resize(n - 1, w);
}

bool IntSet::Erase(int64_t v) {
  if (data_ == nullptr || WidthFor(v) > width()) {
    return false;
  }
  const size_t i = LowerBound(v);
  if (i >= size() || At(i) != v) {
    return false;
  }
  EraseAt(i);
  return true;
}

}  // namespace hotkv::types

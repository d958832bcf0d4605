// ByteBuffer: a growable byte buffer for requests and replies.
//
// Unlike std::string/std::vector it never zero-fills on growth, and it hands out raw
// space so a reply can be formatted in place. It keeps its capacity across batches, so a
// connection in a steady state does no allocation per command.
//
// Thread safety: none; owned by one connection.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace hotkv {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { free(data_); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ByteBuffer(ByteBuffer&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }

  // Exchanges contents with another buffer (no copy).
  void Swap(ByteBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_, size_}; }

  // Returns space for at least n more bytes; call Commit(k) after writing k <= n bytes.
  char* Reserve(size_t n) {
    if (cap_ - size_ < n) {
      Grow(n);
    }
    return data_ + size_;
  }
  void Commit(size_t n) { size_ += n; }

  void Append(const char* p, size_t n) {
    memcpy(Reserve(n), p, n);
    size_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Push(char c) {
    *Reserve(1) = c;
    size_++;
  }

  void Clear() { size_ = 0; }
  void Truncate(size_t n) {
    if (n < size_) {
      size_ = n;
    }
  }
  // Drops the first n bytes (what a partial write sent).
  void Consume(size_t n) {
    if (n >= size_) {
      size_ = 0;
      return;
    }
    memmove(data_, data_ + n, size_ - n);
    size_ -= n;
  }
  // Inserts bytes at position pos (used to patch deferred headers).
  void Insert(size_t pos, const char* p, size_t n) {
    Reserve(n);
    memmove(data_ + pos + n, data_ + pos, size_ - pos);
    memcpy(data_ + pos, p, n);
    size_ += n;
  }
  // Releases memory when the buffer grew far past what it holds (after a huge reply).
  void ShrinkIfIdle(size_t keep) {
    if (size_ == 0 && cap_ > keep) {
      free(data_);
      data_ = nullptr;
      cap_ = 0;
    }
  }

 private:
  void Grow(size_t n) {
    size_t want = size_ + n;
    size_t cap = cap_ ? cap_ : 1024;
    while (cap < want) {
      cap = cap < (64u << 20) ? cap * 2 : cap + (64u << 20);
    }
    char* p = static_cast<char*>(realloc(data_, cap));
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    data_ = p;
    cap_ = cap;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace hotkv

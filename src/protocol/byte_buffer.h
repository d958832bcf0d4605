// ByteBuffer: a growable byte buffer for requests and replies.
//
// Unlike std::string/std::vector it never zero-fills on growth, and it hands out raw
// space so a reply can be formatted in place. It keeps its capacity across batches, so a
// connection in a steady state does no allocation per command.
//
// Attached bytes (zero-copy output): a buffer that allows it (set_refs_allowed, only a
// connection's output buffers do) can hold, besides its own bytes, references to bytes
// owned elsewhere and kept alive by a shared_ptr: AppendRef(hold, bytes) records "these
// bytes go here" (at the current end) without copying them. The buffer's own bytes
// (data()/size()) then skip them; the logical content, what is sent, is the own bytes
// with every reference's bytes spliced in at its offset (total_size() bytes; net/
// sends it with writev/sendmsg, io_vec.h). Insert, Truncate and Clear keep the references
// in step (shifted, dropped); Swap exchanges them. A buffer that does not allow them
// copies in AppendRef, so code that reads data() of its own buffers sees every byte.
//
// Thread safety: none; owned by one connection.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

namespace hotkv {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { free(data_); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ByteBuffer(ByteBuffer&& o) noexcept
      : data_(o.data_),
        size_(o.size_),
        cap_(o.cap_),
        refs_(std::move(o.refs_)),
        ref_bytes_(o.ref_bytes_),
        refs_allowed_(o.refs_allowed_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
    o.refs_.clear();
    o.ref_bytes_ = 0;
  }

  // Bytes owned elsewhere, spliced in before the own byte at offset `at`.
  struct Ref {
    size_t at;
    const char* data;
    size_t len;
    std::shared_ptr<const void> hold;  // keeps `data` alive
  };

  // Exchanges contents (own bytes and references; not refs_allowed) with another
  // buffer (no copy).
  void Swap(ByteBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    refs_.swap(o.refs_);
    std::swap(ref_bytes_, o.ref_bytes_);
  }

  // --- references (see the file comment) ---
  void set_refs_allowed(bool on) { refs_allowed_ = on; }
  bool refs_allowed() const { return refs_allowed_; }
  // Appends `bytes` kept alive by `hold`: as a reference when allowed, else copied.
  void AppendRef(std::shared_ptr<const void> hold, std::string_view bytes) {
    if (!refs_allowed_) {
      Append(bytes);
      return;
    }
    refs_.push_back(Ref{size_, bytes.data(), bytes.size(), std::move(hold)});
    ref_bytes_ += bytes.size();
  }
  const std::vector<Ref>& refs() const { return refs_; }
  size_t ref_bytes() const { return ref_bytes_; }
  // Own bytes plus referenced bytes: what sending this buffer sends.
  size_t total_size() const { return size_ + ref_bytes_; }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0 && ref_bytes_ == 0; }
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

  void Clear() {
    size_ = 0;
    if (!refs_.empty()) [[unlikely]] {
      refs_.clear();
      ref_bytes_ = 0;
    }
  }
  // Keeps the first n own bytes (and the references placed before byte n).
  void Truncate(size_t n) {
    if (n <= size_) {
      size_ = n;
      if (!refs_.empty()) [[unlikely]] {
        DropRefsFrom(n);
      }
    }
  }
  // Drops the first n bytes (what a partial write sent). Not for a buffer holding
  // references (the senders keep an offset instead).
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
    if (!refs_.empty()) [[unlikely]] {
      for (Ref& r : refs_) {
        if (r.at >= pos) {
          r.at += n;
        }
      }
    }
  }
  // Releases memory when the buffer grew far past what it holds (after a huge reply).
  void ShrinkIfIdle(size_t keep) {
    if (size_ == 0 && cap_ > keep) {
      free(data_);
      data_ = nullptr;
      cap_ = 0;
    }
    if (refs_.empty() && refs_.capacity() > 64) {
      std::vector<Ref>().swap(refs_);
    }
  }

 private:
  void DropRefsFrom(size_t n) {
    while (!refs_.empty() && refs_.back().at >= n) {
      ref_bytes_ -= refs_.back().len;
      refs_.pop_back();
    }
  }

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
  std::vector<Ref> refs_;  // in order of `at`
  size_t ref_bytes_ = 0;
  bool refs_allowed_ = false;
};

}  // namespace hotkv

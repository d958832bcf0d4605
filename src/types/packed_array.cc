#include "types/packed_array.h"

#include <malloc.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hotkv::types {
namespace {

static_assert(std::endian::native == std::endian::little,
              "packed arrays store integers little-endian in host order");

constexpr uint8_t kStr14 = 0x80;     // 0x80-0xbf: 14-bit string length
constexpr uint8_t kStr32 = 0xc0;     // 0xc0: 32-bit string length follows
constexpr uint8_t kIntBase = 0xc0;   // 0xc1-0xc8: integer of (header - kIntBase) bytes
constexpr size_t kMaxSmallString = 127;
constexpr size_t kMaxMediumString = (1u << 14) - 1;

size_t BackLinkSize(size_t entry) {
  if (entry < (1u << 7)) {
    return 1;
  }
  if (entry < (1u << 14)) {
    return 2;
  }
  if (entry < (1u << 21)) {
    return 3;
  }
  if (entry < (1u << 28)) {
    return 4;
  }
  return 5;
}

// Smallest k in 1..8 such that `v` fits in k signed bytes.
int IntBytes(int64_t v) {
  for (int k = 1; k < 8; ++k) {
    const int64_t bound = int64_t{1} << (8 * k - 1);
    if (v >= -bound && v < bound) {
      return k;
    }
  }
  return 8;
}

int64_t LoadInt(const unsigned char* p, int k) {
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<size_t>(k));
  const int shift = 64 - 8 * k;
  return static_cast<int64_t>(u << shift) >> shift;
}

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void Store32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }

[[noreturn]] void OutOfMemory(size_t n) {
  std::fprintf(stderr, "hotkv: packed array: cannot allocate %zu bytes\n", n);
  std::abort();
}

char* Reallocate(char* p, size_t n) {
  if (n > UINT32_MAX) {
    std::fprintf(stderr, "hotkv: packed array would exceed 4 GB (%zu bytes)\n", n);
    std::abort();
  }
  char* q = static_cast<char*>(std::realloc(p, n));
  if (q == nullptr) {
    OutOfMemory(n);
  }
  return q;
}

// How a value will be written: the header bytes and what follows them.
struct Plan {
  unsigned char header[5];
  uint32_t header_len;
  uint32_t payload_len;
  int int_bytes;  // > 0: payload is this integer
  int64_t int_value;
};

Plan MakePlan(std::string_view v) {
  Plan plan{};
  // One-digit numbers are as short as text; longer canonical integers shrink.
  if (v.size() >= 2) {
    if (std::optional<int64_t> i = ParseCanonicalInt(v)) {
      const int k = IntBytes(*i);
      if (static_cast<size_t>(k) < v.size()) {
        plan.header[0] = static_cast<unsigned char>(kIntBase + k);
        plan.header_len = 1;
        plan.payload_len = static_cast<uint32_t>(k);
        plan.int_bytes = k;
        plan.int_value = *i;
        return plan;
      }
    }
  }
  const size_t n = v.size();
  if (n <= kMaxSmallString) {
    plan.header[0] = static_cast<unsigned char>(n);
    plan.header_len = 1;
  } else if (n <= kMaxMediumString) {
    plan.header[0] = static_cast<unsigned char>(kStr14 | (n >> 8));
    plan.header[1] = static_cast<unsigned char>(n & 0xff);
    plan.header_len = 2;
  } else {
    if (n > UINT32_MAX - 64) {
      std::fprintf(stderr, "hotkv: packed array entry too large (%zu bytes)\n", n);
      std::abort();
    }
    plan.header[0] = kStr32;
    const uint32_t n32 = static_cast<uint32_t>(n);
    std::memcpy(plan.header + 1, &n32, 4);
    plan.header_len = 5;
  }
  plan.payload_len = static_cast<uint32_t>(n);
  return plan;
}

template <bool kBackLinks>
size_t PlanSize(const Plan& plan) {
  const size_t body = plan.header_len + plan.payload_len;
  return kBackLinks ? body + BackLinkSize(body) : body;
}

// Writes the entry; returns its size.
template <bool kBackLinks>
size_t WriteEntry(char* out, const Plan& plan, std::string_view v) {
  std::memcpy(out, plan.header, plan.header_len);
  if (plan.int_bytes > 0) {
    std::memcpy(out + plan.header_len, &plan.int_value, static_cast<size_t>(plan.int_bytes));
  } else if (!v.empty()) {
    std::memcpy(out + plan.header_len, v.data(), v.size());
  }
  const size_t body = plan.header_len + plan.payload_len;
  if constexpr (!kBackLinks) {
    return body;
  } else {
    // Groups of 7 bits, least significant at the highest address; a set top bit means
    // another group lies at the next lower address.
    const size_t n = BackLinkSize(body);
    char* link = out + body;
    for (size_t i = 0; i < n; ++i) {
      unsigned char group = static_cast<unsigned char>((body >> (7 * i)) & 0x7f);
      if (i + 1 < n) {
        group |= 0x80;
      }
      link[n - 1 - i] = static_cast<char>(group);
    }
    return body + n;
  }
}

}  // namespace

template <bool kBackLinks>
BasicPackedArray<kBackLinks>::~BasicPackedArray() {
  std::free(data_);
}

template <bool kBackLinks>
BasicPackedArray<kBackLinks>& BasicPackedArray<kBackLinks>::operator=(
    BasicPackedArray&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

template <bool kBackLinks>
BasicPackedArray<kBackLinks> BasicPackedArray<kBackLinks>::Clone() const {
  BasicPackedArray copy;
  if (data_ != nullptr) {
    copy.data_ = Reallocate(nullptr, TotalBytes());
    std::memcpy(copy.data_, data_, TotalBytes());
  }
  return copy;
}

template <bool kBackLinks>
size_t BasicPackedArray<kBackLinks>::MemoryUsage() const {
  return data_ == nullptr ? 0 : malloc_usable_size(data_);
}

template <bool kBackLinks>
size_t BasicPackedArray<kBackLinks>::BytesFor(std::string_view value) {
  return PlanSize<kBackLinks>(MakePlan(value));
}

template <bool kBackLinks>
uint32_t BasicPackedArray<kBackLinks>::TotalBytes() const {
  return Load32(data_);
}

template <bool kBackLinks>
uint32_t BasicPackedArray<kBackLinks>::Count() const {
  return Load32(data_ + 4);
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::SetTotalBytes(uint32_t v) {
  Store32(data_, v);
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::SetCount(uint32_t v) {
  Store32(data_ + 4, v);
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::EntryInfo BasicPackedArray<kBackLinks>::Decode(
    Pos p) const {
  const auto* e = reinterpret_cast<const unsigned char*>(data_) + p;
  const unsigned char b = e[0];
  EntryInfo info{};
  if (b < kStr14) {
    info.header = 1;
    info.payload = b;
  } else if (b < kStr32) {
    info.header = 2;
    info.payload = (static_cast<uint32_t>(b & 0x3f) << 8) | e[1];
  } else if (b == kStr32) {
    info.header = 5;
    info.payload = Load32(reinterpret_cast<const char*>(e) + 1);
  } else {
    info.header = 1;
    info.int_bytes = b - kIntBase;
    info.payload = static_cast<uint32_t>(info.int_bytes);
  }
  const uint32_t body = info.header + info.payload;
  info.size = kBackLinks ? body + static_cast<uint32_t>(BackLinkSize(body)) : body;
  return info;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Next(Pos p) const {
  const auto b = static_cast<unsigned char>(data_[p]);
  if (b < kStr14) {
    // Short string: header byte plus payload, plus a one-byte back-link while the
    // entry stays under 128 bytes.
    return p + 1 + b + (kBackLinks ? (b < 127 ? 1 : 2) : 0);
  }
  return p + Decode(p).size;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Prev(Pos p) const
  requires kBackLinks
{
  const auto* q = reinterpret_cast<const unsigned char*>(data_) + p - 1;
  uint32_t body = 0;
  int shift = 0;
  uint32_t link_bytes = 0;
  while (true) {
    const unsigned char group = *q;
    body |= static_cast<uint32_t>(group & 0x7f) << shift;
    ++link_bytes;
    if ((group & 0x80) == 0) {
      break;
    }
    shift += 7;
    --q;
  }
  return p - link_bytes - body;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Seek(
    int64_t index) const {
  const int64_t n = static_cast<int64_t>(size());
  if (index < 0) {
    index += n;
  }
  if (index < 0 || index >= n) {
    return End();
  }
  if constexpr (kBackLinks) {
    if (index > n / 2) {
      Pos p = End();
      for (int64_t i = n; i > index; --i) {
        p = Prev(p);
      }
      return p;
    }
  }
  Pos p = Begin();
  for (int64_t i = 0; i < index; ++i) {
    p = Next(p);
  }
  return p;
}

template <bool kBackLinks>
Element BasicPackedArray<kBackLinks>::Get(Pos p) const {
  const EntryInfo info = Decode(p);
  const auto* payload = reinterpret_cast<const unsigned char*>(data_) + p + info.header;
  if (info.int_bytes > 0) {
    return Element(LoadInt(payload, info.int_bytes));
  }
  return Element(std::string_view(reinterpret_cast<const char*>(payload), info.payload));
}

template <bool kBackLinks>
std::optional<int64_t> BasicPackedArray<kBackLinks>::GetInt(Pos p) const {
  const EntryInfo info = Decode(p);
  if (info.int_bytes == 0) {
    return std::nullopt;
  }
  return LoadInt(reinterpret_cast<const unsigned char*>(data_) + p + info.header,
                 info.int_bytes);
}

template <bool kBackLinks>
size_t BasicPackedArray<kBackLinks>::ValueSize(Pos p) const {
  const EntryInfo info = Decode(p);
  if (info.int_bytes > 0) {
    char text[kMaxIntDigits];
    return FormatInt(
        LoadInt(reinterpret_cast<const unsigned char*>(data_) + p + info.header, info.int_bytes),
        text);
  }
  return info.payload;
}

template <bool kBackLinks>
bool BasicPackedArray<kBackLinks>::Equals(Pos p, const Probe& probe) const {
  const EntryInfo info = Decode(p);
  const char* payload = data_ + p + info.header;
  if (info.int_bytes > 0) {
    return probe.as_int().has_value() &&
           *probe.as_int() ==
               LoadInt(reinterpret_cast<const unsigned char*>(payload), info.int_bytes);
  }
  return info.payload == probe.bytes().size() &&
         std::memcmp(payload, probe.bytes().data(), info.payload) == 0;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Find(
    const Probe& probe, Pos from, size_t skip) const {
  const Pos end = End();
  Pos p = from;
  while (p < end) {
    if (Equals(p, probe)) {
      return p;
    }
    p = Next(p);
    for (size_t i = 0; i < skip && p < end; ++i) {
      p = Next(p);
    }
  }
  return end;
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::OpenGap(Pos p, size_t delta, size_t grow_to) {
  if (data_ == nullptr) {
    data_ = Reallocate(nullptr, kHeaderSize + delta);
    SetTotalBytes(static_cast<uint32_t>(kHeaderSize + delta));
    SetCount(0);
    return;
  }
  const size_t old_total = TotalBytes();
  const size_t new_total = old_total + delta;
  if (new_total > malloc_usable_size(data_)) {
    data_ = Reallocate(data_, new_total > grow_to ? new_total : grow_to);
  }
  std::memmove(data_ + p + delta, data_ + p, old_total - p);
  SetTotalBytes(static_cast<uint32_t>(new_total));
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::CloseGap(Pos p, size_t delta) {
  const size_t old_total = TotalBytes();
  const size_t new_total = old_total - delta;
  std::memmove(data_ + p, data_ + p + delta, old_total - p - delta);
  SetTotalBytes(static_cast<uint32_t>(new_total));
  // Give memory back once at least half the buffer is unused.
  const size_t usable = malloc_usable_size(data_);
  if (usable >= 2 * new_total && usable - new_total >= 32) {
    data_ = Reallocate(data_, new_total);
  }
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Insert(
    Pos p, std::string_view value, size_t grow_to) {
  const Plan plan = MakePlan(value);
  OpenGap(p, PlanSize<kBackLinks>(plan), grow_to);
  WriteEntry<kBackLinks>(data_ + p, plan, value);
  SetCount(Count() + 1);
  return p;
}

template <bool kBackLinks>
bool BasicPackedArray<kBackLinks>::InsertWithin(Pos p, std::string_view value, size_t max_bytes,
                                                size_t max_entries, size_t grow_to) {
  const Plan plan = MakePlan(value);
  const size_t entry = PlanSize<kBackLinks>(plan);
  const size_t now = data_ == nullptr ? kHeaderSize : TotalBytes();
  if (now + entry > max_bytes || size() + 1 > max_entries) {
    return false;
  }
  OpenGap(p, entry, grow_to);
  WriteEntry<kBackLinks>(data_ + p, plan, value);
  SetCount(Count() + 1);
  return true;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Replace(
    Pos p, std::string_view value) {
  const Plan plan = MakePlan(value);
  const size_t new_size = PlanSize<kBackLinks>(plan);
  const size_t old_size = Decode(p).size;
  if (new_size > old_size) {
    OpenGap(p, new_size - old_size);
  } else if (new_size < old_size) {
    CloseGap(p, old_size - new_size);
  }
  WriteEntry<kBackLinks>(data_ + p, plan, value);
  return p;
}

template <bool kBackLinks>
typename BasicPackedArray<kBackLinks>::Pos BasicPackedArray<kBackLinks>::Erase(Pos p,
                                                                               size_t n) {
  if (n == 0) {
    return p;
  }
  Pos q = p;
  for (size_t i = 0; i < n; ++i) {
    q = Next(q);
  }
  const uint32_t remaining = Count() - static_cast<uint32_t>(n);
  if (remaining == 0) {
    Clear();
    return Begin();
  }
  SetCount(remaining);
  CloseGap(p, q - p);
  return p;
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::Clear() {
  std::free(data_);
  data_ = nullptr;
}

template <bool kBackLinks>
BasicPackedArray<kBackLinks> BasicPackedArray<kBackLinks>::SplitAt(Pos p) {
  BasicPackedArray tail;
  const Pos end = End();
  if (p >= end) {
    return tail;
  }
  uint32_t moved = 0;
  for (Pos q = p; q < end; q = Next(q)) {
    ++moved;
  }
  const size_t tail_bytes = end - p;
  tail.data_ = Reallocate(nullptr, kHeaderSize + tail_bytes);
  std::memcpy(tail.data_ + kHeaderSize, data_ + p, tail_bytes);
  tail.SetTotalBytes(static_cast<uint32_t>(kHeaderSize + tail_bytes));
  tail.SetCount(moved);
  if (moved == Count()) {
    Clear();
  } else {
    SetCount(Count() - moved);
    SetTotalBytes(p);
    data_ = Reallocate(data_, p);
  }
  return tail;
}

template <bool kBackLinks>
void BasicPackedArray<kBackLinks>::AppendAll(const BasicPackedArray& other) {
  if (other.empty()) {
    return;
  }
  const size_t other_bytes = other.TotalBytes() - kHeaderSize;
  const Pos at = End();
  OpenGap(at, other_bytes);
  std::memcpy(data_ + at, other.data_ + kHeaderSize, other_bytes);
  SetCount(Count() + other.Count());
}

template class BasicPackedArray<false>;
template class BasicPackedArray<true>;

}  // namespace hotkv::types

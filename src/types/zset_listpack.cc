#include "types/zset_listpack.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "types/zset_entry.h"

namespace hotkv::types {

namespace {

static_assert(std::endian::native == std::endian::little, "score payloads are little-endian");

enum ScoreKind : uint8_t {
  kZero = 0,
  kInt8 = 1,
  kInt16 = 2,
  kInt24 = 3,
  kInt32 = 4,
  kInt48 = 5,
  kFloat = 6,
  kDouble = 7,
};

constexpr uint8_t kPayloadSize[8] = {0, 1, 2, 3, 4, 6, 4, 8};

ScoreKind KindOf(double score) {
  if (score == 0 && !std::signbit(score)) {
    return kZero;
  }
  constexpr double kInt48Limit = 140737488355328.0;  // 2^47
  if (score > -kInt48Limit && score < kInt48Limit && score == std::trunc(score) && score != 0) {
    const auto v = static_cast<int64_t>(score);
    if (v >= INT8_MIN && v <= INT8_MAX) {
      return kInt8;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
      return kInt16;
    }
    if (v >= -(int64_t{1} << 23) && v < (int64_t{1} << 23)) {
      return kInt24;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
      return kInt32;
    }
    return kInt48;
  }
  if (std::isinf(score) || std::fabs(score) <= FLT_MAX) {
    const auto f = static_cast<float>(score);
    if (static_cast<double>(f) == score) {  // also keeps -0.0 (its float is -0.0f)
      return kFloat;
    }
  }
  return kDouble;
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

void PutScore(uint8_t* p, ScoreKind kind, double score) {
  switch (kind) {
    case kZero:
      return;
    case kFloat: {
      const auto f = static_cast<float>(score);
      std::memcpy(p, &f, 4);
      return;
    }
    case kDouble:
      std::memcpy(p, &score, 8);
      return;
    default: {
      const auto v = static_cast<int64_t>(score);
      std::memcpy(p, &v, kPayloadSize[kind]);  // little-endian low bytes
      return;
    }
  }
}

double GetScore(const uint8_t* p, unsigned kind) {
  switch (kind) {
    case kZero:
      return 0.0;
    case kInt8:
      return static_cast<int8_t>(p[0]);
    case kInt16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case kDouble: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    default: {  // kInt24, kInt48: sign-extend the low bytes
      const unsigned n = kPayloadSize[kind];
      uint64_t u = 0;
      std::memcpy(&u, p, n);
      const int shift = 64 - static_cast<int>(8 * n);
      return static_cast<double>(static_cast<int64_t>(u << shift) >> shift);
    }
  }
}

struct HeaderFields {
  uint32_t bytes;
  uint32_t count;
};

HeaderFields ReadHeader(const uint8_t* buf) {
  HeaderFields h;
  std::memcpy(&h, buf, sizeof(h));
  return h;
}

void WriteHeader(uint8_t* buf, HeaderFields h) { std::memcpy(buf, &h, sizeof(h)); }

}  // namespace

ZListpack::~ZListpack() { std::free(buf_); }

ZListpack::ZListpack(ZListpack&& other) noexcept : buf_(std::exchange(other.buf_, nullptr)) {}

ZListpack& ZListpack::operator=(ZListpack&& other) noexcept {
  if (this != &other) {
    std::free(buf_);
    buf_ = std::exchange(other.buf_, nullptr);
  }
  return *this;
}

size_t ZListpack::size() const { return buf_ == nullptr ? 0 : ReadHeader(buf_).count; }

size_t ZListpack::payload_bytes() const { return buf_ == nullptr ? 0 : ReadHeader(buf_).bytes; }

size_t ZListpack::MemoryUsage() const { return ZAllocatedBytes(buf_); }

size_t ZListpack::EncodedSize(std::string_view member, double score) {
  const ScoreKind kind = KindOf(score);
  return VarintSize((uint64_t{member.size()} << 3) | kind) + member.size() + kPayloadSize[kind];
}

ZListpack::Header ZListpack::HeaderAt(size_t offset) const {
  const uint8_t* start = payload() + offset;
  const uint8_t* p = start;
  uint64_t header;
  if (*p < 0x80) {
    header = *p++;
  } else {
    header = 0;
    int shift = 0;
    while (*p & 0x80) {
      header |= static_cast<uint64_t>(*p++ & 0x7f) << shift;
      shift += 7;
    }
    header |= static_cast<uint64_t>(*p++) << shift;
  }
  Header h;
  h.kind = static_cast<unsigned>(header & 7);
  h.member = std::string_view(reinterpret_cast<const char*>(p), header >> 3);
  h.size = static_cast<size_t>(p - start) + h.member.size() + kPayloadSize[h.kind];
  return h;
}

ZListpack::Decoded ZListpack::DecodeAt(size_t offset) const {
  const Header h = HeaderAt(offset);
  const auto* score = reinterpret_cast<const uint8_t*>(h.member.data() + h.member.size());
  return {h.member, GetScore(score, h.kind), h.size};
}

double ZListpack::ScoreOf(const Header& h) {
  return GetScore(reinterpret_cast<const uint8_t*>(h.member.data() + h.member.size()), h.kind);
}

uint8_t* ZListpack::OpenGap(size_t offset, size_t extra) {
  const HeaderFields h = buf_ == nullptr ? HeaderFields{0, 0} : ReadHeader(buf_);
  const size_t needed = kHeaderSize + h.bytes + extra;
  if (buf_ == nullptr) {
    buf_ = static_cast<uint8_t*>(ZMalloc(needed));
  } else if (ZAllocatedBytes(buf_) < needed) {
    buf_ = static_cast<uint8_t*>(ZRealloc(buf_, needed));
  }
  std::memmove(payload() + offset + extra, payload() + offset, h.bytes - offset);
  WriteHeader(buf_, {static_cast<uint32_t>(h.bytes + extra), h.count + 1});
  return payload() + offset;
}

void ZListpack::CloseGap(size_t offset, size_t bytes, size_t removed_elements) {
  const HeaderFields h = ReadHeader(buf_);
  std::memmove(payload() + offset, payload() + offset + bytes, h.bytes - offset - bytes);
  const HeaderFields after{static_cast<uint32_t>(h.bytes - bytes),
                           static_cast<uint32_t>(h.count - removed_elements)};
  if (after.count == 0) {
    std::free(buf_);
    buf_ = nullptr;
    return;
  }
  WriteHeader(buf_, after);
  // Give memory back when a quarter or more of the buffer (and 64+ bytes) is unused.
  const size_t used = kHeaderSize + after.bytes;
  const size_t allocated = ZAllocatedBytes(buf_);
  if (allocated - used >= 64 && (allocated - used) * 4 >= allocated) {
    buf_ = static_cast<uint8_t*>(ZRealloc(buf_, used));
  }
}

void ZListpack::Reserve(size_t bytes) {
  const size_t needed = kHeaderSize + bytes;
  if (buf_ == nullptr) {
    buf_ = static_cast<uint8_t*>(ZMalloc(needed));
    WriteHeader(buf_, {0, 0});
  } else if (ZAllocatedBytes(buf_) < needed) {
    buf_ = static_cast<uint8_t*>(ZRealloc(buf_, needed));
  }
}

std::optional<ZListpack::Position> ZListpack::Find(std::string_view member) const {
  const size_t end = payload_bytes();
  size_t rank = 0;
  for (size_t off = 0; off < end; ++rank) {
    const Header h = HeaderAt(off);
    if (h.member == member) {
      return Position{rank, off, ScoreOf(h)};
    }
    off += h.size;
  }
  return std::nullopt;
}

void ZListpack::Insert(std::string_view member, double score) {
  // Redis's listpack keeps a score as text or an integer, so -0 reads back as 0.
  if (score == 0.0) {
    score = 0.0;
  }
  const size_t end = payload_bytes();
  size_t off = 0;
  while (off < end) {
    const Decoded d = DecodeAt(off);
    if (ZKeyLess(score, member, d.score, d.member)) {
      break;
    }
    off += d.size;
  }
  const ScoreKind kind = KindOf(score);
  const uint64_t header = (uint64_t{member.size()} << 3) | kind;
  uint8_t* p = OpenGap(off, VarintSize(header) + member.size() + kPayloadSize[kind]);
  p = PutVarint(p, header);
  if (!member.empty()) {
    std::memcpy(p, member.data(), member.size());
  }
  PutScore(p + member.size(), kind, score);
}

void ZListpack::Append(std::string_view member, double score) {
  const ScoreKind kind = KindOf(score);
  const uint64_t header = (uint64_t{member.size()} << 3) | kind;
  uint8_t* p = OpenGap(payload_bytes(), VarintSize(header) + member.size() + kPayloadSize[kind]);
  p = PutVarint(p, header);
  if (!member.empty()) {
    std::memcpy(p, member.data(), member.size());
  }
  PutScore(p + member.size(), kind, score);
}

void ZListpack::EraseAt(size_t offset) { CloseGap(offset, HeaderAt(offset).size, 1); }

size_t ZListpack::OffsetOfRank(size_t rank) const {
  size_t off = 0;
  for (size_t r = 0; r < rank; ++r) {
    off += HeaderAt(off).size;
  }
  return off;
}

void ZListpack::EraseRanks(size_t first, size_t count) {
  if (count == 0) {
    return;
  }
  const size_t begin = OffsetOfRank(first);
  size_t end = begin;
  for (size_t r = 0; r < count; ++r) {
    end += HeaderAt(end).size;
  }
  CloseGap(begin, end - begin, count);
}

size_t ZListpack::CountBelowScore(double score, bool inclusive) const {
  const size_t end = payload_bytes();
  size_t n = 0;
  for (size_t off = 0; off < end; ++n) {
    const Decoded d = DecodeAt(off);
    if (inclusive ? !(d.score <= score) : !(d.score < score)) {
      break;
    }
    off += d.size;
  }
  return n;
}

size_t ZListpack::CountBelowMember(std::string_view member, bool inclusive) const {
  const size_t end = payload_bytes();
  size_t n = 0;
  for (size_t off = 0; off < end; ++n) {
    const Header h = HeaderAt(off);
    const int c = CompareZMembers(h.member, member);
    if (inclusive ? c > 0 : c >= 0) {
      break;
    }
    off += h.size;
  }
  return n;
}

ZMemberScore ZListpack::At(size_t rank) const {
  const Decoded d = DecodeAt(OffsetOfRank(rank));
  return {d.member, d.score};
}

void ZListpack::Visit(size_t first, size_t count, bool reverse, ZVisitor visit) const {
  if (count == 0) {
    return;
  }
  size_t off = OffsetOfRank(first);
  if (!reverse) {
    for (size_t i = 0; i < count; ++i) {
      const Decoded d = DecodeAt(off);
      visit(d.member, d.score);
      off += d.size;
    }
    return;
  }
  // No back links in the encoding: collect the offsets, then walk them backwards.
  uint32_t local[256];
  std::vector<uint32_t> heap;
  uint32_t* offsets = local;
  if (count > 256) {
    heap.resize(count);
    offsets = heap.data();
  }
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = static_cast<uint32_t>(off);
    off += HeaderAt(off).size;
  }
  for (size_t i = count; i-- > 0;) {
    const Decoded d = DecodeAt(offsets[i]);
    visit(d.member, d.score);
  }
}

ZListpack ZListpack::Clone() const {
  ZListpack copy;
  if (buf_ != nullptr) {
    const size_t used = kHeaderSize + payload_bytes();
    copy.buf_ = static_cast<uint8_t*>(ZMalloc(used));
    std::memcpy(copy.buf_, buf_, used);
  }
  return copy;
}

bool ZListpack::Validate() const {
  if (buf_ == nullptr) {
    return true;
  }
  const HeaderFields h = ReadHeader(buf_);
  size_t n = 0;
  size_t off = 0;
  bool have_prev = false;
  Decoded prev{};
  while (off < h.bytes) {
    const Decoded d = DecodeAt(off);
    if (std::isnan(d.score) ||
        (have_prev && !ZKeyLess(prev.score, prev.member, d.score, d.member))) {
      return false;
    }
    prev = d;
    have_prev = true;
    off += d.size;
    ++n;
  }
  return off == h.bytes && n == h.count && kHeaderSize + h.bytes <= MemoryUsage();
}

}  // namespace hotkv::types

// ZListpack: the compact encoding of a small zset ("listpack" in OBJECT ENCODING).
//
// One malloc'ed buffer: an 8-byte header (payload bytes, element count) followed by
// the elements in (score, member) order, each encoded as
//
//   varint (member_length << 3 | score_kind)   1 byte for members under 16 bytes
//   member bytes                               binary safe
//   score payload                              0 to 8 bytes, by score_kind:
//     0: +0.0 (no bytes)   1: int8   2: int16   3: int24   4: int32   5: int48
//     6: float (exactly representable)   7: double
//
// so "user:1234" with score 17 takes 11 bytes, and a lex set (all scores 0) costs
// one byte per member on top of its bytes. Scores round-trip bit for bit (-0.0 and
// infinities included). Every operation is a linear walk, which is the point: the
// zset converts to ZTreeSet beyond ZSetLimits (128 elements by default).
//
// Thread safety: none; the owning zset's caller serializes access.

#ifndef HOTKV_TYPES_ZSET_LISTPACK_H_
#define HOTKV_TYPES_ZSET_LISTPACK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "types/zset_defs.h"

namespace hotkv::types {

class ZListpack {
 public:
  struct Position {
    size_t rank;
    size_t offset;  // of the element within the payload
    double score;
  };

  ZListpack() = default;
  ~ZListpack();
  ZListpack(ZListpack&& other) noexcept;
  ZListpack& operator=(ZListpack&& other) noexcept;
  ZListpack(const ZListpack&) = delete;
  ZListpack& operator=(const ZListpack&) = delete;

  size_t size() const;
  size_t payload_bytes() const;
  size_t MemoryUsage() const;  // bytes allocated for the buffer

  std::optional<Position> Find(std::string_view member) const;
  // Precondition: `member` is absent.
  void Insert(std::string_view member, double score);
  // Appends an element ordered after every present element (bulk builds).
  void Append(std::string_view member, double score);
  // Removes the element at `offset` (from Find).
  void EraseAt(size_t offset);
  // Removes ranks [first, first + count).
  void EraseRanks(size_t first, size_t count);
  void Reserve(size_t payload_bytes);

  size_t CountBelowScore(double score, bool inclusive) const;
  size_t CountBelowMember(std::string_view member, bool inclusive) const;
  ZMemberScore At(size_t rank) const;
  // Visits ranks [first, first + count), from the high end when `reverse`.
  void Visit(size_t first, size_t count, bool reverse, ZVisitor visit) const;

  template <typename F>
  void ForEach(F&& f) const {
    const size_t end = payload_bytes();
    for (size_t off = 0; off < end;) {
      const Decoded d = DecodeAt(off);
      f(d.member, d.score);
      off += d.size;
    }
  }

  ZListpack Clone() const;
  bool Validate() const;  // order and header consistency, for tests

  // Encoded size of one element.
  static size_t EncodedSize(std::string_view member, double score);

 private:
  struct Decoded {
    std::string_view member;
    double score;
    size_t size;
  };
  // An element's member and size without decoding its score (rank walks, lookups).
  struct Header {
    std::string_view member;
    unsigned kind;
    size_t size;
  };

  Header HeaderAt(size_t offset) const;
  static double ScoreOf(const Header& h);
  Decoded DecodeAt(size_t offset) const;
  uint8_t* payload() const { return buf_ + kHeaderSize; }
  size_t OffsetOfRank(size_t rank) const;
  // Makes room for `extra` payload bytes at `offset`, moving the tail.
  uint8_t* OpenGap(size_t offset, size_t extra);
  void CloseGap(size_t offset, size_t bytes, size_t removed_elements);

  static constexpr size_t kHeaderSize = 8;  // uint32 payload bytes, uint32 count
  uint8_t* buf_ = nullptr;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_LISTPACK_H_

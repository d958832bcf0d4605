// Packed arrays: a sequence of binary-safe strings in one contiguous allocation, the
// compact encoding behind small lists, hashes, sets (and sorted sets).
//
// Like Redis's listpack, a packed array is a byte buffer: an 8-byte header (total bytes,
// entry count) followed by entries, each a length-prefixed string. A string that is a
// canonical integer ("12345", see ParseCanonicalInt) is stored as a little-endian integer
// of 1..8 bytes when that is shorter than its text, and always reads back as the same
// text. Entry layout:
//
//   header  0x00-0x7f              string of 0..127 bytes        (1 byte)
//           0x80-0xbf + 1 byte     string of 128..16383 bytes    (2 bytes, 14-bit length)
//           0xc0 + 4 bytes         longer string                  (5 bytes, 32-bit length)
//           0xc1-0xc8              integer of 1..8 bytes follows  (1 byte)
//   payload the string's bytes or the integer
//   back-link (BidiPackedArray only): the entry's size written backwards in 7-bit groups,
//           so iteration can step from an entry to the one before it.
//
// Two flavours share the code: BidiPackedArray (with back-links; lists, and anything
// that walks from the tail) and PackedArray (forward only, one byte less per short entry;
// hash and set small encodings, where entries are few and only scanned forwards).
//
// Entries are addressed by Pos, the byte offset of an entry inside the buffer. Begin()
// is the first entry, End() is one past the last; a Pos is invalidated by any
// modification at or before it. The buffer grows to the exact size needed once its
// allocation (malloc_usable_size) is full, or to more when the inserting owner asks
// (lists grow their quicklist end nodes by half), and shrinks once less than half of it is used;
// an empty array owns no memory at all. Total size is limited to 4 GB.
//
//   hotkv::types::PackedArray a;
//   a.PushBack("field");
//   a.PushBack("12345");              // stored as a 2-byte integer
//   for (auto p = a.Begin(); p != a.End(); p = a.Next(p)) { use(a.Get(p).view()); }
//
// Thread safety: none; callers serialise access (the engine holds the shard lock).

#ifndef HOTKV_TYPES_PACKED_ARRAY_H_
#define HOTKV_TYPES_PACKED_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "types/element.h"

namespace hotkv::types {

// A string prepared for repeated comparison with packed entries: its integer value is
// parsed once, so integer-encoded entries compare without rendering their text.
class Probe {
 public:
  explicit Probe(std::string_view bytes) : bytes_(bytes), as_int_(ParseCanonicalInt(bytes)) {}
  std::string_view bytes() const { return bytes_; }
  const std::optional<int64_t>& as_int() const { return as_int_; }

 private:
  std::string_view bytes_;
  std::optional<int64_t> as_int_;
};

template <bool kBackLinks>
class BasicPackedArray {
 public:
  using Pos = uint32_t;
  static constexpr size_t kHeaderSize = 8;

  BasicPackedArray() = default;
  ~BasicPackedArray();
  BasicPackedArray(BasicPackedArray&& other) noexcept : data_(other.data_) {
    other.data_ = nullptr;
  }
  BasicPackedArray& operator=(BasicPackedArray&& other) noexcept;
  BasicPackedArray(const BasicPackedArray&) = delete;
  BasicPackedArray& operator=(const BasicPackedArray&) = delete;

  // A deep copy.
  BasicPackedArray Clone() const;

  // Number of entries.
  size_t size() const { return data_ == nullptr ? 0 : Count(); }
  bool empty() const { return data_ == nullptr; }
  // Encoded size in bytes, header included (0 when empty). Node limits compare this.
  size_t bytes() const { return data_ == nullptr ? 0 : TotalBytes(); }
  // Bytes allocated for the buffer (malloc_usable_size).
  size_t MemoryUsage() const;
  // Bytes an entry holding `value` would add to an array (BytesFor(v) <= 2 + v.size()
  // for short strings).
  static size_t BytesFor(std::string_view value);

  Pos Begin() const { return kHeaderSize; }
  Pos End() const { return data_ == nullptr ? kHeaderSize : TotalBytes(); }
  Pos Next(Pos p) const;
  // The entry before `p` (p > Begin()); p may be End().
  Pos Prev(Pos p) const
    requires kBackLinks;
  // Position of the entry at `index`; a negative index counts from the end (-1 is the
  // last). End() when out of range. Walks from the nearer end where back-links allow.
  Pos Seek(int64_t index) const;

  // The entry at `p` (p != End()).
  Element Get(Pos p) const;
  // The integer at `p` if the entry is stored as an integer.
  std::optional<int64_t> GetInt(Pos p) const;
  // Length of the entry's string (its decimal text for integers).
  size_t ValueSize(Pos p) const;
  bool Equals(Pos p, const Probe& probe) const;
  // First position at or after `from` whose entry equals `probe`, examining one entry
  // and then skipping `skip` entries (skip = 1 compares only the fields of a
  // field/value array). End() if none.
  Pos Find(const Probe& probe, Pos from = kHeaderSize, size_t skip = 0) const;

  // Inserts `value` before the entry at `p` (End() appends); returns the new entry's Pos.
  // If the allocation must grow, it grows to at least `grow_to` bytes (header included):
  // an owner that knows the array will keep growing passes more than it needs now.
  Pos Insert(Pos p, std::string_view value, size_t grow_to = 0);
  // Insert, only if the array then stays within `max_bytes` (header included; an empty
  // array counts as its header) and `max_entries`; false, changing nothing, otherwise.
  // One encoding plan for the check and the write (list pushes: BytesFor + Insert made
  // two).
  bool InsertWithin(Pos p, std::string_view value, size_t max_bytes, size_t max_entries,
                    size_t grow_to = 0);
  void PushBack(std::string_view value, size_t grow_to = 0) { Insert(End(), value, grow_to); }
  void PushFront(std::string_view value, size_t grow_to = 0) { Insert(Begin(), value, grow_to); }
  // Replaces the entry at `p`; returns `p`.
  Pos Replace(Pos p, std::string_view value);
  // Erases `n` entries starting at `p` (all must exist); returns the Pos that now holds
  // the entry which followed them.
  Pos Erase(Pos p, size_t n = 1);
  void Clear();

  // Moves the entries from `p` to the end into a new array, which it returns.
  BasicPackedArray SplitAt(Pos p);
  // Appends copies of all entries of `other`.
  void AppendAll(const BasicPackedArray& other);

 private:
  struct EntryInfo {
    uint32_t header;   // header bytes
    uint32_t payload;  // payload bytes
    uint32_t size;     // whole entry, back-link included
    int int_bytes;     // > 0: payload is an integer of this many bytes
  };

  uint32_t TotalBytes() const;
  uint32_t Count() const;
  void SetTotalBytes(uint32_t v);
  void SetCount(uint32_t v);
  EntryInfo Decode(Pos p) const;
  // Makes room for `delta` (> 0) more bytes at `p`, moving the tail; returns nothing, the
  // caller writes the gap. Allocates the buffer on first use; a growing buffer gets at
  // least `grow_to` bytes.
  void OpenGap(Pos p, size_t delta, size_t grow_to = 0);
  // Removes `delta` bytes at `p`, moving the tail back.
  void CloseGap(Pos p, size_t delta);

  char* data_ = nullptr;
};

// Forward-only packed array: the small encodings of hashes and sets.
using PackedArray = BasicPackedArray<false>;
// Packed array that also iterates backwards: lists (listpack and quicklist nodes).
using BidiPackedArray = BasicPackedArray<true>;

extern template class BasicPackedArray<false>;
extern template class BasicPackedArray<true>;

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_PACKED_ARRAY_H_

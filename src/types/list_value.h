// ListValue: the value of a Redis list (a sequence of binary-safe strings).
//
// Encodings, named as Redis 7.2 names them (OBJECT ENCODING):
//   "listpack"  — one BidiPackedArray holding every element, while the list fits one
//                 node of list-max-listpack-size (8 KB by default).
//   "quicklist" — a deque of BidiPackedArray nodes, each within the node limit (a single
//                 element larger than the limit gets a node of its own). Nodes split when
//                 an insert overfills them and neighbours merge after removals.
// A list converts to "quicklist" when it outgrows one node and never converts back.
// Node sizes are measured on HotKV's own entry encoding, so the element at which a list
// converts can differ slightly from Redis's.
//
// Costs: push and pop at either end are O(1) (amortised); LINDEX, LSET and LRANGE's start
// walk the node headers from the nearer end and then one node, O(nodes + node size);
// LRANGE then yields each element in O(1).
//
// Commands as thin wrappers:
//   LPUSH RPUSH (LPUSHX RPUSHX)   PushFront / PushBack(value, limits)
//   LPOP RPOP [count]             PopFront() / PopBack(), or the (count, emit) overloads
//   LLEN LINDEX LSET              size, Index(i) (negative from the tail), Set(i, v, limits)
//   LRANGE                        Range(start, stop, emit) with Redis's clamping
//   LREM LTRIM                    Remove(element, count), Trim(start, stop)
//   LINSERT                       Insert(pivot, element, before, limits)
//   LPOS                          Positions(element, rank, count, maxlen)
//   LMOVE RPOPLPUSH (BLMOVE...)   src.PopX() then dst.PushY(value, limits)
// Views handed to callbacks are valid during the call only, and callbacks must not
// modify the list.
//
// Thread safety: none; the engine holds the key's shard lock around every call.

#ifndef HOTKV_TYPES_LIST_VALUE_H_
#define HOTKV_TYPES_LIST_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/element.h"
#include "types/encoding_limits.h"
#include "types/function_ref.h"
#include "types/packed_array.h"

namespace hotkv::types {

class ListValue {
 public:
  enum class Encoding : uint8_t { kListpack, kQuicklist };

  ListValue();
  ~ListValue();
  ListValue(ListValue&&) noexcept;
  ListValue& operator=(ListValue&&) noexcept;

  // A deep copy (COPY).
  ListValue Clone() const;

  size_t size() const;
  bool empty() const { return size() == 0; }
  Encoding encoding() const { return quicklist_ ? Encoding::kQuicklist : Encoding::kListpack; }
  // "listpack" or "quicklist".
  const char* EncodingName() const;
  // Heap bytes this list owns (not counting sizeof(ListValue)).
  size_t MemoryUsage() const;
  // Number of packed nodes (1 for a non-empty "listpack").
  size_t NodeCount() const;
  // Checks the internal invariants (sizes add up, no empty node, every node with more
  // than one entry within the node limit); returns "" or the first violation. For tests.
  std::string Validate() const;

  void PushFront(std::string_view value, const EncodingLimits& limits);
  void PushBack(std::string_view value, const EncodingLimits& limits);
  // Removes and returns the first / last element; nullopt if the list is empty.
  std::optional<std::string> PopFront();
  std::optional<std::string> PopBack();
  // LPOP/RPOP with a count: emits up to `count` elements in pop order, removing each
  // after it was emitted; returns how many were popped.
  size_t PopFront(size_t count, FunctionRef<void(std::string_view)> emit);
  size_t PopBack(size_t count, FunctionRef<void(std::string_view)> emit);

  // The element at `index` (negative counts from the tail: -1 is the last); nullopt if
  // out of range.
  std::optional<Element> Index(int64_t index) const;
  // Replaces the element at `index`; false if out of range (LSET's "index out of range").
  bool Set(int64_t index, std::string_view value, const EncodingLimits& limits);
  // Emits the elements from `start` to `stop` inclusive, as LRANGE: negative indexes
  // count from the tail, start clamps to 0, stop to the last element, and an empty range
  // emits nothing.
  void Range(int64_t start, int64_t stop, FunctionRef<void(std::string_view)> emit) const;
  // Visits every element head to tail until `visit` returns false.
  void ForEach(FunctionRef<bool(std::string_view)> visit) const;

  // LREM: removes up to |count| elements equal to `element` scanning from the head
  // (count > 0) or the tail (count < 0), or all of them (count == 0); returns how many.
  size_t Remove(std::string_view element, int64_t count);
  // LTRIM: keeps only the elements from `start` to `stop` (LRANGE's rules); an empty
  // range empties the list.
  void Trim(int64_t start, int64_t stop);
  // LINSERT: inserts `element` before or after the first occurrence of `pivot` from the
  // head; false if `pivot` is absent.
  bool Insert(std::string_view pivot, std::string_view element, bool before,
              const EncodingLimits& limits);
  // LPOS: indexes (from the head) of elements equal to `element`. rank (!= 0) skips to
  // the rank-th match, scanning from the head if positive, from the tail if negative;
  // count caps the number of results (0 = all; LPOS without COUNT is count 1); maxlen
  // caps the elements compared (0 = no cap). Results are in scan order.
  std::vector<int64_t> Positions(std::string_view element, int64_t rank, int64_t count,
                                 int64_t maxlen) const;

 private:
  struct Quicklist;
  // An element's place: node number and position inside that node.
  struct Cursor {
    size_t node;
    BidiPackedArray::Pos pos;
  };

  BidiPackedArray& Node(size_t i);
  const BidiPackedArray& Node(size_t i) const;
  void AddToSize(int64_t delta);
  // Index of `index` (0 <= index < size()).
  Cursor Locate(size_t index) const;
  void Push(std::string_view value, bool front, const EncodingLimits& limits);
  std::optional<std::string> Pop(bool front);
  size_t PopMany(bool front, size_t count, FunctionRef<void(std::string_view)> emit);
  // Moves the listpack into the first node of a new quicklist.
  void ConvertToQuicklist(const ListNodeLimit& limit);
  // Splits node i while it is over the node limit and holds more than one entry.
  void SplitOversized(size_t i);
  // After node i grew in place (LSET, LINSERT): converts an overfull listpack to a
  // quicklist and splits the node if it is over the limit.
  void AfterNodeGrew(size_t i, const EncodingLimits& limits);
  // Drops node i if it is empty (quicklist only).
  void DropIfEmpty(size_t i);
  // Merges neighbouring nodes whose union fits the node limit (quicklist only).
  void MergeSmallNodes();
  // Erases `n` elements starting at `index` (all must exist).
  void EraseRange(size_t index, size_t n);
  // Applies LRANGE's clamping; false if the range is empty.
  bool ClampRange(int64_t& start, int64_t& stop) const;

  BidiPackedArray listpack_;              // "listpack": every element
  std::unique_ptr<Quicklist> quicklist_;  // "quicklist" when set; listpack_ is then empty
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_LIST_VALUE_H_

#include "types/list_value.h"

#include <malloc.h>

#include <algorithm>
#include <deque>
#include <string>

namespace hotkv::types {

struct ListValue::Quicklist {
  std::deque<BidiPackedArray> nodes;
  size_t size = 0;
  // The node limit of the latest call that passed EncodingLimits; removals use it to
  // decide which neighbours merge.
  ListNodeLimit limit;
};

namespace {

using Pos = BidiPackedArray::Pos;

// Whether `node` stays within `limit` after growing by `extra_bytes` and `extra_entries`.
bool Fits(const BidiPackedArray& node, size_t extra_bytes, size_t extra_entries,
          const ListNodeLimit& limit) {
  const size_t bytes = (node.empty() ? BidiPackedArray::kHeaderSize : node.bytes()) + extra_bytes;
  return node.size() + extra_entries <= limit.max_entries && bytes <= limit.max_bytes;
}

}  // namespace

ListValue::ListValue() = default;
ListValue::~ListValue() = default;
ListValue::ListValue(ListValue&&) noexcept = default;
ListValue& ListValue::operator=(ListValue&&) noexcept = default;

ListValue ListValue::Clone() const {
  ListValue copy;
  if (quicklist_) {
    copy.quicklist_ = std::make_unique<Quicklist>();
    copy.quicklist_->size = quicklist_->size;
    copy.quicklist_->limit = quicklist_->limit;
    for (const BidiPackedArray& node : quicklist_->nodes) {
      copy.quicklist_->nodes.push_back(node.Clone());
    }
  } else {
    copy.listpack_ = listpack_.Clone();
  }
  return copy;
}

size_t ListValue::size() const { return quicklist_ ? quicklist_->size : listpack_.size(); }

const char* ListValue::EncodingName() const { return quicklist_ ? "quicklist" : "listpack"; }

size_t ListValue::MemoryUsage() const {
  if (!quicklist_) {
    return listpack_.MemoryUsage();
  }
  size_t bytes = malloc_usable_size(quicklist_.get());
  for (const BidiPackedArray& node : quicklist_->nodes) {
    bytes += node.MemoryUsage();
  }
  // std::deque's own blocks (libstdc++: 512-byte blocks of 64 node handles, plus a map
  // of block pointers); an estimate, as the deque does not expose them.
  bytes += (quicklist_->nodes.size() / 64 + 1) * 512 + 64;
  return bytes;
}

size_t ListValue::NodeCount() const {
  if (quicklist_) {
    return quicklist_->nodes.size();
  }
  return listpack_.empty() ? 0 : 1;
}

std::string ListValue::Validate() const {
  if (!quicklist_) {
    return "";
  }
  size_t total = 0;
  for (size_t i = 0; i < quicklist_->nodes.size(); ++i) {
    const BidiPackedArray& node = quicklist_->nodes[i];
    if (node.empty()) {
      return "node " + std::to_string(i) + " is empty";
    }
    if (node.size() > 1 && !Fits(node, 0, 0, quicklist_->limit)) {
      return "node " + std::to_string(i) + " is over the limit: " +
             std::to_string(node.size()) + " entries, " + std::to_string(node.bytes()) +
             " bytes";
    }
    total += node.size();
  }
  if (total != quicklist_->size) {
    return "nodes hold " + std::to_string(total) + " elements, size is " +
           std::to_string(quicklist_->size);
  }
  return "";
}

BidiPackedArray& ListValue::Node(size_t i) { return quicklist_ ? quicklist_->nodes[i] : listpack_; }

const BidiPackedArray& ListValue::Node(size_t i) const {
  return quicklist_ ? quicklist_->nodes[i] : listpack_;
}

void ListValue::AddToSize(int64_t delta) {
  if (quicklist_) {
    quicklist_->size = static_cast<size_t>(static_cast<int64_t>(quicklist_->size) + delta);
  }
}

void ListValue::ConvertToQuicklist(const ListNodeLimit& limit) {
  auto quicklist = std::make_unique<Quicklist>();
  quicklist->limit = limit;
  quicklist->size = listpack_.size();
  if (!listpack_.empty()) {
    quicklist->nodes.push_back(std::move(listpack_));
  }
  quicklist_ = std::move(quicklist);
}

void ListValue::DropIfEmpty(size_t i) {
  if (quicklist_ && quicklist_->nodes[i].empty()) {
    quicklist_->nodes.erase(quicklist_->nodes.begin() + static_cast<ptrdiff_t>(i));
  }
}

void ListValue::SplitOversized(size_t i) {
  std::deque<BidiPackedArray>& nodes = quicklist_->nodes;
  if (nodes[i].size() <= 1 || Fits(nodes[i], 0, 0, quicklist_->limit)) {
    return;
  }
  BidiPackedArray tail = nodes[i].SplitAt(nodes[i].Seek(static_cast<int64_t>(nodes[i].size() / 2)));
  nodes.insert(nodes.begin() + static_cast<ptrdiff_t>(i) + 1, std::move(tail));
  SplitOversized(i + 1);
  SplitOversized(i);
}

void ListValue::AfterNodeGrew(size_t i, const EncodingLimits& limits) {
  const ListNodeLimit limit = ListNodeLimitFor(limits.list_max_listpack_size);
  if (!quicklist_) {
    if (Fits(listpack_, 0, 0, limit)) {
      return;
    }
    ConvertToQuicklist(limit);
  }
  quicklist_->limit = limit;
  SplitOversized(i);
}

void ListValue::MergeSmallNodes() {
  if (!quicklist_) {
    return;
  }
  std::deque<BidiPackedArray>& nodes = quicklist_->nodes;
  for (size_t i = 0; i + 1 < nodes.size();) {
    const BidiPackedArray& next = nodes[i + 1];
    if (Fits(nodes[i], next.bytes() - BidiPackedArray::kHeaderSize, next.size(),
             quicklist_->limit)) {
      nodes[i].AppendAll(next);
      nodes.erase(nodes.begin() + static_cast<ptrdiff_t>(i) + 1);
    } else {
      ++i;
    }
  }
}

ListValue::Cursor ListValue::Locate(size_t index) const {
  if (!quicklist_) {
    return Cursor{0, listpack_.Seek(static_cast<int64_t>(index))};
  }
  const std::deque<BidiPackedArray>& nodes = quicklist_->nodes;
  if (index < quicklist_->size / 2) {
    for (size_t i = 0;; ++i) {
      const size_t n = nodes[i].size();
      if (index < n) {
        return Cursor{i, nodes[i].Seek(static_cast<int64_t>(index))};
      }
      index -= n;
    }
  }
  // Walk from the tail: `from_tail` is 1 for the last element.
  size_t from_tail = quicklist_->size - index;
  for (size_t i = nodes.size(); i-- > 0;) {
    const size_t n = nodes[i].size();
    if (from_tail <= n) {
      return Cursor{i, nodes[i].Seek(static_cast<int64_t>(n - from_tail))};
    }
    from_tail -= n;
  }
  return Cursor{0, BidiPackedArray::kHeaderSize};  // unreachable for a valid index
}

void ListValue::Push(std::string_view value, bool front, const EncodingLimits& limits) {
  const ListNodeLimit limit = ListNodeLimitFor(limits.list_max_listpack_size);
  if (!quicklist_) {
    if (listpack_.InsertWithin(front ? listpack_.Begin() : listpack_.End(), value,
                               limit.max_bytes, limit.max_entries)) {
      return;
    }
    ConvertToQuicklist(limit);
  }
  Quicklist& ql = *quicklist_;
  ql.limit = limit;
  if (!ql.nodes.empty()) {
    BidiPackedArray& node = front ? ql.nodes.front() : ql.nodes.back();
    // An end node of a quicklist keeps growing: grow its allocation by half at a time (up
    // to the node limit) instead of to the next size class on every push, which copied
    // the node every one or two pushes. 1.5x stays clear of the shrink-at-half rule of
    // removals, so alternating pushes and pops do not reallocate each time.
    const size_t grow_to = std::min(limit.max_bytes, node.bytes() + node.bytes() / 2);
    if (node.InsertWithin(front ? node.Begin() : node.End(), value, limit.max_bytes,
                          limit.max_entries, grow_to)) {
      ++ql.size;
      return;
    }
  }
  // A new end node (which takes the element even if it alone is over the limit).
  if (front) {
    ql.nodes.emplace_front();
    ql.nodes.front().PushFront(value);
  } else {
    ql.nodes.emplace_back();
    ql.nodes.back().PushBack(value);
  }
  ++ql.size;
}

void ListValue::PushFront(std::string_view value, const EncodingLimits& limits) {
  Push(value, /*front=*/true, limits);
}

void ListValue::PushBack(std::string_view value, const EncodingLimits& limits) {
  Push(value, /*front=*/false, limits);
}

std::optional<std::string> ListValue::Pop(bool front) {
  std::optional<std::string> value;
  PopMany(front, 1, [&](std::string_view v) { value.emplace(v); });
  return value;
}

std::optional<std::string> ListValue::PopFront() { return Pop(/*front=*/true); }

std::optional<std::string> ListValue::PopBack() { return Pop(/*front=*/false); }

size_t ListValue::PopMany(bool front, size_t count, FunctionRef<void(std::string_view)> emit) {
  size_t popped = 0;
  while (popped < count && !empty()) {
    const size_t i = front ? 0 : NodeCount() - 1;
    BidiPackedArray& node = Node(i);
    const Pos p = front ? node.Begin() : node.Prev(node.End());
    emit(node.Get(p).view());
    node.Erase(p);
    AddToSize(-1);
    DropIfEmpty(i);
    ++popped;
  }
  return popped;
}

size_t ListValue::PopFront(size_t count, FunctionRef<void(std::string_view)> emit) {
  return PopMany(/*front=*/true, count, emit);
}

size_t ListValue::PopBack(size_t count, FunctionRef<void(std::string_view)> emit) {
  return PopMany(/*front=*/false, count, emit);
}

std::optional<Element> ListValue::Index(int64_t index) const {
  const int64_t n = static_cast<int64_t>(size());
  if (index < 0) {
    index += n;
  }
  if (index < 0 || index >= n) {
    return std::nullopt;
  }
  const Cursor c = Locate(static_cast<size_t>(index));
  return Node(c.node).Get(c.pos);
}

bool ListValue::Set(int64_t index, std::string_view value, const EncodingLimits& limits) {
  const int64_t n = static_cast<int64_t>(size());
  if (index < 0) {
    index += n;
  }
  if (index < 0 || index >= n) {
    return false;
  }
  const Cursor c = Locate(static_cast<size_t>(index));
  Node(c.node).Replace(c.pos, value);
  AfterNodeGrew(c.node, limits);
  return true;
}

bool ListValue::ClampRange(int64_t& start, int64_t& stop) const {
  const int64_t n = static_cast<int64_t>(size());
  if (start < 0) {
    start += n;
  }
  if (stop < 0) {
    stop += n;
  }
  if (start < 0) {
    start = 0;
  }
  if (start > stop || start >= n) {
    return false;
  }
  if (stop >= n) {
    stop = n - 1;
  }
  return true;
}

void ListValue::Range(int64_t start, int64_t stop,
                      FunctionRef<void(std::string_view)> emit) const {
  if (!ClampRange(start, stop)) {
    return;
  }
  Cursor c = Locate(static_cast<size_t>(start));
  uint64_t left = static_cast<uint64_t>(stop - start) + 1;
  while (true) {
    const BidiPackedArray& node = Node(c.node);
    for (Pos p = c.pos; p != node.End(); p = node.Next(p)) {
      emit(node.Get(p).view());
      if (--left == 0) {
        return;
      }
    }
    ++c.node;
    c.pos = BidiPackedArray::kHeaderSize;
  }
}

void ListValue::ForEach(FunctionRef<bool(std::string_view)> visit) const {
  for (size_t i = 0; i < NodeCount(); ++i) {
    const BidiPackedArray& node = Node(i);
    for (Pos p = node.Begin(); p != node.End(); p = node.Next(p)) {
      if (!visit(node.Get(p).view())) {
        return;
      }
    }
  }
}

size_t ListValue::Remove(std::string_view element, int64_t count) {
  const Probe probe(element);
  const uint64_t limit = count == 0 ? UINT64_MAX
                         : count > 0 ? static_cast<uint64_t>(count)
                                     : 0 - static_cast<uint64_t>(count);
  uint64_t removed = 0;
  if (count >= 0) {
    for (size_t i = 0; i < NodeCount() && removed < limit;) {
      BidiPackedArray& node = Node(i);
      for (Pos p = node.Begin(); p != node.End() && removed < limit;) {
        if (node.Equals(p, probe)) {
          p = node.Erase(p);
          ++removed;
        } else {
          p = node.Next(p);
        }
      }
      if (quicklist_ && node.empty()) {
        DropIfEmpty(i);
      } else {
        ++i;
      }
    }
  } else {
    for (size_t i = NodeCount(); i-- > 0 && removed < limit;) {
      BidiPackedArray& node = Node(i);
      for (Pos p = node.End(); p != node.Begin() && removed < limit;) {
        const Pos q = node.Prev(p);
        if (node.Equals(q, probe)) {
          node.Erase(q);
          ++removed;
        }
        p = q;
      }
      DropIfEmpty(i);
    }
  }
  AddToSize(-static_cast<int64_t>(removed));
  if (removed != 0) {
    MergeSmallNodes();
  }
  return static_cast<size_t>(removed);
}

void ListValue::EraseRange(size_t index, size_t n) {
  if (n == 0) {
    return;
  }
  Cursor c = Locate(index);
  while (n > 0) {
    BidiPackedArray& node = Node(c.node);
    size_t k = 0;
    for (Pos q = c.pos; k < n && q != node.End(); q = node.Next(q)) {
      ++k;
    }
    node.Erase(c.pos, k);
    n -= k;
    AddToSize(-static_cast<int64_t>(k));
    if (quicklist_ && node.empty()) {
      DropIfEmpty(c.node);
    } else {
      ++c.node;
    }
    c.pos = BidiPackedArray::kHeaderSize;
  }
}

void ListValue::Trim(int64_t start, int64_t stop) {
  if (!ClampRange(start, stop)) {
    listpack_.Clear();
    if (quicklist_) {
      quicklist_->nodes.clear();
      quicklist_->size = 0;
    }
    return;
  }
  const size_t n = size();
  EraseRange(static_cast<size_t>(stop) + 1, n - static_cast<size_t>(stop) - 1);
  EraseRange(0, static_cast<size_t>(start));
  MergeSmallNodes();
}

bool ListValue::Insert(std::string_view pivot, std::string_view element, bool before,
                       const EncodingLimits& limits) {
  const Probe probe(pivot);
  for (size_t i = 0; i < NodeCount(); ++i) {
    BidiPackedArray& node = Node(i);
    for (Pos p = node.Begin(); p != node.End(); p = node.Next(p)) {
      if (!node.Equals(p, probe)) {
        continue;
      }
      node.Insert(before ? p : node.Next(p), element);
      AddToSize(1);
      AfterNodeGrew(i, limits);
      return true;
    }
  }
  return false;
}

std::vector<int64_t> ListValue::Positions(std::string_view element, int64_t rank, int64_t count,
                                          int64_t maxlen) const {
  std::vector<int64_t> found;
  if (rank == 0) {
    return found;
  }
  const Probe probe(element);
  const bool from_head = rank > 0;
  // Matches to pass over before reporting (|rank| - 1), computed without overflow.
  const uint64_t skip = (from_head ? static_cast<uint64_t>(rank) : 0 - static_cast<uint64_t>(rank)) - 1;
  const int64_t n = static_cast<int64_t>(size());
  uint64_t matches = 0;
  int64_t scanned = 0;
  // Returns false once the scan must stop.
  auto visit = [&](const BidiPackedArray& node, Pos p) {
    if (maxlen > 0 && scanned >= maxlen) {
      return false;
    }
    if (node.Equals(p, probe) && matches++ >= skip) {
      found.push_back(from_head ? scanned : n - 1 - scanned);
      if (count > 0 && static_cast<int64_t>(found.size()) >= count) {
        return false;
      }
    }
    ++scanned;
    return true;
  };
  if (from_head) {
    for (size_t i = 0; i < NodeCount(); ++i) {
      const BidiPackedArray& node = Node(i);
      for (Pos p = node.Begin(); p != node.End(); p = node.Next(p)) {
        if (!visit(node, p)) {
          return found;
        }
      }
    }
  } else {
    for (size_t i = NodeCount(); i-- > 0;) {
      const BidiPackedArray& node = Node(i);
      for (Pos p = node.End(); p != node.Begin();) {
        p = node.Prev(p);
        if (!visit(node, p)) {
          return found;
        }
      }
    }
  }
  return found;
}

}  // namespace hotkv::types

// ZScoreTree: node management, search, insertion. Removal is in zset_tree_erase.cc;
// bulk build, teardown and validation in zset_tree_build.cc.

#include "types/zset_tree.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "types/zset_tree_node.h"

namespace hotkv::types {

using Leaf = ZScoreTree::Leaf;
using Inner = ZScoreTree::Inner;

ZEntry* ZScoreTree::Iterator::entry() const {
  return leaf_ == nullptr ? nullptr : leaf_->items[index_];
}

void ZScoreTree::Iterator::Next() {
  if (++index_ >= leaf_->count) {
    leaf_ = leaf_->next;
    index_ = 0;
  }
}

void ZScoreTree::Iterator::Prev() {
  if (--index_ < 0) {
    leaf_ = leaf_->prev;
    index_ = leaf_ == nullptr ? 0 : leaf_->count - 1;
  }
}

ZScoreTree::ZScoreTree(ZScoreTree&& other) noexcept
    : root_(std::exchange(other.root_, nullptr)),
      height_(std::exchange(other.height_, 0)),
      size_(std::exchange(other.size_, 0)),
      first_(std::exchange(other.first_, nullptr)),
      last_(std::exchange(other.last_, nullptr)),
      node_bytes_(std::exchange(other.node_bytes_, 0)) {}

ZScoreTree& ZScoreTree::operator=(ZScoreTree&& other) noexcept {
  if (this != &other) {
    FreeSubtree(root_, height_);
    root_ = std::exchange(other.root_, nullptr);
    height_ = std::exchange(other.height_, 0);
    size_ = std::exchange(other.size_, 0);
    first_ = std::exchange(other.first_, nullptr);
    last_ = std::exchange(other.last_, nullptr);
    node_bytes_ = std::exchange(other.node_bytes_, 0);
  }
  return *this;
}

ZScoreTree::~ZScoreTree() { FreeSubtree(root_, height_); }

ZScoreTree::Leaf* ZScoreTree::NewLeaf() {
  auto* leaf = static_cast<Leaf*>(ZMalloc(sizeof(Leaf)));
  leaf->count = 0;
  leaf->unused = 0;
  leaf->prev = nullptr;
  leaf->next = nullptr;
  node_bytes_ += ZAllocatedBytes(leaf);
  return leaf;
}

ZScoreTree::Inner* ZScoreTree::NewInner() {
  auto* inner = static_cast<Inner*>(ZMalloc(sizeof(Inner)));
  inner->count = 0;
  inner->unused = 0;
  inner->seps[0] = nullptr;
  inner->sep_scores[0] = 0;
  node_bytes_ += ZAllocatedBytes(inner);
  return inner;
}

void ZScoreTree::FreeLeaf(Leaf* leaf) {
  node_bytes_ -= ZAllocatedBytes(leaf);
  std::free(leaf);
}

void ZScoreTree::FreeInner(Inner* inner) {
  node_bytes_ -= ZAllocatedBytes(inner);
  std::free(inner);
}

void ZScoreTree::FreeSubtree(void* node, int level) {
  if (node == nullptr) {
    return;
  }
  if (level == 1) {
    FreeLeaf(static_cast<Leaf*>(node));
    return;
  }
  auto* inner = static_cast<Inner*>(node);
  for (int i = 0; i < inner->count; ++i) {
    FreeSubtree(inner->children[i], level - 1);
  }
  FreeInner(inner);
}

ZScoreTree::Leaf* ZScoreTree::DescendToKey(double score, std::string_view member, PathStep* path,
                                           int* depth, int64_t delta) const {
  void* node = root_;
  int d = 0;
  for (int level = height_; level > 1; --level) {
    auto* inner = static_cast<Inner*>(node);
    const int i = RouteKey(inner, score, member);
    inner->sizes[i] += static_cast<size_t>(delta);
    path[d++] = {inner, i};
    node = inner->children[i];
  }
  *depth = d;
  return static_cast<Leaf*>(node);
}

ZScoreTree::Leaf* ZScoreTree::DescendToRank(size_t rank, PathStep* path, int* depth,
                                            size_t* offset) const {
  void* node = root_;
  int d = 0;
  for (int level = height_; level > 1; --level) {
    auto* inner = static_cast<Inner*>(node);
    int i = 0;
    while (rank >= inner->sizes[i]) {
      rank -= inner->sizes[i];
      ++i;
    }
    if (path != nullptr) {
      path[d++] = {inner, i};
    }
    node = inner->children[i];
  }
  if (depth != nullptr) {
    *depth = d;
  }
  *offset = rank;
  return static_cast<Leaf*>(node);
}

void ZScoreTree::Insert(ZEntry* entry) {
  if (root_ == nullptr) {
    Leaf* leaf = NewLeaf();
    leaf->items[0] = entry;
    leaf->count = 1;
    root_ = leaf;
    height_ = 1;
    first_ = last_ = leaf;
    size_ = 1;
    return;
  }
  PathStep path[kMaxHeight];
  int depth = 0;
  const double score = entry->score();
  const std::string_view member = entry->member();
  Leaf* leaf = DescendToKey(score, member, path, &depth, +1);
  const int pos = LeafLowerBound(leaf, score, member);
  ++size_;
  // Routing guarantees pos > 0 unless this is the first leaf, so no separator changes.
  if (leaf->count < kLeafCapacity) {
    std::memmove(&leaf->items[pos + 1], &leaf->items[pos],
                 (leaf->count - pos) * sizeof(leaf->items[0]));
    leaf->items[pos] = entry;
    ++leaf->count;
    return;
  }
  if (depth > 0 && ShiftIntoSibling(leaf, pos, entry, path[depth - 1])) {
    return;
  }
  InsertIntoFullLeaf(leaf, pos, entry, path, depth);
}

bool ZScoreTree::ShiftIntoSibling(Leaf* leaf, int pos, ZEntry* entry, PathStep step) {
  Inner* parent = step.node;
  const int i = step.index;
  // Ascending / descending runs split unevenly instead (see InsertIntoFullLeaf).
  if ((leaf == last_ && pos == kLeafCapacity) || (leaf == first_ && pos == 0)) {
    return false;
  }
  if (i + 1 < parent->count) {
    auto* right = static_cast<Leaf*>(parent->children[i + 1]);
    if (right->count < kLeafCapacity - 1) {
      // Move the last k entries of `leaf` to the front of `right`.
      const int k = (kLeafCapacity - right->count) / 2;
      const int keep = kLeafCapacity - k;
      std::memmove(&right->items[k], right->items, right->count * sizeof(ZEntry*));
      std::memcpy(right->items, &leaf->items[keep], k * sizeof(ZEntry*));
      right->count += k;
      leaf->count = keep;
      if (pos <= keep) {
        std::memmove(&leaf->items[pos + 1], &leaf->items[pos], (keep - pos) * sizeof(ZEntry*));
        leaf->items[pos] = entry;
        ++leaf->count;
      } else {
        const int rpos = pos - keep;
        std::memmove(&right->items[rpos + 1], &right->items[rpos],
                     (right->count - rpos) * sizeof(ZEntry*));
        right->items[rpos] = entry;
        ++right->count;
      }
      parent->sizes[i] = leaf->count;
      parent->sizes[i + 1] = right->count;
      parent->seps[i + 1] = right->items[0];
      parent->sep_scores[i + 1] = right->items[0]->score();
      return true;
    }
  }
  if (i > 0) {
    auto* left = static_cast<Leaf*>(parent->children[i - 1]);
    if (left->count < kLeafCapacity - 1) {
      // Move the first k entries of `leaf` to the end of `left`.
      const int k = (kLeafCapacity - left->count) / 2;
      std::memcpy(&left->items[left->count], leaf->items, k * sizeof(ZEntry*));
      left->count += k;
      std::memmove(leaf->items, &leaf->items[k], (kLeafCapacity - k) * sizeof(ZEntry*));
      leaf->count = kLeafCapacity - k;
      if (pos < k) {
        const int lpos = left->count - k + pos;
        std::memmove(&left->items[lpos + 1], &left->items[lpos],
                     (left->count - lpos) * sizeof(ZEntry*));
        left->items[lpos] = entry;
        ++left->count;
      } else {
        const int lpos = pos - k;
        std::memmove(&leaf->items[lpos + 1], &leaf->items[lpos],
                     (leaf->count - lpos) * sizeof(ZEntry*));
        leaf->items[lpos] = entry;
        ++leaf->count;
      }
      parent->sizes[i - 1] = left->count;
      parent->sizes[i] = leaf->count;
      parent->seps[i] = leaf->items[0];
      parent->sep_scores[i] = leaf->items[0]->score();
      return true;
    }
  }
  return false;
}

void ZScoreTree::InsertIntoFullLeaf(Leaf* leaf, int pos, ZEntry* entry, PathStep* path, int depth) {
  constexpr int kTotal = kLeafCapacity + 1;
  ZEntry* items[kTotal];
  std::memcpy(items, leaf->items, pos * sizeof(items[0]));
  items[pos] = entry;
  std::memcpy(items + pos + 1, leaf->items + pos, (kLeafCapacity - pos) * sizeof(items[0]));
  int split = kTotal / 2;
  if (leaf == last_ && pos == kLeafCapacity) {
    split = kLeafCapacity;  // ascending inserts (timestamps): keep the full leaf full
  } else if (leaf == first_ && pos == 0) {
    split = 1;  // descending inserts
  }
  Leaf* right = NewLeaf();
  std::memcpy(leaf->items, items, split * sizeof(items[0]));
  leaf->count = split;
  std::memcpy(right->items, items + split, (kTotal - split) * sizeof(items[0]));
  right->count = kTotal - split;
  right->prev = leaf;
  right->next = leaf->next;
  if (leaf->next != nullptr) {
    leaf->next->prev = right;
  } else {
    last_ = right;
  }
  leaf->next = right;
  InsertChild(path, depth, right, right->items[0], split, kTotal - split);
}

void ZScoreTree::InsertChild(PathStep* path, int depth, void* right, ZEntry* right_min,
                             size_t left_size, size_t right_size) {
  if (depth == 0) {  // the node that split was the root: grow a level
    Inner* root = NewInner();
    root->count = 2;
    root->children[0] = root_;
    root->children[1] = right;
    root->sizes[0] = left_size;
    root->sizes[1] = right_size;
    root->seps[1] = right_min;
    root->sep_scores[1] = right_min->score();
    root_ = root;
    ++height_;
    return;
  }
  Inner* parent = path[depth - 1].node;
  const int i = path[depth - 1].index;
  const int at = i + 1;
  parent->sizes[i] = left_size;
  if (parent->count < kInnerCapacity) {
    const int tail = parent->count - at;
    std::memmove(&parent->sizes[at + 1], &parent->sizes[at], tail * sizeof(size_t));
    std::memmove(&parent->sep_scores[at + 1], &parent->sep_scores[at], tail * sizeof(double));
    std::memmove(&parent->seps[at + 1], &parent->seps[at], tail * sizeof(ZEntry*));
    std::memmove(&parent->children[at + 1], &parent->children[at], tail * sizeof(void*));
    parent->sizes[at] = right_size;
    parent->sep_scores[at] = right_min->score();
    parent->seps[at] = right_min;
    parent->children[at] = right;
    ++parent->count;
    return;
  }

  // Split the full parent around the new child.
  constexpr int kTotal = kInnerCapacity + 1;
  size_t sizes[kTotal];
  double sep_scores[kTotal];
  ZEntry* seps[kTotal];
  void* children[kTotal];
  for (int src = 0, dst = 0; dst < kTotal; ++dst) {
    if (dst == at) {
      sizes[dst] = right_size;
      sep_scores[dst] = right_min->score();
      seps[dst] = right_min;
      children[dst] = right;
    } else {
      sizes[dst] = parent->sizes[src];
      sep_scores[dst] = parent->sep_scores[src];
      seps[dst] = parent->seps[src];
      children[dst] = parent->children[src];
      ++src;
    }
  }
  bool rightmost = true;
  bool leftmost = true;
  for (int d = 0; d < depth - 1; ++d) {
    rightmost = rightmost && path[d].index == path[d].node->count - 1;
    leftmost = leftmost && path[d].index == 0;
  }
  int split = kTotal / 2;
  if (rightmost && at == kInnerCapacity) {
    split = kInnerCapacity;
  } else if (leftmost && at == 1) {
    split = 2;
  }
  Inner* sibling = NewInner();
  parent->count = split;
  sibling->count = kTotal - split;
  size_t left_sum = 0;
  for (int k = 0; k < split; ++k) {
    parent->sizes[k] = sizes[k];
    parent->sep_scores[k] = sep_scores[k];
    parent->seps[k] = seps[k];
    parent->children[k] = children[k];
    left_sum += sizes[k];
  }
  size_t right_sum = 0;
  for (int k = split; k < kTotal; ++k) {
    sibling->sizes[k - split] = sizes[k];
    sibling->sep_scores[k - split] = sep_scores[k];
    sibling->seps[k - split] = seps[k];
    sibling->children[k - split] = children[k];
    right_sum += sizes[k];
  }
  InsertChild(path, depth - 1, sibling, seps[split], left_sum, right_sum);
}

void ZScoreTree::UpdateScore(ZEntry* entry, double new_score) {
  PathStep path[kMaxHeight];
  int depth = 0;
  const std::string_view member = entry->member();
  Leaf* leaf = DescendToKey(entry->score(), member, path, &depth, 0);
  const int pos = LeafLowerBound(leaf, entry->score(), member);
  // The first entry of a leaf other than the first may be a separator (with a
  // copied score), so it always takes the slow path.
  if (pos > 0 || leaf == first_) {
    const bool after_prev = pos > 0 ? EntryBefore(leaf->items[pos - 1], new_score, member) : true;
    const bool before_next =
        pos + 1 < leaf->count ? KeyBefore(new_score, member, leaf->items[pos + 1]) : leaf == last_;
    if (after_prev && before_next) {
      entry->set_score(new_score);
      return;
    }
  }
  for (int d = 0; d < depth; ++d) {
    --path[d].node->sizes[path[d].index];
  }
  RemoveFromLeaf(leaf, pos, 1, path, depth);
  entry->set_score(new_score);
  Insert(entry);
}

size_t ZScoreTree::Rank(const ZEntry* entry) const {
  const double score = entry->score();
  const std::string_view member = entry->member();
  size_t rank = 0;
  void* node = root_;
  for (int level = height_; level > 1; --level) {
    auto* inner = static_cast<Inner*>(node);
    const int i = RouteKey(inner, score, member);
    for (int c = 0; c < i; ++c) {
      rank += inner->sizes[c];
    }
    node = inner->children[i];
  }
  return rank + LeafLowerBound(static_cast<Leaf*>(node), score, member);
}

size_t ZScoreTree::CountBelowScore(double score, bool inclusive) const {
  if (root_ == nullptr) {
    return 0;
  }
  auto below = [score, inclusive](double s) { return inclusive ? s <= score : s < score; };
  size_t rank = 0;
  void* node = root_;
  for (int level = height_; level > 1; --level) {
    auto* inner = static_cast<Inner*>(node);
    int lo = 1;
    int hi = inner->count;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (below(inner->sep_scores[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (int c = 0; c < lo - 1; ++c) {
      rank += inner->sizes[c];
    }
    node = inner->children[lo - 1];
  }
  auto* leaf = static_cast<Leaf*>(node);
  int lo = 0;
  int hi = leaf->count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (below(leaf->items[mid]->score())) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return rank + lo;
}

size_t ZScoreTree::CountBelowMember(std::string_view member, bool inclusive) const {
  if (root_ == nullptr) {
    return 0;
  }
  auto below = [member, inclusive](const ZEntry* e) {
    const int c = CompareZMembers(e->member(), member);
    return inclusive ? c <= 0 : c < 0;
  };
  size_t rank = 0;
  void* node = root_;
  for (int level = height_; level > 1; --level) {
    auto* inner = static_cast<Inner*>(node);
    int lo = 1;
    int hi = inner->count;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (below(inner->seps[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (int c = 0; c < lo - 1; ++c) {
      rank += inner->sizes[c];
    }
    node = inner->children[lo - 1];
  }
  auto* leaf = static_cast<Leaf*>(node);
  int lo = 0;
  int hi = leaf->count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (below(leaf->items[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return rank + lo;
}

ZScoreTree::Iterator ZScoreTree::Seek(size_t rank) const {
  if (rank >= size_) {
    return Iterator(nullptr, 0);
  }
  size_t offset = 0;
  Leaf* leaf = DescendToRank(rank, nullptr, nullptr, &offset);
  return Iterator(leaf, static_cast<int>(offset));
}

}  // namespace hotkv::types

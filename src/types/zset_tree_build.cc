// ZScoreTree: bulk build, teardown and invariant checks.

#include <vector>

#include "types/zset_tree.h"
#include "types/zset_tree_node.h"

namespace hotkv::types {

void ZScoreTree::BuildFromSorted(ZEntry* const* entries, size_t n) {
  Clear([](ZEntry*) {});
  if (n == 0) {
    return;
  }
  // Leaves as full as possible, the remainder spread so no leaf is underfull.
  std::vector<void*> nodes;
  std::vector<size_t> sizes;
  std::vector<ZEntry*> mins;
  const size_t leaves = (n + kLeafCapacity - 1) / kLeafCapacity;
  nodes.reserve(leaves);
  sizes.reserve(leaves);
  mins.reserve(leaves);
  size_t next = 0;
  Leaf* prev = nullptr;
  for (size_t li = 0; li < leaves; ++li) {
    const size_t take = n / leaves + (li < n % leaves ? 1 : 0);
    Leaf* leaf = NewLeaf();
    for (size_t k = 0; k < take; ++k) {
      leaf->items[k] = entries[next + k];
    }
    leaf->count = static_cast<int32_t>(take);
    leaf->prev = prev;
    if (prev != nullptr) {
      prev->next = leaf;
    } else {
      first_ = leaf;
    }
    prev = leaf;
    nodes.push_back(leaf);
    sizes.push_back(take);
    mins.push_back(entries[next]);
    next += take;
  }
  last_ = prev;
  int height = 1;
  while (nodes.size() > 1) {
    const size_t m = nodes.size();
    const size_t groups = (m + kInnerCapacity - 1) / kInnerCapacity;
    std::vector<void*> up_nodes;
    std::vector<size_t> up_sizes;
    std::vector<ZEntry*> up_mins;
    size_t k = 0;
    for (size_t g = 0; g < groups; ++g) {
      const size_t take = m / groups + (g < m % groups ? 1 : 0);
      Inner* inner = NewInner();
      size_t sum = 0;
      for (size_t c = 0; c < take; ++c) {
        inner->children[c] = nodes[k + c];
        inner->sizes[c] = sizes[k + c];
        inner->seps[c] = mins[k + c];
        inner->sep_scores[c] = mins[k + c]->score();
        sum += sizes[k + c];
      }
      inner->count = static_cast<int32_t>(take);
      up_nodes.push_back(inner);
      up_sizes.push_back(sum);
      up_mins.push_back(mins[k]);
      k += take;
    }
    nodes.swap(up_nodes);
    sizes.swap(up_sizes);
    mins.swap(up_mins);
    ++height;
  }
  root_ = nodes[0];
  height_ = height;
  size_ = n;
}

void ZScoreTree::Clear(ZFunctionRef<void(ZEntry*)> on_entry) {
  for (Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    for (int i = 0; i < leaf->count; ++i) {
      on_entry(leaf->items[i]);
    }
  }
  FreeSubtree(root_, height_);
  root_ = nullptr;
  height_ = 0;
  size_ = 0;
  first_ = last_ = nullptr;
}

bool ZScoreTree::ValidateNode(const void* node, int level, const ZEntry** prev,
                              size_t* count) const {
  if (level == 1) {
    const auto* leaf = static_cast<const Leaf*>(node);
    if (leaf->count <= 0 || leaf->count > kLeafCapacity) {
      return false;
    }
    for (int i = 0; i < leaf->count; ++i) {
      const ZEntry* e = leaf->items[i];
      if (*prev != nullptr && !ZEntryLess(*prev, e)) {
        return false;
      }
      *prev = e;
    }
    // Leaves are visited in order, so the chain must continue from the previous one.
    if (leaf->prev == nullptr ? leaf != first_ : leaf->prev->next != leaf) {
      return false;
    }
    *count += leaf->count;
    return true;
  }
  const auto* inner = static_cast<const Inner*>(node);
  if (inner->count <= 0 || inner->count > kInnerCapacity) {
    return false;
  }
  for (int i = 0; i < inner->count; ++i) {
    // Smallest entry under the child.
    const void* n = inner->children[i];
    for (int l = level - 1; l > 1; --l) {
      n = static_cast<const Inner*>(n)->children[0];
    }
    const ZEntry* child_min = static_cast<const Leaf*>(n)->items[0];
    if (i > 0 && (inner->seps[i] != child_min || inner->sep_scores[i] != child_min->score())) {
      return false;
    }
    size_t child_count = 0;
    if (!ValidateNode(inner->children[i], level - 1, prev, &child_count)) {
      return false;
    }
    if (child_count != inner->sizes[i]) {
      return false;
    }
    *count += child_count;
  }
  return true;
}

bool ZScoreTree::Validate() const {
  if (root_ == nullptr) {
    return height_ == 0 && size_ == 0 && first_ == nullptr && last_ == nullptr;
  }
  if (height_ > 1 && static_cast<const Inner*>(root_)->count < 2) {
    return false;
  }
  const ZEntry* prev = nullptr;
  size_t count = 0;
  if (!ValidateNode(root_, height_, &prev, &count) || count != size_) {
    return false;
  }
  // The leaf chain must list the same entries in the same order.
  size_t chained = 0;
  const ZEntry* last_seen = nullptr;
  const Leaf* tail = nullptr;
  for (const Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    if (leaf->prev != tail) {
      return false;
    }
    for (int i = 0; i < leaf->count; ++i) {
      if (last_seen != nullptr && !ZEntryLess(last_seen, leaf->items[i])) {
        return false;
      }
      last_seen = leaf->items[i];
    }
    chained += leaf->count;
    tail = leaf;
  }
  return chained == size_ && tail == last_;
}

}  // namespace hotkv::types

// ZScoreTree: removal of one entry or a rank range, and the rebalancing after it
// (merging underfull nodes, keeping separators exact, collapsing the root).

#include <cstdlib>
#include <cstring>

#include "types/zset_tree.h"
#include "types/zset_tree_node.h"

namespace hotkv::types {

using Leaf = ZScoreTree::Leaf;
using Inner = ZScoreTree::Inner;

void ZScoreTree::Erase(const ZEntry* entry) {
  PathStep path[kMaxHeight];
  int depth = 0;
  Leaf* leaf = DescendToKey(entry->score(), entry->member(), path, &depth, -1);
  const int pos = LeafLowerBound(leaf, entry->score(), entry->member());
  RemoveFromLeaf(leaf, pos, 1, path, depth);
}

void ZScoreTree::SetMin(PathStep* path, int depth, ZEntry* new_min) {
  for (int d = depth - 1; d >= 0; --d) {
    if (path[d].index > 0) {
      path[d].node->seps[path[d].index] = new_min;
      path[d].node->sep_scores[path[d].index] = new_min->score();
      return;
    }
  }
}

void ZScoreTree::Unlink(Leaf* leaf) {
  if (leaf->prev != nullptr) {
    leaf->prev->next = leaf->next;
  } else {
    first_ = leaf->next;
  }
  if (leaf->next != nullptr) {
    leaf->next->prev = leaf->prev;
  } else {
    last_ = leaf->prev;
  }
}

void ZScoreTree::RemoveFromLeaf(Leaf* leaf, int pos, int count, PathStep* path, int depth) {
  std::memmove(&leaf->items[pos], &leaf->items[pos + count],
               (leaf->count - pos - count) * sizeof(leaf->items[0]));
  leaf->count -= count;
  size_ -= count;
  if (leaf->count == 0) {
    RemoveNode(leaf, /*is_leaf=*/true, path, depth);
    return;
  }
  if (pos == 0) {
    SetMin(path, depth, leaf->items[0]);
  }
  if (leaf->count < kLeafMinFill && depth > 0) {
    MergeLeaf(leaf, path, depth);
  }
}

void ZScoreTree::RemoveNode(void* node, bool is_leaf, PathStep* path, int depth) {
  if (is_leaf) {
    Unlink(static_cast<Leaf*>(node));
    FreeLeaf(static_cast<Leaf*>(node));
  } else {
    FreeInner(static_cast<Inner*>(node));
  }
  if (depth == 0) {
    root_ = nullptr;
    height_ = 0;
    return;
  }
  Inner* parent = path[depth - 1].node;
  const int i = path[depth - 1].index;
  RemoveChildAt(parent, i);
  if (parent->count == 0) {
    RemoveNode(parent, /*is_leaf=*/false, path, depth - 1);
    return;
  }
  if (i == 0) {
    SetMin(path, depth - 1, parent->seps[0]);  // old seps[1]: the new first child's min
  }
  FixInner(parent, path, depth - 1);
}

void ZScoreTree::FixInner(Inner* inner, PathStep* path, int depth) {
  if (depth == 0) {
    // The root: drop levels that have a single child.
    while (height_ > 1 && static_cast<Inner*>(root_)->count == 1) {
      auto* old_root = static_cast<Inner*>(root_);
      root_ = old_root->children[0];
      --height_;
      FreeInner(old_root);
    }
    return;
  }
  if (inner->count < kInnerMinFill) {
    MergeInner(inner, path, depth);
  }
}

void ZScoreTree::MergeLeaf(Leaf* leaf, PathStep* path, int depth) {
  Inner* parent = path[depth - 1].node;
  const int i = path[depth - 1].index;
  if (i > 0) {
    auto* left = static_cast<Leaf*>(parent->children[i - 1]);
    if (left->count + leaf->count <= kLeafCapacity) {
      std::memcpy(&left->items[left->count], leaf->items, leaf->count * sizeof(ZEntry*));
      left->count += leaf->count;
      parent->sizes[i - 1] += parent->sizes[i];
      Unlink(leaf);
      FreeLeaf(leaf);
      RemoveChildAt(parent, i);
      FixInner(parent, path, depth - 1);
      return;
    }
  }
  if (i + 1 < parent->count) {
    auto* right = static_cast<Leaf*>(parent->children[i + 1]);
    if (leaf->count + right->count <= kLeafCapacity) {
      std::memcpy(&leaf->items[leaf->count], right->items, right->count * sizeof(ZEntry*));
      leaf->count += right->count;
      parent->sizes[i] += parent->sizes[i + 1];
      Unlink(right);
      FreeLeaf(right);
      RemoveChildAt(parent, i + 1);
      FixInner(parent, path, depth - 1);
    }
  }
}

void ZScoreTree::MergeInner(Inner* inner, PathStep* path, int depth) {
  Inner* parent = path[depth - 1].node;
  const int j = path[depth - 1].index;
  // Appends all children of `from` to `to`; `from_min` is the smallest entry under
  // `from` (the parent's separator for it), which becomes the separator of its
  // first child inside `to`.
  auto append = [](Inner* to, Inner* from, ZEntry* from_min, double from_min_score) {
    const int base = to->count;
    const int n = from->count;
    std::memcpy(&to->sizes[base], from->sizes, n * sizeof(size_t));
    std::memcpy(&to->sep_scores[base], from->sep_scores, n * sizeof(double));
    std::memcpy(&to->seps[base], from->seps, n * sizeof(ZEntry*));
    std::memcpy(&to->children[base], from->children, n * sizeof(void*));
    to->seps[base] = from_min;
    to->sep_scores[base] = from_min_score;
    to->count += n;
  };
  if (j > 0) {
    auto* left = static_cast<Inner*>(parent->children[j - 1]);
    if (left->count + inner->count <= kInnerCapacity) {
      append(left, inner, parent->seps[j], parent->sep_scores[j]);
      parent->sizes[j - 1] += parent->sizes[j];
      FreeInner(inner);
      RemoveChildAt(parent, j);
      FixInner(parent, path, depth - 1);
      return;
    }
  }
  if (j + 1 < parent->count) {
    auto* right = static_cast<Inner*>(parent->children[j + 1]);
    if (inner->count + right->count <= kInnerCapacity) {
      append(inner, right, parent->seps[j + 1], parent->sep_scores[j + 1]);
      parent->sizes[j] += parent->sizes[j + 1];
      FreeInner(right);
      RemoveChildAt(parent, j + 1);
      FixInner(parent, path, depth - 1);
    }
  }
}

void ZScoreTree::EraseRange(size_t first, size_t count, ZFunctionRef<void(ZEntry*)> on_erase) {
  while (count > 0 && first < size_) {
    PathStep path[kMaxHeight];
    int depth = 0;
    size_t offset = 0;
    Leaf* leaf = DescendToRank(first, path, &depth, &offset);
    const size_t available = static_cast<size_t>(leaf->count) - offset;
    const int k = static_cast<int>(count < available ? count : available);
    for (int j = 0; j < k; ++j) {
      on_erase(leaf->items[offset + j]);
    }
    for (int d = 0; d < depth; ++d) {
      path[d].node->sizes[path[d].index] -= k;
    }
    RemoveFromLeaf(leaf, static_cast<int>(offset), k, path, depth);
    count -= k;
  }
}

}  // namespace hotkv::types

// Node layouts of ZScoreTree (private to zset_tree*.cc).

#ifndef HOTKV_TYPES_ZSET_TREE_NODE_H_
#define HOTKV_TYPES_ZSET_TREE_NODE_H_

#include <cstddef>
#include <cstdint>

#include "types/zset_tree.h"

namespace hotkv::types {

struct ZScoreTree::Leaf {
  int32_t count;
  int32_t unused;
  Leaf* prev;
  Leaf* next;
  ZEntry* items[kLeafCapacity];
};
static_assert(sizeof(ZScoreTree::Leaf) == 512);

struct ZScoreTree::Inner {
  int32_t count;  // children
  int32_t unused;
  size_t sizes[kInnerCapacity];        // entries under each child
  double sep_scores[kInnerCapacity];   // sep_scores[i] == seps[i]->score(), i >= 1
  ZEntry* seps[kInnerCapacity];        // smallest entry under children[i], i >= 1
  void* children[kInnerCapacity];      // Inner* or Leaf*, by level
};
static_assert(sizeof(ZScoreTree::Inner) <= 2048);

// Entries of the tree below which node deletion merges a node into a sibling.
constexpr int kLeafMinFill = ZScoreTree::kLeafCapacity / 4;
constexpr int kInnerMinFill = ZScoreTree::kInnerCapacity / 4;

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_TREE_NODE_H_

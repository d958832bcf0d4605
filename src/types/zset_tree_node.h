// Node layouts of ZScoreTree (private to zset_tree*.cc).

#ifndef HOTKV_TYPES_ZSET_TREE_NODE_H_
#define HOTKV_TYPES_ZSET_TREE_NODE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

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
  size_t sizes[kInnerCapacity];       // entries under each child
  double sep_scores[kInnerCapacity];  // sep_scores[i] == seps[i]->score(), i >= 1
  ZEntry* seps[kInnerCapacity];       // smallest entry under children[i], i >= 1
  void* children[kInnerCapacity];     // Inner* or Leaf*, by level
};
static_assert(sizeof(ZScoreTree::Inner) <= 2048);

// Fill below which a node is merged into a sibling (when they fit in one) after a
// removal.
constexpr int kLeafMinFill = ZScoreTree::kLeafCapacity / 4;
constexpr int kInnerMinFill = ZScoreTree::kInnerCapacity / 4;

// Is the key (score, member) ordered before `e`?
inline bool KeyBefore(double score, std::string_view member, const ZEntry* e) {
  return score < e->score() || (score == e->score() && member < e->member());
}

// Is `e` ordered before the key (score, member)?
inline bool EntryBefore(const ZEntry* e, double score, std::string_view member) {
  return e->score() < score || (e->score() == score && e->member() < member);
}

// The child of `n` whose range holds the key: the last i with i == 0 or seps[i] <= key.
inline int RouteKey(const ZScoreTree::Inner* n, double score, std::string_view member) {
  int lo = 1;
  int hi = n->count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const double s = n->sep_scores[mid];
    if (s > score || (s == score && member < n->seps[mid]->member())) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo - 1;
}

// First position in `leaf` whose entry is not before the key.
inline int LeafLowerBound(const ZScoreTree::Leaf* leaf, double score, std::string_view member) {
  int lo = 0;
  int hi = leaf->count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (EntryBefore(leaf->items[mid], score, member)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

inline void RemoveChildAt(ZScoreTree::Inner* n, int i) {
  const int tail = n->count - i - 1;
  if (tail > 0) {
    std::memmove(&n->sizes[i], &n->sizes[i + 1], tail * sizeof(n->sizes[0]));
    std::memmove(&n->sep_scores[i], &n->sep_scores[i + 1], tail * sizeof(n->sep_scores[0]));
    std::memmove(&n->seps[i], &n->seps[i + 1], tail * sizeof(n->seps[0]));
    std::memmove(&n->children[i], &n->children[i + 1], tail * sizeof(n->children[0]));
  }
  --n->count;
}

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_TREE_NODE_H_

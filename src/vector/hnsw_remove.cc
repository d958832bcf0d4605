// HnswIndex: removal with graph repair, and deferred reclamation.
//
// Removing node X (RemoveNode):
//  1. X's state becomes kDeleted: searches still walk through it but never return it,
//     and inserts stop linking to it (AddBacklink checks the state under the lock).
//  2. Referrers of X are collected per layer: X's own neighbours (links are mostly
//     mutual) plus every node whose list contains X among the nodes a beam search
//     for X's vector expands (catches most one-way links into X).
//  3. Each referrer A drops X and, if that leaves room, gains links to X's former
//     neighbours chosen with the paper's diversity heuristic against A's remaining
//     links — A never loses another link, so nobody else loses an in-link. Then every
//     former neighbour of X that no referrer links to gets a link from the nearest
//     referrer with room, so nodes X alone pointed to stay reachable.
//  4. If X was the entry point, its highest-level live neighbour replaces it.
//  5. X's state becomes kFree and it is retired with an epoch tag; once no search
//     that began before can still run, its meta blob is freed and its slot reused.
// Links into X that step 2 missed stay behind; they are harmless (the state word
// makes readers skip a free or recycled slot's old contents) and are dropped when
// their list is next rewritten.
#include <algorithm>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "vector/epoch.h"
#include "vector/hnsw_index.h"
#include "vector/hnsw_internal.h"

namespace hotkv::vector {

using internal::Cand;
using internal::kFree;
using internal::kLive;
using internal::Meta;
using internal::NodeLock;

bool HnswIndex::Remove(std::string_view label) {
  {
    std::shared_lock writers(writers_mu_);
    std::lock_guard label_lock(LabelLock(label));
    EpochGuard guard;
    std::optional<uint32_t> id = labels_.Erase(label);
    if (!id.has_value()) {
      return false;
    }
    RemoveNode(*id);
  }
  Reclaim();
  return true;
}

void HnswIndex::RemoveNode(uint32_t x) {
  uint8_t* node = Node(x);
  internal::StateRef(node, layout_).store(internal::kDeleted, std::memory_order_release);
  const uint32_t level = internal::NodeLevel(node);
  const uint8_t* record = internal::Record(node, layout_);

  // Step 2: find referrers with a beam search around X at each of its layers.
  std::vector<std::vector<uint32_t>> referrers(level + 1);
  Entry entry = LoadEntry();
  if (entry.level >= 0) {
    Scratch& s = internal::ThreadScratch();
    auto [cur, cur_dist] = GreedyDescent(record, entry, static_cast<int>(level));
    for (int l = std::min(static_cast<int>(level), entry.level); l >= 0; --l) {
      s.referrers.clear();
      SearchLayer(record, cur, cur_dist, options_.ef_construction, static_cast<uint32_t>(l), s,
                  x);
      referrers[static_cast<size_t>(l)] = s.referrers;
      float best = std::numeric_limits<float>::max();
      for (const Cand& c : s.top.items()) {
        if (c.dist < best) {
          best = c.dist;
          cur = c.id;
          cur_dist = c.dist;
        }
      }
      s.top.clear();
    }
  }

  // Step 3: repair each layer.
  std::vector<uint32_t> out;
  for (uint32_t l = 0; l <= level; ++l) {
    out.clear();
    {
      NodeLock lock(node);
      uint8_t* list = internal::ListPtr(node, l, layout_);
      const uint32_t n = std::min(internal::LoadCount(list), internal::ListCapacity(l, layout_));
      for (uint32_t i = 0; i < n; ++i) {
        out.push_back(internal::LoadId(list, i));
      }
    }
    RepairLevel(x, l, out, referrers[l]);
  }

  ReplaceEntryPoint(x);
  RetireNode(x);
}

void HnswIndex::RepairLevel(uint32_t removed, uint32_t level, const std::vector<uint32_t>& out,
                            const std::vector<uint32_t>& referrers) {
  const uint32_t cap = internal::ListCapacity(level, layout_);
  // Replacement pool: X's live former neighbours at this layer.
  std::vector<uint32_t> pool;
  for (uint32_t id : out) {
    const uint8_t* nb = Node(id);
    if (id != removed && internal::LoadState(nb, layout_) == kLive &&
        internal::NodeLevel(nb) >= level) {
      pool.push_back(id);
    }
  }
  // Nodes to fix: everything that may link to X.
  std::vector<uint32_t> fixers = out;
  fixers.insert(fixers.end(), referrers.begin(), referrers.end());
  std::sort(fixers.begin(), fixers.end());
  fixers.erase(std::unique(fixers.begin(), fixers.end()), fixers.end());
  // Only live nodes: reading a freed slot's record could race with its reuse.
  fixers.erase(std::remove_if(fixers.begin(), fixers.end(),
                              [&](uint32_t id) {
                                return id == removed ||
                                       internal::LoadState(Node(id), layout_) != kLive;
                              }),
               fixers.end());

  const size_t np = pool.size();
  // dist[i][j] between pool members (computed once), and per fixer to the pool.
  std::vector<float> pool_dist(np * np, 0.0f);
  for (size_t i = 0; i < np; ++i) {
    const uint8_t* rec = internal::Record(Node(pool[i]), layout_);
    for (size_t j = i + 1; j < np; ++j) {
      pool_dist[i * np + j] = pool_dist[j * np + i] = Distance(rec, pool[j]);
    }
  }
  std::unordered_map<uint32_t, size_t> pool_index;
  for (size_t i = 0; i < np; ++i) {
    pool_index.emplace(pool[i], i);
  }

  std::vector<char> covered(np, 0);
  std::vector<std::vector<float>> fixer_dist(fixers.size());
  std::vector<uint32_t> links;
  std::vector<size_t> order;
  std::vector<size_t> picks;
  for (size_t f = 0; f < fixers.size(); ++f) {
    const uint32_t a = fixers[f];
    uint8_t* a_node = Node(a);
    const uint8_t* a_rec = internal::Record(a_node, layout_);
    std::vector<float>& da = fixer_dist[f];
    da.resize(np);
    auto self = pool_index.find(a);
    for (size_t i = 0; i < np; ++i) {
      da[i] = self != pool_index.end() ? pool_dist[self->second * np + i] : Distance(a_rec, pool[i]);
    }

    NodeLock lock(a_node);
    if (internal::LoadState(a_node, layout_) != kLive || internal::NodeLevel(a_node) < level) {
      continue;
    }
    uint8_t* list = internal::ListPtr(a_node, level, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), cap);
    const uint32_t old_clean = std::min(internal::LoadCleanPrefix(list), n);
    uint32_t clean = 0;  // What stays of the clean prefix is still one (node_store.h).
    links.clear();
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = internal::LoadId(list, i);
      // Drop X and links to slots already freed (stale links left by earlier removals).
      if (id == removed || internal::LoadState(Node(id), layout_) == kFree) {
        continue;
      }
      clean += i < old_clean ? 1 : 0;
      links.push_back(id);
      auto it = pool_index.find(id);
      if (it != pool_index.end()) {
        covered[it->second] = 1;
      }
    }
    // Diverse replacements from the pool, nearest first.
    order.clear();
    for (size_t i = 0; i < np; ++i) {
      if (pool[i] != a && std::find(links.begin(), links.end(), pool[i]) == links.end()) {
        order.push_back(i);
      }
    }
    std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return da[i] < da[j]; });
    picks.clear();
    for (size_t i : order) {
      if (links.size() >= cap) {
        break;
      }
      const float d = da[i];
      bool good = true;
      for (size_t p : picks) {
        if (pool_dist[i * np + p] < d) {
          good = false;
          break;
        }
      }
      if (good) {
        const uint8_t* rec = internal::Record(Node(pool[i]), layout_);
        for (size_t e = 0; e < links.size() - picks.size() && good; ++e) {
          good = Distance(rec, links[e]) >= d;
        }
      }
      if (good) {
        picks.push_back(i);
        links.push_back(pool[i]);
        covered[i] = 1;
      }
    }
    for (size_t i = 0; i < links.size(); ++i) {
      internal::StoreId(list, static_cast<uint32_t>(i), links[i]);
    }
    internal::StoreCount(list, static_cast<uint32_t>(links.size()), clean);
  }

  // Former neighbours of X that nobody links to yet: link from the nearest fixer with
  // room, so they keep an in-link.
  for (size_t i = 0; i < np; ++i) {
    if (covered[i]) {
      continue;
    }
    order.clear();
    for (size_t f = 0; f < fixers.size(); ++f) {
      if (fixers[f] != pool[i] && !fixer_dist[f].empty()) {
        order.push_back(f);
      }
    }
    std::sort(order.begin(), order.end(),
              [&](size_t f, size_t g) { return fixer_dist[f][i] < fixer_dist[g][i]; });
    for (size_t f : order) {
      uint8_t* a_node = Node(fixers[f]);
      NodeLock lock(a_node);
      if (internal::LoadState(a_node, layout_) != kLive || internal::NodeLevel(a_node) < level) {
        continue;
      }
      uint8_t* list = internal::ListPtr(a_node, level, layout_);
      const uint32_t n = std::min(internal::LoadCount(list), cap);
      bool present = false;
      for (uint32_t j = 0; j < n && !present; ++j) {
        present = internal::LoadId(list, j) == pool[i];
      }
      if (!present && n < cap) {
        internal::StoreId(list, n, pool[i]);
        internal::StoreCount(list, n + 1);
        present = true;
      }
      if (present) {
        break;
      }
    }
  }
}

void HnswIndex::ReplaceEntryPoint(uint32_t removed) {
  std::lock_guard lock(entry_mu_);
  Entry entry = LoadEntry();
  if (entry.level < 0 || entry.id != removed) {
    return;
  }
  uint8_t* node = Node(removed);
  // The highest-level live neighbour, searching from X's top layer down.
  for (int l = static_cast<int>(internal::NodeLevel(node)); l >= 0; --l) {
    const uint32_t lvl = static_cast<uint32_t>(l);
    uint8_t* list = internal::ListPtr(node, lvl, layout_);
    const uint32_t n = std::min(internal::LoadCount(list), internal::ListCapacity(lvl, layout_));
    int best_level = -1;
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = internal::LoadId(list, i);
      const uint8_t* nb = Node(id);
      if (internal::LoadState(nb, layout_) == kLive &&
          static_cast<int>(internal::NodeLevel(nb)) > best_level) {
        best_level = static_cast<int>(internal::NodeLevel(nb));
        best = id;
      }
    }
    if (best_level >= 0) {
      StoreEntry(best, best_level);
      return;
    }
  }
  // X had no live neighbour: scan for the highest-level live node (rare).
  int best_level = -1;
  uint32_t best = 0;
  const uint32_t hw = high_water_.load(std::memory_order_acquire);
  for (uint32_t id = 0; id < hw; ++id) {
    const uint8_t* nb = Node(id);
    if (id != removed && internal::LoadState(nb, layout_) == kLive &&
        static_cast<int>(internal::NodeLevel(nb)) > best_level) {
      best_level = static_cast<int>(internal::NodeLevel(nb));
      best = id;
    }
  }
  StoreEntry(best, best_level);
}

void HnswIndex::RetireNode(uint32_t id) {
  internal::StateRef(Node(id), layout_).store(kFree, std::memory_order_release);
  const uint64_t tag = RetireEpoch();
  std::lock_guard lock(retire_mu_);
  retired_nodes_.push_back({id, tag});
  retired_count_.fetch_add(1, std::memory_order_relaxed);
}

void HnswIndex::RetireMeta(Meta* meta) {
  const uint64_t tag = RetireEpoch();
  std::lock_guard lock(retire_mu_);
  retired_metas_.push_back({meta, tag});
  retired_count_.fetch_add(1, std::memory_order_relaxed);
}

void HnswIndex::Reclaim() {
  std::lock_guard lock(retire_mu_);
  if (retired_nodes_.empty() && retired_metas_.empty()) {
    return;
  }
  const uint64_t min_active = MinActiveEpoch();
  std::vector<uint32_t> freed;
  auto node_end = std::partition(retired_nodes_.begin(), retired_nodes_.end(),
                                 [&](const RetiredNode& r) { return r.tag >= min_active; });
  for (auto it = node_end; it != retired_nodes_.end(); ++it) {
    uint8_t* node = Node(it->id);
    Meta* meta = internal::LoadMeta(node);
    internal::MetaRef(node).store(nullptr, std::memory_order_release);
    if (meta != nullptr) {
      FreeMeta(meta);
    }
    freed.push_back(it->id);
  }
  retired_nodes_.erase(node_end, retired_nodes_.end());
  auto meta_end = std::partition(retired_metas_.begin(), retired_metas_.end(),
                                 [&](const RetiredMeta& r) { return r.tag >= min_active; });
  for (auto it = meta_end; it != retired_metas_.end(); ++it) {
    FreeMeta(it->meta);
  }
  retired_metas_.erase(meta_end, retired_metas_.end());
  retired_count_.store(retired_nodes_.size() + retired_metas_.size(), std::memory_order_relaxed);
  if (!freed.empty()) {
    std::lock_guard alloc_lock(alloc_mu_);
    free_ids_.insert(free_ids_.end(), freed.begin(), freed.end());
  }
}

}  // namespace hotkv::vector

// ZTreeSet: the large-zset encoding, reported as "skiplist" by OBJECT ENCODING for
// compatibility with Redis (whose structure it replaces).
//
// Each element is one ZEntry (score + member bytes in a single allocation), indexed
// twice without copying the member: by ZMemberTable (member -> entry, O(1)) and by
// ZScoreTree ((score, member) order with subtree sizes, O(log n) by key and by rank).
// The set owns its entries and frees them.
//
// Thread safety: none; the owning zset's caller serializes access.

#ifndef HOTKV_TYPES_ZSET_TREESET_H_
#define HOTKV_TYPES_ZSET_TREESET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "types/zset_defs.h"
#include "types/zset_entry.h"
#include "types/zset_table.h"
#include "types/zset_tree.h"

namespace hotkv::types {

class ZTreeSet {
 public:
  ZTreeSet() = default;
  ~ZTreeSet();
  ZTreeSet(const ZTreeSet&) = delete;
  ZTreeSet& operator=(const ZTreeSet&) = delete;

  // Takes ownership of `entries`, which must be sorted by (score, member) with
  // distinct members and already indexed by `table`.
  static std::unique_ptr<ZTreeSet> Adopt(ZMemberTable table, const std::vector<ZEntry*>& entries);

  size_t size() const { return tree_.size(); }

  ZEntry* Find(std::string_view member) const { return table_.Find(member, ZHashMember(member)); }
  // With the member's hash (ZHashMember) computed once for a find-then-insert (ZADD).
  ZEntry* Find(std::string_view member, uint64_t hash) const { return table_.Find(member, hash); }
  // Precondition: `member` is absent.
  void Insert(std::string_view member, double score) { Insert(member, score, ZHashMember(member)); }
  void Insert(std::string_view member, double score, uint64_t hash);
  // Changes the score of `entry` (from Find).
  void UpdateScore(ZEntry* entry, double score) { tree_.UpdateScore(entry, score); }
  // Removes `member`; returns its score, or nullopt if absent.
  std::optional<double> Erase(std::string_view member);
  // Removes ranks [first, first + count).
  void EraseRanks(size_t first, size_t count);
  void Reserve(size_t n) { table_.Reserve(n); }

  size_t Rank(const ZEntry* entry) const { return tree_.Rank(entry); }
  size_t CountBelowScore(double score, bool inclusive) const {
    return tree_.CountBelowScore(score, inclusive);
  }
  size_t CountBelowMember(std::string_view member, bool inclusive) const {
    return tree_.CountBelowMember(member, inclusive);
  }
  ZMemberScore At(size_t rank) const {
    const ZEntry* e = tree_.At(rank);
    return {e->member(), e->score()};
  }
  // Visits ranks [first, first + count), from the high end when `reverse`.
  void Visit(size_t first, size_t count, bool reverse, ZVisitor visit) const;
  // Visits ranks from `first` up while the score is below `max` (or equal to it, unless
  // `max_exclusive`).
  void VisitScoresFrom(size_t first, double max, bool max_exclusive, ZVisitor visit) const;
  uint64_t Scan(uint64_t cursor, size_t count, ZVisitor visit) const;

  template <typename F>
  void ForEach(F&& f) const {
    for (auto it = tree_.Seek(0); it.Valid(); it.Next()) {
      const ZEntry* e = it.entry();
      f(e->member(), e->score());
    }
  }

  std::unique_ptr<ZTreeSet> Clone() const;

  // Everything this set allocated: itself, the table, tree nodes and entries.
  size_t MemoryUsage() const;
  struct MemoryBreakdown {
    size_t entries;  // ZEntry allocations
    size_t table;    // member table slots
    size_t tree;     // B+tree nodes
  };
  MemoryBreakdown Breakdown() const {
    return {entry_bytes_, table_.MemoryUsage(), tree_.MemoryUsage()};
  }
  size_t table_capacity() const { return table_.capacity(); }
  size_t tree_height() const { return tree_.height(); }
  // Tree invariants plus table/tree agreement; for tests.
  bool Validate() const;

 private:
  ZMemberTable table_;
  ZScoreTree tree_;
  size_t entry_bytes_ = 0;  // sum of ZEntry::AllocatedBytes()
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_TREESET_H_

#include "types/zset_treeset.h"

#include <algorithm>
#include <utility>

namespace hotkv::types {

namespace {
// How far ahead (in ranks) a range visit prefetches entries.
constexpr size_t kPrefetchAhead = 8;
}  // namespace

ZTreeSet::~ZTreeSet() {
  tree_.Clear([](ZEntry* e) { ZEntry::Destroy(e); });
}

std::unique_ptr<ZTreeSet> ZTreeSet::Adopt(ZMemberTable table, const std::vector<ZEntry*>& entries) {
  auto set = std::make_unique<ZTreeSet>();
  set->table_ = std::move(table);
  set->tree_.BuildFromSorted(entries.data(), entries.size());
  for (const ZEntry* e : entries) {
    set->entry_bytes_ += e->AllocatedBytes();
  }
  return set;
}

void ZTreeSet::Insert(std::string_view member, double score, uint64_t hash) {
  ZEntry* entry = ZEntry::Create(member, score);
  entry_bytes_ += entry->AllocatedBytes();
  table_.Insert(entry, hash);
  tree_.Insert(entry);
}

std::optional<double> ZTreeSet::Erase(std::string_view member) {
  ZEntry* entry = table_.Erase(member, ZHashMember(member));
  if (entry == nullptr) {
    return std::nullopt;
  }
  const double score = entry->score();
  tree_.Erase(entry);
  entry_bytes_ -= entry->AllocatedBytes();
  ZEntry::Destroy(entry);
  return score;
}

void ZTreeSet::EraseRanks(size_t first, size_t count) {
  tree_.EraseRange(first, count, [this](ZEntry* e) {
    const std::string_view member = e->member();
    table_.Erase(member, ZHashMember(member));
    entry_bytes_ -= e->AllocatedBytes();
    ZEntry::Destroy(e);
  });
}

void ZTreeSet::Visit(size_t first, size_t count, bool reverse, ZVisitor visit) const {
  if (count == 0) {
    return;
  }
  auto it = tree_.Seek(reverse ? first + count - 1 : first);
  auto step = [reverse](ZScoreTree::Iterator& i) {
    if (reverse) {
      i.Prev();
    } else {
      i.Next();
    }
  };
  // The entries are scattered over the heap (allocated in insertion order, visited in
  // score order): a cursor kPrefetchAhead entries ahead asks for each one's cache line,
  // so that the misses of consecutive entries overlap instead of following one another.
  auto ahead = it;
  const size_t lead = std::min(count, kPrefetchAhead);
  for (size_t i = 0; i < lead; ++i) {
    __builtin_prefetch(ahead.entry());
    step(ahead);
  }
  for (size_t i = 0; i < count; ++i) {
    if (i + kPrefetchAhead < count) {
      __builtin_prefetch(ahead.entry());
      step(ahead);
    }
    const ZEntry* e = it.entry();
    visit(e->member(), e->score());
    step(it);
  }
}

void ZTreeSet::VisitScoresFrom(size_t first, double max, bool max_exclusive,
                               ZVisitor visit) const {
  auto it = tree_.Seek(first);
  auto ahead = it;  // prefetching, as Visit does
  for (size_t i = 0; i < kPrefetchAhead && ahead.Valid(); ++i) {
    __builtin_prefetch(ahead.entry());
    ahead.Next();
  }
  for (; it.Valid(); it.Next()) {
    if (ahead.Valid()) {
      __builtin_prefetch(ahead.entry());
      ahead.Next();
    }
    const ZEntry* e = it.entry();
    const double score = e->score();
    if (max_exclusive ? !(score < max) : !(score <= max)) {
      return;
    }
    visit(e->member(), score);
  }
}

uint64_t ZTreeSet::Scan(uint64_t cursor, size_t count, ZVisitor visit) const {
  return table_.Scan(cursor, count, [&visit](const ZEntry* e) { visit(e->member(), e->score()); });
}

std::unique_ptr<ZTreeSet> ZTreeSet::Clone() const {
  std::vector<ZEntry*> entries;
  entries.reserve(size());
  ZMemberTable table;
  table.Reserve(size());
  ForEach([&](std::string_view member, double score) {
    ZEntry* e = ZEntry::Create(member, score);
    table.Insert(e, ZHashMember(member));
    entries.push_back(e);
  });
  return Adopt(std::move(table), entries);
}

size_t ZTreeSet::MemoryUsage() const {
  return sizeof(ZTreeSet) + table_.MemoryUsage() + tree_.MemoryUsage() + entry_bytes_;
}

bool ZTreeSet::Validate() const {
  if (!tree_.Validate() || table_.size() != tree_.size()) {
    return false;
  }
  size_t bytes = 0;
  bool ok = true;
  ForEach([&](std::string_view member, double) {
    const ZEntry* e = table_.Find(member, ZHashMember(member));
    ok = ok && e != nullptr && e->member() == member;
    if (e != nullptr) {
      bytes += e->AllocatedBytes();
    }
  });
  return ok && bytes == entry_bytes_;
}

}  // namespace hotkv::types

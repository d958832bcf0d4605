// ZSetValue: encoding dispatch, ZADD semantics, conversion, pops. Range resolution
// is in zset_range.cc, random members and scan in zset_random.cc.

#include "types/zset.h"

#include <cmath>
#include <utility>
#include <vector>

#include "types/zset_treeset.h"

namespace hotkv::types {

namespace {

// Keep a listpack well below 4 GiB (its header uses 32-bit sizes), like Redis's
// lpSafeToAdd.
constexpr size_t kListpackMaxBytes = size_t{1} << 30;

}  // namespace

ZSetValue::ZSetValue() = default;
ZSetValue::~ZSetValue() = default;
ZSetValue::ZSetValue(ZSetValue&& other) noexcept = default;
ZSetValue& ZSetValue::operator=(ZSetValue&& other) noexcept = default;

ZSetValue ZSetValue::Create(size_t size_hint, size_t value_len_hint, const ZSetLimits& limits) {
  ZSetValue z;
  if (size_hint > limits.max_listpack_entries || value_len_hint > limits.max_listpack_value) {
    z.tree_ = std::make_unique<ZTreeSet>();
    z.tree_->Reserve(size_hint);
  }
  return z;
}

ZSetValue ZSetValue::Clone() const {
  ZSetValue copy;
  if (tree_) {
    copy.tree_ = tree_->Clone();
  } else {
    copy.listpack_ = listpack_.Clone();
  }
  return copy;
}

const char* ZSetValue::EncodingName() const { return tree_ ? "skiplist" : "listpack"; }

size_t ZSetValue::Size() const { return tree_ ? tree_->size() : listpack_.size(); }

size_t ZSetValue::MemoryUsage() const {
  return tree_ ? tree_->MemoryUsage() : listpack_.MemoryUsage();
}

void ZSetValue::ConvertToTree(size_t capacity_hint) {
  std::vector<ZEntry*> entries;
  entries.reserve(listpack_.size());
  ZMemberTable table;
  table.Reserve(capacity_hint > listpack_.size() ? capacity_hint : listpack_.size());
  listpack_.ForEach([&](std::string_view member, double score) {
    ZEntry* e = ZEntry::Create(member, score);
    table.Insert(e, ZHashMember(member));
    entries.push_back(e);
  });
  tree_ = ZTreeSet::Adopt(std::move(table), entries);
  listpack_ = ZListpack();
}

void ZSetValue::MaybeConvert(size_t size_hint, const ZSetLimits& limits) {
  if (!tree_ && size_hint > limits.max_listpack_entries) {
    ConvertToTree(size_hint);
  }
}

ZAddOutcome ZSetValue::Add(std::string_view member, double score, ZAddFlags flags,
                           const ZSetLimits& limits) {
  if (std::isnan(score)) {
    return {ZAddResult::kNaN, score};
  }
  // Applies NX / INCR / GT / LT to an existing member with score `current`; returns
  // the outcome, with kUpdated meaning "store outcome.score".
  auto existing = [&flags, score](double current) -> ZAddOutcome {
    if (flags.nx) {
      return {ZAddResult::kNotPerformed, current};
    }
    double updated = score;
    if (flags.incr) {
      updated += current;
      if (std::isnan(updated)) {
        return {ZAddResult::kNaN, current};
      }
    }
    if ((flags.lt && updated >= current) || (flags.gt && updated <= current)) {
      return {ZAddResult::kNotPerformed, current};
    }
    // -0.0 == 0.0: like Redis, an equal score leaves the stored one untouched.
    return {updated != current ? ZAddResult::kUpdated : ZAddResult::kUnchanged, updated};
  };

  if (!tree_) {
    if (auto pos = listpack_.Find(member)) {
      const ZAddOutcome outcome = existing(pos->score);
      if (outcome.result == ZAddResult::kUpdated) {
        listpack_.EraseAt(pos->offset);
        listpack_.Insert(member, outcome.score);
      }
      return outcome;
    }
    if (flags.xx) {
      return {ZAddResult::kNotPerformed, score};
    }
    if (listpack_.size() + 1 <= limits.max_listpack_entries &&
        member.size() <= limits.max_listpack_value &&
        listpack_.payload_bytes() + ZListpack::EncodedSize(member, score) <= kListpackMaxBytes) {
      listpack_.Insert(member, score);
      return {ZAddResult::kAdded, score};
    }
    ConvertToTree(listpack_.size() + 1);
  }

  const uint64_t hash = ZHashMember(member);  // once for the find and the insert
  if (ZEntry* entry = tree_->Find(member, hash)) {
    const ZAddOutcome outcome = existing(entry->score());
    if (outcome.result == ZAddResult::kUpdated) {
      tree_->UpdateScore(entry, outcome.score);
    }
    return outcome;
  }
  if (flags.xx) {
    return {ZAddResult::kNotPerformed, score};
  }
  tree_->Insert(member, score, hash);
  return {ZAddResult::kAdded, score};
}

bool ZSetValue::Remove(std::string_view member) {
  if (tree_) {
    return tree_->Erase(member).has_value();
  }
  if (auto pos = listpack_.Find(member)) {
    listpack_.EraseAt(pos->offset);
    return true;
  }
  return false;
}

std::optional<double> ZSetValue::Score(std::string_view member) const {
  if (tree_) {
    if (const ZEntry* e = tree_->Find(member)) {
      return e->score();
    }
    return std::nullopt;
  }
  if (auto pos = listpack_.Find(member)) {
    return pos->score;
  }
  return std::nullopt;
}

std::optional<ZRankInfo> ZSetValue::Rank(std::string_view member, bool reverse) const {
  ZRankInfo info;
  if (tree_) {
    const ZEntry* e = tree_->Find(member);
    if (e == nullptr) {
      return std::nullopt;
    }
    info = {tree_->Rank(e), e->score()};
  } else {
    auto pos = listpack_.Find(member);
    if (!pos) {
      return std::nullopt;
    }
    info = {pos->rank, pos->score};
  }
  if (reverse) {
    info.rank = Size() - 1 - info.rank;
  }
  return info;
}

size_t ZSetValue::CountBelowScore(double score, bool inclusive) const {
  return tree_ ? tree_->CountBelowScore(score, inclusive)
               : listpack_.CountBelowScore(score, inclusive);
}

size_t ZSetValue::CountBelowMember(std::string_view member, bool inclusive) const {
  return tree_ ? tree_->CountBelowMember(member, inclusive)
               : listpack_.CountBelowMember(member, inclusive);
}

ZMemberScore ZSetValue::At(size_t rank) const {
  return tree_ ? tree_->At(rank) : listpack_.At(rank);
}

void ZSetValue::Visit(ZRankSpan span, ZVisitor visit) const {
  if (span.empty()) {
    return;
  }
  if (tree_) {
    tree_->Visit(span.begin, span.size(), span.reverse, visit);
  } else {
    listpack_.Visit(span.begin, span.size(), span.reverse, visit);
  }
}

void ZSetValue::VisitScoreRange(const ZScoreRange& range, ZVisitor visit) const {
  if (tree_) {
    tree_->VisitScoresFrom(tree_->CountBelowScore(range.min, /*inclusive=*/range.min_exclusive),
                           range.max, range.max_exclusive, visit);
  } else {
    Visit(ScoreSpan(range), visit);
  }
}

size_t ZSetValue::Erase(ZRankSpan span) {
  if (span.empty()) {
    return 0;
  }
  if (tree_) {
    tree_->EraseRanks(span.begin, span.size());
  } else {
    listpack_.EraseRanks(span.begin, span.size());
  }
  return span.size();
}

size_t ZSetValue::Pop(size_t count, bool from_max, ZVisitor visit) {
  const size_t size = Size();
  const size_t k = count < size ? count : size;
  const ZRankSpan span =
      from_max ? ZRankSpan{size - k, size, /*reverse=*/true} : ZRankSpan{0, k, false};
  Visit(span, visit);
  return Erase(span);
}

void ZSetValue::ForEach(ZVisitor visit) const {
  if (tree_) {
    tree_->ForEach(visit);
  } else {
    listpack_.ForEach(visit);
  }
}

bool ZSetValue::Validate() const { return tree_ ? tree_->Validate() : listpack_.Validate(); }

}  // namespace hotkv::types

#include "types/zset_builder.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "types/zset_treeset.h"

namespace hotkv::types {

double ZAggregateScores(double accumulated, double value, ZAggregate aggregate) {
  switch (aggregate) {
    case ZAggregate::kSum:
    case ZAggregate::kCount: {
      const double sum = accumulated + value;
      return std::isnan(sum) ? 0.0 : sum;  // +inf + -inf
    }
    case ZAggregate::kMin:
      return value < accumulated ? value : accumulated;
    case ZAggregate::kMax:
      return value > accumulated ? value : accumulated;
  }
  return accumulated;
}

ZSetBuilder::ZSetBuilder(size_t expected_size) { table_.Reserve(expected_size); }

ZSetBuilder::~ZSetBuilder() {
  table_.ForEach([](ZEntry* e) { ZEntry::Destroy(e); });
}

std::optional<double> ZSetBuilder::Score(std::string_view member) const {
  if (const ZEntry* e = table_.Find(member, ZHashMember(member))) {
    return e->score();
  }
  return std::nullopt;
}

bool ZSetBuilder::Insert(std::string_view member, double score) {
  const uint64_t hash = ZHashMember(member);
  if (table_.Find(member, hash) != nullptr) {
    return false;
  }
  table_.Insert(ZEntry::Create(member, score), hash);
  return true;
}

void ZSetBuilder::Accumulate(std::string_view member, double score, ZAggregate aggregate) {
  const uint64_t hash = ZHashMember(member);
  if (ZEntry* e = table_.Find(member, hash)) {
    e->set_score(ZAggregateScores(e->score(), score, aggregate));
  } else {
    table_.Insert(ZEntry::Create(member, score), hash);
  }
}

bool ZSetBuilder::Erase(std::string_view member) {
  ZEntry* e = table_.Erase(member, ZHashMember(member));
  if (e == nullptr) {
    return false;
  }
  ZEntry::Destroy(e);
  return true;
}

ZSetValue ZSetBuilder::Build(const ZSetLimits& limits) && {
  std::vector<ZEntry*> entries;
  entries.reserve(table_.size());
  size_t longest = 0;
  size_t encoded = 0;
  table_.ForEach([&](ZEntry* e) {
    entries.push_back(e);
    longest = std::max(longest, e->member().size());
    encoded += ZListpack::EncodedSize(e->member(), e->score());
  });
  std::sort(entries.begin(), entries.end(), ZEntryLess);
  ZSetValue result;
  if (entries.size() <= limits.max_listpack_entries && longest <= limits.max_listpack_value) {
    result.listpack_.Reserve(encoded);
    for (ZEntry* e : entries) {
      result.listpack_.Append(e->member(), e->score());
      ZEntry::Destroy(e);
    }
    if (entries.empty()) {
      result.listpack_ = ZListpack();
    }
    table_ = ZMemberTable();
  } else {
    result.tree_ = ZTreeSet::Adopt(std::move(table_), entries);
  }
  return result;
}

}  // namespace hotkv::types

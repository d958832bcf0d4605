#include "types/zset_algebra.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hotkv::types {

namespace {

size_t SizeOf(const ZSetSource* source) { return source == nullptr ? 0 : source->Size(); }

std::vector<ZWeightedSource> SmallestFirst(std::span<const ZWeightedSource> inputs) {
  std::vector<ZWeightedSource> sorted(inputs.begin(), inputs.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return SizeOf(a.source) < SizeOf(b.source);
  });
  return sorted;
}

double WeightedOrZero(double weight, double score) {
  const double v = weight * score;
  return std::isnan(v) ? 0.0 : v;  // inf * 0
}

// What one input adds for a member with `score`: weight * score, or the weight alone for
// AGGREGATE COUNT (a weight is never NaN). `nan_to_zero`: see the header.
double Weighted(double weight, double score, ZAggregate aggregate, bool nan_to_zero) {
  if (aggregate == ZAggregate::kCount) {
    return weight;
  }
  return nan_to_zero ? WeightedOrZero(weight, score) : weight * score;
}

// Runs `on_member(member, score)` for each member of the intersection, with its
// aggregated score, until it returns false.
template <typename F>
void ForEachInIntersection(const std::vector<ZWeightedSource>& sorted, ZAggregate aggregate,
                           F&& on_member) {
  if (sorted.empty() || SizeOf(sorted[0].source) == 0) {
    return;  // sorted by size: every later input is non-empty when the first is
  }
  sorted[0].source->ForEachUntil([&](std::string_view member, double score) {
    double acc = Weighted(sorted[0].weight, score, aggregate, true);
    for (size_t j = 1; j < sorted.size(); ++j) {
      const std::optional<double> other = sorted[j].source->Score(member);
      if (!other) {
        return true;
      }
      acc = ZAggregateScores(acc, Weighted(sorted[j].weight, *other, aggregate, false),
                             aggregate);
    }
    return on_member(member, acc);
  });
}

}  // namespace

void ZSetValueSource::ForEachUntil(ZFunctionRef<bool(std::string_view, double)> visit) const {
  if (zset_ == nullptr) {
    return;
  }
  // In chunks of ranks, so a visitor can stop early (ZINTERCARD LIMIT). A listpack
  // is walked from its start for every chunk, so it goes in one.
  const size_t size = zset_->Size();
  const size_t kChunk = zset_->encoding() == ZSetValue::Encoding::kListpack ? size : 64;
  bool go = true;
  for (size_t begin = 0; begin < size && go; begin += kChunk) {
    const size_t end = std::min(size, begin + kChunk);
    zset_->Visit(ZRankSpan{begin, end, false}, [&](std::string_view m, double s) {
      if (go) {
        go = visit(m, s);
      }
    });
  }
}

std::optional<double> ZSetValueSource::Score(std::string_view member) const {
  return zset_ == nullptr ? std::nullopt : zset_->Score(member);
}

ZSetValue ZSetUnion(std::span<const ZWeightedSource> inputs, ZAggregate aggregate,
                    const ZSetLimits& limits) {
  const std::vector<ZWeightedSource> sorted = SmallestFirst(inputs);
  ZSetBuilder builder(sorted.empty() ? 0 : SizeOf(sorted.back().source));
  for (const ZWeightedSource& in : sorted) {
    if (SizeOf(in.source) == 0) {
      continue;
    }
    in.source->ForEachUntil([&](std::string_view member, double score) {
      builder.Accumulate(member, Weighted(in.weight, score, aggregate, true), aggregate);
      return true;
    });
  }
  return std::move(builder).Build(limits);
}

ZSetValue ZSetInter(std::span<const ZWeightedSource> inputs, ZAggregate aggregate,
                    const ZSetLimits& limits) {
  const std::vector<ZWeightedSource> sorted = SmallestFirst(inputs);
  ZSetBuilder builder(sorted.empty() ? 0 : SizeOf(sorted[0].source));
  ForEachInIntersection(sorted, aggregate, [&](std::string_view member, double score) {
    builder.Insert(member, score);
    return true;
  });
  return std::move(builder).Build(limits);
}

size_t ZSetInterCard(std::span<const ZSetSource* const> inputs, size_t limit) {
  std::vector<ZWeightedSource> weighted;
  weighted.reserve(inputs.size());
  for (const ZSetSource* source : inputs) {
    weighted.push_back({source, 1.0});
  }
  const std::vector<ZWeightedSource> sorted = SmallestFirst(weighted);
  size_t count = 0;
  ForEachInIntersection(sorted, ZAggregate::kSum, [&](std::string_view, double) {
    ++count;
    return limit == 0 || count < limit;
  });
  return count;
}

ZSetValue ZSetDiff(std::span<const ZSetSource* const> inputs, const ZSetLimits& limits) {
  if (inputs.empty() || SizeOf(inputs[0]) == 0) {
    return ZSetValue();
  }
  const ZSetSource* first = inputs[0];
  std::vector<const ZSetSource*> others;
  size_t others_total = 0;
  for (size_t j = 1; j < inputs.size(); ++j) {
    if (inputs[j] == first) {
      return ZSetValue();  // subtracting the set from itself
    }
    if (SizeOf(inputs[j]) > 0) {
      others.push_back(inputs[j]);
      others_total += inputs[j]->Size();
    }
  }
  // Redis's choice: (1) probe every other input for each member of the first, cost
  // ~N*M/2; (2) copy the first and delete every member of the others, cost ~N + L.
  const size_t n = first->Size();
  const size_t probe_cost = n * (others.size() + 1) / 2;
  const size_t delete_cost = n + others_total;
  if (probe_cost <= delete_cost) {
    // Largest first: a member present elsewhere is likelier found early.
    std::stable_sort(others.begin(), others.end(), [](const ZSetSource* a, const ZSetSource* b) {
      return a->Size() > b->Size();
    });
    ZSetBuilder builder;
    first->ForEachUntil([&](std::string_view member, double score) {
      for (const ZSetSource* other : others) {
        if (other->Score(member)) {
          return true;
        }
      }
      builder.Insert(member, score);
      return true;
    });
    return std::move(builder).Build(limits);
  }
  ZSetBuilder builder(n);
  first->ForEachUntil([&](std::string_view member, double score) {
    builder.Insert(member, score);
    return true;
  });
  for (const ZSetSource* other : others) {
    other->ForEachUntil([&](std::string_view member, double) {
      builder.Erase(member);
      return builder.size() > 0;
    });
    if (builder.size() == 0) {
      break;
    }
  }
  return std::move(builder).Build(limits);
}

}  // namespace hotkv::types

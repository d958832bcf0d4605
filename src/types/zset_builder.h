// ZSetBuilder: collects (member, score) pairs in any order, then produces a
// ZSetValue in the encoding the limits call for, built in one pass: a packed
// listpack, or a skiplist whose tree is bulk-loaded with full leaves. Used by the
// set algebra (ZUNIONSTORE & co.), and by ZRANGESTORE or a snapshot loader.
//
//   ZSetBuilder builder;
//   zset.Visit(span, [&](std::string_view m, double s) { builder.Insert(m, s); });
//   ZSetValue result = std::move(builder).Build(limits);   // ZRANGESTORE
//
// Thread safety: none; a builder is used by one thread.

#ifndef HOTKV_TYPES_ZSET_BUILDER_H_
#define HOTKV_TYPES_ZSET_BUILDER_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "types/zset.h"
#include "types/zset_defs.h"
#include "types/zset_table.h"

namespace hotkv::types {

// AGGREGATE SUM | MIN | MAX | COUNT (Redis 8.8). With COUNT, each input holding a member
// contributes its weight instead of weight * score, summed as SUM does: with the default
// weights of 1, the number of inputs that hold the member.
enum class ZAggregate : uint8_t { kSum, kMin, kMax, kCount };

// Combines two scores as ZUNIONSTORE/ZINTERSTORE AGGREGATE does. SUM (and COUNT) of +inf
// and -inf is 0 (Redis's convention); MIN/MAX ignore a NaN `value`.
double ZAggregateScores(double accumulated, double value, ZAggregate aggregate);

class ZSetBuilder {
 public:
  explicit ZSetBuilder(size_t expected_size = 0);
  ~ZSetBuilder();
  ZSetBuilder(const ZSetBuilder&) = delete;
  ZSetBuilder& operator=(const ZSetBuilder&) = delete;

  size_t size() const { return table_.size(); }
  std::optional<double> Score(std::string_view member) const;

  // Adds `member` unless present; returns whether it was added. `score` not NaN.
  bool Insert(std::string_view member, double score);
  // Adds `member` with `score`, or combines `score` into its current score.
  void Accumulate(std::string_view member, double score, ZAggregate aggregate);
  bool Erase(std::string_view member);

  // Consumes the builder. Listpack-encoded when the size and the longest member fit
  // `limits`, skiplist otherwise (Redis: zsetConvertToListpackIfNeeded).
  ZSetValue Build(const ZSetLimits& limits = {}) &&;

 private:
  ZMemberTable table_;  // owns its entries until Build
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_BUILDER_H_

// ZUNION / ZINTER / ZDIFF (and their STORE forms) and ZINTERCARD over any mix of
// inputs, with WEIGHTS and AGGREGATE SUM|MIN|MAX|COUNT, following Redis exactly:
//   * inputs are processed smallest first (ZUNION, ZINTER), as Redis sorts them;
//   * a weighted score w * s that is NaN (inf * 0) counts as 0 in ZUNION and for the
//     first (smallest) input of ZINTER; later ZINTER inputs are aggregated as is;
//   * SUM of +inf and -inf is 0; MIN/MAX never produce NaN;
//   * COUNT sums the weights of the inputs holding a member (their scores ignored);
//   * ZDIFF keeps the first input's scores and ignores weights.
// Missing keys are passed as null sources and behave as empty sets. Plain SETs are
// valid inputs (score 1 for every member): the set type implements ZSetSource.
//
//   ZSetValueSource a(zset_a), b(zset_b_or_null);
//   ZWeightedSource in[] = {{&a, 2.0}, {&b, 1.0}};
//   ZSetValue out = ZSetUnion(in, ZAggregate::kMax, limits);  // then store or reply
//
// Thread safety: none; callers hold the locks of every input key.

#ifndef HOTKV_TYPES_ZSET_ALGEBRA_H_
#define HOTKV_TYPES_ZSET_ALGEBRA_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "types/zset.h"
#include "types/zset_builder.h"
#include "types/zset_defs.h"

namespace hotkv::types {

// A read-only view of a scored collection, as the algebra needs it.
class ZSetSource {
 public:
  virtual ~ZSetSource() = default;
  virtual size_t Size() const = 0;
  // Visits every (member, score) until `visit` returns false.
  virtual void ForEachUntil(ZFunctionRef<bool(std::string_view, double)> visit) const = 0;
  virtual std::optional<double> Score(std::string_view member) const = 0;
};

// Adapts a ZSetValue (null: a missing key, i.e. an empty set).
class ZSetValueSource final : public ZSetSource {
 public:
  explicit ZSetValueSource(const ZSetValue* zset) : zset_(zset) {}
  size_t Size() const override { return zset_ == nullptr ? 0 : zset_->Size(); }
  void ForEachUntil(ZFunctionRef<bool(std::string_view, double)> visit) const override;
  std::optional<double> Score(std::string_view member) const override;

 private:
  const ZSetValue* zset_;
};

struct ZWeightedSource {
  const ZSetSource* source = nullptr;  // null: missing key
  double weight = 1.0;
};

ZSetValue ZSetUnion(std::span<const ZWeightedSource> inputs, ZAggregate aggregate,
                    const ZSetLimits& limits = {});
ZSetValue ZSetInter(std::span<const ZWeightedSource> inputs, ZAggregate aggregate,
                    const ZSetLimits& limits = {});
// Members of inputs[0] found in no other input, with their inputs[0] scores.
ZSetValue ZSetDiff(std::span<const ZSetSource* const> inputs, const ZSetLimits& limits = {});
// ZINTERCARD: size of the intersection, counting stops at `limit` (0: no limit).
size_t ZSetInterCard(std::span<const ZSetSource* const> inputs, size_t limit = 0);

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_ALGEBRA_H_

// Sorted-set algebra: ZUNION ZINTER ZDIFF, their STORE forms, and ZINTERCARD.
//
// Edge cases honoured (as Redis): numkeys must be an integer (else "value is not an
// integer"), at least 1 ("at least 1 input key is needed for '<cmd>' command") and
// not more than the arguments left (syntax error). Every input key is looked up and
// type-checked before the options are parsed, so WRONGTYPE wins over an option error.
// WEIGHTS needs exactly numkeys floats ("weight value is not a float"), AGGREGATE is
// SUM|MIN|MAX|COUNT (COUNT, Redis 8.8: the sum of the weights of the inputs holding a
// member); neither is accepted by ZDIFF or ZINTERCARD, WITHSCORES only by the
// non-STORE forms, LIMIT only by ZINTERCARD (a non-negative integer, 0 = no limit).
// A key given twice is the same input (ZDIFF k k is empty). Missing keys are empty
// sets. The *STORE forms replace the destination whatever its type (dropping its TTL)
// or delete it when the result is empty. Plain SETs as inputs: see ZAlgebraSourceFor
// (zset_common.cc), the adapter point for the set type.
#include <string>
#include <utility>
#include <vector>

#include "commands/helpers.h"
#include "commands/zset_common.h"
#include "common/string_util.h"

namespace hotkv {

namespace {

enum class SetOp { kUnion, kInter, kDiff, kInterCard };

// `store`: a STORE form, destination at 1 and numkeys at 2 (else numkeys at 1).
void ZAlgebraGeneric(CommandContext& ctx, bool store, SetOp op) {
  const size_t numkeys_idx = store ? 2 : 1;
  auto numkeys = ctx.IntArg(numkeys_idx);
  if (!numkeys) {
    return;
  }
  if (*numkeys < 1) {
    return ctx.rb().Error("ERR at least 1 input key is needed for '" + ctx.command()->full_name +
                          "' command");
  }
  if (static_cast<uint64_t>(*numkeys) > ctx.argc() - (numkeys_idx + 1)) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const size_t n = static_cast<size_t>(*numkeys);

  // Inputs first (WRONGTYPE before option errors, as Redis).
  std::vector<ZAlgebraInput> owned;
  owned.reserve(n);
  std::vector<const Entry*> seen;
  std::vector<const types::ZSetSource*> sources(n, nullptr);
  for (size_t i = 0; i < n; i++) {
    const Entry* e = LookupRead(ctx, ctx.arg(numkeys_idx + 1 + i));
    if (e == nullptr) {
      continue;
    }
    bool repeated = false;
    for (size_t k = 0; k < seen.size(); k++) {
      if (seen[k] == e) {
        sources[i] = owned[k].source.get();  // the same object for the same key
        repeated = true;
        break;
      }
    }
    if (repeated) {
      continue;
    }
    ZAlgebraInput in = ZAlgebraSourceFor(ctx, e);
    if (in.wrong_type) {
      return;
    }
    sources[i] = in.source.get();
    seen.push_back(e);
    owned.push_back(std::move(in));
  }

  std::vector<double> weights(n, 1.0);
  types::ZAggregate aggregate = types::ZAggregate::kSum;
  bool withscores = false;
  int64_t limit = 0;
  const bool weighted_op = op == SetOp::kUnion || op == SetOp::kInter;
  for (size_t j = numkeys_idx + 1 + n; j < ctx.argc();) {
    std::string_view a = ctx.arg(j);
    const size_t remaining = ctx.argc() - j;
    if (weighted_op && remaining >= n + 1 && EqualsIgnoreCase(a, "WEIGHTS")) {
      j++;
      for (size_t i = 0; i < n; i++, j++) {
        auto w = ParseDouble(ctx.arg(j));
        if (!w) {
          return ctx.rb().Error("ERR weight value is not a float");
        }
        weights[i] = *w;
      }
    } else if (weighted_op && remaining >= 2 && EqualsIgnoreCase(a, "AGGREGATE")) {
      std::string_view agg = ctx.arg(j + 1);
      if (EqualsIgnoreCase(agg, "SUM")) {
        aggregate = types::ZAggregate::kSum;
      } else if (EqualsIgnoreCase(agg, "MIN")) {
        aggregate = types::ZAggregate::kMin;
      } else if (EqualsIgnoreCase(agg, "MAX")) {
        aggregate = types::ZAggregate::kMax;
      } else if (EqualsIgnoreCase(agg, "COUNT")) {
        aggregate = types::ZAggregate::kCount;  // Redis 8.8
      } else {
        return ctx.rb().Error(errors::kSyntax);
      }
      j += 2;
    } else if (!store && op != SetOp::kInterCard && EqualsIgnoreCase(a, "WITHSCORES")) {
      withscores = true;
      j++;
    } else if (op == SetOp::kInterCard && remaining >= 2 && EqualsIgnoreCase(a, "LIMIT")) {
      auto l = ParseInt64(ctx.arg(j + 1));
      if (!l || *l < 0) {
        return ctx.rb().Error("ERR LIMIT can't be negative");
      }
      limit = *l;
      j += 2;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }

  if (op == SetOp::kInterCard) {
    return ctx.rb().Integer(
        static_cast<int64_t>(types::ZSetInterCard(sources, static_cast<size_t>(limit))));
  }
  const types::ZSetLimits limits = ZLimits(ctx);
  types::ZSetValue result;
  std::string_view event;
  if (op == SetOp::kDiff) {
    result = types::ZSetDiff(sources, limits);
    event = "zdiffstore";
  } else {
    std::vector<types::ZWeightedSource> weighted(n);
    for (size_t i = 0; i < n; i++) {
      weighted[i] = {sources[i], weights[i]};
    }
    if (op == SetOp::kUnion) {
      result = types::ZSetUnion(weighted, aggregate, limits);
      event = "zunionstore";
    } else {
      result = types::ZSetInter(weighted, aggregate, limits);
      event = "zinterstore";
    }
  }
  owned.clear();  // the inputs are not needed any more (the destination may be one)
  if (store) {
    return StoreZSetResult(ctx, ctx.arg(1), std::move(result), event);
  }
  ReplyBuilder& rb = ctx.rb();
  ZPairsHeader(rb, result.Size(), withscores);
  result.ForEach(
      [&](std::string_view member, double score) { ZPair(rb, member, score, withscores); });
}

}  // namespace

void ZUnionCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, false, SetOp::kUnion); }
void ZInterCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, false, SetOp::kInter); }
void ZDiffCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, false, SetOp::kDiff); }
void ZUnionStoreCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, true, SetOp::kUnion); }
void ZInterStoreCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, true, SetOp::kInter); }
void ZDiffStoreCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, true, SetOp::kDiff); }
void ZInterCardCommand(CommandContext& ctx) { ZAlgebraGeneric(ctx, false, SetOp::kInterCard); }

}  // namespace hotkv

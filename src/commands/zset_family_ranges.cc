// Sorted-set range commands: ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES), ZRANGESTORE
// and the older forms ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX, plus ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX.
//
// Edge cases honoured (as Redis): options are read first (an unknown word, or REV /
// BYSCORE / BYLEX where the command fixes them, is a syntax error), then LIMIT without
// BYSCORE/BYLEX and WITHSCORES with BYLEX are rejected, then the range is parsed, and
// only then is the key looked up; "LIMIT offset -1" counts as no LIMIT. With REV the
// score/lex range is given max first. A negative LIMIT offset selects nothing and a
// negative count means "all the rest". ZRANGESTORE with an empty result deletes the
// destination (of any type); otherwise it replaces it, dropping its TTL. The
// ZREMRANGEBY* commands parse the range before looking at the key.
#include <utility>

#include "commands/helpers.h"
#include "commands/zset_common.h"
#include "common/string_util.h"
#include "types/zset_builder.h"

namespace hotkv {

namespace {

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// ZRANGE-like commands whose source key is at `src`; `dst` (ZRANGESTORE) at src - 1.
void ZRangeGeneric(CommandContext& ctx, size_t src, bool store, RangeType type, Direction dir) {
  bool withscores = false;
  int64_t offset = 0, limit = -1;
  for (size_t j = src + 3; j < ctx.argc(); j++) {
    std::string_view a = ctx.arg(j);
    const size_t left = ctx.argc() - j - 1;
    if (!store && EqualsIgnoreCase(a, "WITHSCORES")) {
      withscores = true;
    } else if (EqualsIgnoreCase(a, "LIMIT") && left >= 2) {
      auto o = ctx.IntArg(j + 1);
      if (!o) {
        return;
      }
      auto c = ctx.IntArg(j + 2);
      if (!c) {
        return;
      }
      offset = *o;
      limit = *c;
      j += 2;
    } else if (dir == Direction::kAuto && EqualsIgnoreCase(a, "REV")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(a, "BYLEX")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(a, "BYSCORE")) {
      type = RangeType::kScore;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (type == RangeType::kAuto) {
    type = RangeType::kRank;
  }
  const bool reverse = dir == Direction::kReverse;
  if (limit != -1 && type == RangeType::kRank) {
    return ctx.rb().Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (withscores && type == RangeType::kLex) {
    return ctx.rb().Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  size_t min_idx = src + 1, max_idx = src + 2;
  if (reverse && type != RangeType::kRank) {
    std::swap(min_idx, max_idx);  // given as max, min
  }
  int64_t start = 0, stop = 0;
  std::optional<types::ZScoreRange> score_range;
  std::optional<types::ZLexRange> lex_range;
  switch (type) {
    case RangeType::kAuto:
    case RangeType::kRank: {
      auto a = ctx.IntArg(min_idx);
      if (!a) {
        return;
      }
      auto b = ctx.IntArg(max_idx);
      if (!b) {
        return;
      }
      start = *a;
      stop = *b;
      break;
    }
    case RangeType::kScore:
      score_range = types::ParseZScoreRange(ctx.arg(min_idx), ctx.arg(max_idx));
      if (!score_range) {
        return ctx.rb().Error(zset_errors::kMinMaxNotFloat);
      }
      break;
    case RangeType::kLex:
      lex_range = types::ParseZLexRange(ctx.arg(min_idx), ctx.arg(max_idx));
      if (!lex_range) {
        return ctx.rb().Error(zset_errors::kMinMaxNotLex);
      }
      break;
  }

  ZFound found = FindZSetForRead(ctx, ctx.arg(src));
  if (found.wrong_type) {
    return;
  }
  if (found.zset == nullptr) {
    if (store) {
      return StoreZSetResult(ctx, ctx.arg(src - 1), types::ZSetValue(), "zrangestore");
    }
    return ctx.rb().EmptyArray();
  }
  const types::ZSetValue& zset = *found.zset;
  const types::ZLimit zlimit{offset, limit};
  types::ZRankSpan span;
  switch (type) {
    case RangeType::kAuto:
    case RangeType::kRank:
      span = zset.RankSpan(start, stop, reverse);
      break;
    case RangeType::kScore:
      span = zset.ScoreSpan(*score_range, reverse, zlimit);
      break;
    case RangeType::kLex:
      span = zset.LexSpan(*lex_range, reverse, zlimit);
      break;
  }
  if (store) {
    types::ZSetBuilder builder(span.size());
    zset.Visit(span, [&](std::string_view member, double score) { builder.Insert(member, score); });
    return StoreZSetResult(ctx, ctx.arg(src - 1), std::move(builder).Build(ZLimits(ctx)),
                           "zrangestore");
  }
  ReplyBuilder& rb = ctx.rb();
  ZPairsHeader(rb, span.size(), withscores);
  zset.Visit(span,
             [&](std::string_view member, double score) { ZPair(rb, member, score, withscores); });
}

// ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX key min max
void ZRemRangeGeneric(CommandContext& ctx, RangeType type) {
  int64_t start = 0, stop = 0;
  std::optional<types::ZScoreRange> score_range;
  std::optional<types::ZLexRange> lex_range;
  std::string_view event;
  if (type == RangeType::kRank) {
    event = "zremrangebyrank";
    auto a = ctx.IntArg(2);
    if (!a) {
      return;
    }
    auto b = ctx.IntArg(3);
    if (!b) {
      return;
    }
    start = *a;
    stop = *b;
  } else if (type == RangeType::kScore) {
    event = "zremrangebyscore";
    score_range = types::ParseZScoreRange(ctx.arg(2), ctx.arg(3));
    if (!score_range) {
      return ctx.rb().Error(zset_errors::kMinMaxNotFloat);
    }
  } else {
    event = "zremrangebylex";
    lex_range = types::ParseZLexRange(ctx.arg(2), ctx.arg(3));
    if (!lex_range) {
      return ctx.rb().Error(zset_errors::kMinMaxNotLex);
    }
  }
  std::string_view key = ctx.arg(1);
  ZFound found = FindZSetForWrite(ctx, key);
  if (found.zset == nullptr) {
    return found.wrong_type ? void() : ctx.rb().Integer(0);
  }
  size_t deleted;
  if (type == RangeType::kRank) {
    deleted = found.zset->RemoveRangeByRank(start, stop);
  } else if (type == RangeType::kScore) {
    deleted = found.zset->RemoveRangeByScore(*score_range);
  } else {
    deleted = found.zset->RemoveRangeByLex(*lex_range);
  }
  if (deleted > 0) {
    ctx.KeyModified(key, notify::kZSet, event);
    ctx.AddDirty(static_cast<int64_t>(deleted) - 1);
    DeleteZSetIfEmpty(ctx, key, *found.zset);
  }
  ctx.rb().Integer(static_cast<int64_t>(deleted));
}

}  // namespace

void ZRangeCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kAuto, Direction::kAuto);
}
void ZRangeStoreCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 2, true, RangeType::kAuto, Direction::kAuto);
}
void ZRevRangeCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kRank, Direction::kReverse);
}
void ZRangeByScoreCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kScore, Direction::kForward);
}
void ZRevRangeByScoreCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kScore, Direction::kReverse);
}
void ZRangeByLexCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kLex, Direction::kForward);
}
void ZRevRangeByLexCommand(CommandContext& ctx) {
  ZRangeGeneric(ctx, 1, false, RangeType::kLex, Direction::kReverse);
}

void ZRemRangeByRankCommand(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeType::kRank); }
void ZRemRangeByScoreCommand(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeType::kScore); }
void ZRemRangeByLexCommand(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeType::kLex); }

}  // namespace hotkv

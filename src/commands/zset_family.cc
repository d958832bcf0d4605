// Sorted-set commands on single members and whole-set reads: ZADD ZINCRBY ZREM ZCARD
// ZCOUNT ZLEXCOUNT ZSCORE ZMSCORE ZRANK ZREVRANK ZRANDMEMBER ZSCAN.
//
// Edge cases honoured (as Redis): ZADD reads its options up to the first non-option
// word, then checks the pairs (syntax error), NX+XX, GT/LT/NX conflicts and INCR with
// several pairs, in that order, and parses every score before touching the key (a bad
// score changes nothing); XX on a missing key creates nothing; GT/LT still add new
// members; CH counts changed scores too; INCR replies the new score, or nil when
// NX/XX/GT/LT prevented it; a NaN result ("inf" + "-inf") is an error that changes
// nothing. ZINCRBY shares ZADD's parser, so "ZINCRBY k nx m" is a syntax error as in
// Redis. ZCOUNT/ZLEXCOUNT parse the range before the key's type is checked. ZRANK with
// WITHSCORE replies a null array for a missing member. ZRANDMEMBER's count may be
// negative (repetitions allowed) but not LONG_MIN, and with WITHSCORES its magnitude is
// limited to LONG_MAX/2. ZSCAN replies scores as strings in both protocols, formatted
// as Redis does for each encoding; Redis 8.8 has no NOSCORES (a syntax error; Valkey's).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "commands/helpers.h"
#include "commands/zset_common.h"
#include "common/string_util.h"

namespace hotkv {

namespace {

using types::ZAddResult;
using types::ZSetValue;

// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
// ZINCRBY key increment member (as ZADD key INCR increment member).
void ZAddGeneric(CommandContext& ctx, bool incr_command) {
  ZAddOptions opts = ParseZAddOptions(ctx, 2, /*geo=*/false);
  types::ZAddFlags& flags = opts.flags;
  flags.incr |= incr_command;
  const bool ch = opts.ch;
  const size_t idx = opts.next;
  const size_t words = ctx.argc() - idx;
  if (words == 0 || words % 2 != 0) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const size_t pairs = words / 2;
  if (flags.nx && flags.xx) {
    return ctx.rb().Error("ERR XX and NX options at the same time are not compatible");
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    return ctx.rb().Error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (flags.incr && pairs > 1) {
    return ctx.rb().Error("ERR INCR option supports a single increment-element pair");
  }
  ZAddPair inline_pairs[8];  // most ZADDs carry a few pairs: no allocation for them
  std::vector<ZAddPair> heap_pairs(pairs > 8 ? pairs : 0);
  ZAddPair* items = pairs > 8 ? heap_pairs.data() : inline_pairs;
  for (size_t j = 0; j < pairs; j++) {
    auto score = ParseDouble(ctx.arg(idx + 2 * j));
    if (!score) {
      return ctx.rb().Error(errors::kNotFloat);
    }
    items[j] = {*score, ctx.arg(idx + 2 * j + 1)};
  }
  ZAddAndReply(ctx, ctx.arg(1), flags, ch, items, pairs);
}

}  // namespace

ZAddOptions ParseZAddOptions(CommandContext& ctx, size_t first, bool geo) {
  ZAddOptions o;
  o.next = first;
  for (; o.next < ctx.argc(); o.next++) {
    std::string_view a = ctx.arg(o.next);
    if (a.size() != 2 && a.size() != 4) {
      break;  // not NX XX CH GT LT INCR (a score or a longitude: no compares)
    }
    if (EqualsIgnoreCase(a, "NX")) {
      o.flags.nx = true;
    } else if (EqualsIgnoreCase(a, "XX")) {
      o.flags.xx = true;
    } else if (EqualsIgnoreCase(a, "CH")) {
      o.ch = true;
    } else if (geo) {
      break;
    } else if (EqualsIgnoreCase(a, "INCR")) {
      o.flags.incr = true;
    } else if (EqualsIgnoreCase(a, "GT")) {
      o.flags.gt = true;
    } else if (EqualsIgnoreCase(a, "LT")) {
      o.flags.lt = true;
    } else {
      break;
    }
  }
  return o;
}

void ZAddAndReply(CommandContext& ctx, std::string_view key, types::ZAddFlags flags, bool ch,
                  const ZAddPair* items, size_t pairs) {
  size_t longest = 0;
  for (size_t j = 0; j < pairs; j++) {
    longest = std::max(longest, items[j].member.size());
  }

  ZFound found = FindZSetForWrite(ctx, key);
  if (found.wrong_type) {
    return;
  }
  const types::ZSetLimits limits = ZLimits(ctx);
  int64_t added = 0, updated = 0, processed = 0;
  double last_score = 0;
  bool nan = false;
  if (found.zset != nullptr || !flags.xx) {
    ZSetValue fresh;
    ZSetValue* zset = found.zset;
    if (zset == nullptr) {
      fresh = ZSetValue::Create(pairs, longest, limits);
      zset = &fresh;
    } else {
      // Redis converts an existing key up front by the number of pairs only; a long
      // member converts it when it lands (so XX that adds nothing keeps a listpack).
      zset->MaybeConvert(pairs, limits);
    }
    for (size_t j = 0; j < pairs; j++) {
      const types::ZAddOutcome outcome = zset->Add(items[j].member, items[j].score, flags, limits);
      switch (outcome.result) {
        case ZAddResult::kAdded:
          added++;
          processed++;
          break;
        case ZAddResult::kUpdated:
          updated++;
          processed++;
          break;
        case ZAddResult::kUnchanged:
          processed++;
          break;
        case ZAddResult::kNotPerformed:
          break;
        case ZAddResult::kNaN:
          nan = true;
          break;
      }
      if (nan) {
        break;
      }
      last_score = outcome.score;
    }
    if (found.zset == nullptr && !fresh.Empty()) {
      InsertZSet(ctx, key, std::move(fresh));
    }
    if (added > 0 || updated > 0) {
      ctx.KeyModified(key, notify::kZSet, flags.incr ? "zincr" : "zadd");
      ctx.AddDirty(added + updated - 1);  // Redis: dirty += added + updated
    }
  }
  if (nan) {
    return ctx.rb().Error(zset_errors::kNaN);
  }
  if (flags.incr) {
    return processed > 0 ? ctx.rb().Double(last_score) : ctx.rb().Null();
  }
  ctx.rb().Integer(ch ? added + updated : added);
}

void ZAddCommand(CommandContext& ctx) { ZAddGeneric(ctx, false); }
void ZIncrByCommand(CommandContext& ctx) { ZAddGeneric(ctx, true); }

// ZREM key member [member ...]
void ZRemCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  ZFound found = FindZSetForWrite(ctx, key);
  if (found.zset == nullptr) {
    return found.wrong_type ? void() : ctx.rb().Integer(0);
  }
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.argc() && !found.zset->Empty(); i++) {
    if (found.zset->Remove(ctx.arg(i))) {
      deleted++;
    }
  }
  if (deleted > 0) {
    ctx.KeyModified(key, notify::kZSet, "zrem");
    ctx.AddDirty(deleted - 1);
    DeleteZSetIfEmpty(ctx, key, *found.zset);
  }
  ctx.rb().Integer(deleted);
}

// ZCARD key
void ZCardCommand(CommandContext& ctx) {
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  ctx.rb().Integer(found.zset ? static_cast<int64_t>(found.zset->Size()) : 0);
}

// ZCOUNT key min max
void ZCountCommand(CommandContext& ctx) {
  auto range = types::ParseZScoreRange(ctx.arg(2), ctx.arg(3));
  if (!range) {
    return ctx.rb().Error(zset_errors::kMinMaxNotFloat);
  }
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  ctx.rb().Integer(found.zset ? static_cast<int64_t>(found.zset->CountInScoreRange(*range)) : 0);
}

// ZLEXCOUNT key min max
void ZLexCountCommand(CommandContext& ctx) {
  auto range = types::ParseZLexRange(ctx.arg(2), ctx.arg(3));
  if (!range) {
    return ctx.rb().Error(zset_errors::kMinMaxNotLex);
  }
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  ctx.rb().Integer(found.zset ? static_cast<int64_t>(found.zset->CountInLexRange(*range)) : 0);
}

// ZSCORE key member
void ZScoreCommand(CommandContext& ctx) {
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  std::optional<double> score;
  if (found.zset != nullptr) {
    score = found.zset->Score(ctx.arg(2));
  }
  return score ? ctx.rb().Double(*score) : ctx.rb().Null();
}

// ZMSCORE key member [member ...]
void ZMScoreCommand(CommandContext& ctx) {
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::optional<double> score;
    if (found.zset != nullptr) {
      score = found.zset->Score(ctx.arg(i));
    }
    score ? ctx.rb().Double(*score) : ctx.rb().Null();
  }
}

namespace {

// ZRANK / ZREVRANK key member [WITHSCORE]
void ZRankGeneric(CommandContext& ctx, bool reverse) {
  if (ctx.argc() > 4) {
    return ctx.rb().Error("ERR wrong number of arguments for '" + ctx.command()->full_name +
                          "' command");
  }
  bool withscore = false;
  if (ctx.argc() == 4) {
    if (!EqualsIgnoreCase(ctx.arg(3), "WITHSCORE")) {
      return ctx.rb().Error(errors::kSyntax);
    }
    withscore = true;
  }
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  std::optional<types::ZRankInfo> rank;
  if (found.zset != nullptr) {
    rank = found.zset->Rank(ctx.arg(2), reverse);
  }
  if (!rank) {
    return withscore ? ctx.rb().NullArray() : ctx.rb().Null();
  }
  if (withscore) {
    ctx.rb().Array(2);
    ctx.rb().Integer(static_cast<int64_t>(rank->rank));
    return ctx.rb().Double(rank->score);
  }
  ctx.rb().Integer(static_cast<int64_t>(rank->rank));
}

}  // namespace

void ZRankCommand(CommandContext& ctx) { ZRankGeneric(ctx, false); }
void ZRevRankCommand(CommandContext& ctx) { ZRankGeneric(ctx, true); }

// ZRANDMEMBER key [count [WITHSCORES]]
void ZRandMemberCommand(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    ZFound found = FindZSetForRead(ctx, ctx.arg(1));
    if (found.wrong_type) {
      return;
    }
    if (found.zset == nullptr) {
      return ctx.rb().Null();
    }
    return ctx.rb().Bulk(found.zset->RandomMember(ThreadRng())->member);
  }
  auto count = ctx.IntArg(2);
  if (!count) {
    return;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (*count < -kMax) {
    return ctx.rb().Error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
  }
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !EqualsIgnoreCase(ctx.arg(3), "WITHSCORES"))) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const bool withscores = ctx.argc() == 4;
  if (withscores && (*count < -kMax / 2 || *count > kMax / 2)) {
    return ctx.rb().Error("ERR value is out of range");
  }
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  if (found.zset == nullptr || *count == 0) {
    return ctx.rb().EmptyArray();
  }
  ReplyBuilder& rb = ctx.rb();
  ZPairsHeader(rb, found.zset->RandomMembersLength(*count), withscores);
  found.zset->RandomMembers(*count, ThreadRng(), [&](std::string_view member, double score) {
    ZPair(rb, member, score, withscores);
  });
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
void ZScanCommand(CommandContext& ctx) {
  auto cursor = ParseUint64(ctx.arg(2));
  if (!cursor) {
    return ctx.rb().Error("ERR invalid cursor");
  }
  ZFound found = FindZSetForRead(ctx, ctx.arg(1));
  if (found.wrong_type) {
    return;
  }
  if (found.zset == nullptr) {
    ctx.rb().Array(2);
    ctx.rb().Bulk("0");
    return ctx.rb().EmptyArray();
  }
  std::string_view pattern;
  bool use_pattern = false;
  int64_t count = 10;
  for (size_t i = 3; i < ctx.argc();) {
    std::string_view a = ctx.arg(i);
    const size_t left = ctx.argc() - i;
    if (EqualsIgnoreCase(a, "COUNT") && left >= 2) {
      auto c = ctx.IntArg(i + 1);
      if (!c) {
        return;
      }
      if (*c < 1) {
        return ctx.rb().Error(errors::kSyntax);
      }
      count = *c;
      i += 2;
    } else if (EqualsIgnoreCase(a, "MATCH") && left >= 2) {
      pattern = ctx.arg(i + 1);
      use_pattern = pattern != "*";
      i += 2;
    } else if (EqualsIgnoreCase(a, "NOVALUES")) {
      return ctx.rb().Error("ERR NOVALUES option can only be used in HSCAN");
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  // Redis replies the listpack's stored text for a compact zset (shortest round-trip
  // form) and "%.17Lg" of the score for a skiplist one.
  const bool skiplist = found.zset->encoding() == ZSetValue::Encoding::kSkiplist;
  std::vector<std::pair<std::string, std::string>> items;
  const uint64_t next = found.zset->Scan(
      *cursor, static_cast<size_t>(count), [&](std::string_view member, double score) {
        if (use_pattern && !GlobMatch(pattern, member)) {
          return;
        }
        char buf[kDoubleChars];
        size_t n;
        if (!skiplist || std::isinf(score)) {
          n = FormatDouble(score, buf);
        } else {
          n = static_cast<size_t>(
              snprintf(buf, sizeof(buf), "%.17Lg", static_cast<long double>(score)));
        }
        items.emplace_back(std::string(member), std::string(buf, n));
      });
  ReplyBuilder& rb = ctx.rb();
  rb.Array(2);
  rb.Bulk(std::to_string(next));
  rb.Array(items.size() * 2);
  for (const auto& [member, score] : items) {
    rb.Bulk(member);
    rb.Bulk(score);
  }
}

}  // namespace hotkv

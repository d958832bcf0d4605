// Shared pieces of the sorted-set command family (zset_*.cc): typed lookups, reply
// shapes, storing a computed zset under a key, and the handler declarations that
// zset_family_table.cc puts into the command table.
//
//   ZFound z = FindZSetForRead(ctx, ctx.arg(1));
//   if (z.wrong_type) return;                     // WRONGTYPE already replied
//   if (z.zset == nullptr) return ctx.rb().EmptyArray();
//   ZPairsHeader(ctx.rb(), n, withscores);
//   z.zset->Visit(span, [&](std::string_view m, double s) { ZPair(ctx.rb(), m, s, withscores); });
//
// Every handler runs with the shard locks of its keys held by the dispatcher (or EXEC).
//
// Thread safety: stateless helpers, except ZRandom() which is per thread.
#pragma once

#include <memory>
#include <random>
#include <string_view>

#include "engine/database.h"
#include "protocol/reply_builder.h"
#include "server/command_context.h"
#include "types/zset.h"
#include "types/zset_algebra.h"

namespace hotkv {

// Error texts of the family, as Redis writes them.
namespace zset_errors {
inline constexpr std::string_view kMinMaxNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kMinMaxNotLex = "ERR min or max not valid string range item";
inline constexpr std::string_view kNaN = "ERR resulting score is not a number (NaN)";
}  // namespace zset_errors

// The zset encoding thresholds from the live configuration.
types::ZSetLimits ZLimits(CommandContext& ctx);

struct ZFound {
  types::ZSetValue* zset = nullptr;  // null: no such key (or wrong type)
  bool wrong_type = false;           // WRONGTYPE has been replied
};

// A lookup for reading: counts keyspace hits/misses, touches the key, emits keymiss.
ZFound FindZSetForRead(CommandContext& ctx, std::string_view key);
// A lookup for writing: touches the key but keeps no hit/miss statistics and emits no
// keymiss (Redis's lookupKeyWrite).
ZFound FindZSetForWrite(CommandContext& ctx, std::string_view key);

// Adds `zset` (non-empty) as the new value of `key`, which must not exist. Waiters
// blocked on the key are signalled by the engine. Returns the stored zset.
types::ZSetValue* InsertZSet(CommandContext& ctx, std::string_view key, types::ZSetValue zset);

// After elements were removed from the zset of `key`: deletes the key when the zset is
// now empty and emits the generic "del" event. Returns whether the key was deleted.
bool DeleteZSetIfEmpty(CommandContext& ctx, std::string_view key, const types::ZSetValue& zset);

// Stores `result` as `dst` (ZRANGESTORE, ZUNIONSTORE...): any old value of any type is
// replaced and its TTL dropped; an empty result deletes `dst` instead (emitting "del"
// if it existed). Emits `event` on success and replies the stored size.
void StoreZSetResult(CommandContext& ctx, std::string_view dst, types::ZSetValue result,
                     std::string_view event);

// ZADD's options from ctx.arg(first) up to the first other word: NX XX CH INCR GT LT, or
// only NX XX CH for GEOADD (`geo`). `next` is the index of that word.
struct ZAddOptions {
  types::ZAddFlags flags;
  bool ch = false;
  size_t next = 0;
};
ZAddOptions ParseZAddOptions(CommandContext& ctx, size_t first, bool geo);

// The work of ZADD after its arguments are parsed (also GEOADD's): adds or updates the
// pairs under `flags`, creates the key if needed (not with XX), emits "zadd"/"zincr",
// and replies the count (added, or added + updated with `ch`), or the new score (INCR).
struct ZAddPair {
  double score;
  std::string_view member;
};
void ZAddAndReply(CommandContext& ctx, std::string_view key, types::ZAddFlags flags, bool ch,
                  const ZAddPair* pairs, size_t n);

// Reply shape of a list of n elements, optionally with scores: RESP2 is one flat array
// (member, score, member, score...), RESP3 an array of [member, score] pairs.
void ZPairsHeader(ReplyBuilder& rb, size_t n, bool withscores);
void ZPair(ReplyBuilder& rb, std::string_view member, double score, bool withscores);

// A sorted-set view of an input key of ZUNION & co. (null entry: a missing key).
// Returns null and replies WRONGTYPE for a key that is neither a zset nor a set.
struct ZAlgebraInput {
  std::unique_ptr<types::ZSetSource> source;  // null for a missing key
  bool wrong_type = false;
};
ZAlgebraInput ZAlgebraSourceFor(CommandContext& ctx, const Entry* e);

// ---- handlers (one per command) ----------------------------------------------------

void ZAddCommand(CommandContext& ctx);
void ZIncrByCommand(CommandContext& ctx);
void ZRemCommand(CommandContext& ctx);
void ZCardCommand(CommandContext& ctx);
void ZCountCommand(CommandContext& ctx);
void ZLexCountCommand(CommandContext& ctx);
void ZScoreCommand(CommandContext& ctx);
void ZMScoreCommand(CommandContext& ctx);
void ZRankCommand(CommandContext& ctx);
void ZRevRankCommand(CommandContext& ctx);
void ZRandMemberCommand(CommandContext& ctx);
void ZScanCommand(CommandContext& ctx);

void ZRangeCommand(CommandContext& ctx);
void ZRangeStoreCommand(CommandContext& ctx);
void ZRevRangeCommand(CommandContext& ctx);
void ZRangeByScoreCommand(CommandContext& ctx);
void ZRevRangeByScoreCommand(CommandContext& ctx);
void ZRangeByLexCommand(CommandContext& ctx);
void ZRevRangeByLexCommand(CommandContext& ctx);
void ZRemRangeByRankCommand(CommandContext& ctx);
void ZRemRangeByScoreCommand(CommandContext& ctx);
void ZRemRangeByLexCommand(CommandContext& ctx);

void ZPopMinCommand(CommandContext& ctx);
void ZPopMaxCommand(CommandContext& ctx);
void ZMPopCommand(CommandContext& ctx);
void BZPopMinCommand(CommandContext& ctx);
void BZPopMaxCommand(CommandContext& ctx);
void BZMPopCommand(CommandContext& ctx);

void ZUnionCommand(CommandContext& ctx);
void ZInterCommand(CommandContext& ctx);
void ZDiffCommand(CommandContext& ctx);
void ZUnionStoreCommand(CommandContext& ctx);
void ZInterStoreCommand(CommandContext& ctx);
void ZDiffStoreCommand(CommandContext& ctx);
void ZInterCardCommand(CommandContext& ctx);

}  // namespace hotkv

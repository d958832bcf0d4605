// ZSetValue: the value of a Redis sorted-set key, with every operation the Z*
// commands need, so each command is a thin wrapper (argument parsing and replies
// stay in the command layer; no locking, no I/O here).
//
// Two encodings, converted on growth and never back:
//   * "listpack" (ZListpack): one compact buffer, elements in (score, member) order;
//     used while size <= ZSetLimits::max_listpack_entries and every member is at
//     most max_listpack_value bytes.
//   * "skiplist" (ZTreeSet): member hash table + order-statistics B+tree; O(1) score
//     lookup, O(log n) insert/remove/rank/range start.
//
// Order is by score, then member bytes (memcmp). Scores are never NaN; -inf/+inf are
// fine. Ranges are resolved first into a ZRankSpan (O(log n), so the reply length is
// known up front), then visited through a callback that receives views into the
// zset; nothing is copied. Example, ZREVRANGEBYSCORE key +inf 10 WITHSCORES LIMIT 0 5:
//
//   auto range = ParseZScoreRange("10", "+inf");          // min, max: caller swaps REV args
//   if (!range) return Error("min or max is not a float");
//   ZRankSpan span = zset.ScoreSpan(*range, /*reverse=*/true, ZLimit{0, 5});
//   reply.ArrayHeader(span.size() * 2);
//   zset.Visit(span, [&](std::string_view m, double s) { reply.Bulk(m); reply.Double(s); });
//
// Views handed out (ZVisitor arguments, ZMemberScore) are valid until the zset is next
// modified. Visitors must not modify the zset they are visiting.
//
// Thread safety: none. A ZSetValue is owned by one key; the caller holds the shard
// lock for every call (const calls may run concurrently with other const calls).

#ifndef HOTKV_TYPES_ZSET_H_
#define HOTKV_TYPES_ZSET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "common/random.h"
#include "types/zset_defs.h"
#include "types/zset_listpack.h"

namespace hotkv::types {

class ZTreeSet;

class ZSetValue {
 public:
  enum class Encoding : uint8_t { kListpack, kSkiplist };

  ZSetValue();  // empty, listpack-encoded
  ~ZSetValue();
  ZSetValue(ZSetValue&& other) noexcept;
  ZSetValue& operator=(ZSetValue&& other) noexcept;
  ZSetValue(const ZSetValue&) = delete;
  ZSetValue& operator=(const ZSetValue&) = delete;

  // A new empty zset about to receive ~`size_hint` members of ~`value_len_hint`
  // bytes (Redis zsetTypeCreate): skiplist-encoded, pre-sized, when either hint is
  // beyond the limits. ZADD on a new key passes (pairs, length of the first member).
  static ZSetValue Create(size_t size_hint, size_t value_len_hint, const ZSetLimits& limits = {});

  // Deep copy in the same encoding (COPY command).
  ZSetValue Clone() const;

  Encoding encoding() const { return tree_ ? Encoding::kSkiplist : Encoding::kListpack; }
  const char* EncodingName() const;  // "listpack" or "skiplist" (OBJECT ENCODING)
  size_t Size() const;               // ZCARD
  bool Empty() const { return Size() == 0; }
  // Heap bytes owned by this value (malloc_usable_size of every allocation), not
  // counting sizeof(ZSetValue) itself. O(1).
  size_t MemoryUsage() const;

  // Before adding `size_hint` members to an existing key (ZADD with many pairs),
  // converts to skiplist when the hint alone exceeds the entry limit (Redis
  // zsetTypeMaybeConvert).
  void MaybeConvert(size_t size_hint, const ZSetLimits& limits = {});

  // ---- Single members -------------------------------------------------------------

  // ZADD / ZINCRBY for one pair, with Redis's semantics for NX/XX/GT/LT/INCR (see
  // ZAddResult). `score` must not be NaN. May convert to skiplist.
  ZAddOutcome Add(std::string_view member, double score, ZAddFlags flags = {},
                  const ZSetLimits& limits = {});
  // ZREM: true if the member was present.
  bool Remove(std::string_view member);
  // ZSCORE / ZMSCORE.
  std::optional<double> Score(std::string_view member) const;
  // ZRANK / ZREVRANK (with WITHSCORE): rank counted from the low end, or from the
  // high end when `reverse`.
  std::optional<ZRankInfo> Rank(std::string_view member, bool reverse = false) const;

  // ---- Ranges: resolve to a span, then Visit or Erase it ----------------------------

  // ZRANGE start stop [REV]: Redis index rules (negative from the end, clamped;
  // empty when start > stop or start >= size). With `reverse`, index 0 is the
  // highest element.
  ZRankSpan RankSpan(int64_t start, int64_t stop, bool reverse = false) const;
  // ZRANGE BYSCORE / ZRANGEBYSCORE / ZREVRANGEBYSCORE with LIMIT. The range is always
  // (min, max); with `reverse`, elements come from max down and the offset counts
  // from max.
  ZRankSpan ScoreSpan(const ZScoreRange& range, bool reverse = false, ZLimit limit = {}) const;
  // ZRANGE BYLEX / ZRANGEBYLEX / ZREVRANGEBYLEX with LIMIT. Meaningful when all
  // scores are equal (as in Redis); otherwise the result is unspecified.
  ZRankSpan LexSpan(const ZLexRange& range, bool reverse = false, ZLimit limit = {}) const;
  // ZCOUNT and ZLEXCOUNT, O(log n).
  size_t CountInScoreRange(const ZScoreRange& range) const;
  size_t CountInLexRange(const ZLexRange& range) const;

  // Calls `visit` for each element of `span`, in span order.
  void Visit(ZRankSpan span, ZVisitor visit) const;
  // Calls `visit` for each element of the score range, ascending: Visit(ScoreSpan(range))
  // with one rank lookup (the low end) instead of two, the walk stopping at the first
  // score past the high end.
  void VisitScoreRange(const ZScoreRange& range, ZVisitor visit) const;
  // Removes the elements of `span`; returns how many.
  size_t Erase(ZRankSpan span);
  // ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX: return the number removed.
  size_t RemoveRangeByRank(int64_t start, int64_t stop) { return Erase(RankSpan(start, stop)); }
  size_t RemoveRangeByScore(const ZScoreRange& range) { return Erase(ScoreSpan(range)); }
  size_t RemoveRangeByLex(const ZLexRange& range) { return Erase(LexSpan(range)); }

  // ZPOPMIN / ZPOPMAX / ZMPOP / BZPOP*: removes up to `count` elements from the low
  // end (or the high end when `from_max`), calling `visit` for each, in pop order,
  // just before it is removed. Returns the number removed (min(count, Size())).
  size_t Pop(size_t count, bool from_max, ZVisitor visit);

  // ---- Whole-set access ----------------------------------------------------------

  // Every element in ascending order (ZUNION & co. inputs, persistence).
  void ForEach(ZVisitor visit) const;

  // ZSCAN: visits about `count` elements (a hint) and returns the cursor for the next
  // call, 0 when done. A listpack zset returns everything with cursor 0, as Redis
  // does. Every element present for the whole scan is visited; with the skiplist
  // encoding each is visited exactly once, even across table resizes. MATCH and
  // NOSCORES filtering is the caller's.
  uint64_t Scan(uint64_t cursor, size_t count, ZVisitor visit) const;

  // ZRANDMEMBER without count: a uniformly random element; nullopt if empty.
  std::optional<ZMemberScore> RandomMember(Rng& rng) const;
  // ZRANDMEMBER count: count > 0 visits min(count, Size()) distinct elements, count < 0
  // visits |count| elements that may repeat. Returns the number visited, which
  // RandomMembersLength(count) gives in advance for the reply header.
  size_t RandomMembers(int64_t count, Rng& rng, ZVisitor visit) const;
  size_t RandomMembersLength(int64_t count) const;

  // Checks the internal invariants of the current encoding; for tests.
  bool Validate() const;

 private:
  friend class ZSetBuilder;

  size_t CountBelowScore(double score, bool inclusive) const;
  size_t CountBelowMember(std::string_view member, bool inclusive) const;
  size_t CountBelowLexMin(const ZLexBound& bound) const;
  size_t CountBelowLexMax(const ZLexBound& bound) const;
  ZMemberScore At(size_t rank) const;
  void ConvertToTree(size_t capacity_hint);

  ZListpack listpack_;              // the elements, while listpack-encoded
  std::unique_ptr<ZTreeSet> tree_;  // non-null: skiplist-encoded
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_H_

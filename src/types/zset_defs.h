// Plain types shared by the sorted-set (zset) implementation and its callers.
//
// These are the vocabulary of the zset API in zset.h: the encoding thresholds the
// caller passes in (ZSetLimits), the ZADD flags and outcome, score / lex / rank range
// specifications with Redis's parsing rules, and ZVisitor, the non-owning callback
// through which ranges are handed to the caller without copying members.
//
// Example (the command layer for ZRANGEBYSCORE key (1 +inf LIMIT 0 10):
//
//   auto range = ParseZScoreRange("(1", "+inf");   // nullopt -> "min or max is not a float"
//   ZRankSpan span = zset.ScoreSpan(*range, /*reverse=*/false, ZLimit{0, 10});
//   reply.ArrayHeader(span.size());
//   zset.Visit(span, [&](std::string_view member, double score) { reply.Bulk(member); });
//
// Thread safety: all types here are values; nothing is shared.

#ifndef HOTKV_TYPES_ZSET_DEFS_H_
#define HOTKV_TYPES_ZSET_DEFS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hotkv::types {

// A non-owning reference to a callable, cheap to pass by value (two words). The
// callable must outlive the call it is passed to; never store a ZFunctionRef.
template <typename Signature>
class ZFunctionRef;

template <typename R, typename... Args>
class ZFunctionRef<R(Args...)> {
 public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ZFunctionRef> &&
                                        std::is_invocable_r_v<R, F&, Args...>>>
  ZFunctionRef(F&& f)  // NOLINT: implicit by design, like absl::FunctionRef.
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        invoke_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return invoke_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*invoke_)(void*, Args...);
};

// Receives one (member, score) pair. The member view is valid only during the call
// (it points into the zset), so copy it if it must outlive the callback.
using ZVisitor = ZFunctionRef<void(std::string_view member, double score)>;

// Encoding thresholds (Redis: zset-max-listpack-entries / zset-max-listpack-value).
// The caller passes the current configuration to every call that may grow a zset.
struct ZSetLimits {
  size_t max_listpack_entries = 128;
  size_t max_listpack_value = 64;  // bytes of the longest member
};

// ZADD / ZINCRBY options. CH only changes how the command counts, so it is not
// here: the command adds kUpdated outcomes to its reply when CH is given.
// Incompatible combinations (NX+XX, NX+GT/LT, GT+LT) must be rejected by the caller.
struct ZAddFlags {
  bool nx = false;    // only add new members
  bool xx = false;    // only update existing members
  bool gt = false;    // update an existing member only if the new score is greater
  bool lt = false;    // update an existing member only if the new score is less
  bool incr = false;  // add `score` to the current score (absent = 0), like ZINCRBY
};

enum class ZAddResult : uint8_t {
  kAdded,         // member was new and has been inserted
  kUpdated,       // member existed and its score changed
  kUnchanged,     // member existed, same score (or INCR by 0): nothing changed
  kNotPerformed,  // NX/XX/GT/LT prevented the operation (ZADD INCR replies nil)
  kNaN,           // INCR produced NaN (e.g. +inf + -inf): reply with the error
                  // "resulting score is not a number (NaN)"; the zset is unchanged
};

struct ZAddOutcome {
  ZAddResult result;
  // The member's score after the call for kAdded / kUpdated / kUnchanged (the value
  // ZADD INCR and ZINCRBY reply with); unspecified otherwise.
  double score;
};

// A score interval [min, max], each end optionally exclusive. Never NaN.
struct ZScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;
};

// One end of a lex range: "-" (kMinusInf), "+" (kPlusInf), "[member" or "(member".
struct ZLexBound {
  enum class Kind : uint8_t { kMinusInf, kPlusInf, kInclusive, kExclusive };
  Kind kind = Kind::kMinusInf;
  std::string_view member;  // views the caller's argument; only for kInclusive/kExclusive
};

struct ZLexRange {
  ZLexBound min;
  ZLexBound max{ZLexBound::Kind::kPlusInf, {}};
};

// LIMIT offset count. A negative offset selects nothing, a negative count means
// "all the rest" (Redis semantics).
struct ZLimit {
  int64_t offset = 0;
  int64_t count = -1;
};

// A run of consecutive ranks [begin, end) in ascending (score, member) order. When
// `reverse` is set the run is visited from end - 1 down to begin. Computed in
// O(log n) by the *Span methods of ZSetValue, so a reply length is known before any
// element is visited.
struct ZRankSpan {
  size_t begin = 0;
  size_t end = 0;
  bool reverse = false;

  size_t size() const { return end - begin; }
  bool empty() const { return end == begin; }
};

// One element as a view into the zset; valid until the zset is next modified.
struct ZMemberScore {
  std::string_view member;
  double score;
};

struct ZRankInfo {
  size_t rank;   // 0-based, counted from the low end (or the high end if reversed)
  double score;  // the member's score (ZRANK ... WITHSCORE)
};

// Parses ZRANGEBYSCORE-style bounds: a double as strtod reads it ("-inf", "+inf",
// "1e3", ...), optionally prefixed with '(' for exclusive. Returns nullopt (Redis:
// "min or max is not a float") on trailing garbage or NaN.
std::optional<ZScoreRange> ParseZScoreRange(std::string_view min, std::string_view max);

// Parses ZRANGEBYLEX-style bounds: "-", "+", "[member", "(member". The result views
// the arguments. Returns nullopt (Redis: "min or max not valid string range item").
std::optional<ZLexRange> ParseZLexRange(std::string_view min, std::string_view max);

// Orders members as Redis does: memcmp on the bytes, shorter first on a tie.
inline int CompareZMembers(std::string_view a, std::string_view b) { return a.compare(b); }

// Strict (score, member) order of zset elements.
inline bool ZKeyLess(double score_a, std::string_view member_a, double score_b,
                     std::string_view member_b) {
  return score_a < score_b || (score_a == score_b && member_a < member_b);
}

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_DEFS_H_

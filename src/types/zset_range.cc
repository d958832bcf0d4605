// Range parsing and range -> rank span resolution for ZSetValue.
//
// Every range becomes [lo, hi) in ascending rank: lo = number of elements below the
// lower bound, hi = number of elements not above the upper bound, each an O(log n)
// count. LIMIT is then plain arithmetic on that interval, so ZRANGEBYSCORE with a
// large offset costs O(log n), not O(offset).

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "types/zset.h"

namespace hotkv::types {

namespace {

// strtod over the whole of `text` (as Redis: leading spaces, "inf", hex accepted;
// anything left over, or NaN, is an error).
std::optional<double> ParseDouble(std::string_view text) {
  char local[64];
  std::string heap;
  const char* cstr;
  if (text.size() < sizeof(local)) {
    text.copy(local, text.size());
    local[text.size()] = '\0';
    cstr = local;
  } else {
    heap.assign(text);
    cstr = heap.c_str();
  }
  char* end = nullptr;
  const double value = std::strtod(cstr, &end);
  if (end != cstr + text.size() || std::isnan(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<ZLexBound> ParseLexBound(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  switch (text[0]) {
    case '+':
      if (text.size() != 1) {
        return std::nullopt;
      }
      return ZLexBound{ZLexBound::Kind::kPlusInf, {}};
    case '-':
      if (text.size() != 1) {
        return std::nullopt;
      }
      return ZLexBound{ZLexBound::Kind::kMinusInf, {}};
    case '[':
      return ZLexBound{ZLexBound::Kind::kInclusive, text.substr(1)};
    case '(':
      return ZLexBound{ZLexBound::Kind::kExclusive, text.substr(1)};
    default:
      return std::nullopt;
  }
}

// [lo, hi) -> span with LIMIT applied (Redis: a negative offset selects nothing, a
// negative count means no limit; with `reverse` the offset counts from hi).
ZRankSpan ApplyLimit(size_t lo, size_t hi, bool reverse, ZLimit limit) {
  if (hi <= lo || limit.offset < 0 || limit.count == 0) {
    return {lo, lo, reverse};
  }
  const size_t n = hi - lo;
  const auto offset = static_cast<size_t>(limit.offset);
  if (offset >= n) {
    return {lo, lo, reverse};
  }
  const size_t available = n - offset;
  const size_t take = limit.count < 0 || static_cast<uint64_t>(limit.count) > available
                          ? available
                          : static_cast<size_t>(limit.count);
  if (reverse) {
    return {hi - offset - take, hi - offset, true};
  }
  return {lo + offset, lo + offset + take, false};
}

}  // namespace

std::optional<ZScoreRange> ParseZScoreRange(std::string_view min, std::string_view max) {
  ZScoreRange range;
  if (!min.empty() && min[0] == '(') {
    range.min_exclusive = true;
    min.remove_prefix(1);
  }
  if (!max.empty() && max[0] == '(') {
    range.max_exclusive = true;
    max.remove_prefix(1);
  }
  const std::optional<double> lo = ParseDouble(min);
  const std::optional<double> hi = ParseDouble(max);
  if (!lo || !hi) {
    return std::nullopt;
  }
  range.min = *lo;
  range.max = *hi;
  return range;
}

std::optional<ZLexRange> ParseZLexRange(std::string_view min, std::string_view max) {
  std::optional<ZLexBound> lo = ParseLexBound(min);
  std::optional<ZLexBound> hi = ParseLexBound(max);
  if (!lo || !hi) {
    return std::nullopt;
  }
  return ZLexRange{*lo, *hi};
}

size_t ZSetValue::CountBelowLexMin(const ZLexBound& bound) const {
  switch (bound.kind) {
    case ZLexBound::Kind::kMinusInf:
      return 0;
    case ZLexBound::Kind::kPlusInf:
      return Size();
    case ZLexBound::Kind::kInclusive:
      return CountBelowMember(bound.member, /*inclusive=*/false);
    case ZLexBound::Kind::kExclusive:
      return CountBelowMember(bound.member, /*inclusive=*/true);
  }
  return 0;
}

size_t ZSetValue::CountBelowLexMax(const ZLexBound& bound) const {
  switch (bound.kind) {
    case ZLexBound::Kind::kMinusInf:
      return 0;
    case ZLexBound::Kind::kPlusInf:
      return Size();
    case ZLexBound::Kind::kInclusive:
      return CountBelowMember(bound.member, /*inclusive=*/true);
    case ZLexBound::Kind::kExclusive:
      return CountBelowMember(bound.member, /*inclusive=*/false);
  }
  return 0;
}

ZRankSpan ZSetValue::RankSpan(int64_t start, int64_t stop, bool reverse) const {
  const auto size = static_cast<int64_t>(Size());
  if (start < 0) {
    start += size;
  }
  if (stop < 0) {
    stop += size;
  }
  if (start < 0) {
    start = 0;
  }
  if (start > stop || start >= size) {
    return {0, 0, reverse};
  }
  if (stop >= size) {
    stop = size - 1;
  }
  if (reverse) {  // indexes count from the high end
    return {static_cast<size_t>(size - 1 - stop), static_cast<size_t>(size - start), true};
  }
  return {static_cast<size_t>(start), static_cast<size_t>(stop + 1), false};
}

ZRankSpan ZSetValue::ScoreSpan(const ZScoreRange& range, bool reverse, ZLimit limit) const {
  const size_t lo = CountBelowScore(range.min, /*inclusive=*/range.min_exclusive);
  const size_t hi = CountBelowScore(range.max, /*inclusive=*/!range.max_exclusive);
  return ApplyLimit(lo, hi, reverse, limit);
}

ZRankSpan ZSetValue::LexSpan(const ZLexRange& range, bool reverse, ZLimit limit) const {
  const size_t lo = CountBelowLexMin(range.min);
  const size_t hi = CountBelowLexMax(range.max);
  return ApplyLimit(lo, hi, reverse, limit);
}

size_t ZSetValue::CountInScoreRange(const ZScoreRange& range) const {
  return ScoreSpan(range).size();
}

size_t ZSetValue::CountInLexRange(const ZLexRange& range) const { return LexSpan(range).size(); }

}  // namespace hotkv::types

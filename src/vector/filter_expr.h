// FilterExpression: Redis 8 vector-set FILTER expressions, compiled once and
// evaluated against each candidate's attributes JSON.
//
//   auto f = FilterExpression::Compile(".year >= 1980 and .genre in [\"action\", \"drama\"]");
//   if (!f.ok()) { ... f.status().message() is a syntax error with its offset ... }
//   bool hit = (*f)->Matches(R"({"year": 1984, "genre": "action"})");
//
// Syntax (precedence from loosest to tightest, as Redis's expr.c):
//   or ||          and &&          == != < <= > >= in          + -          * / %
//   ** (right-associative)          unary: not ! - +          ( ) grouping
// Operands: numbers (1, -2.5, 1e3), strings ('x' or "x", backslash escapes), true,
// false, null, array literals [1, "a", true], and selectors `.field` (top-level fields
// of the attributes object; characters [A-Za-z0-9_-], as in Redis).
//
// Semantics (Redis's): booleans are the numbers 1 and 0. Arithmetic and ordering
// convert both sides to numbers (a string that is not entirely a number counts as
// 0) — except that two strings are ordered lexicographically (Redis would compare
// them as numbers). == / != compare strings as bytes, numbers numerically, null only
// equals null, mixed types as numbers. `a in [..]` tests membership; `"s" in "text"`
// tests for a substring. The result is true when it is a non-zero number, a non-empty
// string or an array. If any selector names a field that is missing, holds an object,
// an array with other than numbers/strings, or the attributes are not a JSON object,
// the element does not match (no error), like Redis.
// Attributes are read with json/'s parser (json::ParseTopLevelMember), as Redis reads
// them: the first of repeated keys wins and nothing after the field is read. Unlike
// Redis's scanner, it does not skip malformed JSON before the field (e.g. {"b":01,"a":1}
// does not match .a == 1).
//
// Thread safety: a compiled expression is immutable; Matches() may be called from any
// number of threads at once.
#ifndef HOTKV_VECTOR_FILTER_EXPR_H_
#define HOTKV_VECTOR_FILTER_EXPR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "vector/types.h"

namespace hotkv::vector {

class FilterExpression : public AttributePredicate {
 public:
  // Expressions longer than this are rejected.
  static constexpr size_t kMaxLength = 16384;
  // Maximum nesting of parentheses and unary operators.
  static constexpr int kMaxNesting = 64;
  // Maximum height of the expression tree (a chain a+b+c+... counts one per operator).
  static constexpr uint32_t kMaxDepth = 256;

  static Result<std::unique_ptr<FilterExpression>> Compile(std::string_view expr);
  ~FilterExpression() override;

  bool Matches(std::string_view attributes_json) const override;

  // The fields the expression reads, without the leading dot.
  const std::vector<std::string>& fields() const { return fields_; }

  struct Node;  // Defined in filter_expr.cc.

 private:
  FilterExpression() = default;
  friend class FilterParser;

  std::vector<Node> nodes_;        // nodes_[root_] is the expression.
  std::vector<std::string> fields_;  // Selector slot -> field name.
  uint32_t root_ = 0;
};

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_FILTER_EXPR_H_

// Filter expressions of JSONPath ([?(...)]): the tree the path parser builds and its
// evaluation against one candidate node.
//
// Thread safety: immutable once built; evaluation only reads the document.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "json/json_node.h"
#include "json/json_path.h"

namespace hotkv::json {

// Longest regular expression (and longest string matched against one) that =~ accepts:
// std::regex backtracks recursively, so both are bounded.
inline constexpr size_t kMaxRegexLength = 1024;
inline constexpr size_t kMaxRegexSubject = 16384;

struct FilterOperand {
  enum class Kind : uint8_t { kLiteral, kRelative, kAbsolute };
  Kind kind = Kind::kLiteral;
  std::shared_ptr<Node> literal;    // kLiteral
  std::vector<Selector> selectors;  // kRelative (from @) / kAbsolute (from $)
};

struct FilterExpr {
  enum class Op : uint8_t { kOr, kAnd, kNot, kCompare, kExists };
  enum class Cmp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kRegex };
  Op op = Op::kExists;
  Cmp cmp = Cmp::kEq;
  std::unique_ptr<FilterExpr> left, right;  // kOr, kAnd (both), kNot (left)
  FilterOperand a, b;                       // kCompare (both), kExists (a)
  std::shared_ptr<std::regex> regex;        // =~ with a literal pattern
};

// Compiles a =~ pattern (ECMAScript syntax; a leading "(?i)" makes it case-blind, as
// in Redis's regex dialect); null when it is invalid or longer than kMaxRegexLength.
std::shared_ptr<std::regex> CompileRegex(std::string_view pattern);

// True when `candidate` passes the filter; `root` is the document ($ operands).
bool FilterMatches(const FilterExpr& e, const Node& candidate, const Node& root);

// Runs selectors from `start` (used by filter operands); appends the matches.
void SelectFrom(const std::vector<Selector>& selectors, Node& start, Node& root,
                std::vector<Match>* out);

}  // namespace hotkv::json

// Internal to FilterExpression (filter_parser.cc, filter_expr.cc): the expression
// tree node.
//
// Thread safety: nodes are immutable once compiled.
#ifndef HOTKV_VECTOR_FILTER_NODE_H_
#define HOTKV_VECTOR_FILTER_NODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "json/json_node.h"
#include "vector/filter_expr.h"

namespace hotkv::vector {

enum class FilterOp : uint8_t {
  kNone,
  kNot,
  kNeg,
  kPlus,
  kPow,
  kMul,
  kDiv,
  kMod,
  kAdd,
  kSub,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kAnd,
  kOr,
};

struct FilterExpression::Node {
  enum class Kind : uint8_t { kNumber, kString, kNull, kArray, kSelector, kUnary, kBinary };
  Kind kind = Kind::kNumber;
  FilterOp op = FilterOp::kNone;
  double number = 0.0;
  std::string string;
  std::vector<json::Node> array;  // Literal elements (numbers, strings, null).
  uint32_t slot = 0;             // Selector: index into fields_.
  uint32_t lhs = 0;
  uint32_t rhs = 0;
};

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_FILTER_NODE_H_

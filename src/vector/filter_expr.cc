// FilterExpression evaluation against an element's attributes JSON.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "vector/filter_expr.h"
#include "vector/filter_node.h"

namespace hotkv::vector {

FilterExpression::~FilterExpression() = default;

namespace {

struct Val {
  enum class Kind : uint8_t { kNum, kStr, kNull, kArr };
  Kind kind = Kind::kNum;
  double num = 0.0;
  std::string_view str;
  const std::vector<json::Node>* arr = nullptr;

  static Val Num(double v) { return Val{Kind::kNum, v, {}, nullptr}; }
};

Val FromJson(const json::Node& j) {
  switch (j.kind()) {
    case json::Kind::kInt:
    case json::Kind::kDouble:
      return Val::Num(j.number());
    case json::Kind::kTrue:
      return Val::Num(1.0);
    case json::Kind::kFalse:
      return Val::Num(0.0);
    case json::Kind::kString:
      return Val{Val::Kind::kStr, 0.0, j.str(), nullptr};
    case json::Kind::kArray:
      return Val{Val::Kind::kArr, 0.0, {}, &j.array()};
    default:
      return Val{Val::Kind::kNull, 0.0, {}, nullptr};
  }
}

double ToNum(const Val& v) {
  if (v.kind == Val::Kind::kNum) {
    return v.num;
  }
  if (v.kind != Val::Kind::kStr || v.str.size() >= 256) {
    return 0.0;
  }
  char buf[256];
  std::memcpy(buf, v.str.data(), v.str.size());
  buf[v.str.size()] = '\0';
  char* end = nullptr;
  double d = std::strtod(buf, &end);
  return *end == '\0' ? d : 0.0;
}

bool ToBool(const Val& v) {
  switch (v.kind) {
    case Val::Kind::kNum:
      return v.num != 0.0;
    case Val::Kind::kStr:
      return !v.str.empty();
    case Val::Kind::kNull:
      return false;
    case Val::Kind::kArr:
      return true;
  }
  return false;
}

bool Equal(const Val& a, const Val& b) {
  if (a.kind == Val::Kind::kStr && b.kind == Val::Kind::kStr) {
    return a.str == b.str;
  }
  if (a.kind == Val::Kind::kNum && b.kind == Val::Kind::kNum) {
    return a.num == b.num;
  }
  if (a.kind == Val::Kind::kNull || b.kind == Val::Kind::kNull) {
    return a.kind == b.kind;
  }
  return ToNum(a) == ToNum(b);
}

// -1, 0, 1, or 2 when unordered (NaN).
int Compare(const Val& a, const Val& b) {
  if (a.kind == Val::Kind::kStr && b.kind == Val::Kind::kStr) {
    int c = a.str.compare(b.str);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  double x = ToNum(a);
  double y = ToNum(b);
  if (x < y) {
    return -1;
  }
  if (x > y) {
    return 1;
  }
  return x == y ? 0 : 2;
}

// A field value usable by expressions (Redis: numbers, strings, booleans, null, and
// arrays of numbers/strings).
bool Convertible(const json::Node& j) {
  if (j.is_object()) {
    return false;
  }
  if (j.is_array()) {
    for (const json::Node& e : j.array()) {
      if (!e.is_number() && !e.is_string()) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

namespace {

Val Eval(const std::vector<FilterExpression::Node>& nodes, uint32_t idx,
         const std::vector<json::Node>& fields) {
  using Node = FilterExpression::Node;
  const Node& n = nodes[idx];
  switch (n.kind) {
    case Node::Kind::kNumber:
      return Val::Num(n.number);
    case Node::Kind::kString:
      return Val{Val::Kind::kStr, 0.0, n.string, nullptr};
    case Node::Kind::kNull:
      return Val{Val::Kind::kNull, 0.0, {}, nullptr};
    case Node::Kind::kArray:
      return Val{Val::Kind::kArr, 0.0, {}, &n.array};
    case Node::Kind::kSelector:
      return FromJson(fields[n.slot]);
    case Node::Kind::kUnary: {
      Val v = Eval(nodes, n.lhs, fields);
      if (n.op == FilterOp::kNot) {
        return Val::Num(ToBool(v) ? 0.0 : 1.0);
      }
      return Val::Num(n.op == FilterOp::kNeg ? -ToNum(v) : ToNum(v));
    }
    case Node::Kind::kBinary:
      break;
  }
  if (n.op == FilterOp::kAnd) {
    return Val::Num(ToBool(Eval(nodes, n.lhs, fields)) && ToBool(Eval(nodes, n.rhs, fields)));
  }
  if (n.op == FilterOp::kOr) {
    return Val::Num(ToBool(Eval(nodes, n.lhs, fields)) || ToBool(Eval(nodes, n.rhs, fields)));
  }
  const Val a = Eval(nodes, n.lhs, fields);
  const Val b = Eval(nodes, n.rhs, fields);
  switch (n.op) {
    case FilterOp::kPow:
      return Val::Num(std::pow(ToNum(a), ToNum(b)));
    case FilterOp::kMul:
      return Val::Num(ToNum(a) * ToNum(b));
    case FilterOp::kDiv:
      return Val::Num(ToNum(a) / ToNum(b));
    case FilterOp::kMod:
      return Val::Num(std::fmod(ToNum(a), ToNum(b)));
    case FilterOp::kAdd:
      return Val::Num(ToNum(a) + ToNum(b));
    case FilterOp::kSub:
      return Val::Num(ToNum(a) - ToNum(b));
    case FilterOp::kEq:
      return Val::Num(Equal(a, b));
    case FilterOp::kNe:
      return Val::Num(!Equal(a, b));
    case FilterOp::kLt:
      return Val::Num(Compare(a, b) == -1);
    case FilterOp::kLe: {
      int c = Compare(a, b);
      return Val::Num(c == -1 || c == 0);
    }
    case FilterOp::kGt:
      return Val::Num(Compare(a, b) == 1);
    case FilterOp::kGe: {
      int c = Compare(a, b);
      return Val::Num(c == 1 || c == 0);
    }
    case FilterOp::kIn:
      if (b.kind == Val::Kind::kArr) {
        for (const json::Node& e : *b.arr) {
          if (Equal(a, FromJson(e))) {
            return Val::Num(1.0);
          }
        }
        return Val::Num(0.0);
      }
      if (a.kind == Val::Kind::kStr && b.kind == Val::Kind::kStr) {
        return Val::Num(b.str.find(a.str) != std::string_view::npos);
      }
      return Val::Num(0.0);
    default:
      return Val::Num(0.0);
  }
}

}  // namespace

bool FilterExpression::Matches(std::string_view attributes_json) const {
  // Resolve every field first: one missing or unusable field fails the element.
  thread_local std::vector<json::Node> fields;
  fields.resize(fields_.size());
  for (size_t i = 0; i < fields_.size(); ++i) {
    std::optional<json::Node> v = json::ParseTopLevelMember(attributes_json, fields_[i]);
    if (!v.has_value() || !Convertible(*v)) {
      return false;
    }
    fields[i] = std::move(*v);
  }
  return ToBool(Eval(nodes_, root_, fields));
}

}  // namespace hotkv::vector

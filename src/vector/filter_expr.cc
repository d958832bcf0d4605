#include "vector/filter_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace hotkv::vector {

enum class Op : uint8_t {
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
  Op op = Op::kNone;
  double number = 0.0;
  std::string string;
  std::vector<JsonValue> array;  // Literal elements (numbers, strings, booleans, null).
  uint32_t slot = 0;             // Selector: index into fields_.
  uint32_t lhs = 0;
  uint32_t rhs = 0;
};

FilterExpression::~FilterExpression() = default;

// ------------------------------------------------------------------------ parser

class FilterParser {
 public:
  FilterParser(std::string_view text, FilterExpression* out) : text_(text), out_(out) {}

  Status Parse() {
    uint32_t root = 0;
    if (!ParseOr(&root, 0)) {
      return Error();
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      Fail("unexpected input");
      return Error();
    }
    out_->root_ = root;
    return Status::Ok();
  }

 private:
  using Node = FilterExpression::Node;

  Status Error() const {
    return Status::InvalidArgument("syntax error in FILTER expression at offset " +
                                   std::to_string(error_pos_) + ": " + error_);
  }

  bool Fail(const char* what) {
    if (error_.empty()) {
      error_ = what;
      error_pos_ = pos_;
    }
    return false;
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  static bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsSelectorChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '-'; }

  // Matches `word` at the cursor; keywords must not run into more letters.
  bool Peek(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) {
      return false;
    }
    if (IsAlpha(word[0])) {
      size_t end = pos_ + word.size();
      if (end < text_.size() && (IsAlpha(text_[end]) || IsDigit(text_[end]) || text_[end] == '_')) {
        return false;
      }
    }
    return true;
  }

  bool Accept(std::string_view word) {
    if (!Peek(word)) {
      return false;
    }
    pos_ += word.size();
    return true;
  }

  // Adds a node whose subtree is `height` levels tall. Evaluation recurses once per
  // level, so the height is bounded (a long a+b+c+... chain is as deep as it is long).
  uint32_t Add(Node node, uint32_t height = 1) {
    if (height > FilterExpression::kMaxDepth) {
      Fail("expression nested too deeply");
    }
    out_->nodes_.push_back(std::move(node));
    heights_.push_back(height);
    return static_cast<uint32_t>(out_->nodes_.size() - 1);
  }

  uint32_t Binary(Op op, uint32_t lhs, uint32_t rhs) {
    Node n;
    n.kind = Node::Kind::kBinary;
    n.op = op;
    n.lhs = lhs;
    n.rhs = rhs;
    return Add(std::move(n), std::max(heights_[lhs], heights_[rhs]) + 1);
  }

  bool ParseOr(uint32_t* out, int depth) {
    if (depth > FilterExpression::kMaxNesting) {
      return Fail("expression nested too deeply");
    }
    if (!ParseAnd(out, depth)) {
      return false;
    }
    while (Accept("||") || Accept("or")) {
      uint32_t rhs = 0;
      if (!ParseAnd(&rhs, depth)) {
        return false;
      }
      *out = Binary(Op::kOr, *out, rhs);
    }
    return error_.empty();
  }

  bool ParseAnd(uint32_t* out, int depth) {
    if (!ParseCompare(out, depth)) {
      return false;
    }
    while (Accept("&&") || Accept("and")) {
      uint32_t rhs = 0;
      if (!ParseCompare(&rhs, depth)) {
        return false;
      }
      *out = Binary(Op::kAnd, *out, rhs);
    }
    return error_.empty();
  }

  bool ParseCompare(uint32_t* out, int depth) {
    if (!ParseAdditive(out, depth)) {
      return false;
    }
    for (;;) {
      Op op = Op::kNone;
      if (Accept("==")) {
        op = Op::kEq;
      } else if (Accept("!=")) {
        op = Op::kNe;
      } else if (Accept("<=")) {
        op = Op::kLe;
      } else if (Accept(">=")) {
        op = Op::kGe;
      } else if (Accept("<")) {
        op = Op::kLt;
      } else if (Accept(">")) {
        op = Op::kGt;
      } else if (Accept("in")) {
        op = Op::kIn;
      } else if (Peek("=")) {
        return Fail("'=' is not an operator (use '==')");
      } else {
        return true;
      }
      uint32_t rhs = 0;
      if (!ParseAdditive(&rhs, depth)) {
        return false;
      }
      *out = Binary(op, *out, rhs);
      if (!error_.empty()) {
        return false;
      }
    }
  }

  bool ParseAdditive(uint32_t* out, int depth) {
    if (!ParseMultiplicative(out, depth)) {
      return false;
    }
    for (;;) {
      Op op = Accept("+") ? Op::kAdd : (Accept("-") ? Op::kSub : Op::kNone);
      if (op == Op::kNone) {
        return true;
      }
      uint32_t rhs = 0;
      if (!ParseMultiplicative(&rhs, depth)) {
        return false;
      }
      *out = Binary(op, *out, rhs);
      if (!error_.empty()) {
        return false;
      }
    }
  }

  bool ParseMultiplicative(uint32_t* out, int depth) {
    if (!ParsePower(out, depth)) {
      return false;
    }
    for (;;) {
      Op op = Op::kNone;
      if (Peek("**")) {
        return true;  // Handled by ParsePower; cannot happen after it returned.
      }
      if (Accept("*")) {
        op = Op::kMul;
      } else if (Accept("/")) {
        op = Op::kDiv;
      } else if (Accept("%")) {
        op = Op::kMod;
      } else {
        return true;
      }
      uint32_t rhs = 0;
      if (!ParsePower(&rhs, depth)) {
        return false;
      }
      *out = Binary(op, *out, rhs);
      if (!error_.empty()) {
        return false;
      }
    }
  }

  bool ParsePower(uint32_t* out, int depth) {
    if (depth > FilterExpression::kMaxNesting) {
      return Fail("expression nested too deeply");
    }
    if (!ParseUnary(out, depth)) {
      return false;
    }
    if (Accept("**")) {
      uint32_t rhs = 0;
      if (!ParsePower(&rhs, depth + 1)) {  // Right-associative.
        return false;
      }
      *out = Binary(Op::kPow, *out, rhs);
    }
    return error_.empty();
  }

  bool ParseUnary(uint32_t* out, int depth) {
    if (depth > FilterExpression::kMaxNesting) {
      return Fail("expression nested too deeply");
    }
    Op op = Op::kNone;
    if (Peek("!=")) {
      op = Op::kNone;  // Not a unary operator; let the primary report the error.
    } else if (Accept("!") || Accept("not")) {
      op = Op::kNot;
    } else if (Accept("-")) {
      op = Op::kNeg;
    } else if (Accept("+")) {
      op = Op::kPlus;
    }
    if (op == Op::kNone) {
      return ParsePrimary(out, depth);
    }
    uint32_t operand = 0;
    if (!ParseUnary(&operand, depth + 1)) {
      return false;
    }
    Node n;
    n.kind = Node::Kind::kUnary;
    n.op = op;
    n.lhs = operand;
    *out = Add(std::move(n), heights_[operand] + 1);
    return error_.empty();
  }

  bool ParseNumber(double* value) {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) {
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        pos_ = save;
        return Fail("malformed number");
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && (IsAlpha(text_[pos_]) || text_[pos_] == '_')) {
      return Fail("malformed number");
    }
    std::string copy(text_.substr(start, pos_ - start));
    char* end = nullptr;
    *value = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) {
      pos_ = start;
      return Fail("malformed number");
    }
    return true;
  }

  bool ParseString(std::string* value) {
    const char quote = text_[pos_++];
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == quote) {
        return true;
      }
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          default:
            c = e;  // \\ \" \' and any other character stand for themselves.
        }
      }
      value->push_back(c);
    }
    return Fail("unterminated string");
  }

  // One array element: a (signed) number, string, true, false or null.
  bool ParseLiteral(JsonValue* value) {
    SkipSpace();
    if (pos_ >= text_.size()) {
      return Fail("unexpected end of expression");
    }
    const char c = text_[pos_];
    if (c == '"' || c == '\'') {
      value->type = JsonValue::Type::kString;
      return ParseString(&value->string);
    }
    if (Accept("true")) {
      value->type = JsonValue::Type::kNumber;
      value->number = 1.0;
      return true;
    }
    if (Accept("false")) {
      value->type = JsonValue::Type::kNumber;
      value->number = 0.0;
      return true;
    }
    if (Accept("null")) {
      value->type = JsonValue::Type::kNull;
      return true;
    }
    double sign = 1.0;
    if (c == '-' || c == '+') {
      sign = c == '-' ? -1.0 : 1.0;
      ++pos_;
      SkipSpace();
    }
    if (pos_ < text_.size() && (IsDigit(text_[pos_]) || text_[pos_] == '.')) {
      value->type = JsonValue::Type::kNumber;
      if (!ParseNumber(&value->number)) {
        return false;
      }
      value->number *= sign;
      return true;
    }
    return Fail("array elements must be numbers, strings, true, false or null");
  }

  bool ParsePrimary(uint32_t* out, int depth) {
    SkipSpace();
    if (pos_ >= text_.size()) {
      return Fail("unexpected end of expression");
    }
    const char c = text_[pos_];
    Node n;
    if (c == '(') {
      ++pos_;
      if (!ParseOr(out, depth + 1)) {
        return false;
      }
      if (!Accept(")")) {
        return Fail("expected ')'");
      }
      return true;
    }
    if (c == '[') {
      ++pos_;
      n.kind = Node::Kind::kArray;
      if (!Accept("]")) {
        for (;;) {
          JsonValue elem;
          if (!ParseLiteral(&elem)) {
            return false;
          }
          n.array.push_back(std::move(elem));
          if (Accept("]")) {
            break;
          }
          if (!Accept(",")) {
            return Fail("expected ',' or ']' in array");
          }
        }
      }
    } else if (c == '"' || c == '\'') {
      n.kind = Node::Kind::kString;
      if (!ParseString(&n.string)) {
        return false;
      }
    } else if (c == '.' && pos_ + 1 < text_.size() && IsSelectorChar(text_[pos_ + 1])) {
      ++pos_;
      size_t start = pos_;
      while (pos_ < text_.size() && IsSelectorChar(text_[pos_])) {
        ++pos_;
      }
      if (pos_ + 1 < text_.size() && text_[pos_] == '.' && IsSelectorChar(text_[pos_ + 1])) {
        return Fail("nested fields (.a.b) are not supported, only top-level fields");
      }
      n.kind = Node::Kind::kSelector;
      std::string field(text_.substr(start, pos_ - start));
      auto& fields = out_->fields_;
      size_t slot = 0;
      while (slot < fields.size() && fields[slot] != field) {
        ++slot;
      }
      if (slot == fields.size()) {
        fields.push_back(std::move(field));
      }
      n.slot = static_cast<uint32_t>(slot);
    } else if (IsDigit(c) || c == '.') {
      n.kind = Node::Kind::kNumber;
      if (!ParseNumber(&n.number)) {
        return false;
      }
    } else if (Accept("true")) {
      n.number = 1.0;
    } else if (Accept("false")) {
      n.number = 0.0;
    } else if (Accept("null")) {
      n.kind = Node::Kind::kNull;
    } else if (IsAlpha(c) || c == '_') {
      return Fail("unknown identifier (field selectors start with '.')");
    } else {
      return Fail("unexpected character");
    }
    *out = Add(std::move(n));
    return true;
  }

  std::string_view text_;
  FilterExpression* out_;
  size_t pos_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
  std::vector<uint32_t> heights_;  // Per node.
};

Result<std::unique_ptr<FilterExpression>> FilterExpression::Compile(std::string_view expr) {
  if (expr.size() > kMaxLength) {
    return Status::InvalidArgument("FILTER expression too long");
  }
  std::unique_ptr<FilterExpression> f(new FilterExpression());
  FilterParser parser(expr, f.get());
  Status st = parser.Parse();
  if (!st.ok()) {
    return st;
  }
  return f;
}

// --------------------------------------------------------------------- evaluation

namespace {

struct Val {
  enum class Kind : uint8_t { kNum, kStr, kNull, kArr };
  Kind kind = Kind::kNum;
  double num = 0.0;
  std::string_view str;
  const std::vector<JsonValue>* arr = nullptr;

  static Val Num(double v) { return Val{Kind::kNum, v, {}, nullptr}; }
};

Val FromJson(const JsonValue& j) {
  switch (j.type) {
    case JsonValue::Type::kNumber:
      return Val::Num(j.number);
    case JsonValue::Type::kBool:
      return Val::Num(j.boolean ? 1.0 : 0.0);
    case JsonValue::Type::kString:
      return Val{Val::Kind::kStr, 0.0, j.string, nullptr};
    case JsonValue::Type::kArray:
      return Val{Val::Kind::kArr, 0.0, {}, &j.array};
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
bool Convertible(const JsonValue& j) {
  if (j.type == JsonValue::Type::kObject) {
    return false;
  }
  if (j.type == JsonValue::Type::kArray) {
    for (const JsonValue& e : j.array) {
      if (e.type != JsonValue::Type::kNumber && e.type != JsonValue::Type::kString) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

namespace {

Val Eval(const std::vector<FilterExpression::Node>& nodes, uint32_t idx,
         const std::vector<JsonValue>& fields) {
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
      if (n.op == Op::kNot) {
        return Val::Num(ToBool(v) ? 0.0 : 1.0);
      }
      return Val::Num(n.op == Op::kNeg ? -ToNum(v) : ToNum(v));
    }
    case Node::Kind::kBinary:
      break;
  }
  if (n.op == Op::kAnd) {
    return Val::Num(ToBool(Eval(nodes, n.lhs, fields)) && ToBool(Eval(nodes, n.rhs, fields)));
  }
  if (n.op == Op::kOr) {
    return Val::Num(ToBool(Eval(nodes, n.lhs, fields)) || ToBool(Eval(nodes, n.rhs, fields)));
  }
  const Val a = Eval(nodes, n.lhs, fields);
  const Val b = Eval(nodes, n.rhs, fields);
  switch (n.op) {
    case Op::kPow:
      return Val::Num(std::pow(ToNum(a), ToNum(b)));
    case Op::kMul:
      return Val::Num(ToNum(a) * ToNum(b));
    case Op::kDiv:
      return Val::Num(ToNum(a) / ToNum(b));
    case Op::kMod:
      return Val::Num(std::fmod(ToNum(a), ToNum(b)));
    case Op::kAdd:
      return Val::Num(ToNum(a) + ToNum(b));
    case Op::kSub:
      return Val::Num(ToNum(a) - ToNum(b));
    case Op::kEq:
      return Val::Num(Equal(a, b));
    case Op::kNe:
      return Val::Num(!Equal(a, b));
    case Op::kLt:
      return Val::Num(Compare(a, b) == -1);
    case Op::kLe: {
      int c = Compare(a, b);
      return Val::Num(c == -1 || c == 0);
    }
    case Op::kGt:
      return Val::Num(Compare(a, b) == 1);
    case Op::kGe: {
      int c = Compare(a, b);
      return Val::Num(c == 1 || c == 0);
    }
    case Op::kIn:
      if (b.kind == Val::Kind::kArr) {
        for (const JsonValue& e : *b.arr) {
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
  thread_local std::vector<JsonValue> fields;
  fields.resize(fields_.size());
  for (size_t i = 0; i < fields_.size(); ++i) {
    std::optional<JsonValue> v = ExtractTopLevelField(attributes_json, fields_[i]);
    if (!v.has_value() || !Convertible(*v)) {
      return false;
    }
    fields[i] = std::move(*v);
  }
  return ToBool(Eval(nodes_, root_, fields));
}

}  // namespace hotkv::vector

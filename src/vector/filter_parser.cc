// FilterExpression::Compile: a recursive-descent parser for Redis FILTER syntax
// (precedence and semantics in filter_expr.h).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "vector/filter_expr.h"
#include "vector/filter_node.h"

namespace hotkv::vector {

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

  uint32_t Binary(FilterOp op, uint32_t lhs, uint32_t rhs) {
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
      *out = Binary(FilterOp::kOr, *out, rhs);
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
      *out = Binary(FilterOp::kAnd, *out, rhs);
    }
    return error_.empty();
  }

  bool ParseCompare(uint32_t* out, int depth) {
    if (!ParseAdditive(out, depth)) {
      return false;
    }
    for (;;) {
      FilterOp op = FilterOp::kNone;
      if (Accept("==")) {
        op = FilterOp::kEq;
      } else if (Accept("!=")) {
        op = FilterOp::kNe;
      } else if (Accept("<=")) {
        op = FilterOp::kLe;
      } else if (Accept(">=")) {
        op = FilterOp::kGe;
      } else if (Accept("<")) {
        op = FilterOp::kLt;
      } else if (Accept(">")) {
        op = FilterOp::kGt;
      } else if (Accept("in")) {
        op = FilterOp::kIn;
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
      FilterOp op = Accept("+") ? FilterOp::kAdd : (Accept("-") ? FilterOp::kSub : FilterOp::kNone);
      if (op == FilterOp::kNone) {
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
      FilterOp op = FilterOp::kNone;
      if (Peek("**")) {
        return true;  // Handled by ParsePower; cannot happen after it returned.
      }
      if (Accept("*")) {
        op = FilterOp::kMul;
      } else if (Accept("/")) {
        op = FilterOp::kDiv;
      } else if (Accept("%")) {
        op = FilterOp::kMod;
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
      *out = Binary(FilterOp::kPow, *out, rhs);
    }
    return error_.empty();
  }

  bool ParseUnary(uint32_t* out, int depth) {
    if (depth > FilterExpression::kMaxNesting) {
      return Fail("expression nested too deeply");
    }
    FilterOp op = FilterOp::kNone;
    if (Peek("!=")) {
      op = FilterOp::kNone;  // Not a unary operator; let the primary report the error.
    } else if (Accept("!") || Accept("not")) {
      op = FilterOp::kNot;
    } else if (Accept("-")) {
      op = FilterOp::kNeg;
    } else if (Accept("+")) {
      op = FilterOp::kPlus;
    }
    if (op == FilterOp::kNone) {
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
  bool ParseLiteral(json::Node* value) {
    SkipSpace();
    if (pos_ >= text_.size()) {
      return Fail("unexpected end of expression");
    }
    const char c = text_[pos_];
    if (c == '"' || c == '\'') {
      std::string s;
      if (!ParseString(&s)) {
        return false;
      }
      *value = json::Node::String(s);
      return true;
    }
    if (Accept("true")) {
      *value = json::Node::Double(1.0);
      return true;
    }
    if (Accept("false")) {
      *value = json::Node::Double(0.0);
      return true;
    }
    if (Accept("null")) {
      *value = json::Node::Null();
      return true;
    }
    double sign = 1.0;
    if (c == '-' || c == '+') {
      sign = c == '-' ? -1.0 : 1.0;
      ++pos_;
      SkipSpace();
    }
    if (pos_ < text_.size() && (IsDigit(text_[pos_]) || text_[pos_] == '.')) {
      double number = 0.0;
      if (!ParseNumber(&number)) {
        return false;
      }
      *value = json::Node::Double(number * sign);
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
          json::Node elem;
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

}  // namespace hotkv::vector

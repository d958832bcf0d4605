// The expression language of APPLY / FILTER: values, lexer, parser, evaluator.
#include "search/aggregate_expr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/string_util.h"
#include "search/aggregate_functions.h"

namespace hotkv::search {

// ---- Values ----

bool Value::ToNumber(double* out) const {
  if (type == Type::kNumber) {
    *out = num;
    return true;
  }
  if (type == Type::kString) {
    // As RediSearch (strtod over the whole string): "" is 0, leading space and hex pass.
    if (str.empty()) {
      *out = 0;
      return true;
    }
    char* end = nullptr;
    double d = std::strtod(str.c_str(), &end);
    if (end == str.c_str() + str.size()) {
      *out = d;
      return true;
    }
  }
  return false;
}

std::string Value::ToString() const {
  switch (type) {
    case Type::kNumber:
      return FormatNumber(num);
    case Type::kString:
      return str;
    default:
      return std::string();
  }
}

bool Value::Truthy() const {
  switch (type) {
    case Type::kNumber:
      return num != 0;
    case Type::kString:
      return !str.empty();
    case Type::kArray:
      return arr && !arr->empty();
    default:
      return false;
  }
}

std::string FormatNumber(double d) {
  if (std::isnan(d)) {
    return std::signbit(d) ? "-nan" : "nan";
  }
  if (std::isinf(d)) {
    return d < 0 ? "-inf" : "inf";
  }
  char buf[64];
  if (d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
    snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(d));
  } else {
    snprintf(buf, sizeof(buf), "%.12g", d);
  }
  return buf;
}

int CompareValues(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.num < b.num ? -1 : (a.num > b.num ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    int c = a.str.compare(b.str);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_null() || b.is_null()) {  // null is below everything
    return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  }
  double x, y;
  if (a.ToNumber(&x) && b.ToNumber(&y)) {
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  int c = a.ToString().compare(b.ToString());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// ---- Lexer ----

namespace {

enum class Tok : uint8_t {
  kEnd, kNumber, kString, kProperty, kSymbol, kLParen, kRParen, kComma, kPlus, kMinus,
  kTimes, kDivide, kMod, kPow, kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kNot, kBad
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t pos = 0;
  std::string_view text;
  double num = 0;
  std::string str;  // kString: unescaped
};

bool IsPropertyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == ':' || static_cast<unsigned char>(c) >= 0x80;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token Next() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    }
    Token t;
    t.pos = i_;
    if (i_ >= s_.size()) {
      t.kind = Tok::kEnd;
      t.text = s_.substr(s_.size());
      return t;
    }
    char c = s_[i_];
    auto single = [&](Tok k, size_t len) {
      t.kind = k;
      t.text = s_.substr(i_, len);
      i_ += len;
      return t;
    };
    auto next_is = [&](char n) { return i_ + 1 < s_.size() && s_[i_ + 1] == n; };
    auto digit_at = [&](size_t j) {
      return j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]));
    };
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && digit_at(i_ + 1)) ||
        (c == '-' && (digit_at(i_ + 1) || (i_ + 2 < s_.size() && s_[i_ + 1] == '.' &&
                                           digit_at(i_ + 2))))) {
      return LexNumber(t);
    }
    switch (c) {
      case '(':
        return single(Tok::kLParen, 1);
      case ')':
        return single(Tok::kRParen, 1);
      case ',':
        return single(Tok::kComma, 1);
      case '+':
        return single(Tok::kPlus, 1);
      case '-':
        return single(Tok::kMinus, 1);
      case '*':
        return single(Tok::kTimes, 1);
      case '/':
        return single(Tok::kDivide, 1);
      case '%':
        return single(Tok::kMod, 1);
      case '^':
        return single(Tok::kPow, 1);
      case '=':
        return next_is('=') ? single(Tok::kEq, 2) : single(Tok::kBad, 1);
      case '!':
        return next_is('=') ? single(Tok::kNe, 2) : single(Tok::kNot, 1);
      case '<':
        return next_is('=') ? single(Tok::kLe, 2) : single(Tok::kLt, 1);
      case '>':
        return next_is('=') ? single(Tok::kGe, 2) : single(Tok::kGt, 1);
      case '&':
        return next_is('&') ? single(Tok::kAnd, 2) : single(Tok::kBad, 1);
      case '|':
        return next_is('|') ? single(Tok::kOr, 2) : single(Tok::kBad, 1);
      case '"':
      case '\'':
        return LexString(t, c);
      case '@': {
        size_t j = i_ + 1;
        while (j < s_.size() && IsPropertyChar(s_[j])) {
          ++j;
        }
        if (j == i_ + 1) {
          t.kind = Tok::kBad;
          t.text = s_.substr(i_, 0);
          i_ = s_.size();
          return t;
        }
        t.kind = Tok::kProperty;
        t.text = s_.substr(i_ + 1, j - i_ - 1);
        i_ = j;
        return t;
      }
      default:
        break;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i_;
      while (j < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) {
        ++j;
      }
      t.kind = Tok::kSymbol;
      t.text = s_.substr(i_, j - i_);
      i_ = j;
      return t;
    }
    t.kind = Tok::kBad;
    t.text = s_.substr(i_, 0);
    i_ = s_.size();
    return t;
  }

 private:
  Token LexNumber(Token& t) {
    size_t j = i_;
    if (s_[j] == '-') {
      ++j;
    }
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
      ++j;
    }
    if (j < s_.size() && s_[j] == '.') {
      ++j;
      while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
        ++j;
      }
    }
    if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
      size_t k = j + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) {
        ++k;
      }
      if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
        while (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
          ++k;
        }
        j = k;
      }
    }
    t.kind = Tok::kNumber;
    t.text = s_.substr(i_, j - i_);
    t.num = std::strtod(std::string(t.text).c_str(), nullptr);
    i_ = j;
    return t;
  }

  Token LexString(Token& t, char quote) {
    size_t j = i_ + 1;
    std::string out;
    while (j < s_.size() && s_[j] != quote) {
      if (s_[j] == '\\' && j + 1 < s_.size() &&
          (std::ispunct(static_cast<unsigned char>(s_[j + 1])) ||
           std::isspace(static_cast<unsigned char>(s_[j + 1])))) {
        out.push_back(s_[j + 1]);
        j += 2;
        continue;
      }
      out.push_back(s_[j]);
      ++j;
    }
    if (j >= s_.size()) {  // unterminated
      t.kind = Tok::kBad;
      t.text = s_.substr(i_, 0);
      i_ = s_.size();
      return t;
    }
    t.kind = Tok::kString;
    t.text = s_.substr(i_, j + 1 - i_);
    t.str = std::move(out);
    i_ = j + 1;
    return t;
  }

  std::string_view s_;
  size_t i_ = 0;
};

constexpr int kMaxDepth = 1000;

}  // namespace

// ---- Parser (precedence climbing over RediSearch 2.10's levels) ----

class ExprParser {
 public:
  explicit ExprParser(std::string_view text) : lexer_(text) { Advance(); }

  Result<std::unique_ptr<Expr>> Parse() {
    auto e = ParseLogic();
    if (!error_.empty()) {
      return Status::InvalidArgument(error_);
    }
    if (tok_.kind != Tok::kEnd) {
      SyntaxError();
      return Status::InvalidArgument(error_);
    }
    return e;
  }

 private:
  void Advance() {
    prev_ = tok_;
    tok_ = lexer_.Next();
  }
  void SyntaxError() {
    if (!error_.empty()) {
      return;
    }
    // At the end of the input RediSearch names the last token it read.
    const Token& t = tok_.kind == Tok::kEnd && prev_.text.data() != nullptr ? prev_ : tok_;
    error_ = "Syntax error at offset " + std::to_string(t.pos) + " near '" +
             std::string(t.text) + "'";
  }
  static std::unique_ptr<Expr> Binary(BinaryOp op, std::unique_ptr<Expr> l,
                                      std::unique_ptr<Expr> r) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kBinary;
    e->op = op;
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }

  std::unique_ptr<Expr> ParseLogic() {
    auto left = ParseNot();
    while (left && (tok_.kind == Tok::kAnd || tok_.kind == Tok::kOr)) {
      BinaryOp op = tok_.kind == Tok::kAnd ? BinaryOp::kAnd : BinaryOp::kOr;
      Advance();
      auto right = ParseNot();
      if (!right) {
        return nullptr;
      }
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Expr> ParseNot() {
    if (tok_.kind == Tok::kNot) {
      if (++depth_ > kMaxDepth) {
        error_ = "Expression nested too deeply";
        return nullptr;
      }
      Advance();
      auto child = ParseNot();
      --depth_;
      if (!child) {
        return nullptr;
      }
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kNot;
      e->args.push_back(std::move(child));
      return e;
    }
    return ParseCompare();
  }

  std::unique_ptr<Expr> ParseCompare() {
    auto left = ParseAdd();
    while (left) {
      BinaryOp op;
      switch (tok_.kind) {
        case Tok::kEq: op = BinaryOp::kEq; break;
        case Tok::kNe: op = BinaryOp::kNe; break;
        case Tok::kLt: op = BinaryOp::kLt; break;
        case Tok::kLe: op = BinaryOp::kLe; break;
        case Tok::kGt: op = BinaryOp::kGt; break;
        case Tok::kGe: op = BinaryOp::kGe; break;
        default: return left;
      }
      Advance();
      auto right = ParseAdd();
      if (!right) {
        return nullptr;
      }
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Expr> ParseAdd() {
    auto left = ParseMul();
    while (left && (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus)) {
      BinaryOp op = tok_.kind == Tok::kPlus ? BinaryOp::kAdd : BinaryOp::kSub;
      Advance();
      auto right = ParseMul();
      if (!right) {
        return nullptr;
      }
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Expr> ParseMul() {
    auto left = ParsePrimary();
    while (left) {
      BinaryOp op;
      switch (tok_.kind) {
        case Tok::kTimes: op = BinaryOp::kMul; break;
        case Tok::kDivide: op = BinaryOp::kDiv; break;
        case Tok::kMod: op = BinaryOp::kMod; break;
        case Tok::kPow: op = BinaryOp::kPow; break;
        default: return left;
      }
      Advance();
      auto right = ParsePrimary();
      if (!right) {
        return nullptr;
      }
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Expr> ParsePrimary() {
    if (!error_.empty()) {
      return nullptr;
    }
    auto e = std::make_unique<Expr>();
    switch (tok_.kind) {
      case Tok::kNumber:
        e->literal = Value::Number(tok_.num);
        Advance();
        return e;
      case Tok::kString:
        e->literal = Value::String(tok_.str);
        Advance();
        return e;
      case Tok::kProperty:
        e->kind = Expr::Kind::kProperty;
        e->name = std::string(tok_.text);
        Advance();
        return e;
      case Tok::kNot:
        return ParseNot();
      case Tok::kMinus: {  // -@x, -(...), -f(): 0 - operand (RediSearch 2.10 lacks it)
        if (++depth_ > kMaxDepth) {
          error_ = "Expression nested too deeply";
          return nullptr;
        }
        Advance();
        auto operand = ParsePrimary();
        --depth_;
        if (!operand) {
          return nullptr;
        }
        auto zero = std::make_unique<Expr>();
        zero->literal = Value::Number(0);
        return Binary(BinaryOp::kSub, std::move(zero), std::move(operand));
      }
      case Tok::kLParen: {
        if (++depth_ > kMaxDepth) {
          error_ = "Expression nested too deeply";
          return nullptr;
        }
        Advance();
        auto inner = ParseLogic();
        --depth_;
        if (!inner) {
          return nullptr;
        }
        if (tok_.kind != Tok::kRParen) {
          SyntaxError();
          return nullptr;
        }
        Advance();
        return inner;
      }
      case Tok::kSymbol: {
        Token sym = tok_;
        Advance();
        if (tok_.kind != Tok::kLParen) {
          if (sym.text == "NULL") {
            return e;  // the null literal
          }
          error_ = "Unknown symbol '" + std::string(sym.text) + "'";
          return nullptr;
        }
        if (++depth_ > kMaxDepth) {
          error_ = "Expression nested too deeply";
          return nullptr;
        }
        Advance();
        e->kind = Expr::Kind::kFunction;
        e->name = std::string(sym.text);
        if (tok_.kind != Tok::kRParen) {
          while (true) {
            auto arg = ParseLogic();
            if (!arg) {
              return nullptr;
            }
            e->args.push_back(std::move(arg));
            if (tok_.kind == Tok::kComma) {
              Advance();
              continue;
            }
            break;
          }
        }
        --depth_;
        if (tok_.kind != Tok::kRParen) {
          SyntaxError();
          return nullptr;
        }
        Advance();
        e->function = FindFunction(e->name);
        if (e->function == nullptr) {
          error_ = "Unknown function name '" + e->name + "'";
          return nullptr;
        }
        int n = static_cast<int>(e->args.size());
        if (n < e->function->min_args ||
            (e->function->max_args >= 0 && n > e->function->max_args)) {
          error_ = "Invalid arguments for function '" + e->name + "'";
          return nullptr;
        }
        return e;
      }
      default:
        SyntaxError();
        return nullptr;
    }
  }

  Lexer lexer_;
  Token tok_;
  Token prev_;
  std::string error_;
  int depth_ = 0;
};

Result<std::unique_ptr<Expr>> ParseExpr(std::string_view text) {
  ExprParser parser(text);
  return parser.Parse();
}

// ---- Evaluation ----

namespace {
const std::string kMissingProperty =
    "Could not find the value for a parameter name, consider using EXISTS if applicable for ";
}  // namespace

void Expr::CollectProperties(std::vector<std::string>* out) const {
  if (kind == Kind::kProperty) {
    for (const auto& n : *out) {
      if (n == name) {
        return;
      }
    }
    out->push_back(name);
    return;
  }
  for (const auto& a : args) {
    a->CollectProperties(out);
  }
}

void Expr::ResolveProperties(const std::function<int(const std::string&)>& slot_of) {
  if (kind == Kind::kProperty) {
    slot = slot_of(name);
  }
  for (auto& a : args) {
    a->ResolveProperties(slot_of);
  }
}

namespace {

// A comparison operand pair: numbers when either side is a number (for < <= > >= the
// string side must then convert; == and != just differ), else strings; null is below
// everything and equals null.
Result<int> CompareForPredicate(const Value& a, const Value& b, bool ordering) {
  if ((a.is_number() && b.is_string()) || (a.is_string() && b.is_number())) {
    const Value& s = a.is_string() ? a : b;
    double d;
    if (!s.ToNumber(&d)) {
      if (ordering) {
        return Status::InvalidArgument("Error converting string '" + s.str + "' to number");
      }
      return 1;
    }
  }
  return CompareValues(a, b);
}

}  // namespace

Result<Value> Expr::Eval(const RowValues& row) const {
  switch (kind) {
    case Kind::kLiteral:
      return literal;
    case Kind::kProperty:
      if (slot >= 0 && static_cast<size_t>(slot) < row.size() && row[slot].has_value()) {
        return *row[slot];
      }
      return Status::InvalidArgument(kMissingProperty + name);
    case Kind::kNot: {
      auto v = args[0]->Eval(row);
      if (!v.ok()) {
        return v;
      }
      return Value::Number(v->Truthy() ? 0 : 1);
    }
    case Kind::kFunction: {
      if (function->call == nullptr) {  // exists(): a missing property is 0, not an error
        auto v = args[0]->Eval(row);
        if (!v.ok() && v.status().message().rfind(kMissingProperty, 0) != 0) {
          return v;
        }
        return Value::Number(v.ok() ? 1 : 0);
      }
      std::vector<Value> values;
      values.reserve(args.size());
      for (const auto& a : args) {
        auto v = a->Eval(row);
        if (!v.ok()) {
          return v;
        }
        values.push_back(std::move(*v));
      }
      return function->call(values);
    }
    case Kind::kBinary:
      break;
  }
  auto left = args[0]->Eval(row);
  if (!left.ok()) {
    return left;
  }
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    bool l = left->Truthy();
    if (op == BinaryOp::kAnd && !l) {
      return Value::Number(0);
    }
    if (op == BinaryOp::kOr && l) {
      return Value::Number(1);
    }
    auto right = args[1]->Eval(row);
    if (!right.ok()) {
      return right;
    }
    return Value::Number(right->Truthy() ? 1 : 0);
  }
  auto right = args[1]->Eval(row);
  if (!right.ok()) {
    return right;
  }
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: {
      auto c = CompareForPredicate(*left, *right,
                                   op != BinaryOp::kEq && op != BinaryOp::kNe);
      if (!c.ok()) {
        return c.status();
      }
      bool r = false;
      switch (op) {
        case BinaryOp::kEq: r = *c == 0; break;
        case BinaryOp::kNe: r = *c != 0; break;
        case BinaryOp::kLt: r = *c < 0; break;
        case BinaryOp::kLe: r = *c <= 0; break;
        case BinaryOp::kGt: r = *c > 0; break;
        default: r = *c >= 0; break;
      }
      return Value::Number(r ? 1 : 0);
    }
    default:
      break;
  }
  double a, b;
  if (!left->ToNumber(&a) || !right->ToNumber(&b)) {
    return Status::InvalidArgument("Could not convert value to a number");
  }
  switch (op) {
    case BinaryOp::kAdd:
      return Value::Number(a + b);
    case BinaryOp::kSub:
      return Value::Number(a - b);
    case BinaryOp::kMul:
      return Value::Number(a * b);
    case BinaryOp::kDiv:
      return Value::Number(b == 0 ? NAN : a / b);
    case BinaryOp::kMod: {
      constexpr double kLimit = 9223372036854775807.0;
      if (!(std::fabs(a) < kLimit) || !(std::fabs(b) < kLimit)) {
        return Value::Number(NAN);
      }
      auto x = static_cast<long long>(a), y = static_cast<long long>(b);
      if (y == 0) {
        return Value::Number(NAN);
      }
      if (y == -1) {
        return Value::Number(0);
      }
      return Value::Number(static_cast<double>(x % y));
    }
    default:
      return Value::Number(std::pow(a, b));
  }
}

}  // namespace hotkv::search

// The JSONPath compiler: text -> Path (selectors, filter expression trees).
#include <charconv>
#include <cstdlib>

#include "json/json_filter.h"
#include "json/json_path.h"

namespace hotkv::json {

class PathParser {
 public:
  explicit PathParser(std::string_view s) : s_(s) {}

  Result<Path> Run() {
    Path p;
    p.text_ = std::string(s_);
    if (!s_.empty() && s_[0] == '$') {
      pos_ = 1;
      if (!Selectors(&p.selectors_, false)) {
        return Status::InvalidArgument(error_);
      }
    } else {
      p.legacy_ = true;
      if (s_ == "." || s_.empty()) {
        if (s_.empty()) {
          return Status::InvalidArgument(Error(0, "expected a path"));
        }
        return p;
      }
      if (s_[0] != '.' && s_[0] != '[') {
        // "a.b" reads as ".a.b".
        Selector sel;
        if (!Name(&sel)) {
          return Status::InvalidArgument(error_);
        }
        p.selectors_.push_back(std::move(sel));
      }
      if (!Selectors(&p.selectors_, false)) {
        return Status::InvalidArgument(error_);
      }
    }
    if (pos_ != s_.size()) {
      return Status::InvalidArgument(Error(pos_, "unexpected character"));
    }
    return p;
  }

 private:
  std::string Error(size_t at, std::string_view what) {
    return "Error occurred on position " + std::to_string(at + 1) + ", \"" +
           std::string(s_.substr(0, at)) + " <<<<----\", " + std::string(what);
  }
  bool Fail(std::string_view what) {
    if (error_.empty()) {
      error_ = Error(pos_, what);
    }
    return false;
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  void Space() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) {
      pos_++;
    }
  }
  static bool NameChar(char c) {
    switch (c) {
      case '.':
      case '[':
      case ']':
      case '(':
      case ')':
      case '\'':
      case '"':
      case ',':
      case '*':
      case '=':
      case '<':
      case '>':
      case '!':
      case '&':
      case '|':
      case ' ':
      case '\t':
      case '\0':
      case '?':
      case '@':
      case '$':
        return false;
      default:
        return true;
    }
  }

  // A dotted member name at pos_.
  bool Name(Selector* sel) {
    size_t start = pos_;
    while (!AtEnd() && NameChar(Peek())) {
      pos_++;
    }
    if (pos_ == start) {
      return Fail("expected one of the following: <name>, '*'");
    }
    sel->type = Selector::Type::kKey;
    sel->keys.emplace_back(s_.substr(start, pos_ - start));
    return true;
  }

  // Selectors until the end of the text or, inside a filter (`in_filter`), until a
  // character that cannot continue a path.
  bool Selectors(std::vector<Selector>* out, bool in_filter) {
    while (!AtEnd()) {
      Selector sel;
      if (Peek() == '.') {
        pos_++;
        if (Peek() == '.') {
          pos_++;
          sel.descend = true;
          if (Peek() == '[') {
            if (!Bracket(&sel)) {
              return false;
            }
            out->push_back(std::move(sel));
            continue;
          }
        }
        if (Peek() == '*') {
          pos_++;
          sel.type = Selector::Type::kWildcard;
        } else if (!Name(&sel)) {
          return false;
        }
      } else if (Peek() == '[') {
        if (!Bracket(&sel)) {
          return false;
        }
      } else if (in_filter) {
        return true;
      } else {
        return Fail("expected one of the following: '.', '..', '['");
      }
      out->push_back(std::move(sel));
    }
    return true;
  }

  bool Integer(int64_t* v) {
    size_t start = pos_;
    if (Peek() == '-' || Peek() == '+') {
      pos_++;
    }
    while (Peek() >= '0' && Peek() <= '9') {
      pos_++;
    }
    std::string_view t = s_.substr(start, pos_ - start);
    if (!t.empty() && t[0] == '+') {
      t.remove_prefix(1);
    }
    auto r = std::from_chars(t.data(), t.data() + t.size(), *v);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
      pos_ = start;
      return Fail("expected an integer");
    }
    return true;
  }

  // A quoted string ('...' or "...") at pos_, unescaped.
  bool Quoted(std::string* out) {
    char q = Peek();
    pos_++;
    while (!AtEnd() && Peek() != q) {
      if (Peek() == '\\' && pos_ + 1 < s_.size()) {
        pos_++;
        char e = Peek();
        switch (e) {
          case 'n':
            out->push_back('\n');
            break;
          case 't':
            out->push_back('\t');
            break;
          case 'r':
            out->push_back('\r');
            break;
          default:
            out->push_back(e);
            break;
        }
        pos_++;
        continue;
      }
      out->push_back(Peek());
      pos_++;
    }
    if (AtEnd()) {
      return Fail("unterminated string");
    }
    pos_++;
    return true;
  }

  bool Expect(char c) {
    Space();
    if (Peek() != c) {
      return Fail(std::string("expected '") + c + "'");
    }
    pos_++;
    return true;
  }

  bool Bracket(Selector* sel) {
    pos_++;  // '['
    Space();
    char c = Peek();
    if (c == '*') {
      pos_++;
      sel->type = Selector::Type::kWildcard;
      return Expect(']');
    }
    if (c == '?') {
      pos_++;
      if (!Expect('(')) {
        return false;
      }
      auto e = Or();
      if (e == nullptr || !Expect(')') || !Expect(']')) {
        return Fail("bad filter");
      }
      sel->type = Selector::Type::kFilter;
      sel->filter = std::shared_ptr<const FilterExpr>(std::move(e));
      return true;
    }
    if (c == '\'' || c == '"') {
      while (true) {
        Space();
        if (Peek() != '\'' && Peek() != '"') {
          return Fail("expected a quoted name");
        }
        std::string key;
        if (!Quoted(&key)) {
          return false;
        }
        sel->keys.push_back(std::move(key));
        Space();
        if (Peek() == ',') {
          pos_++;
          continue;
        }
        break;
      }
      sel->type = sel->keys.size() == 1 ? Selector::Type::kKey : Selector::Type::kKeys;
      return Expect(']');
    }
    // Indexes or a slice.
    int64_t first = 0;
    bool has_first = false;
    if (c != ':') {
      if (!Integer(&first)) {
        return false;
      }
      has_first = true;
    }
    Space();
    if (Peek() == ':') {
      pos_++;
      sel->type = Selector::Type::kSlice;
      sel->has_start = has_first;
      sel->start = first;
      Space();
      if (Peek() != ':' && Peek() != ']') {
        if (!Integer(&sel->end)) {
          return false;
        }
        sel->has_end = true;
      }
      Space();
      if (Peek() == ':') {
        pos_++;
        Space();
        if (Peek() != ']' && !Integer(&sel->step)) {
          return false;
        }
        if (sel->step == 0) {
          return Fail("slice step cannot be zero");
        }
      }
      return Expect(']');
    }
    sel->indexes.push_back(first);
    while (true) {
      Space();
      if (Peek() != ',') {
        break;
      }
      pos_++;
      Space();
      int64_t v;
      if (!Integer(&v)) {
        return false;
      }
      sel->indexes.push_back(v);
    }
    sel->type = sel->indexes.size() == 1 ? Selector::Type::kIndex : Selector::Type::kIndexes;
    return Expect(']');
  }

  // ---- Filter expressions ----

  std::unique_ptr<FilterExpr> Or() {
    auto left = And();
    while (left != nullptr) {
      Space();
      if (Peek() != '|' || Peek(1) != '|') {
        break;
      }
      pos_ += 2;
      auto right = And();
      if (right == nullptr) {
        return nullptr;
      }
      auto e = std::make_unique<FilterExpr>();
      e->op = FilterExpr::Op::kOr;
      e->left = std::move(left);
      e->right = std::move(right);
      left = std::move(e);
    }
    return left;
  }

  std::unique_ptr<FilterExpr> And() {
    auto left = Unary();
    while (left != nullptr) {
      Space();
      if (Peek() != '&' || Peek(1) != '&') {
        break;
      }
      pos_ += 2;
      auto right = Unary();
      if (right == nullptr) {
        return nullptr;
      }
      auto e = std::make_unique<FilterExpr>();
      e->op = FilterExpr::Op::kAnd;
      e->left = std::move(left);
      e->right = std::move(right);
      left = std::move(e);
    }
    return left;
  }

  std::unique_ptr<FilterExpr> Unary() {
    Space();
    if (Peek() == '!' && Peek(1) != '=') {
      pos_++;
      auto inner = Unary();
      if (inner == nullptr) {
        return nullptr;
      }
      auto e = std::make_unique<FilterExpr>();
      e->op = FilterExpr::Op::kNot;
      e->left = std::move(inner);
      return e;
    }
    if (Peek() == '(') {
      pos_++;
      auto inner = Or();
      if (inner == nullptr || !Expect(')')) {
        return nullptr;
      }
      return inner;
    }
    auto e = std::make_unique<FilterExpr>();
    if (!Operand(&e->a)) {
      return nullptr;
    }
    Space();
    static constexpr std::pair<std::string_view, FilterExpr::Cmp> kOps[] = {
        {"==", FilterExpr::Cmp::kEq}, {"!=", FilterExpr::Cmp::kNe},    {"<=", FilterExpr::Cmp::kLe},
        {">=", FilterExpr::Cmp::kGe}, {"=~", FilterExpr::Cmp::kRegex}, {"<", FilterExpr::Cmp::kLt},
        {">", FilterExpr::Cmp::kGt}};
    for (const auto& [text, cmp] : kOps) {
      if (s_.substr(pos_, text.size()) == text) {
        pos_ += text.size();
        e->op = FilterExpr::Op::kCompare;
        e->cmp = cmp;
        Space();
        if (!Operand(&e->b)) {
          return nullptr;
        }
        if (cmp == FilterExpr::Cmp::kRegex && e->b.kind == FilterOperand::Kind::kLiteral) {
          if (e->b.literal->is_string()) {
            e->regex = CompileRegex(e->b.literal->str());
          }
          if (e->regex == nullptr) {
            Fail("a regular expression must be a valid pattern of at most 1024 bytes");
            return nullptr;
          }
        }
        return e;
      }
    }
    if (e->a.kind == FilterOperand::Kind::kLiteral) {
      Fail("expected a comparison");
      return nullptr;
    }
    e->op = FilterExpr::Op::kExists;
    return e;
  }

  bool Operand(FilterOperand* op) {
    Space();
    char c = Peek();
    if (c == '@' || c == '$') {
      pos_++;
      op->kind = c == '@' ? FilterOperand::Kind::kRelative : FilterOperand::Kind::kAbsolute;
      return Selectors(&op->selectors, true);
    }
    op->kind = FilterOperand::Kind::kLiteral;
    if (c == '\'' || c == '"') {
      std::string s;
      if (!Quoted(&s)) {
        return false;
      }
      op->literal = std::make_shared<Node>(Node::String(s));
      return true;
    }
    for (std::string_view word : {"true", "false", "null"}) {
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        op->literal =
            std::make_shared<Node>(word == "null" ? Node::Null() : Node::Bool(word == "true"));
        return true;
      }
    }
    size_t start = pos_;
    while (!AtEnd() && (std::isdigit(static_cast<unsigned char>(Peek())) || Peek() == '-' ||
                        Peek() == '+' || Peek() == '.' || Peek() == 'e' || Peek() == 'E')) {
      pos_++;
    }
    if (pos_ == start) {
      return Fail("expected one of the following: '@', '$', a literal");
    }
    Result<Node> n = Parse(s_.substr(start, pos_ - start));
    if (!n.ok() || !n->is_number()) {
      pos_ = start;
      return Fail("invalid number");
    }
    op->literal = std::make_shared<Node>(std::move(n).value());
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

Result<Path> Path::Compile(std::string_view text) { return PathParser(text).Run(); }

Path Path::LegacyRoot() {
  Path p;
  p.text_ = ".";
  p.legacy_ = true;
  return p;
}

bool Path::is_static() const {
  for (const Selector& s : selectors_) {
    if (s.descend || (s.type != Selector::Type::kKey && s.type != Selector::Type::kIndex)) {
      return false;
    }
  }
  return true;
}

std::string Path::ErrorForm() const {
  if (!legacy_) {
    return text_;
  }
  if (text_ == ".") {
    return "$";
  }
  if (text_[0] == '.' || text_[0] == '[') {
    return "$" + text_;
  }
  return "$." + text_;
}

Path Path::Parent() const {
  Path p = *this;
  if (!p.selectors_.empty()) {
    p.selectors_.pop_back();
  }
  return p;
}

}  // namespace hotkv::json

// ParseQuery / ExplainQuery: RediSearch's query language (DIALECT 1-4) and FT.EXPLAIN.
//
// A context-free lexer (RediSearch's tokens: terms with backslash escapes, numbers,
// $params, @modifiers, affixes, w'wildcards', punctuation) feeds a precedence-climbing
// parser that resolves every shift/reduce choice the way RediSearch's LALR grammars do:
// the lookahead token's precedence against the pending rule's. The two dialect families
// only differ in those tables (dialect 1: `-`, `~` and `@f:` take the rest of the
// expression; dialect 2+: they bind to the next atom) and in a few productions
// ($params, w'...', ismissing(), KNN, quoted tags). Recursion is bounded by
// kMaxQueryDepth; every loop consumes a token.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "search/query_ast.h"

namespace hotkv::search {
namespace {

enum class Tok {
  kEof,
  kTerm,
  kNumber,
  kParam,      // $name
  kModifier,   // @name
  kPrefix,     // lap*   ($p* too: param set)
  kSuffix,     // *top
  kContains,   // *pto*
  kWildcard,   // w'...'
  kIsMissing,  // ismissing (before '(')
  kQuote,
  kLp,
  kRp,
  kLb,
  kRb,
  kLsqb,
  kRsqb,
  kOr,
  kMinus,
  kTilde,
  kColon,
  kSemicolon,
  kArrow,
  kStar,
  kPercent,
};

struct Token {
  Tok kind = Tok::kEof;
  size_t pos = 0;
  size_t end = 0;          // one past the token in the query text
  std::string_view near;   // what RediSearch's errors print after "near"
  std::string text;        // unescaped text (terms, names, numbers as written)
  double num = 0;          // kNumber
  bool param = false;      // kPrefix built from a $param
};

bool IsTermByte(unsigned char c) { return c >= 0x80 || std::isalnum(c) || c == '_'; }
bool IsEscapable(unsigned char c) { return c < 0x80 && (std::ispunct(c) || std::isspace(c)); }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Strict double parse of the whole string ("inf", "-inf", "+inf", "1e5").
bool ParseDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() > 400) return false;
  std::string tmp(s);
  if (EqualsNoCase(tmp, "inf") || EqualsNoCase(tmp, "+inf")) {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (EqualsNoCase(tmp, "-inf")) {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (std::isspace(static_cast<unsigned char>(tmp[0]))) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size()) return false;
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

std::string FormatG(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string FormatF(double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%f", v);
  return buf;
}

class Lexer {
 public:
  Lexer(std::string_view s, int dialect, size_t start = 0) : s_(s), dialect_(dialect), pos_(start) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    out.reserve(16);  // a typical query's tokens, without regrowing
    while (true) {
      Token t;
      if (!Next(&t)) break;
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  unsigned char At(size_t i) const { return i < s_.size() ? static_cast<unsigned char>(s_[i]) : 0; }
  bool TermStartsAt(size_t i) const {
    if (i >= s_.size()) return false;
    if (IsTermByte(At(i))) return true;
    return At(i) == '\\' && i + 1 < s_.size() && IsEscapable(At(i + 1));
  }
  // Reads a term (letters, digits, '_', bytes >= 0x80, backslash escapes) at i.
  size_t ReadTerm(size_t i, std::string* text) const {
    while (i < s_.size()) {
      unsigned char c = At(i);
      if (IsTermByte(c)) {
        text->push_back(static_cast<char>(c));
        i++;
      } else if (c == '\\' && i + 1 < s_.size() && IsEscapable(At(i + 1))) {
        text->push_back(s_[i + 1]);
        i += 2;
      } else {
        break;
      }
    }
    return i;
  }
  // Length of a number at i ([-+]? digits [. digits] [e [-+] digits], or inf), 0 if none.
  size_t NumberLen(size_t i) const {
    size_t j = i;
    if (At(j) == '-' || At(j) == '+') j++;
    if ((At(j) == 'i' || At(j) == 'I') && (At(j + 1) == 'n' || At(j + 1) == 'N') &&
        (At(j + 2) == 'f' || At(j + 2) == 'F') && !TermStartsAt(j + 3)) {
      return j + 3 - i;
    }
    size_t digits = 0;
    while (std::isdigit(At(j))) j++, digits++;
    if (At(j) == '.' && std::isdigit(At(j + 1))) {
      j++;
      while (std::isdigit(At(j))) j++, digits++;
    }
    if (digits == 0) return 0;
    if (At(j) == 'e' || At(j) == 'E') {
      size_t k = j + 1;
      if (At(k) == '-' || At(k) == '+') k++;
      if (std::isdigit(At(k))) {
        while (std::isdigit(At(k))) k++;
        j = k;
      }
    }
    return j - i;
  }

  void Simple(Token* t, Tok kind, size_t i, size_t len) {
    t->kind = kind;
    t->pos = i;
    t->end = i + len;
    pos_ = i + len;
  }

  bool Next(Token* t) {
    while (pos_ < s_.size()) {
      size_t i = pos_;
      unsigned char c = At(i);
      if (std::isspace(c)) {
        pos_++;
        continue;
      }
      switch (c) {
        case '"': Simple(t, Tok::kQuote, i, 1); return true;
        case '(': Simple(t, Tok::kLp, i, 1); return true;
        case ')': Simple(t, Tok::kRp, i, 1); return true;
        case '{': Simple(t, Tok::kLb, i, 1); return true;
        case '}': Simple(t, Tok::kRb, i, 1); return true;
        case '[': Simple(t, Tok::kLsqb, i, 1); return true;
        case ']': Simple(t, Tok::kRsqb, i, 1); return true;
        case '|': Simple(t, Tok::kOr, i, 1); return true;
        case ':': Simple(t, Tok::kColon, i, 1); return true;
        case ';': Simple(t, Tok::kSemicolon, i, 1); return true;
        case '~': Simple(t, Tok::kTilde, i, 1); return true;
        case '%': Simple(t, Tok::kPercent, i, 1); return true;
        default: break;
      }
      if (c == '=' && At(i + 1) == '>') {
        Simple(t, Tok::kArrow, i, 2);
        t->near = s_.substr(i + 1, std::min<size_t>(2, s_.size() - i - 1));
        return true;
      }
      if (c == '-' || c == '+' || std::isdigit(c) || (c == '.' && std::isdigit(At(i + 1))) ||
          c == 'i' || c == 'I') {
        size_t n = NumberLen(i);
        std::string term;
        size_t term_end = std::isdigit(c) || c == 'i' || c == 'I' ? ReadTerm(i, &term) : i;
        if (n > 0 && i + n >= term_end && !TermStartsAt(i + n)) {
          t->kind = Tok::kNumber;
          t->pos = i;
          t->end = i + n;
          t->text = std::string(s_.substr(i, n));
          t->near = s_.substr(i, n);
          ParseDouble(t->text, &t->num);
          pos_ = i + n;
          return true;
        }
        if (c == '-') {
          Simple(t, Tok::kMinus, i, 1);
          return true;
        }
        if (c == '+' || c == '.') {
          pos_++;
          continue;
        }
      }
      if (c == '*') {
        if (TermStartsAt(i + 1)) {
          std::string text;
          size_t j = ReadTerm(i + 1, &text);
          t->pos = i;
          t->near = s_.substr(i + 1, j - i - 1);
          t->text = std::move(text);
          if (At(j) == '*') {
            t->kind = Tok::kContains;
            j++;
          } else {
            t->kind = Tok::kSuffix;
          }
          t->end = j;
          pos_ = j;
          return true;
        }
        Simple(t, Tok::kStar, i, 1);
        return true;
      }
      if ((c == '$' || c == '@') && TermStartsAt(i + 1)) {
        std::string text;
        size_t j = ReadTerm(i + 1, &text);
        t->pos = i;
        t->near = s_.substr(i + 1, j - i - 1);
        t->text = std::move(text);
        t->kind = c == '$' ? Tok::kParam : Tok::kModifier;
        if (c == '$' && At(j) == '*') {
          t->kind = Tok::kPrefix;
          t->param = true;
          j++;
        }
        t->end = j;
        pos_ = j;
        return true;
      }
      if (dialect_ >= 2 && (c == 'w' || c == 'W') && At(i + 1) == '\'') {
        // w'pattern': up to the next unescaped quote; without one, w is a term.
        size_t j = i + 2;
        std::string text;
        bool closed = false;
        while (j < s_.size()) {
          if (At(j) == '\\' && j + 1 < s_.size()) {
            text.push_back(s_[j + 1]);
            j += 2;
            continue;
          }
          if (At(j) == '\'') {
            closed = true;
            break;
          }
          text.push_back(s_[j]);
          j++;
        }
        if (closed) {
          t->kind = Tok::kWildcard;
          t->pos = i;
          t->end = j + 1;
          t->near = s_.substr(i + 2, j - i - 2);
          t->text = std::move(text);
          pos_ = j + 1;
          return true;
        }
      }
      if (TermStartsAt(i)) {
        std::string text;
        size_t j = ReadTerm(i, &text);
        t->pos = i;
        t->near = s_.substr(i, j - i);
        t->text = std::move(text);
        t->kind = Tok::kTerm;
        if (At(j) == '*') {
          t->kind = Tok::kPrefix;
          j++;
        } else if (dialect_ >= 2 && EqualsNoCase(t->text, "ismissing")) {
          size_t k = j;
          while (std::isspace(At(k))) k++;
          if (At(k) == '(') t->kind = Tok::kIsMissing;
        }
        t->end = j;
        pos_ = j;
        return true;
      }
      pos_++;  // any other punctuation or control byte separates tokens
    }
    return false;
  }

  std::string_view s_;
  int dialect_;
  size_t pos_;
};

bool TermStartsIn(std::string_view s, size_t i) {
  if (i >= s.size()) return false;
  auto c = static_cast<unsigned char>(s[i]);
  if (IsTermByte(c)) return true;
  return c == '\\' && i + 1 < s.size() && IsEscapable(static_cast<unsigned char>(s[i + 1]));
}

size_t ReadTermIn(std::string_view s, size_t i, std::string* text) {
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (IsTermByte(c)) {
      text->push_back(static_cast<char>(c));
      i++;
    } else if (c == '\\' && i + 1 < s.size() && IsEscapable(static_cast<unsigned char>(s[i + 1]))) {
      text->push_back(s[i + 1]);
      i += 2;
    } else {
      break;
    }
  }
  return i;
}

// The closing quote of a quoted string opened at `open` (backslash escapes skipped).
size_t FindClosingQuote(std::string_view s, size_t open) {
  for (size_t i = open + 1; i < s.size(); i++) {
    if (s[i] == '\\') {
      i++;
    } else if (s[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Rule precedences (what a pending reduction compares the lookahead with).
struct Precedence {
  int and_rule, or_rule, minus_rule, tilde_rule, modifier_rule;
};
constexpr Precedence kV1Rules{17, 18, 6, 2, 16};
constexpr Precedence kV2Rules{12, 4, 11, 11, 16};

std::unique_ptr<QueryNode> NewNode(NodeKind kind) {
  auto n = std::make_unique<QueryNode>();
  n->kind = kind;
  return n;
}

bool IsFieldTyped(NodeKind k) {
  return k == NodeKind::kTag || k == NodeKind::kNumeric || k == NodeKind::kGeo ||
         k == NodeKind::kVectorRange || k == NodeKind::kIsMissing;
}

void SetFields(QueryNode* n, const std::vector<std::string>& fields) {
  // Iterative over the tree (bounded by the tree's size, no recursion).
  std::vector<QueryNode*> stack{n};
  while (!stack.empty()) {
    QueryNode* cur = stack.back();
    stack.pop_back();
    if (!IsFieldTyped(cur->kind)) {
      if (cur->fields.empty()) {
        cur->fields = fields;
      } else {
        std::vector<std::string> both;
        for (const auto& f : cur->fields) {
          for (const auto& g : fields) {
            if (f == g) both.push_back(f);
          }
        }
        if (both.empty()) both.push_back("");  // RediSearch's empty mask: matches nothing
        cur->fields = std::move(both);
      }
    }
    for (auto& c : cur->children) stack.push_back(c.get());
  }
}

class Parser {
 public:
  Parser(std::string_view text, const QueryParams& params, const ParseOptions& options)
      : text_(text), params_(params), opts_(options), v1_(options.dialect == 1),
        rules_(v1_ ? kV1Rules : kV2Rules) {
    toks_ = Lexer(text, options.dialect).Run();
  }

  Result<Query> Run() {
    Query q;
    if (toks_.empty()) {
      q.root = NewNode(NodeKind::kEmpty);
      return q;
    }
    std::unique_ptr<QueryNode> root;
    bool star = false;
    size_t stars = StarPrefix();
    if (stars > 0) {
      p_ = stars;
      star = true;
      root = NewNode(NodeKind::kMatchAll);
    } else {
      root = ParseExpr(0);
      if (failed_) return status_;
    }
    if (Peek().kind == Tok::kArrow) {
      if (v1_ && star) {
        SyntaxError(Peek());  // dialect 1: "*" is a whole query
        return status_;
      }
      if (v1_ || PeekAt(1).kind != Tok::kLsqb) {
        SyntaxError(PeekAt(1));  // "=>" takes "{attributes}" (consumed already) or "[KNN ...]"
        return status_;
      } else {
        KnnClause knn;
        knn.has_filter = !star;
        Advance();
        Advance();
        if (!ParseKnn(&knn)) return status_;
        q.knn = std::move(knn);
      }
    }
    if (Peek().kind != Tok::kEof) {
      SyntaxError(Peek());
      return status_;
    }
    if (deferred_) return *deferred_;
    if (!root) {
      root = NewNode(q.knn ? NodeKind::kMatchAll : NodeKind::kEmpty);
      if (q.knn) q.knn->has_filter = false;
    }
    q.root = std::move(root);
    return q;
  }

 private:
  // "*" or "(*)" ... as the whole left side of a query: the number of tokens, 0 if not.
  size_t StarPrefix() const {
    size_t open = 0;
    while (open < toks_.size() && toks_[open].kind == Tok::kLp) open++;
    if (open >= toks_.size() || toks_[open].kind != Tok::kStar) return 0;
    if (v1_ && open > 0) return 0;
    size_t i = open + 1;
    for (size_t k = 0; k < open; k++, i++) {
      if (i >= toks_.size() || toks_[i].kind != Tok::kRp) return 0;
    }
    return i;
  }

  // Drops the tokens from `index` on and lexes the text again from `text_pos` (after a
  // quoted string, which has its own lexing). Invalidates Token references.
  void Relex(size_t index, size_t text_pos) {
    toks_.resize(index);
    for (auto& t : Lexer(text_, opts_.dialect, text_pos).Run()) toks_.push_back(std::move(t));
    p_ = index;
  }

  const Token& Peek() const { return PeekAt(0); }
  const Token& PeekAt(size_t k) const {
    static const Token kEofToken;
    return p_ + k < toks_.size() ? toks_[p_ + k] : kEofToken;
  }
  const Token& Advance() { return toks_[p_++]; }

  void Fail(std::string msg) {
    if (!failed_) {
      failed_ = true;
      status_ = Status::InvalidArgument(std::move(msg));
    }
  }
  // RediSearch reports the offending token's offset and the text of the last token
  // that carried text (punctuation tokens keep the previous one's); at the end of the
  // query, the last token.
  void SyntaxError(const Token& at) {
    size_t idx = p_;
    if (!toks_.empty() && &at >= toks_.data() && &at < toks_.data() + toks_.size()) {
      idx = static_cast<size_t>(&at - toks_.data());
    }
    size_t pos;
    if (at.kind == Tok::kEof && !toks_.empty()) {
      idx = toks_.size() - 1;
      pos = toks_.back().pos;
    } else {
      pos = at.pos;
    }
    std::string_view near;
    for (size_t i = std::min(idx + 1, toks_.size()); i-- > 0;) {
      if (!toks_[i].near.empty()) {
        near = toks_[i].near;
        break;
      }
    }
    Fail("Syntax error at offset " + std::to_string(pos) + " near " + std::string(near));
  }

  // RediSearch resolves $params after parsing: a syntax error anywhere wins over a
  // missing or malformed parameter, which is reported when the parse succeeded.
  void Defer(std::string msg) {
    if (!deferred_) deferred_ = Status::InvalidArgument(std::move(msg));
  }
  const std::string* Param(const std::string& name) {
    static const std::string kMissing;
    auto it = params_.find(name);
    if (it == params_.end()) {
      Defer("No such parameter `" + name + "`");
      return &kMissing;
    }
    return &it->second;
  }

  bool IsStopword(const Token& t) const {
    return t.kind == Tok::kTerm && !opts_.no_stopwords && opts_.is_stopword &&
           opts_.is_stopword(t.text);
  }

  // The precedence of a lookahead token that would extend an expression; -1 if it cannot.
  int TokPrec(const Token& t) const {
    if (v1_) {
      switch (t.kind) {
        case Tok::kTerm: return IsStopword(t) ? 8 : 10;
        case Tok::kNumber: return 7;
        case Tok::kQuote: return 4;
        case Tok::kPrefix:
        case Tok::kSuffix:
        case Tok::kContains: return 11;
        case Tok::kPercent: return 12;
        case Tok::kParam: return 13;
        case Tok::kLp: return 14;
        case Tok::kMinus: return 6;
        case Tok::kTilde: return 2;
        case Tok::kModifier: return 16;
        case Tok::kStar: return 1;
        case Tok::kOr: return 18;
        case Tok::kArrow: return 20;
        default: return -1;
      }
    }
    switch (t.kind) {
      case Tok::kTerm: return 8;
      case Tok::kQuote: return 9;
      case Tok::kLp: return 10;
      case Tok::kMinus:
      case Tok::kTilde: return 11;
      case Tok::kModifier: return 6;
      case Tok::kIsMissing: return 5;
      case Tok::kNumber: return 17;
      case Tok::kStar: return 19;
      case Tok::kPrefix:
      case Tok::kSuffix:
      case Tok::kContains: return 22;
      case Tok::kPercent: return 23;
      case Tok::kParam: return 24;
      case Tok::kWildcard: return 25;
      case Tok::kOr: return 4;
      case Tok::kArrow: return 15;
      default: return -1;
    }
  }

  // RediSearch reuses an unrestricted intersection / union on the left (appending the
  // right) and, in dialect 2, one on the right (appending the left at its end).
  std::unique_ptr<QueryNode> Combine(NodeKind kind, std::unique_ptr<QueryNode> a,
                                     std::unique_ptr<QueryNode> b) const {
    if (!a) return b;
    if (!b) return a;
    if (a->kind == kind && a->fields.empty()) {
      a->children.push_back(std::move(b));
      return a;
    }
    if (!v1_ && b->kind == kind && b->fields.empty()) {
      b->children.push_back(std::move(a));
      return b;
    }
    auto n = NewNode(kind);
    n->children.push_back(std::move(a));
    n->children.push_back(std::move(b));
    return n;
  }

  bool StartsExpr(const Token& t) const {
    switch (t.kind) {
      case Tok::kTerm:
      case Tok::kNumber:
      case Tok::kParam:
      case Tok::kModifier:
      case Tok::kPrefix:
      case Tok::kSuffix:
      case Tok::kContains:
      case Tok::kWildcard:
      case Tok::kIsMissing:
      case Tok::kQuote:
      case Tok::kLp:
      case Tok::kMinus:
      case Tok::kTilde:
      case Tok::kPercent:
      case Tok::kStar:
        return true;
      default:
        return false;
    }
  }

  // An expression whose pending rule has precedence `limit`: it extends while the
  // lookahead's precedence is higher (LALR shift), else the caller reduces.
  std::unique_ptr<QueryNode> ParseExpr(int limit) {
    // Nesting is bounded twice: by levels (kMaxQueryDepth) and by the stack the parse
    // has used, so that no build (sanitizers grow frames) or thread stack overflows.
    const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    if (stack_base_ == 0) stack_base_ = here;
    const bool stack_full = stack_base_ > here && stack_base_ - here > kMaxStackBytes;
    if (++depth_ > kMaxQueryDepth || stack_full) {
      Fail("Parser stack overflow. Try moving nested parentheses more to the left");
      return nullptr;
    }
    auto left = ParsePrimary();
    while (!failed_) {
      const Token& t = Peek();
      int prec = TokPrec(t);
      if (prec < 0 || prec <= limit) break;
      if (t.kind == Tok::kArrow) {
        if (PeekAt(1).kind != Tok::kLb) break;  // =>[KNN ...]: the query's top level
        Advance();
        ParseAttributes(left.get());
        continue;
      }
      if (t.kind == Tok::kOr) {
        Advance();
        auto right = ParseExpr(rules_.or_rule);
        if (failed_) break;
        left = Combine(NodeKind::kUnion, std::move(left), std::move(right));
        continue;
      }
      if (!StartsExpr(t)) break;
      auto right = ParseExpr(rules_.and_rule);
      if (failed_) break;
      left = Combine(NodeKind::kIntersect, std::move(left), std::move(right));
    }
    depth_--;
    return failed_ ? nullptr : std::move(left);
  }

  std::unique_ptr<QueryNode> TermNode(const Token& t) {
    auto n = NewNode(NodeKind::kTerm);
    n->term = t.text;
    n->verbatim = opts_.verbatim || (t.kind == Tok::kNumber && !v1_);
    return n;
  }

  std::unique_ptr<QueryNode> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kTerm:
      case Tok::kNumber: {
        if (v1_) return ParseTermList();
        Advance();
        if (IsStopword(t)) return nullptr;
        return TermNode(t);
      }
      case Tok::kParam: {
        if (v1_) {
          SyntaxError(t);
          return nullptr;
        }
        Advance();
        const std::string* v = Param(t.text);
        if (!v) return nullptr;
        auto n = NewNode(NodeKind::kTerm);
        n->term = *v;
        n->verbatim = opts_.verbatim;
        return n;
      }
      case Tok::kPrefix:
      case Tok::kSuffix:
      case Tok::kContains: {
        Advance();
        auto n = NewNode(t.kind == Tok::kPrefix   ? NodeKind::kPrefix
                         : t.kind == Tok::kSuffix ? NodeKind::kSuffix
                                                  : NodeKind::kInfix);
        if (t.param) {
          const std::string* v = Param(t.text);
          if (!v) return nullptr;
          n->term = *v;
        } else {
          n->term = t.text;
        }
        return n;
      }
      case Tok::kWildcard: {
        Advance();
        auto n = NewNode(NodeKind::kWildcard);
        n->term = t.text;
        return n;
      }
      case Tok::kPercent: return ParseFuzzy();
      case Tok::kQuote: return ParsePhrase();
      case Tok::kLp: {
        Advance();
        if (!v1_ && Peek().kind == Tok::kStar) {
          // "(*" is only valid as the whole query ("(*)"): RediSearch fails after it.
          SyntaxError(PeekAt(1).kind == Tok::kRp ? Peek() : PeekAt(1));
          return nullptr;
        }
        auto e = ParseExpr(0);
        if (failed_) return nullptr;
        if (Peek().kind != Tok::kRp) {
          SyntaxError(Peek());
          return nullptr;
        }
        Advance();
        return e;
      }
      case Tok::kMinus:
      case Tok::kTilde: {
        const bool minus = t.kind == Tok::kMinus;
        Advance();
        auto e = ParseExpr(minus ? rules_.minus_rule : rules_.tilde_rule);
        if (failed_ || !e) return nullptr;
        auto n = NewNode(minus ? NodeKind::kNot : NodeKind::kOptional);
        n->children.push_back(std::move(e));
        return n;
      }
      case Tok::kModifier: return ParseModifier();
      case Tok::kIsMissing: {
        if (in_text_field_ > 0) {
          SyntaxError(t);
          return nullptr;
        }
        Advance();
        if (Peek().kind != Tok::kLp) {
          SyntaxError(Peek());
          return nullptr;
        }
        Advance();
        if (Peek().kind != Tok::kModifier) {
          SyntaxError(Peek());
          return nullptr;
        }
        const Token& m = Advance();
        if (Peek().kind != Tok::kRp) {
          SyntaxError(Peek());
          return nullptr;
        }
        Advance();
        auto n = NewNode(NodeKind::kIsMissing);
        n->fields.push_back(m.text);
        return n;
      }
      default:
        SyntaxError(t);
        return nullptr;
    }
  }

  // Dialect 1: consecutive terms form one intersection (a @field: modifier covers them):
  // two terms or numbers start it, then only terms continue it (the grammar's
  // precedences reduce it before a number or a stop word).
  std::unique_ptr<QueryNode> ParseTermList() {
    const Token& first = Advance();
    if (IsStopword(first)) return nullptr;
    auto is_word = [&](const Token& t) {
      return (t.kind == Tok::kTerm || t.kind == Tok::kNumber) && !IsStopword(t);
    };
    if (!is_word(Peek())) return TermNode(first);
    auto n = NewNode(NodeKind::kIntersect);
    n->children.push_back(TermNode(first));
    n->children.push_back(TermNode(Advance()));
    while (Peek().kind == Tok::kTerm && !IsStopword(Peek())) n->children.push_back(TermNode(Advance()));
    return n;
  }

  std::unique_ptr<QueryNode> ParseFuzzy() {
    int open = 0;
    while (Peek().kind == Tok::kPercent && open < 3) {
      Advance();
      open++;
    }
    const Token& t = Peek();
    std::string word;
    if (t.kind == Tok::kTerm || t.kind == Tok::kNumber) {
      word = t.text;
    } else if (t.kind == Tok::kParam && !v1_) {
      const std::string* v = Param(t.text);
      if (!v) return nullptr;
      word = *v;
    } else {
      SyntaxError(t);
      return nullptr;
    }
    Advance();
    for (int i = 0; i < open; i++) {
      if (Peek().kind != Tok::kPercent) {
        SyntaxError(Peek());
        return nullptr;
      }
      Advance();
    }
    auto n = NewNode(NodeKind::kFuzzy);
    n->term = std::move(word);
    n->fuzzy_distance = open;
    return n;
  }

  std::unique_ptr<QueryNode> ParsePhrase() {
    if (!v1_) return ParseQuotedV2();
    Advance();  // "
    std::vector<std::string> words;
    while (true) {
      const Token& t = Peek();
      if (t.kind == Tok::kQuote) break;
      if (t.kind == Tok::kTerm || t.kind == Tok::kNumber) {
        words.push_back(t.text);
      } else if (t.kind == Tok::kParam && !v1_) {
        words.push_back("$" + t.text);
      } else {
        SyntaxError(t);
        return nullptr;
      }
      Advance();
    }
    if (words.empty()) {
      SyntaxError(Peek());
      return nullptr;
    }
    Advance();  // "
    if (v1_ && words.size() == 1) {
      auto n = NewNode(NodeKind::kTerm);
      n->term = std::move(words[0]);
      n->verbatim = true;
      return n;
    }
    auto n = NewNode(NodeKind::kPhrase);
    n->phrase_terms = std::move(words);
    n->verbatim = true;
    return n;
  }

  // Dialect 2 lexes a quoted string on its own: words (letters, digits, escapes, and
  // $names kept as written), every other byte separates them.
  std::unique_ptr<QueryNode> ParseQuotedV2() {
    const size_t open = Peek().pos;
    const size_t close = FindClosingQuote(text_, open);
    std::vector<std::string> words;
    size_t last_pos = open;
    std::string_view last_word;
    size_t end = close == std::string_view::npos ? text_.size() : close;
    for (size_t i = open + 1; i < end;) {
      size_t start = i;
      std::string word;
      if (text_[i] == '$' && TermStartsIn(text_, i + 1)) {
        word = "$";
        i = ReadTermIn(text_, i + 1, &word);
      } else if (TermStartsIn(text_, i)) {
        i = ReadTermIn(text_, i, &word);
      } else {
        i++;
        continue;
      }
      last_pos = start;
      last_word = text_.substr(start, i - start);
      words.push_back(std::move(word));
    }
    if (close == std::string_view::npos || words.empty()) {
      size_t pos = close == std::string_view::npos ? last_pos : close;
      Fail("Syntax error at offset " + std::to_string(pos) + " near " + std::string(last_word));
      return nullptr;
    }
    Relex(p_, close + 1);
    auto n = NewNode(NodeKind::kPhrase);
    n->phrase_terms = std::move(words);
    n->verbatim = true;
    return n;
  }

  std::unique_ptr<QueryNode> ParseModifier() {
    if (in_text_field_ > 0) {
      // Dialect 2: a text field's operand is text only (no @field, ranges, tags).
      SyntaxError(Peek());
      return nullptr;
    }
    const Token& m = Advance();
    std::vector<std::string> fields{m.text};
    while (Peek().kind == Tok::kOr && (PeekAt(1).kind == Tok::kTerm || PeekAt(1).kind == Tok::kNumber)) {
      Advance();
      fields.push_back(Advance().text);
    }
    if (Peek().kind != Tok::kColon) {
      SyntaxError(Peek());
      return nullptr;
    }
    Advance();
    if (fields.size() == 1 && Peek().kind == Tok::kLb) {
      return v1_ ? ParseTagsV1(fields[0]) : ParseTags(fields[0]);
    }
    if (fields.size() == 1 && Peek().kind == Tok::kLsqb) return ParseRange(fields[0]);
    if (!v1_) in_text_field_++;
    auto e = ParseExpr(rules_.modifier_rule);
    if (!v1_) in_text_field_--;
    if (failed_ || !e) return nullptr;
    SetFields(e.get(), fields);
    return e;
  }

  // @f:{a | b c | pre* | *suf | *in* | $p | "a b" | w'p*'}
  std::unique_ptr<QueryNode> ParseTags(const std::string& field) {
    Advance();  // {
    auto n = NewNode(NodeKind::kTag);
    n->fields.push_back(field);
    while (true) {
      TagValue tv;
      std::vector<std::string> words, raws;
      bool single_done = false;
      while (true) {
        const Token& t = Peek();
        if (t.kind == Tok::kOr || t.kind == Tok::kRb) break;
        if (single_done) {
          SyntaxError(t);
          return nullptr;
        }
        if (t.kind == Tok::kTerm || t.kind == Tok::kNumber) {
          words.push_back(t.text);
          raws.emplace_back(text_.substr(t.pos, t.end - t.pos));
          Advance();
        } else if (t.kind == Tok::kParam && !v1_) {
          const std::string* v = Param(t.text);
          if (!v) return nullptr;
          words.push_back(*v);
          raws.push_back(*v);
          Advance();
        } else if (t.kind == Tok::kQuote && !v1_ && words.empty()) {
          // A quoted tag: the raw text up to the closing quote, one value.
          size_t close = FindClosingQuote(text_, t.pos);
          if (close == std::string_view::npos) {
            SyntaxError(t);
            return nullptr;
          }
          tv.value = std::string(text_.substr(t.pos + 1, close - t.pos - 1));
          tv.raw = tv.value;
          Relex(p_, close + 1);
          single_done = true;
        } else if ((t.kind == Tok::kPrefix || t.kind == Tok::kSuffix || t.kind == Tok::kContains ||
                    t.kind == Tok::kWildcard) &&
                   words.empty()) {
          if (t.kind == Tok::kWildcard && v1_) {
            SyntaxError(t);
            return nullptr;
          }
          if (t.param) {
            const std::string* v = Param(t.text);
            if (!v) return nullptr;
            tv.value = *v;
            tv.raw = *v;
          } else {
            tv.value = t.text;
            size_t b = t.kind == Tok::kPrefix ? t.pos : t.pos + 1;
            size_t e = t.kind == Tok::kSuffix ? t.end : t.end - 1;
            tv.raw = std::string(text_.substr(b, e > b ? e - b : 0));
          }
          tv.match = t.kind == Tok::kPrefix   ? TagValue::Match::kPrefix
                     : t.kind == Tok::kSuffix ? TagValue::Match::kSuffix
                                              : TagValue::Match::kInfix;
          if (t.kind == Tok::kWildcard) tv.match = TagValue::Match::kExact;  // approximation
          Advance();
          single_done = true;
        } else {
          SyntaxError(t);
          return nullptr;
        }
      }
      if (!single_done) {
        if (words.empty() || (v1_ && words.size() > 1)) {
          SyntaxError(Peek());
          return nullptr;
        }
        for (size_t i = 0; i < words.size(); i++) {
          if (i) {
            tv.value += ' ';
            tv.raw += ' ';
          }
          tv.value += words[i];
          tv.raw += raws[i];
        }
        tv.phrase = words.size() > 1;
      }
      n->tags.push_back(std::move(tv));
      const Token& sep = Advance();
      if (sep.kind == Tok::kRb) break;
    }
    return n;
  }

  // Dialect 1's tag lists, as its grammar reads them: the first value is one word or
  // affix and may end the list ("@t:{a x" is the tag a, then x); after '|' a value may be
  // several words; '}' is optional and the list goes on after it ("@t:{a}|b" = {a|b}).
  std::unique_ptr<QueryNode> ParseTagsV1(const std::string& field) {
    Advance();  // {
    auto n = NewNode(NodeKind::kTag);
    n->fields.push_back(field);
    bool first = true;
    while (true) {
      const Token& t = Peek();
      TagValue tv;
      if (t.kind == Tok::kTerm || t.kind == Tok::kNumber) {
        tv.value = t.text;
        tv.raw = std::string(text_.substr(t.pos, t.end - t.pos));
        Advance();
        while (!first && (Peek().kind == Tok::kTerm || Peek().kind == Tok::kNumber)) {
          const Token& w = Advance();
          tv.value += " " + w.text;
          tv.raw += " " + std::string(text_.substr(w.pos, w.end - w.pos));
          tv.phrase = true;
        }
      } else if (t.kind == Tok::kPrefix || t.kind == Tok::kSuffix || t.kind == Tok::kContains) {
        tv.value = t.text;
        size_t b = t.kind == Tok::kPrefix ? t.pos : t.pos + 1;
        size_t e = t.kind == Tok::kSuffix ? t.end : t.end - 1;
        tv.raw = std::string(text_.substr(b, e > b ? e - b : 0));
        tv.match = t.kind == Tok::kPrefix   ? TagValue::Match::kPrefix
                   : t.kind == Tok::kSuffix ? TagValue::Match::kSuffix
                                            : TagValue::Match::kInfix;
        Advance();
      } else {
        SyntaxError(t);
        return nullptr;
      }
      n->tags.push_back(std::move(tv));
      first = false;
      while (Peek().kind == Tok::kRb) Advance();
      if (Peek().kind != Tok::kOr) break;
      Advance();
    }
    return n;
  }

  // A number in a range: NUMBER, $param (dialect 2+), with '(' for exclusive.
  bool ParseRangeNumber(double* v, bool* exclusive, bool allow_exclusive) {
    *exclusive = false;
    if (allow_exclusive && Peek().kind == Tok::kLp) {
      Advance();
      *exclusive = true;
    }
    bool negate = false;
    if (Peek().kind == Tok::kMinus && PeekAt(1).kind == Tok::kNumber) {
      Advance();
      negate = true;
    }
    const Token& t = Peek();
    if (t.kind == Tok::kNumber) {
      *v = negate ? -t.num : t.num;
      Advance();
      return true;
    }
    if (t.kind == Tok::kParam && !v1_ && !negate) {
      const std::string* s = Param(t.text);
      if (!s) return false;
      std::string_view sv = *s;
      if (allow_exclusive && !sv.empty() && sv[0] == '(') {
        *exclusive = true;
        sv.remove_prefix(1);
      }
      if (!ParseDouble(sv, v)) {
        Defer("Invalid numeric value (" + *s + ") for parameter `" + t.text + "`");
        *v = 0;
      }
      Advance();
      return true;
    }
    SyntaxError(t);
    return false;
  }

  std::unique_ptr<QueryNode> ParseRange(const std::string& field) {
    Advance();  // [
    if (!v1_ && Peek().kind == Tok::kTerm && EqualsNoCase(Peek().text, "VECTOR_RANGE")) {
      Advance();
      auto n = NewNode(NodeKind::kVectorRange);
      n->fields.push_back(field);
      const Token& r = Peek();
      if (r.kind == Tok::kNumber) {
        n->vector_radius = r.num;
        n->vector_radius_text = r.text;
      } else if (r.kind == Tok::kParam) {
        const std::string* s = Param(r.text);
        if (!s) return nullptr;
        if (!ParseDouble(*s, &n->vector_radius)) {
          Defer("Invalid numeric value (" + *s + ") for parameter `" + r.text + "`");
        }
        n->vector_radius_text = *s;
      } else {
        SyntaxError(r);
        return nullptr;
      }
      Advance();
      if (Peek().kind != Tok::kParam) {
        SyntaxError(Peek());
        return nullptr;
      }
      const Token& b = Advance();
      const std::string* blob = Param(b.text);
      if (!blob) return nullptr;
      n->vector_blob = *blob;
      n->vector_param = b.text;
      if (Peek().kind != Tok::kRsqb) {
        SyntaxError(Peek());
        return nullptr;
      }
      Advance();
      return n;
    }
    double a = 0, b = 0;
    bool ax = false, bx = false;
    if (!ParseRangeNumber(&a, &ax, true)) return nullptr;
    if (!ParseRangeNumber(&b, &bx, true)) return nullptr;
    if (Peek().kind == Tok::kRsqb) {
      Advance();
      auto n = NewNode(NodeKind::kNumeric);
      n->fields.push_back(field);
      n->num_min = a;
      n->num_max = b;
      n->min_exclusive = ax;
      n->max_exclusive = bx;
      return n;
    }
    double r = 0;
    bool rx = false;
    if (!ParseRangeNumber(&r, &rx, false)) return nullptr;
    std::string unit;
    const Token& u = Peek();
    if (u.kind == Tok::kTerm) {
      unit = u.text;
    } else if (u.kind == Tok::kParam && !v1_) {
      const std::string* s = Param(u.text);
      if (!s) return nullptr;
      unit = *s;
    } else {
      SyntaxError(u);
      return nullptr;
    }
    Advance();
    if (Peek().kind != Tok::kRsqb) {
      SyntaxError(Peek());
      return nullptr;
    }
    Advance();
    double factor = 0;
    std::string lower = AsciiLower(unit);
    if (lower == "m") factor = 1;
    else if (lower == "km") factor = 1000;
    else if (lower == "mi") factor = 1609.34;
    else if (lower == "ft") factor = 0.3048;
    if (factor == 0) {
      Fail("Invalid GeoFilter unit");
      return nullptr;
    }
    if (!(r >= 0) || std::isinf(r)) {
      Fail("Invalid GeoFilter radius");
      return nullptr;
    }
    if (!(a >= -180 && a <= 180 && b >= -85.05112878 && b <= 85.05112878)) {
      Fail("Invalid GeoFilter lat/lon");
      return nullptr;
    }
    auto n = NewNode(NodeKind::kGeo);
    n->fields.push_back(field);
    n->lon = a;
    n->lat = b;
    n->radius_m = r * factor;
    n->unit = lower;
    return n;
  }

  // The value of an attribute ($name: value): a term, number or $param (dialect 2+).
  bool AttributeValue(std::string* out) {
    const Token& t = Peek();
    if (t.kind == Tok::kTerm || t.kind == Tok::kNumber) {
      *out = t.text;
    } else if (t.kind == Tok::kParam && !v1_) {
      auto it = params_.find(t.text);
      *out = it == params_.end() ? t.text : it->second;
    } else {
      SyntaxError(t);
      return false;
    }
    Advance();
    return true;
  }

  void ApplyAttribute(QueryNode* n, const std::string& name, const std::string& value) {
    std::string key = AsciiLower(name);
    auto invalid = [&] { Fail("Invalid value (" + value + ") for `" + key + "`"); };
    if (key == "weight") {
      double w;
      if (!ParseDouble(value, &w) || w < 0 || std::isinf(w)) return invalid();
      if (n) n->weight = w;
    } else if (key == "slop") {
      char* end = nullptr;
      long long s = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || s < -1 || s > 1000000000) return invalid();
      if (n) n->slop = static_cast<int>(s);
    } else if (key == "inorder") {
      std::string v = AsciiLower(value);
      if (v == "true" || v == "1") {
        if (n) n->inorder = true;
      } else if (v == "false" || v == "0") {
        if (n) n->inorder = false;
      } else {
        return invalid();
      }
    } else if (key == "phonetic") {
      std::string v = AsciiLower(value);
      if (v != "true" && v != "false" && v != "1" && v != "0") return invalid();
    } else if (key == "yield_distance_as" && n && n->kind == NodeKind::kVectorRange) {
      n->yield_distance_as = value;
    } else if (key == "epsilon" && n && n->kind == NodeKind::kVectorRange) {
      double e;
      if (!ParseDouble(value, &e) || e <= 0) return invalid();
      n->vector_epsilon = e;
    } else {
      Fail("Invalid attribute " + name);
    }
  }

  // After "=>": {$name: value; ...}. Applied to `n` (may be null: validated only).
  bool ParseAttributesList(std::vector<std::pair<std::string, std::string>>* out) {
    if (Peek().kind != Tok::kLb) {
      SyntaxError(Peek());
      return false;
    }
    Advance();
    while (true) {
      const Token& t = Peek();
      if (t.kind == Tok::kRb) {
        Advance();
        return true;
      }
      if (t.kind == Tok::kSemicolon && !out->empty()) {
        Advance();
        continue;
      }
      if (t.kind != Tok::kParam) {
        SyntaxError(t);
        return false;
      }
      Advance();
      if (Peek().kind != Tok::kColon) {
        SyntaxError(Peek());
        return false;
      }
      Advance();
      std::string value;
      if (!AttributeValue(&value)) return false;
      out->emplace_back(t.text, std::move(value));
      if (Peek().kind != Tok::kSemicolon && Peek().kind != Tok::kRb) {
        SyntaxError(Peek());
        return false;
      }
    }
  }

  void ParseAttributes(QueryNode* n) {
    std::vector<std::pair<std::string, std::string>> attrs;
    if (!ParseAttributesList(&attrs)) return;
    if (!n) return;
    for (const auto& [name, value] : attrs) {
      ApplyAttribute(n, name, value);
      if (failed_) return;
    }
  }

  // After "=>[": KNN k @field $blob [NAME value ...] [AS alias] ] [=>{$yield_distance_as: x}]
  bool ParseKnn(KnnClause* knn) {
    const Token& cmd = Peek();
    if (cmd.kind != Tok::kTerm || !EqualsNoCase(cmd.text, "KNN")) {
      SyntaxError(cmd);
      return false;
    }
    Advance();
    const Token& k = Peek();
    if (k.kind == Tok::kNumber) {
      if (!ParseUint(k.text, &knn->k)) {
        SyntaxError(k);
        return false;
      }
    } else if (k.kind == Tok::kParam) {
      const std::string* v = Param(k.text);
      if (!v) return false;
      double d;
      if (!ParseUint(*v, &knn->k)) {
        if (ParseDouble(*v, &d) && d >= 0 && d == std::floor(d) && d < 1e19) {
          knn->k = static_cast<uint64_t>(d);
        } else {
          Defer("Invalid numeric value (" + *v + ") for parameter `" + k.text + "`");
        }
      }
    } else {
      SyntaxError(k);
      return false;
    }
    Advance();
    if (Peek().kind != Tok::kModifier) {
      SyntaxError(Peek());
      return false;
    }
    knn->field = Advance().text;
    if (Peek().kind != Tok::kParam) {
      SyntaxError(Peek());
      return false;
    }
    const Token& b = Advance();
    const std::string* blob = Param(b.text);
    if (!blob) return false;
    knn->vector_blob = *blob;
    knn->blob_param = b.text;
    while (Peek().kind == Tok::kTerm) {
      const Token& name = Advance();
      const Token& v = Peek();
      if (EqualsNoCase(name.text, "AS")) {
        if (v.kind == Tok::kTerm || v.kind == Tok::kNumber) {
          knn->score_alias = v.text;
        } else if (v.kind == Tok::kParam) {
          const std::string* s = Param(v.text);
          if (!s) return false;
          knn->score_alias = *s;
        } else {
          SyntaxError(v);
          return false;
        }
        Advance();
        break;
      }
      std::string value;
      if (v.kind == Tok::kTerm || v.kind == Tok::kNumber) {
        value = v.text;
      } else if (v.kind == Tok::kParam) {
        const std::string* s = Param(v.text);
        if (!s) return false;
        value = *s;
      } else {
        SyntaxError(v);
        return false;
      }
      Advance();
      if (EqualsNoCase(name.text, "EF_RUNTIME")) {
        uint64_t ef;
        if (ParseUint(value, &ef)) knn->ef_runtime = ef;
      } else if (EqualsNoCase(name.text, "EPSILON")) {
        double e;
        if (ParseDouble(value, &e)) knn->epsilon = e;
      }
      knn->attributes.emplace_back(name.text, std::move(value));
    }
    if (Peek().kind != Tok::kRsqb) {
      SyntaxError(Peek());
      return false;
    }
    Advance();
    if (Peek().kind == Tok::kArrow) {
      Advance();
      std::vector<std::pair<std::string, std::string>> attrs;
      if (!ParseAttributesList(&attrs)) return false;
      for (const auto& [name, value] : attrs) {
        std::string key = AsciiLower(name);
        if (key == "yield_distance_as") {
          knn->score_alias = value;
        } else if (key == "weight") {
          double w;
          if (!ParseDouble(value, &w) || w < 0) {
            Fail("Invalid value (" + value + ") for `weight`");
            return false;
          }
        } else {
          Fail("Invalid attribute " + name);
          return false;
        }
      }
    }
    return true;
  }

  std::string_view text_;
  const QueryParams& params_;
  const ParseOptions& opts_;
  bool v1_;
  Precedence rules_;
  std::vector<Token> toks_;
  size_t p_ = 0;
  int depth_ = 0;
  int in_text_field_ = 0;
  static constexpr uintptr_t kMaxStackBytes = 1024 * 1024;  // of the 8 MiB thread stacks
  uintptr_t stack_base_ = 0;
  bool failed_ = false;
  std::optional<Status> deferred_;
  Status status_;
};

// ---------------------------------------------------------------------------------
// FT.EXPLAIN

class Explainer {
 public:
  explicit Explainer(const ExplainOptions& o) : o_(o) {}

  std::string Fold(std::string_view s) const { return o_.fold ? o_.fold(s) : AsciiLower(s); }

  static void Pad(std::string& out, int depth) { out.append(static_cast<size_t>(depth) * 2, ' '); }

  static std::string Attrs(const QueryNode& n) {
    if (n.weight == 1 && n.slop == -1 && !n.inorder) return "";
    std::string s = " => {";
    if (n.weight != 1) s += " $weight: " + FormatG(n.weight) + ";";
    if (n.slop != -1) s += " $slop: " + std::to_string(n.slop) + ";";
    if (n.inorder || n.slop != -1) s += std::string(" $inorder: ") + (n.inorder ? "true" : "false") + ";";
    s += " }";
    return s;
  }

  void Dump(std::string& out, const QueryNode& n, int depth) const {
    Pad(out, depth);
    std::string prefix;
    if (!n.fields.empty() && !IsFieldTyped(n.kind)) {
      prefix = "@";
      for (size_t i = 0; i < n.fields.size(); i++) {
        if (i) prefix += "|";
        prefix += n.fields[i].empty() ? "NULL" : n.fields[i];
      }
      prefix += ":";
    }
    out += prefix;
    switch (n.kind) {
      case NodeKind::kTerm: {
        std::string folded = Fold(n.term);
        std::string weight = n.weight != 1 ? " => {$weight: " + FormatG(n.weight) + ";}" : "";
        bool null_mask = false;
        for (const auto& f : n.fields) null_mask = null_mask || f.empty();
        std::string stem = (!n.verbatim && !null_mask && o_.stem) ? o_.stem(n, folded) : "";
        if (stem.empty()) {
          out += folded + weight + "\n";
          return;
        }
        std::string exp_prefix = prefix;
        if (!prefix.empty() && o_.stem_fields) {
          exp_prefix = "@";
          std::vector<std::string> fs = o_.stem_fields(n);
          for (size_t i = 0; i < fs.size(); i++) {
            if (i) exp_prefix += "|";
            exp_prefix += fs[i];
          }
          exp_prefix += ":";
        }
        out += "UNION {\n";
        Pad(out, depth + 1);
        out += prefix + folded + weight + "\n";
        Pad(out, depth + 1);
        out += exp_prefix + "+" + stem + "(expanded)\n";
        if (stem != folded) {
          Pad(out, depth + 1);
          out += exp_prefix + stem + "(expanded)\n";
        }
        Pad(out, depth);
        out += "}\n";
        return;
      }
      case NodeKind::kPhrase:
        out += "EXACT {\n";
        for (const auto& w : n.phrase_terms) {
          Pad(out, depth + 1);
          out += prefix + Fold(w) + "\n";
        }
        break;
      case NodeKind::kIntersect:
      case NodeKind::kUnion:
      case NodeKind::kNot:
      case NodeKind::kOptional:
        out += n.kind == NodeKind::kIntersect ? "INTERSECT {\n"
               : n.kind == NodeKind::kUnion   ? "UNION {\n"
               : n.kind == NodeKind::kNot     ? "NOT{\n"
                                              : "OPTIONAL{\n";
        for (const auto& c : n.children) Dump(out, *c, depth + 1);
        break;
      case NodeKind::kPrefix:
        out += "PREFIX{" + Fold(n.term) + "*}" + Attrs(n) + "\n";
        return;
      case NodeKind::kSuffix:
        out += "SUFFIX{*" + Fold(n.term) + "}" + Attrs(n) + "\n";
        return;
      case NodeKind::kInfix:
        out += "INFIX{*" + Fold(n.term) + "*}" + Attrs(n) + "\n";
        return;
      case NodeKind::kWildcard:
        out += "WILDCARD{" + n.term + "}" + Attrs(n) + "\n";
        return;
      case NodeKind::kFuzzy:
        out += "FUZZY{" + Fold(n.term) + "}" + Attrs(n) + "\n";
        return;
      case NodeKind::kTag:
        out += "TAG:@" + (n.fields.empty() ? std::string() : n.fields[0]) + " {\n";
        for (const auto& t : n.tags) {
          Pad(out, depth + 1);
          if (t.phrase) {
            out += "INTERSECT {\n";
            size_t start = 0;
            std::string_view raw = t.raw;
            while (start <= raw.size()) {
              size_t sp = raw.find(' ', start);
              if (sp == std::string_view::npos) sp = raw.size();
              Pad(out, depth + 2);
              out += std::string(raw.substr(start, sp - start)) + "\n";
              start = sp + 1;
            }
            Pad(out, depth + 1);
            out += "}\n";
            continue;
          }
          switch (t.match) {
            case TagValue::Match::kExact: out += t.raw; break;
            case TagValue::Match::kPrefix: out += "PREFIX{" + t.raw + "*}"; break;
            case TagValue::Match::kSuffix: out += "SUFFIX{*" + t.raw + "}"; break;
            case TagValue::Match::kInfix: out += "INFIX{*" + t.raw + "*}"; break;
          }
          out += "\n";
        }
        break;
      case NodeKind::kNumeric:
        out += "NUMERIC {" + FormatF(n.num_min) + (n.min_exclusive ? " < @" : " <= @") +
               (n.fields.empty() ? std::string() : n.fields[0]) + (n.max_exclusive ? " < " : " <= ") +
               FormatF(n.num_max) + "}" + Attrs(n) + "\n";
        return;
      case NodeKind::kGeo: {
        double factor = n.unit == "km" ? 1000 : n.unit == "mi" ? 1609.34 : n.unit == "ft" ? 0.3048 : 1;
        out += "GEO " + (n.fields.empty() ? std::string() : n.fields[0]) + ":{" + FormatF(n.lon) + "," +
               FormatF(n.lat) + " --> " + FormatF(n.radius_m / factor) + " " + n.unit + "}" + Attrs(n) +
               "\n";
        return;
      }
      case NodeKind::kVectorRange:
        out += "VECTOR {Vectors that are within " +
               (n.vector_radius_text.empty() ? FormatG(n.vector_radius) : n.vector_radius_text) +
               " distance radius from `$" + n.vector_param +
               "` in vector index associated with field @" +
               (n.fields.empty() ? std::string() : n.fields[0]);
        if (n.vector_epsilon) out += ", EPSILON = " + FormatG(*n.vector_epsilon);
        if (!n.yield_distance_as.empty()) out += ", yields distance as `" + n.yield_distance_as + "`";
        out += "}\n";
        return;
      case NodeKind::kIsMissing:
        out += "ISMISSING{" + (n.fields.empty() ? std::string() : n.fields[0]) + "}" + Attrs(n) + "\n";
        return;
      case NodeKind::kMatchAll:
        out += "<WILDCARD>\n";
        return;
      case NodeKind::kEmpty:
        out += "<empty>\n";
        return;
    }
    Pad(out, depth);
    out += "}" + Attrs(n) + "\n";
  }

 private:
  const ExplainOptions& o_;
};

std::string KnnText(const KnnClause& k) {
  std::string s = "K=" + std::to_string(k.k) + " nearest vectors to `$" + k.blob_param +
                  "` in vector index associated with field @" + k.field;
  for (const auto& [name, value] : k.attributes) s += ", " + name + " = " + value;
  s += ", yields distance as `" + (k.score_alias.empty() ? "__" + k.field + "_score" : k.score_alias) + "`";
  return s;
}

// The common vector query "*=>[KNN k @field $blob [EF_RUNTIME ef] [AS alias]]" (dialect
// >= 2) read in one pass, without tokens or parse tree: what the full parser gives for
// it, or false for anything else — other spellings, parameters that are missing or not
// plain numbers, other attributes, escapes, bytes >= 0x80 — which the parser then reads
// (query_parser_test.cc compares both on many spellings). Names are [A-Za-z0-9_]+;
// tokens are separated by white space, except around "=>", "[" and "]".
class PureKnnReader {
 public:
  PureKnnReader(std::string_view s, const QueryParams& params) : s_(s), params_(params) {}

  bool Read(Query* q) {
    KnnClause knn;
    SkipSpace();
    if (!Take('*')) return false;
    SkipSpace();
    if (!Take('=') || !Take('>')) return false;
    SkipSpace();
    if (!Take('[')) return false;
    SkipSpace();
    std::string_view word = Name();
    if (!EqualsNoCase(word, "KNN") || !Space()) return false;
    // k: digits or $param holding digits.
    if (Peek() == '$') {
      i_++;
      const std::string* v = ParamValue(Name());
      if (v == nullptr || !ParseUint(*v, &knn.k)) return false;
    } else {
      std::string_view digits = Digits();
      if (digits.empty() || !ParseUint(digits, &knn.k)) return false;
    }
    if (!Space()) return false;
    if (!Take('@')) return false;
    std::string_view field = Name();
    if (field.empty() || !Space()) return false;
    if (!Take('$')) return false;
    std::string_view blob_param = Name();
    const std::string* blob = ParamValue(blob_param);
    if (blob == nullptr) return false;
    while (true) {
      const bool spaced = Space();
      if (Peek() == ']') break;
      if (!spaced) return false;
      std::string_view name = Name();
      if (!Space()) return false;
      if (EqualsNoCase(name, "AS")) {
        std::string_view alias = Name();
        if (alias.empty()) return false;
        knn.score_alias = std::string(alias);
        SkipSpace();
        break;
      }
      if (!EqualsNoCase(name, "EF_RUNTIME")) return false;
      std::string value;
      uint64_t ef;
      if (Peek() == '$') {
        i_++;
        const std::string* v = ParamValue(Name());
        if (v == nullptr || !ParseUint(*v, &ef)) return false;
        value = *v;
      } else {
        std::string_view digits = Digits();
        if (digits.empty() || !ParseUint(digits, &ef)) return false;
        value = std::string(digits);
      }
      knn.ef_runtime = ef;
      knn.attributes.emplace_back(std::string(name), std::move(value));
    }
    if (!Take(']')) return false;
    SkipSpace();
    if (i_ != s_.size()) return false;
    knn.field = std::string(field);
    knn.vector_blob = *blob;
    knn.blob_param = std::string(blob_param);
    knn.has_filter = false;
    q->root = NewNode(NodeKind::kMatchAll);
    q->knn = std::move(knn);
    return true;
  }

 private:
  static bool NameByte(unsigned char c) { return c < 0x80 && (std::isalnum(c) || c == '_'); }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool Take(char c) {
    if (Peek() != c) return false;
    i_++;
    return true;
  }
  void SkipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) i_++;
  }
  // At least one white-space byte.
  bool Space() {
    const size_t at = i_;
    SkipSpace();
    return i_ > at;
  }
  // [A-Za-z0-9_]+ up to a byte that ends a term for the lexer (white space or one of
  // "[]" here); empty when the name would run on into anything else.
  std::string_view Name() {
    const size_t at = i_;
    while (i_ < s_.size() && NameByte(static_cast<unsigned char>(s_[i_]))) i_++;
    if (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) && s_[i_] != ']') {
      i_ = at;
      return {};
    }
    return s_.substr(at, i_ - at);
  }
  // 1-19 digits followed by white space or ']'.
  std::string_view Digits() {
    const size_t at = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') i_++;
    if (i_ == at || i_ - at > 19 ||
        (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) && s_[i_] != ']')) {
      i_ = at;
      return {};
    }
    return s_.substr(at, i_ - at);
  }
  const std::string* ParamValue(std::string_view name) const {
    if (name.empty()) return nullptr;
    auto it = params_.find(std::string(name));
    return it == params_.end() ? nullptr : &it->second;
  }

  std::string_view s_;
  const QueryParams& params_;
  size_t i_ = 0;
};

}  // namespace

Result<Query> ParseQuery(std::string_view text, const QueryParams& params, const ParseOptions& options) {
  if (options.dialect < 1 || options.dialect > 4) {
    return Status::InvalidArgument("DIALECT requires a non negative integer >=1 and <= 4");
  }
  if (options.dialect >= 2 && !options.no_fast_path) {
    Query q;
    if (PureKnnReader(text, params).Read(&q)) {
      return q;
    }
  }
  Parser parser(text, params, options);
  return parser.Run();
}

std::string ExplainQuery(const Query& query, const ExplainOptions& options) {
  Explainer ex(options);
  std::string out;
  if (query.knn) {
    if (query.knn->has_filter && query.root) {
      out += "VECTOR {\n";
      ex.Dump(out, *query.root, 1);
      out += "} => {" + KnnText(*query.knn) + "}\n";
    } else {
      out += "VECTOR {" + KnnText(*query.knn) + "}\n";
    }
    return out;
  }
  if (query.root) ex.Dump(out, *query.root, 0);
  return out;
}

std::string ExplainQuery(const Query& query) { return ExplainQuery(query, ExplainOptions{}); }

}  // namespace hotkv::search

// The JSON parser behind JSON.SET and friends: one pass, recursive descent into
// json::Node with a depth limit. Error texts follow Redis (whose JSON module reports
// serde_json's messages: "<what> at line L column C"); the column is that of the
// offending byte, or of the last byte read for the "EOF while ..." errors.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "common/utf8.h"
#include "json/json_node.h"

namespace hotkv::json {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<Node> Document() {
    Node root;
    if (!Value(&root, 0)) {
      return Status::InvalidArgument(error_);
    }
    SkipSpace();
    if (pos_ < s_.size()) {
      return Status::InvalidArgument(At("trailing characters", pos_));
    }
    return root;
  }

  // ParseTopLevelMember (json_node.h).
  std::optional<Node> TopLevelMember(std::string_view key) {
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '{') {
      return std::nullopt;
    }
    pos_++;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      return std::nullopt;
    }
    std::string unescaped;
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') {
        return std::nullopt;
      }
      const size_t key_start = pos_ + 1;
      unescaped.clear();
      if (!String(&unescaped)) {
        return std::nullopt;
      }
      const std::string_view raw = s_.substr(key_start, pos_ - 1 - key_start);
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') {
        return std::nullopt;
      }
      pos_++;
      Node v;
      if (!Value(&v, 1)) {
        return std::nullopt;
      }
      if (raw == key) {
        return v;
      }
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ',') {
        return std::nullopt;  // '}' (no such member) or malformed
      }
      pos_++;
    }
  }

 private:
  // "msg at line L column C" for the byte at `index` (1-based column).
  std::string At(std::string_view msg, size_t index) const {
    size_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < index && i < s_.size(); i++) {
      if (s_[i] == '\n') {
        line++;
        line_start = i + 1;
      }
    }
    size_t column = index - line_start + 1;
    return std::string(msg) + " at line " + std::to_string(line) + " column " +
           std::to_string(column);
  }
  bool Fail(std::string_view msg, size_t index) {
    error_ = At(msg, index);
    return false;
  }
  // EOF errors point at the last byte read (column 0 on an empty line).
  bool FailEof(std::string_view msg) {
    size_t line = 1;
    size_t column = 0;
    for (char c : s_) {
      if (c == '\n') {
        line++;
        column = 0;
      } else {
        column++;
      }
    }
    error_ =
        std::string(msg) + " at line " + std::to_string(line) + " column " + std::to_string(column);
    return false;
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        return;
      }
      pos_++;
    }
  }

  bool Value(Node* out, int depth) {
    SkipSpace();
    if (pos_ >= s_.size()) {
      return FailEof("EOF while parsing a value");
    }
    char c = s_[pos_];
    switch (c) {
      case 'n':
        return Ident("null", Node::Null(), out);
      case 't':
        return Ident("true", Node::Bool(true), out);
      case 'f':
        return Ident("false", Node::Bool(false), out);
      case '"': {
        std::string str;
        if (!String(&str)) {
          return false;
        }
        *out = Node::String(str);
        return true;
      }
      case '[':
        return ArrayValue(out, depth);
      case '{':
        return ObjectValue(out, depth);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return Number(out);
        }
        return Fail("expected value", pos_);
    }
  }

  bool Ident(std::string_view word, Node value, Node* out) {
    for (size_t i = 0; i < word.size(); i++) {
      if (pos_ + i >= s_.size()) {
        return FailEof("EOF while parsing a value");
      }
      if (s_[pos_ + i] != word[i]) {
        return Fail("expected ident", pos_ + i);
      }
    }
    pos_ += word.size();
    *out = std::move(value);
    return true;
  }

  bool Number(Node* out) {
    size_t start = pos_;
    bool is_float = false;
    if (s_[pos_] == '-') {
      pos_++;
    }
    auto digit = [&](size_t i) { return i < s_.size() && s_[i] >= '0' && s_[i] <= '9'; };
    if (!digit(pos_)) {
      return pos_ >= s_.size() ? FailEof("EOF while parsing a value")
                               : Fail("invalid number", pos_);
    }
    if (s_[pos_] == '0') {
      pos_++;
      if (digit(pos_)) {
        return Fail("invalid number", pos_);
      }
    } else {
      while (digit(pos_)) {
        pos_++;
      }
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      pos_++;
      if (!digit(pos_)) {
        return pos_ >= s_.size() ? FailEof("EOF while parsing a value")
                                 : Fail("invalid number", pos_);
      }
      while (digit(pos_)) {
        pos_++;
      }
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_float = true;
      pos_++;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        pos_++;
      }
      if (!digit(pos_)) {
        return pos_ >= s_.size() ? FailEof("EOF while parsing a value")
                                 : Fail("invalid number", pos_);
      }
      while (digit(pos_)) {
        pos_++;
      }
    }
    std::string_view text = s_.substr(start, pos_ - start);
    if (!is_float) {
      int64_t v;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec == std::errc()) {
        *out = Node::Int(v);
        return true;
      }
      // Past int64: kept as a double (Redis keeps u64 exact; see docs/json.md).
    }
    std::string copy(text);
    errno = 0;
    double d = std::strtod(copy.c_str(), nullptr);
    if (!std::isfinite(d)) {
      return Fail("number out of range", start);
    }
    *out = Node::Double(d);
    return true;
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  bool Hex4(uint32_t* cp) {
    *cp = 0;
    for (int i = 0; i < 4; i++) {
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing a string");
      }
      int h = Hex(s_[pos_]);
      if (h < 0) {
        return Fail("invalid escape", pos_);
      }
      *cp = (*cp << 4) | static_cast<uint32_t>(h);
      pos_++;
    }
    return true;
  }

  // A string literal at s_[pos_] == '"'; unescaped into *out.
  bool String(std::string* out) {
    pos_++;
    size_t run = pos_;
    while (true) {
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing a string");
      }
      auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        out->append(s_.data() + run, pos_ - run);
        pos_++;
        return true;
      }
      if (c < 0x20) {
        return Fail("control character (\\u0000-\\u001F) found while parsing a string", pos_);
      }
      if (c != '\\') {
        pos_++;
        continue;
      }
      out->append(s_.data() + run, pos_ - run);
      pos_++;
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing a string");
      }
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) {
            return false;
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') {
              return pos_ >= s_.size() ? FailEof("EOF while parsing a string")
                                       : Fail("unexpected end of hex escape", pos_);
            }
            pos_ += 2;
            uint32_t low;
            if (!Hex4(&low)) {
              return false;
            }
            if (low < 0xDC00 || low > 0xDFFF) {
              return Fail("lone leading surrogate in hex escape", pos_ - 1);
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("lone leading surrogate in hex escape", pos_ - 1);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Fail("invalid escape", pos_ - 1);
      }
      run = pos_;
    }
  }

  bool ArrayValue(Node* out, int depth) {
    if (depth + 1 >= kMaxDepth) {
      error_ = "ERR recursion limit exceeded";
      return false;
    }
    pos_++;
    Node arr = Node::Array();
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      pos_++;
      *out = std::move(arr);
      return true;
    }
    while (true) {
      Node v;
      if (!Value(&v, depth + 1)) {
        return false;
      }
      arr.array().push_back(std::move(v));
      SkipSpace();
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing a list");
      }
      char c = s_[pos_];
      if (c == ']') {
        pos_++;
        arr.array().shrink_to_fit();  // exact size: a document is mostly read, not grown
        *out = std::move(arr);
        return true;
      }
      if (c != ',') {
        return Fail("expected `,` or `]`", pos_);
      }
      pos_++;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        return Fail("trailing comma", pos_);
      }
    }
  }

  bool ObjectValue(Node* out, int depth) {
    if (depth + 1 >= kMaxDepth) {
      error_ = "ERR recursion limit exceeded";
      return false;
    }
    pos_++;
    Node obj = Node::Object();
    static constexpr size_t kIndexAfter = 16;
    std::unordered_map<std::string, size_t> index;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      pos_++;
      *out = std::move(obj);
      return true;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing an object");
      }
      if (s_[pos_] != '"') {
        return Fail(s_[pos_] == '}' ? "trailing comma" : "key must be a string", pos_);
      }
      std::string key;
      if (!String(&key)) {
        return false;
      }
      SkipSpace();
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing an object");
      }
      if (s_[pos_] != ':') {
        return Fail("expected `:`", pos_);
      }
      pos_++;
      Node v;
      if (!Value(&v, depth + 1)) {
        return false;
      }
      // A repeated key keeps its first position and takes the last value (serde_json).
      // Large objects check repeats with a hash index (linear Set would be quadratic).
      auto& ms = obj.members();
      if (index.empty() && ms.size() < kIndexAfter) {
        obj.Set(key, std::move(v));
        if (ms.size() == kIndexAfter) {
          for (size_t i = 0; i < ms.size(); i++) {
            index.emplace(std::string(ms[i].key.str()), i);
          }
        }
      } else {
        auto [it, inserted] = index.try_emplace(key, ms.size());
        if (inserted) {
          ms.push_back(Member{Node::String(key), std::move(v)});
        } else {
          ms[it->second].value = std::move(v);
        }
      }
      SkipSpace();
      if (pos_ >= s_.size()) {
        return FailEof("EOF while parsing an object");
      }
      char c = s_[pos_];
      if (c == '}') {
        pos_++;
        obj.members().shrink_to_fit();
        *out = std::move(obj);
        return true;
      }
      if (c != ',') {
        return Fail("expected `,` or `}`", pos_);
      }
      pos_++;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<Node> Parse(std::string_view text) { return Parser(text).Document(); }

std::optional<Node> ParseTopLevelMember(std::string_view text, std::string_view key) {
  return Parser(text).TopLevelMember(key);
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) {
      return false;
    }
    for (size_t k = 1; k < len; k++) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) {
        return false;
      }
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace hotkv::json

#include "vector/json.h"

#include <charconv>
#include <cstdlib>
#include <cstdint>

namespace hotkv::vector {
namespace {

// Recursive-descent parser. With a null output pointer a value is validated and
// skipped without allocating.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  const std::string& error() const { return error_; }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        break;
      }
      ++pos_;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool ParseValue(JsonValue* out, int depth) {
    if (depth > kMaxJsonDepth) {
      return Fail("nesting too deep");
    }
    SkipSpace();
    if (pos_ >= text_.size()) {
      return Fail("unexpected end of input");
    }
    const char c = text_[pos_];
    switch (c) {
      case '{':
        return ParseObject(out, depth);
      case '[':
        return ParseArray(out, depth);
      case '"': {
        std::string* s = nullptr;
        if (out != nullptr) {
          out->type = JsonValue::Type::kString;
          s = &out->string;
        }
        return ParseString(s);
      }
      case 't':
        return ParseLiteral("true", out, JsonValue::Type::kBool, true);
      case 'f':
        return ParseLiteral("false", out, JsonValue::Type::kBool, false);
      case 'n':
        return ParseLiteral("null", out, JsonValue::Type::kNull, false);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return ParseNumber(out);
        }
        return Fail("unexpected character");
    }
  }

  // Parses a string starting at '"'; appends the unescaped text to `out` if non-null.
  bool ParseString(std::string* out) {
    ++pos_;  // Opening quote.
    while (pos_ < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') {
        return true;
      }
      if (c < 0x20) {
        return Fail("control character in string");
      }
      if (c != '\\') {
        if (out != nullptr) {
          out->push_back(static_cast<char>(c));
        }
        continue;
      }
      if (pos_ >= text_.size()) {
        break;
      }
      const char e = text_[pos_++];
      char plain = 0;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          plain = e;
          break;
        case 'b':
          plain = '\b';
          break;
        case 'f':
          plain = '\f';
          break;
        case 'n':
          plain = '\n';
          break;
        case 'r':
          plain = '\r';
          break;
        case 't':
          plain = '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!ParseHex4(&cp)) {
            return Fail("bad \\u escape");
          }
          if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t low = 0;
            if (pos_ + 1 < text_.size() && text_[pos_] == '\\' && text_[pos_ + 1] == 'u') {
              pos_ += 2;
              if (!ParseHex4(&low) || low < 0xdc00 || low > 0xdfff) {
                return Fail("bad surrogate pair");
              }
              cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            } else {
              return Fail("lone surrogate");
            }
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return Fail("lone surrogate");
          }
          if (out != nullptr) {
            AppendUtf8(cp, out);
          }
          continue;
        }
        default:
          return Fail("bad escape");
      }
      if (out != nullptr) {
        out->push_back(plain);
      }
    }
    return Fail("unterminated string");
  }

 private:
  bool Fail(const char* what) {
    if (error_.empty()) {
      error_ = std::string(what) + " at offset " + std::to_string(pos_);
    }
    return false;
  }

  bool ParseHex4(uint32_t* cp) {
    if (pos_ + 4 > text_.size()) {
      return false;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9') {
        v |= static_cast<uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        v |= static_cast<uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        v |= static_cast<uint32_t>(h - 'A' + 10);
      } else {
        return false;
      }
    }
    *cp = v;
    return true;
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  bool ParseLiteral(std::string_view word, JsonValue* out, JsonValue::Type type, bool value) {
    if (text_.substr(pos_, word.size()) != word) {
      return Fail("unexpected character");
    }
    pos_ += word.size();
    if (out != nullptr) {
      out->type = type;
      out->boolean = value;
    }
    return true;
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  bool ParseNumber(JsonValue* out) {
    const size_t start = pos_;
    if (text_[pos_] == '-') {
      ++pos_;
    }
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
      return Fail("bad number");
    }
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        return Fail("bad number");
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        return Fail("bad number");
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (out != nullptr) {
      double v = 0.0;
      auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
      if (ec != std::errc()) {
        // Out of range: let strtod pick +-inf (overflow) or 0 / denormal (underflow).
        std::string copy(text_.substr(start, pos_ - start));
        v = std::strtod(copy.c_str(), nullptr);
      }
      (void)ptr;
      out->type = JsonValue::Type::kNumber;
      out->number = v;
    }
    return true;
  }

  bool ParseArray(JsonValue* out, int depth) {
    ++pos_;  // '['
    if (out != nullptr) {
      out->type = JsonValue::Type::kArray;
    }
    if (Consume(']')) {
      return true;
    }
    for (;;) {
      JsonValue* elem = nullptr;
      if (out != nullptr) {
        out->array.emplace_back();
        elem = &out->array.back();
      }
      if (!ParseValue(elem, depth + 1)) {
        return false;
      }
      if (Consume(']')) {
        return true;
      }
      if (!Consume(',')) {
        return Fail("expected ',' or ']'");
      }
    }
  }

  bool ParseObject(JsonValue* out, int depth) {
    ++pos_;  // '{'
    if (out != nullptr) {
      out->type = JsonValue::Type::kObject;
    }
    if (Consume('}')) {
      return true;
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        return Fail("expected object key");
      }
      std::string key;
      if (!ParseString(out != nullptr ? &key : nullptr)) {
        return false;
      }
      if (!Consume(':')) {
        return Fail("expected ':'");
      }
      JsonValue* value = nullptr;
      if (out != nullptr) {
        out->object.emplace_back(std::move(key), JsonValue());
        value = &out->object.back().second;
      }
      if (!ParseValue(value, depth + 1)) {
        return false;
      }
      if (Consume('}')) {
        return true;
      }
      if (!Consume(',')) {
        return Fail("expected ',' or '}'");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<JsonValue> ParseJson(std::string_view text) {
  Parser p(text);
  JsonValue value;
  if (!p.ParseValue(&value, 0)) {
    return Status::InvalidArgument("invalid JSON: " + p.error());
  }
  if (!p.AtEnd()) {
    return Status::InvalidArgument("invalid JSON: trailing characters at offset " +
                                   std::to_string(p.pos()));
  }
  return value;
}

Status ValidateJsonObject(std::string_view text) {
  Parser p(text);
  p.SkipSpace();
  if (!p.Consume('{')) {
    return Status::InvalidArgument("attributes must be a JSON object");
  }
  Parser full(text);
  if (!full.ParseValue(nullptr, 0)) {
    return Status::InvalidArgument("invalid JSON: " + full.error());
  }
  if (!full.AtEnd()) {
    return Status::InvalidArgument("invalid JSON: trailing characters at offset " +
                                   std::to_string(full.pos()));
  }
  return Status::Ok();
}

std::optional<JsonValue> ExtractTopLevelField(std::string_view json, std::string_view name) {
  Parser p(json);
  if (!p.Consume('{')) {
    return std::nullopt;
  }
  if (p.Consume('}')) {
    return std::nullopt;
  }
  std::string key;
  for (;;) {
    p.SkipSpace();
    if (p.AtEnd() || json[p.pos()] != '"') {
      return std::nullopt;
    }
    key.clear();
    if (!p.ParseString(&key)) {
      return std::nullopt;
    }
    if (!p.Consume(':')) {
      return std::nullopt;
    }
    if (key == name) {
      JsonValue value;
      if (!p.ParseValue(&value, 1)) {
        return std::nullopt;
      }
      return value;
    }
    if (!p.ParseValue(nullptr, 1)) {
      return std::nullopt;
    }
    if (p.Consume('}')) {
      return std::nullopt;
    }
    if (!p.Consume(',')) {
      return std::nullopt;
    }
  }
}

}  // namespace hotkv::vector

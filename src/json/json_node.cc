#include "json/json_node.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace hotkv::json {

Node Node::String(std::string_view s) {
  Node n;
  n.kind_ = Kind::kString;
  if (s.size() <= kInlineMax) {
    n.small_len_ = static_cast<uint8_t>(s.size());
    if (!s.empty()) {
      memcpy(n.inline_chars(), s.data(), s.size());
    }
  } else {
    n.small_len_ = kHeapString;
    auto len = static_cast<uint32_t>(s.size());
    n.u_.s = static_cast<char*>(malloc(4 + s.size()));
    memcpy(n.u_.s, &len, 4);
    memcpy(n.u_.s + 4, s.data(), s.size());
  }
  return n;
}

Node Node::Array() {
  Node n;
  n.kind_ = Kind::kArray;
  n.u_.a = new std::vector<Node>();
  return n;
}

Node Node::Object() {
  Node n;
  n.kind_ = Kind::kObject;
  n.u_.o = new std::vector<Member>();
  return n;
}

std::string_view Node::str() const {
  if (small_len_ != kHeapString) {
    return {inline_chars(), small_len_};
  }
  uint32_t len;
  memcpy(&len, u_.s, 4);
  return {u_.s + 4, len};
}

void Node::Reset() {
  switch (kind_) {
    case Kind::kString:
      if (small_len_ == kHeapString) {
        free(u_.s);
      }
      break;
    case Kind::kArray:
      delete u_.a;
      break;
    case Kind::kObject:
      delete u_.o;
      break;
    default:
      break;
  }
  kind_ = Kind::kNull;
  small_len_ = 0;
}

Node* Node::Find(std::string_view key) {
  for (Member& m : *u_.o) {
    if (m.key.str() == key) {
      return &m.value;
    }
  }
  return nullptr;
}

const Node* Node::Find(std::string_view key) const { return const_cast<Node*>(this)->Find(key); }

void Node::Set(std::string_view key, Node value) {
  if (Node* v = Find(key)) {
    *v = std::move(value);
    return;
  }
  u_.o->push_back(Member{Node::String(key), std::move(value)});
}

bool Node::Erase(std::string_view key) {
  auto& ms = *u_.o;
  for (size_t i = 0; i < ms.size(); i++) {
    if (ms[i].key.str() == key) {
      ms.erase(ms.begin() + static_cast<ptrdiff_t>(i));
      return true;
    }
  }
  return false;
}

Node Node::Clone() const {
  switch (kind_) {
    case Kind::kString:
      return String(str());
    case Kind::kArray: {
      Node n = Array();
      n.u_.a->reserve(u_.a->size());
      for (const Node& c : *u_.a) {
        n.u_.a->push_back(c.Clone());
      }
      return n;
    }
    case Kind::kObject: {
      Node n = Object();
      n.u_.o->reserve(u_.o->size());
      for (const Member& m : *u_.o) {
        n.u_.o->push_back(Member{m.key.Clone(), m.value.Clone()});
      }
      return n;
    }
    default: {
      Node n;
      memcpy(static_cast<void*>(&n), this, sizeof(Node));
      return n;
    }
  }
}

size_t Node::MemoryUsage() const {
  switch (kind_) {
    case Kind::kString:
      return small_len_ == kHeapString ? malloc_usable_size(u_.s) : 0;
    case Kind::kArray: {
      size_t total = sizeof(std::vector<Node>) + u_.a->capacity() * sizeof(Node);
      for (const Node& c : *u_.a) {
        total += c.MemoryUsage();
      }
      return total;
    }
    case Kind::kObject: {
      size_t total = sizeof(std::vector<Member>) + u_.o->capacity() * sizeof(Member);
      for (const Member& m : *u_.o) {
        total += m.key.MemoryUsage() + m.value.MemoryUsage();
      }
      return total;
    }
    default:
      return 0;
  }
}

int Node::Depth() const {
  int best = 0;
  if (kind_ == Kind::kArray) {
    for (const Node& c : *u_.a) {
      best = std::max(best, c.Depth());
    }
    return best + 1;
  }
  if (kind_ == Kind::kObject) {
    for (const Member& m : *u_.o) {
      best = std::max(best, m.value.Depth());
    }
    return best + 1;
  }
  return 0;
}

std::string_view Node::TypeName() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kFalse:
    case Kind::kTrue:
      return "boolean";
    case Kind::kInt:
      return "integer";
    case Kind::kDouble:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kArray:
      return "array";
    case Kind::kObject:
      return "object";
  }
  return "null";
}

bool Equal(const Node& a, const Node& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind() == Kind::kInt && b.kind() == Kind::kInt) {
      return a.int_value() == b.int_value();
    }
    return a.number() == b.number();
  }
  if (a.kind() != b.kind()) {
    return false;
  }
  switch (a.kind()) {
    case Kind::kString:
      return a.str() == b.str();
    case Kind::kArray: {
      const auto& x = a.array();
      const auto& y = b.array();
      if (x.size() != y.size()) {
        return false;
      }
      for (size_t i = 0; i < x.size(); i++) {
        if (!Equal(x[i], y[i])) {
          return false;
        }
      }
      return true;
    }
    case Kind::kObject: {
      if (a.members().size() != b.members().size()) {
        return false;
      }
      for (const Member& m : a.members()) {
        const Node* other = b.Find(m.key.str());
        if (other == nullptr || !Equal(m.value, *other)) {
          return false;
        }
      }
      return true;
    }
    default:
      return true;
  }
}

// ---- Serialization ----

void AppendDouble(double v, std::string* out) {
  // Shortest round-trip digits, laid out as Redis (serde_json / ryu) does: value =
  // digits x 10^k; with kk = ndigits + k, plain notation for -5 < kk <= 16, else an
  // exponent.
  if (v == 0) {
    out->append(std::signbit(v) ? "-0.0" : "0.0");
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));  // [-]d[.ddd]e[+-]xx
  bool neg = sci[0] == '-';
  if (neg) {
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  digits.push_back(sci[0]);
  if (e > 1) {
    digits.append(sci.substr(2, e - 2));
  }
  int exp10 = std::atoi(std::string(sci.substr(e + 1)).c_str());
  int n = static_cast<int>(digits.size());
  int k = exp10 - (n - 1);
  int kk = n + k;
  if (neg) {
    out->push_back('-');
  }
  if (k >= 0 && kk <= 16) {
    out->append(digits);
    out->append(static_cast<size_t>(k), '0');
    out->append(".0");
  } else if (kk > 0 && kk <= 16) {
    out->append(digits, 0, static_cast<size_t>(kk));
    out->push_back('.');
    out->append(digits, static_cast<size_t>(kk));
  } else if (kk > -5 && kk <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-kk), '0');
    out->append(digits);
  } else {
    out->push_back(digits[0]);
    if (n > 1) {
      out->push_back('.');
      out->append(digits, 1);
    }
    out->push_back('e');
    out->append(std::to_string(kk - 1));
  }
}

void AppendQuoted(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); i++) {
    auto c = static_cast<unsigned char>(s[i]);
    const char* esc = nullptr;
    switch (c) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      default:
        break;
    }
    if (esc == nullptr && c >= 0x20) {
      continue;
    }
    out->append(s.data() + run, i - run);
    run = i + 1;
    if (esc != nullptr) {
      out->append(esc);
    } else {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void NewlineIndent(const Format& f, int level, std::string* out) {
  out->append(f.newline);
  for (int i = 0; i < level; i++) {
    out->append(f.indent);
  }
}

void SerializeAt(const Node& n, const Format& f, int level, std::string* out) {
  switch (n.kind()) {
    case Kind::kNull:
      out->append("null");
      return;
    case Kind::kFalse:
      out->append("false");
      return;
    case Kind::kTrue:
      out->append("true");
      return;
    case Kind::kInt: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof(buf), n.int_value());
      out->append(buf, static_cast<size_t>(r.ptr - buf));
      return;
    }
    case Kind::kDouble:
      AppendDouble(n.double_value(), out);
      return;
    case Kind::kString:
      AppendQuoted(n.str(), out);
      return;
    case Kind::kArray: {
      const auto& a = n.array();
      out->push_back('[');
      if (a.empty()) {
        out->push_back(']');
        return;
      }
      for (size_t i = 0; i < a.size(); i++) {
        if (i > 0) {
          out->push_back(',');
        }
        NewlineIndent(f, level + 1, out);
        SerializeAt(a[i], f, level + 1, out);
      }
      NewlineIndent(f, level, out);
      out->push_back(']');
      return;
    }
    case Kind::kObject: {
      const auto& ms = n.members();
      out->push_back('{');
      if (ms.empty()) {
        out->push_back('}');
        return;
      }
      for (size_t i = 0; i < ms.size(); i++) {
        if (i > 0) {
          out->push_back(',');
        }
        NewlineIndent(f, level + 1, out);
        AppendQuoted(ms[i].key.str(), out);
        out->push_back(':');
        out->append(f.space);
        SerializeAt(ms[i].value, f, level + 1, out);
      }
      NewlineIndent(f, level, out);
      out->push_back('}');
      return;
    }
  }
}

void Serialize(const Node& n, const Format& f, std::string* out) { SerializeAt(n, f, 0, out); }

}  // namespace hotkv::json

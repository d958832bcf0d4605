#include "json/json_node.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "json/json_writer.h"

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

void Node::ReleaseHeap() {
  switch (kind_) {
    case Kind::kString:
      if (small_len_ == kHeapString) {
        free(u_.s);
      }
      break;
    case Kind::kArray:
      if (small_len_ == kPacked) {
        free(u_.s);
      } else {
        delete u_.a;
      }
      break;
    case Kind::kObject:
      if (small_len_ == kPacked) {
        free(u_.s);
      } else {
        delete u_.o;
      }
      break;
    default:
      break;
  }
}

Node* Node::Find(std::string_view key) {
  EnsureTree();
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
  auto& ms = members();
  for (size_t i = 0; i < ms.size(); i++) {
    if (ms[i].key.str() == key) {
      ms.erase(ms.begin() + static_cast<ptrdiff_t>(i));
      return true;
    }
  }
  return false;
}

Node Node::Clone() const {
  if (packed()) {
    Node n;
    std::string_view b = packed_bytes();
    n.kind_ = kind_;
    n.small_len_ = kPacked;
    n.u_.s = static_cast<char*>(malloc(4 + b.size()));
    memcpy(n.u_.s, u_.s, 4 + b.size());
    return n;
  }
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
  if (packed()) {
    return malloc_usable_size(u_.s);
  }
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
  EnsureTree();
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
  char buf[40];
  out->append(buf, FormatDouble(v, buf));
}

size_t FormatDouble(double v, char* out_buf) {
  // Shortest round-trip digits, laid out as Redis (serde_json / ryu) does: value =
  // digits x 10^k; with kk = ndigits + k, plain notation for -5 < kk <= 16, else an
  // exponent.
  if (v == 0) {
    const char* z = std::signbit(v) ? "-0.0" : "0.0";
    memcpy(out_buf, z, strlen(z));
    return strlen(z);
  }
  char sci_buf[40];
  auto res = std::to_chars(sci_buf, sci_buf + sizeof(sci_buf), v, std::chars_format::scientific);
  const char* p = sci_buf;  // [-]d[.ddd]e[+-]xx
  const char* end = res.ptr;
  char* o = out_buf;
  if (*p == '-') {
    *o++ = '-';
    p++;
  }
  char digits[20];
  int n = 0;
  digits[n++] = *p++;
  if (*p == '.') {
    p++;
    while (*p != 'e') {
      digits[n++] = *p++;
    }
  }
  p++;  // 'e'
  bool exp_neg = *p == '-';
  p++;  // sign
  int exp10 = 0;
  while (p < end) {
    exp10 = exp10 * 10 + (*p++ - '0');
  }
  if (exp_neg) {
    exp10 = -exp10;
  }
  const int k = exp10 - (n - 1);
  const int kk = n + k;
  if (k >= 0 && kk <= 16) {
    memcpy(o, digits, static_cast<size_t>(n));
    o += n;
    memset(o, '0', static_cast<size_t>(k));
    o += k;
    *o++ = '.';
    *o++ = '0';
  } else if (kk > 0 && kk <= 16) {
    memcpy(o, digits, static_cast<size_t>(kk));
    o += kk;
    *o++ = '.';
    memcpy(o, digits + kk, static_cast<size_t>(n - kk));
    o += n - kk;
  } else if (kk > -5 && kk <= 0) {
    *o++ = '0';
    *o++ = '.';
    memset(o, '0', static_cast<size_t>(-kk));
    o += -kk;
    memcpy(o, digits, static_cast<size_t>(n));
    o += n;
  } else {
    *o++ = digits[0];
    if (n > 1) {
      *o++ = '.';
      memcpy(o, digits + 1, static_cast<size_t>(n - 1));
      o += n - 1;
    }
    *o++ = 'e';
    o = std::to_chars(o, o + 8, kk - 1).ptr;
  }
  return static_cast<size_t>(o - out_buf);
}

void AppendQuoted(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t clean = 0;  // most strings need no escape: one append
  while (clean < s.size()) {
    auto c = static_cast<unsigned char>(s[clean]);
    if (c < 0x20 || c == '"' || c == '\\') {
      break;
    }
    clean++;
  }
  if (clean == s.size()) {
    out->append(s);
    out->push_back('"');
    return;
  }
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
  if (n.is_container() && f.indent.empty() && f.newline.empty() && f.space.empty()) {
    return Serialize(n, f, out);
  }
  n.EnsureTree();
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

namespace {

// The compact form (no INDENT/NEWLINE/SPACE): every reply without options.
void WriteCompact(const Node& n, Writer& w) {
  switch (n.kind()) {
    case Kind::kNull:
      w.Put("null");
      return;
    case Kind::kFalse:
      w.Put("false");
      return;
    case Kind::kTrue:
      w.Put("true");
      return;
    case Kind::kInt: {
      char* p = w.Cursor(24);
      w.Advance(static_cast<size_t>(std::to_chars(p, p + 24, n.int_value()).ptr - p));
      return;
    }
    case Kind::kDouble: {
      char* p = w.Cursor(40);
      w.Advance(FormatDouble(n.double_value(), p));
      return;
    }
    case Kind::kString:
      WriteQuoted(n.str(), w);
      return;
    case Kind::kArray: {
      const auto& a = n.array();
      w.Put('[');
      for (size_t i = 0; i < a.size(); i++) {
        if (i > 0) {
          w.Put(',');
        }
        WriteCompact(a[i], w);
      }
      w.Put(']');
      return;
    }
    case Kind::kObject: {
      const auto& ms = n.members();
      w.Put('{');
      for (size_t i = 0; i < ms.size(); i++) {
        if (i > 0) {
          w.Put(',');
        }
        WriteQuoted(ms[i].key.str(), w);
        w.Put(':');
        WriteCompact(ms[i].value, w);
      }
      w.Put('}');
      return;
    }
  }
}

void SerializeCompact(const Node& n, std::string* out) {
  if (n.packed()) {
    AppendPackedCompact(n.packed_bytes(), out);
    return;
  }
  Writer w(out);
  WriteCompact(n, w);
}

}  // namespace

void Serialize(const Node& n, const Format& f, std::string* out) {
  if (f.indent.empty() && f.newline.empty() && f.space.empty()) {
    SerializeCompact(n, out);
  } else {
    SerializeAt(n, f, 0, out);
  }
}

}  // namespace hotkv::json

// The packed form of small documents (see json_node.h): one allocation
// [uint32 length][encoding], the encoding being one value:
//   0x00 null, 0x01 false, 0x02 true
//   0x03 int: zigzag varint          0x04 double: 8 bytes (host order)
//   0x05 string: varint length, bytes
//   0x06 array: varint count, values
//   0x07 object: varint count, then per member: key reference, value
//   0x08..0x0F: a short decimal double: zigzag varint m, the value m / 10^(tag - 0x07)
//               (used when that division gives back exactly the same double)
//   0x10..0xFF: the integer tag - 0x10 (0..239)
// A key reference is a varint: even = a new key (length << 1, then its bytes), odd = the
// (index << 1 | 1) of an earlier key. The first kDictMax distinct keys of the document
// are numbered in the order they appear (encoder and decoder number them alike), so
// keys repeated across an array of objects are stored once.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "json/json_node.h"
#include "json/json_path.h"
#include "json/json_writer.h"

namespace hotkv::json {

namespace {

enum Tag : uint8_t {
  kTNull = 0,
  kTFalse = 1,
  kTTrue = 2,
  kTInt = 3,
  kTDouble = 4,
  kTString = 5,
  kTArray = 6,
  kTObject = 7,
  kTDecimal = 0x08,  // .. 0x0F: 1 to 8 decimals
  kTSmallInt = 0x10,
};
constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
constexpr int64_t kSmallIntMax = 0xFF - kTSmallInt;
constexpr size_t kDictMax = 64;

// Writes into a buffer of `cap` bytes (the caller's limit plus room for one item's
// header); every write checks the room, and Put fails once the limit is passed.
struct Encoder {
  char* buf;
  size_t cap;
  size_t max;
  size_t pos = 0;
  std::string_view keys[kDictMax];
  size_t nkeys = 0;

  bool Room(size_t n) const { return pos + n <= cap; }
  void Byte(uint8_t b) { buf[pos++] = static_cast<char>(b); }
  // At most 10 bytes: callers check Room first.
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      buf[pos++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[pos++] = static_cast<char>(v);
  }
  bool Bytes(std::string_view s) {
    if (!Room(s.size() + 10)) {
      return false;
    }
    Varint(s.size());
    memcpy(buf + pos, s.data(), s.size());
    pos += s.size();
    return true;
  }
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }

  bool Key(std::string_view k) {
    for (size_t i = 0; i < nkeys; i++) {
      if (keys[i].size() == k.size() && memcmp(keys[i].data(), k.data(), k.size()) == 0) {
        Varint((i << 1) | 1);
        return true;
      }
    }
    if (nkeys < kDictMax) {
      keys[nkeys++] = k;
    }
    if (!Room(k.size() + 10)) {
      return false;
    }
    Varint(k.size() << 1);
    memcpy(buf + pos, k.data(), k.size());
    pos += k.size();
    return true;
  }

  // False once the output passed `max` (the caller gives up).
  bool Put(const Node& n) {
    if (pos > max || !Room(20)) {
      return false;
    }
    switch (n.kind()) {
      case Kind::kNull:
        Byte(kTNull);
        return true;
      case Kind::kFalse:
        Byte(kTFalse);
        return true;
      case Kind::kTrue:
        Byte(kTTrue);
        return true;
      case Kind::kInt: {
        int64_t v = n.int_value();
        if (v >= 0 && v <= kSmallIntMax) {
          Byte(static_cast<uint8_t>(kTSmallInt + v));
        } else {
          Byte(kTInt);
          Varint(ZigZag(v));
        }
        return true;
      }
      case Kind::kDouble: {
        double d = n.double_value();
        if (std::abs(d) < 1e9) {
          for (int e = 1; e <= 8; e++) {
            double m = std::nearbyint(d * kPow10[e]);
            if (std::abs(m) < 9e15 && m / kPow10[e] == d && !(d == 0 && std::signbit(d))) {
              Byte(static_cast<uint8_t>(kTDecimal + e - 1));
              Varint(ZigZag(static_cast<int64_t>(m)));
              return true;
            }
          }
        }
        Byte(kTDouble);
        memcpy(buf + pos, &d, 8);
        pos += 8;
        return true;
      }
      case Kind::kString:
        Byte(kTString);
        return Bytes(n.str());
      case Kind::kArray: {
        const auto& a = n.array();
        Byte(kTArray);
        Varint(a.size());
        for (const Node& c : a) {
          if (!Put(c)) {
            return false;
          }
        }
        return true;
      }
      case Kind::kObject: {
        const auto& ms = n.members();
        Byte(kTObject);
        Varint(ms.size());
        for (const Member& m : ms) {
          if (!Key(m.key.str()) || !Put(m.value)) {
            return false;
          }
        }
        return true;
      }
    }
    return true;
  }
};

struct Decoder {
  const char* p;
  std::string_view keys[kDictMax];
  size_t nkeys = 0;

  uint64_t Varint() {
    uint64_t v = 0;
    int shift = 0;
    while (true) {
      auto b = static_cast<uint8_t>(*p++);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) {
        return v;
      }
      shift += 7;
    }
  }
  std::string_view Bytes(size_t n) {
    std::string_view s(p, n);
    p += n;
    return s;
  }
  std::string_view Key() {
    uint64_t r = Varint();
    if (r & 1) {
      return keys[r >> 1];
    }
    std::string_view k = Bytes(r >> 1);
    if (nkeys < kDictMax) {
      keys[nkeys++] = k;
    }
    return k;
  }
  int64_t Int() {
    uint64_t z = Varint();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  double Decimal(uint8_t tag) { return static_cast<double>(Int()) / kPow10[tag - kTDecimal + 1]; }
  double Double() {
    double d;
    memcpy(&d, p, 8);
    p += 8;
    return d;
  }

  Node Value() {
    auto tag = static_cast<uint8_t>(*p++);
    if (tag >= kTSmallInt) {
      return Node::Int(tag - kTSmallInt);
    }
    if (tag >= kTDecimal) {
      return Node::Double(Decimal(tag));
    }
    switch (tag) {
      case kTNull:
        return Node::Null();
      case kTFalse:
        return Node::Bool(false);
      case kTTrue:
        return Node::Bool(true);
      case kTInt:
        return Node::Int(Int());
      case kTDouble:
        return Node::Double(Double());
      case kTString:
        return Node::String(Bytes(Varint()));
      case kTArray: {
        Node n = Node::Array();
        size_t count = Varint();
        auto& a = n.array();
        a.reserve(count);
        for (size_t i = 0; i < count; i++) {
          a.push_back(Value());
        }
        return n;
      }
      default: {  // kTObject
        Node n = Node::Object();
        size_t count = Varint();
        auto& ms = n.members();
        ms.reserve(count);
        for (size_t i = 0; i < count; i++) {
          std::string_view k = Key();
          ms.push_back(Member{Node::String(k), Value()});
        }
        return n;
      }
    }
  }

  // Steps over one value (registering the keys inside it, as reading it would).
  void Skip() {
    auto tag = static_cast<uint8_t>(*p++);
    if (tag >= kTSmallInt) {
      return;
    }
    if (tag >= kTDecimal || tag == kTInt) {
      Varint();
      return;
    }
    switch (tag) {
      case kTDouble:
        p += 8;
        return;
      case kTString:
        p += Varint();
        return;
      case kTArray: {
        size_t count = Varint();
        for (size_t i = 0; i < count; i++) {
          Skip();
        }
        return;
      }
      case kTObject: {
        size_t count = Varint();
        for (size_t i = 0; i < count; i++) {
          Key();
          Skip();
        }
        return;
      }
      default:  // null, false, true
        return;
    }
  }

  // Moves to the value `s` (one key or one index) names in the value at p; false when
  // there is none.
  bool Step(const Selector& s) {
    auto tag = static_cast<uint8_t>(*p);
    if (s.type == Selector::Type::kKey && tag == kTObject) {
      p++;
      size_t count = Varint();
      for (size_t i = 0; i < count; i++) {
        if (Key() == s.keys[0]) {
          return true;
        }
        Skip();
      }
      return false;
    }
    if (s.type == Selector::Type::kIndex && tag == kTArray) {
      p++;
      auto count = static_cast<int64_t>(Varint());
      int64_t at = s.indexes[0] < 0 ? s.indexes[0] + count : s.indexes[0];
      if (at < 0 || at >= count) {
        return false;
      }
      for (int64_t i = 0; i < at; i++) {
        Skip();
      }
      return true;
    }
    return false;
  }

  // The compact JSON text of one value.
  void Text(Writer& w) {
    auto tag = static_cast<uint8_t>(*p++);
    if (tag >= kTSmallInt) {
      char* c = w.Cursor(4);
      w.Advance(static_cast<size_t>(std::to_chars(c, c + 4, tag - kTSmallInt).ptr - c));
      return;
    }
    if (tag >= kTDecimal) {
      char* c = w.Cursor(40);
      w.Advance(FormatDouble(Decimal(tag), c));
      return;
    }
    switch (tag) {
      case kTNull:
        w.Put("null");
        return;
      case kTFalse:
        w.Put("false");
        return;
      case kTTrue:
        w.Put("true");
        return;
      case kTInt: {
        char* c = w.Cursor(24);
        w.Advance(static_cast<size_t>(std::to_chars(c, c + 24, Int()).ptr - c));
        return;
      }
      case kTDouble: {
        char* c = w.Cursor(40);
        w.Advance(FormatDouble(Double(), c));
        return;
      }
      case kTString:
        WriteQuoted(Bytes(Varint()), w);
        return;
      case kTArray: {
        size_t count = Varint();
        w.Put('[');
        for (size_t i = 0; i < count; i++) {
          if (i > 0) {
            w.Put(',');
          }
          Text(w);
        }
        w.Put(']');
        return;
      }
      default: {  // kTObject
        size_t count = Varint();
        w.Put('{');
        for (size_t i = 0; i < count; i++) {
          if (i > 0) {
            w.Put(',');
          }
          WriteQuoted(Key(), w);
          w.Put(':');
          Text(w);
        }
        w.Put('}');
        return;
      }
    }
  }
};

// The packing scope of the command running on this thread.
struct Stashed {
  const Node* node;
  char* bytes;
};
struct Scope {
  bool active = false;
  std::vector<Stashed> stash;
};
thread_local Scope tl_scope;

}  // namespace

std::string_view Node::packed_bytes() const {
  uint32_t len;
  memcpy(&len, u_.s, 4);
  return {u_.s + 4, len};
}

size_t Node::size() const {
  if (packed()) {
    Decoder d{packed_bytes().data() + 1};
    return d.Varint();
  }
  if (kind_ == Kind::kArray) {
    return u_.a->size();
  }
  return kind_ == Kind::kObject ? u_.o->size() : 0;
}

bool Node::Pack(size_t max) {
  if (!is_container() || packed() || (pad_[0] & kNoPack) != 0) {
    return packed();
  }
  thread_local std::vector<char> scratch;
  scratch.resize(std::max(scratch.size(), max + 64));
  Encoder e{scratch.data(), max + 64, max};
  if (!e.Put(*this) || e.pos > max) {
    pad_[0] |= kNoPack;
    return false;
  }
  auto len = static_cast<uint32_t>(e.pos);
  char* bytes = static_cast<char*>(malloc(4 + e.pos));
  memcpy(bytes, &len, 4);
  memcpy(bytes + 4, e.buf, e.pos);
  Kind k = kind_;
  Reset();
  kind_ = k;
  small_len_ = kPacked;
  u_.s = bytes;
  return true;
}

void Node::Unpack() {
  char* bytes = u_.s;
  Decoder d{bytes + 4};
  Node tree = d.Value();
  if (tl_scope.active) {
    tl_scope.stash.push_back(Stashed{this, bytes});
  } else {
    free(bytes);
  }
  char flags = pad_[0];
  memcpy(static_cast<void*>(this), &tree, sizeof(Node));
  pad_[0] = flags;
  tree.kind_ = Kind::kNull;
}

void AppendPackedCompact(std::string_view packed, std::string* out) {
  Writer w(out);
  w.Ensure(packed.size() + packed.size() / 2 + 16);
  Decoder d{packed.data()};
  d.Text(w);
}

bool AppendPackedAt(const Node& root, const Path& path, std::string* out) {
  if (!root.packed() || !path.is_static()) {
    return false;
  }
  Decoder d{root.packed_bytes().data()};
  for (const Selector& s : path.selectors()) {
    if (s.keys.size() + s.indexes.size() != 1 || !d.Step(s)) {
      return false;
    }
  }
  Writer w(out);
  d.Text(w);
  return true;
}

bool BeginPackScope() {
  if (tl_scope.active) {
    return false;
  }
  tl_scope.active = true;
  return true;
}

void FinishPacked(Node* root, bool wrote) {
  if (root->packed()) {
    return;
  }
  auto& st = tl_scope.stash;
  for (size_t i = 0; i < st.size(); i++) {
    if (st[i].node != root) {
      continue;
    }
    char* bytes = st[i].bytes;
    st[i] = st.back();
    st.pop_back();
    if (wrote || !root->is_container()) {
      free(bytes);
      break;
    }
    Kind k = root->kind_;
    root->Reset();
    root->kind_ = k;
    root->small_len_ = Node::kPacked;
    root->u_.s = bytes;
    return;
  }
  if (wrote) {
    root->Pack();
  }
}

void EndPackScope() {
  for (const Stashed& s : tl_scope.stash) {
    free(s.bytes);
  }
  tl_scope.stash.clear();
  tl_scope.active = false;
}

}  // namespace hotkv::json

// json::Node: the in-memory form of a JSON document (the value of a ReJSON-RL key).
//
// A node is 16 bytes: a kind tag, then either an inline string of up to 14 bytes, an
// exact int64, a double, or a pointer to a heap string, an array (a vector of nodes) or
// an object (a vector of key/value members in insertion order, as Redis keeps them).
// Keys are nodes too, so short keys live inline. Commands edit the tree in place through
// paths (json_path.h); nothing is re-parsed or re-serialized on access.
//
//   Result<json::Node> doc = json::Parse(R"({"a":[1,2.5,"x"]})");
//   std::string out;
//   json::Serialize(*doc, json::Format{}, &out);   // {"a":[1,2.5,"x"]}
//
// Numbers: integers that fit an int64 stay exact integers; everything else is a double
// (printed like Redis: shortest round-trip digits, "1.0" for an integral double,
// exponents past 1e16 or below 1e-5 as "1e16" / "1.5e-7").
//
// Packed documents (json_packed.cc): a small document (packed form <= kPackMax bytes) is
// kept as one allocation of a compact binary encoding (tags, varints, a per-document key
// dictionary) instead of the tree; its root Node has the document's kind and owns the
// bytes. The compact serializer reads the packed bytes directly (JSON.GET $, DUMP, AOF);
// anything that walks into the document (array(), members(), Find...) unpacks it to the
// tree first. A PackScope (one per JSON command) keeps the packed bytes of what it
// unpacked: FinishPacked puts them back after a read and re-packs after a write.
//
// Thread safety: a Node is a plain value; the owner (the key's shard lock) guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hotkv::json {

// Redis's nesting limit for JSON documents (objects and arrays).
inline constexpr int kMaxDepth = 128;
// Documents whose packed form is at most this many bytes are stored packed.
inline constexpr size_t kPackMax = 4096;

// Kinds from kString on own heap memory (Node::Reset relies on the order).
enum class Kind : uint8_t { kNull, kFalse, kTrue, kInt, kDouble, kString, kArray, kObject };

struct Member;

class Node {
 public:
  Node() = default;
  ~Node() {
    if (kind_ >= Kind::kString) {
      ReleaseHeap();
    }
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  Node(Node&& o) noexcept {
    memcpy(static_cast<void*>(this), &o, sizeof(Node));
    o.kind_ = Kind::kNull;
  }
  Node& operator=(Node&& o) noexcept {
    if (this != &o) {
      Reset();
      memcpy(static_cast<void*>(this), &o, sizeof(Node));
      o.kind_ = Kind::kNull;
    }
    return *this;
  }

  static Node Null() { return Node(); }
  static Node Bool(bool b) {
    Node n;
    n.kind_ = b ? Kind::kTrue : Kind::kFalse;
    return n;
  }
  static Node Int(int64_t v) {
    Node n;
    n.kind_ = Kind::kInt;
    n.u_.i = v;
    return n;
  }
  static Node Double(double v) {
    Node n;
    n.kind_ = Kind::kDouble;
    n.u_.d = v;
    return n;
  }
  static Node String(std::string_view s);
  static Node Array();
  static Node Object();

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kTrue || kind_ == Kind::kFalse; }
  bool is_number() const { return kind_ == Kind::kInt || kind_ == Kind::kDouble; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_container() const { return is_array() || is_object(); }

  bool bool_value() const { return kind_ == Kind::kTrue; }
  int64_t int_value() const { return u_.i; }
  double double_value() const { return u_.d; }
  // An int or a double as a double.
  double number() const { return kind_ == Kind::kInt ? static_cast<double>(u_.i) : u_.d; }
  std::string_view str() const;

  std::vector<Node>& array() {
    EnsureTree();
    return *u_.a;
  }
  const std::vector<Node>& array() const {
    EnsureTree();
    return *u_.a;
  }
  std::vector<Member>& members() {
    EnsureTree();
    return *u_.o;
  }
  const std::vector<Member>& members() const {
    EnsureTree();
    return *u_.o;
  }
  // Elements of an array / members of an object (a packed one stays packed).
  size_t size() const;

  // The packed form (see the top of this file).
  bool packed() const { return small_len_ == kPacked; }
  std::string_view packed_bytes() const;
  // Packs this container when its packed form has at most `max` bytes (else it stays a
  // tree and, as a root, is not tried again). False when it was not packed.
  bool Pack(size_t max = kPackMax);
  // Turns a packed node back into the tree (a no-op on a tree).
  void EnsureTree() const {
    if (small_len_ == kPacked) {
      const_cast<Node*>(this)->Unpack();
    }
  }

  // Object lookup (linear: objects are small in practice); null when absent.
  Node* Find(std::string_view key);
  const Node* Find(std::string_view key) const;
  // Sets key to value (replacing an existing member in place, else appending).
  void Set(std::string_view key, Node value);
  // Removes a member; false when absent.
  bool Erase(std::string_view key);

  Node Clone() const;
  // Heap bytes owned by this node (not counting the node itself).
  size_t MemoryUsage() const;
  // Levels of nesting below and including this node (a scalar is 0, [] is 1).
  int Depth() const;

  // The name JSON.TYPE answers: null, boolean, integer, number, string, array, object.
  std::string_view TypeName() const;

 private:
  friend void FinishPacked(Node* root, bool wrote);
  // Frees what a string / container owns; scalars own nothing (the inline check keeps
  // the many scalar destructions cheap).
  void Reset() {
    if (kind_ >= Kind::kString) {
      ReleaseHeap();
    }
    kind_ = Kind::kNull;
    small_len_ = 0;
  }
  void ReleaseHeap();
  void Unpack();
  char* inline_chars() { return reinterpret_cast<char*>(this) + 2; }
  const char* inline_chars() const { return reinterpret_cast<const char*>(this) + 2; }

  static constexpr uint8_t kHeapString = 0xFF;
  static constexpr uint8_t kPacked = 0xFE;  // a container held packed: u_.s = [uint32 len][bytes]
  static constexpr char kNoPack = 1;        // pad_[0]: a root too large to pack
  static constexpr size_t kInlineMax = 14;

  Kind kind_ = Kind::kNull;
  uint8_t small_len_ = 0;  // inline string length, or kHeapString
  char pad_[6] = {};
  union {
    int64_t i;
    double d;
    char* s;  // heap string: [uint32 length][bytes]
    std::vector<Node>* a;
    std::vector<Member>* o;
  } u_ = {0};
};

static_assert(sizeof(Node) == 16);

struct Member {
  Node key;  // always a string node
  Node value;
};

// The packing scope of one command on this thread (nested scopes are no-ops): while it
// is active, an unpacked document keeps its packed bytes until FinishPacked.
// BeginPackScope returns false when a scope is already active.
bool BeginPackScope();
// After the command, for each document it looked at: a packed root is left alone; a
// root this scope unpacked gets its packed bytes back when !wrote, or is packed again
// from the (edited) tree when wrote; another tree root is packed when wrote.
void FinishPacked(Node* root, bool wrote);
// Ends the scope, freeing the packed bytes of documents that went away.
void EndPackScope();

// Deep equality as JSON: numbers compare by value (1 == 1.0), objects by their members
// regardless of order.
bool Equal(const Node& a, const Node& b);

// Parses one JSON document (surrounding whitespace allowed). Errors carry Redis's texts
// (serde_json's), e.g. "expected value at line 1 column 1", and "ERR recursion limit
// exceeded" past kMaxDepth.
Result<Node> Parse(std::string_view text);

// The value of the first top-level member named `key` of the object at the start of
// `text`, read the way Redis's vector-set FILTER reads element attributes (VSETATTR
// stores them unchecked): the first of repeated keys wins, keys compare as written
// (escapes not decoded), and nothing after that member is read. nullopt when `text`
// does not start with an object, is malformed before the member's value ends, or has no
// such member.
std::optional<Node> ParseTopLevelMember(std::string_view text, std::string_view key);

// True when `s` is well-formed UTF-8 (Redis takes JSON and paths only as UTF-8 text).
bool IsValidUtf8(std::string_view s);

// JSON.GET's INDENT / NEWLINE / SPACE; all empty gives compact output.
struct Format {
  std::string_view indent;
  std::string_view newline;
  std::string_view space;
};

// Appends the JSON text of `n` to *out.
void Serialize(const Node& n, const Format& f, std::string* out);
// The same for a node nested `level` containers deep (replies that wrap matches in an
// array or object), and the line break + indentation that precedes such a node.
void SerializeAt(const Node& n, const Format& f, int level, std::string* out);
void NewlineIndent(const Format& f, int level, std::string* out);
inline std::string ToJson(const Node& n) {
  std::string s;
  Serialize(n, Format{}, &s);
  return s;
}
// A double as Redis prints it ("1.0", "0.1", "1e300", "1.5e-7").
void AppendDouble(double v, std::string* out);
// The same into `out` (at least 40 bytes); returns the length.
size_t FormatDouble(double v, char* out);
// The compact JSON text of packed bytes (Node::packed_bytes()).
void AppendPackedCompact(std::string_view packed, std::string* out);
// A JSON string literal (quotes and escapes).
void AppendQuoted(std::string_view s, std::string* out);

}  // namespace hotkv::json

// JSONPath as Redis's JSON commands understand it, compiled once per command and run
// over a json::Node tree.
//
//   $                 the root          .name  ['name']  ["name"]   a member
//   [n]  [-n]         an array element  [a,b] ['x','y']             a union
//   [start:end:step]  a slice           * / [*]                     every child
//   ..name  ..*  ..[0]                  recursive descent
//   [?(@.price < 10 && @.tag == "x")]   a filter over the children: ==, !=, <, <=, >, >=,
//                     =~ (regex), &&, ||, !, parentheses; operands are @-relative or
//                     $-absolute paths and literals (numbers, 'strings', "strings", true,
//                     false, null); a bare path tests existence.
//
// A path that does not start with '$' is a legacy path (".a.b", "a", "."): the same
// selectors, but commands reply with a single value and report missing paths as errors.
//
//   Result<Path> p = Path::Compile("$.store.book[?(@.price < 10)].title");
//   std::vector<Match> m = Select(*p, doc);
//
// Thread safety: a compiled Path is immutable; Select reads (or, for writers, hands out
// mutable pointers into) a tree the caller has locked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "json/json_node.h"

namespace hotkv::json {

// A filter expression ([?(...)]); see json_filter.h.
struct FilterExpr;

struct Selector {
  enum class Type : uint8_t { kKey, kIndex, kKeys, kIndexes, kSlice, kWildcard, kFilter };
  Type type = Type::kKey;
  bool descend = false;  // preceded by ".."
  std::vector<std::string> keys;
  std::vector<int64_t> indexes;
  int64_t start = 0, end = 0, step = 1;
  bool has_start = false, has_end = false;
  std::shared_ptr<const FilterExpr> filter;
};

class Path {
 public:
  // Parses `text`; errors read "Error occurred on position N, ..." as Redis's do.
  static Result<Path> Compile(std::string_view text);

  // The default path of commands whose path is optional: legacy root ".".
  static Path LegacyRoot();

  bool legacy() const { return legacy_; }
  bool is_root() const { return selectors_.empty(); }
  // Every selector names one key or one index (no wildcard, union, slice, filter or
  // descent): a path that can name a location that does not exist yet.
  bool is_static() const;
  const std::vector<Selector>& selectors() const { return selectors_; }
  // The path as given (keys of JSON.GET's multi-path reply).
  const std::string& text() const { return text_; }
  // The JSONPath form used in error messages: legacy ".a.b" -> "$.a.b".
  std::string ErrorForm() const;

  // The same path without its last selector (the parent of what it names).
  Path Parent() const;

 private:
  friend class PathParser;
  std::string text_;
  bool legacy_ = false;
  std::vector<Selector> selectors_;
};

// One location a path selects: the node, and where it lives (null parent for the
// root; `index` is the array index or the member index in the parent object).
struct Match {
  Node* node;
  Node* parent;
  size_t index;
  int depth;  // selectors walked down from the root
};

// Every location `path` selects in `root`, in document order of the evaluation (as
// Redis lists them; a union may repeat a location).
std::vector<Match> Select(const Path& path, Node& root);

// Removes the matched locations (deepest first, each once); returns how many were
// removed. Matches of the root are not removed (the caller deletes the key).
size_t RemoveMatches(std::vector<Match> matches);

// For a packed document (json_node.h) and a static path (one key or index per step):
// appends the compact text of the one value the path names, read straight from the
// packed bytes, and returns true; false (nothing appended) when the document is not
// packed, the path is not static, or it names nothing (the caller then takes the
// general way, Select, for its reply).
bool AppendPackedAt(const Node& root, const Path& path, std::string* out);

}  // namespace hotkv::json

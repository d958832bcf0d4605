// The parsed form of an FT.SEARCH / FT.AGGREGATE query string (query_parser.cc builds it,
// the executor runs it). Schema-free: field names are resolved by the executor, which
// reports unknown fields and type mismatches.
//
//   "@title:(hello|world) -@tag:{a|b} @price:[(10 +inf]"
//   => Intersect(Union(Term hello, Term world){fields=[title]},
//                Not(Tag{tag: a, b}), Numeric{price: (10, +inf]})
//   "(@genre:{drama})=>[KNN 10 @v $vec AS dist]"
//   => root = Tag{genre: drama}, knn = {k 10, field v, blob = params["vec"], alias dist}
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace hotkv::search {

enum class NodeKind {
  kMatchAll,     // *
  kTerm,         // hello   (stemmed by the executor unless verbatim)
  kPrefix,       // hel*
  kSuffix,       // *llo
  kInfix,        // *ell*
  kWildcard,     // w'h?l*o'
  kFuzzy,        // %hello% (distance 1..3)
  kPhrase,       // "hello world"
  kIntersect,    // a b
  kUnion,        // a|b
  kNot,          // -a
  kOptional,     // ~a
  kTag,          // @f:{a|b*}
  kNumeric,      // @f:[lo hi]
  kGeo,          // @f:[lon lat r unit]
  kVectorRange,  // @v:[VECTOR_RANGE r $blob]=>{$YIELD_DISTANCE_AS: d}
  kIsMissing,    // ismissing(@f)
  kEmpty,        // matches nothing (e.g. a query made only of stop words)
};

struct TagValue {
  enum class Match { kExact, kPrefix, kSuffix, kInfix };
  std::string value;  // unescaped ("a\ b" -> "a b")
  Match match = Match::kExact;
  // FT.EXPLAIN only: the value as written (escapes kept), and whether it was several
  // words ("{a b}", "{a.b}": RediSearch's phrase of tokens, matched as "a b").
  std::string raw;
  bool phrase = false;
};

struct QueryNode {
  NodeKind kind = NodeKind::kMatchAll;
  // @field restriction: for text nodes the fields to look in (empty: every TEXT field);
  // for tag / numeric / geo / vector-range / ismissing nodes fields[0] is the field.
  std::vector<std::string> fields;
  // kTerm / kPrefix / kSuffix / kInfix / kWildcard / kFuzzy: the word as written (not
  // lower-cased: the analyzer folds case).
  std::string term;
  int fuzzy_distance = 1;
  bool verbatim = false;  // $verbatim attribute or exact-match syntax: no stemming
  // kPhrase: its words in order; slop/inorder from attributes ({$slop: 2; $inorder: true}).
  std::vector<std::string> phrase_terms;
  int slop = -1;  // -1: exact adjacency (a phrase) / no limit (an intersection)
  bool inorder = false;
  // kTag: the OR of these values.
  std::vector<TagValue> tags;
  // kNumeric.
  double num_min = -std::numeric_limits<double>::infinity();
  double num_max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool max_exclusive = false;
  // kGeo: radius in metres after unit conversion; unit kept for FT.EXPLAIN.
  double lon = 0, lat = 0, radius_m = 0;
  std::string unit;
  // kVectorRange.
  std::string vector_blob;
  double vector_radius = 0;
  std::optional<double> vector_epsilon;
  std::string yield_distance_as;
  std::string vector_param;  // the $name the blob came from (FT.EXPLAIN)
  std::string vector_radius_text;  // the radius as written (FT.EXPLAIN)
  // Attributes: {$weight: 2.0}.
  double weight = 1.0;
  // kIntersect / kUnion / kNot / kOptional.
  std::vector<std::unique_ptr<QueryNode>> children;
};

// The `=>[KNN k @field $blob ...]` part of a query (dialect >= 2).
struct KnnClause {
  uint64_t k = 0;
  std::string field;
  std::string vector_blob;  // raw bytes (from PARAMS)
  std::optional<uint64_t> ef_runtime;
  std::optional<double> epsilon;
  std::string score_alias;  // AS name; empty -> "__<field>_score"
  bool has_filter = false;  // "(filter)=>[KNN ...]" vs "*=>[KNN ...]"
  std::string blob_param;   // the $name of the blob (FT.EXPLAIN)
  // Every attribute after the blob as written (name, value after $param substitution),
  // in order: EF_RUNTIME and EPSILON are also parsed above; the executor rejects the
  // names it does not know, as RediSearch does at execution time.
  std::vector<std::pair<std::string, std::string>> attributes;
};

struct Query {
  std::unique_ptr<QueryNode> root;  // never null (kMatchAll for "*")
  std::optional<KnnClause> knn;
};

using QueryParams = std::unordered_map<std::string, std::string>;

struct ParseOptions {
  int dialect = 2;          // 1..4 (DIALECT argument or FT.CONFIG DEFAULT_DIALECT)
  bool verbatim = false;    // VERBATIM: no stemming anywhere
  bool no_stopwords = false;
  // The index's stop words (RediSearch drops them from queries in the parser): called
  // with a term as written; unset or no_stopwords: nothing is dropped.
  std::function<bool(std::string_view)> is_stopword;
  // Tests only: skip the one-pass reader of "*=>[KNN ...]" (always the full parser).
  bool no_fast_path = false;
};

// Parses a query string. `params` substitutes $name references (dialect >= 2). Errors
// carry RediSearch's texts: "Syntax error at offset N near X", "No such parameter `x`",
// "Unknown Index name", ... Never crashes and never recurses without bound: nesting
// deeper than kMaxQueryDepth is an error.
inline constexpr int kMaxQueryDepth = 1000;
Result<Query> ParseQuery(std::string_view text, const QueryParams& params,
                         const ParseOptions& options);

// FT.EXPLAIN's text for a parsed query (RediSearch's layout: "INTERSECT {\n  ...\n}\n").
std::string ExplainQuery(const Query& query);

// What only the index knows, for an exact FT.EXPLAIN: terms print case-folded (`fold`,
// default ASCII lower-case) and, when `stem` returns a non-empty stem for a (non-verbatim)
// term node, as RediSearch's expansion "UNION {\n term\n +stem(expanded)\n [stem(expanded)]\n}".
struct ExplainOptions {
  std::function<std::string(std::string_view)> fold;
  std::function<std::string(const QueryNode&, std::string_view folded)> stem;
  // For a term restricted to fields: the fields its expansions look in (RediSearch prints
  // "@title|body:runs" then "@title:+run(expanded)" when body is NOSTEM). Unset: the node's.
  std::function<std::vector<std::string>(const QueryNode&)> stem_fields;
};
std::string ExplainQuery(const Query& query, const ExplainOptions& options);

}  // namespace hotkv::search

// The executor: runs a parsed query (query_ast.h) against a SearchIndex and returns the
// matching documents, ordered and cut as FT.SEARCH wants (FT.AGGREGATE asks for all).
//
//   Result<SearchOutput> out = ExecuteSearch(*index, query, options);
//   // out->total, out->hits[i].key / score / yields (KNN score, VECTOR_RANGE distance)
//
// Set algebra over sorted id lists: intersections, unions, NOT (complement against
// every live document), optional (~) adds score only. Text nodes go to TextIndex::Match
// with the field mask of their @fields (or every TEXT field / INFIELDS); tag, numeric,
// geo and ismissing nodes to the field structures; VECTOR_RANGE and KNN to VectorField
// (a hybrid query's filter becomes KNN's `allowed` set). Unknown fields and fields of the
// wrong type match nothing, as RediSearch 2.10 does; ismissing on a field without
// INDEXMISSING is an error.
//
// Thread safety: takes the index's shared lock for the whole run and copies the keys
// out, so the caller reads documents with no index lock held.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "search/query_ast.h"
#include "search/search_index.h"

namespace hotkv::search {

// FT.PROFILE: per query node, the documents it matched and the milliseconds it took
// (nodes evaluated as part of a text subtree are absent: their subtree's root has them).
struct QueryProfile {
  struct Node {
    uint64_t matches = 0;
    double ms = 0;
  };
  std::unordered_map<const QueryNode*, Node> nodes;
};

struct SearchOptions {
  Scorer scorer = Scorer::kTfIdf;  // FT.SEARCH: FT.CONFIG DEFAULT_SCORER
  bool verbatim = false;
  std::vector<std::string> infields;  // INFIELDS: text nodes without @field look here only
  std::vector<std::string> inkeys;    // INKEYS: only these documents
  std::string sortby;                 // SORTBY field (empty: by score, then doc id)
  bool sort_ascending = true;
  uint64_t offset = 0;
  uint64_t limit = 10;                // LIMIT num; SIZE_MAX-like for "all"
  size_t max_expansions = 200;
  bool want_sort_keys = false;        // fill SearchHit::sort_key
  bool want_matched_terms = false;    // fill SearchHit::terms (HIGHLIGHT / SUMMARIZE)
  bool want_yields = true;            // fill SearchHit::yields (FT.SEARCH NOCONTENT: no)
  // LANGUAGE: query terms expand to their stems in this language (null: the index's).
  const Analyzer* stemmer = nullptr;
  // TIMEOUT: past it the executor stops; with timeout_fail the search fails with
  // "Timeout limit was reached", else what was found so far comes back (timed_out).
  Deadline deadline;
  bool timeout_fail = false;
  QueryProfile* profile = nullptr;  // FT.PROFILE: filled per node when set
};

struct SearchHit {
  DocId doc = kNoDoc;
  std::string key;
  double score = 0;
  // Values the query yields, first in the reply's fields: KNN's score (AS name or
  // __<field>_score), VECTOR_RANGE's $YIELD_DISTANCE_AS; formatted as RediSearch does.
  std::vector<std::pair<std::string, std::string>> yields;
  SortValue sort_key;  // SORTBY's value when want_sort_keys
  // The text terms that matched the document (negated parts excluded), when
  // want_matched_terms: RediSearch highlights every occurrence of them in the document.
  std::vector<MatchedTerm> terms;
};

struct SearchOutput {
  bool timed_out = false;  // partial results (ON_TIMEOUT RETURN)
  uint64_t total = 0;
  std::vector<SearchHit> hits;  // after offset/limit
};

// Takes the index's shared lock. Errors carry RediSearch's texts.
Result<SearchOutput> ExecuteSearch(const SearchIndex& index, const Query& query,
                                   const SearchOptions& options);

// Formats a distance as RediSearch does (%.12g).
std::string FormatDistance(double d);

}  // namespace hotkv::search

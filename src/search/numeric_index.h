// NumericIndex: one NUMERIC (or the numeric part of a GEO) field of a search index: the
// (value, doc) pairs in an ordered set, so a range query is a walk from the lower bound.
// A document may hold several values (JSON arrays).
//
// Thread safety: none (the owning SearchIndex locks).
#pragma once

#include <cstddef>
#include <set>
#include <utility>
#include <vector>

#include "search/search_types.h"

namespace hotkv::search {

class NumericIndex {
 public:
  // Sets the document's values (replacing old ones).
  void Set(DocId doc, std::vector<double> values);
  void Remove(DocId doc);
  // Documents with a value in the range (exclusive ends as flagged), sorted.
  DocIds Range(double lo, double hi, bool lo_exclusive, bool hi_exclusive) const;
  const std::vector<double>& ValuesOf(DocId doc) const;
  size_t num_entries() const { return entries_.size(); }
  size_t MemoryBytes() const { return entries_.size() * 48 + doc_values_.size() * 24; }

 private:
  std::set<std::pair<double, DocId>> entries_;
  std::vector<std::vector<double>> doc_values_;  // by DocId
};

}  // namespace hotkv::search

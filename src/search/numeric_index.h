// NumericIndex: one NUMERIC (or the numeric part of a GEO) field of a search index: the
// (value, doc) pairs in an ordered set, so a range query is a walk from the lower bound.
// A document may hold several values (JSON arrays).
//
// Thread safety: none (the owning SearchIndex locks).
#pragma once

#include <cstddef>
#include <cstdint>
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
  size_t MemoryBytes() const { return entries_.size() * 48 + doc_values_.size() * 33; }

 private:
  // Every document in order, testing its values: the way to answer a wide range (the
  // result comes out sorted, and the flat arrays are read sequentially).
  DocIds ScanRange(double lo, double hi, bool lo_exclusive, bool hi_exclusive) const;

  std::set<std::pair<double, DocId>> entries_;
  std::vector<std::vector<double>> doc_values_;  // by DocId
  // By DocId, for ScanRange: how many values the document has (0, 1, or 2 for more) and,
  // when it has one, that value.
  std::vector<uint8_t> value_count_;
  std::vector<double> single_value_;
};

}  // namespace hotkv::search

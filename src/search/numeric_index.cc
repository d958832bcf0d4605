#include "search/numeric_index.h"

#include <algorithm>
#include <limits>

namespace hotkv::search {

namespace {
const std::vector<double> kNoNumbers;
}

void NumericIndex::Set(DocId doc, std::vector<double> values) {
  Remove(doc);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (double v : values) {
    entries_.emplace(v, doc);
  }
  if (doc >= doc_values_.size()) {
    doc_values_.resize(doc + 1);
  }
  doc_values_[doc] = std::move(values);
}

void NumericIndex::Remove(DocId doc) {
  if (doc >= doc_values_.size()) {
    return;
  }
  for (double v : doc_values_[doc]) {
    entries_.erase({v, doc});
  }
  doc_values_[doc].clear();
  doc_values_[doc].shrink_to_fit();
}

DocIds NumericIndex::Range(double lo, double hi, bool lo_exclusive, bool hi_exclusive) const {
  DocIds out;
  if (lo > hi) {
    return out;
  }
  auto it = entries_.lower_bound({lo, 0});
  for (; it != entries_.end(); ++it) {
    double v = it->first;
    if (v > hi || (hi_exclusive && v == hi)) {
      break;
    }
    if (lo_exclusive && v == lo) {
      continue;
    }
    out.push_back(it->second);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::vector<double>& NumericIndex::ValuesOf(DocId doc) const {
  return doc < doc_values_.size() ? doc_values_[doc] : kNoNumbers;
}

}  // namespace hotkv::search

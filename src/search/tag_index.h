// TagIndex: one TAG field of a search index — each distinct value (after splitting on
// the field's SEPARATOR, trimming spaces and, unless CASESENSITIVE, folding case) maps to
// the sorted ids of the documents holding it. Exact matches are one lookup; prefix
// matches walk the ordered value set from the prefix; suffix and infix matches scan the
// values (RediSearch's WITHSUFFIXTRIE only speeds those up).
//
// Thread safety: none (the owning SearchIndex locks).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "search/query_ast.h"
#include "search/search_types.h"

namespace hotkv::search {

class TagIndex {
 public:
  TagIndex(char separator, bool case_sensitive)
      : separator_(separator), case_sensitive_(case_sensitive) {}
  // The values a raw field value holds: split on the separator, trimmed, folded; empty
  // pieces are dropped unless `keep_empty` (INDEXEMPTY).
  std::vector<std::string> Split(std::string_view raw, bool keep_empty) const;
  // A single value (a JSON array element): trimmed? no — folded only (RediSearch does not
  // split JSON array elements).
  std::string Normalize(std::string_view value) const;
  // Sets the document's values (normalised, as Split/Normalize return); replaces old ones.
  void Set(DocId doc, std::vector<std::string> values);
  void Remove(DocId doc);
  // Documents holding any of `values` (a query's `{a|b*}`), sorted.
  DocIds Match(const std::vector<TagValue>& values) const;
  DocIds MatchOne(const TagValue& value) const;
  // Every distinct value, sorted (FT.TAGVALS).
  std::vector<std::string> Values() const;
  size_t num_values() const { return values_.size(); }
  // The document's values (empty when it has none).
  const std::vector<std::string>& ValuesOf(DocId doc) const;
  size_t MemoryBytes() const;

 private:
  char separator_;
  bool case_sensitive_;
  std::map<std::string, DocIds, std::less<>> values_;
  std::vector<std::vector<std::string>> doc_values_;  // by DocId
};

// Lower-cases ASCII letters and the Latin-1/Latin Extended-A/Greek/Cyrillic capitals
// of 2-byte UTF-8 sequences (what tags need in practice).
std::string FoldTag(std::string_view s);

}  // namespace hotkv::search

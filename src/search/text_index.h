// Full-text indexing for one search index: the analyzer (tokenising, case folding,
// stop words, Snowball stemming via libstemmer) and the inverted index over the index's
// TEXT fields, with RediSearch's scorers.
//
// Thread safety: Analyzer is immutable after construction and safe from any thread
// (stemmers are per thread inside). TextIndex is not synchronised: the search index
// holds its own lock (shared for queries, exclusive for Add/Remove).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "search/query_ast.h"
#include "search/search_types.h"

namespace hotkv::search {

// RediSearch's default English stop words.
const std::vector<std::string>& DefaultStopWords();

class Analyzer {
 public:
  // language: RediSearch's names ("english", "french", ...); unknown -> no stemming.
  // stopwords: words (case-folded) dropped from documents and queries.
  Analyzer(std::string language, std::vector<std::string> stopwords);
  ~Analyzer();
  // Splits `text` into case-folded tokens (RediSearch's separators
  // ,./(){}[]:;~!@#$%^&*-=+|'`"<>? plus space and tab; a backslash escapes one; other
  // control characters are dropped from inside a token), dropping stop words; positions
  // count from 1 and, as in RediSearch, skip dropped stop words.
  struct Token {
    std::string text;
    uint32_t position;
    uint32_t byte_offset = 0;  // where the raw token starts in the text
  };
  void Tokenize(std::string_view text, std::vector<Token>* out) const;
  std::string Fold(std::string_view word) const;   // Unicode case folding
  std::string Stem(std::string_view folded) const; // the word itself when no stemmer
  bool IsStopWord(std::string_view folded) const;
  const std::string& language() const;
  // Whether a Snowball stemmer exists for the language.
  bool HasStemmer() const;
  // A process-wide analyzer of `language` (case-insensitive; IsLanguage must accept it)
  // without stop words, for stemming query terms (FT.SEARCH ... LANGUAGE); never freed.
  static const Analyzer* ForLanguage(std::string_view language);
  // One raw word (a token, or a query term as written): unescaped backslashes, blanks
  // and control characters dropped, then case-folded (what Tokenize does to each token).
  std::string Normalize(std::string_view raw) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One TEXT field's content in a document.
struct TextFieldValue {
  int field_bit;       // 0..63: the field's position among the index's TEXT fields
  double weight;       // WEIGHT
  bool nostem;
  std::string_view text;
};

// A dictionary term that made a query match a document (HIGHLIGHT / SUMMARIZE): the
// term ("+stem" for stem entries), its id and its IDF (a fragment's score).
struct MatchedTerm {
  std::string term;
  uint32_t id = 0;
  double idf = 0;
};

struct TextIndexStats {
  uint64_t num_terms = 0;       // distinct terms
  uint64_t removed_terms = 0;   // terms whose documents all went, not yet forgotten
  uint64_t num_records = 0;     // postings (term, doc) pairs
  uint64_t inverted_bytes = 0;
  uint64_t offset_vectors_bytes = 0;
  uint64_t offsets_count = 0;
  uint64_t total_doc_tokens = 0;
};

class TextIndex {
 public:
  TextIndex(const Analyzer* analyzer, bool store_offsets);
  ~TextIndex();
  // (Re)indexes a document: its previous postings are replaced. `stemmer`: the
  // document's own language (LANGUAGE_FIELD) instead of the index's, for stems only.
  void Add(DocId doc, const std::vector<TextFieldValue>& fields, const Analyzer* stemmer = nullptr);
  void Remove(DocId doc);
  // The document's postings (term, doc) pairs, stems included: its text records.
  size_t DocRecords(DocId doc) const;
  // Stats().removed_terms: the terms whose last document was removed (RediSearch 2.10
  // counts them in num_terms until its garbage collector runs); this forgets them.
  void ForgetRemovedTerms();
  // The document's a-priori score (SCORE / SCORE_FIELD; 1.0 unless set). Used by every
  // scorer; kept until Remove.
  void SetDocScore(DocId doc, double score);
  // Names of the TEXT fields by field bit, so that @field restrictions on nodes nested
  // inside the node given to Match narrow the mask (unknown names match nothing).
  void SetFieldNames(std::vector<std::string> names_by_bit);
  // The TEXT fields (by bit) without NOSTEM: a query term restricted to fields expands
  // to its stems only in these (RediSearch 2.10); an unrestricted term expands in all.
  void SetStemmedFields(uint64_t mask);
  // Whether Match handles `node`: a text node, or kIntersect / kUnion made only of them
  // (then scores include RediSearch's term-distance penalty, as they should).
  static bool CanMatch(const QueryNode& node);
  // The documents matching a text node (kTerm, kPrefix, kSuffix, kInfix, kWildcard,
  // kFuzzy, kPhrase; also kIntersect of text terms with slop/inorder set) within the
  // fields of `field_mask`, scored by `scorer` (term weight and field WEIGHT applied).
  // `verbatim`: no stem expansion. Expansions (prefix, fuzzy...) stop at max_expansions
  // terms (FT.CONFIG MAXEXPANSIONS). `num_docs`: documents in the search index (all, not
  // only those with text; 0: this index's own count), the N of IDF and average length.
  // `deadline`: stop reading once it expired (the documents read so far come back).
  // `stemmer`: the query's LANGUAGE, whose stems expand the terms (null: the index's).
  ScoredDocs Match(const QueryNode& node, uint64_t field_mask, Scorer scorer, bool verbatim,
                   size_t max_expansions, size_t num_docs,
                   const Deadline* deadline = nullptr, const Analyzer* stemmer = nullptr) const;
  // For each of `docs` that `node` (as given to Match) matches, the terms that matched it,
  // appended to (*out)[i] (out is resized to docs.size()).
  void MatchedTerms(const QueryNode& node, uint64_t field_mask, bool verbatim, size_t max_expansions,
                    size_t num_docs, const std::vector<DocId>& docs,
                    std::vector<std::vector<MatchedTerm>>* out,
                    const Analyzer* stemmer = nullptr) const;
  // The number of documents holding `term` (0: none).
  uint64_t TermDocs(std::string_view term) const;
  // Terms starting with `prefix` (FT.SPELLCHECK / FT.INFO helpers; sorted).
  std::vector<std::string> TermsWithPrefix(std::string_view prefix, size_t limit) const;
  TextIndexStats Stats() const;
  size_t MemoryBytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hotkv::search

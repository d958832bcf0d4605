// Internals of full-text search shared by text_index.cc (the postings: Add, Remove,
// statistics) and text_query.cc (matching and scoring). Not part of the contract.
//
// Postings: each term's documents are a list of blocks of at most kBlockEntries
// postings, varint-encoded: doc delta, frequency, field mask, offset count, offset deltas.
// Adding or removing one document re-encodes one block per term.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "search/text_index.h"

namespace hotkv::search::text_internal {

inline constexpr size_t kBlockEntries = 64;
// RediSearch indexes a word's stem as "+stem" beside the word.
inline constexpr char kStemPrefix = '+';
inline constexpr float kStemTokenFactor = 0.2f;
inline constexpr size_t kMinStemLen = 4;

inline void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline uint64_t GetVarint(const char*& p) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    const auto b = static_cast<unsigned char>(*p++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
    shift += 7;
  }
}

// A block: entries of (doc delta varint, freq, field mask, offset count, offset deltas).
// The first entry's delta is from 0.
struct Block {
  DocId last = 0;  // the block's highest doc
  uint32_t count = 0;
  std::string data;
};

// A decoded block, flat (no allocation per posting once the buffers have grown).
struct FlatBlock {
  std::vector<DocId> docs;
  std::vector<uint32_t> freqs;
  std::vector<uint64_t> masks;
  std::vector<uint32_t> pos_begin;  // docs.size() + 1 offsets into positions
  std::vector<uint32_t> positions;
  size_t size() const { return docs.size(); }
};
void DecodeBlock(const Block& b, FlatBlock* out);  // replaces out's content

struct TermData {
  uint32_t id = 0;  // index in TextIndexData::by_id
  uint32_t num_docs = 0;
  std::vector<Block> blocks;
};

using Dict = std::map<std::string, TermData, std::less<>>;

struct DocInfo {
  bool present = false;
  uint32_t len = 0;       // weighted count of the words (stems excluded): RediSearch's len
  uint32_t max_freq = 0;  // highest term frequency (stems included): RediSearch's maxFreq
  std::vector<uint32_t> terms;  // term ids (4 bytes a posting instead of a pointer)
};

struct TextIndexData {
  const Analyzer* analyzer = nullptr;
  bool store_offsets = true;
  Dict dict;
  // Exact lookups without walking the tree (keys view the dict's own strings).
  std::unordered_map<std::string_view, Dict::iterator> lookup;
  std::vector<Dict::iterator> by_id;  // term id -> term; free ids are reused
  std::vector<uint32_t> free_ids;
  std::vector<DocInfo> docs;                     // by DocId
  std::unordered_map<DocId, double> doc_scores;  // only those != 1
  std::vector<std::string> field_names;          // by field bit
  uint64_t stemmed_mask = ~uint64_t{0};          // TEXT fields without NOSTEM, by bit
  uint64_t num_docs = 0;
  uint64_t total_len = 0;
  uint64_t num_records = 0;
  uint64_t offsets_count = 0;
  uint64_t inverted_bytes = 0;
  // Terms whose last document went away since the last (emulated) garbage collection:
  // RediSearch keeps them in its trie, and counts them in num_terms, until its GC runs.
  std::unordered_set<std::string> ghost_terms;

  const TermData* Find(std::string_view term) const {
    auto it = lookup.find(term);
    return it == lookup.end() ? nullptr : &it->second->second;
  }

  double DocScore(DocId doc) const {
    auto it = doc_scores.find(doc);
    return it == doc_scores.end() ? 1.0 : it->second;
  }
};

struct MatchOptions {
  uint64_t field_mask;
  Scorer scorer;
  bool verbatim;
  size_t max_expansions;
  size_t num_docs;  // N of the IDFs and the average length
  const Deadline* deadline = nullptr;
  const Analyzer* stemmer = nullptr;  // LANGUAGE: query stems in this language (null: the index's)
};

ScoredDocs MatchText(const TextIndexData& data, const QueryNode& node, const MatchOptions& options);
// For each of `docs` that `node` matches, the dictionary terms whose postings made it
// match, appended to (*out)[i] (out->size() == docs.size()); no duplicates.
void MatchedTermsOf(const TextIndexData& data, const QueryNode& node, const MatchOptions& options,
                    const std::vector<DocId>& docs, std::vector<std::vector<MatchedTerm>>* out);

}  // namespace hotkv::search::text_internal

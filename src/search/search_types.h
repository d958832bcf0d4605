// Shared vocabulary of the query engine (FT.*): document ids and scored id lists.
//
// A search index numbers the keys it indexes with dense DocIds (reused after a key
// leaves the index). Every field index answers with ids sorted ascending, so the
// executor combines them with linear merges (intersection, union, difference).
#pragma once

#include <cstdint>
#include <vector>

namespace hotkv::search {

using DocId = uint32_t;
inline constexpr DocId kNoDoc = 0xffffffffu;

// Ids sorted ascending, no duplicates.
using DocIds = std::vector<DocId>;

// A matching document and its text relevance (0 for non-text matches).
struct ScoredDoc {
  DocId doc;
  double score;
};
// Sorted by doc ascending, no duplicates.
using ScoredDocs = std::vector<ScoredDoc>;

// FT.SEARCH SCORER. Redis 8's default is BM25STD.
enum class Scorer { kBm25Std, kBm25, kTfIdf, kTfIdfDocNorm, kDisMax, kDocScore, kHamming };

}  // namespace hotkv::search

// Shared vocabulary of the query engine (FT.*): document ids and scored id lists.
//
// A search index numbers the keys it indexes with dense DocIds (reused after a key
// leaves the index). Every field index answers with ids sorted ascending, so the
// executor combines them with linear merges (intersection, union, difference).
#pragma once

#include <cstdint>
#include <vector>

#include "common/clock.h"

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
// A query's time limit (TIMEOUT / FT.CONFIG TIMEOUT): the loops of the executor call
// Tick() per step (the clock is read every 256th) and stop early once it expired.
// One per query (not shared between threads).
struct Deadline {
  int64_t at_ns = 0;  // MonotonicNs() limit; 0: none
  mutable bool expired = false;
  mutable uint32_t ticks = 0;

  static Deadline AfterMs(int64_t ms) {
    Deadline d;
    // Beyond ~100 days (no overflow): no limit.
    if (ms > 0 && ms < int64_t{8640000000}) d.at_ns = MonotonicNs() + ms * 1000000;
    return d;
  }
  bool Expired() const {
    if (at_ns == 0) return false;
    if (!expired) expired = MonotonicNs() >= at_ns;
    return expired;
  }
  bool Tick() const {
    if (at_ns == 0) return false;
    if (expired) return true;
    if ((++ticks & 255u) != 0) return false;
    return Expired();
  }
};

enum class Scorer { kBm25Std, kBm25, kTfIdf, kTfIdfDocNorm, kDisMax, kDocScore, kHamming };

}  // namespace hotkv::search

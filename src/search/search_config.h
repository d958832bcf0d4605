// FT.CONFIG's settings that the query engine reads (ftagg's FT.CONFIG GET/SET changes
// them). Atomics: read on every query without a lock.
#pragma once

#include <atomic>
#include <cstdint>

#include "search/search_types.h"

namespace hotkv::search {

struct SearchSettings {
  std::atomic<int> default_dialect{1};              // DEFAULT_DIALECT
  std::atomic<uint64_t> max_expansions{200};        // MAXEXPANSIONS
  std::atomic<int64_t> timeout_ms{500};             // TIMEOUT (0: none)
  std::atomic<bool> on_timeout_fail{false};         // ON_TIMEOUT FAIL (else RETURN)
  std::atomic<uint64_t> max_search_results{1000000};     // MAXSEARCHRESULTS
  std::atomic<uint64_t> max_aggregate_results{1000000};  // MAXAGGREGATERESULTS
  std::atomic<int64_t> min_prefix{2};               // MINPREFIX
  // DEFAULT_SCORER: RediSearch 2.10 (the Redis 8.8 peer) defaults to TFIDF.
  std::atomic<Scorer> default_scorer{Scorer::kTfIdf};
};

SearchSettings& Settings();

}  // namespace hotkv::search

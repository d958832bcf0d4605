// EXP (experiment only, to be removed): A/B switches and counters for the insert-cost work.
#ifndef HOTKV_VECTOR_EXP_FLAGS_H_
#define HOTKV_VECTOR_EXP_FLAGS_H_
#include <cstdint>
#include <x86intrin.h>
namespace hotkv::vector::exp {
inline bool g_memo = true;      // distance memo
inline bool g_selorder = true;  // SelectNeighbors move-to-front dominator order
inline uint32_t g_window = 0;   // SelectNeighbors scan window (0 = all)
// distance counters: 0 greedy, 1 upper beam, 2 L0 beam (insert), 3 select, 4 prune,
// 5 memo hits in walks, 6 memo hits in prune, 7 query L0 beam
inline uint64_t g_dist[8];
// tsc per insert phase: 0 descent, 1 upper beams, 2 L0 beam, 3 select, 4 write, 5 backlinks
inline uint64_t g_tsc[8];
inline uint64_t g_inserts;
inline uint64_t Tsc() { return __rdtsc(); }
}  // namespace hotkv::vector::exp
#endif

// EXP (experiment only, not for merging): switches for in-process A/B runs.
#ifndef HOTKV_VECTOR_EXP_FLAGS_H_
#define HOTKV_VECTOR_EXP_FLAGS_H_
namespace hotkv::vector::exp {
inline bool g_nohuge = false;   // NodeStore: no huge-page slabs for chunks mapped now
inline bool g_nogdpf = false;   // GreedyDescent: no prefetch
inline bool g_nogdvis = false;  // GreedyDescent: no visited set
inline bool g_pflist = false;  // SearchLayer: prefetch an admitted candidate's list
inline unsigned long g_dist[5][2] = {};  // distances: [level 0..3+, greedy][query, insert]
inline unsigned g_pflines = 0;  // SearchLayer: lines prefetched per neighbour (0: default)
inline unsigned g_pfnext = 0;   // SearchLayer: prefetch the rest of the record this many ahead
}  // namespace hotkv::vector::exp
#endif

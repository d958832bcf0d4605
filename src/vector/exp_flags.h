// EXP (experiment only, not for merging): switches for in-process A/B runs.
#ifndef HOTKV_VECTOR_EXP_FLAGS_H_
#define HOTKV_VECTOR_EXP_FLAGS_H_
namespace hotkv::vector::exp {
inline bool g_nohuge = false;   // NodeStore: no huge-page slabs for chunks mapped now
inline bool g_nogdpf = false;   // GreedyDescent: no prefetch
}  // namespace hotkv::vector::exp
#endif

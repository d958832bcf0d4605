// Per-slot command statistics for CLUSTER SLOT-STATS' cpu-usec, network-bytes-in and
// network-bytes-out (cluster/ installs the hook; server/ never includes cluster/).
//
// The cluster router sets t_routed_slot for a command it accepted that has keys in one
// slot. While `cluster-slot-stats-enabled` has cpu or net, g_slot_stats_hook is set and
// Dispatch reports each such command once it returned: its slot, its arguments (the
// hook counts their RESP size as bytes in), the microseconds it ran and the bytes of
// its reply. Dispatch resets t_routed_slot after every command.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hotkv {

inline thread_local int t_routed_slot = -1;

using SlotStatsHook = void (*)(int slot, const std::vector<std::string_view>& args,
                               int64_t usec, size_t bytes_out);
inline std::atomic<SlotStatsHook> g_slot_stats_hook{nullptr};

}  // namespace hotkv

// The clock of the AI caches' own expiries (SCACHE entry TTLs, and later PCACHE / MEM
// ages): the worker's cached wall clock (common/clock.h, one reading per batch) plus an
// offset that tests move with `AI.DEBUG CLOCK-ADVANCE ms` (needs enable-debug-command), so
// TTL and recency tests need no sleeping. Key TTLs (EXPIRE) are not affected.
//
// Thread safety: the offset is an atomic, read with one relaxed load.
#pragma once

#include <atomic>
#include <cstdint>

#include "server/command_context.h"

namespace hotkv::ai {

inline std::atomic<int64_t> g_ai_clock_offset_ms{0};

inline int64_t AiNowMs(const CommandContext& ctx) {
  return ctx.now_ms() + g_ai_clock_offset_ms.load(std::memory_order_relaxed);
}

}  // namespace hotkv::ai

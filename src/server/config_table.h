// The parameter table behind Config: one row per parameter of Redis 8.8 (names, kinds,
// ranges and defaults as the redis-server 8.8 binary reports and checks them) and per
// HotKV option, with what HotKV does with it.
//
// Thread safety: constant data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "server/config.h"

namespace hotkv {

struct ConfigRow {
  const char* name;
  const char* aliases;  // space separated
  Config::Kind kind;
  int64_t min, max;  // kInt / kMemory
  // kEnum / kFlags: the values in Redis's order, "name" or "name=number" (two names with
  // one number are synonyms; kFlags numbers are bits, a name may stand for several).
  const char* values;
  const char* default_value;  // as CONFIG GET shows it, parsed like any value
  uint32_t flags;             // Config::Flag
  Config::Use use;
  const char* note;  // what HotKV does with it (README's table)
};

extern const ConfigRow kConfigRows[];
extern const size_t kConfigRowCount;

}  // namespace hotkv

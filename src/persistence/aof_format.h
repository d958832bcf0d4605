// The AOF's command format: RESP arrays of bulk strings, `#` annotation lines (Redis's
// aof-timestamp-enabled), read with exact byte offsets so that a torn tail can be told
// from damage. No server dependency: the loader and hotkv-check-aof share it.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::persistence {

// One RESP command parsed from `data` at `*pos` (advanced past it on kOk). kTorn: the
// data ends inside it; kBad: not the format (`why` says what).
enum class ParseResult { kOk, kTorn, kBad };
ParseResult ParseCommand(std::string_view data, size_t* pos, std::vector<std::string_view>* args,
                         std::string* why);

// What a whole file of commands holds.
struct AofCheck {
  ParseResult result = ParseResult::kOk;  // kTorn: a torn last command or an open MULTI
  size_t valid_end = 0;                   // bytes up to the last complete command outside a MULTI
  size_t bad_offset = 0;                  // kBad: where the damage starts
  std::string why;
  uint64_t commands = 0;
};
AofCheck CheckAofCommands(std::string_view data);

}  // namespace hotkv::persistence

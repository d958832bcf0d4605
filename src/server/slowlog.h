// SlowLog: the last N commands that ran longer than slowlog-log-slower-than µs.
//
// An entry keeps what Redis keeps: at most 32 arguments (the 32nd becomes "... (N more
// arguments)"), each at most 128 bytes ("... (N more bytes)"), arguments the command
// redacted (passwords: AUTH, HELLO AUTH, CONFIG SET requirepass/masterauth) as
// "(redacted)", the client's address and name. Nothing is logged while slowlog-max-len is
// 0. Counters for INFO stats (slowlog_commands_*) count every entry added; CONFIG
// RESETSTAT resets them, SLOWLOG RESET only drops the entries.
//
// Thread safety: all methods lock an internal mutex; it is taken only when a command is
// slow enough to be logged, or by SLOWLOG and INFO.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

struct SlowLogEntry {
  uint64_t id;
  int64_t time_sec;
  int64_t duration_us;
  std::vector<std::string> args;
  std::string client_addr;
  std::string client_name;
};

class SlowLog {
 public:
  static constexpr size_t kMaxArgs = 32;       // Redis's SLOWLOG_ENTRY_MAX_ARGC
  static constexpr size_t kMaxArgLen = 128;    // Redis's SLOWLOG_ENTRY_MAX_STRING

  // Records a command unless max_len is 0; returns whether it did. Bit i of `redacted`
  // replaces argument i by "(redacted)".
  bool Add(const std::vector<std::string_view>& args, int64_t duration_us,
           std::string_view addr, std::string_view name, size_t max_len,
           uint64_t redacted = 0);
  std::vector<SlowLogEntry> Get(size_t count);
  size_t Len();
  void Reset();

  // INFO stats: slowlog_commands_count, slowlog_commands_time_ms_sum / _max (µs here).
  struct Totals {
    uint64_t count = 0;
    uint64_t us_sum = 0;
    uint64_t us_max = 0;
  };
  Totals GetTotals();
  void ResetTotals();

 private:
  std::mutex mu_;
  std::deque<SlowLogEntry> entries_;  // newest first
  uint64_t next_id_ = 0;
  Totals totals_;
};

}  // namespace hotkv

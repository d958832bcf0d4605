// SlowLog: the last N commands that ran longer than slowlog-log-slower-than µs.
//
// Thread safety: all methods lock an internal mutex; it is taken only when a command is
// slow enough to be logged, or by SLOWLOG itself.
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
  // Records a command; args are truncated as Redis does (32 args, 128 bytes each).
  void Add(const std::vector<std::string_view>& args, int64_t duration_us,
           std::string_view addr, std::string_view name, size_t max_len);
  std::vector<SlowLogEntry> Get(size_t count);
  size_t Len();
  void Reset();

 private:
  std::mutex mu_;
  std::deque<SlowLogEntry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace hotkv

// Save rules (`save <seconds> <changes> ...`) and the decision Redis's serverCron makes
// with them: start a BGSAVE when, for some rule, at least <changes> changes happened and
// at least <seconds> passed since the last successful save — and, after a failed
// BGSAVE, not before CONFIG_BGSAVE_RETRY_DELAY (5 s) since that try.
//
//   std::vector<SaveRule> rules = ParseSaveRules(config.GetString("save"));
//   if (SaveDue(rules, state, now_s)) { start a BGSAVE }
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace hotkv::persistence {

struct SaveRule {
  int64_t seconds = 0;
  int64_t changes = 0;
};

// Redis's CONFIG_BGSAVE_RETRY_DELAY: seconds between a failed BGSAVE and the next
// automatic try.
inline constexpr int64_t kBgsaveRetryDelaySeconds = 5;

// "3600 1 300 100" (the value CONFIG GET save shows) -> rules; "" -> none. Malformed
// text (odd word count, a non-number, seconds < 1, changes < 0) -> nullopt.
std::optional<std::vector<SaveRule>> ParseSaveRules(std::string_view text);

struct SaveState {
  uint64_t changes = 0;        // changes since the last successful save
  int64_t last_save_s = 0;     // unix time of the last successful save
  int64_t last_try_s = 0;      // unix time of the last BGSAVE attempt
  bool last_bgsave_ok = true;  // rdb_last_bgsave_status
};

// Whether the cron should start a BGSAVE now (Redis's serverCron condition).
bool SaveDue(const std::vector<SaveRule>& rules, const SaveState& st, int64_t now_s);

}  // namespace hotkv::persistence

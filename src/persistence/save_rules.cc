// Save rules: parsing and Redis's serverCron condition (see save_rules.h).
#include "persistence/save_rules.h"

#include "common/string_util.h"

namespace hotkv::persistence {

std::optional<std::vector<SaveRule>> ParseSaveRules(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') {
      i++;
    }
    size_t start = i;
    while (i < text.size() && text[i] != ' ') {
      i++;
    }
    if (i > start) {
      words.push_back(text.substr(start, i - start));
    }
  }
  if (words.size() % 2 != 0) {
    return std::nullopt;
  }
  std::vector<SaveRule> rules;
  for (size_t w = 0; w < words.size(); w += 2) {
    std::optional<int64_t> seconds = ParseInt64(words[w]);
    std::optional<int64_t> changes = ParseInt64(words[w + 1]);
    if (!seconds || !changes || *seconds < 1 || *changes < 0) {
      return std::nullopt;
    }
    rules.push_back({*seconds, *changes});
  }
  return rules;
}

bool SaveDue(const std::vector<SaveRule>& rules, const SaveState& st, int64_t now_s) {
  for (const SaveRule& r : rules) {
    // As Redis: enough changes, enough time, and either the last BGSAVE worked or the
    // retry delay since the failed try has passed.
    if (st.changes >= static_cast<uint64_t>(r.changes) && now_s - st.last_save_s > r.seconds &&
        (st.last_bgsave_ok || now_s - st.last_try_s > kBgsaveRetryDelaySeconds)) {
      return true;
    }
  }
  return false;
}

}  // namespace hotkv::persistence

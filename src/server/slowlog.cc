#include "server/slowlog.h"

#include <algorithm>
#include <ctime>

namespace hotkv {

bool SlowLog::Add(const std::vector<std::string_view>& args, int64_t duration_us,
                  std::string_view addr, std::string_view name, size_t max_len,
                  uint64_t redacted) {
  if (max_len == 0) {
    return false;  // Redis: "slowlog disabled"
  }
  SlowLogEntry e;
  e.time_sec = time(nullptr);
  e.duration_us = duration_us;
  size_t n = std::min(args.size(), kMaxArgs);
  for (size_t i = 0; i < n; i++) {
    if (i == kMaxArgs - 1 && args.size() > kMaxArgs) {
      e.args.push_back("... (" + std::to_string(args.size() - kMaxArgs + 1) + " more arguments)");
      break;
    }
    std::string_view a = args[i];
    if (i < 64 && (redacted >> i) & 1) {
      e.args.emplace_back("(redacted)");
    } else if (a.size() > kMaxArgLen) {
      e.args.push_back(std::string(a.substr(0, kMaxArgLen)) + "... (" +
                       std::to_string(a.size() - kMaxArgLen) + " more bytes)");
    } else {
      e.args.emplace_back(a);
    }
  }
  e.client_addr = std::string(addr);
  e.client_name = std::string(name);
  std::lock_guard<std::mutex> g(mu_);
  e.id = next_id_++;
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) {
    entries_.pop_back();
  }
  const uint64_t us = duration_us > 0 ? static_cast<uint64_t>(duration_us) : 0;
  totals_.count++;
  totals_.us_sum += us;
  totals_.us_max = std::max(totals_.us_max, us);
  return true;
}

std::vector<SlowLogEntry> SlowLog::Get(size_t count) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<SlowLogEntry> out;
  for (size_t i = 0; i < entries_.size() && i < count; i++) {
    out.push_back(entries_[i]);
  }
  return out;
}

size_t SlowLog::Len() {
  std::lock_guard<std::mutex> g(mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  std::lock_guard<std::mutex> g(mu_);
  entries_.clear();
}

SlowLog::Totals SlowLog::GetTotals() {
  std::lock_guard<std::mutex> g(mu_);
  return totals_;
}

void SlowLog::ResetTotals() {
  std::lock_guard<std::mutex> g(mu_);
  totals_ = Totals{};
}

}  // namespace hotkv

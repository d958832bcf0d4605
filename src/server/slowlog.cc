#include "server/slowlog.h"

#include <ctime>

namespace hotkv {

void SlowLog::Add(const std::vector<std::string_view>& args, int64_t duration_us,
                  std::string_view addr, std::string_view name, size_t max_len) {
  constexpr size_t kMaxArgs = 32;
  constexpr size_t kMaxArgLen = 128;
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
    if (a.size() > kMaxArgLen) {
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

}  // namespace hotkv

#include "server/monitor.h"

#include <sys/time.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "protocol/reply_builder.h"
#include "common/string_util.h"
#include "server/client.h"
#include "server/worker.h"

namespace hotkv {

void MonitorFeed::Add(Client& c) {
  std::lock_guard<std::mutex> g(mu_);
  monitors_.emplace_back(c.worker(), c.id());
  c.monitor_flag.store(true, std::memory_order_relaxed);
  count_.store(static_cast<int>(monitors_.size()), std::memory_order_relaxed);
}

void MonitorFeed::Remove(uint64_t client_id) {
  std::lock_guard<std::mutex> g(mu_);
  monitors_.erase(std::remove_if(monitors_.begin(), monitors_.end(),
                                 [client_id](const auto& m) { return m.second == client_id; }),
                  monitors_.end());
  count_.store(static_cast<int>(monitors_.size()), std::memory_order_relaxed);
}

void MonitorFeed::Feed(const Client& c, int db, const std::vector<std::string_view>& args,
                       uint64_t redacted) {
  if (c.monitor_origin == nullptr && c.addr.empty()) {
    return;  // an in-process client (the AOF loader)
  }
  // " [db origin] "arg" ..." first, outside the lock; the timestamp goes in front under it.
  std::string tail;
  tail.reserve(64);
  tail += " [";
  tail += std::to_string(db);
  tail += ' ';
  if (c.monitor_origin != nullptr) {
    tail += c.monitor_origin;
  } else {
    tail += c.addr;
  }
  tail += ']';
  for (size_t i = 0; i < args.size(); i++) {
    tail += ' ';
    if (i < 64 && ((redacted >> i) & 1)) {
      tail += "\"(redacted)\"";
    } else {
      AppendQuotedRepr(tail, args[i]);
    }
  }
  tail += "\r\n";
  std::lock_guard<std::mutex> g(mu_);
  if (monitors_.empty()) {
    return;
  }
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  char ts[48];
  int n = snprintf(ts, sizeof(ts), "+%ld.%06ld", static_cast<long>(tv.tv_sec),
                   static_cast<long>(tv.tv_usec));
  auto line = std::make_shared<std::string>();
  line->reserve(static_cast<size_t>(n) + tail.size());
  line->append(ts, static_cast<size_t>(n));
  line->append(tail);
  for (const auto& [w, id] : monitors_) {
    Worker* target = w;
    const uint64_t client_id = id;
    target->Post([this, target, client_id, line] {
      Client* m = target->FindClient(client_id);
      if (m == nullptr || !m->monitor_flag.load(std::memory_order_relaxed)) {
        Remove(client_id);
        return;
      }
      ReplyBuilder* out = m->output();
      if (out == nullptr) {
        return;
      }
      out->buffer()->Append(*line);
      target->MarkForFlush(m);
    });
  }
}

}  // namespace hotkv

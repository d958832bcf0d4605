#include "server/client_pause.h"

#include "server/connection.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv {

void ClientPause::Pause(Server& server, int64_t end_ms, uint32_t actions) {
  std::lock_guard<std::mutex> g(mu_);
  if (held_.empty()) {
    held_.resize(static_cast<size_t>(server.num_workers()));
  }
  if (end_ms_.load(std::memory_order_relaxed) < end_ms || actions_.load() == 0) {
    end_ms_.store(end_ms, std::memory_order_relaxed);
  }
  actions_.store(actions, std::memory_order_relaxed);
}

void ClientPause::Unpause(Server& server) {
  std::vector<std::vector<uint64_t>> held;
  {
    std::lock_guard<std::mutex> g(mu_);
    actions_.store(0, std::memory_order_relaxed);
    end_ms_.store(0, std::memory_order_relaxed);
    held.swap(held_);
    held_.resize(static_cast<size_t>(server.num_workers()));
  }
  for (size_t i = 0; i < held.size(); i++) {
    if (held[i].empty()) {
      continue;
    }
    Worker* w = &server.worker(static_cast<int>(i));
    w->Post([w, ids = std::move(held[i])] {
      for (uint64_t id : ids) {
        Connection* c = w->FindConnection(id);
        if (c == nullptr || !c->pause_held) {
          continue;
        }
        c->pause_held = false;
        c->blocked_flag.store(false, std::memory_order_relaxed);
        w->ResumeConnection(c);
      }
    });
  }
}

uint32_t ClientPause::Check(Server& server, int64_t now_ms) {
  const uint32_t a = actions();
  if (a != 0 && end_ms_.load(std::memory_order_relaxed) <= now_ms) {
    Unpause(server);
    return 0;
  }
  return a;
}

bool ClientPause::Hold(Connection& c) {
  std::lock_guard<std::mutex> g(mu_);
  if (actions_.load(std::memory_order_relaxed) == 0) {
    return false;
  }
  c.pause_held = true;
  c.blocked_flag.store(true, std::memory_order_relaxed);
  held_[static_cast<size_t>(c.worker_index())].push_back(c.id());
  return true;
}

}  // namespace hotkv

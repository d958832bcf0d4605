#include "pubsub/registry.h"

#include <algorithm>
#include <mutex>

#include "common/string_util.h"

namespace hotkv {

namespace {

bool AddSub(std::vector<Subscriber>& list, Subscriber s) {
  for (const auto& x : list) {
    if (x.client_id == s.client_id) {
      return false;
    }
  }
  list.push_back(s);
  return true;
}

bool RemoveSub(std::vector<Subscriber>& list, uint64_t id) {
  for (size_t i = 0; i < list.size(); i++) {
    if (list[i].client_id == id) {
      list[i] = list.back();
      list.pop_back();
      return true;
    }
  }
  return false;
}

// Per-worker grouping of one message's receivers.
void Group(const std::vector<Subscriber>& subs, std::vector<std::vector<uint64_t>>& by_worker) {
  for (const auto& s : subs) {
    if (static_cast<size_t>(s.worker) >= by_worker.size()) {
      by_worker.resize(static_cast<size_t>(s.worker) + 1);
    }
    by_worker[static_cast<size_t>(s.worker)].push_back(s.client_id);
  }
}

}  // namespace

bool PubsubRegistry::Subscribe(Space space, const std::string& channel, Subscriber s) {
  std::unique_lock<std::shared_mutex> g(mu_);
  return AddSub(channels_[space][channel], s);
}

bool PubsubRegistry::Unsubscribe(Space space, const std::string& channel, uint64_t client_id) {
  std::unique_lock<std::shared_mutex> g(mu_);
  auto it = channels_[space].find(channel);
  if (it == channels_[space].end()) {
    return false;
  }
  bool removed = RemoveSub(it->second, client_id);
  if (it->second.empty()) {
    channels_[space].erase(it);
  }
  return removed;
}

bool PubsubRegistry::PSubscribe(const std::string& pattern, Subscriber s) {
  std::unique_lock<std::shared_mutex> g(mu_);
  for (auto& [p, subs] : patterns_) {
    if (p == pattern) {
      bool added = AddSub(subs, s);
      pattern_subs_ += added;
      return added;
    }
  }
  patterns_.emplace_back(pattern, std::vector<Subscriber>{s});
  pattern_subs_++;
  return true;
}

bool PubsubRegistry::PUnsubscribe(const std::string& pattern, uint64_t client_id) {
  std::unique_lock<std::shared_mutex> g(mu_);
  for (size_t i = 0; i < patterns_.size(); i++) {
    if (patterns_[i].first == pattern) {
      bool removed = RemoveSub(patterns_[i].second, client_id);
      pattern_subs_ -= removed;
      if (patterns_[i].second.empty()) {
        patterns_[i] = std::move(patterns_.back());
        patterns_.pop_back();
      }
      return removed;
    }
  }
  return false;
}

bool PubsubRegistry::HasSubscribers() const {
  std::shared_lock<std::shared_mutex> g(mu_);
  return !channels_[kChannel].empty() || !patterns_.empty();
}

int64_t PubsubRegistry::Publish(Space space, std::string_view channel, std::string_view message,
                                const PostFn& post) {
  int64_t receivers = 0;
  std::shared_ptr<const std::string> payload;
  auto make_payload = [&] {
    if (!payload) {
      payload = std::make_shared<const std::string>(message);
    }
    return payload;
  };
  thread_local std::vector<std::vector<uint64_t>> by_worker;
  std::vector<std::pair<int, std::shared_ptr<PubsubDelivery>>> out;
  {
    std::shared_lock<std::shared_mutex> g(mu_);
    auto it = channels_[space].find(std::string(channel));
    if (it != channels_[space].end() && !it->second.empty()) {
      for (auto& v : by_worker) {
        v.clear();
      }
      Group(it->second, by_worker);
      receivers += static_cast<int64_t>(it->second.size());
      for (size_t w = 0; w < by_worker.size(); w++) {
        if (by_worker[w].empty()) {
          continue;
        }
        auto d = std::make_shared<PubsubDelivery>();
        d->kind = space == kShard ? PubsubDelivery::kSMessage : PubsubDelivery::kMessage;
        d->channel = std::string(channel);
        d->payload = make_payload();
        d->client_ids = by_worker[w];
        out.emplace_back(static_cast<int>(w), std::move(d));
      }
    }
    if (space == kChannel) {
      for (const auto& [pattern, subs] : patterns_) {
        if (subs.empty() || !GlobMatch(pattern, channel)) {
          continue;
        }
        for (auto& v : by_worker) {
          v.clear();
        }
        Group(subs, by_worker);
        receivers += static_cast<int64_t>(subs.size());
        for (size_t w = 0; w < by_worker.size(); w++) {
          if (by_worker[w].empty()) {
            continue;
          }
          auto d = std::make_shared<PubsubDelivery>();
          d->kind = PubsubDelivery::kPMessage;
          d->channel = std::string(channel);
          d->pattern = pattern;
          d->payload = make_payload();
          d->client_ids = by_worker[w];
          out.emplace_back(static_cast<int>(w), std::move(d));
        }
      }
    }
  }
  for (auto& [w, d] : out) {
    post(w, std::move(d));
  }
  return receivers;
}

std::vector<std::string> PubsubRegistry::Channels(Space space, std::string_view pattern, bool all) {
  std::shared_lock<std::shared_mutex> g(mu_);
  std::vector<std::string> out;
  for (const auto& [ch, subs] : channels_[space]) {
    if (!subs.empty() && (all || GlobMatch(pattern, ch))) {
      out.push_back(ch);
    }
  }
  return out;
}

int64_t PubsubRegistry::NumSub(Space space, std::string_view channel) {
  std::shared_lock<std::shared_mutex> g(mu_);
  auto it = channels_[space].find(std::string(channel));
  return it == channels_[space].end() ? 0 : static_cast<int64_t>(it->second.size());
}

int64_t PubsubRegistry::NumPat() {
  std::shared_lock<std::shared_mutex> g(mu_);
  return static_cast<int64_t>(patterns_.size());
}

size_t PubsubRegistry::ChannelCount(Space space) {
  std::shared_lock<std::shared_mutex> g(mu_);
  return channels_[space].size();
}

}  // namespace hotkv

// SubscriptionState: the channels, patterns and shard channels one client subscribes to.
//
// Thread safety: owned by the client's worker.
#pragma once

#include <set>
#include <string>

namespace hotkv {

struct SubscriptionState {
  std::set<std::string> channels;
  std::set<std::string> patterns;
  std::set<std::string> shard_channels;

  size_t total() const { return channels.size() + patterns.size() + shard_channels.size(); }
};

}  // namespace hotkv

// ClusterScriptHooks: cluster mode's check of the commands a script runs (redis.call),
// Redis's scriptVerifyClusterState. Declared here for scripting/, implemented by
// cluster/ (cluster_family.cc) and installed by it when cluster-enabled is yes; null
// otherwise (one relaxed load per redis.call).
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

class Client;
class CommandSpec;
class Server;

class ClusterScriptHooks {
 public:
  virtual ~ClusterScriptHooks() = default;
  // The command's keys must be served here ("ERR Script attempted to access a non local
  // key in a cluster node", or the cluster-down texts) and, unless `allow_cross_slot`,
  // be in one slot with the script's other keys: `*script_slot` is the slot of the
  // script's first declared key or of the first key it touched (-1 before any).
  virtual bool RouteFromScript(Server& server, Client& caller, const CommandSpec* cmd,
                               const std::vector<std::string_view>& args,
                               bool allow_cross_slot, int* script_slot,
                               std::string* error) = 0;
};

namespace cluster_script_hooks_internal {
inline std::atomic<ClusterScriptHooks*> g_hooks{nullptr};
}  // namespace cluster_script_hooks_internal

inline void SetClusterScriptHooks(ClusterScriptHooks* hooks) {
  cluster_script_hooks_internal::g_hooks.store(hooks, std::memory_order_release);
}
inline ClusterScriptHooks* GetClusterScriptHooks() {
  return cluster_script_hooks_internal::g_hooks.load(std::memory_order_acquire);
}

}  // namespace hotkv

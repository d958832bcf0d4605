// Cluster mode's registration (main.cc): the CLUSTER command and ASKING / READONLY /
// READWRITE, and, when cluster-enabled is yes, the node's state (nodes.conf loaded or
// created), the routing hooks the dispatcher calls (server/cluster_hooks.h), and a
// 100 ms cron thread (state update, nodes.conf saves, handshake timeouts).
//
//   hotkv::cluster::RegisterClusterCommands(table);
//   hotkv::cluster::ClusterRuntime cluster;
//   if (Status st = cluster.Start(server, config); !st.ok()) { ...refuse to start... }
//   ... server.Run() ...
//   cluster.Stop();
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/cluster_state.h"
#include "common/status.h"

namespace hotkv {
class CommandTable;
class Config;
class Server;
}  // namespace hotkv

namespace hotkv::cluster {

void RegisterClusterCommands(CommandTable& table);

class ClusterRouter;
class ClusterBus;

class ClusterRuntime {
 public:
  ClusterRuntime();
  ~ClusterRuntime();
  // Does nothing (ok) when cluster-enabled is no. Otherwise loads or creates nodes.conf
  // (an error for a corrupt one: the caller refuses to start), installs the hooks and
  // starts the cluster bus (cluster_bus.h) on the cluster port and the cron thread.
  Status Start(Server& server, Config& config);
  void Stop();
  ClusterState* state() { return state_.get(); }
  bool enabled() const { return state_ != nullptr; }

 private:
  void Cron();

  Server* server_ = nullptr;
  std::unique_ptr<ClusterState> state_;
  std::unique_ptr<ClusterRouter> router_;
  std::unique_ptr<ClusterBus> bus_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

// The settings the cluster layer reads, from the server's config (cluster-*, port).
ClusterSettings SettingsFromConfig(Config& config);

}  // namespace hotkv::cluster

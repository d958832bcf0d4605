// ClusterBus: the Redis Cluster bus runtime — one thread with its own epoll loop on the
// cluster port, the links to and from the other nodes, and the protocol that keeps
// ClusterState in step with the rest of the cluster (docs/cluster.md, "The cluster bus"):
//   - MEET handshake: CLUSTER MEET adds a node in handshake under a random name; the
//     first PONG on the outbound link gives its real name and the node is renamed.
//   - PING/PONG every cron tick (100 ms): each second one of five random nodes with the
//     oldest PONG; any node whose PONG is older than node-timeout/2; gossip sections
//     about max(3, nodes/10) random nodes plus every PFAIL node.
//   - Node discovery from gossip, failure reports, PFAIL after node-timeout without a
//     PONG, FAIL (broadcast) once a majority of primaries reported it.
//   - Slot ownership by configEpoch (a claim wins where the claimer's epoch is higher),
//     UPDATE messages to nodes with a stale view, configEpoch collision resolution.
//   - PUBLISH / PUBLISHSHARD fan-out and delivery, FAILOVER_AUTH_REQUEST votes.
//
// Thread safety: the loop thread owns the links. Public methods may be called from any
// thread (they post to the loop through a mutex-protected queue and an eventfd). The
// bus takes ClusterState's lock while it handles a packet or runs its cron; it never
// holds its own queue mutex while taking the state's lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cluster/bus_message.h"
#include "cluster/cluster_state.h"
#include "common/status.h"

namespace hotkv {
class Server;
}  // namespace hotkv

namespace hotkv::cluster {

class ClusterBus : public BusInterface {
 public:
  // Delivers a PUBLISH (shard=false) or PUBLISHSHARD received from another node to this
  // node's subscribers. Called on the bus thread.
  using DeliverFn = std::function<void(std::string_view channel, std::string_view message,
                                       bool shard)>;

  explicit ClusterBus(ClusterState* state);
  ~ClusterBus() override;

  // Listens on `bind_addrs` (empty: every address) at `port` (the cluster port) and
  // starts the loop thread.
  Status Start(const std::vector<std::string>& bind_addrs, int port);
  void Stop();
  // Before Start() (the loop thread reads it unsynchronised).
  void SetDeliver(DeliverFn fn) { deliver_ = std::move(fn); }

  // Cluster-wide pub/sub: sends a PUBLISH to every connected node (PUBLISHSHARD: to the
  // nodes of this node's shard). Any thread.
  void Publish(std::string_view channel, std::string_view message, bool shard);

  // server/pubsub_delivery.h's ClusterPublishHook: `self` is the bus.
  static void PublishHook(void* self, bool shard, std::string_view channel,
                          std::string_view message) {
    static_cast<ClusterBus*>(self)->Publish(channel, message, shard);
  }

  // BusInterface.
  void Wakeup() override;
  std::vector<LinkInfo> Links() override;
  void NodeDeleted(const std::string& name) override;
  std::vector<std::pair<std::string, int64_t>> MessageStats() override;

  int listen_port() const { return port_; }

 private:
  struct Link;

  void Run();
  void Cron(int64_t now);
  void DrainQueue();
  void Accept(int lfd);
  void HandleReadable(Link* l);
  void HandleWritable(Link* l);
  void CloseLink(Link* l);
  Link* ConnectTo(const Node& n, int64_t now);
  void UpdateEvents(Link* l);
  void Send(Link* l, const std::string& bytes, uint16_t type);
  void ProcessPacket(Link* l, std::string_view data, int64_t now);
  bool ProcessPingFamily(Link* l, const bus::Message& m, Node* sender, int64_t now);
  void ProcessGossip(const bus::Message& m, Node* sender, int64_t now);
  void MarkFailingIfNeeded(Node* n, int64_t now);
  void MaybeVote(Link* l, const bus::Message& m, Node* sender, int64_t now);
  void ClearFailureIfNeeded(Node* n, int64_t now);
  void UpdateAddressIfNeeded(Node* n, Link* l, const bus::Message& m);

  // Messages (state lock held).
  void BuildHeader(bus::Message* m, uint16_t type);
  void SendPing(Link* l, uint16_t type, int64_t now);
  void Broadcast(const std::string& bytes, uint16_t type);
  void SendFail(const std::string& name);
  void SendUpdate(Link* l, const Node& owner);
  std::string NodeIp(Link* l, const bus::Message& m) const;
  Link* OutboundLink(const std::string& name);

  ClusterState* state_;
  DeliverFn deliver_;
  int port_ = 0;
  std::vector<int> listen_fds_;
  int epfd_ = -1;
  int wakefd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  // Loop-thread state.
  std::unordered_map<int, std::unique_ptr<Link>> links_;   // by fd
  std::unordered_map<std::string, Link*> outbound_;        // node name -> its link
  std::unordered_map<std::string, bool> supports_ext_;     // node sent kFlag0ExtData
  // Whether a node knows the extension types after the hostname: true once it sent a
  // shard id (Redis >= 7.2, HotKV), false when it sent extensions without one (Redis 7.0
  // with a hostname, which logs a warning for each unknown type); unknown: sent.
  std::unordered_map<std::string, bool> knows_shard_ext_;
  int64_t iteration_ = 0;
  uint64_t rng_ = 0x9e3779b97f4a7c15ull;

  // Cross-thread queue.
  std::mutex qmu_;
  std::vector<std::string> deleted_;                       // NodeDeleted names
  std::vector<std::pair<std::string, std::string>> pubs_;  // encoded messages, by kind
  std::vector<bool> pub_shard_;
  std::vector<LinkInfo> links_snapshot_;

  std::atomic<int64_t> sent_[bus::kNumMsgTypes] = {};
  std::atomic<int64_t> received_[bus::kNumMsgTypes] = {};
};

// Starts the bus for a running server (cluster-enabled yes): listens on `bind` x `port`
// (the cluster port), installs it as `state`'s bus and as the server's cluster publish
// hook, and delivers PUBLISH/PUBLISHSHARD from other nodes to the server's subscribers.
Result<std::unique_ptr<ClusterBus>> StartClusterBus(Server& server, ClusterState* state,
                                                     const std::vector<std::string>& bind,
                                                     int port);
// Undoes StartClusterBus (hook, state's bus pointer, thread, sockets).
void StopClusterBus(ClusterState* state, std::unique_ptr<ClusterBus>& bus);

}  // namespace hotkv::cluster

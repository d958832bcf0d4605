// ClusterHooks: what the dispatcher asks of Redis Cluster mode (src/cluster/). server/
// declares it and never includes cluster/; main.cc installs the implementation with
// Server::set_cluster() when cluster-enabled is yes. With cluster mode off the pointer is
// null and the dispatcher pays one predictable branch per command.
//
// The routing decision is made once per command, before MULTI queueing, from the command
// table's key specs (as Redis's getNodeByQuery): -MOVED / -ASK / -CROSSSLOT / -TRYAGAIN /
// -CLUSTERDOWN, or run here. EXEC is routed over its whole queue.
//
// Thread safety: called on the client's worker thread; implementations read the slot
// table without locks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

class Client;
class CommandSpec;
class Server;
struct QueuedCommand;

class ClusterHooks {
 public:
  virtual ~ClusterHooks() = default;
  // A command that has keys (key specs or movable keys; not EXEC): true to run it here,
  // false with `*error` set to the reply's error text (no leading '-').
  virtual bool Route(Server& server, Client& client, const CommandSpec* cmd,
                     const std::vector<std::string_view>& args, std::string* error) = 0;
  // EXEC of a transaction: the queued commands taken as one request.
  virtual bool RouteExec(Server& server, Client& client, const std::vector<QueuedCommand>& queue,
                         std::string* error) = 0;
  // The "# Cluster" section of INFO (with its header line, \r\n line ends).
  virtual std::string InfoSection() = 0;

  // Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK...), Redis's
  // clusterRedirectBlockedClientIfNeeded: the worker's cron re-checks them when this
  // value moved since its last check (it moves whenever a slot's route changes or the
  // cluster state flips) and on every tick while it is 0 (the cluster is down).
  virtual uint64_t BlockedCheckVersion() = 0;
  // For a client blocked on `key`: true to keep it blocked, false to unblock it with
  // `*error` (no leading '-'): -CLUSTERDOWN while the cluster is down or the slot is
  // unassigned, -MOVED when another node serves it (a slot being imported keeps it).
  virtual bool BlockedKeyServed(std::string_view key, std::string* error) = 0;
};

}  // namespace hotkv

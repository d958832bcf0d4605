// Server-side pub/sub: publishing from a worker, delivering to this worker's
// connections, output-buffer limits for subscribers, keyspace notifications, and cleanup
// when a client goes away. The registry itself (pubsub/registry.h) knows nothing of
// workers or sockets.
//
// Thread safety: Publish/NotifyKeyspaceEvent may run on any worker (they post to other
// workers' mailboxes); the rest runs on the connection's own worker.
#pragma once

#include <cstdint>
#include <string_view>

#include "pubsub/registry.h"

namespace hotkv {

class Server;
class Worker;
class Client;
class Connection;

// Publishes and returns the number of receivers. Subscribers on the calling worker get
// the message right away (ahead of the PUBLISH reply, as in Redis); others through
// their worker's mailbox.
int64_t Publish(Server& s, PubsubRegistry::Space space, std::string_view channel,
                std::string_view message);

// Cluster mode (cluster/ installs the hook at start-up, before workers serve): PUBLISH
// and SPUBLISH are also sent to the other nodes over the cluster bus, as Redis's
// clusterPropagatePublish. Messages received from the bus are delivered with Publish()
// and not propagated again. Without a hook, PropagateClusterPublish does nothing.
using ClusterPublishHook = void (*)(void* ctx, bool shard, std::string_view channel,
                                    std::string_view message);
void SetClusterPublishHook(ClusterPublishHook fn, void* ctx);
void PropagateClusterPublish(bool shard, std::string_view channel, std::string_view message);

// Writes a delivery to the listed connections of `w` that are still subscribed.
void DeliverLocal(Worker& w, const PubsubDelivery& d);

// Applies client-output-buffer-limit pubsub to a subscriber: past the hard limit, or
// past the soft limit for longer than its seconds, the client is closed.
void CheckPubsubOutputLimits(Worker& w, Connection& c, int64_t now_ms);

// notify-keyspace-events: publishes __keyspace@<db>__:<key> and __keyevent@<db>__:<event>.
void NotifyKeyspaceEvent(Server& s, int64_t notify_class, std::string_view event,
                         std::string_view key, int db);

// Drops every subscription of a client (RESET, disconnect).
void UnsubscribeAll(Server& s, Client& c);

// The worker running on this thread (nullptr on non-worker threads).
Worker* CurrentWorker();
void SetCurrentWorker(Worker* w);

}  // namespace hotkv

#include "server/pubsub_delivery.h"

#include <atomic>

#include "common/clock.h"
#include "common/notify_flags.h"
#include "pubsub/messages.h"
#include "pubsub/subscriptions.h"
#include "server/connection.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv {

namespace {
thread_local Worker* t_current_worker = nullptr;
std::atomic<ClusterPublishHook> g_cluster_publish{nullptr};
std::atomic<void*> g_cluster_publish_ctx{nullptr};
}  // namespace

void SetClusterPublishHook(ClusterPublishHook fn, void* ctx) {
  g_cluster_publish_ctx.store(ctx, std::memory_order_release);
  g_cluster_publish.store(fn, std::memory_order_release);
}

void PropagateClusterPublish(bool shard, std::string_view channel, std::string_view message) {
  ClusterPublishHook fn = g_cluster_publish.load(std::memory_order_acquire);
  if (fn != nullptr) fn(g_cluster_publish_ctx.load(std::memory_order_acquire), shard, channel, message);
}

Worker* CurrentWorker() { return t_current_worker; }
void SetCurrentWorker(Worker* w) { t_current_worker = w; }

int64_t Publish(Server& s, PubsubRegistry::Space space, std::string_view channel,
                std::string_view message) {
  Worker* self = CurrentWorker();
  return s.pubsub().Publish(space, channel, message,
                            [&s, self](int worker, std::shared_ptr<PubsubDelivery> d) {
                              Worker& target = s.worker(worker);
                              if (&target == self) {
                                DeliverLocal(target, *d);
                              } else {
                                target.Post([&target, d] { DeliverLocal(target, *d); });
                              }
                            });
}

void DeliverLocal(Worker& w, const PubsubDelivery& d) {
  const int64_t now = CachedNowMs();
  for (uint64_t id : d.client_ids) {
    Connection* c = w.FindConnection(id);
    if (c == nullptr || c->closed || c->close_after_reply()) {
      continue;
    }
    SubscriptionState* st = c->subscriptions();
    if (st == nullptr) {
      continue;
    }
    // A message published before an UNSUBSCRIBE reached this worker is not delivered.
    bool still = d.kind == PubsubDelivery::kMessage    ? st->channels.count(d.channel) > 0
                 : d.kind == PubsubDelivery::kSMessage ? st->shard_channels.count(d.channel) > 0
                                                       : st->patterns.count(d.pattern) > 0;
    // Delivered whatever CLIENT REPLY says (Redis >= 7.2 silences replies, not pushes).
    if (!still) {
      continue;
    }
    // A message raised by the client's own running command waits for its reply.
    ReplyBuilder* pending = c->pending_pushes();
    if (pending != nullptr) {
      pending->set_resp3(c->reply.resp3());
    }
    WriteDelivery(pending != nullptr ? *pending : c->reply, d);
    WorkerStats::Inc(w.stats().pubsub_messages);
    CheckPubsubOutputLimits(w, *c, now);
    w.MarkForFlush(c);
  }
}

void CheckPubsubOutputLimits(Worker& w, Connection& c, int64_t now_ms) {
  if (c.subscription_count() == 0 || c.closed) {
    return;
  }
  Config& cfg = w.server().config();
  const int64_t pending = static_cast<int64_t>(c.pending_output());
  const int64_t hard = cfg.pubsub_hard_limit();
  const int64_t soft = cfg.pubsub_soft_limit();
  bool close = hard > 0 && pending >= hard;
  if (!close && soft > 0 && pending >= soft) {
    if (c.soft_limit_since_ms == 0) {
      c.soft_limit_since_ms = now_ms;
    } else if (now_ms - c.soft_limit_since_ms >= cfg.pubsub_soft_seconds() * 1000) {
      close = true;
    }
  } else if (pending < soft) {
    c.soft_limit_since_ms = 0;
  }
  if (close) {
    // Drop what it has not read: the point is to bound memory.
    c.DropUnsentOutput();
    WorkerStats::Inc(w.stats().output_limit_disconnections);
    // Gone for everyone at once, as CLIENT LIST already shows it: a PUBLISH from another
    // worker must not count it as a receiver while its own worker has yet to close it.
    UnsubscribeAll(w.server(), c);
    w.CloseSoon(&c);
  }
}

void NotifyKeyspaceEvent(Server& s, int64_t notify_class, std::string_view event,
                         std::string_view key, int db) {
  int64_t flags = s.config().notify_flags();
  if (!(flags & notify_class) || !s.pubsub().HasSubscribers()) {
    return;
  }
  if (flags & notify::kKeyspace) {
    std::string channel = "__keyspace@" + std::to_string(db) + "__:";
    channel.append(key);
    Publish(s, PubsubRegistry::kChannel, channel, event);
  }
  if (flags & notify::kKeyevent) {
    std::string channel = "__keyevent@" + std::to_string(db) + "__:";
    channel.append(event);
    Publish(s, PubsubRegistry::kChannel, channel, key);
  }
}

void UnsubscribeAll(Server& s, Client& c) {
  SubscriptionState* st = c.subscriptions();
  if (st == nullptr) {
    return;
  }
  for (const auto& ch : st->channels) {
    s.pubsub().Unsubscribe(PubsubRegistry::kChannel, ch, c.id());
  }
  for (const auto& ch : st->shard_channels) {
    s.pubsub().Unsubscribe(PubsubRegistry::kShard, ch, c.id());
  }
  for (const auto& p : st->patterns) {
    s.pubsub().PUnsubscribe(p, c.id());
  }
  c.subscriptions_slot().reset();
  c.set_subscription_count(0);
  c.sub_channels = 0;
  c.sub_patterns = 0;
  c.sub_shard = 0;
}

}  // namespace hotkv

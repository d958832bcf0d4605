#include "server/tracking.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/clock.h"
#include "common/random.h"
#include "engine/keyspace.h"
#include "server/client.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/connection.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv {

std::atomic<int64_t> g_tracking_clients{0};
std::atomic<int64_t> g_tracking_keys{0};

namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

Server* g_server = nullptr;

// ---- default mode: key -> clients, per shard, under the shard's lock ----

struct Ref {
  uint64_t id;
  int worker;
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct alignas(64) TrackShard {
  std::unordered_map<std::string, std::vector<Ref>, StringHash, std::equal_to<>> keys;
  // The flush generation this table belongs to (an older one: emptied on next use).
  std::atomic<uint64_t> gen{0};
  // Mirrors for INFO (written under the shard's lock).
  std::atomic<uint64_t> nkeys{0}, nitems{0};
};

TrackShard g_shards[Keyspace::kShardCount];
std::atomic<uint64_t> g_gen{0};  // raised by every FLUSHDB / FLUSHALL

// The shard's table, emptied first when a flush happened since it was last used. The
// shard's lock is held.
TrackShard& Table(uint32_t shard) {
  TrackShard& t = g_shards[shard];
  const uint64_t gen = g_gen.load(std::memory_order_acquire);
  if (t.gen.load(kRelaxed) != gen) [[unlikely]] {
    if (!t.keys.empty()) {
      g_tracking_keys.fetch_sub(static_cast<int64_t>(t.keys.size()), kRelaxed);
      t.keys.clear();
    }
    t.nkeys.store(0, kRelaxed);
    t.nitems.store(0, kRelaxed);
    t.gen.store(gen, kRelaxed);
  }
  return t;
}

// ---- BCAST: prefix -> clients, copy-on-write, read through per-thread snapshots ----

struct BcastClient {
  uint64_t id;
  int worker;
};
struct BcastPrefix {
  std::string prefix;
  std::vector<BcastClient> clients;
};
using BcastTable = std::vector<BcastPrefix>;  // sorted by prefix

std::mutex g_bcast_mu;
std::shared_ptr<const BcastTable> g_bcast = std::make_shared<BcastTable>();  // g_bcast_mu
std::atomic<uint64_t> g_bcast_version{1};
std::atomic<int64_t> g_bcast_prefixes{0};

thread_local std::shared_ptr<const BcastTable> t_bcast;
thread_local uint64_t t_bcast_version = 0;

const BcastTable& BcastSnapshot() {
  if (g_bcast_version.load(std::memory_order_acquire) != t_bcast_version) {
    std::lock_guard<std::mutex> g(g_bcast_mu);
    t_bcast = g_bcast;
    t_bcast_version = g_bcast_version.load(kRelaxed);
  }
  return *t_bcast;
}

// Changes the prefix table (copy, edit, publish).
template <typename F>
void EditBcast(F edit) {
  std::lock_guard<std::mutex> g(g_bcast_mu);
  auto next = std::make_shared<BcastTable>(*g_bcast);
  edit(*next);
  g_bcast_prefixes.store(static_cast<int64_t>(next->size()), kRelaxed);
  g_bcast = std::move(next);
  g_bcast_version.fetch_add(1, std::memory_order_release);
}

// ---- invalidations queued by this thread's running command ----

struct Delivery {
  enum Kind : uint8_t { kKeys, kBcastKeys, kFlush };
  Kind kind;
  uint64_t client_id = 0;
  std::vector<std::string> keys;
};

struct Pending {
  std::vector<std::pair<int, Delivery>> items;  // (worker, delivery), in queueing order
  // BCAST grouping: (client id, prefix) -> index into items, so that one command's keys
  // under one prefix go out as one message (Redis groups them per event-loop turn).
  std::unordered_map<std::string, size_t> bcast_index;
};

using tracking_internal::t_current;
using tracking_internal::t_depth;
using tracking_internal::t_queued;

thread_local Pending t_pending;
thread_local int t_limit_rounds = 0;  // tracking-table-max-keys: rounds still over

void FlushPending();

// Outside a command (active expiry, eviction before a command) a change is sent at once.
void FlushIfIdle() {
  if (t_depth == 0) {
    FlushPending();
  }
}

bool SkipForNoloop(uint64_t target) {
  return t_current != nullptr && t_current->id() == target &&
         (t_current->tracking_flags() & kTrackNoloop) != 0;
}

void QueueKey(int worker, uint64_t id, std::string_view key) {
  Delivery d{Delivery::kKeys, id, {std::string(key)}};
  t_pending.items.emplace_back(worker, std::move(d));
  t_queued = true;
}

void QueueBcast(int worker, uint64_t id, const std::string& prefix, std::string_view key) {
  std::string k(reinterpret_cast<const char*>(&id), sizeof(id));
  k += prefix;
  auto [it, inserted] = t_pending.bcast_index.try_emplace(std::move(k), t_pending.items.size());
  if (inserted) {
    t_pending.items.emplace_back(worker, Delivery{Delivery::kBcastKeys, id, {}});
    t_queued = true;
  }
  t_pending.items[it->second].second.keys.emplace_back(key);
}

// Sends the invalidation of `key` to the clients remembered for it and forgets them;
// with `bcast`, also to the BCAST clients whose prefixes match. `noloop`: skip the
// running client when it asked for NOLOOP.
void InvalidateKey(std::string_view key, bool bcast, bool noloop) {
  if (bcast && g_bcast_prefixes.load(kRelaxed) > 0) {
    for (const BcastPrefix& p : BcastSnapshot()) {
      if (key.substr(0, p.prefix.size()) != p.prefix) {
        continue;
      }
      for (const BcastClient& c : p.clients) {
        if (!(noloop && SkipForNoloop(c.id))) {
          QueueBcast(c.worker, c.id, p.prefix, key);
        }
      }
    }
  }
  if (g_tracking_keys.load(kRelaxed) != 0) {
    TrackShard& t = Table(Keyspace::ShardOf(key));
    auto it = t.keys.find(key);
    if (it != t.keys.end()) {
      for (const Ref& r : it->second) {
        if (!(noloop && SkipForNoloop(r.id))) {
          QueueKey(r.worker, r.id, key);
        }
      }
      t.nitems.fetch_sub(it->second.size(), kRelaxed);
      t.nkeys.fetch_sub(1, kRelaxed);
      g_tracking_keys.fetch_sub(1, kRelaxed);
      t.keys.erase(it);
    }
  }
  FlushIfIdle();
}

// ---- delivery, on the worker of the client concerned ----

ReplyBuilder* OutputOf(Client& c) {
  if (Connection* conn = c.AsConnection()) {
    if (conn->closed || conn->close_after_reply()) {
      return nullptr;
    }
  }
  // The running client's own messages follow its reply (Dispatch appends them).
  return c.pending_pushes() != nullptr ? c.pending_pushes() : c.output();
}

// Writes one invalidation to `r`: a RESP3 push, or (to a RESP2 redirect target in
// subscribed mode) a __redis__:invalidate message. `keys` null: a flush, written as the
// tracking client's null (`tracking_resp`), as Redis does.
void WriteInvalidation(Worker& w, Client& r, int tracking_resp, bool redirected,
                       const std::vector<std::string>* keys) {
  ReplyBuilder* out = OutputOf(r);
  if (out == nullptr) {
    return;
  }
  if (r.resp() == 3) {
    out->Raw(">2\r\n$10\r\ninvalidate\r\n");
  } else if (redirected && r.subscription_count() > 0) {
    out->Raw("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n");
  } else {
    return;  // RESP2 has no pushes on the client's own connection
  }
  if (keys == nullptr) {
    out->Raw(tracking_resp == 3 ? "_\r\n" : "$-1\r\n");
  } else {
    out->Array(keys->size());
    for (const std::string& k : *keys) {
      out->Bulk(k);
    }
  }
  w.MarkForFlush(&r);
  if (redirected && r.subscription_count() > 0) {
    if (Connection* conn = r.AsConnection()) {
      CheckPubsubOutputLimits(w, *conn, CachedNowMs());  // a subscriber's limits apply
    }
  }
}

// Sends `keys` (null: flush) for tracking client `t`, which lives on `w`.
void SendTo(Worker& w, Client& t, const std::vector<std::string>* keys) {
  const uint64_t redir = t.tracking_redirect.load(kRelaxed);
  if (redir == 0) {
    if (t.resp() == 3) {
      WriteInvalidation(w, t, 3, false, keys);
    }
    return;
  }
  const int tresp = t.resp();
  if (Client* r = w.FindClient(redir)) {
    WriteInvalidation(w, *r, tresp, true, keys);
    return;
  }
  const int wi = g_server->clients().WorkerOf(redir);
  if (wi >= 0 && wi != w.index()) {
    Worker& target = g_server->worker(wi);
    std::shared_ptr<std::vector<std::string>> copy;
    if (keys != nullptr) {
      copy = std::make_shared<std::vector<std::string>>(*keys);
    }
    target.Post([&target, redir, tresp, copy] {
      if (Client* r = target.FindClient(redir)) {
        WriteInvalidation(target, *r, tresp, true, copy.get());
      }
    });
    return;
  }
  // The redirect client is gone: flag it, and tell a RESP3 client each time.
  t.set_tracking_flags(t.tracking_flags() | kTrackBrokenRedir);
  if (tresp == 3) {
    if (ReplyBuilder* out = OutputOf(t)) {
      out->Raw(">2\r\n$21\r\ntracking-redir-broken\r\n");
      out->Integer(static_cast<int64_t>(redir));
      w.MarkForFlush(&t);
    }
  }
}

void DeliverOn(Worker& w, const std::vector<Delivery>& ds) {
  for (const Delivery& d : ds) {
    if (d.kind == Delivery::kFlush) {
      std::vector<uint64_t> ids;
      w.ForEachConnection([&ids](Connection* c) {
        if (c->tracking_flags() & kTrackOn) {
          ids.push_back(c->id());
        }
      });
      for (uint64_t id : ids) {
        if (Client* c = w.FindClient(id)) {
          SendTo(w, *c, nullptr);
        }
      }
      continue;
    }
    Client* c = w.FindClient(d.client_id);
    if (c == nullptr) {
      continue;
    }
    const uint32_t f = c->tracking_flags();
    // A client that switched modes since (off, or BCAST on/off) gets nothing queued for
    // its former mode, as Redis checks at send time.
    if (!(f & kTrackOn) || ((f & kTrackBcast) != 0) != (d.kind == Delivery::kBcastKeys)) {
      continue;
    }
    SendTo(w, *c, &d.keys);
  }
}

void FlushPending() {
  if (t_pending.items.empty() || g_server == nullptr) {
    t_queued = false;
    return;
  }
  Server& s = *g_server;
  Worker* self = CurrentWorker();
  // The calling worker's own (it may be a worker the server does not run: in-process
  // tests drive one themselves), then one job per other worker.
  const size_t n = static_cast<size_t>(std::max(s.num_workers(), 1));
  std::vector<std::vector<Delivery>> per(n);
  std::vector<Delivery> mine;
  for (auto& [w, d] : t_pending.items) {
    if (d.kind == Delivery::kBcastKeys) {
      // Each key once, in byte order, as Redis's per-prefix key set sends them.
      std::sort(d.keys.begin(), d.keys.end());
      d.keys.erase(std::unique(d.keys.begin(), d.keys.end()), d.keys.end());
    }
    if (self != nullptr && w == self->index()) {
      mine.push_back(std::move(d));
    } else if (w >= 0 && w < s.num_workers()) {
      per[static_cast<size_t>(w)].push_back(std::move(d));
    }
  }
  t_pending.items.clear();
  t_pending.bcast_index.clear();
  t_queued = false;
  if (!mine.empty()) {
    DeliverOn(*self, mine);
  }
  for (int i = 0; i < s.num_workers(); i++) {
    auto& list = per[static_cast<size_t>(i)];
    if (list.empty()) {
      continue;
    }
    Worker& target = s.worker(i);
    auto p = std::make_shared<std::vector<Delivery>>(std::move(list));
    target.Post([&target, p] { DeliverOn(target, *p); });
  }
}

void FlushAllTracking() {
  g_gen.fetch_add(1, std::memory_order_acq_rel);
  if (g_tracking_clients.load(kRelaxed) == 0 || g_server == nullptr) {
    return;
  }
  for (int i = 0; i < std::max(g_server->num_workers(), 1); i++) {
    t_pending.items.emplace_back(i, Delivery{Delivery::kFlush, 0, {}});
  }
  t_queued = true;
  FlushIfIdle();
}

// tracking-table-max-keys: evicts random keys (with their invalidations) until the table
// is back under the limit, with Redis's effort (100 keys per round, more each round the
// table stays over). No shard lock may be held.
void EnforceMaxKeys(Server& s) {
  const int64_t max = s.config().tracking_table_max_keys();
  if (max <= 0 || g_tracking_keys.load(kRelaxed) <= max) {
    t_limit_rounds = 0;
    return;
  }
  int effort = 100 * (t_limit_rounds + 1);
  Keyspace& ks = s.keyspace();
  Rng& rng = ThreadRng();
  const uint64_t gen = g_gen.load(std::memory_order_acquire);
  uint32_t i = static_cast<uint32_t>(rng() % Keyspace::kShardCount);
  for (uint32_t visited = 0; effort > 0 && visited < 4 * Keyspace::kShardCount; visited++) {
    if (g_tracking_keys.load(kRelaxed) <= max) {
      break;
    }
    i = (i + 1) % Keyspace::kShardCount;
    TrackShard& cand = g_shards[i];
    if (cand.nkeys.load(kRelaxed) == 0 && cand.gen.load(kRelaxed) == gen) {
      continue;
    }
    Shard& sh = ks.shard(i);
    sh.lock.lock_read();  // the tracking table only: no key changes
    TrackShard& t = Table(i);
    if (!t.keys.empty()) {
      // A random key: a random bucket, then the next non-empty one.
      size_t b = static_cast<size_t>(rng() % t.keys.bucket_count());
      while (t.keys.bucket_size(b) == 0) {
        b = (b + 1) % t.keys.bucket_count();
      }
      const std::string key = t.keys.begin(b)->first;
      InvalidateKey(key, false, false);
      effort--;
    }
    sh.lock.unlock();
  }
  t_limit_rounds = g_tracking_keys.load(kRelaxed) <= max ? 0 : t_limit_rounds + 1;
  FlushPending();
}

class TrackingKeyObserver : public KeyObserver {
 public:
  void OnKeyExpired(int, std::string_view key) override {
    if (TrackingActive()) [[unlikely]] {
      InvalidateKey(key, true, true);
    }
  }
  void OnKeyEvicted(int, std::string_view key) override {
    if (TrackingActive()) [[unlikely]] {
      InvalidateKey(key, true, true);
    }
  }
  void OnFlush(int) override {
    if (TrackingActive()) [[unlikely]] {
      FlushAllTracking();
    }
  }
};

}  // namespace

std::unique_ptr<KeyObserver> MakeTrackingObserver(Server& server) {
  g_server = &server;
  g_gen.fetch_add(1, std::memory_order_acq_rel);  // a new server: nothing remembered
  return std::make_unique<TrackingKeyObserver>();
}

void TrackingKeyChanged(std::string_view key) {
  InvalidateKey(key, true, true);
}

void TrackingRememberKeys(CommandContext& ctx, bool lock_shards) {
  Client& c = ctx.client();
  const uint32_t f = c.tracking_flags();
  if (!(f & kTrackOn) || (f & kTrackBcast)) {
    return;
  }
  const CommandSpec* cmd = ctx.command();
  if (cmd == nullptr || !cmd->is(kCmdReadonly) || cmd->is(kCmdPubsub)) {
    return;
  }
  const bool caching = (f & kTrackCaching) != 0;
  if (((f & kTrackOptin) && !caching) || ((f & kTrackOptout) && caching)) {
    return;
  }
  thread_local std::vector<int> pos;
  pos.clear();
  cmd->GetKeys(ctx.args(), &pos);
  Keyspace& ks = ctx.keyspace();
  const Ref me{c.id(), c.worker_index()};
  for (int p : pos) {
    const std::string_view key = ctx.arg(static_cast<size_t>(p));
    const uint32_t shard = Keyspace::ShardOf(key);
    if (lock_shards) {
      ks.shard(shard).lock.lock_read();
    }
    TrackShard& t = Table(shard);
    auto it = t.keys.find(key);
    if (it == t.keys.end()) {
      it = t.keys.emplace(std::string(key), std::vector<Ref>()).first;
      t.nkeys.fetch_add(1, kRelaxed);
      g_tracking_keys.fetch_add(1, kRelaxed);
    }
    auto& refs = it->second;
    if (std::none_of(refs.begin(), refs.end(), [&](const Ref& r) { return r.id == me.id; })) {
      refs.push_back(me);
      t.nitems.fetch_add(1, kRelaxed);
    }
    if (lock_shards) {
      ks.shard(shard).lock.unlock();
    }
  }
}

void tracking_internal::CommandEndSlow(Client& client, Server& server, const CommandSpec* cmd) {
  FlushPending();
  const uint32_t f = client.tracking_flags();
  // CLIENT CACHING applies to the next command (or the next transaction), as Redis's
  // resetClient clears it after anything but a CLIENT subcommand, outside MULTI.
  if ((f & kTrackCaching) && !client.in_multi() &&
      !(cmd != nullptr && cmd->parent != nullptr && cmd->parent->name == "client")) {
    client.set_tracking_flags(f & ~kTrackCaching);
  }
  // A blocked command's stand-in (no output) may run with a shard lock held.
  if (g_tracking_keys.load(kRelaxed) != 0 && client.output() != nullptr) [[unlikely]] {
    EnforceMaxKeys(server);
  }
}

void TrackingDisable(Client& client) {
  const uint32_t f = client.tracking_flags();
  if (f & kTrackOn) {
    g_tracking_clients.fetch_sub(1, kRelaxed);
  }
  if ((f & kTrackBcast) && !client.tracking_prefixes.empty()) {
    const uint64_t id = client.id();
    EditBcast([&](BcastTable& table) {
      for (auto& p : table) {
        std::erase_if(p.clients, [id](const BcastClient& c) { return c.id == id; });
      }
      std::erase_if(table, [](const BcastPrefix& p) { return p.clients.empty(); });
    });
  }
  client.tracking_prefixes.clear();
  client.set_tracking_flags(0);
  client.tracking_redirect.store(0, kRelaxed);
}

void TrackingEnable(Client& client, uint64_t redirect, uint32_t options,
                    const std::vector<std::string>& prefixes) {
  uint32_t f = client.tracking_flags();
  if (!(f & kTrackOn)) {
    g_tracking_clients.fetch_add(1, kRelaxed);
  }
  // Redis keeps CLIENT CACHING's flag across a re-enable and resets the rest.
  f = (f & kTrackCaching) | kTrackOn |
      (options & (kTrackBcast | kTrackOptin | kTrackOptout | kTrackNoloop));
  client.tracking_redirect.store(redirect, kRelaxed);
  if (options & kTrackBcast) {
    std::vector<std::string> add = prefixes;
    if (add.empty()) {
      add.emplace_back();
    }
    std::vector<std::string> fresh;
    for (std::string& p : add) {
      auto& mine = client.tracking_prefixes;
      auto pos = std::lower_bound(mine.begin(), mine.end(), p);
      if (pos == mine.end() || *pos != p) {
        mine.insert(pos, p);
        fresh.push_back(std::move(p));
      }
    }
    if (!fresh.empty()) {
      const BcastClient me{client.id(), client.worker_index()};
      EditBcast([&](BcastTable& table) {
        for (const std::string& p : fresh) {
          auto pos = std::lower_bound(table.begin(), table.end(), p,
                                      [](const BcastPrefix& a, const std::string& b) {
                                        return a.prefix < b;
                                      });
          if (pos == table.end() || pos->prefix != p) {
            pos = table.insert(pos, BcastPrefix{p, {}});
          }
          pos->clients.push_back(me);
        }
      });
    }
  }
  client.set_tracking_flags(f);
}

const std::vector<std::string>& TrackingPrefixes(const Client& client) {
  return client.tracking_prefixes;
}

uint64_t TrackingTotalItems() {
  const uint64_t gen = g_gen.load(std::memory_order_acquire);
  uint64_t n = 0;
  for (const TrackShard& t : g_shards) {
    if (t.gen.load(kRelaxed) == gen) {
      n += t.nitems.load(kRelaxed);
    }
  }
  return n;
}

uint64_t TrackingTotalKeys() {
  const uint64_t gen = g_gen.load(std::memory_order_acquire);
  uint64_t n = 0;
  for (const TrackShard& t : g_shards) {
    if (t.gen.load(kRelaxed) == gen) {
      n += t.nkeys.load(kRelaxed);
    }
  }
  return n;
}

uint64_t TrackingTotalPrefixes() { return static_cast<uint64_t>(g_bcast_prefixes.load(kRelaxed)); }

}  // namespace hotkv

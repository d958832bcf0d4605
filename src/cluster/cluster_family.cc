// CLUSTER subcommands, ASKING / READONLY / READWRITE, the routing hooks and the cluster
// runtime (see cluster_family.h). Replies and error texts are Redis 7.0's.
#include "cluster/cluster_family.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cluster/cluster_bus.h"
#include "cluster/nodes_conf.h"
#include "cluster/slot_keys.h"
#include "common/clock.h"
#include "common/key_hash.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/keyspace.h"
#include "server/client.h"
#include "server/cluster_hooks.h"
#include "server/cluster_script_hooks.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/dispatched_slots.h"
#include "server/server.h"
#include "server/slot_stats_hooks.h"

namespace hotkv::cluster {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::string_view kCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";
constexpr std::string_view kTryAgain = "TRYAGAIN Multiple keys request during rehashing of slot";
constexpr std::string_view kDown = "CLUSTERDOWN The cluster is down";
constexpr std::string_view kDownRo = "CLUSTERDOWN The cluster is down and only accepts read commands";
constexpr std::string_view kDownUnbound = "CLUSTERDOWN Hash slot not served";

}  // namespace

// ------------------------------------------------------------------------ routing

class ClusterRouter : public ClusterHooks, public ClusterScriptHooks {
 public:
  ClusterRouter(ClusterState* state, const CommandTable& table) : state_(state) {
    auto find = [&](const char* name) { return table.Find(name); };
    spublish_ = find("spublish");
    ssubscribe_ = find("ssubscribe");
    sunsubscribe_ = find("sunsubscribe");
    migrate_ = find("migrate");
    Refresh();
  }

  void Refresh() {
    ClusterSettings s = state_->settings();
    allow_reads_when_down_.store(s.allow_reads_when_down, std::memory_order_relaxed);
    allow_pubsubshard_when_down_.store(s.allow_pubsubshard_when_down, std::memory_order_relaxed);
  }

  // Redis's getNodeByQuery over one or several commands (EXEC's queue).
  struct Query {
    bool have_first = false;
    std::string_view first_key;
    int slot = 0;
    SlotRoute route;
    bool multiple_keys = false;
    bool migrating = false;
    bool importing = false;
    int missing_keys = 0;
    bool error = false;
    std::string_view error_text;
  };

  // Adds the keys of one command; false when the answer is already known (an error).
  bool AddKeys(Server& server, Query& q, const std::vector<std::string_view>& args,
               const std::vector<int>& pos, bool pubsub_shard) {
    for (int p : pos) {
      std::string_view key = args[static_cast<size_t>(p)];
      const int slot = static_cast<int>(KeySlot(key));
      if (!q.have_first) {
        q.have_first = true;
        q.first_key = key;
        q.slot = slot;
        q.route = state_->Route(slot);
        if (q.route.kind() == SlotRoute::kUnassigned) {
          q.error = true;
          q.error_text = kDownUnbound;
          return false;
        }
        if (q.route.mine() && q.route.migrating()) {
          q.migrating = true;
        } else if (q.route.importing()) {
          q.importing = true;
        }
      } else if (key != q.first_key) {
        if (slot != q.slot) {
          q.error = true;
          q.error_text = kCrossSlot;
          return false;
        }
        q.multiple_keys = true;
      }
      if ((q.migrating || q.importing) && !pubsub_shard &&
          !KeyExistsDb0(server.keyspace(), key, CachedNowMs())) {
        ++q.missing_keys;
      }
    }
    return true;
  }

  bool KeysOf(const CommandSpec* cmd, const std::vector<std::string_view>& args,
              std::vector<int>* pos, bool* pubsub_shard) {
    pos->clear();
    *pubsub_shard = false;
    if (cmd == spublish_ || cmd == ssubscribe_ || cmd == sunsubscribe_) {
      *pubsub_shard = true;
      const size_t last = cmd == spublish_ ? 1 : args.size() - 1;
      for (size_t i = 1; i <= last && i < args.size(); ++i) pos->push_back(static_cast<int>(i));
      return true;
    }
    if (!cmd->GetKeys(args, pos)) {
      pos->clear();  // malformed: no keys, the command reports its own error here
    }
    return true;
  }

  // The decision once every key is in.
  bool Decide(Client& c, const Query& q, bool is_write, bool asking_cmd, bool pubsub_shard,
              bool is_migrate, std::string* error) {
    if (q.error) {
      error->assign(q.error_text);
      return false;
    }
    if (!q.have_first) return true;  // no key at all: served here
    if (!state_->cluster_ok()) {
      if (pubsub_shard) {
        if (!allow_pubsubshard_when_down_.load(std::memory_order_relaxed)) {
          error->assign(kDown);
          return false;
        }
      } else if (!allow_reads_when_down_.load(std::memory_order_relaxed)) {
        error->assign(kDown);
        return false;
      } else if (is_write) {
        error->assign(kDownRo);
        return false;
      }
    }
    if ((q.migrating || q.importing) && is_migrate) return true;
    if (q.migrating && q.missing_keys > 0) {
      if (q.multiple_keys) {
        error->assign(kTryAgain);
        return false;
      }
      error->assign("ASK " + std::to_string(q.slot) + " " +
                    state_->Endpoint(q.route.migrating_endpoint()));
      return false;
    }
    if (q.importing && (c.asking_state() != 0 || asking_cmd)) {
      if (q.multiple_keys && q.missing_keys > 0) {
        error->assign(kTryAgain);
        return false;
      }
      return true;
    }
    // READONLY clients of a replica whose primary owns the slot: not reachable until
    // replication exists (myself is always a primary).
    if (q.route.mine()) return true;
    error->assign("MOVED " + std::to_string(q.slot) + " " +
                  state_->Endpoint(q.route.owner_endpoint()));
    return false;
  }

  bool Route(Server& server, Client& c, const CommandSpec* cmd,
             const std::vector<std::string_view>& args, std::string* error) override {
    // The common case first: a command with exactly one key (GET, SET, APPEND, INCR,
    // LPUSH...) whose slot this node serves, stable (not migrating, not importing), while
    // the cluster is up. Decide() would accept it too; this skips the key-position
    // vector, the Query and, when the pipeline-prefetch hint already carries the key's
    // slot, the CRC16 (-~250 instructions per command under callgrind,
    // bench/notes/2026-12-03-cluster-reliability.md). The hinted case is all loads and
    // compares, and every other case leaves by a tail call, so it needs no stack frame
    // (-~40 instructions per command, bench/notes/2026-12-03-cluster-cpu2.md).
    if (const int ki = cmd->single_key_index;
        ki > 0 && static_cast<size_t>(ki) < args.size() && cmd != spublish_ &&
        cmd != ssubscribe_ && cmd != sunsubscribe_) [[likely]] {
      const std::string_view key = args[static_cast<size_t>(ki)];
      if (key.data() == t_key_hint.data && key.size() == t_key_hint.size &&
          t_key_hint.slot != kNoSlot) [[likely]] {
        const uint32_t slot = t_key_hint.slot;
        if (state_->Route(static_cast<int>(slot)).plain_mine() && state_->cluster_ok())
            [[likely]] {
          if (stats_flags_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
            t_routed_slot = static_cast<int>(slot);
          }
          return true;
        }
      }
      return RouteSingleKey(server, c, cmd, args, error);
    }
    return RouteGeneral(server, c, cmd, args, error);
  }

  // Route's single-key case without a slot in the key hint: the same test after a CRC16.
  [[gnu::noinline]] bool RouteSingleKey(Server& server, Client& c, const CommandSpec* cmd,
                                        const std::vector<std::string_view>& args,
                                        std::string* error) {
    const std::string_view key = args[static_cast<size_t>(cmd->single_key_index)];
    const bool hinted = key.data() == t_key_hint.data && key.size() == t_key_hint.size;
    const uint32_t slot =
        hinted && t_key_hint.slot != kNoSlot ? t_key_hint.slot : KeySlot(key);
    if (state_->Route(static_cast<int>(slot)).plain_mine() && state_->cluster_ok()) [[likely]] {
      if (stats_flags_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
        t_routed_slot = static_cast<int>(slot);
      }
      // Hand the slot on to the key lookup and the per-slot count (see below).
      if (hinted) {
        t_key_hint.slot = slot;
      } else {
        SetKeyHint(key, Keyspace::ShardOfSlot(slot), HashKey(key), slot);
      }
      return true;
    }
    return RouteGeneral(server, c, cmd, args, error);
  }

  // Everything else: several keys, a slot that moves, the cluster down, errors.
  [[gnu::noinline]] bool RouteGeneral(Server& server, Client& c, const CommandSpec* cmd,
                                      const std::vector<std::string_view>& args,
                                      std::string* error) {
    // Several keys from one range key spec (MSET, MGET, DEL, EXISTS, UNLINK, TOUCH...),
    // all in one stable slot of this node, the cluster up: accepted with one CRC16 per
    // key and nothing else (GetKeys would list the same positions). Anything else (keys
    // in several slots, a slot moving, the cluster down) takes the general path below,
    // which finds the right error.
    if (cmd->single_key_index == 0 && !cmd->movable_keys && cmd->getkeys == nullptr &&
        cmd->key_specs.size() == 1 && cmd != spublish_ && cmd != ssubscribe_ &&
        cmd != sunsubscribe_) {
      const KeySpec& ks = cmd->key_specs[0];
      const int argc = static_cast<int>(args.size());
      if (ks.begin == KeySpec::Begin::kIndex && ks.find == KeySpec::Find::kRange &&
          ks.lastkey < 0 && ks.limit <= 1 && ks.step > 0 && !(ks.flags & kKeyNotKey) &&
          ks.index > 0 && ks.index < argc && ks.index <= argc + ks.lastkey) {
        const std::string_view first = args[static_cast<size_t>(ks.index)];
        const uint32_t slot = first.data() == t_key_hint.data &&
                                      first.size() == t_key_hint.size &&
                                      t_key_hint.slot != kNoSlot
                                  ? t_key_hint.slot
                                  : KeySlot(first);
        bool one_slot = true;
        for (int i = ks.index + ks.step; i <= argc + ks.lastkey; i += ks.step) {
          if (KeySlot(args[static_cast<size_t>(i)]) != slot) {
            one_slot = false;
            break;
          }
        }
        if (one_slot && state_->Route(static_cast<int>(slot)).plain_mine() &&
            state_->cluster_ok()) [[likely]] {
          if (stats_flags_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
            t_routed_slot = static_cast<int>(slot);
          }
          // Hand the keys' slot on (server/dispatched_slots.h): the dispatcher locks
          // their shard and MGET / MSET locate them without a second CRC16 per key
          // (~1,100 instructions per 10-key MSET). Dispatch drops it after the command.
          BeginDispatchedSlots(args);
          for (int i = ks.index; i <= argc + ks.lastkey; i += ks.step) {
            SetDispatchedSlot(static_cast<size_t>(i), slot);
          }
          return true;
        }
      }
    }
    thread_local std::vector<int> pos;
    bool pubsub_shard = false;
    KeysOf(cmd, args, &pos, &pubsub_shard);
    if (pos.empty()) return true;
    Query q;
    AddKeys(server, q, args, pos, pubsub_shard);
    const bool migrate = cmd == migrate_;
    if (!Decide(c, q, cmd->is(kCmdWrite), cmd->is(kCmdAsking), pubsub_shard, migrate, error)) {
      return false;
    }
    if (q.have_first && stats_flags_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      t_routed_slot = q.slot;  // CLUSTER SLOT-STATS cpu / net
    }
    if (pos.size() == 1 && q.have_first) {
      // Hand the slot on to the dispatcher's key lookup (LocateKey) and the engine's
      // per-slot count, which would compute the CRC16 again: the key hint, cleared by
      // Dispatch after this command whatever happens to it. A pipeline-prefetch hint for
      // this key has the shard and hash but no slot.
      const std::string_view key = args[static_cast<size_t>(pos[0])];
      if (key.data() == t_key_hint.data && key.size() == t_key_hint.size) {
        t_key_hint.slot = static_cast<uint32_t>(q.slot);
      } else {
        const uint32_t slot = static_cast<uint32_t>(q.slot);
        SetKeyHint(key, Keyspace::ShardOfSlot(slot), HashKey(key), slot);
      }
    }
    return true;
  }

  bool RouteExec(Server& server, Client& c, const std::vector<QueuedCommand>& queue,
                 std::string* error) override {
    thread_local std::vector<int> pos;
    thread_local std::vector<std::string_view> views;
    Query q;
    bool is_write = false;
    bool pubsub_shard_any = false;
    for (const QueuedCommand& qc : queue) {
      is_write = is_write || qc.cmd->is(kCmdWrite);
      if (qc.cmd->key_specs.empty() && !qc.cmd->movable_keys) continue;
      views.assign(qc.args.begin(), qc.args.end());
      bool pubsub_shard = false;
      KeysOf(qc.cmd, views, &pos, &pubsub_shard);
      pubsub_shard_any = pubsub_shard_any || pubsub_shard;
      if (!AddKeys(server, q, views, pos, pubsub_shard)) break;
    }
    if (!Decide(c, q, is_write, false, false, false, error)) return false;
    if (q.have_first && stats_flags_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      t_routed_slot = q.slot;
    }
    return true;
  }

  bool RouteFromScript(Server& server, Client& caller, const CommandSpec* cmd,
                       const std::vector<std::string_view>& args, bool allow_cross_slot,
                       int* script_slot, std::string* error) override {
    if (cmd->key_specs.empty() && !cmd->movable_keys) return true;
    thread_local std::vector<int> pos;
    bool pubsub_shard = false;
    KeysOf(cmd, args, &pos, &pubsub_shard);
    if (pos.empty()) return true;
    Query q;
    AddKeys(server, q, args, pos, pubsub_shard);
    std::string e;
    if (!Decide(caller, q, cmd->is(kCmdWrite), cmd->is(kCmdAsking), pubsub_shard,
                cmd == migrate_, &e)) {
      if (e == kDownRo) {
        error->assign("ERR Script attempted to execute a write command while the cluster is "
                      "down and readonly");
      } else if (e == kDown) {
        error->assign("ERR Script attempted to execute a command while the cluster is down");
      } else {
        error->assign("ERR Script attempted to access a non local key in a cluster node");
      }
      return false;
    }
    if (q.have_first && !allow_cross_slot) {
      if (*script_slot == -1) {
        *script_slot = q.slot;
      } else if (*script_slot != q.slot) {
        error->assign("ERR Script attempted to access keys that do not hash to the same slot");
        return false;
      }
    }
    return true;
  }

  std::string InfoSection() override { return "# Cluster\r\ncluster_enabled:1\r\n"; }

  uint64_t BlockedCheckVersion() override {
    return state_->cluster_ok() ? state_->route_version() : 0;
  }

  bool BlockedKeyServed(std::string_view key, std::string* error) override {
    // Down (even with cluster-allow-reads-when-down: a write that would unblock it may
    // never come, as Redis says).
    if (!state_->cluster_ok()) {
      error->assign(kDown);
      return false;
    }
    const int slot = static_cast<int>(KeySlot(key));
    const SlotRoute r = state_->Route(slot);
    if (r.mine() || r.importing()) return true;
    if (r.kind() == SlotRoute::kUnassigned) {
      error->assign(kDownUnbound);
      return false;
    }
    error->assign("MOVED " + std::to_string(slot) + " " + state_->Endpoint(r.owner_endpoint()));
    return false;
  }

 private:
  ClusterState* state_;
  const CommandSpec* spublish_ = nullptr;
  const CommandSpec* ssubscribe_ = nullptr;
  const CommandSpec* sunsubscribe_ = nullptr;
  const CommandSpec* migrate_ = nullptr;
  std::atomic<bool> allow_reads_when_down_{false};
  std::atomic<bool> allow_pubsubshard_when_down_{true};

 public:
  // ---- CLUSTER SLOT-STATS cpu-usec / network-bytes-in / network-bytes-out ----
  enum : uint32_t { kStatCpu = 1, kStatNet = 2 };
  // cluster-slot-stats-enabled: "no", "yes", or words among cpu, net, mem (mem is not
  // kept). Installs or removes the dispatcher's hook.
  void SetSlotStats(std::string_view value) {
    uint32_t f = 0;
    size_t i = 0;
    while (i < value.size()) {
      size_t j = value.find(' ', i);
      if (j == std::string_view::npos) j = value.size();
      std::string_view w = value.substr(i, j - i);
      if (EqualsIgnoreCase(w, "yes")) f |= kStatCpu | kStatNet;
      if (EqualsIgnoreCase(w, "cpu")) f |= kStatCpu;
      if (EqualsIgnoreCase(w, "net")) f |= kStatNet;
      i = j + 1;
    }
    stats_flags_.store(f, std::memory_order_relaxed);
    s_stats_router_.store(this, std::memory_order_release);
    g_slot_stats_hook.store(f != 0 ? &RecordHook : nullptr, std::memory_order_release);
  }
  uint32_t stats_flags() const { return stats_flags_.load(std::memory_order_relaxed); }
  uint64_t StatCpu(int slot) const { return stat_cpu_[slot].load(std::memory_order_relaxed); }
  uint64_t StatIn(int slot) const { return stat_in_[slot].load(std::memory_order_relaxed); }
  uint64_t StatOut(int slot) const { return stat_out_[slot].load(std::memory_order_relaxed); }
  static ClusterRouter* StatsRouter() { return s_stats_router_.load(std::memory_order_acquire); }

 private:
  static size_t Digits(size_t n) {
    size_t d = 1;
    while (n >= 10) {
      n /= 10;
      ++d;
    }
    return d;
  }
  // The command's size as a RESP request ("*N\r\n" then "$len\r\n<arg>\r\n" each), what
  // Redis counts as its network bytes in.
  static size_t RespSize(const std::vector<std::string_view>& args) {
    size_t n = 1 + Digits(args.size()) + 2;
    for (std::string_view a : args) n += 1 + Digits(a.size()) + 2 + a.size() + 2;
    return n;
  }
  static void RecordHook(int slot, const std::vector<std::string_view>& args, int64_t usec,
                         size_t bytes_out) {
    ClusterRouter* r = s_stats_router_.load(std::memory_order_acquire);
    if (r == nullptr || slot < 0 || slot >= kNumSlots) return;
    const uint32_t f = r->stats_flags_.load(std::memory_order_relaxed);
    if (f & kStatCpu) {
      r->stat_cpu_[slot].fetch_add(static_cast<uint64_t>(std::max<int64_t>(usec, 0)),
                                   std::memory_order_relaxed);
    }
    if (f & kStatNet) {
      r->stat_in_[slot].fetch_add(RespSize(args), std::memory_order_relaxed);
      r->stat_out_[slot].fetch_add(bytes_out, std::memory_order_relaxed);
    }
  }
  std::atomic<uint32_t> stats_flags_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> stat_cpu_{new std::atomic<uint64_t>[kNumSlots]()};
  std::unique_ptr<std::atomic<uint64_t>[]> stat_in_{new std::atomic<uint64_t>[kNumSlots]()};
  std::unique_ptr<std::atomic<uint64_t>[]> stat_out_{new std::atomic<uint64_t>[kNumSlots]()};
  static inline std::atomic<ClusterRouter*> s_stats_router_{nullptr};
};

// ------------------------------------------------------------------------ commands

namespace {

ClusterState* StateOrReply(CommandContext& ctx) {
  ClusterState* st = GetClusterState();
  if (st == nullptr) ctx.rb().Error("ERR This instance has cluster support disabled");
  return st;
}

void SubcommandSyntaxError(CommandContext& ctx) {
  std::string msg = "ERR unknown subcommand or wrong number of arguments for '";
  msg.append(ctx.arg(1).substr(0, 128));
  msg += "'. Try " + ToUpper(ctx.arg(0)) + " HELP.";
  ctx.rb().Error(msg);
}

// getSlotOrReply: -1 after replying the error.
int SlotOrReply(CommandContext& ctx, std::string_view text) {
  std::optional<int64_t> v = ParseInt64(text);
  if (!v || *v < 0 || *v >= kNumSlots) {
    ctx.rb().Error("ERR Invalid or out of range slot");
    return -1;
  }
  return static_cast<int>(*v);
}

// The node description line (CLUSTER NODES / REPLICAS) of every node, myself first.
std::string NodeLines(ClusterState& st) { return st.NodesText(false); }

void ClusterInfo(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  int assigned = 0, pfail = 0, fail = 0;
  std::vector<Node> nodes = st->Nodes();
  {
    auto lock = st->Lock();
    for (int s = 0; s < kNumSlots; ++s) {
      Node* n = st->SlotOwnerLocked(s);
      if (n == nullptr) continue;
      ++assigned;
      if (n->Has(kFlagPFail)) {
        ++pfail;
      } else if (n->Has(kFlagFail)) {
        ++fail;
      }
    }
  }
  Node me = st->Myself();
  uint64_t my_epoch = me.config_epoch;
  if (me.IsReplica()) {
    if (auto p = st->GetNode(me.primary)) my_epoch = p->config_epoch;
  }
  std::string out;
  out += "cluster_state:" + std::string(st->cluster_ok() ? "ok" : "fail") + "\r\n";
  out += "cluster_slots_assigned:" + std::to_string(assigned) + "\r\n";
  out += "cluster_slots_ok:" + std::to_string(assigned - fail - pfail) + "\r\n";
  out += "cluster_slots_pfail:" + std::to_string(pfail) + "\r\n";
  out += "cluster_slots_fail:" + std::to_string(fail) + "\r\n";
  out += "cluster_known_nodes:" + std::to_string(nodes.size()) + "\r\n";
  out += "cluster_size:" + std::to_string(st->ClusterSize()) + "\r\n";
  out += "cluster_current_epoch:" + std::to_string(st->current_epoch()) + "\r\n";
  out += "cluster_my_epoch:" + std::to_string(my_epoch) + "\r\n";
  BusInterface* bus = st->bus();
  std::vector<std::pair<std::string, int64_t>> stats;
  if (bus != nullptr) stats = bus->MessageStats();
  if (stats.empty()) {
    stats = {{"cluster_stats_messages_sent", 0}, {"cluster_stats_messages_received", 0}};
  }
  for (const auto& [name, v] : stats) out += name + ":" + std::to_string(v) + "\r\n";
  out += "total_cluster_links_buffer_limit_exceeded:0\r\n";
  ctx.rb().Verbatim(out);
}

void ClusterMyId(CommandContext& ctx) {
  if (ClusterState* st = StateOrReply(ctx)) ctx.rb().Bulk(st->MyName());
}

void ClusterMyShardId(CommandContext& ctx) {
  if (ClusterState* st = StateOrReply(ctx)) ctx.rb().Bulk(st->MyShardId());
}

void ClusterNodes(CommandContext& ctx) {
  if (ClusterState* st = StateOrReply(ctx)) ctx.rb().Verbatim(NodeLines(*st));
}

std::string PreferredHost(const ClusterSettings& s, const Node& n, bool* null_out) {
  *null_out = false;
  switch (s.preferred_endpoint) {
    case ClusterSettings::Endpoint::kIp:
      return n.ip;
    case ClusterSettings::Endpoint::kHostname:
      return n.hostname.empty() ? "?" : n.hostname;
    case ClusterSettings::Endpoint::kUnknown:
      *null_out = true;
      return "?";
  }
  return n.ip;
}

void NodeForSlots(CommandContext& ctx, const ClusterSettings& s, const Node& n) {
  ReplyBuilder& rb = ctx.rb();
  rb.Array(4);
  bool null_host = false;
  std::string host = PreferredHost(s, n, &null_host);
  if (null_host) {
    rb.Null();
  } else {
    rb.Bulk(host);
  }
  rb.Integer(n.port);
  rb.Bulk(n.name);
  size_t pairs = 0;
  bool ip = s.preferred_endpoint != ClusterSettings::Endpoint::kIp;
  bool hostname = s.preferred_endpoint != ClusterSettings::Endpoint::kHostname && !n.hostname.empty();
  pairs = (ip ? 1 : 0) + (hostname ? 1 : 0);
  rb.Map(pairs);
  if (ip) {
    rb.Bulk("ip");
    rb.Bulk(n.ip);
  }
  if (hostname) {
    rb.Bulk("hostname");
    rb.Bulk(n.hostname);
  }
}

void ClusterSlots(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  ClusterSettings s = st->settings();
  struct Range {
    int start, end;
    Node primary;
    std::vector<Node> replicas;
  };
  std::vector<Range> ranges;
  {
    auto lock = st->Lock();
    Node* cur = nullptr;
    int start = 0;
    for (int i = 0; i <= kNumSlots; ++i) {
      Node* n = i < kNumSlots ? st->SlotOwnerLocked(i) : nullptr;
      if (cur != nullptr && (i == kNumSlots || n != cur)) {
        Range r{start, i - 1, *cur, {}};
        for (const auto& [name, other] : st->NodesLocked()) {
          if (other->IsReplica() && other->primary == cur->name && !other->Has(kFlagFail)) {
            r.replicas.push_back(*other);
          }
        }
        ranges.push_back(std::move(r));
      }
      if (i < kNumSlots && n != cur) {
        cur = n;
        start = i;
      }
    }
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(ranges.size());
  for (const Range& r : ranges) {
    rb.Array(3 + r.replicas.size());
    rb.Integer(r.start);
    rb.Integer(r.end);
    NodeForSlots(ctx, s, r.primary);
    for (const Node& rep : r.replicas) NodeForSlots(ctx, s, rep);
  }
}

void ShardNode(CommandContext& ctx, const ClusterSettings& s, const Node& n, bool is_myself) {
  ReplyBuilder& rb = ctx.rb();
  size_t pairs = 7 + (n.hostname.empty() ? 0 : 1);
  rb.Map(pairs);
  rb.Bulk("id");
  rb.Bulk(n.name);
  rb.Bulk("port");
  rb.Integer(n.port);
  rb.Bulk("ip");
  rb.Bulk(n.ip);
  rb.Bulk("endpoint");
  bool null_host = false;
  rb.Bulk(PreferredHost(s, n, &null_host));
  if (!n.hostname.empty()) {
    rb.Bulk("hostname");
    rb.Bulk(n.hostname);
  }
  rb.Bulk("role");
  rb.Bulk(n.IsReplica() ? "replica" : "master");
  rb.Bulk("replication-offset");
  rb.Integer(n.repl_offset);
  rb.Bulk("health");
  const char* health = "online";
  if (n.Has(kFlagFail)) {
    health = "fail";
  } else if (n.IsReplica() && n.repl_offset == 0) {
    health = "loading";
  }
  (void)is_myself;
  rb.Bulk(health);
}

void ClusterShards(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  ClusterSettings s = st->settings();
  std::vector<Node> nodes = st->Nodes();
  std::vector<std::vector<std::pair<int, int>>> slot_ranges;
  std::vector<const Node*> primaries;
  for (const Node& n : nodes) {
    if (n.IsPrimary()) primaries.push_back(&n);
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(primaries.size());
  std::string me = st->MyName();
  for (const Node* p : primaries) {
    std::vector<std::pair<int, int>> ranges;
    {
      auto lock = st->Lock();
      int start = -1;
      for (int i = 0; i <= kNumSlots; ++i) {
        Node* o = i < kNumSlots ? st->SlotOwnerLocked(i) : nullptr;
        bool mine = o != nullptr && o->name == p->name;
        if (mine && start < 0) start = i;
        if (!mine && start >= 0) {
          ranges.emplace_back(start, i - 1);
          start = -1;
        }
      }
    }
    rb.Map(2);
    rb.Bulk("slots");
    rb.Array(ranges.size() * 2);
    for (auto [a, b] : ranges) {
      rb.Integer(a);
      rb.Integer(b);
    }
    rb.Bulk("nodes");
    std::vector<const Node*> members{p};
    for (const Node& n : nodes) {
      if (n.IsReplica() && n.primary == p->name) members.push_back(&n);
    }
    rb.Array(members.size());
    for (const Node* m : members) ShardNode(ctx, s, *m, m->name == me);
  }
}

void ClusterLinks(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  std::vector<LinkInfo> links;
  if (BusInterface* bus = st->bus()) links = bus->Links();
  ReplyBuilder& rb = ctx.rb();
  rb.Array(links.size());
  for (const LinkInfo& l : links) {
    rb.Map(6);
    rb.Bulk("direction");
    rb.Bulk(l.direction);
    rb.Bulk("node");
    rb.Bulk(l.node);
    rb.Bulk("create-time");
    rb.Integer(l.create_time_ms);
    rb.Bulk("events");
    rb.Bulk(l.events);
    rb.Bulk("send-buffer-allocated");
    rb.Integer(l.send_buffer_allocated);
    rb.Bulk("send-buffer-used");
    rb.Integer(l.send_buffer_used);
  }
}

void ClusterKeySlot(CommandContext& ctx) {
  ctx.rb().Integer(KeySlot(ctx.arg(2)));
}

void ClusterCountKeysInSlot(CommandContext& ctx) {
  if (StateOrReply(ctx) == nullptr) return;
  std::optional<int64_t> slot = ParseInt64(ctx.arg(2));
  if (!slot) return ctx.rb().Error(errors::kNotInteger);
  if (*slot < 0 || *slot >= kNumSlots) return ctx.rb().Error("ERR Invalid slot");
  ctx.rb().Integer(CountKeysInSlot(ctx.keyspace(), static_cast<int>(*slot)));
}

void ClusterGetKeysInSlot(CommandContext& ctx) {
  if (StateOrReply(ctx) == nullptr) return;
  std::optional<int64_t> slot = ParseInt64(ctx.arg(2));
  if (!slot) return ctx.rb().Error(errors::kNotInteger);
  std::optional<int64_t> count = ParseInt64(ctx.arg(3));
  if (!count) return ctx.rb().Error(errors::kNotInteger);
  if (*count < 0 || *slot < 0 || *slot >= kNumSlots) {
    return ctx.rb().Error("ERR Invalid slot or number of keys");
  }
  std::vector<std::string> keys;
  GetKeysInSlot(ctx.keyspace(), static_cast<int>(*slot), *count, &keys);
  ctx.rb().Array(keys.size());
  for (const std::string& k : keys) ctx.rb().Bulk(k);
}

// CLUSTER SLOT-STATS (Redis 8.0): per-slot statistics of the slots this node serves,
// SLOTSRANGE start end (in slot order) or ORDERBY metric [LIMIT n] [ASC|DESC] (DESC by
// default; equal values in slot order). Only key-count is kept: the cpu-usec and
// network-bytes-in/out metrics Redis adds with cluster-slot-stats-enabled are not
// tracked (that setting is accepted and ignored), so ORDERBY of them answers as Redis
// does while they are off.
void ClusterSlotStats(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  constexpr std::string_view kUnknown =
      "ERR unknown subcommand or wrong number of arguments for 'SLOT-STATS'. Try CLUSTER HELP.";
  ClusterRouter* router = ClusterRouter::StatsRouter();
  const uint32_t flags = router != nullptr ? router->stats_flags() : 0;
  const bool cpu = (flags & ClusterRouter::kStatCpu) != 0;
  const bool net = (flags & ClusterRouter::kStatNet) != 0;
  // One slot's statistics: a map of the enabled metrics, key-count first.
  auto reply_slot = [&](int s, int64_t count) {
    ctx.rb().Array(2);
    ctx.rb().Integer(s);
    ctx.rb().Map(1 + (cpu ? 1 : 0) + (net ? 2 : 0));
    ctx.rb().Bulk("key-count");
    ctx.rb().Integer(count);
    if (cpu) {
      ctx.rb().Bulk("cpu-usec");
      ctx.rb().Integer(static_cast<int64_t>(router->StatCpu(s)));
    }
    if (net) {
      ctx.rb().Bulk("network-bytes-in");
      ctx.rb().Integer(static_cast<int64_t>(router->StatIn(s)));
      ctx.rb().Bulk("network-bytes-out");
      ctx.rb().Integer(static_cast<int64_t>(router->StatOut(s)));
    }
  };
  const size_t argc = ctx.argc();
  const Node me = st->Myself();
  if (EqualsIgnoreCase(ctx.arg(2), "slotsrange") && argc == 5) {
    std::optional<int64_t> a = ParseInt64(ctx.arg(3));
    std::optional<int64_t> b = ParseInt64(ctx.arg(4));
    if (!a || !b || *a < 0 || *a >= kNumSlots || *b < 0 || *b >= kNumSlots) {
      return ctx.rb().Error("ERR Invalid or out of range slot");
    }
    if (*a > *b) {
      return ctx.rb().Error("ERR Start slot number " + std::to_string(*a) +
                            " is greater than end slot number " + std::to_string(*b));
    }
    std::vector<int> slots;
    for (int64_t s = *a; s <= *b; ++s) {
      if (me.slots.test(static_cast<size_t>(s))) slots.push_back(static_cast<int>(s));
    }
    ctx.rb().Array(slots.size());
    for (int s : slots) reply_slot(s, CountKeysInSlot(ctx.keyspace(), s));
    return;
  }
  if (!EqualsIgnoreCase(ctx.arg(2), "orderby") || argc < 4) {
    return ctx.rb().Error(kUnknown);
  }
  // The metric: key-count, or one of the enabled ones.
  int metric = -1;
  const std::string_view m = ctx.arg(3);
  if (EqualsIgnoreCase(m, "key-count")) {
    metric = 0;
  } else if (cpu && EqualsIgnoreCase(m, "cpu-usec")) {
    metric = 1;
  } else if (net && EqualsIgnoreCase(m, "network-bytes-in")) {
    metric = 2;
  } else if (net && EqualsIgnoreCase(m, "network-bytes-out")) {
    metric = 3;
  } else {
    return ctx.rb().Error("ERR Unrecognized sort metric for ORDERBY.");
  }
  int64_t limit = kNumSlots;  // no LIMIT: every served slot
  bool desc = true;
  bool saw_limit = false, saw_order = false;
  for (size_t i = 4; i < argc; ++i) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "limit") && i + 1 < argc) {
      if (saw_limit) return ctx.rb().Error("ERR Multiple filters of the same type are disallowed.");
      saw_limit = true;
      std::optional<int64_t> n = ParseInt64(ctx.arg(++i));
      if (!n || *n < 1 || *n > kNumSlots) {
        return ctx.rb().Error(
            "ERR Limit has to lie in between 1 and 16384 (maximum number of slots).");
      }
      limit = *n;
    } else if (EqualsIgnoreCase(a, "asc") || EqualsIgnoreCase(a, "desc")) {
      if (saw_order) return ctx.rb().Error("ERR Multiple filters of the same type are disallowed.");
      saw_order = true;
      desc = EqualsIgnoreCase(a, "desc");
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  struct Row {
    uint64_t value;
    int64_t count;
    int slot;
  };
  std::vector<Row> rows;  // slot order
  for (int s = 0; s < kNumSlots; ++s) {
    if (!me.slots.test(static_cast<size_t>(s))) continue;
    const int64_t count = CountKeysInSlot(ctx.keyspace(), s);
    uint64_t v = static_cast<uint64_t>(count);
    if (metric == 1) v = router->StatCpu(s);
    if (metric == 2) v = router->StatIn(s);
    if (metric == 3) v = router->StatOut(s);
    rows.push_back({v, count, s});
  }
  std::stable_sort(rows.begin(), rows.end(), [desc](const Row& x, const Row& y) {
    return desc ? x.value > y.value : x.value < y.value;
  });
  if (rows.size() > static_cast<size_t>(limit)) rows.resize(static_cast<size_t>(limit));
  ctx.rb().Array(rows.size());
  for (const Row& r : rows) reply_slot(r.slot, r.count);
}

// ADDSLOTS / DELSLOTS (ranges or not): parse and check as Redis does, argument by
// argument, then apply all or none.
void SlotsCommand(CommandContext& ctx, bool del, bool ranges) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  if (ranges && ctx.argc() % 2 == 1) {
    return ctx.rb().Error("ERR wrong number of arguments for '" +
                          ctx.command()->full_name + "' command");
  }
  std::vector<int> slots;
  std::vector<uint8_t> seen(kNumSlots, 0);
  auto lock = st->Lock();
  auto check = [&](int slot) {
    bool assigned = st->SlotOwnerLocked(slot) != nullptr;
    if (del && !assigned) {
      ctx.rb().Error("ERR Slot " + std::to_string(slot) + " is already unassigned");
      return false;
    }
    if (!del && assigned) {
      ctx.rb().Error("ERR Slot " + std::to_string(slot) + " is already busy");
      return false;
    }
    if (seen[slot]++ == 1) {
      ctx.rb().Error("ERR Slot " + std::to_string(slot) + " specified multiple times");
      return false;
    }
    slots.push_back(slot);
    return true;
  };
  if (ranges) {
    for (size_t j = 2; j + 1 < ctx.argc(); j += 2) {
      int a = SlotOrReply(ctx, ctx.arg(j));
      if (a < 0) return;
      int b = SlotOrReply(ctx, ctx.arg(j + 1));
      if (b < 0) return;
      if (a > b) {
        return ctx.rb().Error("ERR start slot number " + std::to_string(a) +
                              " is greater than end slot number " + std::to_string(b));
      }
      for (int s = a; s <= b; ++s) {
        if (!check(s)) return;
      }
    }
  } else {
    for (size_t j = 2; j < ctx.argc(); ++j) {
      int s = SlotOrReply(ctx, ctx.arg(j));
      if (s < 0) return;
      if (!check(s)) return;
    }
  }
  Status r = del ? st->DelSlots(slots) : st->AddSlots(slots);
  if (!r.ok()) return ctx.rb().Error(r.message());
  ctx.rb().Ok();
}

void ClusterAddSlots(CommandContext& ctx) { SlotsCommand(ctx, false, false); }
void ClusterAddSlotsRange(CommandContext& ctx) { SlotsCommand(ctx, false, true); }
void ClusterDelSlots(CommandContext& ctx) { SlotsCommand(ctx, true, false); }
void ClusterDelSlotsRange(CommandContext& ctx) { SlotsCommand(ctx, true, true); }

void ClusterFlushSlots(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  if (ctx.keyspace().DbSize(0) != 0) {
    return ctx.rb().Error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
  }
  st->FlushSlots();
  ctx.rb().Ok();
}

void ClusterSetSlot(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  if (st->Myself().IsReplica()) {
    return ctx.rb().Error("ERR Please use SETSLOT only with masters.");
  }
  int slot = SlotOrReply(ctx, ctx.arg(2));
  if (slot < 0) return;
  std::string action = ToLower(ctx.arg(3));
  Status r;
  if (action == "migrating" && ctx.argc() == 5) {
    r = st->SetSlotMigrating(slot, std::string(ctx.arg(4)));
  } else if (action == "importing" && ctx.argc() == 5) {
    r = st->SetSlotImporting(slot, std::string(ctx.arg(4)));
  } else if (action == "stable" && ctx.argc() == 4) {
    r = st->SetSlotStable(slot);
  } else if (action == "node" && ctx.argc() == 5) {
    r = st->SetSlotNode(slot, std::string(ctx.arg(4)), CountKeysInSlot(ctx.keyspace(), slot));
  } else {
    return ctx.rb().Error(
        "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
  }
  if (!r.ok()) return ctx.rb().Error(r.message());
  ctx.rb().Ok();
}

void ClusterSetConfigEpoch(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  std::optional<int64_t> epoch = ParseInt64(ctx.arg(2));
  if (!epoch) return ctx.rb().Error(errors::kNotInteger);
  if (*epoch < 0) {
    return ctx.rb().Error("ERR Invalid config epoch specified: " + std::to_string(*epoch));
  }
  Status r = st->SetConfigEpoch(static_cast<uint64_t>(*epoch));
  if (!r.ok()) return ctx.rb().Error(r.message());
  ctx.rb().Ok();
}

void ClusterBumpEpoch(CommandContext& ctx) {
  if (ClusterState* st = StateOrReply(ctx)) ctx.rb().SimpleString(st->BumpEpoch());
}

void ClusterForget(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  Status r = st->Forget(std::string(ctx.arg(2)), WallMs());
  if (!r.ok()) return ctx.rb().Error(r.message());
  ctx.rb().Ok();
}

void ClusterCountFailureReports(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  std::string name(ctx.arg(2));
  if (!st->GetNode(name)) return ctx.rb().Error("ERR Unknown node " + name);
  ctx.rb().Integer(st->CountFailReports(name, WallMs()));
}

void ClusterReplicas(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  std::string name(ctx.arg(2));
  std::optional<Node> n = st->GetNode(name);
  if (!n) return ctx.rb().Error("ERR Unknown node " + name);
  if (n->IsReplica()) return ctx.rb().Error("ERR The specified node is not a master");
  // One CLUSTER NODES line per replica.
  std::vector<std::string> lines;
  std::string all = NodeLines(*st);
  size_t pos = 0;
  while (pos < all.size()) {
    size_t nl = all.find('\n', pos);
    std::string line = all.substr(pos, nl - pos);
    pos = nl == std::string::npos ? all.size() : nl + 1;
    std::string id = line.substr(0, kNodeNameLen);
    std::optional<Node> r = st->GetNode(id);
    if (r && r->IsReplica() && r->primary == name) lines.push_back(line);
  }
  ctx.rb().Array(lines.size());
  for (const std::string& l : lines) ctx.rb().Bulk(l);
}

void ClusterReplicate(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  std::string name(ctx.arg(2));
  std::optional<Node> n = st->GetNode(name);
  if (!n) return ctx.rb().Error("ERR Unknown node " + name);
  if (n->name == st->MyName()) return ctx.rb().Error("ERR Can't replicate myself");
  if (n->IsReplica()) return ctx.rb().Error("ERR I can only replicate a master, not a replica.");
  Node me = st->Myself();
  if (me.IsPrimary() && (me.NumSlots() != 0 || ctx.keyspace().DbSize(0) != 0)) {
    return ctx.rb().Error("ERR To set a master the node must be empty and without assigned slots.");
  }
  ctx.rb().Error("ERR HotKV cluster nodes cannot be replicas yet (replication is not implemented)");
}

void ClusterFailover(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  if (ctx.argc() == 3) {
    std::string opt = ToLower(ctx.arg(2));
    if (opt != "force" && opt != "takeover") return ctx.rb().Error(errors::kSyntax);
  } else if (ctx.argc() > 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  if (!st->Myself().IsReplica()) {
    return ctx.rb().Error("ERR You should send CLUSTER FAILOVER to a replica");
  }
  ctx.rb().Error("ERR Manual failover is not implemented");
}

void ClusterReset(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  bool hard = false;
  if (ctx.argc() == 3) {
    std::string opt = ToLower(ctx.arg(2));
    if (opt == "hard") {
      hard = true;
    } else if (opt != "soft") {
      return ctx.rb().Error(errors::kSyntax);
    }
  } else if (ctx.argc() > 3) {
    return SubcommandSyntaxError(ctx);
  }
  if (st->Myself().IsPrimary() && ctx.keyspace().DbSize(0) != 0) {
    return ctx.rb().Error("ERR CLUSTER RESET can't be called with master nodes containing keys");
  }
  st->Reset(hard);
  ctx.rb().Ok();
}

void ClusterSaveConfig(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  Status r = st->SaveConfig();
  if (!r.ok()) {
    return ctx.rb().Error("ERR error saving the cluster node config: " + r.message());
  }
  ctx.rb().Ok();
}

void ClusterMeet(CommandContext& ctx) {
  ClusterState* st = StateOrReply(ctx);
  if (st == nullptr) return;
  if (ctx.argc() > 5) return SubcommandSyntaxError(ctx);
  std::optional<int64_t> port = ParseInt64(ctx.arg(3));
  if (!port) {
    return ctx.rb().Error("ERR Invalid TCP base port specified: " + std::string(ctx.arg(3)));
  }
  int64_t cport = *port + 10000;
  if (ctx.argc() == 5) {
    std::optional<int64_t> c = ParseInt64(ctx.arg(4));
    if (!c) {
      return ctx.rb().Error("ERR Invalid TCP bus port specified: " + std::string(ctx.arg(4)));
    }
    cport = *c;
  }
  std::string ip(ctx.arg(2));
  bool valid_ports = *port > 0 && *port <= 65535 && cport > 0 && cport <= 65535;
  std::string name;
  if (!valid_ports ||
      (!st->StartHandshake(ip, static_cast<int>(*port), static_cast<int>(cport), true, &name) &&
       !st->HandshakeInProgress(ip, static_cast<int>(*port), static_cast<int>(cport)))) {
    return ctx.rb().Error("ERR Invalid node address specified: " + ip + ":" +
                          std::string(ctx.arg(3)));
  }
  ctx.rb().Ok();
}

void ClusterHelp(CommandContext& ctx) {
  static const char* const kLines[] = {
      "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ADDSLOTS <slot> [<slot> ...]",
      "    Assign slots to current node.",
      "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
      "    Assign slots which are between <start-slot> and <end-slot> to current node.",
      "BUMPEPOCH",
      "    Advance the cluster config epoch.",
      "COUNT-FAILURE-REPORTS <node-id>",
      "    Return number of failure reports for <node-id>.",
      "COUNTKEYSINSLOT <slot>",
      "    Return the number of keys in <slot>.",
      "DELSLOTS <slot> [<slot> ...]",
      "    Delete slots information from current node.",
      "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
      "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
      "FAILOVER [FORCE|TAKEOVER]",
      "    Promote current replica node to being a master.",
      "FORGET <node-id>",
      "    Remove a node from the cluster.",
      "GETKEYSINSLOT <slot> <count>",
      "    Return key names stored by current node in a slot.",
      "FLUSHSLOTS",
      "    Delete current node own slots information.",
      "INFO",
      "    Return information about the cluster.",
      "KEYSLOT <key>",
      "    Return the hash slot for <key>.",
      "MEET <ip> <port> [<bus-port>]",
      "    Connect nodes into a working cluster.",
      "MYID",
      "    Return the node id.",
      "MYSHARDID",
      "    Return the node's shard id.",
      "NODES",
      "    Return cluster configuration seen by node. Output format:",
      "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
      "REPLICATE <node-id>",
      "    Configure current node as replica to <node-id>.",
      "RESET [HARD|SOFT]",
      "    Reset current node (default: soft).",
      "SET-CONFIG-EPOCH <epoch>",
      "    Set config epoch of current node.",
      "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
      "    Set slot state.",
      "REPLICAS <node-id>",
      "    Return <node-id> replicas.",
      "SAVECONFIG",
      "    Force saving cluster configuration on disk.",
      "SLOTS",
      "    Return information about slots range mappings. Each range is made of:",
      "    start, end, master and replicas IP addresses, ports and ids",
      "SLOT-STATS",
      "    Return an array of slot usage statistics for slots assigned to the current node.",
      "SHARDS",
      "    Return information about slot range mappings and the nodes associated with them.",
      "LINKS",
      "    Return information about all network links between this node and its peers.",
      "    Output format is an array where each array element is a map containing attributes of a link",
      "HELP",
      "    Prints this help.",
  };
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) ctx.rb().SimpleString(l);
}

void AskingCommand(CommandContext& ctx) {
  if (GetClusterState() == nullptr) {
    return ctx.rb().Error("ERR This instance has cluster support disabled");
  }
  ctx.client().set_asking_state(2);
  ctx.rb().Ok();
}

void ReadonlyCommand(CommandContext& ctx) {
  if (GetClusterState() == nullptr) {
    return ctx.rb().Error("ERR This instance has cluster support disabled");
  }
  ctx.client().set_cluster_readonly(true);
  ctx.rb().Ok();
}

void ReadwriteCommand(CommandContext& ctx) {
  if (GetClusterState() == nullptr) {
    return ctx.rb().Error("ERR This instance has cluster support disabled");
  }
  ctx.client().set_cluster_readonly(false);
  ctx.rb().Ok();
}

}  // namespace

void RegisterClusterCommands(CommandTable& t) {
  t.Add({.name = "cluster", .arity = -2, .acl = "@slow",
         .doc = {"cluster", "3.0.0", "Depends on subcommand.", "A container for Redis Cluster commands.", ""}});
  struct Sub {
    const char* name;
    int arity;
    const char* flags;
    CommandHandler handler;
    const char* since;
    const char* complexity;
    const char* summary;
    const char* syntax;
    const char* acl;
  };
  static const Sub kSubs[] = {
      {"addslots", -3, "no_async_loading admin stale", ClusterAddSlots, "3.0.0", "O(N) where N is the total number of hash slot arguments", "Assigns new hash slots to a node.", "slot:integer [slot:integer ...]", "@admin @slow @dangerous"},
      {"addslotsrange", -4, "no_async_loading admin stale", ClusterAddSlotsRange, "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments.", "Assigns new hash slot ranges to a node.", "<range: start-slot:integer end-slot:integer> ...", "@admin @slow @dangerous"},
      {"bumpepoch", 2, "no_async_loading admin stale", ClusterBumpEpoch, "3.0.0", "O(1)", "Advances the cluster config epoch.", "", "@admin @slow @dangerous"},
      {"count-failure-reports", 3, "admin loading stale", ClusterCountFailureReports, "3.0.0", "O(N) where N is the number of failure reports", "Returns the number of active failure reports active for a node.", "node-id", "@admin @slow @dangerous"},
      {"countkeysinslot", 3, "stale", ClusterCountKeysInSlot, "3.0.0", "O(1)", "Returns the number of keys in a hash slot.", "slot:integer", "@slow"},
      {"delslots", -3, "no_async_loading admin stale", ClusterDelSlots, "3.0.0", "O(N) where N is the total number of hash slot arguments", "Sets hash slots as unbound for a node.", "slot:integer [slot:integer ...]", "@admin @slow @dangerous"},
      {"delslotsrange", -4, "no_async_loading admin stale", ClusterDelSlotsRange, "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments.", "Sets hash slot ranges as unbound for a node.", "<range: start-slot:integer end-slot:integer> ...", "@admin @slow @dangerous"},
      {"failover", -2, "no_async_loading admin stale", ClusterFailover, "3.0.0", "O(1)", "Forces a replica to perform a manual failover of its master.", "[options: FORCE | TAKEOVER]", "@admin @slow @dangerous"},
      {"flushslots", 2, "no_async_loading admin stale", ClusterFlushSlots, "3.0.0", "O(1)", "Deletes all slots information from a node.", "", "@admin @slow @dangerous"},
      {"forget", 3, "no_async_loading admin stale", ClusterForget, "3.0.0", "O(1)", "Removes a node from the nodes table.", "node-id", "@admin @slow @dangerous"},
      {"getkeysinslot", 4, "stale", ClusterGetKeysInSlot, "3.0.0", "O(N) where N is the number of requested keys", "Returns the key names in a hash slot.", "slot:integer count", "@slow"},
      {"help", 2, "loading stale", ClusterHelp, "5.0.0", "O(1)", "Returns helpful text about the different subcommands.", "", "@slow"},
      {"info", 2, "loading stale", ClusterInfo, "3.0.0", "O(1)", "Returns information about the state of a node.", "", "@slow"},
      {"keyslot", 3, "loading stale", ClusterKeySlot, "3.0.0", "O(N) where N is the number of bytes in the key", "Returns the hash slot for a key.", "key:string", "@slow"},
      {"links", 2, "loading stale", ClusterLinks, "7.0.0", "O(N) where N is the total number of Cluster nodes", "Returns a list of all TCP links to and from peer nodes.", "", "@slow"},
      {"meet", -4, "no_async_loading admin stale", ClusterMeet, "3.0.0", "O(1)", "Forces a node to handshake with another node.", "ip port [cluster-bus-port:integer]", "@admin @slow @dangerous"},
      {"myid", 2, "loading stale", ClusterMyId, "3.0.0", "O(1)", "Returns the ID of a node.", "", "@slow"},
      {"myshardid", 2, "loading stale", ClusterMyShardId, "7.2.0", "O(1)", "Returns the shard ID of a node.", "", "@slow"},
      {"nodes", 2, "loading stale", ClusterNodes, "3.0.0", "O(N) where N is the total number of Cluster nodes", "Returns the cluster configuration for a node.", "", "@slow"},
      {"replicas", 3, "admin loading stale", ClusterReplicas, "5.0.0", "O(N) where N is the number of replicas.", "Lists the replica nodes of a master node.", "node-id", "@admin @slow @dangerous"},
      {"replicate", 3, "no_async_loading admin stale", ClusterReplicate, "3.0.0", "O(1)", "Configure a node as replica of a master node.", "node-id", "@admin @slow @dangerous"},
      {"reset", -2, "admin stale noscript", ClusterReset, "3.0.0", "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.", "Resets a node.", "[reset-type: HARD | SOFT]", "@admin @slow @dangerous"},
      {"saveconfig", 2, "no_async_loading admin stale", ClusterSaveConfig, "3.0.0", "O(1)", "Forces a node to save the cluster configuration to disk.", "", "@admin @slow @dangerous"},
      {"set-config-epoch", 3, "no_async_loading admin stale", ClusterSetConfigEpoch, "3.0.0", "O(1)", "Sets the configuration epoch for a new node.", "config-epoch:integer", "@admin @slow @dangerous"},
      {"setslot", -4, "no_async_loading admin stale may_replicate", ClusterSetSlot, "3.0.0", "O(1)", "Binds a hash slot to a node.", "slot:integer <subcommand: IMPORTING importing:string | MIGRATING migrating:string | NODE node:string | STABLE>", "@admin @slow @dangerous"},
      {"shards", 2, "loading stale", ClusterShards, "7.0.0", "O(N) where N is the total number of cluster nodes", "Returns the mapping of cluster slots to shards.", "", "@slow"},
      {"slaves", 3, "admin loading stale", ClusterReplicas, "3.0.0", "O(N) where N is the number of replicas.", "Lists the replica nodes of a master node.", "node-id", "@admin @slow @dangerous"},
      {"slot-stats", -4, "loading stale", ClusterSlotStats, "8.0.0", "O(N) where N is the total number of slots based on arguments. O(N*log(N)) with ORDERBY subcommand.", "Return an array of slot usage statistics for slots assigned to the current node.", "<filter: <slotsrange: SLOTSRANGE start-slot:integer end-slot:integer> | <orderby: ORDERBY metric:string [LIMIT limit:integer] [order: ASC | DESC]>>", "@slow"},
      {"slots", 2, "loading stale", ClusterSlots, "3.0.0", "O(N) where N is the total number of Cluster nodes", "Returns the mapping of cluster slots to nodes.", "", "@slow"},
  };
  // Redis's request/response tips: these replies depend on the cluster's state.
  static const std::string_view kNondeterministic[] = {
      "bumpepoch", "count-failure-reports", "getkeysinslot", "info", "links", "myshardid",
      "nodes", "replicas", "shards", "slaves", "slot-stats", "slots"};
  for (const Sub& s : kSubs) {
    std::vector<std::string> tips;
    for (std::string_view n : kNondeterministic) {
      if (n == s.name) tips.push_back("nondeterministic_output");
    }
    if (std::string_view(s.name) == "slot-stats") tips.push_back("request_policy:all_shards");
    t.AddSub("cluster", {.name = s.name, .arity = s.arity, .flags = s.flags, .acl = s.acl,
                         .handler = s.handler,
                         .doc = {"cluster", s.since, s.complexity, s.summary, s.syntax},
                         .tips = std::move(tips)});
  }
  t.Add({.name = "asking", .arity = 1, .flags = "fast", .acl = "@fast @connection",
         .handler = AskingCommand,
         .doc = {"cluster", "3.0.0", "O(1)", "Signals that a cluster client is following an -ASK redirect.", ""}});
  t.Add({.name = "readonly", .arity = 1, .flags = "loading stale fast", .acl = "@fast @connection",
         .handler = ReadonlyCommand,
         .doc = {"cluster", "3.0.0", "O(1)", "Enables read-only queries for a connection to a Redis Cluster replica node.", ""}});
  t.Add({.name = "readwrite", .arity = 1, .flags = "loading stale fast", .acl = "@fast @connection",
         .handler = ReadwriteCommand,
         .doc = {"cluster", "3.0.0", "O(1)", "Enables read-write queries for a connection to a Reids Cluster replica node.", ""}});
}

// ------------------------------------------------------------------------ runtime

ClusterSettings SettingsFromConfig(Config& config) {
  ClusterSettings s;
  auto num = [&](const char* name, int64_t dflt) {
    std::optional<int64_t> v = ParseInt64(config.GetString(name));
    return v ? *v : dflt;
  };
  auto yes = [&](const char* name) { return config.GetString(name) == "yes"; };
  s.config_file = config.GetString("cluster-config-file");
  const int64_t port = config.port();
  const int64_t announce_port = num("cluster-announce-port", 0);
  s.port = static_cast<int>(announce_port != 0 ? announce_port : port);
  int64_t cluster_port = num("cluster-port", 0);
  s.bus_listen_port = static_cast<int>(cluster_port != 0 ? cluster_port : port + 10000);
  const int64_t announce_bus = num("cluster-announce-bus-port", 0);
  s.cport = static_cast<int>(announce_bus != 0 ? announce_bus : s.bus_listen_port);
  s.tls_port = static_cast<int>(num("cluster-announce-tls-port", 0));
  s.node_timeout_ms = num("cluster-node-timeout", 15000);
  s.announce_ip = config.GetString("cluster-announce-ip");
  s.announce_hostname = config.GetString("cluster-announce-hostname");
  s.announce_human_nodename = config.GetString("cluster-announce-human-nodename");
  s.require_full_coverage = yes("cluster-require-full-coverage");
  s.allow_reads_when_down = yes("cluster-allow-reads-when-down");
  s.allow_pubsubshard_when_down = yes("cluster-allow-pubsubshard-when-down");
  s.allow_replica_migration = yes("cluster-allow-replica-migration");
  s.replica_validity_factor = static_cast<int>(num("cluster-replica-validity-factor", 10));
  s.migration_barrier = static_cast<int>(num("cluster-migration-barrier", 1));
  s.replica_no_failover = yes("cluster-replica-no-failover");
  std::string ep = config.GetString("cluster-preferred-endpoint-type");
  s.preferred_endpoint = ep == "hostname"           ? ClusterSettings::Endpoint::kHostname
                         : ep == "unknown-endpoint" ? ClusterSettings::Endpoint::kUnknown
                                                    : ClusterSettings::Endpoint::kIp;
  return s;
}

ClusterRuntime::ClusterRuntime() = default;

ClusterRuntime::~ClusterRuntime() { Stop(); }

Status ClusterRuntime::Start(Server& server, Config& config) {
  if (config.GetString("cluster-enabled") != "yes") return Status::Ok();
  server_ = &server;
  state_ = std::make_unique<ClusterState>();
  state_->SetSettings(SettingsFromConfig(config));
  Status st = state_->LoadOrCreate();
  if (!st.ok()) {
    state_.reset();
    return st;
  }
  SetClusterState(state_.get());
  router_ = std::make_unique<ClusterRouter>(state_.get(), server.commands());
  server.set_cluster(router_.get());
  SetClusterScriptHooks(router_.get());
  // CONFIG SET of a cluster-* option (or port) refreshes the settings.
  static const char* const kLive[] = {
      "cluster-node-timeout", "cluster-announce-ip", "cluster-announce-port",
      "cluster-announce-bus-port", "cluster-announce-tls-port", "cluster-announce-hostname",
      "cluster-announce-human-nodename", "cluster-require-full-coverage",
      "cluster-allow-reads-when-down", "cluster-allow-pubsubshard-when-down",
      "cluster-allow-replica-migration", "cluster-replica-validity-factor",
      "cluster-migration-barrier", "cluster-replica-no-failover",
      "cluster-preferred-endpoint-type", "port"};
  {
    Config* cfg = &config;
    ClusterRouter* router = router_.get();
    router->SetSlotStats(config.GetString("cluster-slot-stats-enabled"));
    config.OnChange("cluster-slot-stats-enabled", [cfg, router] {
      router->SetSlotStats(cfg->GetString("cluster-slot-stats-enabled"));
    });
  }
  for (const char* name : kLive) {
    Config* cfg = &config;
    ClusterState* state = state_.get();
    ClusterRouter* router = router_.get();
    config.OnChange(name, [cfg, state, router] {
      state->SetSettings(SettingsFromConfig(*cfg));
      state->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
      router->Refresh();
    });
  }
  // The bus listens on the cluster port, on the client listener's addresses.
  auto bus = StartClusterBus(server, state_.get(), Config::SplitValue(config.GetString("bind")),
                             state_->settings().bus_listen_port);
  if (!bus.ok()) {
    Stop();
    return bus.status();
  }
  bus_ = std::move(bus).value();
  thread_ = std::thread([this] { Cron(); });
  return Status::Ok();
}

void ClusterRuntime::Cron() {
  std::unique_lock<std::mutex> lk(mu_);
  std::vector<int> sweep_again;  // dirty slots swept once, swept once more a second later
  int64_t sweep_again_at = 0;
  while (!stop_) {
    cv_.wait_for(lk, std::chrono::milliseconds(100));
    if (stop_) break;
    lk.unlock();
    const int64_t now = WallMs();
    state_->Tick(now);
    // Keys left in slots the bus gave to a node with a higher config epoch.
    if (std::vector<int> lost = state_->TakeLostSlots(); !lost.empty() && server_ != nullptr) {
      sweep_again.insert(sweep_again.end(), lost.begin(), lost.end());
      sweep_again_at = now + 1000;
      DeleteDirtySlots(server_->worker(0), state_.get(), std::move(lost));
    } else if (!sweep_again.empty() && now >= sweep_again_at && server_ != nullptr) {
      // Commands are routed before they take their shard's lock (Redis, single-threaded,
      // has no such gap): a write routed just before the slot was lost can land after the
      // first sweep and would stay behind in a slot this node does not serve. A second
      // sweep, a second later, removes such keys too (still only in slots neither ours
      // nor being imported by then).
      std::sort(sweep_again.begin(), sweep_again.end());
      sweep_again.erase(std::unique(sweep_again.begin(), sweep_again.end()), sweep_again.end());
      DeleteDirtySlots(server_->worker(0), state_.get(), std::move(sweep_again));
      sweep_again.clear();
    }
    lk.lock();
  }
}

void ClusterRuntime::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  StopClusterBus(state_.get(), bus_);
  if (state_ != nullptr) {
    (void)state_->SaveIfDirty();
  }
  if (server_ != nullptr) server_->set_cluster(nullptr);
  if (router_ != nullptr) router_->SetSlotStats("no");  // the dispatcher's hook goes
  SetClusterScriptHooks(nullptr);
  SetClusterState(nullptr);
}

}  // namespace hotkv::cluster

// ClusterState: this node's view of the Redis Cluster it belongs to — the node table
// (names, addresses, flags, primaries, epochs, slot bitmaps, failure reports), the
// current and last-vote epochs, the owner of each of the 16384 slots, and the slots being
// migrated out of or imported into this node.
//
// Two sides:
//  - The control plane (CLUSTER commands, the cluster bus thread, nodes.conf): every
//    mutation and every read of the node table goes through one mutex. The public methods
//    take it themselves; it is recursive, so a caller that must make several calls
//    atomically (the bus handling one packet) holds `Lock()` around them. Pointers
//    returned by Find*() are valid only while the caller holds `Lock()`.
//  - The hot path (the dispatcher's routing point, one call per command in cluster mode):
//    `Route(slot)` is one relaxed atomic load of a per-slot word (`SlotRoute`), no lock.
//    The word says whether this node serves the slot, whether it is migrating/importing,
//    and indexes an append-only table of endpoint strings ("host:port") for -MOVED/-ASK.
//    Every control-plane change that touches slot ownership or addresses republishes the
//    affected words before returning.
//
// Node flags use the bit values of Redis's cluster bus (CLUSTER_NODE_*), so the bus
// copies them to and from the wire unchanged.
//
// Persistence: mutations mark the state dirty (`MarkDirty`); `SaveIfDirty()` writes
// nodes.conf (atomically, nodes_conf.h) — the CLUSTER commands that Redis saves at once
// call `SaveConfig()` directly, the bus calls `SaveIfDirty()` from its cron.
#pragma once

#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace hotkv::cluster {

inline constexpr int kNumSlots = 16384;
inline constexpr size_t kNodeNameLen = 40;  // 40 lowercase hex characters

using SlotBitmap = std::bitset<kNumSlots>;

// Node flags: Redis's CLUSTER_NODE_* values (also the bus header's flags field).
enum NodeFlag : uint16_t {
  kFlagMaster = 1 << 0,
  kFlagSlave = 1 << 1,
  kFlagPFail = 1 << 2,
  kFlagFail = 1 << 3,
  kFlagMyself = 1 << 4,
  kFlagHandshake = 1 << 5,
  kFlagNoAddr = 1 << 6,
  kFlagMeet = 1 << 7,
  kFlagMigrateTo = 1 << 8,
  kFlagNoFailover = 1 << 9,
};

// "myself,master", "slave", "master,fail?", ... as CLUSTER NODES writes them; "noflags"
// for none.
std::string FlagsToString(uint16_t flags);
// The inverse (nodes.conf); unknown words are an error.
Status FlagsFromString(std::string_view text, uint16_t* flags);

// A random node name: 40 lowercase hex characters.
std::string RandomNodeName();
bool IsValidNodeName(std::string_view name);

struct FailReport {
  std::string reporter;  // name of the primary that reported the node as PFAIL
  int64_t time_ms = 0;   // when the report was last refreshed
};

struct Node {
  std::string name;            // 40 hex characters
  std::string shard_id;        // 40 hex characters (Redis 7.2+ ping extension; random otherwise)
  std::string ip;              // "" until known (NOADDR)
  int port = 0;                // client port
  int cport = 0;               // cluster bus port
  int tls_port = 0;            // unused (no TLS), kept for the nodes.conf round trip
  std::string hostname;        // announced hostname ("" none)
  std::string human_nodename;  // announced human node name ("" none)
  uint16_t flags = 0;          // NodeFlag bits
  std::string primary;         // name of its primary when it is a replica ("" none)
  int64_t ping_sent_ms = 0;    // 0: no ping in flight
  int64_t pong_received_ms = 0;
  int64_t data_received_ms = 0;
  int64_t fail_time_ms = 0;    // when FAIL was set
  int64_t voted_time_ms = 0;   // last time we voted for one of its replicas
  int64_t ctime_ms = 0;        // creation time (handshake timeout)
  int64_t repl_offset = 0;
  uint64_t config_epoch = 0;
  SlotBitmap slots;            // slots it claims (for myself and others: owned)
  std::vector<FailReport> fail_reports;
  bool link_connected = false;  // set by the bus: CLUSTER NODES' connected/disconnected

  bool Has(uint16_t f) const { return (flags & f) != 0; }
  bool IsPrimary() const { return Has(kFlagMaster); }
  bool IsReplica() const { return Has(kFlagSlave); }
  int NumSlots() const { return static_cast<int>(slots.count()); }
};

// The settings the cluster layer reads (from the server's config, cluster-*), set by
// main.cc at start-up and on CONFIG SET.
struct ClusterSettings {
  std::string config_file = "nodes.conf";  // resolved against `dir` by the caller
  int port = 6379;                          // client port (announce-port if set)
  int cport = 16379;                        // announced bus port (announce-bus-port or bus_listen_port)
  int bus_listen_port = 16379;              // where the bus listens (cluster-port, or port + 10000)
  int tls_port = 0;
  int64_t node_timeout_ms = 15000;
  std::string announce_ip;
  std::string announce_hostname;
  std::string announce_human_nodename;
  bool require_full_coverage = true;
  bool allow_reads_when_down = false;
  bool allow_pubsubshard_when_down = true;
  bool allow_replica_migration = true;
  int replica_validity_factor = 10;
  int migration_barrier = 1;
  bool replica_no_failover = false;
  enum class Endpoint { kIp, kHostname, kUnknown } preferred_endpoint = Endpoint::kIp;
};

// The per-slot word the hot path reads (`ClusterState::Route`).
struct SlotRoute {
  // Bit layout of the 64-bit word: [0..1] kind, bit 2 migrating, bit 3 importing,
  // [16..31] owner endpoint index, [32..47] migrating-to endpoint index.
  uint64_t word = 0;

  enum Kind : uint8_t { kUnassigned = 0, kMine = 1, kOther = 2 };
  Kind kind() const { return static_cast<Kind>(word & 3); }
  bool mine() const { return (word & 3) == kMine; }
  bool migrating() const { return (word & 4) != 0; }
  bool importing() const { return (word & 8) != 0; }
  uint16_t owner_endpoint() const { return static_cast<uint16_t>(word >> 16); }
  uint16_t migrating_endpoint() const { return static_cast<uint16_t>(word >> 32); }
  // Fast check: mine, not migrating, not importing.
  bool plain_mine() const { return (word & 0xF) == kMine; }
};

// What CLUSTER LINKS reports, filled by the bus (empty list without a bus).
struct LinkInfo {
  std::string direction;  // "to" / "from"
  std::string node;
  int64_t create_time_ms = 0;
  std::string events;  // "r", "w", "rw"
  int64_t send_buffer_allocated = 0;
  int64_t send_buffer_used = 0;
};

// What the state needs from the bus (src/cluster/cluster_bus.*, h/clbus implements it).
// Every method may be called with the state's lock held: implementations must not call
// back into ClusterState synchronously from another thread while blocking on it.
class BusInterface {
 public:
  virtual ~BusInterface() = default;
  // A node was added in handshake (CLUSTER MEET): connect to it soon.
  virtual void Wakeup() = 0;
  // CLUSTER LINKS.
  virtual std::vector<LinkInfo> Links() = 0;
  // A node was deleted (CLUSTER FORGET / RESET): drop its links.
  virtual void NodeDeleted(const std::string& name) = 0;
  // CLUSTER INFO's message counters: the full lines between cluster_my_epoch and
  // total_cluster_links_buffer_limit_exceeded, in Redis's order, as (name, value) pairs:
  // ("cluster_stats_messages_ping_sent", n), ..., ("cluster_stats_messages_sent", total),
  // ..., ("cluster_stats_messages_received", total). Empty: both totals are printed as 0.
  virtual std::vector<std::pair<std::string, int64_t>> MessageStats() = 0;
};

class ClusterState {
 public:
  ClusterState();
  ~ClusterState();
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  // ---- start-up ----
  void SetSettings(const ClusterSettings& s);
  ClusterSettings settings() const;
  // Loads settings.config_file; a missing file creates a fresh myself (random name,
  // master, no slots) and saves it. A corrupt file is an error (the caller refuses to
  // start), never a crash.
  Status LoadOrCreate();
  void SetBus(BusInterface* bus);  // may be null
  BusInterface* bus() const { return bus_.load(std::memory_order_acquire); }

  // ---- locking (control plane) ----
  std::unique_lock<std::recursive_mutex> Lock() const { return std::unique_lock(mu_); }

  // ---- reads (copies; take the lock themselves) ----
  std::string MyName() const;
  std::string MyShardId() const;
  Node Myself() const;
  std::optional<Node> GetNode(std::string_view name) const;
  std::vector<Node> Nodes() const;  // myself first, then by name
  uint64_t current_epoch() const;
  uint64_t last_vote_epoch() const;
  // Slot owner's name ("" unassigned).
  std::string SlotOwner(int slot) const;
  std::string MigratingTo(int slot) const;     // "" none
  std::string ImportingFrom(int slot) const;   // "" none
  bool cluster_ok() const { return state_ok_.load(std::memory_order_relaxed); }
  int KnownNodes() const;
  int ClusterSize() const;  // primaries serving at least one slot

  // Pointer access, valid only while Lock() is held by the caller.
  Node* FindLocked(std::string_view name);
  Node* MyselfLocked();
  Node* SlotOwnerLocked(int slot);
  const std::unordered_map<std::string, std::unique_ptr<Node>>& NodesLocked() const {
    return nodes_;
  }

  // ---- mutations used by the bus ----
  // A new node in handshake (random name, flags HANDSHAKE|MEET when `meet`), as
  // clusterStartHandshake does. Fails for an invalid address; returns false (no node)
  // when a handshake with the same address is already in progress.
  bool StartHandshake(const std::string& ip, int port, int cport, bool meet,
                      std::string* name_out = nullptr);
  // Whether a node in handshake has this address (MEET of an address already in
  // handshake answers OK and starts nothing).
  bool HandshakeInProgress(const std::string& ip, int port, int cport) const;
  // A node learned from gossip or a handshake, with its real name (no-op if it exists).
  Node* AddNodeLocked(const std::string& name, uint16_t flags);
  // After the handshake: the temporary name becomes the node's real one.
  bool RenameNode(const std::string& old_name, const std::string& new_name);
  bool DeleteNode(const std::string& name);
  void SetNodeAddress(const std::string& name, const std::string& ip, int port, int cport);
  void SetNodeFlags(const std::string& name, uint16_t set, uint16_t clear);
  void SetNodeHostname(const std::string& name, const std::string& hostname);
  void SetNodeHumanName(const std::string& name, const std::string& human);
  void SetNodeShardId(const std::string& name, const std::string& shard_id);
  void SetNodeConfigEpoch(const std::string& name, uint64_t epoch);
  // Makes `name` a replica of `primary` ("" makes it a primary).
  void SetNodePrimary(const std::string& name, const std::string& primary);
  void SetNodePingSent(const std::string& name, int64_t ms);
  void SetNodePongReceived(const std::string& name, int64_t ms);
  void SetNodeLinkConnected(const std::string& name, bool connected);
  void SetNodeReplOffset(const std::string& name, int64_t offset);
  void SetCurrentEpoch(uint64_t epoch);
  void SetLastVoteEpoch(uint64_t epoch);
  // Every slot in `claimed` is given to `sender` where it is unassigned or its owner's
  // config epoch is lower than `sender_epoch` (clusterUpdateSlotsConfigWith), except
  // slots this node is importing. Returns true when myself lost slots. The slots myself
  // lost this way are queued as "dirty" (TakeLostSlots): their keys must go, as Redis
  // deletes the keys of slots it loses to a higher config epoch (delKeysInSlot). A
  // primary that loses its last slot stays an empty primary (no replication yet; Redis
  // would become a replica of the sender with cluster-allow-replica-migration yes) and
  // says so on stderr.
  bool ClaimSlots(const std::string& sender, uint64_t sender_epoch, const SlotBitmap& claimed);
  // The slots myself lost to ClaimSlots since the last call (each once, in order). The
  // runtime deletes the keys left in those it still does not own.
  std::vector<int> TakeLostSlots();
  // Bumped whenever a slot's route changes or the cluster state flips between ok and
  // fail: workers re-check their blocked clients only when it moved.
  uint64_t route_version() const { return route_version_.load(std::memory_order_acquire); }
  // configEpoch collision (clusterHandleConfigEpochCollision): when `other` has the same
  // config epoch as myself and a smaller name, myself takes ++currentEpoch.
  bool HandleConfigEpochCollision(const std::string& other);
  void MarkPFail(const std::string& name);
  void MarkFail(const std::string& name, int64_t now_ms);
  void ClearFail(const std::string& name);
  // Failure reports (from gossip): add/refresh; remove; live count after dropping ones
  // older than node_timeout * 2.
  bool AddFailReport(const std::string& failing, const std::string& reporter, int64_t now_ms);
  bool DelFailReport(const std::string& failing, const std::string& reporter);
  int CountFailReports(const std::string& name, int64_t now_ms);
  // Forgotten nodes (CLUSTER FORGET's 60-second ban): not re-added from gossip.
  void BlacklistNode(const std::string& name, int64_t now_ms);
  bool IsBlacklisted(const std::string& name, int64_t now_ms);
  // The names still banned at now_ms and the whole seconds their ban has left (the
  // forgotten-node ping extension, so that other nodes forget them too).
  std::vector<std::pair<std::string, uint64_t>> Blacklist(int64_t now_ms);
  // Recomputes the cluster state (ok/fail: full coverage, a majority of reachable
  // primaries, the rejoin delay after a minority partition), as clusterUpdateState does.
  void UpdateState();
  // Periodic work (call every ~100 ms, like Redis's clusterCron's tail): state update when
  // needed, nodes.conf save when dirty, expired FORGET bans.
  void Tick(int64_t now_ms);

  // ---- mutations used by CLUSTER commands (errors are Redis's texts) ----
  Status AddSlots(const std::vector<int>& slots);       // all or none
  Status DelSlots(const std::vector<int>& slots);       // all or none
  void FlushSlots();
  Status SetSlotMigrating(int slot, const std::string& node);
  Status SetSlotImporting(int slot, const std::string& node);
  Status SetSlotStable(int slot);
  // `keys_in_slot`: how many keys this node holds in the slot (Redis refuses to give away
  // a slot it still has keys of while migrating it... see cluster_state.cc).
  Status SetSlotNode(int slot, const std::string& node, int64_t keys_in_slot);
  Status SetConfigEpoch(uint64_t epoch);
  // BUMPEPOCH: "BUMPED n" or "STILL n".
  std::string BumpEpoch();
  Status Forget(const std::string& name, int64_t now_ms);
  // CLUSTER RESET SOFT/HARD (the caller has checked that myself holds no keys when it
  // is a primary).
  void Reset(bool hard);

  // ---- persistence ----
  enum DirtyFlag : uint32_t { kSaveConfig = 1, kFsyncConfig = 2, kUpdateState = 4 };
  void MarkDirty(uint32_t flags);
  Status SaveConfig();
  Status SaveIfDirty();
  // The text nodes.conf holds (also what CLUSTER NODES prints, minus the vars line).
  std::string NodesText(bool for_config) const;

  // ---- hot path (no lock) ----
  SlotRoute Route(int slot) const {
    return SlotRoute{routes_[slot].load(std::memory_order_acquire)};
  }
  // The endpoint "host:port" for an index from a SlotRoute (valid forever).
  const std::string& Endpoint(uint16_t index) const;

 private:
  void RepublishLocked();               // all slots
  void RepublishSlotLocked(int slot);
  uint16_t EndpointIndexLocked(const Node& n);
  std::string EndpointOfLocked(const Node& n) const;
  void UpdateStateLocked();
  Node* CreateMyselfLocked();
  void SetSlotOwnerLocked(int slot, Node* owner);
  Status LoadFileLocked(const std::string& text);
  std::string NodeLineLocked(const Node& n) const;
  bool BumpWithoutConsensusLocked();

  mutable std::recursive_mutex mu_;
  ClusterSettings settings_;
  std::unordered_map<std::string, std::unique_ptr<Node>> nodes_;
  Node* myself_ = nullptr;
  uint64_t current_epoch_ = 0;
  uint64_t last_vote_epoch_ = 0;
  std::array<Node*, kNumSlots> owners_{};
  std::array<Node*, kNumSlots> migrating_to_{};
  std::array<Node*, kNumSlots> importing_from_{};
  std::unordered_map<std::string, int64_t> blacklist_;  // name -> expiry ms
  uint32_t dirty_ = 0;
  std::atomic<BusInterface*> bus_{nullptr};

  std::unique_ptr<std::atomic<uint64_t>[]> routes_;
  std::atomic<bool> state_ok_{false};
  // Endpoint strings: append-only, never freed or moved (the hot path reads them with no
  // lock). Index 0 is "" (unassigned).
  static constexpr size_t kMaxEndpoints = 65535;
  std::unique_ptr<std::atomic<const std::string*>[]> endpoints_;
  std::unordered_map<std::string, uint16_t> endpoint_index_;
  int cluster_size_ = 0;
  int64_t among_minority_since_ms_ = 0;
  std::vector<int> lost_slots_;  // ClaimSlots -> TakeLostSlots
  std::atomic<uint64_t> route_version_{1};
};

// The process-wide state (null when cluster-enabled is no). Set once by main.cc.
ClusterState* GetClusterState();
void SetClusterState(ClusterState* state);

}  // namespace hotkv::cluster

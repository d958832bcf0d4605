#include "cluster/cluster_state.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "cluster/nodes_conf.h"

namespace hotkv::cluster {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::pair<uint16_t, const char*> kFlagNames[] = {
    {kFlagMyself, "myself"},         {kFlagMaster, "master"},   {kFlagSlave, "slave"},
    {kFlagPFail, "fail?"},           {kFlagFail, "fail"},       {kFlagHandshake, "handshake"},
    {kFlagNoAddr, "noaddr"},         {kFlagNoFailover, "nofailover"},
};

std::atomic<ClusterState*> g_state{nullptr};

}  // namespace

ClusterState* GetClusterState() { return g_state.load(std::memory_order_acquire); }
void SetClusterState(ClusterState* state) { g_state.store(state, std::memory_order_release); }

std::string FlagsToString(uint16_t flags) {
  std::string out;
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) {
      if (!out.empty()) out.push_back(',');
      out.append(name);
    }
  }
  return out.empty() ? "noflags" : out;
}

Status FlagsFromString(std::string_view text, uint16_t* flags) {
  *flags = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view w = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
    pos = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (w == "noflags") continue;
    bool found = false;
    for (const auto& [bit, name] : kFlagNames) {
      if (w == name) {
        *flags |= bit;
        found = true;
        break;
      }
    }
    if (!found) return Status::InvalidArgument("unknown flag '" + std::string(w) + "'");
  }
  return Status::Ok();
}

std::string RandomNodeName() {
  static thread_local std::mt19937_64 gen([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(NowMs());
  }());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(kNodeNameLen, '0');
  for (size_t i = 0; i < kNodeNameLen; i += 16) {
    uint64_t r = gen();
    for (size_t j = i; j < std::min(kNodeNameLen, i + 16); ++j) {
      s[j] = kHex[r & 15];
      r >>= 4;
    }
  }
  return s;
}

bool IsValidNodeName(std::string_view name) {
  if (name.size() != kNodeNameLen) return false;
  for (char c : name) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

ClusterState::ClusterState()
    : routes_(new std::atomic<uint64_t>[kNumSlots]),
      endpoints_(new std::atomic<const std::string*>[kMaxEndpoints + 1]) {
  for (int i = 0; i < kNumSlots; ++i) routes_[i].store(0, std::memory_order_relaxed);
  for (size_t i = 0; i <= kMaxEndpoints; ++i) endpoints_[i].store(nullptr, std::memory_order_relaxed);
  static const std::string kEmpty;
  endpoints_[0].store(&kEmpty, std::memory_order_relaxed);
  endpoint_index_[""] = 0;
}

ClusterState::~ClusterState() {
  for (size_t i = 1; i <= kMaxEndpoints; ++i) delete endpoints_[i].load(std::memory_order_relaxed);
}

void ClusterState::SetSettings(const ClusterSettings& s) {
  auto lock = Lock();
  bool endpoint_changed = s.preferred_endpoint != settings_.preferred_endpoint;
  settings_ = s;
  if (myself_ != nullptr) {
    myself_->port = s.port;
    myself_->cport = s.cport;
    myself_->tls_port = s.tls_port;
    if (!s.announce_ip.empty()) myself_->ip = s.announce_ip;
    myself_->hostname = s.announce_hostname;
    myself_->human_nodename = s.announce_human_nodename;
    if (s.replica_no_failover) {
      myself_->flags |= kFlagNoFailover;
    } else {
      myself_->flags &= static_cast<uint16_t>(~kFlagNoFailover);
    }
  }
  (void)endpoint_changed;
  RepublishLocked();
}

ClusterSettings ClusterState::settings() const {
  auto lock = Lock();
  return settings_;
}

void ClusterState::SetBus(BusInterface* bus) { bus_.store(bus, std::memory_order_release); }

Node* ClusterState::CreateMyselfLocked() {
  auto n = std::make_unique<Node>();
  n->name = RandomNodeName();
  n->shard_id = RandomNodeName();
  n->flags = kFlagMyself | kFlagMaster;
  n->ctime_ms = NowMs();
  Node* p = n.get();
  nodes_[n->name] = std::move(n);
  myself_ = p;
  return p;
}

Status ClusterState::LoadOrCreate() {
  auto lock = Lock();
  std::string text;
  bool missing = false;
  Status st = ReadWholeFile(settings_.config_file, &text, &missing);
  if (!st.ok()) return st;
  bool empty = true;
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      empty = false;
      break;
    }
  }
  if (missing || empty) {
    // Redis: a missing or empty file means a fresh node.
    nodes_.clear();
    owners_.fill(nullptr);
    migrating_to_.fill(nullptr);
    importing_from_.fill(nullptr);
    CreateMyselfLocked();
    SetSettings(settings_);
    UpdateStateLocked();
    return SaveConfig();
  }
  st = LoadFileLocked(text);
  if (!st.ok()) return st;
  SetSettings(settings_);
  UpdateStateLocked();
  // Rewrite it at once (Redis does, so a format upgrade lands and the file is writable).
  return SaveConfig();
}

Status ClusterState::LoadFileLocked(const std::string& text) {
  ParsedNodesConf conf;
  Status st = ParseNodesConf(text, &conf);
  if (!st.ok()) return st;
  nodes_.clear();
  owners_.fill(nullptr);
  migrating_to_.fill(nullptr);
  importing_from_.fill(nullptr);
  myself_ = nullptr;
  int64_t now = NowMs();
  for (Node& parsed : conf.nodes) {
    auto n = std::make_unique<Node>(std::move(parsed));
    if (n->shard_id.empty()) n->shard_id = RandomNodeName();
    // Times in the file are from a previous run: a non-zero one means "now" (Redis).
    if (n->ping_sent_ms != 0) n->ping_sent_ms = now;
    if (n->pong_received_ms != 0) n->pong_received_ms = now;
    n->ctime_ms = now;
    n->link_connected = false;
    if (n->Has(kFlagMyself)) myself_ = n.get();
    nodes_[n->name] = std::move(n);
  }
  // Primaries named by replicas must exist: Redis creates them as placeholders.
  std::vector<std::string> missing;
  for (auto& [name, n] : nodes_) {
    if (!n->primary.empty() && nodes_.find(n->primary) == nodes_.end()) {
      missing.push_back(n->primary);
    }
  }
  for (const std::string& name : missing) {
    if (nodes_.count(name)) continue;
    auto p = std::make_unique<Node>();
    p->name = name;
    p->shard_id = RandomNodeName();
    p->flags = kFlagMaster | kFlagNoAddr;
    p->ctime_ms = now;
    nodes_[name] = std::move(p);
  }
  for (auto& [name, n] : nodes_) {
    for (int s = 0; s < kNumSlots; ++s) {
      if (n->slots.test(s)) owners_[s] = n.get();
    }
    if (!n->primary.empty()) {
      // A replica shares its primary's shard id.
      n->shard_id = nodes_[n->primary]->shard_id;
    }
  }
  for (const auto& [slot, id] : conf.migrating) {
    Node* t = FindLocked(id);
    if (t == nullptr) return Status::InvalidArgument("Unrecoverable error: corrupted cluster config file (open slot names an unknown node)");
    migrating_to_[slot] = t;
  }
  for (const auto& [slot, id] : conf.importing) {
    Node* t = FindLocked(id);
    if (t == nullptr) return Status::InvalidArgument("Unrecoverable error: corrupted cluster config file (open slot names an unknown node)");
    importing_from_[slot] = t;
  }
  current_epoch_ = conf.current_epoch;
  last_vote_epoch_ = conf.last_vote_epoch;
  for (auto& [name, n] : nodes_) current_epoch_ = std::max(current_epoch_, n->config_epoch);
  return Status::Ok();
}

// ---------------------------------------------------------------- reads

std::string ClusterState::MyName() const {
  auto lock = Lock();
  return myself_ ? myself_->name : std::string();
}

std::string ClusterState::MyShardId() const {
  auto lock = Lock();
  return myself_ ? myself_->shard_id : std::string();
}

Node ClusterState::Myself() const {
  auto lock = Lock();
  return myself_ ? *myself_ : Node();
}

std::optional<Node> ClusterState::GetNode(std::string_view name) const {
  auto lock = Lock();
  auto it = nodes_.find(std::string(name));
  if (it == nodes_.end()) return std::nullopt;
  return *it->second;
}

std::vector<Node> ClusterState::Nodes() const {
  auto lock = Lock();
  std::vector<Node> out;
  out.reserve(nodes_.size());
  if (myself_) out.push_back(*myself_);
  std::vector<const Node*> rest;
  for (const auto& [name, n] : nodes_) {
    if (n.get() != myself_) rest.push_back(n.get());
  }
  std::sort(rest.begin(), rest.end(), [](const Node* a, const Node* b) { return a->name < b->name; });
  for (const Node* n : rest) out.push_back(*n);
  return out;
}

uint64_t ClusterState::current_epoch() const {
  auto lock = Lock();
  return current_epoch_;
}

uint64_t ClusterState::last_vote_epoch() const {
  auto lock = Lock();
  return last_vote_epoch_;
}

std::string ClusterState::SlotOwner(int slot) const {
  auto lock = Lock();
  return owners_[slot] ? owners_[slot]->name : std::string();
}

std::string ClusterState::MigratingTo(int slot) const {
  auto lock = Lock();
  return migrating_to_[slot] ? migrating_to_[slot]->name : std::string();
}

std::string ClusterState::ImportingFrom(int slot) const {
  auto lock = Lock();
  return importing_from_[slot] ? importing_from_[slot]->name : std::string();
}

int ClusterState::KnownNodes() const {
  auto lock = Lock();
  return static_cast<int>(nodes_.size());
}

int ClusterState::ClusterSize() const {
  auto lock = Lock();
  return cluster_size_;
}

Node* ClusterState::FindLocked(std::string_view name) {
  auto it = nodes_.find(std::string(name));
  return it == nodes_.end() ? nullptr : it->second.get();
}

Node* ClusterState::MyselfLocked() { return myself_; }
Node* ClusterState::SlotOwnerLocked(int slot) { return owners_[slot]; }

// ---------------------------------------------------------------- route table

std::string ClusterState::EndpointOfLocked(const Node& n) const {
  std::string host;
  switch (settings_.preferred_endpoint) {
    case ClusterSettings::Endpoint::kIp:
      host = n.ip;
      break;
    case ClusterSettings::Endpoint::kHostname:
      host = n.hostname.empty() ? "?" : n.hostname;
      break;
    case ClusterSettings::Endpoint::kUnknown:
      host = "?";
      break;
  }
  return host + ":" + std::to_string(n.port);
}

uint16_t ClusterState::EndpointIndexLocked(const Node& n) {
  std::string ep = EndpointOfLocked(n);
  auto it = endpoint_index_.find(ep);
  if (it != endpoint_index_.end()) return it->second;
  size_t idx = endpoint_index_.size();
  if (idx > kMaxEndpoints) return 0;  // cannot happen in practice; "" endpoint
  endpoints_[idx].store(new std::string(ep), std::memory_order_release);
  endpoint_index_[ep] = static_cast<uint16_t>(idx);
  return static_cast<uint16_t>(idx);
}

const std::string& ClusterState::Endpoint(uint16_t index) const {
  const std::string* s = endpoints_[index].load(std::memory_order_acquire);
  return *s;
}

void ClusterState::RepublishSlotLocked(int slot) {
  uint64_t w = 0;
  Node* owner = owners_[slot];
  if (owner == nullptr) {
    w = SlotRoute::kUnassigned;
  } else if (owner == myself_) {
    w = SlotRoute::kMine;
  } else {
    w = SlotRoute::kOther | (static_cast<uint64_t>(EndpointIndexLocked(*owner)) << 16);
  }
  if (migrating_to_[slot] != nullptr && owner == myself_) {
    w |= 4 | (static_cast<uint64_t>(EndpointIndexLocked(*migrating_to_[slot])) << 32);
  }
  if (importing_from_[slot] != nullptr) w |= 8;
  if (routes_[slot].load(std::memory_order_relaxed) != w) {
    routes_[slot].store(w, std::memory_order_release);
    route_version_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ClusterState::RepublishLocked() {
  for (int s = 0; s < kNumSlots; ++s) RepublishSlotLocked(s);
}

// ---------------------------------------------------------------- state

void ClusterState::UpdateState() {
  auto lock = Lock();
  UpdateStateLocked();
}

void ClusterState::UpdateStateLocked() {
  int64_t now = NowMs();
  bool ok = true;
  if (settings_.require_full_coverage) {
    for (int s = 0; s < kNumSlots; ++s) {
      if (owners_[s] == nullptr || owners_[s]->Has(kFlagFail)) {
        ok = false;
        break;
      }
    }
  }
  int size = 0;
  int reachable = 0;
  for (const auto& [name, n] : nodes_) {
    if (n->IsPrimary() && n->NumSlots() > 0) {
      ++size;
      if (!n->Has(kFlagFail | kFlagPFail)) ++reachable;
    }
  }
  cluster_size_ = size;
  if (reachable < size / 2 + 1) {
    ok = false;
    among_minority_since_ms_ = now;
  }
  bool was_ok = state_ok_.load(std::memory_order_relaxed);
  if (ok != was_ok) {
    int64_t rejoin_delay = std::clamp<int64_t>(settings_.node_timeout_ms, 500, 5000);
    if (ok && myself_ && myself_->IsPrimary() && now - among_minority_since_ms_ < rejoin_delay) {
      return;  // stay down a little after leaving a minority partition, as Redis does
    }
    state_ok_.store(ok, std::memory_order_relaxed);
    route_version_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ClusterState::Tick(int64_t now_ms) {
  auto lock = Lock();
  if (!state_ok_.load(std::memory_order_relaxed) || (dirty_ & kUpdateState)) {
    dirty_ &= ~kUpdateState;
    UpdateStateLocked();
  }
  if (dirty_ & kSaveConfig) SaveIfDirty();
  // Nodes stuck in handshake are dropped after the node timeout (at least 1 s), as
  // clusterCron does.
  int64_t handshake_timeout = std::max<int64_t>(settings_.node_timeout_ms, 1000);
  std::vector<std::string> stale;
  for (const auto& [name, n] : nodes_) {
    if (n->Has(kFlagHandshake) && now_ms - n->ctime_ms > handshake_timeout) stale.push_back(name);
  }
  for (const std::string& name : stale) DeleteNode(name);
  // Forgotten nodes' bans expire.
  for (auto it = blacklist_.begin(); it != blacklist_.end();) {
    it = it->second <= now_ms ? blacklist_.erase(it) : std::next(it);
  }
}

// ---------------------------------------------------------------- slot ownership

void ClusterState::SetSlotOwnerLocked(int slot, Node* owner) {
  if (owners_[slot] != nullptr) owners_[slot]->slots.reset(slot);
  owners_[slot] = owner;
  if (owner != nullptr) owner->slots.set(slot);
  RepublishSlotLocked(slot);
}

Status ClusterState::AddSlots(const std::vector<int>& slots) {
  auto lock = Lock();
  std::vector<bool> seen(kNumSlots, false);
  for (int s : slots) {
    if (owners_[s] != nullptr) {
      return Status::InvalidArgument("ERR Slot " + std::to_string(s) + " is already busy");
    }
    if (seen[s]) {
      return Status::InvalidArgument("ERR Slot " + std::to_string(s) +
                                     " specified multiple times");
    }
    seen[s] = true;
  }
  for (int s : slots) {
    if (importing_from_[s] != nullptr) importing_from_[s] = nullptr;
    SetSlotOwnerLocked(s, myself_);
  }
  MarkDirty(kSaveConfig | kUpdateState);
  UpdateStateLocked();
  return Status::Ok();
}

Status ClusterState::DelSlots(const std::vector<int>& slots) {
  auto lock = Lock();
  std::vector<bool> seen(kNumSlots, false);
  for (int s : slots) {
    if (owners_[s] == nullptr) {
      return Status::InvalidArgument("ERR Slot " + std::to_string(s) + " is already unassigned");
    }
    if (seen[s]) {
      return Status::InvalidArgument("ERR Slot " + std::to_string(s) +
                                     " specified multiple times");
    }
    seen[s] = true;
  }
  for (int s : slots) {
    importing_from_[s] = nullptr;
    migrating_to_[s] = nullptr;
    SetSlotOwnerLocked(s, nullptr);
  }
  MarkDirty(kSaveConfig | kUpdateState);
  UpdateStateLocked();
  return Status::Ok();
}

void ClusterState::FlushSlots() {
  auto lock = Lock();
  for (int s = 0; s < kNumSlots; ++s) {
    if (owners_[s] == myself_) {
      migrating_to_[s] = nullptr;
      importing_from_[s] = nullptr;
      SetSlotOwnerLocked(s, nullptr);
    }
  }
  MarkDirty(kSaveConfig | kUpdateState);
  UpdateStateLocked();
}

Status ClusterState::SetSlotMigrating(int slot, const std::string& node) {
  auto lock = Lock();
  if (owners_[slot] != myself_) {
    return Status::InvalidArgument("ERR I'm not the owner of hash slot " + std::to_string(slot));
  }
  Node* n = FindLocked(node);
  if (n == nullptr) return Status::InvalidArgument("ERR I don't know about node " + node);
  if (n->IsReplica()) return Status::InvalidArgument("ERR Target node is not a master");
  migrating_to_[slot] = n;
  RepublishSlotLocked(slot);
  MarkDirty(kSaveConfig | kUpdateState);
  return Status::Ok();
}

Status ClusterState::SetSlotImporting(int slot, const std::string& node) {
  auto lock = Lock();
  if (owners_[slot] == myself_) {
    return Status::InvalidArgument("ERR I'm already the owner of hash slot " +
                                   std::to_string(slot));
  }
  Node* n = FindLocked(node);
  if (n == nullptr) return Status::InvalidArgument("ERR I don't know about node " + node);
  if (n->IsReplica()) return Status::InvalidArgument("ERR Target node is not a master");
  importing_from_[slot] = n;
  RepublishSlotLocked(slot);
  MarkDirty(kSaveConfig | kUpdateState);
  return Status::Ok();
}

Status ClusterState::SetSlotStable(int slot) {
  auto lock = Lock();
  migrating_to_[slot] = nullptr;
  importing_from_[slot] = nullptr;
  RepublishSlotLocked(slot);
  MarkDirty(kSaveConfig | kUpdateState);
  return Status::Ok();
}

Status ClusterState::SetSlotNode(int slot, const std::string& node, int64_t keys_in_slot) {
  auto lock = Lock();
  Node* n = FindLocked(node);
  if (n == nullptr) return Status::InvalidArgument("ERR Unknown node " + node);
  if (n->IsReplica()) return Status::InvalidArgument("ERR Target node is not a master");
  // Giving away a slot we still hold keys of is refused (Redis's check).
  if (owners_[slot] == myself_ && n != myself_ && keys_in_slot != 0) {
    return Status::InvalidArgument("ERR Can't assign hashslot " + std::to_string(slot) +
                                   " to a different node while I still hold keys for this "
                                   "hash slot.");
  }
  // Closing a migration: the slot went to its target.
  if (keys_in_slot == 0 && migrating_to_[slot] != nullptr) migrating_to_[slot] = nullptr;
  bool bump = false;
  if (n == myself_ && importing_from_[slot] != nullptr) {
    // The import is over: claim the slot with a new config epoch so the rest of the
    // cluster learns about it (Redis bumps without consensus here).
    importing_from_[slot] = nullptr;
    bump = true;
  }
  SetSlotOwnerLocked(slot, n);
  if (bump && BumpWithoutConsensusLocked()) {
    // Redis logs this too (clusterCommand SETSLOT NODE).
    fprintf(stderr, "configEpoch updated after importing slot %d\n", slot);
  }
  RepublishSlotLocked(slot);
  MarkDirty(kSaveConfig | kUpdateState | kFsyncConfig);
  UpdateStateLocked();
  return Status::Ok();
}

Status ClusterState::SetConfigEpoch(uint64_t epoch) {
  auto lock = Lock();
  if (nodes_.size() > 1) {
    return Status::InvalidArgument(
        "ERR The user can assign a config epoch only when the node does not know any other "
        "node.");
  }
  if (myself_->config_epoch != 0) {
    return Status::InvalidArgument("ERR Node config epoch is already non-zero");
  }
  myself_->config_epoch = epoch;
  if (current_epoch_ < epoch) current_epoch_ = epoch;
  MarkDirty(kSaveConfig | kUpdateState | kFsyncConfig);
  return Status::Ok();
}

// clusterBumpConfigEpochWithoutConsensus: a new config epoch for myself unless it already
// holds the greatest one (the greatest of every node's and the current epoch).
bool ClusterState::BumpWithoutConsensusLocked() {
  uint64_t max_epoch = current_epoch_;
  for (const auto& [name, n] : nodes_) max_epoch = std::max(max_epoch, n->config_epoch);
  if (myself_->config_epoch == 0 || myself_->config_epoch != max_epoch) {
    ++current_epoch_;
    myself_->config_epoch = current_epoch_;
    MarkDirty(kSaveConfig | kUpdateState | kFsyncConfig);
    return true;
  }
  return false;
}

std::string ClusterState::BumpEpoch() {
  auto lock = Lock();
  bool bumped = BumpWithoutConsensusLocked();
  return (bumped ? "BUMPED " : "STILL ") + std::to_string(myself_->config_epoch);
}

Status ClusterState::Forget(const std::string& name, int64_t now_ms) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return Status::InvalidArgument("ERR Unknown node " + name);
  if (n == myself_) return Status::InvalidArgument("ERR I tried hard but I can't forget myself...");
  if (myself_->IsReplica() && myself_->primary == n->name) {
    return Status::InvalidArgument("ERR Can't forget my master!");
  }
  BlacklistNode(name, now_ms);
  DeleteNode(name);
  MarkDirty(kSaveConfig | kUpdateState);
  return Status::Ok();
}

void ClusterState::Reset(bool hard) {
  auto lock = Lock();
  if (myself_->IsReplica()) {
    SetNodePrimary(myself_->name, "");
  }
  // Close every open slot, forget every slot, forget every other node.
  migrating_to_.fill(nullptr);
  importing_from_.fill(nullptr);
  for (int s = 0; s < kNumSlots; ++s) SetSlotOwnerLocked(s, nullptr);
  std::vector<std::string> others;
  for (const auto& [name, n] : nodes_) {
    if (n.get() != myself_) others.push_back(name);
  }
  for (const std::string& name : others) DeleteNode(name);
  if (hard) {
    current_epoch_ = 0;
    last_vote_epoch_ = 0;
    myself_->config_epoch = 0;
    std::string old = myself_->name;
    std::string fresh = RandomNodeName();
    auto node = std::move(nodes_[old]);
    nodes_.erase(old);
    node->name = fresh;
    node->shard_id = RandomNodeName();
    nodes_[fresh] = std::move(node);
  }
  RepublishLocked();
  MarkDirty(kSaveConfig | kUpdateState | kFsyncConfig);
  UpdateStateLocked();
}

// ---------------------------------------------------------------- bus mutations

namespace {
bool NormalizeIp(const std::string& ip, std::string* out) {
  char norm[INET6_ADDRSTRLEN] = {0};
  unsigned char buf[sizeof(struct in6_addr)];
  if (inet_pton(AF_INET, ip.c_str(), buf) == 1) {
    inet_ntop(AF_INET, buf, norm, sizeof(norm));
  } else if (inet_pton(AF_INET6, ip.c_str(), buf) == 1) {
    inet_ntop(AF_INET6, buf, norm, sizeof(norm));
  } else {
    return false;
  }
  *out = norm;
  return true;
}
}  // namespace

bool ClusterState::HandshakeInProgress(const std::string& ip, int port, int cport) const {
  std::string norm;
  if (!NormalizeIp(ip, &norm)) return false;
  auto lock = Lock();
  for (const auto& [name, n] : nodes_) {
    if (n->Has(kFlagHandshake) && n->ip == norm && n->port == port && n->cport == cport) {
      return true;
    }
  }
  return false;
}

bool ClusterState::StartHandshake(const std::string& ip, int port, int cport, bool meet,
                                  std::string* name_out) {
  auto lock = Lock();
  // Normalise the address as Redis does (inet_pton then inet_ntop).
  std::string norm;
  if (!NormalizeIp(ip, &norm)) return false;
  if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) return false;
  for (const auto& [name, n] : nodes_) {
    if (n->Has(kFlagHandshake) && n->ip == norm && n->port == port && n->cport == cport) {
      return false;  // already in progress
    }
  }
  auto n = std::make_unique<Node>();
  n->name = RandomNodeName();
  n->shard_id = RandomNodeName();
  n->flags = kFlagHandshake | (meet ? kFlagMeet : 0);
  n->ip = norm;
  n->port = port;
  n->cport = cport;
  n->ctime_ms = NowMs();
  if (name_out) *name_out = n->name;
  nodes_[n->name] = std::move(n);
  if (BusInterface* b = bus()) b->Wakeup();
  return true;
}

Node* ClusterState::AddNodeLocked(const std::string& name, uint16_t flags) {
  if (Node* n = FindLocked(name)) return n;
  auto n = std::make_unique<Node>();
  n->name = name;
  n->shard_id = RandomNodeName();
  n->flags = flags;
  n->ctime_ms = NowMs();
  Node* p = n.get();
  nodes_[name] = std::move(n);
  MarkDirty(kSaveConfig);
  return p;
}

bool ClusterState::RenameNode(const std::string& old_name, const std::string& new_name) {
  auto lock = Lock();
  auto it = nodes_.find(old_name);
  if (it == nodes_.end() || nodes_.count(new_name)) return false;
  auto node = std::move(it->second);
  nodes_.erase(it);
  node->name = new_name;
  nodes_[new_name] = std::move(node);
  for (auto& [name, n] : nodes_) {
    if (n->primary == old_name) n->primary = new_name;
  }
  MarkDirty(kSaveConfig);
  return true;
}

bool ClusterState::DeleteNode(const std::string& name) {
  auto lock = Lock();
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.get() == myself_) return false;
  Node* n = it->second.get();
  for (int s = 0; s < kNumSlots; ++s) {
    bool touched = false;
    if (owners_[s] == n) {
      owners_[s] = nullptr;
      touched = true;
    }
    if (migrating_to_[s] == n) {
      migrating_to_[s] = nullptr;
      touched = true;
    }
    if (importing_from_[s] == n) {
      importing_from_[s] = nullptr;
      touched = true;
    }
    if (touched) RepublishSlotLocked(s);
  }
  for (auto& [other_name, other] : nodes_) {
    if (other->primary == name) other->primary.clear();
    auto& reports = other->fail_reports;
    reports.erase(std::remove_if(reports.begin(), reports.end(),
                                 [&](const FailReport& r) { return r.reporter == name; }),
                  reports.end());
  }
  nodes_.erase(it);
  if (BusInterface* b = bus()) b->NodeDeleted(name);
  MarkDirty(kSaveConfig | kUpdateState);
  return true;
}

void ClusterState::SetNodeAddress(const std::string& name, const std::string& ip, int port,
                                  int cport) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return;
  if (n->ip == ip && n->port == port && n->cport == cport) return;
  n->ip = ip;
  n->port = port;
  n->cport = cport;
  n->flags &= static_cast<uint16_t>(~kFlagNoAddr);
  for (int s = 0; s < kNumSlots; ++s) {
    if (owners_[s] == n || migrating_to_[s] == n) RepublishSlotLocked(s);
  }
  MarkDirty(kSaveConfig);
}

void ClusterState::SetNodeFlags(const std::string& name, uint16_t set, uint16_t clear) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return;
  uint16_t before = n->flags;
  n->flags = static_cast<uint16_t>((n->flags | set) & ~clear);
  if (n->flags != before) MarkDirty(kSaveConfig | kUpdateState);
}

void ClusterState::SetNodeHostname(const std::string& name, const std::string& hostname) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr || n->hostname == hostname) return;
  n->hostname = hostname;
  if (settings_.preferred_endpoint == ClusterSettings::Endpoint::kHostname) RepublishLocked();
  MarkDirty(kSaveConfig);
}

void ClusterState::SetNodeHumanName(const std::string& name, const std::string& human) {
  auto lock = Lock();
  if (Node* n = FindLocked(name)) n->human_nodename = human;
}

void ClusterState::SetNodeShardId(const std::string& name, const std::string& shard_id) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr || n->shard_id == shard_id) return;
  n->shard_id = shard_id;
  MarkDirty(kSaveConfig);
}

void ClusterState::SetNodeConfigEpoch(const std::string& name, uint64_t epoch) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr || n->config_epoch == epoch) return;
  n->config_epoch = epoch;
  if (epoch > current_epoch_) current_epoch_ = epoch;
  MarkDirty(kSaveConfig | kFsyncConfig);
}

void ClusterState::SetNodePrimary(const std::string& name, const std::string& primary) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return;
  if (primary.empty()) {
    n->primary.clear();
    n->flags = static_cast<uint16_t>((n->flags | kFlagMaster) & ~kFlagSlave);
  } else {
    n->primary = primary;
    n->flags = static_cast<uint16_t>((n->flags | kFlagSlave) & ~kFlagMaster);
    if (Node* p = FindLocked(primary)) n->shard_id = p->shard_id;
  }
  MarkDirty(kSaveConfig | kUpdateState);
}

void ClusterState::SetNodePingSent(const std::string& name, int64_t ms) {
  auto lock = Lock();
  if (Node* n = FindLocked(name)) n->ping_sent_ms = ms;
}

void ClusterState::SetNodePongReceived(const std::string& name, int64_t ms) {
  auto lock = Lock();
  if (Node* n = FindLocked(name)) n->pong_received_ms = ms;
}

void ClusterState::SetNodeLinkConnected(const std::string& name, bool connected) {
  auto lock = Lock();
  if (Node* n = FindLocked(name)) n->link_connected = connected;
}

void ClusterState::SetNodeReplOffset(const std::string& name, int64_t offset) {
  auto lock = Lock();
  if (Node* n = FindLocked(name)) n->repl_offset = offset;
}

void ClusterState::SetCurrentEpoch(uint64_t epoch) {
  auto lock = Lock();
  if (epoch == current_epoch_) return;
  current_epoch_ = epoch;
  MarkDirty(kSaveConfig | kFsyncConfig);
}

void ClusterState::SetLastVoteEpoch(uint64_t epoch) {
  auto lock = Lock();
  if (epoch == last_vote_epoch_) return;
  last_vote_epoch_ = epoch;
  MarkDirty(kSaveConfig | kFsyncConfig);
}

bool ClusterState::ClaimSlots(const std::string& sender_name, uint64_t sender_epoch,
                              const SlotBitmap& claimed) {
  auto lock = Lock();
  Node* sender = FindLocked(sender_name);
  if (sender == nullptr || sender == myself_) return false;
  const int had = myself_ != nullptr ? myself_->NumSlots() : 0;
  bool lost = false;
  bool changed = false;
  int lost_count = 0;
  int lost_first = -1;
  uint64_t lost_epoch = 0;
  for (int s = 0; s < kNumSlots; ++s) {
    if (!claimed.test(s)) continue;
    Node* cur = owners_[s];
    if (cur == sender) continue;
    if (importing_from_[s] != nullptr) continue;  // we are importing it: manual fixing
    if (cur == nullptr || cur->config_epoch < sender_epoch) {
      if (cur == myself_) {
        lost = true;
        if (lost_count++ == 0) lost_first = s;
        lost_epoch = cur->config_epoch;
        // A "dirty" slot (clusterUpdateSlotsConfigWith): its keys are deleted by the
        // runtime once it has checked that the slot holds some and is still not ours.
        lost_slots_.push_back(s);
      }
      SetSlotOwnerLocked(s, sender);
      if (migrating_to_[s] != nullptr) {
        migrating_to_[s] = nullptr;
        RepublishSlotLocked(s);
      }
      changed = true;
    }
  }
  if (lost) {
    // Rare and decisive (the keys there are deleted): always said, as Redis's
    // "Configuration change detected" family of lines.
    fprintf(stderr,
            "Slot ownership: %.40s claimed %d of my slots (first %d) with config epoch %llu "
            "(mine %llu)\n",
            sender->name.c_str(), lost_count, lost_first,
            static_cast<unsigned long long>(sender_epoch),
            static_cast<unsigned long long>(lost_epoch));
  }
  if (lost && had > 0 && myself_->NumSlots() == 0 && myself_->IsPrimary()) {
    // Redis (cluster-allow-replica-migration yes) would become a replica of the sender
    // here; without replication HotKV stays an empty primary.
    fprintf(stderr,
            "Configuration change detected: %.40s took my last slot (config epoch %llu); "
            "staying an empty primary (replication is not supported yet)\n",
            sender->name.c_str(), static_cast<unsigned long long>(sender_epoch));
  }
  if (changed) {
    MarkDirty(kSaveConfig | kUpdateState | kFsyncConfig);
    UpdateStateLocked();
  }
  return lost;
}

std::vector<int> ClusterState::TakeLostSlots() {
  auto lock = Lock();
  std::vector<int> out;
  out.swap(lost_slots_);
  return out;
}

bool ClusterState::HandleConfigEpochCollision(const std::string& other) {
  auto lock = Lock();
  Node* sender = FindLocked(other);
  if (sender == nullptr || myself_ == nullptr) return false;
  if (sender->config_epoch != myself_->config_epoch || !sender->IsPrimary() ||
      !myself_->IsPrimary()) {
    return false;
  }
  // Only the node with the lexicographically smaller name moves.
  if (sender->name <= myself_->name) return false;
  ++current_epoch_;
  myself_->config_epoch = current_epoch_;
  fprintf(stderr, "configEpoch collision with node %.40s. configEpoch set to %llu\n",
          sender->name.c_str(), static_cast<unsigned long long>(current_epoch_));
  MarkDirty(kSaveConfig | kFsyncConfig);
  return true;
}

void ClusterState::MarkPFail(const std::string& name) {
  SetNodeFlags(name, kFlagPFail, 0);
}

void ClusterState::MarkFail(const std::string& name, int64_t now_ms) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return;
  n->flags = static_cast<uint16_t>((n->flags | kFlagFail) & ~kFlagPFail);
  n->fail_time_ms = now_ms;
  MarkDirty(kSaveConfig | kUpdateState);
  UpdateStateLocked();
}

void ClusterState::ClearFail(const std::string& name) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return;
  n->flags = static_cast<uint16_t>(n->flags & ~(kFlagFail | kFlagPFail));
  n->fail_time_ms = 0;
  MarkDirty(kSaveConfig | kUpdateState);
  UpdateStateLocked();
}

bool ClusterState::AddFailReport(const std::string& failing, const std::string& reporter,
                                 int64_t now_ms) {
  auto lock = Lock();
  Node* n = FindLocked(failing);
  if (n == nullptr) return false;
  for (FailReport& r : n->fail_reports) {
    if (r.reporter == reporter) {
      r.time_ms = now_ms;
      return false;
    }
  }
  n->fail_reports.push_back({reporter, now_ms});
  return true;
}

bool ClusterState::DelFailReport(const std::string& failing, const std::string& reporter) {
  auto lock = Lock();
  Node* n = FindLocked(failing);
  if (n == nullptr) return false;
  auto& v = n->fail_reports;
  auto it = std::find_if(v.begin(), v.end(), [&](const FailReport& r) { return r.reporter == reporter; });
  if (it == v.end()) return false;
  v.erase(it);
  return true;
}

int ClusterState::CountFailReports(const std::string& name, int64_t now_ms) {
  auto lock = Lock();
  Node* n = FindLocked(name);
  if (n == nullptr) return 0;
  int64_t max_age = settings_.node_timeout_ms * 2;
  auto& v = n->fail_reports;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const FailReport& r) { return now_ms - r.time_ms > max_age; }),
          v.end());
  return static_cast<int>(v.size());
}

void ClusterState::BlacklistNode(const std::string& name, int64_t now_ms) {
  auto lock = Lock();
  blacklist_[name] = now_ms + 60000;
}

std::vector<std::pair<std::string, uint64_t>> ClusterState::Blacklist(int64_t now_ms) {
  auto lock = Lock();
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& [name, expiry] : blacklist_) {
    if (expiry < now_ms) continue;  // expired (dropped by the next Tick)
    out.emplace_back(name, static_cast<uint64_t>((expiry - now_ms) / 1000));
  }
  return out;
}

bool ClusterState::IsBlacklisted(const std::string& name, int64_t now_ms) {
  auto lock = Lock();
  auto it = blacklist_.find(name);
  if (it == blacklist_.end()) return false;
  if (it->second <= now_ms) {
    blacklist_.erase(it);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- persistence

void ClusterState::MarkDirty(uint32_t flags) {
  auto lock = Lock();
  dirty_ |= flags;
}

std::string ClusterState::NodeLineLocked(const Node& n) const {
  std::string line;
  line.reserve(128);
  line.append(n.name);
  line.push_back(' ');
  line.append(n.ip);
  line.push_back(':');
  line.append(std::to_string(n.port));
  line.push_back('@');
  line.append(std::to_string(n.cport));
  if (!n.hostname.empty()) {
    line.push_back(',');
    line.append(n.hostname);
  }
  line.push_back(' ');
  line.append(FlagsToString(n.flags));
  line.push_back(' ');
  line.append(n.primary.empty() ? "-" : n.primary);
  line.push_back(' ');
  line.append(std::to_string(n.ping_sent_ms));
  line.push_back(' ');
  line.append(std::to_string(n.pong_received_ms));
  line.push_back(' ');
  uint64_t epoch = n.config_epoch;
  if (n.IsReplica() && !n.primary.empty()) {
    auto it = nodes_.find(n.primary);
    if (it != nodes_.end()) epoch = it->second->config_epoch;
  }
  line.append(std::to_string(epoch));
  line.push_back(' ');
  line.append((n.link_connected || &n == myself_) ? "connected" : "disconnected");
  // Slots: those the slot table gives this node (only primaries own slots).
  SlotBitmap owned;
  bool any = false;
  for (int s = 0; s < kNumSlots; ++s) {
    if (owners_[s] == &n) {
      owned.set(s);
      any = true;
    }
  }
  if (any) AppendSlotRanges(owned, &line);
  if (&n == myself_) {
    for (int s = 0; s < kNumSlots; ++s) {
      if (migrating_to_[s] != nullptr) {
        line.append(" [" + std::to_string(s) + "->-" + migrating_to_[s]->name + "]");
      } else if (importing_from_[s] != nullptr) {
        line.append(" [" + std::to_string(s) + "-<-" + importing_from_[s]->name + "]");
      }
    }
  }
  return line;
}

std::string ClusterState::NodesText(bool for_config) const {
  auto lock = Lock();
  std::string out;
  // CLUSTER NODES lists nodes in the node table's order (a hash table in Redis, so no
  // order is promised); myself first here.
  std::vector<const Node*> order;
  if (myself_) order.push_back(myself_);
  std::vector<const Node*> rest;
  for (const auto& [name, n] : nodes_) {
    if (n.get() != myself_) rest.push_back(n.get());
  }
  std::sort(rest.begin(), rest.end(), [](const Node* a, const Node* b) { return a->name < b->name; });
  order.insert(order.end(), rest.begin(), rest.end());
  for (const Node* n : order) {
    if (!for_config && n->Has(kFlagHandshake) && false) continue;
    out.append(NodeLineLocked(*n));
    out.push_back('\n');
  }
  if (for_config) {
    out.append("vars currentEpoch " + std::to_string(current_epoch_) + " lastVoteEpoch " +
               std::to_string(last_vote_epoch_) + "\n");
  }
  return out;
}

Status ClusterState::SaveConfig() {
  auto lock = Lock();
  dirty_ &= ~(kSaveConfig | kFsyncConfig);
  // Nodes in handshake are not saved (Redis skips them).
  std::string text;
  {
    std::vector<const Node*> order;
    if (myself_) order.push_back(myself_);
    std::vector<const Node*> rest;
    for (const auto& [name, n] : nodes_) {
      if (n.get() != myself_ && !n->Has(kFlagHandshake)) rest.push_back(n.get());
    }
    std::sort(rest.begin(), rest.end(), [](const Node* a, const Node* b) { return a->name < b->name; });
    order.insert(order.end(), rest.begin(), rest.end());
    for (const Node* n : order) {
      text.append(NodeLineLocked(*n));
      text.push_back('\n');
    }
    text.append("vars currentEpoch " + std::to_string(current_epoch_) + " lastVoteEpoch " +
                std::to_string(last_vote_epoch_) + "\n");
  }
  return WriteFileAtomic(settings_.config_file, text);
}

Status ClusterState::SaveIfDirty() {
  auto lock = Lock();
  if (!(dirty_ & (kSaveConfig | kFsyncConfig))) return Status::Ok();
  return SaveConfig();
}

}  // namespace hotkv::cluster

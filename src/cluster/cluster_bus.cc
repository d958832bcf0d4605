#include "cluster/cluster_bus.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/clock.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"

namespace hotkv::cluster {

namespace {
constexpr int64_t kCronMs = 100;
// Outbound send buffer past which a link is dropped (a peer that stopped reading).
constexpr size_t kMaxSendBuffer = 64u * 1024 * 1024;

bool SetNonBlocking(int fd) {
  int fl = fcntl(fd, F_GETFL, 0);
  return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

std::string PeerIp(int fd, bool local) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  int rc = local ? getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                 : getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return "";
  char buf[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr, buf, sizeof(buf));
  } else if (ss.ss_family == AF_INET6) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
      inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, sizeof(buf));
    } else {
      inet_ntop(AF_INET6, &a6->sin6_addr, buf, sizeof(buf));
    }
  }
  return buf;
}

void ToBytes(const SlotBitmap& s, bus::SlotBytes* out) {
  out->fill(0);
  for (int i = 0; i < kNumSlots; ++i) {
    if (s.test(i)) bus::SetSlotBit(*out, i);
  }
}

SlotBitmap FromBytes(const bus::SlotBytes& b) {
  SlotBitmap s;
  for (int i = 0; i < kNumSlots; ++i) {
    if (bus::SlotBit(b, i)) s.set(i);
  }
  return s;
}

}  // namespace

struct ClusterBus::Link {
  int fd = -1;
  bool inbound = false;
  bool connecting = false;
  std::string node;  // outbound: the node it reaches; inbound: the sender once known
  int64_t ctime_ms = 0;
  std::string rbuf;
  std::string wbuf;
  size_t woff = 0;
  uint32_t events = 0;
};

ClusterBus::ClusterBus(ClusterState* state) : state_(state) {}

ClusterBus::~ClusterBus() { Stop(); }

Status ClusterBus::Start(const std::vector<std::string>& bind_addrs, int port) {
  port_ = port;
  std::vector<std::string> addrs = bind_addrs;
  if (addrs.empty()) addrs = {"*"};
  for (const std::string& a : addrs) {
    std::string host = a;
    if (!host.empty() && host[0] == '-') host = host.substr(1);  // "-::1": optional
    bool optional = a.size() && a[0] == '-';
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* res = nullptr;
    std::string p = std::to_string(port);
    if (host == "::*") host = "::";
    const char* h = (host == "*" || host.empty()) ? "0.0.0.0" : host.c_str();
    if (getaddrinfo(h, p.c_str(), &hints, &res) != 0 || !res) {
      if (optional) continue;
      return Status(StatusCode::kIoError, "cluster bus: cannot resolve " + host);
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd >= 0 && res->ai_family == AF_INET6) {
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 511) != 0) {
      int e = errno;
      freeaddrinfo(res);
      if (fd >= 0) close(fd);
      if (optional) continue;
      return Status(StatusCode::kIoError, "Could not bind the cluster bus port " + p + " on " +
                                              host + ": " + strerror(e));
    }
    freeaddrinfo(res);
    SetNonBlocking(fd);
    if (port == 0 && port_ == 0) {  // an ephemeral port (tests): every address shares it
      sockaddr_storage ss{};
      socklen_t len = sizeof(ss);
      getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
      port_ = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    }
    listen_fds_.push_back(fd);
  }
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  wakefd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  for (int fd : listen_fds_) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wakefd_;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, wakefd_, &ev);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "cluster-bus");
    Run();
  });
  return Status();
}

void ClusterBus::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  Wakeup();
  thread_.join();
  for (auto& [fd, l] : links_) close(fd);
  links_.clear();
  outbound_.clear();
  for (int fd : listen_fds_) close(fd);
  listen_fds_.clear();
  if (epfd_ >= 0) close(epfd_);
  if (wakefd_ >= 0) close(wakefd_);
  epfd_ = wakefd_ = -1;
}

void ClusterBus::Wakeup() {
  if (wakefd_ < 0) return;
  uint64_t one = 1;
  ssize_t r = write(wakefd_, &one, sizeof(one));
  (void)r;
}

void ClusterBus::NodeDeleted(const std::string& name) {
  {
    std::lock_guard g(qmu_);
    deleted_.push_back(name);
  }
  Wakeup();
}

void ClusterBus::Publish(std::string_view channel, std::string_view message, bool shard) {
  {
    std::lock_guard g(qmu_);
    pubs_.emplace_back(std::string(channel), std::string(message));
    pub_shard_.push_back(shard);
  }
  Wakeup();
}

std::vector<LinkInfo> ClusterBus::Links() {
  std::lock_guard g(qmu_);
  return links_snapshot_;
}

std::vector<std::pair<std::string, int64_t>> ClusterBus::MessageStats() {
  std::vector<std::pair<std::string, int64_t>> out;
  int64_t total = 0;
  for (int t = 0; t < bus::kNumMsgTypes; ++t) {
    int64_t n = sent_[t].load(std::memory_order_relaxed);
    if (n) out.emplace_back("cluster_stats_messages_" + std::string(bus::MsgTypeName(t)) + "_sent", n);
    total += n;
  }
  out.emplace_back("cluster_stats_messages_sent", total);
  total = 0;
  for (int t = 0; t < bus::kNumMsgTypes; ++t) {
    int64_t n = received_[t].load(std::memory_order_relaxed);
    if (n) out.emplace_back("cluster_stats_messages_" + std::string(bus::MsgTypeName(t)) + "_received", n);
    total += n;
  }
  out.emplace_back("cluster_stats_messages_received", total);
  return out;
}

// ---------------------------------------------------------------------------------------
// Loop

void ClusterBus::Run() {
  int64_t next_cron = 0;
  epoll_event evs[64];
  while (!stop_.load()) {
    int64_t now = WallClockMs();
    int timeout = next_cron > now ? static_cast<int>(next_cron - now) : 0;
    int n = epoll_wait(epfd_, evs, 64, timeout);
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      if (fd == wakefd_) {
        uint64_t v;
        ssize_t r = read(wakefd_, &v, sizeof(v));
        (void)r;
        continue;
      }
      if (std::find(listen_fds_.begin(), listen_fds_.end(), fd) != listen_fds_.end()) {
        Accept(fd);
        continue;
      }
      auto it = links_.find(fd);
      if (it == links_.end()) continue;
      Link* l = it->second.get();
      if (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        HandleWritable(l);
        if (links_.find(fd) == links_.end()) continue;
      }
      if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) HandleReadable(l);
    }
    DrainQueue();
    now = WallClockMs();
    if (now >= next_cron) {
      Cron(now);
      next_cron = now + kCronMs;
    }
    {
      auto lock = state_->Lock();
      state_->SaveIfDirty();
    }
  }
}

void ClusterBus::DrainQueue() {
  std::vector<std::string> deleted;
  std::vector<std::pair<std::string, std::string>> pubs;
  std::vector<bool> shard;
  {
    std::lock_guard g(qmu_);
    deleted.swap(deleted_);
    pubs.swap(pubs_);
    shard.swap(pub_shard_);
  }
  for (const std::string& name : deleted) {
    supports_ext_.erase(name);
    knows_shard_ext_.erase(name);
    std::vector<Link*> doomed;
    for (auto& [fd, l] : links_) {
      if (l->node == name) doomed.push_back(l.get());
    }
    for (Link* l : doomed) CloseLink(l);
  }
  if (pubs.empty()) return;
  auto lock = state_->Lock();
  for (size_t i = 0; i < pubs.size(); ++i) {
    bus::Message m;
    BuildHeader(&m, shard[i] ? bus::kPublishShard : bus::kPublish);
    m.channel = std::move(pubs[i].first);
    m.payload = std::move(pubs[i].second);
    std::string bytes = bus::Encode(m);
    if (!shard[i]) {
      Broadcast(bytes, m.hdr.type);
      continue;
    }
    // PUBLISHSHARD goes to the other nodes of this node's shard (its primary/replicas).
    Node* me = state_->MyselfLocked();
    std::string primary = me->IsReplica() ? me->primary : me->name;
    for (auto& [name, l] : outbound_) {
      Node* n = state_->FindLocked(name);
      if (!n || l->connecting || n->Has(kFlagHandshake)) continue;
      if (n->name == primary || n->primary == primary) Send(l, bytes, m.hdr.type);
    }
  }
}

void ClusterBus::Accept(int lfd) {
  for (;;) {
    int fd = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto l = std::make_unique<Link>();
    l->fd = fd;
    l->inbound = true;
    l->ctime_ms = WallClockMs();
    Link* raw = l.get();
    links_[fd] = std::move(l);
    UpdateEvents(raw);
  }
}

void ClusterBus::UpdateEvents(Link* l) {
  uint32_t want = EPOLLIN;
  if (l->connecting || l->woff < l->wbuf.size()) want |= EPOLLOUT;
  if (want == l->events) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.fd = l->fd;
  epoll_ctl(epfd_, l->events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, l->fd, &ev);
  l->events = want;
}

void ClusterBus::CloseLink(Link* l) {
  if (!l->inbound) {
    auto it = outbound_.find(l->node);
    if (it != outbound_.end() && it->second == l) {
      outbound_.erase(it);
      auto lock = state_->Lock();
      if (state_->FindLocked(l->node)) state_->SetNodeLinkConnected(l->node, false);
    }
  }
  epoll_ctl(epfd_, EPOLL_CTL_DEL, l->fd, nullptr);
  close(l->fd);
  links_.erase(l->fd);
}

ClusterBus::Link* ClusterBus::OutboundLink(const std::string& name) {
  auto it = outbound_.find(name);
  return it == outbound_.end() ? nullptr : it->second;
}

ClusterBus::Link* ClusterBus::ConnectTo(const Node& n, int64_t now) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* res = nullptr;
  std::string p = std::to_string(n.cport);
  if (getaddrinfo(n.ip.c_str(), p.c_str(), &hints, &res) != 0 || !res) return nullptr;
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    freeaddrinfo(res);
    return nullptr;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int rc = connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (rc != 0 && errno != EINPROGRESS) {
    close(fd);
    return nullptr;
  }
  auto l = std::make_unique<Link>();
  l->fd = fd;
  l->connecting = rc != 0;
  l->node = n.name;
  l->ctime_ms = now;
  Link* raw = l.get();
  links_[fd] = std::move(l);
  outbound_[n.name] = raw;
  UpdateEvents(raw);
  // CLUSTER NODES says "connected" from the moment an outbound link exists, while its
  // connect is still in progress, as Redis 7.0 and 8 do (a node cut off from the network
  // shows "connected" between link rebuilds; one that refuses, "disconnected").
  state_->SetNodeLinkConnected(n.name, true);
  return raw;
}

void ClusterBus::Send(Link* l, const std::string& bytes, uint16_t type) {
  if (l->wbuf.size() - l->woff > kMaxSendBuffer) return;
  if (l->woff > 0 && l->woff == l->wbuf.size()) {
    l->wbuf.clear();
    l->woff = 0;
  }
  l->wbuf.append(bytes);
  if (type < bus::kNumMsgTypes) sent_[type].fetch_add(1, std::memory_order_relaxed);
  if (!l->connecting) HandleWritable(l);
}

void ClusterBus::HandleWritable(Link* l) {
  if (l->connecting) {
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      CloseLink(l);
      return;
    }
    l->connecting = false;
    auto lock = state_->Lock();
    if (state_->FindLocked(l->node)) state_->SetNodeLinkConnected(l->node, true);
  }
  while (l->woff < l->wbuf.size()) {
    ssize_t n = write(l->fd, l->wbuf.data() + l->woff, l->wbuf.size() - l->woff);
    if (n > 0) {
      l->woff += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    CloseLink(l);
    return;
  }
  if (l->woff == l->wbuf.size()) {
    l->wbuf.clear();
    l->woff = 0;
  }
  UpdateEvents(l);
}

void ClusterBus::HandleReadable(Link* l) {
  if (l->connecting) return;
  int fd = l->fd;
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      CloseLink(l);
      return;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    l->rbuf.append(buf, static_cast<size_t>(n));
    // Complete messages.
    size_t pos = 0;
    while (l->rbuf.size() - pos >= 8) {
      uint32_t len = bus::FrameLength(std::string_view(l->rbuf).substr(pos, 8));
      if (len == 0) {
        CloseLink(l);  // bad signature or length
        return;
      }
      if (l->rbuf.size() - pos < len) break;
      int64_t now = WallClockMs();
      ProcessPacket(l, std::string_view(l->rbuf).substr(pos, len), now);
      if (links_.find(fd) == links_.end() || links_[fd].get() != l) return;  // closed
      pos += len;
    }
    if (pos) l->rbuf.erase(0, pos);
    if (static_cast<size_t>(n) < sizeof(buf)) break;
  }
}

// ---------------------------------------------------------------------------------------
// Messages out

void ClusterBus::BuildHeader(bus::Message* m, uint16_t type) {
  Node* me = state_->MyselfLocked();
  ClusterSettings s = state_->settings();
  bus::Header& h = m->hdr;
  h.type = type;
  h.sender = me->name;
  h.port = static_cast<uint16_t>(s.port);
  h.cport = static_cast<uint16_t>(s.cport);
  h.pport = 0;
  h.flags = static_cast<uint16_t>(me->flags);
  h.current_epoch = state_->current_epoch();
  Node* primary = me->IsReplica() ? state_->FindLocked(me->primary) : nullptr;
  const Node* slots_of = primary ? primary : me;
  h.config_epoch = slots_of->config_epoch;
  ToBytes(slots_of->slots, &h.myslots);
  h.slaveof = me->IsReplica() ? me->primary : "";
  h.myip = s.announce_ip;
  h.state = state_->cluster_ok() ? 0 : 1;
  h.offset = static_cast<uint64_t>(me->repl_offset);
  // Every message says that this node understands ping extensions.
  h.mflags[0] = bus::kFlag0ExtData;
}

void ClusterBus::SendPing(Link* l, uint16_t type, int64_t now) {
  Node* target = l->inbound ? nullptr : state_->FindLocked(l->node);
  if (target && type == bus::kPing) {
    // Keep the oldest unanswered ping time.
    if (target->ping_sent_ms == 0) target->ping_sent_ms = now;
  }
  bus::Message m;
  BuildHeader(&m, type);
  const auto& nodes = state_->NodesLocked();
  std::vector<Node*> all;
  all.reserve(nodes.size());
  for (const auto& [name, n] : nodes) all.push_back(n.get());
  size_t fresh = all.size() >= 2 ? all.size() - 2 : 0;
  size_t wanted = std::max<size_t>(3, all.size() / 10);
  wanted = std::min(wanted, fresh);
  std::vector<Node*> chosen;
  auto add = [&](Node* n) {
    bus::Gossip g;
    g.name = n->name;
    g.ping_sent = static_cast<uint32_t>(n->ping_sent_ms / 1000);
    g.pong_received = static_cast<uint32_t>(n->pong_received_ms / 1000);
    g.ip = n->ip;
    g.port = static_cast<uint16_t>(n->port);
    g.cport = static_cast<uint16_t>(n->cport);
    g.flags = static_cast<uint16_t>(n->flags);
    m.gossip.push_back(std::move(g));
    chosen.push_back(n);
  };
  size_t iterations = wanted * 3;
  while (!all.empty() && chosen.size() < wanted && iterations-- > 0) {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    Node* n = all[rng_ % all.size()];
    if (n->Has(kFlagMyself) || n->Has(kFlagPFail)) continue;
    if (n->Has(kFlagHandshake) || n->Has(kFlagNoAddr)) continue;
    if (!OutboundLink(n->name) && n->NumSlots() == 0) continue;
    if (target && n == target) {
      // Redis gossips about the target too; harmless either way.
    }
    if (std::find(chosen.begin(), chosen.end(), n) != chosen.end()) continue;
    add(n);
  }
  for (Node* n : all) {
    if (n->Has(kFlagPFail) && !n->Has(kFlagHandshake) && !n->Has(kFlagNoAddr)) add(n);
  }
  // Extensions only to nodes that said they understand them.
  std::string peer = l->node;
  if (!peer.empty() && supports_ext_.count(peer)) {
    ClusterSettings s = state_->settings();
    if (!s.announce_hostname.empty()) m.exts.push_back({bus::kExtHostname, s.announce_hostname, 0});
    auto known = knows_shard_ext_.find(peer);
    if (known == knows_shard_ext_.end() || known->second) {
      if (!s.announce_human_nodename.empty()) {
        m.exts.push_back({bus::kExtHumanNodename, s.announce_human_nodename, 0});
      }
      // Nodes forgotten with CLUSTER FORGET (Redis >= 7.2 sends one extension per
      // banned name with the seconds left, so the whole cluster forgets it).
      for (auto& [name, ttl] : state_->Blacklist(now)) {
        if (name == peer) continue;
        m.exts.push_back({bus::kExtForgottenNode, std::move(name), ttl});
      }
      Node* me = state_->MyselfLocked();
      if (me->shard_id.size() == kNodeNameLen) {
        m.exts.push_back({bus::kExtShardId, me->shard_id, 0});
      }
    }
  }
  Send(l, bus::Encode(m), type);
}

void ClusterBus::Broadcast(const std::string& bytes, uint16_t type) {
  for (auto& [name, l] : outbound_) {
    Node* n = state_->FindLocked(name);
    if (!n || l->connecting || n->Has(kFlagHandshake) || n->Has(kFlagMyself)) continue;
    Send(l, bytes, type);
  }
}

void ClusterBus::SendFail(const std::string& name) {
  bus::Message m;
  BuildHeader(&m, bus::kFail);
  m.node = name;
  Broadcast(bus::Encode(m), bus::kFail);
}

void ClusterBus::SendUpdate(Link* l, const Node& owner) {
  bus::Message m;
  BuildHeader(&m, bus::kUpdate);
  m.node = owner.name;
  m.update_epoch = owner.config_epoch;
  ToBytes(owner.slots, &m.update_slots);
  Send(l, bus::Encode(m), bus::kUpdate);
}

// ---------------------------------------------------------------------------------------
// Messages in

std::string ClusterBus::NodeIp(Link* l, const bus::Message& m) const {
  if (!m.hdr.myip.empty()) return m.hdr.myip;
  return PeerIp(l->fd, false);
}

void ClusterBus::UpdateAddressIfNeeded(Node* n, Link* l, const bus::Message& m) {
  if (n->Has(kFlagMyself)) return;
  std::string ip = NodeIp(l, m);
  if (ip.empty()) return;
  if (n->ip == ip && n->port == m.hdr.port && n->cport == m.hdr.cport) return;
  state_->SetNodeAddress(n->name, ip, m.hdr.port, m.hdr.cport);
  state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
  // Reconnect to the new address.
  if (Link* out = OutboundLink(n->name)) {
    if (out != l) CloseLink(out);
  }
}

void ClusterBus::ProcessPacket(Link* l, std::string_view data, int64_t now) {
  bus::Message m;
  std::string err;
  bus::DecodeResult r = bus::Decode(data, &m, &err);
  if (r == bus::DecodeResult::kIgnore) return;
  if (r == bus::DecodeResult::kBad) {
    CloseLink(l);
    return;
  }
  const uint16_t type = m.hdr.type;
  if (type < bus::kNumMsgTypes) received_[type].fetch_add(1, std::memory_order_relaxed);

  auto lock = state_->Lock();
  Node* sender = state_->FindLocked(m.hdr.sender);
  // A node in handshake is not a sender yet; nor is myself (a MEET to our own address
  // reaches us): its gossip and claims are never applied.
  if (sender && sender->Has(kFlagHandshake | kFlagMyself)) sender = nullptr;
  if (sender) {
    sender->data_received_ms = now;
    if (l->inbound && l->node.empty()) l->node = sender->name;
    if (m.hdr.mflags[0] & bus::kFlag0ExtData) supports_ext_[sender->name] = true;
    if (m.hdr.current_epoch > state_->current_epoch()) {
      state_->SetCurrentEpoch(m.hdr.current_epoch);
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig);
    }
    if (m.hdr.config_epoch > sender->config_epoch) {  // a replica advertises its primary's
      state_->SetNodeConfigEpoch(sender->name, m.hdr.config_epoch);
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig);
    }
    state_->SetNodeReplOffset(sender->name, static_cast<int64_t>(m.hdr.offset));
  }

  switch (type) {
    case bus::kPing:
    case bus::kPong:
    case bus::kMeet:
      ProcessPingFamily(l, m, sender, now);
      return;
    case bus::kFail: {
      if (!sender) return;
      Node* failing = state_->FindLocked(m.node);
      if (failing && !failing->Has(kFlagFail) && !failing->Has(kFlagMyself)) {
        state_->MarkFail(failing->name, now);
        state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
      }
      return;
    }
    case bus::kPublish:
    case bus::kPublishShard:
      if (!sender) return;
      if (deliver_) deliver_(m.channel, m.payload, type == bus::kPublishShard);
      return;
    case bus::kUpdate: {
      if (!sender) return;
      Node* n = state_->FindLocked(m.node);
      if (!n || n->config_epoch >= m.update_epoch) return;
      state_->SetNodeConfigEpoch(n->name, m.update_epoch);
      if (n->IsReplica()) state_->SetNodePrimary(n->name, "");
      state_->ClaimSlots(n->name, m.update_epoch, FromBytes(m.update_slots));
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig |
                        ClusterState::kUpdateState);
      return;
    }
    case bus::kFailoverAuthRequest:
      if (!sender) return;
      MaybeVote(l, m, sender, now);
      return;
    default:
      // FAILOVER_AUTH_ACK (no replicas here yet), MFSTART, MODULE: nothing to do.
      return;
  }
}

bool ClusterBus::ProcessPingFamily(Link* l, const bus::Message& m, Node* sender, int64_t now) {
  const uint16_t type = m.hdr.type;
  ClusterSettings s = state_->settings();
  Node* me = state_->MyselfLocked();
  // Learn our own address from the link the first time (or on MEET), unless announced.
  if ((type == bus::kMeet || me->ip.empty()) && s.announce_ip.empty()) {
    std::string ip = PeerIp(l->fd, true);
    if (!ip.empty() && ip != me->ip) {
      state_->SetNodeAddress(me->name, ip, me->port, me->cport);
      state_->MarkDirty(ClusterState::kSaveConfig);
    }
  }
  // A MEET from an unknown node: add it in handshake; we connect to it and learn its name.
  if (!sender && type == bus::kMeet) {
    std::string ip = NodeIp(l, m);
    state_->StartHandshake(ip, m.hdr.port, m.hdr.cport, false);
    state_->MarkDirty(ClusterState::kSaveConfig);
  }
  if (type == bus::kPing || type == bus::kMeet) SendPing(l, bus::kPong, now);

  // Our outbound link to a node in handshake: its first answer tells its real name.
  Node* link_node = l->inbound ? nullptr : state_->FindLocked(l->node);
  if (link_node && link_node->Has(kFlagHandshake)) {
    Node* known = state_->FindLocked(m.hdr.sender);
    if (known) {
      // Already known under its real name (or it is myself): refresh its address, drop
      // the handshake node.
      if (known == sender) UpdateAddressIfNeeded(sender, l, m);
      std::string temp = link_node->name;
      state_->DeleteNode(temp);
      state_->MarkDirty(ClusterState::kSaveConfig);
      CloseLink(l);
      return false;
    }
    std::string temp = link_node->name;
    if (!state_->RenameNode(temp, m.hdr.sender)) {
      CloseLink(l);
      return false;
    }
    outbound_.erase(temp);
    l->node = m.hdr.sender;
    outbound_[l->node] = l;
    state_->SetNodeFlags(l->node, m.hdr.slaveof.empty() ? kFlagMaster : kFlagSlave,
                         kFlagHandshake | kFlagMeet);
    state_->SetNodeLinkConnected(l->node, true);
    state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
    sender = state_->FindLocked(l->node);
    if (!sender) return false;
    sender->data_received_ms = now;
    if (m.hdr.mflags[0] & bus::kFlag0ExtData) supports_ext_[sender->name] = true;
    if (m.hdr.config_epoch > sender->config_epoch) {  // a replica advertises its primary's
      state_->SetNodeConfigEpoch(sender->name, m.hdr.config_epoch);
    }
  } else if (link_node && link_node->name != m.hdr.sender) {
    // The node at this address now has another name: forget the address.
    state_->SetNodeFlags(link_node->name, kFlagNoAddr, 0);
    state_->SetNodeAddress(link_node->name, "", 0, 0);
    state_->MarkDirty(ClusterState::kSaveConfig);
    CloseLink(l);
    return false;
  }

  if (!sender) return true;

  if (type == bus::kPing) UpdateAddressIfNeeded(sender, l, m);

  // Extensions: hostname, human node name, shard id, forgotten nodes.
  bool saw_host = false, saw_human = false;
  for (const bus::PingExt& e : m.exts) {
    switch (e.type) {
      case bus::kExtHostname:
        saw_host = true;
        if (sender->hostname != e.text) {
          state_->SetNodeHostname(sender->name, e.text);
          state_->MarkDirty(ClusterState::kSaveConfig);
        }
        break;
      case bus::kExtHumanNodename:
        saw_human = true;
        if (sender->human_nodename != e.text) {
          state_->SetNodeHumanName(sender->name, e.text);
          state_->MarkDirty(ClusterState::kSaveConfig);
        }
        break;
      case bus::kExtShardId:
        if (sender->shard_id != e.text) {
          state_->SetNodeShardId(sender->name, e.text);
          state_->MarkDirty(ClusterState::kSaveConfig);
        }
        break;
      case bus::kExtForgottenNode:
        if (e.text != me->name && e.text != sender->name && state_->FindLocked(e.text) &&
            !state_->FindLocked(e.text)->Has(kFlagMyself)) {
          state_->DeleteNode(e.text);
          state_->BlacklistNode(e.text, now - 60000 + static_cast<int64_t>(e.ttl) * 1000);
          state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
        }
        break;
      default:
        break;
    }
  }
  if (!m.exts.empty()) {
    bool shard = false;
    for (const bus::PingExt& e : m.exts) shard |= e.type == bus::kExtShardId;
    knows_shard_ext_[sender->name] = shard;
  }
  if (m.hdr.mflags[0] & bus::kFlag0ExtData) {
    // A node that sends extensions but no hostname has none (7.0+ semantics).
    if (!saw_host && !sender->hostname.empty()) state_->SetNodeHostname(sender->name, "");
    if (!saw_human && !sender->human_nodename.empty()) state_->SetNodeHumanName(sender->name, "");
  }

  // PONG on our outbound link: the node is alive.
  if (!l->inbound && type == bus::kPong) {
    sender->pong_received_ms = now;
    sender->ping_sent_ms = 0;
    if (sender->Has(kFlagPFail)) {
      state_->SetNodeFlags(sender->name, 0, kFlagPFail);
      state_->MarkDirty(ClusterState::kUpdateState);
    } else if (sender->Has(kFlagFail)) {
      ClearFailureIfNeeded(sender, now);
    }
  }

  // Role.
  if (m.hdr.slaveof.empty()) {
    if (!sender->IsPrimary()) {
      state_->SetNodePrimary(sender->name, "");
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
    }
  } else if (sender->primary != m.hdr.slaveof) {
    if (state_->FindLocked(m.hdr.slaveof)) {
      state_->SetNodePrimary(sender->name, m.hdr.slaveof);
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
    }
  }

  // Slots: a primary's claims win where its config epoch is higher.
  if (m.hdr.slaveof.empty()) {
    SlotBitmap claimed = FromBytes(m.hdr.myslots);
    if (claimed != sender->slots) {
      state_->ClaimSlots(sender->name, m.hdr.config_epoch, claimed);
      state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig |
                        ClusterState::kUpdateState);
    }
    // The sender claims slots whose owner we know with a higher epoch: tell it (UPDATE).
    if (claimed.any()) {
      for (int slot = 0; slot < kNumSlots; ++slot) {
        if (!claimed.test(slot)) continue;
        Node* owner = state_->SlotOwnerLocked(slot);
        if (!owner || owner == sender) continue;
        if (owner->config_epoch > m.hdr.config_epoch) {
          SendUpdate(l, *owner);
          break;
        }
      }
    }
    // Two primaries with the same config epoch: the one with the smaller name moves on.
    if (me->IsPrimary() && sender->IsPrimary() && m.hdr.config_epoch == me->config_epoch) {
      if (state_->HandleConfigEpochCollision(sender->name)) {
        state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig);
      }
    }
  }

  ProcessGossip(m, sender, now);
  return true;
}

void ClusterBus::ProcessGossip(const bus::Message& m, Node* sender, int64_t now) {
  for (const bus::Gossip& g : m.gossip) {
    Node* n = state_->FindLocked(g.name);
    if (n) {
      if (sender->IsPrimary() && !n->Has(kFlagMyself)) {
        if (g.flags & (kFlagFail | kFlagPFail)) {
          state_->AddFailReport(n->name, sender->name, now);
          MarkFailingIfNeeded(n, now);
        } else {
          state_->DelFailReport(n->name, sender->name);
        }
      }
      if (!(g.flags & (kFlagFail | kFlagPFail)) && n->ping_sent_ms == 0 &&
          state_->CountFailReports(n->name, now) == 0) {
        int64_t pong = int64_t{g.pong_received} * 1000;
        if (pong <= now + 500 && pong > n->pong_received_ms) n->pong_received_ms = pong;
      }
      // A failed node reported at another address: follow it.
      if (n->Has(kFlagFail | kFlagPFail) && !(g.flags & kFlagNoAddr) && !OutboundLink(n->name) &&
          (n->ip != g.ip || n->port != g.port || n->cport != g.cport)) {
        state_->SetNodeAddress(n->name, g.ip, g.port, g.cport);
        state_->SetNodeFlags(n->name, 0, kFlagNoAddr);
        state_->MarkDirty(ClusterState::kSaveConfig);
      }
      continue;
    }
    // Unknown: add it (with its real name) unless it has no address or was forgotten.
    if ((g.flags & kFlagNoAddr) || state_->IsBlacklisted(g.name, now)) continue;
    if (!IsValidNodeName(g.name) || g.ip.empty()) continue;
    uint16_t role = (g.flags & kFlagSlave) ? kFlagSlave : kFlagMaster;
    Node* added = state_->AddNodeLocked(g.name, static_cast<uint16_t>(role | (g.flags & kFlagNoFailover)));
    if (!added) continue;
    state_->SetNodeAddress(g.name, g.ip, g.port, g.cport);
    state_->MarkDirty(ClusterState::kSaveConfig);
  }
}

void ClusterBus::MarkFailingIfNeeded(Node* n, int64_t now) {
  if (!n->Has(kFlagPFail) || n->Has(kFlagFail)) return;
  int needed = state_->ClusterSize() / 2 + 1;
  int failures = state_->CountFailReports(n->name, now);
  if (state_->MyselfLocked()->IsPrimary()) ++failures;
  if (failures < needed) return;
  state_->MarkFail(n->name, now);
  state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
  SendFail(n->name);
}

void ClusterBus::ClearFailureIfNeeded(Node* n, int64_t now) {
  int64_t timeout = state_->settings().node_timeout_ms;
  if (n->IsReplica() || n->NumSlots() == 0 ||
      (n->IsPrimary() && now - n->fail_time_ms > timeout * 2)) {
    state_->ClearFail(n->name);
    state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kUpdateState);
  }
}

void ClusterBus::MaybeVote(Link* l, const bus::Message& m, Node* sender, int64_t now) {
  Node* me = state_->MyselfLocked();
  if (!me->IsPrimary() || me->NumSlots() == 0) return;
  if (m.hdr.current_epoch < state_->current_epoch()) return;
  if (state_->last_vote_epoch() == state_->current_epoch()) return;
  if (!sender->IsReplica()) return;
  Node* primary = state_->FindLocked(sender->primary);
  if (!primary) return;
  bool force = (m.hdr.mflags[0] & bus::kFlag0ForceAck) != 0;
  if (!primary->Has(kFlagFail) && !force) return;
  int64_t timeout = state_->settings().node_timeout_ms;
  if (now - primary->voted_time_ms < timeout * 2) return;
  for (int slot = 0; slot < kNumSlots; ++slot) {
    if (!bus::SlotBit(m.hdr.myslots, slot)) continue;
    Node* owner = state_->SlotOwnerLocked(slot);
    if (owner && owner->config_epoch > m.hdr.config_epoch) return;
  }
  state_->SetLastVoteEpoch(state_->current_epoch());
  primary->voted_time_ms = now;
  state_->MarkDirty(ClusterState::kSaveConfig | ClusterState::kFsyncConfig);
  bus::Message ack;
  BuildHeader(&ack, bus::kFailoverAuthAck);
  Link* out = OutboundLink(sender->name);
  Send(out && !out->connecting ? out : l, bus::Encode(ack), bus::kFailoverAuthAck);
}

// ---------------------------------------------------------------------------------------
// Cron

void ClusterBus::Cron(int64_t now) {
  ++iteration_;
  auto lock = state_->Lock();
  ClusterSettings s = state_->settings();
  const int64_t timeout = s.node_timeout_ms;
  const int64_t handshake_timeout = std::max<int64_t>(timeout, 1000);

  // Links to nodes that are gone.
  {
    std::vector<Link*> doomed;
    for (auto& [name, l] : outbound_) {
      if (!state_->FindLocked(name)) doomed.push_back(l);
    }
    for (Link* l : doomed) CloseLink(l);
  }

  std::vector<std::string> names;
  for (const auto& [name, n] : state_->NodesLocked()) names.push_back(name);
  for (const std::string& name : names) {
    Node* n = state_->FindLocked(name);
    if (!n || n->Has(kFlagMyself) || n->Has(kFlagNoAddr)) continue;
    if (n->Has(kFlagHandshake) && now - n->ctime_ms > handshake_timeout) {
      if (Link* l = OutboundLink(name)) CloseLink(l);
      state_->DeleteNode(name);
      continue;
    }
    if (OutboundLink(name) || n->ip.empty() || n->cport <= 0) continue;
    Link* l = ConnectTo(*n, now);
    if (!l) continue;
    int64_t old_ping = n->ping_sent_ms;
    bool meet = n->Has(kFlagMeet);
    SendPing(l, meet ? bus::kMeet : bus::kPing, now);
    if (old_ping) n->ping_sent_ms = old_ping;
    if (meet) state_->SetNodeFlags(name, 0, kFlagMeet);
  }

  // Once a second: ping the node with the oldest PONG among a few random ones.
  if (iteration_ % 10 == 0 && !names.empty()) {
    Node* best = nullptr;
    for (int i = 0; i < 5; ++i) {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      Node* n = state_->FindLocked(names[rng_ % names.size()]);
      if (!n || n->Has(kFlagMyself) || n->Has(kFlagHandshake) || n->ping_sent_ms != 0) continue;
      Link* l = OutboundLink(n->name);
      if (!l || l->connecting) continue;
      if (!best || n->pong_received_ms < best->pong_received_ms) best = n;
    }
    if (best) SendPing(OutboundLink(best->name), bus::kPing, now);
  }

  for (const std::string& name : names) {
    Node* n = state_->FindLocked(name);
    if (!n || n->Has(kFlagMyself) || n->Has(kFlagNoAddr) || n->Has(kFlagHandshake)) continue;
    Link* l = OutboundLink(name);
    // A link that gets no answer for half the timeout is rebuilt.
    if (l && now - l->ctime_ms > timeout && n->ping_sent_ms &&
        now - n->ping_sent_ms > timeout / 2 && now - n->data_received_ms > timeout / 2) {
      CloseLink(l);
      l = nullptr;
    }
    if (l && !l->connecting && n->ping_sent_ms == 0 && now - n->pong_received_ms > timeout / 2) {
      SendPing(l, bus::kPing, now);
      continue;
    }
    if (n->ping_sent_ms == 0) continue;
    if (now - n->ping_sent_ms > timeout && now - n->data_received_ms > timeout &&
        !n->Has(kFlagPFail | kFlagFail)) {
      state_->MarkPFail(name);
      state_->MarkDirty(ClusterState::kUpdateState);
    }
  }

  state_->Tick(now);

  // CLUSTER LINKS snapshot.
  std::vector<LinkInfo> snap;
  for (auto& [fd, l] : links_) {
    if (l->node.empty()) continue;
    if (!state_->FindLocked(l->node)) continue;
    LinkInfo li;
    li.direction = l->inbound ? "from" : "to";
    li.node = l->node;
    li.create_time_ms = l->ctime_ms;
    // As Redis 7.0/8: no read or write handler while the connect is in progress.
    li.events = l->connecting ? "" : (l->woff < l->wbuf.size() ? "rw" : "r");
    li.send_buffer_allocated = static_cast<int64_t>(l->wbuf.capacity());
    li.send_buffer_used = static_cast<int64_t>(l->wbuf.size() - l->woff);
    snap.push_back(std::move(li));
  }
  lock.unlock();
  std::lock_guard g(qmu_);
  links_snapshot_ = std::move(snap);
}

// ---------------------------------------------------------------------------------------
// Start-up with a server

Result<std::unique_ptr<ClusterBus>> StartClusterBus(Server& server, ClusterState* state,
                                                     const std::vector<std::string>& bind,
                                                     int port) {
  auto bus = std::make_unique<ClusterBus>(state);
  Server* srv = &server;
  bus->SetDeliver([srv](std::string_view channel, std::string_view message, bool shard) {
    Publish(*srv, shard ? PubsubRegistry::kShard : PubsubRegistry::kChannel, channel, message);
  });
  Status st = bus->Start(bind, port);
  if (!st.ok()) return st;
  state->SetBus(bus.get());
  SetClusterPublishHook(&ClusterBus::PublishHook, bus.get());
  return bus;
}

void StopClusterBus(ClusterState* state, std::unique_ptr<ClusterBus>& bus) {
  if (!bus) return;
  SetClusterPublishHook(nullptr, nullptr);
  bus->Stop();
  if (state) state->SetBus(nullptr);
  bus.reset();
}

}  // namespace hotkv::cluster

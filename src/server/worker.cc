#include "server/worker.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "server/blocking.h"
#include "engine/database.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/shard_state.h"

namespace hotkv {

namespace {
constexpr size_t kMaxReadSize = 1024 * 1024;
// Stop reading from a client whose unsent replies pass this (it is not reading them);
// resume when they drain. Normal clients are never disconnected for it.
constexpr size_t kOutputPauseBytes = 64 * 1024 * 1024;
}  // namespace

void ErrorCounts::OnError(std::string_view code) {
  std::lock_guard<std::mutex> g(mu_);
  // Redis counts unknown prefixes under "ERR"; a code is an all-uppercase word.
  bool upper = !code.empty() && code.size() <= 32;
  for (char c : code) {
    if (!(c >= 'A' && c <= 'Z') && c != '_') {
      upper = false;
    }
  }
  counts_[upper ? std::string(code) : std::string("ERR")]++;
}

std::vector<std::pair<std::string, uint64_t>> ErrorCounts::Snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  return {counts_.begin(), counts_.end()};
}

uint64_t ErrorCounts::Total() {
  std::lock_guard<std::mutex> g(mu_);
  uint64_t n = 0;
  for (auto& [k, v] : counts_) {
    n += v;
  }
  return n;
}

void ErrorCounts::Reset() {
  std::lock_guard<std::mutex> g(mu_);
  counts_.clear();
}

Worker::Worker(Server* server, int index)
    : server_(server),
      index_(index),
      cmd_stats_(new CommandStats[server->commands().by_id().size()]) {}

Worker::~Worker() {
  for (auto& [id, c] : conns_) {
    delete c;
  }
  for (int fd : listen_fds_) {
    close(fd);
  }
  if (event_fd_ >= 0) {
    close(event_fd_);
  }
  if (epfd_ >= 0) {
    close(epfd_);
  }
}

static int OpenListener(const std::string& addr, int port, int backlog, std::string* err) {
  bool v6 = addr.find(':') != std::string::npos;
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = std::string("socket: ") + strerror(errno);
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  int rc;
  if (v6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, addr.c_str(), &sa.sin6_addr) != 1) {
      *err = "Invalid bind address '" + addr + "'";
      close(fd);
      return -1;
    }
    rc = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  } else {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    std::string a = addr == "*" ? "0.0.0.0" : addr;
    if (inet_pton(AF_INET, a.c_str(), &sa.sin_addr) != 1) {
      *err = "Invalid bind address '" + addr + "'";
      close(fd);
      return -1;
    }
    rc = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  }
  if (rc != 0 || listen(fd, backlog) != 0) {
    *err = "Could not create server TCP listening socket " + addr + ":" + std::to_string(port) +
           ": " + strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

bool Worker::Init(std::string* err) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epfd_ < 0 || event_fd_ < 0) {
    *err = std::string("epoll/eventfd: ") + strerror(errno);
    return false;
  }
  auto add = [this](EventSource::Kind kind, int fd) {
    sources_.push_back(std::make_unique<EventSource>(EventSource{kind, fd, nullptr}));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = sources_.back().get();
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  };
  add(EventSource::kWake, event_fd_);
  Config& cfg = server_->config();
  for (const std::string& raw : cfg.bind_addresses()) {
    // "-addr" means optional in Redis: skip it if it cannot be bound.
    bool optional = !raw.empty() && raw[0] == '-';
    std::string addr = optional ? raw.substr(1) : raw;
    int fd = OpenListener(addr, static_cast<int>(cfg.port()), static_cast<int>(cfg.tcp_backlog()), err);
    if (fd < 0) {
      if (optional) {
        continue;
      }
      return false;
    }
    listen_fds_.push_back(fd);
    add(EventSource::kListener, fd);
  }
  if (listen_fds_.empty()) {
    *err = "No address to listen on";
    return false;
  }
  return true;
}

void Worker::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Worker::Join() {
  if (thread_.joinable()) {
    thread_.join();
  }
}

void Worker::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> g(mailbox_mu_);
    mailbox_.push_back(std::move(fn));
  }
  if (!mailbox_signaled_.exchange(true, std::memory_order_acq_rel)) {
    uint64_t one = 1;
    ssize_t rc = write(event_fd_, &one, sizeof(one));
    (void)rc;
  }
}

void Worker::RequestStop() {
  stop_.store(true, std::memory_order_release);
  uint64_t one = 1;
  ssize_t rc = write(event_fd_, &one, sizeof(one));
  (void)rc;
}

void Worker::DrainMailbox() {
  uint64_t v;
  ssize_t rc = read(event_fd_, &v, sizeof(v));
  (void)rc;
  mailbox_signaled_.store(false, std::memory_order_release);
  std::vector<std::function<void()>> jobs;
  {
    std::lock_guard<std::mutex> g(mailbox_mu_);
    jobs.swap(mailbox_);
  }
  for (auto& job : jobs) {
    job();
  }
}

Connection* Worker::FindConnection(uint64_t id) {
  auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second;
}

void Worker::AddBlockTimer(int64_t deadline_ms, uint64_t client_id) {
  block_timers_.emplace_back(deadline_ms, client_id);
  std::push_heap(block_timers_.begin(), block_timers_.end(), std::greater<>());
}

bool Worker::PopDueBlockTimer(int64_t now_ms, int64_t* deadline_ms, uint64_t* client_id) {
  if (block_timers_.empty() || block_timers_.front().first > now_ms) {
    return false;
  }
  std::pop_heap(block_timers_.begin(), block_timers_.end(), std::greater<>());
  *deadline_ms = block_timers_.back().first;
  *client_id = block_timers_.back().second;
  block_timers_.pop_back();
  return true;
}

int Worker::NextTimeoutMs(int64_t now_ms) {
  int64_t next = next_cron_ms_;
  if (!block_timers_.empty() && block_timers_.front().first < next) {
    next = block_timers_.front().first;
  }
  if (!resume_.empty()) {
    return 0;
  }
  int64_t wait = next - now_ms;
  return wait < 0 ? 0 : static_cast<int>(wait);
}

void Worker::Run() {
  SetCurrentWorker(this);
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  next_cron_ms_ = WallClockMs();
  while (!stop_.load(std::memory_order_acquire)) {
    int n = epoll_wait(epfd_, events, kMaxEvents, NextTimeoutMs(WallClockMs()));
    const int64_t now = RefreshCachedClock();
    for (int i = 0; i < n; i++) {
      EventSource* src = static_cast<EventSource*>(events[i].data.ptr);
      switch (src->kind) {
        case EventSource::kListener:
          Accept(src->fd);
          break;
        case EventSource::kWake:
          DrainMailbox();
          break;
        case EventSource::kConnection: {
          Connection* c = src->conn;
          if (c->closed) {
            break;
          }
          if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
            HandleRead(c);
          }
          if (!c->closed && (events[i].events & EPOLLOUT)) {
            HandleWrite(c);
          }
          break;
        }
      }
    }
    if (!resume_.empty()) {
      std::vector<Connection*> resume;
      resume.swap(resume_);
      for (Connection* c : resume) {
        if (!c->closed && !c->blocked()) {
          ProcessInput(c);
          if (!c->closed) {
            Flush(c);
          }
        }
      }
    }
    if (!block_timers_.empty() && now >= block_timers_.front().first) {
      ExpireBlockedClients(*this, now);
    }
    if (now >= next_cron_ms_) {
      Cron(now);
      next_cron_ms_ = now + 1000 / std::max<int64_t>(1, server_->config().hz());
    }
    FinishIteration();
  }
  Shutdown();
}

void Worker::Accept(int listen_fd) {
  for (int i = 0; i < 64; i++) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      return;
    }
    WorkerStats::Inc(stats_.connections);
    if (!server_->clients().TryReserve(server_->config().maxclients())) {
      static const char kMsg[] = "-ERR max number of clients reached\r\n";
      ssize_t rc = write(fd, kMsg, sizeof(kMsg) - 1);
      (void)rc;
      close(fd);
      WorkerStats::Inc(stats_.rejected_connections);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (int ka = static_cast<int>(server_->config().tcp_keepalive()); ka > 0) {
      setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
      int idle = ka, intvl = std::max(ka / 3, 1), cnt = 3;
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    }
    auto* c = new Connection(server_->clients().NextId(), this, fd);
    c->reply.set_error_sink(&error_counts_);
    c->set_authenticated(!server_->config().requirepass_set());
    auto fmt = [](const sockaddr_storage& a) {
      char ip[INET6_ADDRSTRLEN] = "?";
      int port = 0;
      if (a.ss_family == AF_INET) {
        const auto* s = reinterpret_cast<const sockaddr_in*>(&a);
        inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
        port = ntohs(s->sin_port);
      } else if (a.ss_family == AF_INET6) {
        const auto* s = reinterpret_cast<const sockaddr_in6*>(&a);
        inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
        port = ntohs(s->sin6_port);
      }
      return std::string(ip) + ":" + std::to_string(port);
    };
    c->addr = fmt(ss);
    sockaddr_storage local{};
    socklen_t llen = sizeof(local);
    getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen);
    c->laddr = fmt(local);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &c->source;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    conns_[c->id()] = c;
    server_->clients().Add(c);
  }
}

void Worker::HandleRead(Connection* c) {
  ByteBuffer& in = c->in;
  // Read as much as the client's recent batches needed (read_size grows when a read
  // fills the buffer), so one pipelined batch costs one read().
  size_t want = c->read_size;
  if (size_t pending = c->parser.PendingBytes(); pending > want) {
    want = std::min<size_t>(pending, 64 * 1024 * 1024);
  }
  char* dst = in.Reserve(want);
  size_t room = in.capacity() - in.size();
  ssize_t n = read(c->fd, dst, room);
  WorkerStats::Inc(stats_.read_calls);
  if (n == 0) {
    CloseConnection(c);
    return;
  }
  if (n < 0) {
    if (errno != EAGAIN && errno != EINTR) {
      CloseConnection(c);
    }
    return;
  }
  in.Commit(static_cast<size_t>(n));
  if (static_cast<size_t>(n) == room && c->read_size < kMaxReadSize) {
    c->read_size *= 2;
  }
  WorkerStats::Inc(stats_.net_input, static_cast<uint64_t>(n));
  // The limit holds whatever the client is doing (a blocked client that keeps sending
  // does not parse its input until it is unblocked).
  if (static_cast<int64_t>(in.size() - c->in_start) > server_->config().client_query_buffer_limit()) {
    c->reply.Error("ERR Protocol error: query buffer limit exceeded");
    c->set_close_after_reply();
    Flush(c);
    return;
  }
  ProcessInput(c);
  if (!c->closed) {
    Flush(c);
  }
}

void Worker::ProcessInput(Connection* c) {
  Config& cfg = server_->config();
  ParseLimits limits;
  limits.max_bulk_len = cfg.proto_max_bulk_len();
  limits.authenticated = c->authenticated();
  while (c->in_start < c->in.size() && !c->close_after_reply() && !c->blocked()) {
    // Parse a batch: one command, or with pipeline-prefetch up to kBatch of them, so that
    // their keys' table memory can be fetched before they run. Unauthenticated clients
    // parse one at a time (AUTH changes the limits the next command is parsed with).
    const bool prefetch = cfg.pipeline_prefetch() && c->authenticated();
    const size_t max = prefetch ? kBatch : 1;
    size_t n = 0;
    size_t pos = c->in_start;
    const char* parse_error = nullptr;
    while (n < max && pos < c->in.size()) {
      size_t consumed = 0;
      std::string_view data(c->in.data() + pos, c->in.size() - pos);
      RequestParser::Status st = c->parser.Parse(data, limits, &consumed);
      if (st == RequestParser::kIncomplete) {
        size_t unparsed = data.size() + c->parser.PendingBytes();
        if (static_cast<int64_t>(unparsed) > cfg.client_query_buffer_limit()) {
          parse_error = "Protocol error: query buffer limit exceeded";
        }
        break;
      }
      if (st == RequestParser::kError) {
        parse_error = c->parser.error();
        break;
      }
      pos += consumed;
      if (c->parser.args().empty()) {
        if (n == 0) {
          c->in_start = pos;  // an empty command is consumed right away
        }
        continue;
      }
      ParsedCommand& pc = batch_[n++];
      pc.args.assign(c->parser.args().begin(), c->parser.args().end());
      pc.end = pos;
      pc.cmd = nullptr;
      pc.key = -1;
    }
    if (n > 1) {
      PrefetchBatch(n, c->db());
    }
    bool stopped = false;
    for (size_t i = 0; i < n; i++) {
      ParsedCommand& pc = batch_[i];
      c->in_start = pc.end;
      if (pc.key >= 0) {
        SetKeyHint(pc.args[pc.key], pc.shard, pc.hash);
      }
      Dispatch(*this, *c, pc.args, pc.cmd);
      if (c->closed) {
        return;
      }
      if (c->close_after_reply() || c->blocked()) {
        stopped = i + 1 < n || parse_error != nullptr;
        break;
      }
    }
    limits.authenticated = c->authenticated();
    if (stopped || c->blocked() || c->close_after_reply()) {
      c->parser.Reset();  // commands parsed ahead are parsed again when the client resumes
      break;
    }
    if (parse_error != nullptr) {
      c->reply.Error(std::string("ERR ") + parse_error);
      c->set_close_after_reply();
      break;
    }
    if (n == 0) {
      break;  // incomplete
    }
  }
  // Compact: keep only the unparsed tail at the front of the buffer.
  size_t rest = c->in.size() - c->in_start;
  if (rest == 0) {
    c->in.Clear();
    c->in_start = 0;
    c->in.ShrinkIfIdle(1 << 20);
  } else if (c->in_start > 0 && (rest <= 4096 || c->in_start >= rest)) {
    memmove(c->in.data(), c->in.data() + c->in_start, rest);
    c->in.Truncate(rest);
    c->in_start = 0;
  }
  c->qbuf.store(c->in.size(), std::memory_order_relaxed);
  c->qbuf_free.store(c->in.capacity() - c->in.size(), std::memory_order_relaxed);
}

void Worker::Flush(Connection* c) {
  while (c->pending_output() > 0) {
    ssize_t n = write(c->fd, c->out.data() + c->out_sent, c->pending_output());
    WorkerStats::Inc(stats_.write_calls);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN) {
        break;
      }
      CloseConnection(c);
      return;
    }
    c->out_sent += static_cast<size_t>(n);
    WorkerStats::Inc(stats_.net_output, static_cast<uint64_t>(n));
  }
  if (c->pending_output() == 0) {
    c->out.Clear();
    c->out_sent = 0;
    c->out.ShrinkIfIdle(1 << 20);
    if (c->close_after_reply()) {
      CloseConnection(c);
      return;
    }
  } else if (c->out_sent > (1 << 20) && c->out_sent > c->pending_output()) {
    c->out.Consume(c->out_sent);
    c->out_sent = 0;
  }
  c->omem.store(c->out.capacity(), std::memory_order_relaxed);
  c->obl.store(c->pending_output(), std::memory_order_relaxed);
  UpdateInterest(c);
}

void Worker::UpdateInterest(Connection* c) {
  bool want_write = c->pending_output() > 0;
  bool pause = c->pending_output() > kOutputPauseBytes;
  if (want_write == c->want_write && pause == c->reading_paused) {
    return;
  }
  c->want_write = want_write;
  bool was_paused = c->reading_paused;
  c->reading_paused = pause;
  epoll_event ev{};
  ev.events = (pause ? 0 : EPOLLIN) | (want_write ? EPOLLOUT : 0);
  ev.data.ptr = &c->source;
  epoll_ctl(epfd_, EPOLL_CTL_MOD, c->fd, &ev);
  if (was_paused && !pause) {
    resume_.push_back(c);  // input may be waiting in the buffer
  }
}

void Worker::HandleWrite(Connection* c) { Flush(c); }

// Staged prefetch over a parsed batch (Valkey's memory_prefetch idea): first the shard's
// table header of every command's first key, then the home slot, then the entry the slot
// points to, so the cache misses of all commands overlap instead of queueing one after
// the other. Reads here race with other workers and are only prefetch hints; the
// commands still run with their locks, so replies cannot change.
void Worker::PrefetchBatch(size_t n, int db) {
  Keyspace& ks = server_->keyspace();
  const CommandTable& table = server_->commands();
  for (size_t i = 0; i < n; i++) {
    ParsedCommand& pc = batch_[i];
    pc.cmd = table.Find(pc.args[0]);
    if (pc.cmd == nullptr || pc.cmd->first_key <= 0 || pc.cmd->movable_keys ||
        static_cast<size_t>(pc.cmd->first_key) >= pc.args.size()) {
      continue;
    }
    pc.key = pc.cmd->first_key;
    LocateKey(pc.args[pc.key], &pc.shard, &pc.hash);
    __builtin_prefetch(&ks.shard(pc.shard).dbs[db]);
  }
  for (size_t i = 0; i < n; i++) {
    ParsedCommand& pc = batch_[i];
    if (pc.key >= 0) {
      __builtin_prefetch(ks.shard(pc.shard).dbs[db].keys.PrefetchSlotAddress(pc.hash));
    }
  }
  for (size_t i = 0; i < n; i++) {
    ParsedCommand& pc = batch_[i];
    if (pc.key >= 0) {
      if (const void* e = ks.shard(pc.shard).dbs[db].keys.PrefetchEntryAddress(pc.hash)) {
        __builtin_prefetch(e);
        __builtin_prefetch(static_cast<const char*>(e) + 64);
      }
    }
  }
}

void Worker::ResumeConnection(Connection* c) { resume_.push_back(c); }

void Worker::MarkForFlush(Connection* c) {
  if (!c->flush_queued) {
    c->flush_queued = true;
    pending_flush_.push_back(c);
  }
}

void Worker::CloseSoon(Connection* c) {
  c->kill_requested.store(true, std::memory_order_relaxed);
  close_soon_.push_back(c);
}

void Worker::FinishIteration() {
  while (!pending_flush_.empty() || !close_soon_.empty()) {
    std::vector<Connection*> flush;
    flush.swap(pending_flush_);
    for (Connection* c : flush) {
      c->flush_queued = false;
      if (!c->closed && !c->kill_requested.load(std::memory_order_relaxed)) {
        Flush(c);
      }
    }
    std::vector<Connection*> doomed;
    doomed.swap(close_soon_);
    for (Connection* c : doomed) {
      CloseConnection(c);
    }
  }
  FreeClosed();
}

void Worker::CloseConnection(Connection* c) {
  if (c->closed) {
    return;
  }
  c->closed = true;
  UnblockOnClose(*this, *c);
  UnsubscribeAll(*server_, *c);
  UnwatchAll(server_->keyspace(), *c);
  epoll_ctl(epfd_, EPOLL_CTL_DEL, c->fd, nullptr);
  close(c->fd);
  conns_.erase(c->id());
  server_->clients().Remove(c);
  server_->clients().Unreserve();
  closed_.push_back(c);
}

void Worker::FreeClosed() {
  if (closed_.empty()) {
    return;
  }
  for (Connection* c : closed_) {
    delete c;
  }
  closed_.clear();
}

void Worker::Cron(int64_t now_ms) {
  if (index_ == 0) {
    server_->UpdateLruClock(now_ms);
    server_->SampleOps(now_ms);
  }
  // Active expiry over this worker's share of the shards, about 1 ms per tick.
  int64_t effort = 1;
  size_t n = server_->keyspace().ExpireCycle(static_cast<uint32_t>(index_),
                                             static_cast<uint32_t>(server_->num_workers()),
                                             &expire_cursor_, now_ms, 1000 * effort);
  WorkerStats::Inc(stats_.active_expired, n);
  // Idle clients.
  int64_t timeout = server_->config().timeout();
  std::vector<Connection*> victims;
  for (auto& [id, c] : conns_) {
    if (c->kill_requested.load(std::memory_order_relaxed)) {
      victims.push_back(c);
    } else if (timeout > 0 && !c->blocked() && c->subscription_count() == 0 &&
               now_ms - c->last_interaction_ms() > timeout * 1000) {
      victims.push_back(c);
    } else {
      CheckPubsubOutputLimits(*this, *c, now_ms);
    }
  }
  for (Connection* c : victims) {
    CloseConnection(c);
  }
}

void Worker::Shutdown() {
  for (int fd : listen_fds_) {
    epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
  }
  listen_fds_.clear();
  // Finish the replies already produced, then close everyone.
  std::vector<Connection*> all;
  for (auto& [id, c] : conns_) {
    all.push_back(c);
  }
  for (Connection* c : all) {
    if (c->pending_output() > 0) {
      int flags = fcntl(c->fd, F_GETFL);
      fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK);
      timeval tv{1, 0};
      setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
      Flush(c);
    }
    if (!c->closed) {
      CloseConnection(c);
    }
  }
  FreeClosed();
}

}  // namespace hotkv

#include "server/worker.h"

#include "server/search_hooks.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "net/socket.h"
#include "server/blocking.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/memory_limit.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/tracking.h"
#include "server/write_stream.h"

namespace hotkv {

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
  backend_.reset();  // no kernel operation refers to a connection after this
  for (auto& [id, c] : conns_) {
    delete c;
  }
  for (Connection* c : zombies_) {
    delete c;
  }
  for (int fd : listen_fds_) {
    close(fd);
  }
  for (int fd : retiring_fds_) {
    close(fd);
  }
  if (event_fd_ >= 0) {
    close(event_fd_);
  }
}

Status Worker::Init() {
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0) {
    return Status::IoError(std::string("eventfd: ") + strerror(errno));
  }
  Config& cfg = server_->config();
  Result<std::vector<int>> fds = OpenListeners(cfg.bind_addresses(), static_cast<int>(cfg.port()),
                                               static_cast<int>(cfg.tcp_backlog()));
  if (!fds.ok()) {
    return fds.status();
  }
  listen_fds_ = std::move(fds).value();
  if (listen_fds_.empty()) {
    return Status::InvalidArgument("Configured to not listen anywhere, exiting.");
  }
  return Status::Ok();
}

void Worker::ReplaceListeners(std::vector<int> fds) {
  for (int fd : fds) {
    if (Status st = backend_->AddListener(fd); !st.ok()) {
      fprintf(stderr, "# worker %d: %s\n", index_, st.message().c_str());
    }
  }
  retiring_fds_.insert(retiring_fds_.end(), listen_fds_.begin(), listen_fds_.end());
  retire_at_ms_ = WallClockMs() + kListenerGraceMs;
  listen_fds_ = std::move(fds);
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
  if (!backend_->ConsumesWakeFd()) {
    uint64_t v;
    ssize_t rc = read(event_fd_, &v, sizeof(v));
    (void)rc;
  }
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

Client* Worker::FindClient(uint64_t id) {
  if (Connection* c = FindConnection(id)) {
    return c;
  }
  auto it = local_clients_.find(id);
  return it == local_clients_.end() ? nullptr : it->second;
}

void Worker::AddLocalClient(Client* c) { local_clients_[c->id()] = c; }

void Worker::RemoveLocalClient(Client* c) {
  UnblockOnClose(*this, *c);
  UnsubscribeAll(*server_, *c);
  UnwatchAll(server_->keyspace(), *c);
  TrackingDisable(*c);
  local_clients_.erase(c->id());
}

void Worker::RunPendingWork(int64_t now_ms) {
  mailbox_signaled_.store(false, std::memory_order_release);
  std::vector<std::function<void()>> jobs;
  {
    std::lock_guard<std::mutex> g(mailbox_mu_);
    jobs.swap(mailbox_);
  }
  for (auto& job : jobs) {
    job();
  }
  ExpireBlockedClients(*this, now_ms);
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
  if (!retiring_fds_.empty() && retire_at_ms_ < next) {
    next = retire_at_ms_;
  }
  if (!block_timers_.empty() && block_timers_.front().first < next) {
    next = block_timers_.front().first;
  }
  if (!resume_.empty() || evicting_) {
    return 0;
  }
  int64_t wait = next - now_ms;
  return wait < 0 ? 0 : static_cast<int>(wait);
}

void Worker::Run() {
  SetCurrentWorker(this);
  // The backend is created here: an io_uring ring belongs to the thread that made it.
  Result<std::unique_ptr<IoBackend>> backend = IoBackend::Create(server_->config().io_backend(), &stats_);
  if (!backend.ok()) {
    fprintf(stderr, "# worker %d: no I/O backend: %s\n", index_, backend.status().message().c_str());
    abort();
  }
  backend_ = std::move(backend).value();
  if (!backend_->note().empty() && index_ == 0) {
    fprintf(stderr, "# %s\n", backend_->note().c_str());
  }
  for (int fd : listen_fds_) {
    if (Status st = backend_->AddListener(fd); !st.ok()) {
      fprintf(stderr, "# worker %d: %s\n", index_, st.message().c_str());
      abort();
    }
  }
  if (Status st = backend_->SetWakeFd(event_fd_); !st.ok()) {
    fprintf(stderr, "# worker %d: %s\n", index_, st.message().c_str());
    abort();
  }
  backend_name_.store(backend_->name(), std::memory_order_release);
  next_cron_ms_ = WallClockMs();
  loop_running_ = true;
  while (!stop_.load(std::memory_order_acquire)) {
    backend_->Poll(NextTimeoutMs(WallClockMs()), *this);
    const int64_t now = RefreshCachedClock();
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
    if (deferred_wake_) [[unlikely]] {
      deferred_wake_ = false;  // a wake-up that came while a script was busy
      DrainMailbox();
    }
    if (input_held_ != nullptr) [[unlikely]] {
      EndHeldInput();  // its command (a busy script) is over: c->in may grow again
    }
    if (!block_timers_.empty() && now >= block_timers_.front().first) {
      ExpireBlockedClients(*this, now);
    }
    if (!retiring_fds_.empty() && now >= retire_at_ms_) {
      for (int fd : retiring_fds_) {
        backend_->RemoveListener(fd, *this);  // serves what waits on it, then closes it
      }
      retiring_fds_.clear();
    }
    if (now >= next_cron_ms_) {
      // The replies of this iteration leave before the timer's work (active expiry,
      // idle clients), not after it: with io_uring they would otherwise wait in the
      // submission queue until the next Poll.
      FinishIteration();
      backend_->SubmitPending();
      Cron(now);
      next_cron_ms_ = now + 1000 / std::max<int64_t>(1, server_->config().hz());
    } else if (evicting_) {
      // As Redis's eviction timer: one time budget of evictions per iteration, between
      // the clients' turns, until used memory is under maxmemory.
      evicting_ = PerformEvictions(*server_, now) == MemoryState::kEvicting;
    }
    FinishIteration();
  }
  loop_running_ = false;
  if (input_held_ != nullptr) {
    EndHeldInput();
  }
  Shutdown();
}

bool Worker::ServeWhileBusy(Client& running, const char* busy_error) {
  if (!loop_running_ || busy_serving_ || CurrentWorker() != this) {
    return stopping();
  }
  if (input_held_ == nullptr) {
    if (Connection* conn = running.AsConnection(); conn != nullptr && !conn->closed) {
      // The script's arguments (and the caller's pipelined commands parsed with it) are
      // views into conn->in: nothing may be appended to it until the command is over.
      backend_->HoldInput(conn);
      input_held_ = conn;
    }
  }
  busy_serving_ = true;
  // The paused script's thread state: its lock set (the commands served here must not
  // see its shards as their own) and the raw request of its command.
  const ShardLockSet* script_locks = ExchangeThreadLockSet(nullptr);
  const WriteStream::RawRequest raw = WriteStream::SaveRawRequest();
  const char* prev_gate = ThisThreadBusyGate();
  SetThisThreadBusyGate(busy_error, script_locks);
  backend_->Poll(0, *this);
  SetThisThreadBusyGate(prev_gate);
  WriteStream::RestoreRawRequest(raw);
  ExchangeThreadLockSet(script_locks);
  RefreshCachedClock();
  busy_serving_ = false;
  return stopping();
}

Worker::DebugInput Worker::ReadDebugInput(Connection* conn, const char* busy_error,
                                          std::string* input, int wait_ms) {
  if (ServeWhileBusy(*conn, busy_error)) {
    return DebugInput::kStopping;
  }
  if (conn->closed || conn->kill_requested.load(std::memory_order_relaxed)) {
    return DebugInput::kGone;
  }
  if (input_held_ != conn) {
    return DebugInput::kGone;  // not on a running event loop: nothing to read from
  }
  const size_t before = input->size();
  if (!conn->held_in.empty()) {
    input->append(conn->held_in.view());
    conn->held_in.Clear();
  }
  char buf[16384];
  const ssize_t n = recv(conn->socket_fd, buf, sizeof(buf), MSG_DONTWAIT);
  if (n > 0) {
    input->append(buf, static_cast<size_t>(n));
    conn->CountRead(static_cast<size_t>(n));
    IoStats::Inc(stats_.read_calls);
    IoStats::Inc(stats_.net_input, static_cast<uint64_t>(n));
  } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    return input->size() > before ? DebugInput::kOk : DebugInput::kGone;
  }
  if (input->size() == before) {
    pollfd p{conn->socket_fd, POLLIN, 0};
    poll(&p, 1, wait_ms);
  }
  return DebugInput::kOk;
}

void Worker::EndHeldInput() {
  Connection* c = input_held_;
  input_held_ = nullptr;
  if (c->closed) {
    return;
  }
  if (backend_->ReleaseInput(c)) {
    resume_.push_back(c);  // input that came while it was held
  }
}

void Worker::ResumeConnection(Connection* c) { resume_.push_back(c); }

void Worker::ResumeClient(Client* c) {
  if (Connection* conn = c->AsConnection()) {
    ResumeConnection(conn);
  }
}

void Worker::MarkForFlush(Client* c) {
  if (Connection* conn = c->AsConnection()) {
    MarkForFlush(conn);
  }
}

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
  if (busy_serving_) [[unlikely]] {
    // A busy script holds shards on this thread that closing may need (unwatching,
    // unblocking): closed at the end of the iteration, after the script.
    if (!c->kill_requested.load(std::memory_order_relaxed)) {
      CloseSoon(c);
    }
    return;
  }
  c->closed = true;
  UnblockOnClose(*this, *c);
  UnsubscribeAll(*server_, *c);
  UnwatchAll(server_->keyspace(), *c);
  TrackingDisable(*c);
  conns_.erase(c->id());
  server_->clients().Remove(c);
  server_->clients().Unreserve();
  zombies_.insert(c);
  backend_->RemoveConnection(c);  // freed once the kernel no longer refers to it
}

void Worker::FreeClosed() {
  if (zombies_.empty()) {
    return;
  }
  std::vector<NetConnection*> released;
  backend_->ReleasedConnections(&released);
  for (NetConnection* nc : released) {
    Connection* c = Connection::From(nc);
    // A connection may have been queued to resume (its input budget ran out, or its
    // output drained) before it was closed in the same iteration.
    std::erase(resume_, c);
    zombies_.erase(c);
    delete c;
  }
}

void Worker::Cron(int64_t now_ms) {
  if (index_ == 0) {
    server_->UpdateLruClock(now_ms);
    server_->SampleOps(now_ms);
    if (SearchHooks* hooks = GetSearchHooks(); hooks != nullptr) {
      hooks->Cron(now_ms);
    }
  }
  // Active expiry over this worker's share of the shards, about 1 ms per tick for each
  // unit of active-expire-effort (1..10).
  const int64_t effort = server_->config().active_expire_effort();
  // CLIENT PAUSE WRITE|ALL: no key expires while writes are paused (Redis 7); the check
  // also ends a pause whose deadline passed.
  const bool writes_paused = server_->client_pause().WritesPaused(*server_, now_ms);
  const int64_t latency_threshold = server_->config().latency_monitor_threshold();
  const int64_t expire_start = latency_threshold > 0 ? MonotonicUs() : 0;
  size_t n = writes_paused ? 0 : server_->keyspace().ExpireCycle(static_cast<uint32_t>(index_),
                                             static_cast<uint32_t>(server_->num_workers()),
                                             &expire_cursor_, now_ms, 1000 * effort);
  WorkerStats::Inc(stats_.active_expired, n);
  if (latency_threshold > 0) {
    server_->latency().AddIfNeeded(latency_threshold, "expire-cycle",
                                   (MonotonicUs() - expire_start) / 1000);
  }
  // Over maxmemory with no commands arriving (CONFIG SET maxmemory lowered): evict here;
  // if one time budget is not enough, every loop iteration continues (see Run).
  if (server_->config().maxmemory() > 0) {
    evicting_ = PerformEvictions(*server_, now_ms) == MemoryState::kEvicting;
  }
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
      // Output buffers a busy connection kept past 64 KB (OnOutputDrained) go back once it
      // has sent no command for 5 s (the window of its reply peak, as Redis's
      // reply-buffer-peak-reset-time); only empty ones (nothing in flight) are freed.
      constexpr size_t kKeepBufferBytes = 64 * 1024;  // as worker_input.cc
      constexpr int64_t kIdleShrinkMs = 5000;
      if ((c->out.capacity() > kKeepBufferBytes || c->sending.capacity() > kKeepBufferBytes) &&
          now_ms - c->last_interaction_ms() >= kIdleShrinkMs) {
        c->out.ShrinkIfIdle(kKeepBufferBytes);
        c->sending.ShrinkIfIdle(kKeepBufferBytes);
        c->PublishInfo();
      }
    }
  }
  for (Connection* c : victims) {
    CloseConnection(c);
  }
  // Cluster mode: clients blocked on keys whose slot moved away or is no longer served
  // get -MOVED / -CLUSTERDOWN (Redis's clusterRedirectBlockedClientIfNeeded). Checked
  // only when a route or the cluster state changed since the last look (or while down).
  if (ClusterHooks* cl = server_->cluster();
      cl != nullptr && g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    const uint64_t v = cl->BlockedCheckVersion();
    if (v == 0 || v != blocked_route_version_) {
      blocked_route_version_ = v;
      RedirectBlockedClients(*this);
    }
  }
}

void Worker::Shutdown() {
  for (int fd : listen_fds_) {
    close(fd);
  }
  listen_fds_.clear();
  for (int fd : retiring_fds_) {
    close(fd);
  }
  retiring_fds_.clear();
  // appendfsync always: the replies below go out directly, so this thread's writes are
  // made durable first.
  if (server_->aof_sync_always()) {
    if (const uint64_t seq = server_->write_stream().LastCommittedByThisThread(); seq != 0) {
      server_->aof()->WaitDurable(seq);
    }
  }
  // Finish the replies already produced (the backend's sends in flight included, for up
  // to a second), then close everyone.
  const int64_t deadline = MonotonicUs() + 1000000;
  for (;;) {
    bool pending = false;
    for (auto& [id, c] : conns_) {
      if (c->pending_output() > 0) {
        pending = true;
        backend_->Send(c);
      }
    }
    if (!pending || MonotonicUs() > deadline) {
      break;
    }
    backend_->Poll(10, *this);
  }
  std::vector<Connection*> all;
  for (auto& [id, c] : conns_) {
    all.push_back(c);
  }
  for (Connection* c : all) {
    backend_->FlushForShutdown(c);
    if (!c->closed) {
      CloseConnection(c);
    }
  }
  FreeClosed();
}

}  // namespace hotkv

#include "worker.h"

#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "clock.h"
#include "report.h"

namespace hotkv::loadgen {
namespace {

constexpr int kMaxEvents = 256;
constexpr int kMaxReadsPerEvent = 4;
constexpr uint64_t kPollAfterSendEndNs = 5 * kNsPerMs;
constexpr uint64_t kMaxSleepNs = 100 * kNsPerMs;

}  // namespace

Worker::Worker(Driver* driver, WorkerTimes times)
    : driver_(driver), times_(times), read_buf_(kReadBufferBytes) {}

Worker::~Worker() {
  for (auto& conn : conns_) {
    if (conn->fd >= 0) {
      close(conn->fd);
    }
  }
  if (epoll_fd_ >= 0) {
    close(epoll_fd_);
  }
  if (timer_fd_ >= 0) {
    close(timer_fd_);
  }
}

Conn& Worker::AddConn(int fd, bool capture_replies) {
  auto conn = std::make_unique<Conn>(capture_replies);
  conn->fd = fd;
  conns_.push_back(std::move(conn));
  return *conns_.back();
}

void Worker::Run() {
  // Timer wake-ups within 1 us of the asked time (the default slack is 50 us).
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  epoll_event tev{};
  tev.events = EPOLLIN;
  tev.data.ptr = nullptr;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, timer_fd_, &tev);
  for (auto& conn : conns_) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = conn.get();
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, conn->fd, &ev);
  }
  uint64_t start = NowNs();
  for (auto& conn : conns_) {
    for (int n = driver_->InitialRequests(*conn); n > 0; --n) {
      Enqueue(*conn, start);
    }
    Flush(*conn);
    MaybeSchedule(*conn);
  }

  epoll_event events[kMaxEvents];
  while (true) {
    SendDue();
    uint64_t now = NowNs();
    if (now >= times_.deadline_ns || driver_->Done(now, inflight_)) {
      break;
    }
    uint64_t next_send = heap_.empty() ? 0 : heap_.top().first;
    int timeout_ms = 0;
    bool behind = next_send != 0 && next_send <= now;
    bool spin =
        behind || (times_.spin_ns > 0 &&
                   (inflight_ > 0 || (next_send != 0 && next_send <= now + times_.spin_ns)));
    if (!spin) {
      ArmTimer(next_send == 0 ? 0 : next_send - times_.spin_ns);
      uint64_t sleep_ns = std::min(kMaxSleepNs, times_.deadline_ns - now);
      if (now >= times_.send_end_ns) {
        sleep_ns = std::min(sleep_ns, kPollAfterSendEndNs);
      }
      timeout_ms = static_cast<int>((sleep_ns + kNsPerMs - 1) / kNsPerMs);
    }
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, timeout_ms);
    for (int i = 0; i < n; ++i) {
      auto* conn = static_cast<Conn*>(events[i].data.ptr);
      if (conn == nullptr) {
        // No read(): the next timerfd_settime (always made after a firing) clears it.
        timer_fired_ = true;
        continue;
      }
      if (!conn->alive) {
        continue;
      }
      if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        Read(*conn);
      }
      if (conn->alive && (events[i].events & EPOLLOUT)) {
        Flush(*conn);
      }
    }
  }
  for (auto& conn : conns_) {
    if (conn->alive) {
      stats_.unanswered += conn->inflight.size();
    }
    // Requests the schedule asked for but a full socket (or a dead connection) kept
    // back: they count as unanswered too, or a stalled server would go unnoticed.
    if (conn->scheduled) {
      for (; conn->schedule.Next() < times_.send_end_ns; conn->schedule.Advance()) {
        ++stats_.unanswered;
      }
    }
  }
}

void Worker::SendDue() {
  // Only connections due on entry: a generator that is behind must still get back to
  // reading replies between rounds of sends.
  const uint64_t due = NowNs();
  while (!heap_.empty() && heap_.top().first <= due) {
    Conn& conn = *heap_.top().second;
    heap_.pop();
    conn.in_heap = false;
    if (!conn.alive) {
      continue;
    }
    uint64_t now = NowNs();
    if (times_.closed_loop) {
      // One request; the reply puts the connection back in the heap (Read()).
      if (conn.inflight.empty() && conn.schedule.Next() <= now &&
          conn.schedule.Next() < times_.send_end_ns) {
        if (conn.schedule.Next() >= times_.measure_start_ns) {
          stats_.send_lag.Record(now - conn.schedule.Next());
        }
        Enqueue(conn, now);  // latency from the actual send
        conn.schedule.Advance();
        Flush(conn);
      }
      MaybeSchedule(conn);
      continue;
    }
    while (conn.schedule.Next() <= now && conn.schedule.Next() < times_.send_end_ns &&
           conn.pending_out() < kMaxPendingBytes) {
      uint64_t intended = conn.schedule.Next();
      if (intended >= times_.measure_start_ns) {
        stats_.send_lag.Record(now - intended);
      }
      Enqueue(conn, intended);
      conn.schedule.Advance();
    }
    Flush(conn);  // one write for the whole batch
    MaybeSchedule(conn);
  }
}

void Worker::Enqueue(Conn& conn, uint64_t intended_ns) {
  driver_->AppendRequest(conn, intended_ns);
  conn.inflight.push_back(intended_ns);
  ++inflight_;
  ++stats_.sent;
}

void Worker::MaybeSchedule(Conn& conn) {
  if (conn.scheduled && conn.alive && !conn.in_heap && conn.schedule.Next() < times_.send_end_ns &&
      conn.pending_out() < kMaxPendingBytes && !(times_.closed_loop && !conn.inflight.empty())) {
    heap_.emplace(conn.schedule.Next(), &conn);
    conn.in_heap = true;
  }
}

void Worker::Flush(Conn& conn) {
  if (conn.pending_out() > 0) {
    ssize_t n;
    do {
      n = send(conn.fd, conn.out.data() + conn.out_off, conn.pending_out(),
               MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      Kill(conn, std::string("send: ") + std::strerror(errno));
      return;
    }
    if (n > 0) {
      conn.out_off += static_cast<size_t>(n);
    }
  }
  if (conn.pending_out() == 0) {
    conn.out.clear();
    conn.out_off = 0;
    if (conn.want_write) {
      SetWriteInterest(conn, false);
      MaybeSchedule(conn);  // it may have been held back by a full buffer
    }
    return;
  }
  if (conn.out_off >= kMaxPendingBytes / 4) {
    conn.out.erase(0, conn.out_off);
    conn.out_off = 0;
  }
  if (!conn.want_write) {
    SetWriteInterest(conn, true);
  }
}

void Worker::Read(Conn& conn) {
  for (int i = 0; i < kMaxReadsPerEvent; ++i) {
    ssize_t n = recv(conn.fd, read_buf_.data(), read_buf_.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        break;
      }
      Kill(conn, std::string("recv: ") + std::strerror(errno));
      return;
    }
    if (n == 0) {
      Kill(conn, "connection closed by server");
      return;
    }
    uint64_t recv_ns = NowNs();
    bool ok = conn.scanner.Feed(
        std::string_view(read_buf_.data(), static_cast<size_t>(n)), [&](const RespReply& reply) {
          uint64_t intended = kUnsolicited;
          if (!conn.inflight.empty()) {
            intended = conn.inflight.front();
            conn.inflight.pop_front();
            --inflight_;
          }
          for (int more = driver_->OnReply(conn, reply, intended, recv_ns); more > 0; --more) {
            Enqueue(conn, recv_ns);
          }
        });
    if (!ok) {
      Kill(conn, "malformed RESP from server");
      return;
    }
    if (static_cast<size_t>(n) < read_buf_.size()) {
      break;
    }
  }
  if (conn.pending_out() > 0 && !conn.want_write) {
    Flush(conn);
  }
  if (times_.closed_loop && conn.alive) {
    MaybeSchedule(conn);  // its reply is in: the next request may go (SendDue)
  }
}

void Worker::Kill(Conn& conn, const std::string& why) {
  if (!conn.alive) {
    return;
  }
  conn.alive = false;
  close(conn.fd);  // also leaves the epoll set
  conn.fd = -1;
  ++stats_.conn_errors;
  if (stats_.first_conn_error.empty()) {
    stats_.first_conn_error = why;
  }
  stats_.unanswered += conn.inflight.size();
  inflight_ -= conn.inflight.size();
  conn.inflight.clear();
}

void Worker::SetWriteInterest(Conn& conn, bool on) {
  epoll_event ev{};
  ev.events = on ? (EPOLLIN | EPOLLOUT) : EPOLLIN;
  ev.data.ptr = &conn;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, conn.fd, &ev);
  conn.want_write = on;
}

void Worker::ArmTimer(uint64_t target) {
  if (target == armed_ns_ && !timer_fired_) {
    return;
  }
  itimerspec spec{};
  if (target != 0) {
    spec.it_value.tv_sec = static_cast<time_t>(target / kNsPerSec);
    spec.it_value.tv_nsec = static_cast<long>(target % kNsPerSec);
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ns_ = target;
  timer_fired_ = false;
}

}  // namespace hotkv::loadgen

namespace hotkv::loadgen {

uint64_t RunWorkerThreads(const std::vector<std::unique_ptr<Worker>>& workers,
                          uint64_t measure_start_ns, uint64_t measure_end_ns) {
  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (const auto& worker : workers) {
    threads.emplace_back([w = worker.get()] { w->Run(); });
  }
  SleepUntilNs(measure_start_ns);
  uint64_t cpu_start = ProcessCpuNs();
  SleepUntilNs(measure_end_ns);
  uint64_t cpu_end = ProcessCpuNs();
  for (auto& t : threads) {
    t.join();
  }
  return cpu_end - cpu_start;
}

}  // namespace hotkv::loadgen

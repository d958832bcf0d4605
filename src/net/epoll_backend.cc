#include "net/epoll_backend.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "net/net_connection.h"

namespace hotkv {

EpollBackend::EpollBackend(IoStats* stats)
    : epfd_(epoll_create1(EPOLL_CLOEXEC)), stats_(stats) {}

EpollBackend::~EpollBackend() {
  if (epfd_ >= 0) {
    close(epfd_);
  }
}

Status EpollBackend::AddListener(int fd) {
  tags_.push_back(std::make_unique<Tag>(Tag{Tag::kListener, fd}));
  epoll_event ev{};
  ev.events = EPOLLIN;
  // Listener/wake tags are told apart from connections by the low bit of the pointer.
  ev.data.u64 = reinterpret_cast<uint64_t>(tags_.back().get()) | 1;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    return Status::IoError(std::string("epoll_ctl: listener: ") + strerror(errno));
  }
  return Status::Ok();
}

void EpollBackend::RemoveListener(int fd, IoSink& sink) {
  for (size_t i = 0; i < tags_.size(); i++) {
    if (tags_[i]->kind == Tag::kListener && tags_[i]->fd == fd) {
      DrainListener(fd, sink);
      epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
      close(fd);
      tags_[i]->kind = Tag::kRemoved;
      retired_.push_back(std::move(tags_[i]));
      tags_.erase(tags_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

Status EpollBackend::SetWakeFd(int fd) {
  tags_.push_back(std::make_unique<Tag>(Tag{Tag::kWake, fd}));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = reinterpret_cast<uint64_t>(tags_.back().get()) | 1;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    return Status::IoError(std::string("epoll_ctl: eventfd: ") + strerror(errno));
  }
  return Status::Ok();
}

void EpollBackend::AddConnection(NetConnection* c) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = reinterpret_cast<uint64_t>(c);
  epoll_ctl(epfd_, EPOLL_CTL_ADD, c->socket_fd, &ev);
}

void EpollBackend::RemoveConnection(NetConnection* c) {
  epoll_ctl(epfd_, EPOLL_CTL_DEL, c->socket_fd, nullptr);
  close(c->socket_fd);
  c->removed = true;
  released_.push_back(c);
}

void EpollBackend::ReleasedConnections(std::vector<NetConnection*>* out) {
  out->insert(out->end(), released_.begin(), released_.end());
  released_.clear();
}

bool EpollBackend::WriteSome(NetConnection* c) {
  for (;;) {
    if (c->sending_off == c->sending.total_size()) {
      c->sending.Clear();
      c->sending_off = 0;
      if (c->out.empty()) {
        return true;
      }
      c->out.Swap(c->sending);  // the reply builder keeps writing into `out`
    }
    ssize_t n;
    if (c->sending.refs().empty()) [[likely]] {
      n = write(c->socket_fd, c->sending.data() + c->sending_off,
                c->sending.size() - c->sending_off);
    } else {
      // References to stored values: sent from where they are (io_vec.h).
      iovec iov[kMaxSendIov];
      const size_t cnt = FillIov(c->sending, c->sending_off, iov, kMaxSendIov);
      n = writev(c->socket_fd, iov, static_cast<int>(cnt));
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno == EAGAIN;
    }
    c->sending_off += static_cast<size_t>(n);
    c->CountWritten(static_cast<size_t>(n));
    IoStats::Inc(stats_->write_calls);
    IoStats::Inc(stats_->net_output, static_cast<uint64_t>(n));
  }
}

bool EpollBackend::Send(NetConnection* c) {
  if (!WriteSome(c)) {
    return false;
  }
  UpdateInterest(c);
  return true;
}

void EpollBackend::SetReading(NetConnection* c, bool on) {
  c->reading_paused = !on;
  UpdateInterest(c);
}

void EpollBackend::HoldInput(NetConnection* c) {
  c->input_held = true;
  UpdateInterest(c);
}

bool EpollBackend::ReleaseInput(NetConnection* c) {
  c->input_held = false;
  if (!c->removed) {
    UpdateInterest(c);  // what arrived meanwhile waits in the socket: reported as usual
  }
  return false;
}

void EpollBackend::UpdateInterest(NetConnection* c) {
  bool want_write = c->pending_output() > 0;
  uint32_t events = (c->reading_paused || c->input_held ? 0u : static_cast<uint32_t>(EPOLLIN)) |
                    (want_write ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  uint32_t current = (c->reading_paused_registered ? 0u : static_cast<uint32_t>(EPOLLIN)) |
                     (c->want_write ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  if (events == current) {
    return;
  }
  c->want_write = want_write;
  c->reading_paused_registered = c->reading_paused || c->input_held;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = reinterpret_cast<uint64_t>(c);
  epoll_ctl(epfd_, EPOLL_CTL_MOD, c->socket_fd, &ev);
}

void EpollBackend::Read(NetConnection* c, IoSink& sink) {
  if (c->input_held) {
    return;  // an event of the outer Poll's batch; read once released
  }
  // Read as much as the client's recent batches needed, so that one pipelined batch
  // costs one read().
  size_t want = c->read_size;
  if (size_t pending = c->expected_input; pending > want) {
    want = std::min<size_t>(pending, 64 * 1024 * 1024);
  }
  char* dst = c->in.Reserve(want);
  size_t room = c->in.capacity() - c->in.size();
  ssize_t n = read(c->socket_fd, dst, room);
  IoStats::Inc(stats_->read_calls);
  if (n == 0) {
    sink.OnHangup(c);
    return;
  }
  if (n < 0) {
    if (errno != EAGAIN && errno != EINTR) {
      sink.OnHangup(c);
    }
    return;
  }
  c->in.Commit(static_cast<size_t>(n));
  c->CountRead(static_cast<size_t>(n));
  IoStats::Inc(stats_->net_input, static_cast<uint64_t>(n));
  if (static_cast<size_t>(n) == room && c->read_size < kMaxReadSize) {
    c->read_size *= 2;
  }
  sink.OnInput(c);
}

void EpollBackend::Poll(int timeout_ms, IoSink& sink) {
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  if (poll_depth_ == 0) {
    retired_.clear();  // a nested Poll: the outer one's events may still point at them
  }
  int n = epoll_wait(epfd_, events, kMaxEvents, timeout_ms);
  poll_depth_++;
  for (int i = 0; i < n; i++) {
    uint64_t data = events[i].data.u64;
    if (data & 1) {
      Tag* tag = reinterpret_cast<Tag*>(data & ~uint64_t{1});
      if (tag->kind == Tag::kWake) {
        sink.OnWake();
        continue;
      }
      if (tag->kind == Tag::kRemoved) {
        continue;
      }
      for (int k = 0; k < 64; k++) {
        int fd = accept4(tag->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          break;
        }
        sink.OnAccepted(fd);
      }
      continue;
    }
    NetConnection* c = reinterpret_cast<NetConnection*>(data);
    if (c->removed) {
      continue;
    }
    if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
      Read(c, sink);
    }
    if (!c->removed && (events[i].events & EPOLLOUT)) {
      if (!WriteSome(c)) {
        sink.OnHangup(c);
        continue;
      }
      UpdateInterest(c);
      if (c->pending_output() == 0) {
        sink.OnOutputDrained(c);
      }
    }
  }
  poll_depth_--;
}

void DrainListener(int fd, IoSink& sink) {
  // Bounded: a flood of connections cannot keep a worker here.
  for (int k = 0; k < 4096; k++) {
    int conn = accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (conn < 0) {
      return;
    }
    sink.OnAccepted(conn);
  }
}

void IoBackend::FlushForShutdown(NetConnection* c) {
  if (c->removed) {
    return;
  }
  int flags = fcntl(c->socket_fd, F_GETFL);
  fcntl(c->socket_fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval tv{1, 0};
  setsockopt(c->socket_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  auto write_all = [c](const ByteBuffer& b, size_t off) {
    while (off < b.total_size()) {
      iovec iov[kMaxSendIov];
      const size_t cnt = FillIov(b, off, iov, kMaxSendIov);
      ssize_t n = writev(c->socket_fd, iov, static_cast<int>(cnt));
      if (n <= 0) {
        return false;
      }
      off += static_cast<size_t>(n);
      c->CountWritten(static_cast<size_t>(n));
    }
    return true;
  };
  // Only what the kernel does not already own: with io_uring an in-flight send of
  // `sending` completes on its own.
  if (!c->send_inflight && write_all(c->sending, c->sending_off)) {
    c->sending.Clear();
    c->sending_off = 0;
    write_all(c->out, 0);
  }
}

}  // namespace hotkv

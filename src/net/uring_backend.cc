#include "net/uring_backend.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/net_connection.h"
#include "net/epoll_backend.h"

namespace hotkv {

namespace {
constexpr uint16_t kBufferGroup = 0;

inline uint64_t Tag(const void* p, uint64_t op) { return reinterpret_cast<uint64_t>(p) | op; }
}  // namespace

UringBackend::UringBackend(IoStats* stats) : stats_(stats) {}

Result<std::unique_ptr<UringBackend>> UringBackend::Create(IoStats* stats) {
  std::unique_ptr<UringBackend> b(new UringBackend(stats));
  if (Status st = b->Setup(); !st.ok()) {
    return st;
  }
  return b;
}

Status UringBackend::Setup() {
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                 IORING_SETUP_SUBMIT_ALL;
  params.cq_entries = 16384;
  params.flags |= IORING_SETUP_CQSIZE;
  int rc = io_uring_queue_init_params(4096, &ring_, &params);
  if (rc < 0) {
    return Status::IoError(std::string("io_uring_queue_init: ") + strerror(-rc));
  }
  ring_ready_ = true;
  // The provided-buffer ring: kBufferCount entries the kernel picks recv buffers from.
  size_t ring_bytes = kBufferCount * sizeof(io_uring_buf);
  void* mem = mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) {
    return Status::IoError("mmap of the buffer ring failed");
  }
  buf_ring_ = static_cast<io_uring_buf_ring*>(mem);
  io_uring_buf_ring_init(buf_ring_);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(mem);
  reg.ring_entries = kBufferCount;
  reg.bgid = kBufferGroup;
  rc = io_uring_register_buf_ring(&ring_, &reg, 0);
  if (rc < 0) {
    return Status::IoError(std::string("io_uring_register_buf_ring: ") + strerror(-rc));
  }
  // Mapped, not malloc'd: 4 MB per worker of fixed I/O memory (touched only as far as
  // receives reach) that is not data, so it stays out of used_memory and maxmemory, as
  // the rings themselves do.
  void* pool = mmap(nullptr, kPoolBytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (pool == MAP_FAILED) {
    return Status::IoError("mmap of the receive buffers failed");
  }
  buffers_ = static_cast<char*>(pool);
  for (unsigned i = 0; i < kBufferCount; i++) {
    io_uring_buf_ring_add(buf_ring_, buffers_ + size_t{i} * kBufferSize, kBufferSize,
                          static_cast<uint16_t>(i), io_uring_buf_ring_mask(kBufferCount),
                          static_cast<int>(i));
  }
  io_uring_buf_ring_advance(buf_ring_, kBufferCount);
  return Status::Ok();
}

UringBackend::~UringBackend() {
  if (ring_ready_) {
    io_uring_queue_exit(&ring_);
  }
  if (buf_ring_ != nullptr) {
    munmap(buf_ring_, kBufferCount * sizeof(io_uring_buf));
  }
  if (buffers_ != nullptr) {
    munmap(buffers_, kPoolBytes);
  }
}

io_uring_sqe* UringBackend::GetSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    io_uring_submit(&ring_);  // the submission queue is full: hand it over first
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringBackend::ReturnBuffer(uint16_t bid) {
  io_uring_buf_ring_add(buf_ring_, buffers_ + size_t{bid} * kBufferSize, kBufferSize, bid,
                        io_uring_buf_ring_mask(kBufferCount), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
}

Status UringBackend::AddListener(int fd) {
  listeners_.push_back(std::make_unique<Listener>(Listener{fd}));
  ArmAccept(listeners_.back().get());
  return Status::Ok();
}

void UringBackend::RemoveListener(int fd, IoSink& sink) {
  for (auto& l : listeners_) {
    if (l->fd == fd && !l->closing) {
      DrainListener(fd, sink);
      l->closing = true;
      io_uring_sqe* sqe = GetSqe();
      io_uring_prep_cancel64(sqe, Tag(l.get(), kAccept), 0);
      io_uring_sqe_set_data64(sqe, Tag(this, kIgnore));
      return;
    }
  }
}

void UringBackend::ArmAccept(Listener* l) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_multishot_accept(sqe, l->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  io_uring_sqe_set_data64(sqe, Tag(l, kAccept));
}

Status UringBackend::SetWakeFd(int fd) {
  wake_fd_ = fd;
  ArmWake();
  return Status::Ok();
}

void UringBackend::ArmWake() {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_read(sqe, wake_fd_, &wake_value_, sizeof(wake_value_), 0);
  io_uring_sqe_set_data64(sqe, Tag(this, kWake));
}

void UringBackend::AddConnection(NetConnection* c) { ArmRecv(c); }

void UringBackend::ArmRecv(NetConnection* c) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_recv(sqe, c->socket_fd, nullptr, 0, 0);
  sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;  // see the file comment
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, Tag(c, kRecv));
  c->recv_armed = true;
}

void UringBackend::SubmitSend(NetConnection* c) {
  io_uring_sqe* sqe = GetSqe();
  if (c->sending.refs().empty()) [[likely]] {
    io_uring_prep_send(sqe, c->socket_fd, c->sending.data() + c->sending_off,
                       c->sending.size() - c->sending_off, MSG_NOSIGNAL);
  } else {
    // References to stored values: one sendmsg from where the bytes are (io_vec.h). The
    // msghdr and iovecs live in the connection until the send completes; the values stay
    // alive through the references `sending` holds until it is cleared after the send.
    if (c->send_vec == nullptr) {
      c->send_vec = std::make_unique<NetConnection::SendVec>();
    }
    NetConnection::SendVec& v = *c->send_vec;
    v.msg = msghdr{};
    v.msg.msg_iov = v.iov;
    v.msg.msg_iovlen = FillIov(c->sending, c->sending_off, v.iov, kMaxSendIov);
    io_uring_prep_sendmsg(sqe, c->socket_fd, &v.msg, MSG_NOSIGNAL);
  }
  io_uring_sqe_set_data64(sqe, Tag(c, kSend));
  c->send_inflight = true;
  IoStats::Inc(stats_->write_calls);
}

bool UringBackend::Send(NetConnection* c) {
  if (c->send_inflight || c->removed) {
    return true;  // the completion of the send in flight picks up `out`
  }
  if (c->sending_off == c->sending.total_size()) {
    c->sending.Clear();
    c->sending_off = 0;
    if (c->out.empty()) {
      return true;
    }
    c->out.Swap(c->sending);
  }
  SubmitSend(c);
  return true;
}

void UringBackend::SetReading(NetConnection* c, bool on) {
  c->reading_paused = !on;
  if (on && !c->recv_armed && !c->removed) {
    ArmRecv(c);
  } else if (!on && c->recv_armed) {
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_cancel64(sqe, Tag(c, kRecv), 0);
    io_uring_sqe_set_data64(sqe, kIgnore);
  }
}

void UringBackend::HoldInput(NetConnection* c) { c->input_held = true; }

bool UringBackend::ReleaseInput(NetConnection* c) {
  c->input_held = false;
  const bool moved = !c->held_in.empty();
  if (moved) {
    c->in.Append(c->held_in.view());
    c->held_in.Clear();
    c->held_in.ShrinkIfIdle(0);
  }
  if (!c->removed && !c->recv_armed && !c->reading_paused) {
    ArmRecv(c);
  }
  return moved;
}

void UringBackend::RemoveConnection(NetConnection* c) {
  c->removed = true;
  if (c->recv_armed) {
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_cancel64(sqe, Tag(c, kRecv), 0);
    io_uring_sqe_set_data64(sqe, kIgnore);
  }
  // The ring holds its own reference to the socket for operations in flight; shutdown
  // makes them finish promptly.
  shutdown(c->socket_fd, SHUT_RDWR);
  close(c->socket_fd);
  MaybeRelease(c);
}

void UringBackend::MaybeRelease(NetConnection* c) {
  if (c->removed && !c->recv_armed && !c->send_inflight) {
    released_.push_back(c);
  }
}

void UringBackend::ReleasedConnections(std::vector<NetConnection*>* out) {
  out->insert(out->end(), released_.begin(), released_.end());
  released_.clear();
}

void UringBackend::OnRecv(NetConnection* c, const io_uring_cqe* cqe, IoSink& sink) {
  const bool more = cqe->flags & IORING_CQE_F_MORE;
  if (!more) {
    c->recv_armed = false;
  }
  if (cqe->flags & IORING_CQE_F_BUFFER) {
    uint16_t bid = static_cast<uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
    if (cqe->res > 0 && !c->removed && c->input_held) [[unlikely]] {
      // The owner still points into c->in (HoldInput): kept aside until ReleaseInput.
      const size_t n = static_cast<size_t>(cqe->res);
      c->held_in.Append(std::string_view(buffers_ + size_t{bid} * kBufferSize, n));
      c->CountRead(n);
      IoStats::Inc(stats_->read_calls);
      IoStats::Inc(stats_->net_input, n);
      ReturnBuffer(bid);
      return;  // not re-armed: ReleaseInput does it
    }
    if (cqe->res > 0 && !c->removed) {
      size_t n = static_cast<size_t>(cqe->res);
      // A large bulk being received (expected_input): room for all of it at once, so the
      // buffer is not regrown (and copied) at every doubling on the way to 32 MB.
      memcpy(c->in.Reserve(std::max(n, std::min<size_t>(c->expected_input, 64u << 20))),
             buffers_ + size_t{bid} * kBufferSize, n);
      c->in.Commit(n);
      c->CountRead(n);
      IoStats::Inc(stats_->read_calls);
      IoStats::Inc(stats_->net_input, n);
    }
    ReturnBuffer(bid);
  }
  if (c->removed) {
    MaybeRelease(c);
    return;
  }
  if (cqe->res > 0) {
    sink.OnInput(c);
    if (!c->removed && !c->recv_armed && !c->reading_paused) {
      ArmRecv(c);
    }
    return;
  }
  if (cqe->res == -ENOBUFS || cqe->res == -ECANCELED) {
    // Out of provided buffers for a moment, or the recv was cancelled to pause reading:
    // ask again unless reading is (still) paused.
    if (!c->reading_paused && !c->recv_armed) {
      ArmRecv(c);
    }
    return;
  }
  sink.OnHangup(c);  // 0 = EOF, or a socket error
}

void UringBackend::OnSend(NetConnection* c, int res, IoSink& sink) {
  c->send_inflight = false;
  if (c->removed) {
    MaybeRelease(c);
    return;
  }
  if (res < 0) {
    if (res == -EINTR || res == -EAGAIN) {
      SubmitSend(c);
      return;
    }
    sink.OnHangup(c);
    return;
  }
  c->sending_off += static_cast<size_t>(res);
  c->CountWritten(static_cast<size_t>(res));
  IoStats::Inc(stats_->net_output, static_cast<uint64_t>(res));
  if (c->sending_off < c->sending.total_size()) {
    SubmitSend(c);  // partial send: the rest
    return;
  }
  c->sending.Clear();
  c->sending_off = 0;
  if (!c->out.empty()) {
    c->out.Swap(c->sending);
    SubmitSend(c);
    return;
  }
  sink.OnOutputDrained(c);
}

void UringBackend::SubmitPending() {
  if (io_uring_sq_ready(&ring_) > 0) {
    io_uring_submit(&ring_);
  }
}

void UringBackend::Poll(int timeout_ms, IoSink& sink) {
  io_uring_cqe* cqe = nullptr;
  __kernel_timespec ts{};
  __kernel_timespec* tsp = nullptr;
  if (timeout_ms >= 0) {
    ts.tv_sec = timeout_ms / 1000;
    ts.tv_nsec = static_cast<long long>(timeout_ms % 1000) * 1000000;
    tsp = &ts;
  }
  io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, tsp, nullptr);
  // Handle completions until none are left. Handling queues sends (and re-armed
  // receives); they are handed to the kernel every kCqeBatch completions rather than only
  // at the next wait: one wait can bring in a full buffer ring (kBufferCount buffers of
  // pipelined commands), and the replies to the first connections should not wait for
  // the last one's commands to run. It also bounds the work spent on a client that has
  // gone away: its failed send is noticed (and the connection closed, its unread input
  // dropped) after a batch, not after everything the wait brought in.
  //
  // A batch is copied out (batch_) and the queue advanced before it is handled; a Poll
  // nested in a callback (io_backend.h) hands out the rest of the batch first, then what
  // came after it, so nothing is handled twice or held back until the callback returns.
  for (;;) {
    if (batch_next_ == batch_count_) {
      if (batch_count_ == kCqeBatch && io_uring_sq_ready(&ring_) > 0) {
        io_uring_submit(&ring_);  // after a full batch: its replies go now
      }
      unsigned head;
      unsigned count = 0;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        batch_[count++] = *cqe;
        if (count == kCqeBatch) {
          break;
        }
      }
      io_uring_cq_advance(&ring_, count);
      batch_next_ = 0;
      batch_count_ = count;
      if (count == 0) {
        break;
      }
    }
    // A copy: a nested Poll inside this Dispatch may refill batch_.
    const io_uring_cqe next = batch_[batch_next_++];
    Dispatch(&next, sink);
  }
}

void UringBackend::Dispatch(const io_uring_cqe* cqe, IoSink& sink) {
  const uint64_t data = io_uring_cqe_get_data64(cqe);
  const uint64_t op = data & kOpMask;
  void* ptr = reinterpret_cast<void*>(data & ~kOpMask);
  switch (op) {
    case kRecv:
      OnRecv(static_cast<NetConnection*>(ptr), cqe, sink);
      break;
    case kSend:
      OnSend(static_cast<NetConnection*>(ptr), cqe->res, sink);
      break;
    case kAccept: {
      auto* l = static_cast<Listener*>(ptr);
      if (cqe->res >= 0) {
        sink.OnAccepted(cqe->res);
      }
      if (!(cqe->flags & IORING_CQE_F_MORE)) {
        if (l->closing) {
          DrainListener(l->fd, sink);  // what arrived while the cancel was on its way
          close(l->fd);
          std::erase_if(listeners_, [l](const auto& p) { return p.get() == l; });
        } else {
          ArmAccept(l);
        }
      }
      break;
    }
    case kWake:
      sink.OnWake();
      ArmWake();
      break;
    default:
      break;
  }
}

Result<std::unique_ptr<IoBackend>> IoBackend::Create(const std::string& kind, IoStats* stats) {
  std::string note;
  if (kind != "epoll") {
    Result<std::unique_ptr<UringBackend>> u = UringBackend::Create(stats);
    if (u.ok()) {
      return std::unique_ptr<IoBackend>(std::move(u).value());
    }
    note = "io_uring unavailable (" + u.status().message() + "), using epoll";
  }
  auto e = std::make_unique<EpollBackend>(stats);
  if (!e->ok()) {
    return Status::IoError(std::string("epoll_create1: ") + strerror(errno));
  }
  e->set_note(std::move(note));
  return std::unique_ptr<IoBackend>(std::move(e));
}

}  // namespace hotkv

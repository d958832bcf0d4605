// BlockingSocket: see blocking_socket.h. Non-blocking file descriptor plus poll(), so that
// every operation has a time limit (Redis's syncio.c with its 10 ms wait resolution).
#include "net/blocking_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/clock.h"

namespace hotkv {

namespace {

int64_t NowMs() { return MonotonicUs() / 1000; }

}  // namespace

Result<BlockingSocket> BlockingSocket::Connect(const std::string& host, int port,
                                               int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* info = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &info); rc != 0) {
    return Status::IoError(std::string("getaddrinfo: ") + gai_strerror(rc));
  }
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* p = info; p != nullptr; p = p->ai_next) {
    fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (connect(fd, p->ai_addr, p->ai_addrlen) == 0 || errno == EINPROGRESS) {
      break;
    }
    last_errno = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(info);
  if (fd < 0) {
    return Status::IoError(std::string("connect: ") + strerror(last_errno));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  BlockingSocket s(fd);
  // As Redis's connBlockingConnect: wait for writability, whatever the outcome; a failed
  // connection fails the first write.
  s.Wait(POLLOUT, NowMs() + std::max<int64_t>(timeout_ms, 0));
  return s;
}

BlockingSocket::~BlockingSocket() { Close(); }

BlockingSocket::BlockingSocket(BlockingSocket&& o) noexcept : fd_(o.fd_), in_(std::move(o.in_)) {
  o.fd_ = -1;
}

BlockingSocket& BlockingSocket::operator=(BlockingSocket&& o) noexcept {
  if (this != &o) {
    Close();
    fd_ = o.fd_;
    in_ = std::move(o.in_);
    o.fd_ = -1;
  }
  return *this;
}

void BlockingSocket::Close() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  in_.clear();
}

bool BlockingSocket::Wait(short events, int64_t deadline_ms) {
  while (true) {
    // Redis waits at least its 10 ms resolution per round.
    int64_t left = std::max<int64_t>(deadline_ms - NowMs(), 10);
    pollfd p{fd_, events, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (rc > 0) {
      return true;
    }
    if (rc == 0 || (errno != EINTR)) {
      return false;
    }
  }
}

IoOutcome BlockingSocket::Write(std::string_view data, int64_t timeout_ms) {
  if (fd_ < 0) {
    return IoOutcome::kError;
  }
  const int64_t deadline = NowMs() + timeout_ms;
  while (true) {
    // Try first, wait after (at worst EAGAIN), as syncWrite.
    ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return IoOutcome::kError;
      }
    } else {
      data.remove_prefix(static_cast<size_t>(n));
    }
    if (data.empty()) {
      return IoOutcome::kOk;
    }
    Wait(POLLOUT, deadline);
    if (NowMs() >= deadline) {
      return IoOutcome::kTimeout;
    }
  }
}

IoOutcome BlockingSocket::ReadLine(std::string* line, size_t max, int64_t timeout_ms) {
  line->clear();
  if (fd_ < 0) {
    return IoOutcome::kError;
  }
  const int64_t deadline = NowMs() + timeout_ms;
  size_t scanned = 0;
  while (true) {
    size_t nl = in_.find('\n', scanned);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > 0 && in_[end - 1] == '\r') {
        end--;
      }
      line->assign(in_, 0, std::min(end, max));
      in_.erase(0, nl + 1);
      return IoOutcome::kOk;
    }
    scanned = in_.size();
    if (scanned > max + (1 << 20)) {
      return IoOutcome::kError;  // no line end in sight: not a Redis reply
    }
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n > 0) {
      in_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      return IoOutcome::kError;  // closed by the peer
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return IoOutcome::kError;
    }
    Wait(POLLIN, deadline);
    if (NowMs() >= deadline) {
      return IoOutcome::kTimeout;
    }
  }
}

}  // namespace hotkv

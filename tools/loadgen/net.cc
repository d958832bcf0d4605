#include "net.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hotkv::loadgen {

ConnectResult ConnectTcp(const std::string& host, int port) {
  ConnectResult result;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0) {
    result.error = "resolve " + host + ": " + gai_strerror(rc);
    return result;
  }
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      result.error = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      result.error = "connect " + host + ":" + service + ": " + std::strerror(errno);
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    result.fd = fd;
    result.error.clear();
    break;
  }
  freeaddrinfo(list);
  return result;
}

ConnectManyResult ConnectMany(const std::string& host, int port, int count) {
  ConnectManyResult result;
  for (int i = 0; i < count; ++i) {
    ConnectResult c = ConnectTcp(host, port);
    if (c.fd < 0 || !SetNonBlocking(c.fd)) {
      result.error = c.fd < 0 ? c.error : "fcntl(O_NONBLOCK) failed";
      if (c.fd >= 0) {
        close(c.fd);
      }
      for (int fd : result.fds) {
        close(fd);
      }
      result.fds.clear();
      return result;
    }
    result.fds.push_back(c.fd);
  }
  return result;
}

bool SetNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool SendAll(int fd, std::string_view data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd pfd{fd, POLLOUT, 0};
        if (poll(&pfd, 1, 5000) <= 0) {
          return false;
        }
        continue;
      }
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

bool ReadReplies(int fd, RespScanner& scanner, size_t count, int timeout_ms,
                 const std::function<void(const RespReply&)>& on_reply) {
  size_t seen = 0;
  char buf[16384];
  while (seen < count) {
    pollfd pfd{fd, POLLIN, 0};
    int rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0 && errno == EINTR) {
      continue;
    }
    if (rc <= 0) {
      return false;
    }
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    bool ok = scanner.Feed(std::string_view(buf, static_cast<size_t>(n)), [&](const RespReply& r) {
      ++seen;
      on_reply(r);
    });
    if (!ok) {
      return false;
    }
  }
  return true;
}

}  // namespace hotkv::loadgen

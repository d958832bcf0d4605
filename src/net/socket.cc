#include "net/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hotkv {

namespace {

std::string FormatAddress(const sockaddr_storage& a) {
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
}

}  // namespace

Result<int> OpenListener(const std::string& given, int port, int backlog) {
  // "*" and "::*" are every address of their family; a name is resolved (the first
  // address it has), as Redis's bind does.
  const std::string addr = given == "*" ? "0.0.0.0" : given == "::*" ? "::" : given;
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, addr.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, addr.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    len = sizeof(sockaddr_in6);
  } else {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    int rc = getaddrinfo(addr.c_str(), nullptr, &hints, &found);
    if (rc != 0 || found == nullptr) {
      errno = EINVAL;
      return Status::InvalidArgument("Could not create server TCP listening socket " + given + ":" +
                                     std::to_string(port) + ": " +
                                     (rc != 0 ? gai_strerror(rc) : "no address"));
    }
    memcpy(&ss, found->ai_addr, found->ai_addrlen);
    len = found->ai_addrlen;
    freeaddrinfo(found);
  }
  const bool is_v6 = ss.ss_family == AF_INET6;
  if (is_v6) {
    v6->sin6_port = htons(static_cast<uint16_t>(port));
  } else {
    v4->sin_port = htons(static_cast<uint16_t>(port));
  }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return Status::IoError("Could not create server TCP listening socket " + given + ":" +
                           std::to_string(port) + ": socket: " + strerror(errno));
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  if (is_v6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  }
  const char* step = "bind";
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&ss), len);
  if (rc == 0) {
    step = "listen";
    rc = listen(fd, backlog);
  }
  if (rc != 0) {
    const int err = errno;
    Status st = Status::IoError("Could not create server TCP listening socket " + given + ":" +
                                std::to_string(port) + ": " + step + ": " + strerror(err));
    close(fd);
    errno = err;  // OpenListeners tells "not here" from real failures by it
    return st;
  }
  return fd;
}

Result<std::vector<int>> OpenListeners(const std::vector<std::string>& addrs, int port,
                                       int backlog) {
  std::vector<int> fds;
  if (port == 0) {
    return fds;
  }
  for (size_t i = 0; i < addrs.size(); i++) {
    const std::string& raw = addrs[i];
    const bool optional = !raw.empty() && raw[0] == '-';
    const std::string addr = optional ? raw.substr(1) : raw;
    bool repeated = false;
    for (size_t j = 0; j < i; j++) {
      repeated = repeated || addrs[j] == addr || addrs[j] == "-" + addr;
    }
    if (repeated && !optional) {
      // SO_REUSEPORT would let the second bind succeed; Redis's fails.
      for (int f : fds) {
        close(f);
      }
      return Status::IoError("Could not create server TCP listening socket " + addr + ":" +
                             std::to_string(port) + ": bind: " + strerror(EADDRINUSE));
    }
    if (repeated) {
      continue;
    }
    Result<int> fd = OpenListener(addr, port, backlog);
    if (fd.ok()) {
      fds.push_back(*fd);
      continue;
    }
    // An optional address is skipped when this host does not have it (or its family),
    // as Redis does; any other failure is one.
    if (optional && (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)) {
      continue;
    }
    for (int f : fds) {
      close(f);
    }
    return fd.status();
  }
  return fds;
}

void ConfigureAccepted(int fd, int keepalive_s) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (keepalive_s > 0) {
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    int idle = keepalive_s, intvl = std::max(keepalive_s / 3, 1), cnt = 3;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
  }
}

std::string PeerAddress(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof(a);
  getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return FormatAddress(a);
}

std::string LocalAddress(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return FormatAddress(a);
}

}  // namespace hotkv

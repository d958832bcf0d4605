// Socket helpers shared by everything that listens or accepts: listening sockets with
// SO_REUSEPORT (one per worker and address, so the kernel spreads connections), the
// options an accepted connection gets, and "ip:port" names of its two ends.
//
// Thread safety: plain functions over file descriptors.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace hotkv {

// A non-blocking listening socket bound to addr:port ("*" = every IPv4 address, "::*"
// every IPv6 one (V6ONLY), a host name: its first address). Errors use Redis's text
// ("Could not create server TCP listening socket ...: bind: ...").
Result<int> OpenListener(const std::string& addr, int port, int backlog);

// One listening socket per address of `addrs` (Redis's bind list: "*" every IPv4
// address, "::*" every IPv6 address, a "-" prefix: skipped when it cannot be bound).
// Port 0: no TCP socket at all (an empty list). On an error nothing stays open.
Result<std::vector<int>> OpenListeners(const std::vector<std::string>& addrs, int port,
                                       int backlog);

// TCP_NODELAY, and TCP keepalive probes after `keepalive_s` idle seconds (0: off).
void ConfigureAccepted(int fd, int keepalive_s);

// "ip:port" of the peer (getpeername) or of our end (getsockname); "?:0" if unknown.
std::string PeerAddress(int fd);
std::string LocalAddress(int fd);

}  // namespace hotkv

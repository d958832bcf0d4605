// TCP helpers for hotkv-loadgen: connect, blocking set-up exchanges.
//
// Thread safety: the functions are reentrant; an fd belongs to one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "resp_scanner.h"

namespace hotkv::loadgen {

struct ConnectResult {
  int fd = -1;        // a connected, blocking TCP socket with TCP_NODELAY; -1 on failure
  std::string error;  // why it failed
};

// Connects to host:port (name or address, IPv4 or IPv6).
ConnectResult ConnectTcp(const std::string& host, int port);
struct ConnectManyResult {
  std::vector<int> fds;  // all connected (non-blocking), or empty on failure
  std::string error;
};
// Opens `count` connections to host:port and makes them non-blocking; on any failure
// closes those already open.
ConnectManyResult ConnectMany(const std::string& host, int port, int count);
// Switches `fd` to non-blocking mode.
bool SetNonBlocking(int fd);
// Writes all of `data` (polling while a non-blocking fd is full).
bool SendAll(int fd, std::string_view data);
// Reads (polling; the fd may be non-blocking) until `count` replies have been scanned, calling
// on_reply for each; gives up after `timeout_ms` without data. Returns false on error, EOF, timeout
// or a malformed stream.
bool ReadReplies(int fd, RespScanner& scanner, size_t count, int timeout_ms,
                 const std::function<void(const RespReply&)>& on_reply);

}  // namespace hotkv::loadgen

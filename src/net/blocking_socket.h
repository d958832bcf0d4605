// BlockingSocket: an outgoing TCP connection used with blocking semantics and a time
// limit on every operation, for a command that talks to another server from its worker
// thread (MIGRATE; later a replica's handshake). It follows Redis's syncio.c and
// connBlockingConnect, so that errors surface where Redis's do:
//
//   auto s = BlockingSocket::Connect("10.0.0.2", 6379, /*timeout_ms=*/1000);
//   if (!s.ok()) { ... resolving or creating the socket failed ... }
//   if (s->Write(request, 1000) != IoOutcome::kOk) { ... s->timed_out() ... }
//   std::string line;
//   if (s->ReadLine(&line, 1024, 1000) != IoOutcome::kOk) { ... }
//
// Connect starts a non-blocking connect and waits up to the timeout for the socket to
// become writable, without checking whether the connection succeeded (as Redis): a
// refused or timed-out connection shows up as a failed Write. Only a host that does not
// resolve, or a socket that cannot be created, fails Connect itself.
//
// Thread safety: one object belongs to one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hotkv {

enum class IoOutcome {
  kOk,
  kTimeout,  // the time limit passed (Redis's errno ETIMEDOUT)
  kError,    // the peer closed the connection, or a system call failed
};

class BlockingSocket {
 public:
  // Resolves host:port (getaddrinfo, any family; `port` as the decimal service name)
  // and connects to the first address that accepts a non-blocking connect, then waits
  // up to timeout_ms for it to become writable.
  static Result<BlockingSocket> Connect(const std::string& host, int port, int64_t timeout_ms);

  BlockingSocket() = default;
  ~BlockingSocket();
  BlockingSocket(BlockingSocket&& o) noexcept;
  BlockingSocket& operator=(BlockingSocket&& o) noexcept;
  BlockingSocket(const BlockingSocket&) = delete;
  BlockingSocket& operator=(const BlockingSocket&) = delete;

  bool valid() const { return fd_ >= 0; }
  void Close();

  // Writes all of `data` within timeout_ms.
  IoOutcome Write(std::string_view data, int64_t timeout_ms);
  // Reads one line (up to "\n") within timeout_ms into `line`, without its "\r\n";
  // keeps at most `max` bytes of it (the rest of a longer line is read and dropped).
  IoOutcome ReadLine(std::string* line, size_t max, int64_t timeout_ms);

 private:
  explicit BlockingSocket(int fd) : fd_(fd) {}
  // Waits for `events` (poll) until `deadline_ms` (monotonic); false on timeout.
  bool Wait(short events, int64_t deadline_ms);

  int fd_ = -1;
  std::string in_;  // bytes read past the last line returned
};

}  // namespace hotkv

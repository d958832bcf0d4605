// IoBackend: how a worker waits for and performs socket I/O.
//
//   epoll     one epoll_wait per loop iteration, then read() and write() per connection.
//   io_uring  multishot accept, one single-shot recv per connection (re-armed each turn)
//             into a ring of provided buffers, and every send of a loop iteration
//             submitted together with the next wait, so a loop iteration costs one
//             io_uring_enter however many connections it served.
//
// Both share one output model: the owner builds output in NetConnection::out; Send()
// moves it to NetConnection::sending (a swap, no copy) when nothing is in flight, so the
// kernel never reads a buffer the owner may grow. Input is appended to
// NetConnection::in and reported through IoSink::OnInput.
//
// This folder knows nothing of commands: a backend moves bytes for NetConnections and
// reports events to an IoSink (the server's Worker is one; the coming cluster bus and
// replication links can be others).
//
// Thread safety: a backend belongs to one thread and is used from it only (the io_uring
// one is created on that thread: SINGLE_ISSUER).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "net/net_connection.h"

namespace hotkv {

// What a backend counts: system calls and bytes. Written by the owning thread only (a
// plain load+store, no read-modify-write), read by anyone.
struct IoStats {
  std::atomic<uint64_t> net_input{0};
  std::atomic<uint64_t> net_output{0};
  std::atomic<uint64_t> read_calls{0};
  std::atomic<uint64_t> write_calls{0};

  static void Inc(std::atomic<uint64_t>& c, uint64_t n = 1) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

// What the owner of a backend hears from it.
class IoSink {
 public:
  virtual ~IoSink() = default;
  virtual void OnAccepted(int fd) = 0;                 // a new connection's socket
  virtual void OnInput(NetConnection* c) = 0;          // bytes were appended to c->in
  virtual void OnHangup(NetConnection* c) = 0;         // peer closed or socket error
  virtual void OnWake() = 0;                           // the wake eventfd fired
  virtual void OnOutputDrained(NetConnection* c) = 0;  // everything queued has been sent
};

class IoBackend {
 public:
  // kind: "io_uring", "epoll" or "auto" (io_uring when the kernel allows it). Counts
  // its system calls and bytes in `stats`. An epoll backend chosen because io_uring was
  // refused says why in note().
  static Result<std::unique_ptr<IoBackend>> Create(const std::string& kind, IoStats* stats);
  virtual ~IoBackend() = default;

  virtual const char* name() const = 0;
  // Why this backend was chosen instead of the one asked for; empty when it was asked.
  const std::string& note() const { return note_; }
  void set_note(std::string note) { note_ = std::move(note); }
  // True when the backend reads the eventfd itself (the owner must not read it again).
  virtual bool ConsumesWakeFd() const = 0;
  virtual Status AddListener(int fd) = 0;
  // Stops accepting on a listener and closes its socket (once no kernel operation refers
  // to it). The connections waiting in its queue are accepted and reported to `sink`
  // first, so a rebind drops none of them.
  virtual void RemoveListener(int fd, IoSink& sink) = 0;
  virtual Status SetWakeFd(int fd) = 0;
  virtual void AddConnection(NetConnection* c) = 0;
  // Starts sending c->out. Returns false when the connection broke (caller closes it).
  virtual bool Send(NetConnection* c) = 0;
  // Backpressure: stop or resume reading from c.
  virtual void SetReading(NetConnection* c, bool on) = 0;
  // Detaches c and closes its socket. The connection may still be referenced by the
  // kernel (in-flight operations); ReleasedConnections() hands it back once it is not.
  virtual void RemoveConnection(NetConnection* c) = 0;
  // Hands queued operations (sends) to the kernel now rather than at the next Poll: the
  // owner calls it before work that takes a while (its timer), so replies already made
  // do not wait for that work. A no-op where Send() writes at once (epoll).
  virtual void SubmitPending() {}
  // Waits up to timeout_ms (-1: forever) and delivers what happened to `sink`. May be
  // called again from inside a callback (a busy script's worker serving its other
  // connections, server/worker.h ServeWhileBusy) with timeout 0: the nested call delivers
  // only what the outer one has not handed out yet.
  virtual void Poll(int timeout_ms, IoSink& sink) = 0;
  // Holds c's input while its owner still points into c->in (the nested Poll above runs
  // inside c's command): nothing more is appended to c->in until ReleaseInput, which
  // returns true when input received meanwhile was appended then (epoll leaves it in the
  // kernel and reports it at a later Poll).
  virtual void HoldInput(NetConnection* c) = 0;
  virtual bool ReleaseInput(NetConnection* c) = 0;
  // Connections removed earlier that may now be freed.
  virtual void ReleasedConnections(std::vector<NetConnection*>* out) = 0;
  // Blocking best-effort flush of everything pending (shutdown).
  virtual void FlushForShutdown(NetConnection* c);

 private:
  std::string note_;
};

// Accepts every connection waiting on a non-blocking listener and reports it.
void DrainListener(int fd, IoSink& sink);

// The adaptive read size shared by the backends: grows when a read fills the buffer.
inline constexpr size_t kMaxReadSize = 1024 * 1024;

}  // namespace hotkv

// IoBackend: how a worker waits for and performs socket I/O.
//
//   epoll     one epoll_wait per loop iteration, then read() and write() per connection.
//   io_uring  multishot accept and multishot recv into a ring of provided buffers, and
//             every send of a loop iteration submitted together with the next wait, so
//             a loop iteration costs one io_uring_enter however many connections it
//             served.
//
// Both share one output model: replies are built in Connection::out; Send() moves them
// to Connection::sending (a swap, no copy) when nothing is in flight, so the kernel
// never reads a buffer the worker may grow. Input is appended to Connection::in and
// reported through IoSink::OnInput.
//
// Thread safety: a backend belongs to one worker and is used from its thread only
// (the io_uring one is created on that thread: SINGLE_ISSUER).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace hotkv {

class Connection;
struct WorkerStats;

// What a worker hears from its backend.
class IoSink {
 public:
  virtual ~IoSink() = default;
  virtual void OnAccepted(int fd) = 0;          // a new connection's socket
  virtual void OnInput(Connection* c) = 0;      // bytes were appended to c->in
  virtual void OnHangup(Connection* c) = 0;     // peer closed or socket error
  virtual void OnWake() = 0;                    // the worker's eventfd fired
  virtual void OnOutputDrained(Connection* c) = 0;  // everything queued has been sent
};

class IoBackend {
 public:
  // kind: "io_uring", "epoll" or "auto" (io_uring when the kernel allows it). Counts
  // its system calls and bytes in `stats`. `note` explains a fallback to epoll.
  static std::unique_ptr<IoBackend> Create(const std::string& kind, WorkerStats* stats,
                                           std::string* note);
  virtual ~IoBackend() = default;

  virtual const char* name() const = 0;
  // True when the backend reads the eventfd itself (the worker must not read it again).
  virtual bool ConsumesWakeFd() const = 0;
  virtual bool AddListener(int fd, std::string* err) = 0;
  virtual bool SetWakeFd(int fd, std::string* err) = 0;
  virtual void AddConnection(Connection* c) = 0;
  // Starts sending c->out. Returns false when the connection broke (caller closes it).
  virtual bool Send(Connection* c) = 0;
  // Backpressure: stop or resume reading from c.
  virtual void SetReading(Connection* c, bool on) = 0;
  // Detaches c and closes its socket. The Connection may still be referenced by the
  // kernel (in-flight operations); ReleasedConnections() hands it back once it is not.
  virtual void RemoveConnection(Connection* c) = 0;
  // Waits up to timeout_ms (-1: forever) and delivers what happened to `sink`.
  virtual void Poll(int timeout_ms, IoSink& sink) = 0;
  // Connections removed earlier that may now be freed.
  virtual void ReleasedConnections(std::vector<Connection*>* out) = 0;
  // Blocking best-effort flush of everything pending (shutdown).
  virtual void FlushForShutdown(Connection* c);
};

}  // namespace hotkv

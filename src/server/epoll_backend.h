// EpollBackend: epoll_wait, then read()/write() per connection (see io_backend.h).
//
// Thread safety: one worker thread.
#pragma once

#include <sys/epoll.h>

#include <memory>
#include <vector>

#include "server/io_backend.h"

namespace hotkv {

class EpollBackend final : public IoBackend {
 public:
  explicit EpollBackend(WorkerStats* stats);
  ~EpollBackend() override;

  bool ok() const { return epfd_ >= 0; }
  const char* name() const override { return "epoll"; }
  bool ConsumesWakeFd() const override { return false; }
  bool AddListener(int fd, std::string* err) override;
  bool SetWakeFd(int fd, std::string* err) override;
  void AddConnection(Connection* c) override;
  bool Send(Connection* c) override;
  void SetReading(Connection* c, bool on) override;
  void RemoveConnection(Connection* c) override;
  void Poll(int timeout_ms, IoSink& sink) override;
  void ReleasedConnections(std::vector<Connection*>* out) override;

 private:
  struct Tag {
    enum Kind { kListener, kWake } kind;
    int fd;
  };
  // Writes as much of c's output as the socket takes. False: the socket broke.
  bool WriteSome(Connection* c);
  void UpdateInterest(Connection* c);
  void Read(Connection* c, IoSink& sink);

  int epfd_ = -1;
  WorkerStats* stats_;
  std::vector<std::unique_ptr<Tag>> tags_;
  std::vector<Connection*> released_;
};

// The adaptive read size shared by the backends: grows when a read fills the buffer.
inline constexpr size_t kMaxReadSize = 1024 * 1024;

}  // namespace hotkv

// EpollBackend: epoll_wait, then read()/write() per connection (see io_backend.h).
//
// Thread safety: one worker thread.
#pragma once

#include <sys/epoll.h>

#include <memory>
#include <vector>

#include "net/io_backend.h"

namespace hotkv {

class EpollBackend final : public IoBackend {
 public:
  explicit EpollBackend(IoStats* stats);
  ~EpollBackend() override;

  bool ok() const { return epfd_ >= 0; }
  const char* name() const override { return "epoll"; }
  bool ConsumesWakeFd() const override { return false; }
  Status AddListener(int fd) override;
  void RemoveListener(int fd, IoSink& sink) override;
  Status SetWakeFd(int fd) override;
  void AddConnection(NetConnection* c) override;
  bool Send(NetConnection* c) override;
  void SetReading(NetConnection* c, bool on) override;
  void HoldInput(NetConnection* c) override;
  bool ReleaseInput(NetConnection* c) override;
  void RemoveConnection(NetConnection* c) override;
  void Poll(int timeout_ms, IoSink& sink) override;
  void ReleasedConnections(std::vector<NetConnection*>* out) override;

 private:
  struct Tag {
    enum Kind { kListener, kWake, kRemoved } kind;
    int fd;
  };
  // Writes as much of c's output as the socket takes. False: the socket broke.
  bool WriteSome(NetConnection* c);
  void UpdateInterest(NetConnection* c);
  void Read(NetConnection* c, IoSink& sink);

  int epfd_ = -1;
  IoStats* stats_;
  std::vector<std::unique_ptr<Tag>> tags_;
  // Tags of removed listeners: events of the current epoll_wait may still point at them,
  // so they are freed at the next Poll.
  std::vector<std::unique_ptr<Tag>> retired_;
  std::vector<NetConnection*> released_;
  int poll_depth_ = 0;  // Poll called from inside Poll (see io_backend.h)
};

}  // namespace hotkv

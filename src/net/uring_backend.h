// UringBackend: an io_uring event loop for one worker (see io_backend.h).
//
// - Listeners: one multishot accept each; a removed one is cancelled, and its socket
//   closed at the accept's last completion.
// - Connections: one single-shot recv each, re-armed after its completion is handled,
//   selecting a buffer from a ring of provided buffers; the data is copied into
//   NetConnection::in and the buffer handed back at once. Not multishot: a multishot recv
//   takes up to 32 buffers (1 MB) from one socket per wake-up, so under overload a few
//   connections took the whole ring while the others went unread for seconds (measured:
//   gaps of 3.6 s between reads of one connection at 800k GET/s asked; with one recv per
//   connection per turn, like Redis's 16 KB read per client, every connection was read
//   within 100-400 ms and throughput doubled; CPU per command when not overloaded
//   stayed within the noise of bench/cpu_split.sh). The recv waits for readiness first
//   (POLL_FIRST): a client waiting for replies has sent nothing yet.
// - Output: at most one send in flight per connection (of NetConnection::sending); the
//   sends queued while handling completions go to the kernel every kCqeBatch completions
//   and with the next wait.
// - The worker's eventfd: a read that is re-armed after each completion.
// - Closing: shutdown()+close() of the socket and a cancel of its recv; the Connection
//   is handed back for freeing only when no operation refers to it any more.
//
// The ring is created with SINGLE_ISSUER and DEFER_TASKRUN (completion work runs only
// when the worker asks for events), so it must be created on the worker's own thread.
//
// Thread safety: one worker thread.
#pragma once

#include <liburing.h>

#include <memory>
#include <vector>

#include "net/io_backend.h"

namespace hotkv {

class UringBackend final : public IoBackend {
 public:
  // An error (with the reason) when the kernel or sandbox refuses io_uring.
  static Result<std::unique_ptr<UringBackend>> Create(IoStats* stats);
  ~UringBackend() override;

  const char* name() const override { return "io_uring"; }
  bool ConsumesWakeFd() const override { return true; }
  Status AddListener(int fd) override;
  void RemoveListener(int fd, IoSink& sink) override;
  Status SetWakeFd(int fd) override;
  void AddConnection(NetConnection* c) override;
  bool Send(NetConnection* c) override;
  void SetReading(NetConnection* c, bool on) override;
  void HoldInput(NetConnection* c) override;
  bool ReleaseInput(NetConnection* c) override;
  void RemoveConnection(NetConnection* c) override;
  void SubmitPending() override;
  void Poll(int timeout_ms, IoSink& sink) override;
  void ReleasedConnections(std::vector<NetConnection*>* out) override;

 private:
  enum Op : uint64_t { kRecv = 1, kSend = 2, kAccept = 3, kWake = 4, kIgnore = 5 };
  static constexpr uint64_t kOpMask = 7;
  struct Listener {
    int fd;
    bool closing = false;  // its accept is being cancelled; closed at the last completion
  };

  explicit UringBackend(IoStats* stats);
  Status Setup();
  io_uring_sqe* GetSqe();
  void ArmRecv(NetConnection* c);
  void ArmAccept(Listener* l);
  void ArmWake();
  void SubmitSend(NetConnection* c);
  void ReturnBuffer(uint16_t bid);
  void OnRecv(NetConnection* c, const io_uring_cqe* cqe, IoSink& sink);
  void OnSend(NetConnection* c, int res, IoSink& sink);
  // Handles one completion.
  void Dispatch(const io_uring_cqe* cqe, IoSink& sink);
  void MaybeRelease(NetConnection* c);

  io_uring ring_;
  bool ring_ready_ = false;
  IoStats* stats_;
  // Provided buffers for recv.
  // 4 MB per worker: a 100-command pipeline of 256-byte values (~30 KB) arrives in one
  // buffer, hence one completion.
  static constexpr unsigned kBufferCount = 128;
  static constexpr unsigned kBufferSize = 32 * 1024;
  static constexpr size_t kPoolBytes = size_t{kBufferCount} * kBufferSize;
  // Completions handled between two submissions of the queued sends (see Poll).
  static constexpr unsigned kCqeBatch = 32;
  // The batch being handled, shared with a nested Poll (io_backend.h): completions the
  // outer Poll took from the ring but has not handed out yet are the nested one's to
  // hand out, so a client whose command arrived with a busy script's is served (or its
  // SCRIPT KILL heard) while the script runs, not after.
  io_uring_cqe batch_[kCqeBatch];
  unsigned batch_next_ = 0;
  unsigned batch_count_ = 0;
  io_uring_buf_ring* buf_ring_ = nullptr;
  char* buffers_ = nullptr;
  std::vector<std::unique_ptr<Listener>> listeners_;
  int wake_fd_ = -1;
  uint64_t wake_value_ = 0;
  std::vector<NetConnection*> released_;
};

}  // namespace hotkv

// Connection: a client socket with its read buffer, request parser and reply buffer.
//
// Lives on one worker for its whole life. The worker reads into `in`, parses and runs
// every complete command, and writes all replies of the batch with one write().
//
// Thread safety: owned by its worker; other threads reach it only through the worker's
// mailbox (by client id).
#pragma once

#include <cstdint>

#include "protocol/byte_buffer.h"
#include "protocol/reply_builder.h"
#include "protocol/resp_parser.h"
#include "server/client.h"

namespace hotkv {

class Connection : public Client {
 public:
  Connection(uint64_t id, Worker* worker, int fd);
  ~Connection() override;

  ByteBuffer in;
  size_t in_start = 0;       // first unparsed byte of `in`
  size_t read_size = 16 * 1024;  // bytes asked of each read(); doubles when a read fills it
  RequestParser parser;
  ByteBuffer out;            // replies being built
  ByteBuffer sending;        // replies being written (see io_backend.h)
  size_t sending_off = 0;    // bytes of `sending` already written
  ReplyBuilder reply{&out};
  bool reading_paused = false;  // backpressure: too much unsent output or unrun input
  bool input_backlog = false;   // complete commands left over by ProcessInput's budget
  // Backend state.
  bool want_write = false;      // epoll: EPOLLOUT registered
  bool reading_paused_registered = false;  // epoll: EPOLLIN removed
  bool send_inflight = false;   // io_uring: a send of `sending` is in the kernel
  bool recv_armed = false;      // io_uring: a recv is armed
  bool removed = false;         // detached from the backend, waiting to be freed
  bool closed = false;
  bool flush_queued = false;  // in the worker's pending-flush list
  // Pub/sub output-buffer soft limit tracking: when the soft limit was first exceeded.
  int64_t soft_limit_since_ms = 0;

  size_t pending_output() const { return out.size() + sending.size() - sending_off; }
  // Drops replies not yet handed to the kernel (a subscriber past its output limit).
  void DropUnsentOutput() { out.Clear(); }
};

}  // namespace hotkv

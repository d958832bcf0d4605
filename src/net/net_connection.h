// NetConnection: the socket half of a connection, as the I/O backends see it.
//
// A socket with its input buffer (appended to by the backend), its output buffers (see
// io_backend.h for the out/sending model) and the backends' bookkeeping flags. It knows
// nothing of commands or protocols: the server's Connection (server/connection.h) adds
// the request parser, the reply builder and the client state on top of it.
//
// Thread safety: owned by one worker thread, like the backend it is registered with. The
// traffic totals are atomics that only the owner writes (a load and a store, no locked
// read-modify-write), so other threads may read them (CLIENT LIST).
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "net/io_vec.h"
#include "protocol/byte_buffer.h"

namespace hotkv {

class NetConnection {
 public:
  explicit NetConnection(int fd) : socket_fd(fd) {}
  NetConnection(const NetConnection&) = delete;
  NetConnection& operator=(const NetConnection&) = delete;

  const int socket_fd;

  ByteBuffer in;
  size_t in_start = 0;           // first byte of `in` the owner has not consumed yet
  size_t read_size = 16 * 1024;  // bytes asked of each read(); doubles when a read fills it
  // The owner's hint that at least this many more input bytes belong to one message
  // (a large bulk string being received): the next read asks for that much at once.
  size_t expected_input = 0;
  ByteBuffer out;                // output being built by the owner
  ByteBuffer sending;            // output being written (see io_backend.h)
  size_t sending_off = 0;        // bytes of `sending` already written (of total_size():
                                 // its own bytes and its references', io_vec.h)
  // io_uring: the sendmsg of a `sending` that holds references (kept until it completes);
  // allocated on first use.
  struct SendVec {
    msghdr msg;
    iovec iov[kMaxSendIov];
  };
  std::unique_ptr<SendVec> send_vec;
  bool reading_paused = false;   // the owner asked the backend to stop reading
  bool input_held = false;       // IoBackend::HoldInput: nothing is appended to `in`
  ByteBuffer held_in;            // io_uring: input received while held
  // Backend state.
  bool want_write = false;       // epoll: EPOLLOUT registered
  bool reading_paused_registered = false;  // epoll: EPOLLIN removed
  bool send_inflight = false;    // io_uring: a send of `sending` is in the kernel
  bool recv_armed = false;       // io_uring: a recv is armed
  bool removed = false;          // detached from the backend, waiting to be freed
  bool closed = false;           // the owner closed it (no more callbacks are acted on)

  size_t pending_output() const {
    return out.total_size() + sending.total_size() - sending_off;
  }

  // Traffic totals, counted by the backends once per read or write call (CLIENT LIST's
  // tot-net-in, tot-net-out and read-events).
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> reads{0};
  void CountRead(size_t n) {
    bytes_read.store(bytes_read.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    reads.store(reads.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void CountWritten(size_t n) {
    bytes_written.store(bytes_written.load(std::memory_order_relaxed) + n,
                        std::memory_order_relaxed);
  }
};

}  // namespace hotkv

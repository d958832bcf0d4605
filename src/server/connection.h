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
#include "server/worker.h"

namespace hotkv {

class Connection : public Client {
 public:
  Connection(uint64_t id, Worker* worker, int fd);
  ~Connection() override;

  EventSource source;
  ByteBuffer in;
  size_t in_start = 0;       // first unparsed byte of `in`
  size_t read_size = 16 * 1024;  // bytes asked of each read(); doubles when a read fills it
  RequestParser parser;
  ByteBuffer out;
  size_t out_sent = 0;       // bytes of `out` already written
  ReplyBuilder reply{&out};
  bool want_write = false;   // EPOLLOUT registered
  bool reading_paused = false;
  bool closed = false;
  bool flush_queued = false;  // in the worker's pending-flush list
  // Pub/sub output-buffer soft limit tracking: when the soft limit was first exceeded.
  int64_t soft_limit_since_ms = 0;

  size_t pending_output() const { return out.size() - out_sent; }
};

}  // namespace hotkv

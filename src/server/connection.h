// Connection: a client connection as the worker runs it — the socket half
// (net/net_connection.h: buffers and backend state) plus the request parser, the reply
// builder and the client state commands see (server/client.h).
//
// Lives on one worker for its whole life. The worker reads into `in`, parses and runs
// every complete command, and writes all replies of the batch with one write().
//
// Thread safety: owned by its worker; other threads reach it only through the worker's
// mailbox (by client id).
#pragma once

#include <cstdint>

#include "net/net_connection.h"
#include "protocol/reply_builder.h"
#include "protocol/resp_parser.h"
#include "server/client.h"

namespace hotkv {

class Connection : public NetConnection, public Client {
 public:
  Connection(uint64_t id, Worker* worker, int fd);
  ~Connection() override;

  // The Connection behind a NetConnection the backends report (every NetConnection a
  // worker registers is a Connection).
  static Connection* From(NetConnection* nc) { return static_cast<Connection*>(nc); }

  RequestParser parser;
  ReplyBuilder reply{&out};
  bool input_backlog = false;   // complete commands left over by ProcessInput's budget
  bool flush_queued = false;    // in the worker's pending-flush list
  bool pause_held = false;      // its next command waits for CLIENT UNPAUSE (client_pause.h)
  // appendfsync always: the last write-stream record of this connection's commands, and
  // whether its replies wait for that record's fsync (Worker::aof_waiting_).
  uint64_t aof_seq = 0;
  bool aof_wait_queued = false;
  // Pub/sub output-buffer soft limit tracking: when the soft limit was first exceeded.
  int64_t soft_limit_since_ms = 0;

  // Drops replies not yet handed to the kernel (a subscriber past its output limit).
  void DropUnsentOutput() { out.Clear(); }

  ReplyBuilder* output() override { return &reply; }
  Connection* AsConnection() override { return this; }
  const NetConnection* net() const override { return this; }

  // Records how much of `out` replies use before it is handed to the backend (CLIENT
  // LIST's rbp: the peak of the last kReplyPeakResetMs, as Redis's
  // reply-buffer-peak-reset-time).
  void NoteReplyBytes(int64_t now_ms);
  // Publishes the buffer figures of CLIENT LIST (qbuf, obl, oll, omem, rbs, rbp, events,
  // tot-mem) from the live state, for other threads to read.
  void PublishInfo();

 private:
  static constexpr int64_t kReplyPeakResetMs = 5000;
  size_t reply_peak_ = 0;
  int64_t reply_peak_since_ms_ = 0;
};

}  // namespace hotkv

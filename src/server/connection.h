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
  // Pub/sub output-buffer soft limit tracking: when the soft limit was first exceeded.
  int64_t soft_limit_since_ms = 0;

  // Drops replies not yet handed to the kernel (a subscriber past its output limit).
  void DropUnsentOutput() { out.Clear(); }

  ReplyBuilder* output() override { return &reply; }
  Connection* AsConnection() override { return this; }
};

}  // namespace hotkv

// LocalClient: a client with no socket, for running commands in-process.
//
// Its replies accumulate in its own buffer. Uses: the in-process tests of the
// dispatcher (EXEC, WATCH, blocking), and the coming AOF loader, replica link and
// scripts, which run commands through Dispatch() exactly as a connection does.
//
//   LocalClient client(server.clients().NextId(), &worker);
//   worker.AddLocalClient(&client);          // so that deliveries can find it
//   Dispatch(worker, client, client.reply, {"SET", "k", "v"});
//   EXPECT_EQ(client.TakeOutput(), "+OK\r\n");
//   worker.RemoveLocalClient(&client);
//
// Thread safety: like any Client, used on its worker's thread (for a worker whose loop
// is not running, the thread that drives it with RunPendingWork()).
#pragma once

#include <cstdint>
#include <string>

#include "protocol/byte_buffer.h"
#include "protocol/reply_builder.h"
#include "server/client.h"

namespace hotkv {

class LocalClient : public Client {
 public:
  LocalClient(uint64_t id, Worker* worker) : Client(id, worker) {}

  ByteBuffer out;
  ReplyBuilder reply{&out};

  ReplyBuilder* output() override { return &reply; }

  // Everything replied so far (and clears it).
  std::string TakeOutput() {
    std::string s(out.view());
    out.Clear();
    return s;
  }
};

}  // namespace hotkv

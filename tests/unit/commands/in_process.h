// InProcessServer: a server with every command registered and one worker whose event
// loop is not running, driven by the test's thread through Dispatch() with LocalClients
// (server/local_client.h). No socket, no thread: what a test sees is exactly what the
// dispatcher and the handlers did.
//
//   InProcessServer s;
//   LocalClient& a = s.NewClient();
//   EXPECT_EQ(s.Run(a, {"SET", "k", "v"}), "+OK\r\n");
//   s.RunPendingWork();   // deliveries posted to the worker (woken blocked clients)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "common/clock.h"
#include "engine/lazy_free.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/dispatcher.h"
#include "server/local_client.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv::testing {

class InProcessServer {
 public:
  // `extra` adds commands RegisterAllCommands does not (scripting/'s EVAL and FUNCTION,
  // registered by main.cc).
  explicit InProcessServer(void (*extra)(CommandTable&) = nullptr) {
    RegisterAllCommands(table_);
    if (extra != nullptr) {
      extra(table_);
    }
    table_.Finalize();
    server_ = std::make_unique<Server>(&config_, &table_);
    worker_ = std::make_unique<Worker>(server_.get(), 0);
    SetCurrentWorker(worker_.get());
    RefreshCachedClock();
  }
  ~InProcessServer() {
    // A background free (FLUSHDB/FLUSHALL) posts its completion to the worker: let it
    // finish and deliver before the worker goes.
    WaitForLazyFree();
    worker_->RunPendingWork(CachedNowMs());
    for (auto& c : clients_) {
      worker_->RemoveLocalClient(c.get());
    }
    SetCurrentWorker(nullptr);
  }

  LocalClient& NewClient() {
    clients_.push_back(std::make_unique<LocalClient>(server_->clients().NextId(), worker_.get()));
    worker_->AddLocalClient(clients_.back().get());
    return *clients_.back();
  }

  // Runs one command for `c` and returns what it replied (empty when it blocked).
  std::string Run(LocalClient& c, const std::vector<std::string>& args) {
    RefreshCachedClock();
    std::vector<std::string_view> views(args.begin(), args.end());
    Dispatch(*worker_, c, c.reply, views);
    return c.TakeOutput();
  }

  // One loop iteration's worth of the worker's pending work: posted deliveries and the
  // blocked-command timeouts due by now + advance_ms.
  void RunPendingWork(int64_t advance_ms = 0) {
    RefreshCachedClock();
    worker_->RunPendingWork(CachedNowMs() + advance_ms);
  }

  Server& server() { return *server_; }
  Worker& worker() { return *worker_; }

 private:
  Config config_;
  CommandTable table_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Worker> worker_;
  std::vector<std::unique_ptr<LocalClient>> clients_;
};

}  // namespace hotkv::testing

// MonitorFeed: MONITOR's stream of every command the server runs, as Redis prints it:
//
//   +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"
//
// The dispatcher calls Feed() after a command ran, still holding the command's shard
// locks (EXEC: after each queued command, then EXEC itself), so two commands on one key
// reach every monitor in the order they ran. Feed() formats the line, then, under the
// feed's mutex, takes the timestamp and posts the line to each monitor client's worker
// mailbox: every mailbox is FIFO, so every monitor sees one order. When nobody monitors
// the dispatcher's cost is one relaxed load (active()).
//
// Not fed, as in Redis: admin commands and those flagged skip_monitor, commands rejected
// before running (unknown, arity, auth, OOM...), commands queued by MULTI (they are fed
// when EXEC runs them), and in-process clients (the AOF loader) unless they set
// Client::monitor_origin (a script's commands show as "[db lua]").
//
// A monitor stops when its client sends RESET or goes away (its entry is dropped at the
// next delivery that does not find it).
//
// Thread safety: every method may be called from any worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hotkv {

class Client;
class Worker;

class MonitorFeed {
 public:
  bool active() const { return count_.load(std::memory_order_relaxed) > 0; }
  // MONITOR: `c` (on its own worker) receives every later line.
  void Add(Client& c);
  // RESET / disconnection.
  void Remove(uint64_t client_id);
  // One command that ran: `db` after the command (SELECT shows its new database), bit i
  // of `redacted` shows argument i as "(redacted)" (passwords).
  void Feed(const Client& c, int db, const std::vector<std::string_view>& args,
            uint64_t redacted);

 private:
  std::mutex mu_;
  std::vector<std::pair<Worker*, uint64_t>> monitors_;
  std::atomic<int> count_{0};
};

}  // namespace hotkv

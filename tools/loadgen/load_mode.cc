// Load mode: SET <prefix><i> <value> for i in [0, N), closed loop, pipelined.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "command_builder.h"
#include "modes.h"
#include "net.h"
#include "report.h"
#include "worker.h"

namespace hotkv::loadgen {
namespace {

// Each connection owns a contiguous key range and keeps `pipeline` SETs in flight.
// Thread safety: one per worker thread.
class LoadDriver : public Driver {
 public:
  struct Range {
    uint64_t next = 0;
    uint64_t end = 0;
  };

  LoadDriver(const CommandTemplate* set, int pipeline) : set_(set), pipeline_(pipeline) {}

  void AddRange(uint64_t begin, uint64_t end) {
    ranges_.push_back({begin, end});
    remaining_ += end - begin;
  }

  void AppendRequest(Conn& conn, uint64_t intended_ns) override {
    Range& r = ranges_[conn.slot];
    set_->Append(r.next++, conn.out);
  }

  int InitialRequests(Conn& conn) override {
    const Range& r = ranges_[conn.slot];
    return static_cast<int>(std::min<uint64_t>(pipeline_, r.end - r.next));
  }

  int OnReply(Conn& conn, const RespReply& reply, uint64_t intended_ns, uint64_t recv_ns) override {
    if (intended_ns == kUnsolicited) {
      return 0;
    }
    --remaining_;
    ++acked_;
    if (reply.IsError()) {
      ++errors_;
      if (first_error_.empty() && reply.num_items > 0) {
        first_error_ = std::string(reply.items[0]);
      }
    }
    const Range& r = ranges_[conn.slot];
    return r.next < r.end ? 1 : 0;
  }

  bool Done(uint64_t now_ns, uint64_t inflight) override { return inflight == 0; }

  uint64_t acked() const { return acked_; }
  uint64_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

 private:
  const CommandTemplate* set_;
  uint64_t pipeline_;
  uint64_t remaining_ = 0;
  std::vector<Range> ranges_;
  uint64_t acked_ = 0;
  uint64_t errors_ = 0;
  std::string first_error_;
};

}  // namespace

int RunLoadMode(const Options& o) {
  std::optional<CommandTemplate> set =
      CommandTemplate::Parse("SET __key__ __value__", o.key_prefix, o.value_size);
  int connections = static_cast<int>(std::min<uint64_t>(o.connections, o.load_keys));
  ConnectManyResult connected = ConnectMany(o.host, o.port, connections);
  if (connected.fds.empty()) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n", connected.error.c_str());
    return 2;
  }
  int threads = std::min(o.threads, connections);
  uint64_t start = NowNs();
  // Nothing is scheduled: send_end = start, so the workers stop once all is acked.
  WorkerTimes times{start, start, start + static_cast<uint64_t>(o.load_timeout_s * 1e9)};
  std::vector<std::unique_ptr<LoadDriver>> drivers;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    drivers.push_back(std::make_unique<LoadDriver>(&*set, o.pipeline));
    workers.push_back(std::make_unique<Worker>(drivers.back().get(), times));
  }
  for (int i = 0; i < connections; ++i) {
    int t = i % threads;
    Conn& conn = workers[t]->AddConn(connected.fds[i], false);
    conn.slot = static_cast<size_t>(i / threads);
    drivers[t]->AddRange(o.load_keys * i / connections, o.load_keys * (i + 1) / connections);
  }
  uint64_t cpu_start = ProcessCpuNs();
  RunWorkerThreads(workers, start, start);
  uint64_t end = NowNs();
  uint64_t cpu_ns = ProcessCpuNs() - cpu_start;

  uint64_t acked = 0, errors = 0, unanswered = 0, conn_errors = 0;
  std::string first_error, first_conn_error;
  for (int t = 0; t < threads; ++t) {
    acked += drivers[t]->acked();
    errors += drivers[t]->errors();
    if (first_error.empty()) {
      first_error = drivers[t]->first_error();
    }
    const WorkerStats& s = workers[t]->stats();
    unanswered += s.unanswered;
    conn_errors += s.conn_errors;
    if (first_conn_error.empty()) {
      first_conn_error = s.first_conn_error;
    }
  }
  double seconds = static_cast<double>(end - start) / 1e9;
  double keys_per_s = static_cast<double>(acked) / seconds;
  bool complete = acked == o.load_keys && errors == 0 && conn_errors == 0;
  if (o.json) {
    JsonObject j;
    j.Add("mode", "load")
        .Add("host", o.host)
        .Add("port", o.port)
        .Add("keys", o.load_keys)
        .Add("acked", acked)
        .Add("errors", errors)
        .Add("unanswered", unanswered)
        .Add("conn_errors", conn_errors)
        .Add("value_size", static_cast<uint64_t>(o.value_size))
        .Add("connections", connections)
        .Add("pipeline", o.pipeline)
        .Add("threads", threads)
        .Add("seconds", seconds)
        .Add("keys_per_s", keys_per_s)
        .Add("complete", complete)
        .Add("loadgen_cpu_pct", static_cast<double>(cpu_ns) / (seconds * 1e9) * 100.0)
        .Add("first_error", first_error)
        .Add("first_conn_error", first_conn_error);
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf(
        "hotkv-loadgen load: SET %s<0..%llu> with %zu-byte values, %d connections x "
        "pipeline %d, %d thread(s)\n",
        o.key_prefix.c_str(), static_cast<unsigned long long>(o.load_keys - 1), o.value_size,
        connections, o.pipeline, threads);
    std::printf(
        "  %llu keys acknowledged in %.2f s: %.0f keys/s, %llu errors, %llu unanswered, "
        "%llu conn errors -> %s\n",
        static_cast<unsigned long long>(acked), seconds, keys_per_s,
        static_cast<unsigned long long>(errors), static_cast<unsigned long long>(unanswered),
        static_cast<unsigned long long>(conn_errors), complete ? "COMPLETE" : "INCOMPLETE");
    if (!first_error.empty()) {
      std::printf("  first error reply: %s\n", first_error.c_str());
    }
    if (!first_conn_error.empty()) {
      std::printf("  first connection error: %s\n", first_conn_error.c_str());
    }
  }
  return complete ? 0 : 1;
}

}  // namespace hotkv::loadgen

// Request mode: --rate R requests/s over --connections C, open loop.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "command_builder.h"
#include "histogram.h"
#include "modes.h"
#include "net.h"
#include "report.h"
#include "worker.h"

namespace hotkv::loadgen {
namespace {

// What one worker measured; summed over workers after the run.
struct RequestResults {
  Histogram latency;            // requests intended in the window: reply - intended time
  uint64_t window_replies = 0;  // replies received in the window (achieved rate)
  uint64_t errors = 0;          // error replies to requests intended in the window
  uint64_t unsolicited = 0;     // replies with no request outstanding (should be 0)
  std::string first_error;

  void Add(const RequestResults& o) {
    latency.Merge(o.latency);
    window_replies += o.window_replies;
    errors += o.errors;
    unsolicited += o.unsolicited;
    if (first_error.empty()) {
      first_error = o.first_error;
    }
  }
};

// Thread safety: one per worker thread.
class RequestDriver : public Driver {
 public:
  RequestDriver(const CommandTemplate* command, uint64_t keyspace, MeasureWindow window,
                uint64_t seed)
      : command_(command), keyspace_(keyspace), window_(window), rng_(seed | 1) {}

  void AppendRequest(Conn& conn, uint64_t intended_ns) override {
    command_->Append(command_->uses_key() ? RandomKey() : 0, conn.out);
  }

  int OnReply(Conn& conn, const RespReply& reply, uint64_t intended_ns, uint64_t recv_ns) override {
    if (intended_ns == kUnsolicited) {
      ++results_.unsolicited;
      return 0;
    }
    if (window_.Contains(recv_ns)) {
      ++results_.window_replies;
    }
    if (window_.Contains(intended_ns)) {
      results_.latency.Record(recv_ns - intended_ns);
      if (reply.IsError()) {
        ++results_.errors;
        if (results_.first_error.empty() && reply.num_items > 0) {
          results_.first_error = std::string(reply.items[0]);
        }
      }
    }
    return 0;
  }

  bool Done(uint64_t now_ns, uint64_t inflight) override {
    return now_ns >= window_.t1 && inflight == 0;
  }

  const RequestResults& results() const { return results_; }

 private:
  // xorshift64* mapped onto [0, keyspace) by a multiply-shift (no modulo bias to speak of).
  uint64_t RandomKey() {
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    uint64_t r = rng_ * 0x2545F4914F6CDD1DULL;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * keyspace_) >> 64);
  }

  const CommandTemplate* command_;
  uint64_t keyspace_;
  MeasureWindow window_;
  uint64_t rng_;
  RequestResults results_;
};

std::optional<CommandTemplate> BuildCommand(const Options& o) {
  if (auto t = CommandTemplate::ForName(o.command, o.key_prefix, o.value_size)) {
    return t;
  }
  if (o.command == "custom") {
    return CommandTemplate::Parse(o.command_template, o.key_prefix, o.value_size);
  }
  return CommandTemplate::Parse(o.command, o.key_prefix, o.value_size);
}

}  // namespace

int RunRequestMode(const Options& o) {
  std::optional<CommandTemplate> command = BuildCommand(o);
  if (!command) {
    std::fprintf(stderr, "hotkv-loadgen: no command (give --template with --command custom)\n");
    return 2;
  }
  ConnectManyResult connected = ConnectMany(o.host, o.port, o.connections);
  if (connected.fds.empty()) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n", connected.error.c_str());
    return 2;
  }
  int threads = std::min(o.threads, o.connections);
  uint64_t start = NowNs() + 50 * kNsPerMs;
  MeasureWindow window{start + static_cast<uint64_t>(o.warmup_s * 1e9), 0};
  window.t1 = window.t0 + static_cast<uint64_t>(o.duration_s * 1e9);
  WorkerTimes times{window.t0, window.t1, window.t1 + static_cast<uint64_t>(o.drain_s * 1e9),
                    static_cast<uint64_t>(o.spin_us * 1e3), o.arrival == Arrival::kBursty};

  std::vector<std::unique_ptr<RequestDriver>> drivers;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    drivers.push_back(std::make_unique<RequestDriver>(&*command, o.keyspace, window,
                                                      o.seed * 0x9E3779B97F4A7C15ULL + t));
    workers.push_back(std::make_unique<Worker>(drivers.back().get(), times));
  }
  double per_conn_rate = o.rate / o.connections;
  for (int i = 0; i < o.connections; ++i) {
    Conn& conn = workers[i % threads]->AddConn(connected.fds[i], false);
    conn.slot = static_cast<size_t>(i / threads);
    conn.scheduled = true;
    // Bursty: every connection in phase (all at t0), as a client that starts them together.
    double phase = o.arrival == Arrival::kBursty ? 0.0 : static_cast<double>(i) / o.connections;
    conn.schedule = RateScheduler(start, per_conn_rate, phase,
                                  o.arrival, o.seed * 1000003ULL + i);
  }

  uint64_t cpu_ns = RunWorkerThreads(workers, window.t0, window.t1);

  RequestResults total;
  Histogram send_lag;
  uint64_t unanswered = 0, conn_errors = 0, sent = 0;
  std::string first_conn_error;
  for (int t = 0; t < threads; ++t) {
    total.Add(drivers[t]->results());
    const WorkerStats& s = workers[t]->stats();
    send_lag.Merge(s.send_lag);
    unanswered += s.unanswered;
    conn_errors += s.conn_errors;
    sent += s.sent;
    if (first_conn_error.empty()) {
      first_conn_error = s.first_conn_error;
    }
  }
  double achieved = static_cast<double>(total.window_replies) / o.duration_s;
  double share = achieved / o.rate;
  bool sustained = share >= kSustainedShare && unanswered == 0 && conn_errors == 0;
  double cpu_pct = static_cast<double>(cpu_ns) / (o.duration_s * 1e9) * 100.0;
  LatencySummary lag = Summarize(send_lag);
  // A spinning generator is always busy; then only its send lag tells if it keeps up.
  bool saturated = o.spin_us > 0 ? lag.p99 > 1000.0 : cpu_pct > 85.0 * threads;
  // Late sends, whatever the cause (own CPU, a busy machine), are inside the latency.
  bool behind = lag.p99 > kBehindLagUs;
  LatencySummary lat = Summarize(total.latency);
  bool show_latency = sustained || o.always_latency;

  if (o.json) {
    JsonObject j;
    j.Add("mode", "request")
        .Add("host", o.host)
        .Add("port", o.port)
        .Add("command", command->name())
        .Add("connections", o.connections)
        .Add("threads", threads)
        .Add("arrival", ArrivalName(o.arrival))
        .Add("duration_s", o.duration_s)
        .Add("warmup_s", o.warmup_s)
        .Add("spin_us", o.spin_us)
        .Add("asked_rate", o.rate)
        .Add("achieved_rate", achieved)
        .Add("achieved_share", share)
        .Add("sustained", sustained)
        .Add("requests", total.latency.count())
        .Add("errors", total.errors)
        .Add("unanswered", unanswered)
        .Add("conn_errors", conn_errors)
        .Add("sent", sent);
    if (show_latency) {
      j.AddLatency("latency_us", lat);
    } else {
      j.AddNull("latency_us");
    }
    j.AddLatency("send_lag_us", lag)
        .Add("loadgen_cpu_pct", cpu_pct)
        .Add("loadgen_saturated", saturated)
        .Add("loadgen_behind", behind)
        .Add("first_error", total.first_error)
        .Add("first_conn_error", first_conn_error);
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("hotkv-loadgen request mode: %s against %s:%d\n", command->name().c_str(),
                o.host.c_str(), o.port);
    std::printf("  %d connections, %d thread(s), %s arrivals, keyspace %llu, value %zu B\n",
                o.connections, threads, ArrivalName(o.arrival),
                static_cast<unsigned long long>(o.keyspace), o.value_size);
    std::printf("  asked      %.0f req/s for %.1f s (after %.1f s warm-up)\n", o.rate, o.duration_s,
                o.warmup_s);
    std::printf("  achieved   %.1f req/s (%.2f %% of asked) -> %s\n", achieved, share * 100,
                sustained ? "SUSTAINED" : "NOT SUSTAINED");
    std::printf("  requests   %llu measured, %llu errors, %llu unanswered, %llu conn errors\n",
                static_cast<unsigned long long>(total.latency.count()),
                static_cast<unsigned long long>(total.errors),
                static_cast<unsigned long long>(unanswered),
                static_cast<unsigned long long>(conn_errors));
    if (show_latency) {
      std::printf("  latency us %s%s\n", FormatLatencyLine(lat).c_str(),
                  sustained ? "" : "  (UNSUSTAINED STEP: not a valid figure)");
    } else {
      std::printf(
          "  latency    not reported: the step was not sustained (--always-latency shows "
          "it anyway)\n");
    }
    std::printf("  send lag us p99 %s  max %s (how late the generator sent vs schedule)\n",
                FormatUs(lag.p99).c_str(), FormatUs(lag.max).c_str());
    std::printf("  loadgen CPU %.1f %% of one core over %d thread(s)%s\n", cpu_pct, threads,
                saturated ? "  WARNING: generator saturated, figures are a floor" : "");
    if (behind) {
      std::printf(
          "  WARNING: the generator sent late (send lag p99 %s us > %.0f us); that delay is "
          "in the latency figures (busy machine or generator)\n",
          FormatUs(lag.p99).c_str(), kBehindLagUs);
    }
    if (!total.first_error.empty()) {
      std::printf("  first error reply: %s\n", total.first_error.c_str());
    }
    if (!first_conn_error.empty()) {
      std::printf("  first connection error: %s\n", first_conn_error.c_str());
    }
  }
  return sustained ? 0 : 1;
}

}  // namespace hotkv::loadgen

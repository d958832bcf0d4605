// Pub/sub mode: delivery latency at a fixed DELIVERY rate.
//
// Subscriber j subscribes to channel j % K. Publisher p sends its k-th message to
// channel (p + k * P) % K, which gives every channel the same publish rate, so the
// delivery rate is publish_rate * M / K; the asked --rate D is a delivery rate and the
// publish rate is derived from it: D * K / M.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "command_builder.h"
#include "modes.h"
#include "net.h"
#include "pubsub_payload.h"
#include "report.h"
#include "worker.h"

namespace hotkv::loadgen {
namespace {

constexpr int kPublisher = 1;
constexpr int kSubscriber = 2;

// Totals every worker updates, so each can tell when all deliveries have arrived.
struct SharedCounts {
  std::atomic<uint64_t> outstanding_publishes{0};
  std::atomic<uint64_t> expected{0};  // sum of PUBLISH replies (receivers)
  std::atomic<uint64_t> delivered{0};
};

struct Plan {
  int publishers = 0;
  int channels = 0;
  size_t payload = 0;
  std::vector<std::string> names;    // per channel
  std::vector<std::string> headers;  // per channel: "*3 PUBLISH <channel> $<payload>"
};

// Per-thread results, summed after the run.
struct PubsubCounts {
  uint64_t window_publishes = 0;        // publishes intended in the window
  uint64_t window_publish_replies = 0;  // PUBLISH replies received in the window
  uint64_t window_expected = 0;         // receivers of the publishes intended in the window
  uint64_t window_delivered = 0;        // deliveries of messages intended in the window
  uint64_t window_received = 0;         // deliveries received in the window
  uint64_t publish_errors = 0;
  uint64_t reordered = 0;  // a sequence number at or below one already seen
  uint64_t gaps = 0;       // sequence numbers skipped (lost, or reordered later)
  uint64_t wrong_channel = 0;
  uint64_t bad_payloads = 0;
  uint64_t other_pushes = 0;
  std::string first_error;

  void Add(const PubsubCounts& o) {
    window_publishes += o.window_publishes;
    window_publish_replies += o.window_publish_replies;
    window_expected += o.window_expected;
    window_delivered += o.window_delivered;
    window_received += o.window_received;
    publish_errors += o.publish_errors;
    reordered += o.reordered;
    gaps += o.gaps;
    wrong_channel += o.wrong_channel;
    bad_payloads += o.bad_payloads;
    other_pushes += o.other_pushes;
    if (first_error.empty()) {
      first_error = o.first_error;
    }
  }
};

// Thread safety: one per worker thread; SharedCounts are atomics.
class PubsubDriver : public Driver {
 public:
  struct Publisher {
    uint32_t id = 0;
    uint64_t sent = 0;
  };
  struct Subscriber {
    int channel = 0;
    std::vector<int64_t> last_seq;  // per publisher, -1 = nothing yet
  };

  PubsubDriver(const Plan* plan, MeasureWindow window, SharedCounts* shared)
      : plan_(plan), window_(window), shared_(shared) {}

  size_t AddPublisher(uint32_t id) {
    publishers_.push_back({id, 0});
    return publishers_.size() - 1;
  }
  size_t AddSubscriber(int channel) {
    subscribers_.push_back({channel, std::vector<int64_t>(plan_->publishers, -1)});
    return subscribers_.size() - 1;
  }

  void AppendRequest(Conn& conn, uint64_t intended_ns) override {
    Publisher& p = publishers_[conn.slot];
    PublishTarget target = TargetOf(p.id, p.sent++, plan_->publishers, plan_->channels);
    conn.out.append(plan_->headers[target.channel]);
    AppendPayload({intended_ns, p.id, target.seq}, plan_->payload, conn.out);
    conn.out.append("\r\n");
    shared_->outstanding_publishes.fetch_add(1, std::memory_order_relaxed);
  }

  int OnReply(Conn& conn, const RespReply& reply, uint64_t intended_ns, uint64_t recv_ns) override {
    if (conn.role == kPublisher) {
      OnPublishReply(reply, intended_ns, recv_ns);
    } else {
      OnPush(subscribers_[conn.slot], reply, recv_ns);
    }
    return 0;
  }

  bool Done(uint64_t now_ns, uint64_t inflight) override {
    return now_ns >= window_.t1 &&
           shared_->outstanding_publishes.load(std::memory_order_relaxed) == 0 &&
           shared_->delivered.load(std::memory_order_relaxed) >=
               shared_->expected.load(std::memory_order_relaxed);
  }

  // Results (read after the worker thread is joined).
  const Histogram& latency() const { return latency_; }
  const PubsubCounts& counts() const { return counts_; }

 private:
  void OnPublishReply(const RespReply& reply, uint64_t intended_ns, uint64_t recv_ns) {
    shared_->outstanding_publishes.fetch_sub(1, std::memory_order_relaxed);
    if (reply.type != ':') {
      ++counts_.publish_errors;
      if (counts_.first_error.empty() && reply.num_items > 0) {
        counts_.first_error = std::string(reply.items[0]);
      }
      return;
    }
    auto receivers = static_cast<uint64_t>(std::max<int64_t>(0, reply.number));
    shared_->expected.fetch_add(receivers, std::memory_order_relaxed);
    if (window_.Contains(intended_ns)) {
      ++counts_.window_publishes;
      counts_.window_expected += receivers;
    }
    if (window_.Contains(recv_ns)) {
      ++counts_.window_publish_replies;
    }
  }

  void OnPush(Subscriber& sub, const RespReply& reply, uint64_t recv_ns) {
    if (reply.type != '*' || reply.num_items < 3 || reply.items[0] != "message") {
      ++counts_.other_pushes;
      return;
    }
    std::optional<PayloadStamp> stamp = ParsePayload(reply.items[2]);
    if (!stamp || stamp->publisher >= static_cast<uint32_t>(plan_->publishers)) {
      ++counts_.bad_payloads;
      return;
    }
    shared_->delivered.fetch_add(1, std::memory_order_relaxed);
    if (reply.items[1] != ChannelName(sub.channel)) {
      ++counts_.wrong_channel;
    }
    if (window_.Contains(stamp->intended_ns)) {
      ++counts_.window_delivered;
      latency_.Record(recv_ns > stamp->intended_ns ? recv_ns - stamp->intended_ns : 0);
    }
    if (window_.Contains(recv_ns)) {
      ++counts_.window_received;
    }
    int64_t& last = sub.last_seq[stamp->publisher];
    auto seq = static_cast<int64_t>(stamp->seq);
    if (seq <= last) {
      ++counts_.reordered;
    } else {
      counts_.gaps += static_cast<uint64_t>(seq - last - 1);
      last = seq;
    }
  }

  std::string_view ChannelName(int channel) const { return plan_->names[channel]; }

  const Plan* plan_;
  MeasureWindow window_;
  SharedCounts* shared_;
  std::vector<Publisher> publishers_;
  std::vector<Subscriber> subscribers_;
  Histogram latency_;  // deliveries of messages intended in the window
  PubsubCounts counts_;
};

// Subscribes each connection to its channel and waits for the confirmations.
std::string Subscribe(const std::vector<int>& fds, const std::vector<std::string>& names) {
  for (size_t j = 0; j < fds.size(); ++j) {
    std::string cmd = EncodeCommand({"SUBSCRIBE", names[j % names.size()]});
    if (!SendAll(fds[j], cmd)) {
      return "SUBSCRIBE: send failed";
    }
  }
  for (int fd : fds) {
    RespScanner scanner(true);
    bool confirmed = false;
    bool ok = ReadReplies(fd, scanner, 1, 5000, [&](const RespReply& r) {
      confirmed = r.type == '*' && r.num_items >= 1 && r.items[0] == "subscribe";
    });
    if (!ok || !confirmed) {
      return "SUBSCRIBE was not confirmed";
    }
  }
  return "";
}

}  // namespace

int RunPubsubMode(const Options& o) {
  const int pubs = o.publishers;
  const int subs = o.subscribers;
  const int chans = o.channels;
  Plan plan;
  plan.publishers = pubs;
  plan.channels = chans;
  plan.payload = o.payload;
  std::vector<std::string>& names = plan.names;
  for (int c = 0; c < chans; ++c) {
    names.push_back(o.channel_prefix + std::to_string(c));
    std::string header = "*3\r\n$7\r\nPUBLISH\r\n";
    AppendBulkHeader(names.back().size(), header);
    header += names.back() + "\r\n";
    AppendBulkHeader(o.payload, header);
    plan.headers.push_back(header);
  }
  ConnectManyResult sub_fds = ConnectMany(o.host, o.port, subs);
  if (sub_fds.fds.empty()) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n", sub_fds.error.c_str());
    return 2;
  }
  ConnectManyResult pub_fds = ConnectMany(o.host, o.port, pubs);
  if (pub_fds.fds.empty()) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n", pub_fds.error.c_str());
    return 2;
  }
  // ConnectMany made the sockets non-blocking; the set-up exchange polls, so it works.
  if (std::string err = Subscribe(sub_fds.fds, names); !err.empty()) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n", err.c_str());
    return 2;
  }

  double subs_per_channel = static_cast<double>(subs) / chans;
  double publish_rate = o.rate / subs_per_channel;
  int threads = std::min(o.threads, pubs + subs);
  uint64_t start = NowNs() + 50 * kNsPerMs;
  MeasureWindow window{start + static_cast<uint64_t>(o.warmup_s * 1e9), 0};
  window.t1 = window.t0 + static_cast<uint64_t>(o.duration_s * 1e9);
  WorkerTimes times{window.t0, window.t1, window.t1 + static_cast<uint64_t>(o.drain_s * 1e9),
                    static_cast<uint64_t>(o.spin_us * 1e3)};
  SharedCounts shared;
  std::vector<std::unique_ptr<PubsubDriver>> drivers;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    drivers.push_back(std::make_unique<PubsubDriver>(&plan, window, &shared));
    workers.push_back(std::make_unique<Worker>(drivers.back().get(), times));
  }
  // Interleave publishers and subscribers over the threads.
  for (int j = 0; j < subs; ++j) {
    int t = j % threads;
    Conn& conn = workers[t]->AddConn(sub_fds.fds[j], true);
    conn.role = kSubscriber;
    conn.slot = drivers[t]->AddSubscriber(j % chans);
  }
  for (int p = 0; p < pubs; ++p) {
    int t = (subs + p) % threads;
    Conn& conn = workers[t]->AddConn(pub_fds.fds[p], false);
    conn.role = kPublisher;
    conn.slot = drivers[t]->AddPublisher(static_cast<uint32_t>(p));
    conn.scheduled = true;
    conn.schedule = RateScheduler(start, publish_rate / pubs, static_cast<double>(p) / pubs,
                                  o.arrival, o.seed * 1000003ULL + p);
  }

  uint64_t cpu_ns = RunWorkerThreads(workers, window.t0, window.t1);

  Histogram latency;
  Histogram send_lag;
  PubsubCounts total;
  uint64_t unanswered = 0, conn_errors = 0;
  std::string first_conn_error;
  for (int t = 0; t < threads; ++t) {
    latency.Merge(drivers[t]->latency());
    total.Add(drivers[t]->counts());
    const WorkerStats& s = workers[t]->stats();
    send_lag.Merge(s.send_lag);
    unanswered += s.unanswered;
    conn_errors += s.conn_errors;
    if (first_conn_error.empty()) {
      first_conn_error = s.first_conn_error;
    }
  }
  double secs = window.seconds();
  double achieved = static_cast<double>(total.window_received) / secs;
  double achieved_publish = static_cast<double>(total.window_publish_replies) / secs;
  double share = achieved / o.rate;
  uint64_t lost = total.window_expected > total.window_delivered
                      ? total.window_expected - total.window_delivered
                      : 0;
  uint64_t extra = total.window_delivered > total.window_expected
                       ? total.window_delivered - total.window_expected
                       : 0;
  bool sustained = share >= kSustainedShare && lost == 0 && unanswered == 0 && conn_errors == 0 &&
                   total.publish_errors == 0;
  double cpu_pct = static_cast<double>(cpu_ns) / (secs * 1e9) * 100.0;
  LatencySummary lag = Summarize(send_lag);
  // A spinning generator is always busy; then only its send lag tells if it keeps up.
  bool saturated = o.spin_us > 0 ? lag.p99 > 1000.0 : cpu_pct > 85.0 * threads;
  // Late sends, whatever the cause (own CPU, a busy machine), are inside the latency.
  bool behind = lag.p99 > kBehindLagUs;
  LatencySummary lat = Summarize(latency);
  bool show_latency = sustained || o.always_latency;

  if (o.json) {
    JsonObject j;
    j.Add("mode", "pubsub")
        .Add("host", o.host)
        .Add("port", o.port)
        .Add("publishers", pubs)
        .Add("subscribers", subs)
        .Add("channels", chans)
        .Add("subscribers_per_channel", subs_per_channel)
        .Add("payload", static_cast<uint64_t>(o.payload))
        .Add("threads", threads)
        .Add("arrival", ArrivalName(o.arrival))
        .Add("duration_s", o.duration_s)
        .Add("warmup_s", o.warmup_s)
        .Add("spin_us", o.spin_us)
        .Add("asked_delivery_rate", o.rate)
        .Add("asked_publish_rate", publish_rate)
        .Add("achieved_delivery_rate", achieved)
        .Add("achieved_publish_rate", achieved_publish)
        .Add("achieved_share", share)
        .Add("sustained", sustained)
        .Add("publishes", total.window_publishes)
        .Add("expected_deliveries", total.window_expected)
        .Add("deliveries", total.window_delivered)
        .Add("lost", lost)
        .Add("extra_deliveries", extra)
        .Add("reordered", total.reordered)
        .Add("sequence_gaps", total.gaps)
        .Add("wrong_channel", total.wrong_channel)
        .Add("bad_payloads", total.bad_payloads)
        .Add("publish_errors", total.publish_errors)
        .Add("unanswered_publishes", unanswered)
        .Add("conn_errors", conn_errors);
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
    std::printf("hotkv-loadgen pubsub mode against %s:%d\n", o.host.c_str(), o.port);
    std::printf(
        "  %d publishers, %d subscribers, %d channel(s) (%.2f subscribers/channel), "
        "payload %zu B, %d thread(s), %s arrivals\n",
        pubs, subs, chans, subs_per_channel, o.payload, threads,
        ArrivalName(o.arrival));
    std::printf(
        "  asked      %.0f deliveries/s (= %.1f publishes/s x %.2f subscribers/channel) "
        "for %.1f s (after %.1f s warm-up)\n",
        o.rate, publish_rate, subs_per_channel, o.duration_s, o.warmup_s);
    std::printf("  achieved   %.1f deliveries/s (%.2f %% of asked), %.1f publishes/s -> %s\n",
                achieved, share * 100, achieved_publish, sustained ? "SUSTAINED" : "NOT SUSTAINED");
    auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf(
        "  messages   %llu published, %llu expected deliveries (sum of PUBLISH replies), "
        "%llu delivered, %llu lost, %llu extra\n",
        u(total.window_publishes), u(total.window_expected), u(total.window_delivered), u(lost),
        u(extra));
    std::printf(
        "  order      %llu reordered, %llu sequence gaps, %llu wrong channel, %llu bad "
        "payloads (per publisher and channel, at each subscriber)\n",
        u(total.reordered), u(total.gaps), u(total.wrong_channel), u(total.bad_payloads));
    std::printf("  errors     %llu publish errors, %llu unanswered publishes, %llu conn errors\n",
                u(total.publish_errors), u(unanswered), u(conn_errors));
    if (show_latency) {
      std::printf("  latency us %s%s\n", FormatLatencyLine(lat).c_str(),
                  sustained ? "" : "  (UNSUSTAINED STEP: not a valid figure)");
    } else {
      std::printf(
          "  latency    not reported: the step was not sustained (--always-latency shows "
          "it anyway)\n");
    }
    std::printf("  send lag us p99 %s  max %s (how late publishes left vs schedule)\n",
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

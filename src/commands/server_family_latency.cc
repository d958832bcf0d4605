// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM / HELP over the runtime's
// latency monitor (server/latency.h) and the workers' per-command histograms.
// Replies and texts as Redis 8.8's; DOCTOR's report is Redis's general part (spikes per
// event and the slow-log advice), without its per-event advice beyond that.
#include <cmath>
#include <cstdio>
#include <ctime>

#include "commands/helpers.h"
#include "commands/register.h"
#include "common/string_util.h"
#include "server/command_context.h"
#include "server/server.h"

namespace hotkv {

namespace {

using Series = LatencyMonitor::Series;
constexpr int kN = LatencyMonitor::kSamples;

// The used samples of a series, oldest first.
std::vector<LatencyMonitor::Sample> Samples(const Series& ts) {
  std::vector<LatencyMonitor::Sample> out;
  for (int j = 0; j < kN; j++) {
    const auto& s = ts.samples[(ts.idx + j) % kN];
    if (s.time != 0) {
      out.push_back(s);
    }
  }
  return out;
}

void LatencyLatestCommand(CommandContext& ctx) {
  auto all = ctx.server().latency().Snapshot();
  ctx.rb().Array(all.size());
  for (const auto& [name, ts] : all) {
    const auto& last = ts.samples[(ts.idx + kN - 1) % kN];
    ctx.rb().Array(4);
    ctx.rb().Bulk(name);
    ctx.rb().Integer(last.time);
    ctx.rb().Integer(last.latency);
    ctx.rb().Integer(ts.max);
  }
}

void LatencyHistoryCommand(CommandContext& ctx) {
  Series ts;
  if (!ctx.server().latency().Get(std::string(ctx.arg(2)), &ts)) {
    return ctx.rb().Array(0);
  }
  auto samples = Samples(ts);
  ctx.rb().Array(samples.size());
  for (const auto& s : samples) {
    ctx.rb().Array(2);
    ctx.rb().Integer(s.time);
    ctx.rb().Integer(s.latency);
  }
}

void LatencyResetCommand(CommandContext& ctx) {
  std::vector<std::string> events;
  for (size_t i = 2; i < ctx.argc(); i++) {
    events.emplace_back(ctx.arg(i));
  }
  ctx.rb().Integer(ctx.server().latency().Reset(events));
}

// Redis's sparkline (4 rows, filled, labels under each column), 80 columns per block.
std::string Sparkline(const std::vector<double>& values, const std::vector<std::string>& labels,
                      double min, double max) {
  static const char kFill[] = "_o#";
  constexpr int kCharsetLen = 3, kRows = 4, kCols = 80, kLabelMarginTop = 1;
  std::string out;
  const int length = static_cast<int>(values.size());
  for (int offset = 0; offset < length; offset += kCols) {
    const int len = std::min(kCols, length - offset);
    if (offset != 0) {
      out += '\n';
    }
    double relmax = max - min;
    if (relmax == 0) {
      relmax = 1;
    }
    const int steps = kCharsetLen * kRows;
    for (int row = 0;; row++) {
      bool loop = false;
      std::string chars(static_cast<size_t>(len), ' ');
      for (int j = 0; j < len; j++) {
        const double relval = values[static_cast<size_t>(j + offset)] - min;
        int step = static_cast<int>(relval * steps / relmax);
        step = std::clamp(step, 0, steps - 1);
        if (row < kRows) {
          const int charidx = step - (kRows - row - 1) * kCharsetLen;
          loop = true;
          if (charidx >= 0 && charidx < kCharsetLen) {
            chars[static_cast<size_t>(j)] = kFill[charidx];
          } else if (charidx >= kCharsetLen) {
            chars[static_cast<size_t>(j)] = '|';
          }
        } else {
          if (row - kRows < kLabelMarginTop) {
            loop = true;
            break;
          }
          const std::string& label = labels[static_cast<size_t>(j + offset)];
          const int label_char = row - kRows - kLabelMarginTop;
          if (static_cast<int>(label.size()) > label_char) {
            loop = true;
            chars[static_cast<size_t>(j)] = label[static_cast<size_t>(label_char)];
          }
        }
      }
      if (!loop) {
        break;
      }
      out += chars;
      out += '\n';
    }
  }
  return out;
}

void LatencyGraphCommand(CommandContext& ctx) {
  const std::string event(ctx.arg(2));
  Series ts;
  if (!ctx.server().latency().Get(event, &ts)) {
    return ctx.rb().Error("ERR No samples available for event '" + event + "'");
  }
  const int64_t now = static_cast<int64_t>(time(nullptr));
  std::vector<double> values;
  std::vector<std::string> labels;
  uint32_t min = 0, max = 0;
  for (const auto& s : Samples(ts)) {
    if (values.empty()) {
      min = max = s.latency;
    } else {
      max = std::max(max, s.latency);
      min = std::min(min, s.latency);
    }
    const int64_t elapsed = now - s.time;
    char buf[32];
    if (elapsed < 60) {
      snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(elapsed));
    } else if (elapsed < 3600) {
      snprintf(buf, sizeof(buf), "%lldm", static_cast<long long>(elapsed / 60));
    } else if (elapsed < 3600 * 24) {
      snprintf(buf, sizeof(buf), "%lldh", static_cast<long long>(elapsed / 3600));
    } else {
      snprintf(buf, sizeof(buf), "%lldd", static_cast<long long>(elapsed / (3600 * 24)));
    }
    values.push_back(s.latency);
    labels.emplace_back(buf);
  }
  char head[256];
  snprintf(head, sizeof(head), "%s - high %lu ms, low %lu ms (all time high %lu ms)\n",
           event.c_str(), static_cast<unsigned long>(max), static_cast<unsigned long>(min),
           static_cast<unsigned long>(ts.max));
  std::string graph = head;
  graph.append(80, '-');
  graph += '\n';
  graph += Sparkline(values, labels, min, max);
  ctx.rb().Verbatim(graph);
}

void LatencyDoctorCommand(CommandContext& ctx) {
  auto all = ctx.server().latency().Snapshot();
  const int64_t threshold = ctx.server().config().latency_monitor_threshold();
  std::string report;
  if (all.empty()) {
    if (threshold == 0) {
      report =
          "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
          "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
          "order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
          "at https://redis.io/docs/latest/operate/oss_and_stack/management/optimization/"
          "latency-monitor.\n";
    } else {
      report =
          "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
          "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
          "pill, and think things over.\n";
    }
    return ctx.rb().Verbatim(report);
  }
  report =
      "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
      "about it, do you Dave?\n\n";
  const int64_t now = static_cast<int64_t>(time(nullptr));
  int n = 0;
  bool advise_slowlog = false;
  for (const auto& [name, ts] : all) {
    auto samples = Samples(ts);
    if (samples.empty()) {
      continue;
    }
    uint64_t sum = 0;
    int64_t oldest = samples.front().time;
    for (const auto& s : samples) {
      sum += s.latency;
      oldest = std::min(oldest, s.time);
    }
    const uint64_t avg = sum / samples.size();
    uint64_t dev = 0;
    for (const auto& s : samples) {
      dev += static_cast<uint64_t>(std::llabs(static_cast<long long>(s.latency) -
                                              static_cast<long long>(avg)));
    }
    const uint64_t mad = dev / samples.size();
    int64_t period = now - oldest;
    if (period == 0) {
      period = 1;
    }
    char line[512];
    snprintf(line, sizeof(line),
             "%d. %s: %d latency spikes (average %lums, mean deviation %lums, period %.2f sec). "
             "Worst all time event %lums.\n",
             ++n, name.c_str(), static_cast<int>(samples.size()), static_cast<unsigned long>(avg),
             static_cast<unsigned long>(mad),
             static_cast<double>(period) / static_cast<double>(samples.size()),
             static_cast<unsigned long>(ts.max));
    report += line;
    if (name == "command" || name == "fast-command") {
      advise_slowlog = true;
    }
  }
  report += "\nI have a few advices for you:\n\n";
  const int64_t slower = ctx.server().config().slowlog_log_slower_than();
  if (advise_slowlog && slower / 1000 > threshold) {
    report += "- Your current Slow Log configuration only logs events that are slower than your "
              "configured latency monitor threshold. Please use 'CONFIG SET "
              "slowlog-log-slower-than " +
              std::to_string(threshold * 1000) + "'.\n";
  }
  if (advise_slowlog) {
    report += "- Check your Slow Log to understand what are the commands you are running which "
              "are too slow to execute. Please check https://redis.io/commands/slowlog for more "
              "information.\n";
  }
  report += "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
            "blocking operation. If you have very large objects that are often deleted, "
            "expired, or evicted, try to fragment those objects into multiple smaller "
            "objects.\n";
  ctx.rb().Verbatim(report);
}

// One command's histogram summed over the workers; false when it has no sample.
bool CommandHistogram(Server& s, const CommandSpec* cmd, uint64_t* calls,
                      uint64_t (&buckets)[kLatencyBuckets]) {
  *calls = 0;
  for (auto& b : buckets) {
    b = 0;
  }
  for (int w = 0; w < s.num_workers(); w++) {
    const CommandStats& st = s.worker(w).command_stats()[cmd->id];
    for (int k = 0; k < kLatencyBuckets; k++) {
      const uint64_t v = st.latency_hist[k].load(std::memory_order_relaxed);
      buckets[k] += v;
      *calls += v;
    }
  }
  return *calls > 0;
}

// LATENCY HISTOGRAM [command ...]: a map of command full name -> {calls, histogram_usec:
// {bucket bound in us -> cumulative calls}}, buckets without new calls left out.
void LatencyHistogramCommand(CommandContext& ctx) {
  std::vector<const CommandSpec*> cmds;
  auto add_with_subs = [&cmds](const CommandSpec* c) {
    cmds.push_back(c);
    for (const auto& sub : c->subcommands) {
      cmds.push_back(sub.get());
    }
  };
  if (ctx.argc() == 2) {
    for (const auto& c : ctx.server().commands().all()) {
      add_with_subs(c.get());
    }
  } else {
    for (size_t i = 2; i < ctx.argc(); i++) {
      std::string_view name = ctx.arg(i);
      const CommandSpec* c = nullptr;
      if (size_t bar = name.find('|'); bar != std::string_view::npos) {
        const CommandSpec* parent = ctx.server().commands().Find(name.substr(0, bar));
        c = parent != nullptr ? parent->FindSub(name.substr(bar + 1)) : nullptr;
        if (c != nullptr) {
          cmds.push_back(c);
        }
      } else if ((c = ctx.server().commands().Find(name)) != nullptr) {
        add_with_subs(c);
      }
    }
  }
  struct Row {
    const CommandSpec* cmd;
    uint64_t calls;
    uint64_t buckets[kLatencyBuckets];
  };
  std::vector<Row> rows;
  for (const CommandSpec* c : cmds) {
    Row r{c, 0, {}};
    if (CommandHistogram(ctx.server(), c, &r.calls, r.buckets)) {
      rows.push_back(r);
    }
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Map(rows.size());
  for (const Row& r : rows) {
    rb.Bulk(r.cmd->full_name);
    rb.Map(2);
    rb.Bulk("calls");
    rb.Integer(static_cast<int64_t>(r.calls));
    rb.Bulk("histogram_usec");
    size_t used = 0;
    for (uint64_t b : r.buckets) {
      used += b != 0;
    }
    rb.Map(used);
    uint64_t cumulative = 0;
    for (int k = 0; k < kLatencyBuckets; k++) {
      if (r.buckets[k] == 0) {
        continue;
      }
      cumulative += r.buckets[k];
      rb.Integer(LatencyBucketUsec(k));
      rb.Integer(static_cast<int64_t>(cumulative));
    }
  }
}

void LatencyHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace

void RegisterLatencyCommands(CommandTable& t) {
  t.Add({.name = "latency", .arity = -2, .acl = "@slow",
         .doc = {"server", "2.8.13", "Depends on subcommand.", "A container for latency diagnostics commands.", ""}});
  const char* kFlags = "admin noscript loading stale";
  const char* kAcl = "@admin @slow @dangerous";
  auto sub = [&t](CommandDef d) { t.AddSub("latency", std::move(d)); };
  sub({.name = "latest", .arity = 2, .flags = kFlags, .acl = kAcl, .handler = LatencyLatestCommand,
       .doc = {"server", "2.8.13", "O(1)", "Returns the latest latency sample of every event.", ""},
       .tips = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}});
  sub({.name = "history", .arity = 3, .flags = kFlags, .acl = kAcl, .handler = LatencyHistoryCommand,
       .doc = {"server", "2.8.13", "O(1)", "Returns the time and latency samples of an event.", "event"},
       .tips = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}});
  sub({.name = "reset", .arity = -2, .flags = kFlags, .acl = kAcl, .handler = LatencyResetCommand,
       .doc = {"server", "2.8.13", "O(1)", "Forgets the samples of some events, or of all.", "[event [event ...]]"},
       .tips = {"request_policy:all_nodes", "response_policy:agg_sum"}});
  sub({.name = "doctor", .arity = 2, .flags = kFlags, .acl = kAcl, .handler = LatencyDoctorCommand,
       .doc = {"server", "2.8.13", "O(1)", "Returns a report on the latency events seen.", ""},
       .tips = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}});
  sub({.name = "graph", .arity = 3, .flags = kFlags, .acl = kAcl, .handler = LatencyGraphCommand,
       .doc = {"server", "2.8.13", "O(1)", "Draws an event's latency samples as an ASCII graph.", "event"},
       .tips = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}});
  sub({.name = "histogram", .arity = -2, .flags = kFlags, .acl = kAcl, .handler = LatencyHistogramCommand,
       .doc = {"server", "7.0.0", "O(N) where N is the number of commands with latency information being retrieved.",
               "Returns the latency histograms of some commands, or of all that ran.", "[COMMAND:string [COMMAND:string ...]]"},
       .tips = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"}});
  sub({.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow", .handler = LatencyHelpCommand,
       .doc = {"server", "2.8.13", "O(1)", "Returns helpful text about LATENCY.", ""}});
}

}  // namespace hotkv

#include "options.h"

#include <charconv>
#include <functional>
#include <map>

#include "pubsub_payload.h"

namespace hotkv::loadgen {
namespace {

template <typename T>
bool ParseNumber(const std::string& text, T& out) {
  const char* first = text.data();
  const char* last = first + text.size();
  auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last;
}

// Accepts plain integers and the shorthands 10k / 2m (x1000 / x1,000,000).
bool ParseCount(const std::string& text, uint64_t& out) {
  std::string digits = text;
  uint64_t scale = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) {
    scale = 1000;
    digits.pop_back();
  } else if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) {
    scale = 1'000'000;
    digits.pop_back();
  }
  uint64_t v = 0;
  if (!ParseNumber(digits, v)) {
    return false;
  }
  out = v * scale;
  return true;
}

bool ParseRate(const std::string& text, double& out) {
  uint64_t count = 0;
  if (ParseCount(text, count)) {
    out = static_cast<double>(count);
    return true;
  }
  return ParseNumber(text, out);
}

std::string Validate(const Options& o) {
  if (o.port <= 0 || o.port > 65535) {
    return "--port must be in 1..65535";
  }
  if (o.threads < 1) {
    return "--threads must be >= 1";
  }
  if (o.mode != Mode::kPubsub && o.connections < 1) {
    return "--connections must be >= 1";
  }
  if (o.mode != Mode::kLoad) {
    if (o.rate <= 0) {
      return "--rate must be > 0";
    }
    if (o.duration_s <= 0 || o.warmup_s < 0 || o.drain_s < 0 || o.spin_us < 0) {
      return "--duration must be > 0, --warmup, --drain and --spin-us >= 0";
    }
  }
  if (o.mode == Mode::kRequest && o.keyspace < 1) {
    return "--keyspace must be >= 1";
  }
  if (o.mode == Mode::kLoad && o.pipeline < 1) {
    return "--pipeline must be >= 1";
  }
  if (o.mode == Mode::kPubsub && o.arrival == Arrival::kBursty) {
    return "--arrival bursty is a request-mode option";
  }
  if (o.mode == Mode::kPubsub) {
    if (o.publishers < 1 || o.subscribers < 1 || o.channels < 1) {
      return "--publishers, --subscribers and --channels must be >= 1";
    }
    if (o.channels > o.subscribers) {
      return "--channels must not exceed --subscribers (every channel needs a subscriber)";
    }
    if (o.payload < kMaxStampSize) {
      return "--payload must be >= " + std::to_string(kMaxStampSize) + " bytes (the stamp)";
    }
  }
  return "";
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kRequest:
      return "request";
    case Mode::kLoad:
      return "load";
    case Mode::kPubsub:
      return "pubsub";
  }
  return "?";
}

std::string UsageText() {
  return R"(hotkv-loadgen: open-loop RESP load generator (latency from intended send times)

Request mode (default):
  hotkv-loadgen --rate R [--connections 50] [--duration 10] [--warmup 1] [--threads 1]
                [--command get|set|incr|ping|custom --template 'CMD __key__ __value__']
                [--keyspace 1000000] [--key-prefix key:] [--value-size 256]
                [--arrival uniform|poisson|bursty] [--drain 5] [--spin-us 0] [--json]
  (bursty: closed loop, each connection sends at rate/connections once its previous reply
   is in, all connections in phase; latency from the actual send)
Load mode (preload N keys: SET <prefix><i> <value>, i in [0, N)):
  hotkv-loadgen --load N [--connections 50] [--pipeline 64] [--threads 1]
                [--key-prefix key:] [--value-size 256] [--json]
Pub/sub latency mode (--rate is the DELIVERY rate, deliveries/s over all subscribers):
  hotkv-loadgen --mode pubsub --rate D [--publishers 64] [--subscribers 100]
                [--channels 1] [--payload 128] [--duration 10] [--warmup 1]
                [--arrival uniform|poisson] [--drain 5] [--spin-us 0] [--json]
Common: --host 127.0.0.1 --port 6379 --seed 1 --always-latency --help
Counts and rates accept k/m suffixes (50k, 1m).
)";
}

ParseResult ParseOptions(const std::vector<std::string>& args) {
  ParseResult result;
  Options o;
  bool mode_set = false;
  using Setter = std::function<bool(const std::string&)>;
  auto count_to = [](auto& field) {
    return [&field](const std::string& v) {
      uint64_t n = 0;
      if (!ParseCount(v, n)) {
        return false;
      }
      field = static_cast<std::remove_reference_t<decltype(field)>>(n);
      return true;
    };
  };
  auto number_to = [](double& field) {
    return [&field](const std::string& v) { return ParseNumber(v, field); };
  };
  auto string_to = [](std::string& field) {
    return [&field](const std::string& v) {
      field = v;
      return true;
    };
  };
  std::map<std::string, Setter> valued = {
      {"host", string_to(o.host)},
      {"port", count_to(o.port)},
      {"threads", count_to(o.threads)},
      {"connections", count_to(o.connections)},
      {"rate", [&o](const std::string& v) { return ParseRate(v, o.rate); }},
      {"duration", number_to(o.duration_s)},
      {"warmup", number_to(o.warmup_s)},
      {"drain", number_to(o.drain_s)},
      {"spin-us", number_to(o.spin_us)},
      {"seed", count_to(o.seed)},
      {"command", string_to(o.command)},
      {"template", string_to(o.command_template)},
      {"keyspace", count_to(o.keyspace)},
      {"key-prefix", string_to(o.key_prefix)},
      {"value-size", count_to(o.value_size)},
      {"load", count_to(o.load_keys)},
      {"pipeline", count_to(o.pipeline)},
      {"timeout", number_to(o.load_timeout_s)},
      {"publishers", count_to(o.publishers)},
      {"subscribers", count_to(o.subscribers)},
      {"channels", count_to(o.channels)},
      {"payload", count_to(o.payload)},
      {"channel-prefix", string_to(o.channel_prefix)},
      {"arrival",
       [&o](const std::string& v) {
         if (v == "uniform") {
           o.arrival = Arrival::kUniform;
         } else if (v == "poisson") {
           o.arrival = Arrival::kPoisson;
         } else if (v == "bursty") {
           o.arrival = Arrival::kBursty;
         } else {
           return false;
         }
         return true;
       }},
      {"mode",
       [&o, &mode_set](const std::string& v) {
         mode_set = true;
         if (v == "request") {
           o.mode = Mode::kRequest;
         } else if (v == "load") {
           o.mode = Mode::kLoad;
         } else if (v == "pubsub") {
           o.mode = Mode::kPubsub;
         } else {
           return false;
         }
         return true;
       }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-h" || arg == "--help") {
      result.help = true;
      return result;
    }
    if (arg.rfind("--", 0) != 0) {
      result.error = "unexpected argument '" + arg + "'";
      return result;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "json" || name == "always-latency") {
      (name == "json" ? o.json : o.always_latency) = true;
      continue;
    }
    auto it = valued.find(name);
    if (it == valued.end()) {
      result.error = "unknown option --" + name;
      return result;
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        result.error = "--" + name + " needs a value";
        return result;
      }
      value = args[++i];
    }
    if (!it->second(*value)) {
      result.error = "bad value '" + *value + "' for --" + name;
      return result;
    }
  }
  if (o.load_keys > 0 && !mode_set) {
    o.mode = Mode::kLoad;
  }
  if (o.mode == Mode::kLoad && o.load_keys == 0) {
    result.error = "load mode needs --load N (N > 0)";
    return result;
  }
  if (std::string err = Validate(o); !err.empty()) {
    result.error = err;
    return result;
  }
  result.options = o;
  return result;
}

}  // namespace hotkv::loadgen

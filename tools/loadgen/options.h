// Command-line options of hotkv-loadgen (see UsageText() and README.md).
//
// Thread safety: Options is a plain value; parsing is a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rate_scheduler.h"

namespace hotkv::loadgen {

enum class Mode { kRequest, kLoad, kPubsub };

struct Options {
  Mode mode = Mode::kRequest;
  std::string host = "127.0.0.1";
  int port = 6379;
  int threads = 1;
  int connections = 50;
  double rate = 0;  // request mode: requests/s; pubsub mode: DELIVERIES/s
  double duration_s = 10;
  double warmup_s = 1;
  double drain_s = 5;  // how long to wait for outstanding replies after the last send
  Arrival arrival = Arrival::kUniform;
  bool json = false;
  bool always_latency = false;  // print latency even for an unsustained step
  double spin_us = 0;           // busy-poll window (see Worker); 0 = sleep between sends
  uint64_t seed = 1;

  // Request and load mode.
  std::string command = "get";   // get|set|incr|ping, "custom" (+ --template) or a template
  std::string command_template;  // e.g. "HSET h __key__ __value__"
  uint64_t keyspace = 1'000'000;
  std::string key_prefix = "key:";
  size_t value_size = 256;

  // Load mode.
  uint64_t load_keys = 0;
  int pipeline = 64;
  double load_timeout_s = 600;

  // Pub/sub mode.
  int publishers = 64;
  int subscribers = 100;
  int channels = 1;
  size_t payload = 128;
  std::string channel_prefix = "loadgen:ch:";
};

struct ParseResult {
  std::optional<Options> options;  // set on success
  bool help = false;               // --help was asked for
  std::string error;               // set on failure
};

// Parses argv[1..] (flags as "--name value" or "--name=value").
ParseResult ParseOptions(const std::vector<std::string>& args);
std::string UsageText();
const char* ModeName(Mode mode);

}  // namespace hotkv::loadgen

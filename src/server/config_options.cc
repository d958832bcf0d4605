// The option table: every setting with its kind, default, range, whether CONFIG SET may
// change it, and the parsers of the options with their own syntax (save,
// notify-keyspace-events, client-output-buffer-limit, ...).
#include <sstream>

#include "common/notify_flags.h"
#include "common/string_util.h"
#include "server/config.h"

namespace hotkv {

namespace {
const std::vector<std::string> kPolicies = {"volatile-lru", "volatile-lfu",    "volatile-random",
                                            "volatile-ttl", "allkeys-lru",     "allkeys-lfu",
                                            "allkeys-random", "noeviction"};
constexpr int64_t kNoEviction = 7;
}  // namespace

Config::Config() {
  auto add_int = [this](const char* name, std::atomic<int64_t>* v, int64_t lo, int64_t hi,
                        bool mut) -> Option& {
    Option& o = Add(name, Kind::kInt, mut);
    o.int_value = v;
    o.min = lo;
    o.max = hi;
    return o;
  };
  auto add_mem = [this](const char* name, std::atomic<int64_t>* v, int64_t lo, int64_t hi,
                        bool mut) -> Option& {
    Option& o = Add(name, Kind::kMemory, mut);
    o.int_value = v;
    o.min = lo;
    o.max = hi;
    return o;
  };
  auto add_bool = [this](const char* name, std::atomic<int64_t>* v, bool mut) -> Option& {
    Option& o = Add(name, Kind::kBool, mut);
    o.int_value = v;
    return o;
  };
  auto add_str = [this](const char* name, std::string* v, bool mut) -> Option& {
    Option& o = Add(name, Kind::kString, mut);
    o.str_value = v;
    return o;
  };
  auto add_enum = [this](const char* name, std::atomic<int64_t>* v, std::vector<std::string> vals,
                         bool mut) -> Option& {
    Option& o = Add(name, Kind::kEnum, mut);
    o.int_value = v;
    o.enum_values = std::move(vals);
    return o;
  };

  add_int("port", &port_, 0, 65535, false);
  add_int("threads", &threads_, 0, 1024, false);
  add_int("databases", &databases_, 1, 1 << 20, false);
  add_int("maxclients", &maxclients_, 1, 4294967295LL, true);
  add_int("timeout", &timeout_, 0, INT32_MAX, true);
  add_mem("proto-max-bulk-len", &proto_max_bulk_len_, 1024 * 1024, INT64_MAX, true);
  add_mem("client-query-buffer-limit", &client_query_buffer_limit_, 1024 * 1024, INT64_MAX, true);
  add_bool("pipeline-prefetch", &pipeline_prefetch_, true);
  add_bool("hugepages", &hugepages_, false);
  add_bool("prefault-memory", &prefault_memory_, false);
  add_enum("io-backend", &io_backend_, {"auto", "io_uring", "epoll"}, false);
  add_int("hz", &hz_, 1, 500, true);
  add_int("slowlog-log-slower-than", &slowlog_slower_, -1, INT64_MAX, true);
  add_int("slowlog-max-len", &slowlog_max_len_, 0, INT32_MAX, true);
  add_mem("maxmemory", &maxmemory_, 0, INT64_MAX, true);
  add_enum("maxmemory-policy", &maxmemory_policy_, kPolicies, true);
  maxmemory_policy_ = kNoEviction;
  add_int("maxmemory-samples", &maxmemory_samples_, 1, 64, true);
  add_int("maxmemory-eviction-tenacity", &maxmemory_eviction_tenacity_, 0, 100, true);
  add_int("lfu-log-factor", &lfu_log_factor_, 0, INT32_MAX, true);
  add_int("lfu-decay-time", &lfu_decay_time_, 0, INT32_MAX, true);
  add_int("tcp-backlog", &tcp_backlog_, 0, INT32_MAX, false);
  add_int("tcp-keepalive", &tcp_keepalive_, 0, INT32_MAX, true);
  add_bool("protected-mode", &protected_mode_, true);
  add_bool("daemonize", &daemonize_, false);
  add_int("io-threads", &io_threads_, 1, 128, false);
  add_bool("enable-debug-command", &enable_debug_, false);
  add_int("latency-monitor-threshold", &latency_threshold_, 0, INT64_MAX, true);
  add_bool("lazyfree-lazy-user-del", &lazyfree_user_del_, true);
  add_bool("lazyfree-lazy-user-flush", &lazyfree_user_flush_, true);
  add_int("active-expire-effort", &active_expire_effort_, 1, 10, true);
  add_enum("loglevel", &loglevel_, {"debug", "verbose", "notice", "warning", "nothing"}, true);
  loglevel_ = 2;
  add_int("list-max-listpack-size", &list_max_listpack_size_, INT32_MIN, INT32_MAX, true)
      .aliases = {"list-max-ziplist-size"};
  add_int("list-compress-depth", &list_compress_depth_, 0, INT32_MAX, true);
  add_int("hash-max-listpack-entries", &hash_max_listpack_entries_, 0, INT64_MAX, true)
      .aliases = {"hash-max-ziplist-entries"};
  add_int("hash-max-listpack-value", &hash_max_listpack_value_, 0, INT64_MAX, true)
      .aliases = {"hash-max-ziplist-value"};
  add_int("set-max-intset-entries", &set_max_intset_entries_, 0, INT64_MAX, true);
  add_int("set-max-listpack-entries", &set_max_listpack_entries_, 0, INT64_MAX, true);
  add_int("set-max-listpack-value", &set_max_listpack_value_, 0, INT64_MAX, true);
  add_int("zset-max-listpack-entries", &zset_max_listpack_entries_, 0, INT64_MAX, true)
      .aliases = {"zset-max-ziplist-entries"};
  add_int("zset-max-listpack-value", &zset_max_listpack_value_, 0, INT64_MAX, true)
      .aliases = {"zset-max-ziplist-value"};

  add_str("bind", &bind_, false);
  add_str("dir", &dir_, true);
  add_str("dbfilename", &dbfilename_, true);
  add_str("logfile", &logfile_, false);
  add_str("pidfile", &pidfile_, false);
  add_str("unixsocket", &unixsocket_, false);
  add_str("appendfilename", &appendfilename_, false);
  Option& fsync = Add("appendfsync", Kind::kSpecial, true);
  fsync.str_value = &appendfsync_;
  fsync.parse = [](const std::vector<std::string>& v) -> Result<std::string> {
    if (v.size() != 1 || (v[0] != "always" && v[0] != "everysec" && v[0] != "no")) {
      return Status::InvalidArgument("argument(s) must be one of the following: always, everysec, no");
    }
    return v[0];
  };

  Option& pass = Add("requirepass", Kind::kSpecial, true);
  pass.str_value = &requirepass_;
  pass.parse = [this](const std::vector<std::string>& v) -> Result<std::string> {
    if (v.size() != 1) {
      return Status::InvalidArgument("wrong number of arguments");
    }
    has_requirepass_.store(!v[0].empty() ? 1 : 0, std::memory_order_release);
    return v[0];
  };

  // Persistence is not implemented yet: `save` is accepted (a stock redis.conf has save
  // lines) and reported back, but nothing is written; `appendonly yes` is refused, since
  // accepting it would promise durability HotKV does not provide.
  Option& save = Add("save", Kind::kSpecial, true);
  save.str_value = &save_;
  save.parse = [](const std::vector<std::string>& v) -> Result<std::string> {
    std::vector<std::string> words;
    for (const auto& s : v) {
      std::istringstream in(s);
      std::string w;
      while (in >> w) {
        words.push_back(w);
      }
    }
    if (words.size() == 1 && words[0] == "\"\"") {
      words.clear();
    }
    if (words.size() % 2 != 0) {
      return Status::InvalidArgument("Invalid save parameters");
    }
    for (const auto& w : words) {
      if (!ParseInt64(w) || *ParseInt64(w) < 0) {
        return Status::InvalidArgument("Invalid save parameters");
      }
    }
    std::string joined;
    for (const auto& w : words) {
      if (!joined.empty()) {
        joined += ' ';
      }
      joined += w;
    }
    return joined;
  };
  Option& aof = Add("appendonly", Kind::kBool, true);
  aof.int_value = &appendonly_;
  aof.parse = [](const std::vector<std::string>& v) -> Result<std::string> {
    if (v.size() == 1 && EqualsIgnoreCase(v[0], "yes")) {
      return Status::InvalidArgument("appendonly yes is not supported: HotKV has no persistence yet");
    }
    return std::string();
  };

  Option& notify_opt = Add("notify-keyspace-events", Kind::kSpecial, true);
  notify_opt.str_value = &notify_keyspace_events_;
  notify_opt.parse = [this](const std::vector<std::string>& v) -> Result<std::string> {
    int64_t flags = v.size() == 1 ? ParseNotifyFlags(v[0]) : -1;
    if (flags < 0) {
      return Status::InvalidArgument("Invalid event class character. Use 'Ag$lshzxeKEtmdnoc'.");
    }
    // Classes are kept even without K or E (nothing is delivered then), as Redis does.
    notify_flags_.store(flags, std::memory_order_relaxed);
    return FormatNotifyFlags(flags);
  };

  Option& cobl = Add("client-output-buffer-limit", Kind::kSpecial, true);
  cobl.str_value = &client_output_buffer_limit_;
  client_output_buffer_limit_ = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
  cobl.parse = [this](const std::vector<std::string>& v) -> Result<std::string> {
    std::vector<std::string> words;
    for (const auto& s : v) {
      std::istringstream in(s);
      std::string w;
      while (in >> w) {
        words.push_back(w);
      }
    }
    if (words.empty() || words.size() % 4 != 0) {
      return Status::InvalidArgument("Wrong number of arguments in buffer limit configuration.");
    }
    // Start from the current settings; each group of four replaces one class.
    std::istringstream cur(client_output_buffer_limit_);
    std::vector<std::string> current;
    std::string w;
    while (cur >> w) {
      current.push_back(w);
    }
    for (size_t i = 0; i < words.size(); i += 4) {
      std::string cls = ToLower(words[i]);
      if (cls == "replica") {
        cls = "slave";
      }
      if (cls != "normal" && cls != "slave" && cls != "pubsub") {
        return Status::InvalidArgument("Invalid client class specified in buffer limit configuration.");
      }
      int64_t hard, soft, secs;
      if (!ParseMemory(words[i + 1], &hard) || !ParseMemory(words[i + 2], &soft) ||
          !ParseInt64(words[i + 3]) || (secs = *ParseInt64(words[i + 3])) < 0) {
        return Status::InvalidArgument("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
      }
      for (size_t j = 0; j + 3 < current.size(); j += 4) {
        if (current[j] == cls) {
          current[j + 1] = std::to_string(hard);
          current[j + 2] = std::to_string(soft);
          current[j + 3] = std::to_string(secs);
        }
      }
      if (cls == "pubsub") {
        pubsub_hard_ = hard;
        pubsub_soft_ = soft;
        pubsub_soft_seconds_ = secs;
      }
    }
    std::string joined;
    for (const auto& s : current) {
      if (!joined.empty()) {
        joined += ' ';
      }
      joined += s;
    }
    return joined;
  };

  for (auto& o : options_) {
    for (const auto& a : o->aliases) {
      by_name_[a] = o.get();
    }
    o->default_value = Format(*o);
  }
}

}  // namespace hotkv

// Config: the server's settings, set from a config file and the command line at start-up
// and read or changed at run time with CONFIG GET / CONFIG SET.
//
//   Config cfg;
//   Status st = cfg.LoadArgs(argc, argv);
//   if (!st.ok()) { fprintf(stderr, "%s", st.message().c_str()); exit(1); }
//   int64_t port = cfg.port();           // hot settings have typed, lock-free accessors
//   st = cfg.Set({{"maxclients", "100"}});
//
// Every option has a name, a kind (bool/int/memory/enum/string/special), a default and a
// flag telling whether CONFIG SET may change it while running. Integer-like values live
// in atomics so workers read them without locks; strings are behind a mutex.
//
// Thread safety: all methods are safe to call from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hotkv {

class Config {
 public:
  enum class Kind { kBool, kInt, kMemory, kEnum, kString, kSpecial };

  struct Option {
    std::string name;
    Kind kind;
    bool mutable_at_runtime;
    int64_t min = 0;
    int64_t max = 0;
    std::vector<std::string> enum_values;  // kEnum
    std::atomic<int64_t>* int_value = nullptr;  // kBool/kInt/kMemory/kEnum (enum index)
    std::string* str_value = nullptr;           // kString/kSpecial
    // kSpecial: validates and normalises a value (the normalised text, or an error whose
    // message is Redis's reason). Other kinds: an extra check before the usual parsing
    // (its returned text is ignored).
    std::function<Result<std::string>(const std::vector<std::string>&)> parse;
    std::vector<std::string> aliases;
    std::string default_value;  // formatted, recorded after construction
  };

  Config();
  Config(const Config&) = delete;
  Config& operator=(const Config&) = delete;

  // argv: [program, config-file?, --name value..., ...]. An error's message is what
  // redis-server prints for the same mistake.
  Status LoadArgs(int argc, char** argv);
  Status LoadFile(const std::string& path);
  // Applies one directive (name + values), as from a config file line.
  Status ApplyDirective(const std::vector<std::string>& words);

  // CONFIG GET: all (name, value) pairs whose name matches any of the glob patterns.
  std::vector<std::pair<std::string, std::string>> Get(
      const std::vector<std::string_view>& patterns);
  // CONFIG SET: all pairs or none. The error's message is Redis's full reply text
  // ("ERR CONFIG SET failed (possibly related to argument 'x') - ...").
  Status Set(const std::vector<std::pair<std::string, std::string>>& pairs);
  std::string GetString(std::string_view name);
  // CONFIG REWRITE: updates the config file in place (keeps comments and order, replaces
  // the values of known directives, appends changed settings it did not contain).
  Status Rewrite();
  const std::string& config_file() const { return config_file_; }

  // Hot settings.
  int64_t port() const { return port_.load(std::memory_order_relaxed); }
  int64_t threads() const { return threads_.load(std::memory_order_relaxed); }
  int64_t databases() const { return databases_.load(std::memory_order_relaxed); }
  int64_t maxclients() const { return maxclients_.load(std::memory_order_relaxed); }
  int64_t timeout() const { return timeout_.load(std::memory_order_relaxed); }
  int64_t proto_max_bulk_len() const { return proto_max_bulk_len_.load(std::memory_order_relaxed); }
  int64_t client_query_buffer_limit() const {
    return client_query_buffer_limit_.load(std::memory_order_relaxed);
  }
  bool pipeline_prefetch() const { return pipeline_prefetch_.load(std::memory_order_relaxed); }
  bool hugepages() const { return hugepages_.load(std::memory_order_relaxed) != 0; }
  bool prefault_memory() const { return prefault_memory_.load(std::memory_order_relaxed) != 0; }
  int64_t hz() const { return hz_.load(std::memory_order_relaxed); }
  int64_t slowlog_log_slower_than() const { return slowlog_slower_.load(std::memory_order_relaxed); }
  int64_t slowlog_max_len() const { return slowlog_max_len_.load(std::memory_order_relaxed); }
  int64_t maxmemory() const { return maxmemory_.load(std::memory_order_relaxed); }
  int64_t maxmemory_policy() const { return maxmemory_policy_.load(std::memory_order_relaxed); }
  bool lfu_policy() const;
  int64_t lfu_log_factor() const { return lfu_log_factor_.load(std::memory_order_relaxed); }
  int64_t lfu_decay_time() const { return lfu_decay_time_.load(std::memory_order_relaxed); }
  int64_t maxmemory_samples() const { return maxmemory_samples_.load(std::memory_order_relaxed); }
  int64_t maxmemory_eviction_tenacity() const {
    return maxmemory_eviction_tenacity_.load(std::memory_order_relaxed);
  }
  // "auto", "io_uring" or "epoll".
  std::string io_backend();
  int64_t tcp_backlog() const { return tcp_backlog_.load(std::memory_order_relaxed); }
  int64_t tcp_keepalive() const { return tcp_keepalive_.load(std::memory_order_relaxed); }
  bool requirepass_set() const { return has_requirepass_.load(std::memory_order_acquire); }
  std::string requirepass();
  std::vector<std::string> bind_addresses();
  // Hash/list/set/zset encoding thresholds.
  int64_t list_max_listpack_size() const { return list_max_listpack_size_.load(std::memory_order_relaxed); }
  int64_t hash_max_listpack_entries() const { return hash_max_listpack_entries_.load(std::memory_order_relaxed); }
  int64_t hash_max_listpack_value() const { return hash_max_listpack_value_.load(std::memory_order_relaxed); }
  int64_t set_max_intset_entries() const { return set_max_intset_entries_.load(std::memory_order_relaxed); }
  int64_t set_max_listpack_entries() const { return set_max_listpack_entries_.load(std::memory_order_relaxed); }
  int64_t set_max_listpack_value() const { return set_max_listpack_value_.load(std::memory_order_relaxed); }
  int64_t zset_max_listpack_entries() const { return zset_max_listpack_entries_.load(std::memory_order_relaxed); }
  int64_t zset_max_listpack_value() const { return zset_max_listpack_value_.load(std::memory_order_relaxed); }
  // notify-keyspace-events as a bit set (see pubsub/notify.h for the bits).
  int64_t notify_flags() const { return notify_flags_.load(std::memory_order_relaxed); }
  // client-output-buffer-limit pubsub hard/soft/seconds.
  int64_t pubsub_hard_limit() const { return pubsub_hard_.load(std::memory_order_relaxed); }
  int64_t pubsub_soft_limit() const { return pubsub_soft_.load(std::memory_order_relaxed); }
  int64_t pubsub_soft_seconds() const { return pubsub_soft_seconds_.load(std::memory_order_relaxed); }

  // Called after a successful CONFIG SET of `name` (e.g. to resize something).
  void OnChange(std::string name, std::function<void()> fn);

 private:
  Option& Add(std::string name, Kind kind, bool mut);
  Option* Find(std::string_view name);
  // A value as parsed for an option: the integer (bool/int/memory/enum index) or text.
  struct ParsedValue {
    int64_t iv = 0;
    std::string sv;
  };
  Result<ParsedValue> ParseValue(Option& opt, const std::vector<std::string>& values);
  std::string Format(const Option& opt);
  void Store(Option& opt, int64_t iv, const std::string& sv);

  std::vector<std::unique_ptr<Option>> options_;
  std::unordered_map<std::string, Option*> by_name_;
  std::unordered_map<std::string, std::vector<std::function<void()>>> on_change_;
  std::mutex mu_;  // guards string values and CONFIG SET atomicity
  std::string config_file_;

  std::atomic<int64_t> port_{6379}, threads_{0}, databases_{16}, maxclients_{10000}, timeout_{0};
  std::atomic<int64_t> proto_max_bulk_len_{512LL << 20}, client_query_buffer_limit_{1LL << 30};
  std::atomic<int64_t> pipeline_prefetch_{0}, hz_{10}, slowlog_slower_{10000}, slowlog_max_len_{128};
  std::atomic<int64_t> maxmemory_{0}, maxmemory_policy_{0}, lfu_log_factor_{10}, lfu_decay_time_{1};
  std::atomic<int64_t> maxmemory_samples_{5}, maxmemory_eviction_tenacity_{10};
  std::atomic<int64_t> hugepages_{0}, prefault_memory_{1};
  std::atomic<int64_t> tcp_backlog_{511}, tcp_keepalive_{300}, appendonly_{0}, protected_mode_{1};
  std::atomic<int64_t> daemonize_{0}, io_threads_{1}, enable_debug_{1}, latency_threshold_{0};
  std::atomic<int64_t> lazyfree_user_del_{0}, lazyfree_user_flush_{0}, active_expire_effort_{1};
  std::atomic<int64_t> has_requirepass_{0}, loglevel_{1};
  std::atomic<int64_t> list_max_listpack_size_{-2}, list_compress_depth_{0};
  std::atomic<int64_t> hash_max_listpack_entries_{128}, hash_max_listpack_value_{64};
  std::atomic<int64_t> set_max_intset_entries_{512}, set_max_listpack_entries_{128};
  std::atomic<int64_t> set_max_listpack_value_{64};
  std::atomic<int64_t> zset_max_listpack_entries_{128}, zset_max_listpack_value_{64};
  std::atomic<int64_t> notify_flags_{0};
  std::atomic<int64_t> io_backend_{0};
  std::atomic<int64_t> pubsub_hard_{32LL << 20}, pubsub_soft_{8LL << 20}, pubsub_soft_seconds_{60};
  std::string bind_{"127.0.0.1"}, requirepass_, save_, dir_, dbfilename_{"dump.rdb"};
  std::string logfile_, pidfile_, appendfilename_{"appendonly.aof"}, appendfsync_{"everysec"};
  std::string notify_keyspace_events_, client_output_buffer_limit_;
  std::string unixsocket_;
};

// Parses a memory amount like Redis: "100", "1k" (1000), "1kb" (1024), "2mb", "1gb".
bool ParseMemory(std::string_view s, int64_t* out);

}  // namespace hotkv

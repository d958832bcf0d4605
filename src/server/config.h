// Config: the server's settings, set from a config file and the command line at start-up
// and read or changed at run time with CONFIG GET / CONFIG SET.
//
//   Config cfg;
//   Status st = cfg.LoadArgs(argc, argv);
//   if (!st.ok()) { fprintf(stderr, "%s", st.message().c_str()); exit(1); }
//   int64_t port = cfg.port();           // hot settings have typed, lock-free accessors
//   st = cfg.Set({{"maxclients", "100"}});
//
// Every parameter of Redis 8.8 exists here under its name and aliases (the table in
// config_table.cc: kind, range or values, default, whether CONFIG SET may change it, and
// what HotKV does with it), plus HotKV's own options. Values are checked and reported as
// Redis checks and reports them (error texts, memory units, percent values, ranges);
// the ones HotKV does not act on are stored and reported back, nothing more.
// Integer-like values live in atomics so workers read them without locks; strings are
// behind a mutex.
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
#include "types/encoding_limits.h"

namespace hotkv {

class Config {
 public:
  enum class Kind {
    kBool,     // yes/no
    kInt,      // an integer in [min, max], parsed as strictly as Redis does
    kMemory,   // "100", "1k" (1000), "1kb" (1024), ... in [min, max]
    kEnum,     // one of the values
    kFlags,    // one or more of the values (a set of bits), "nosave now"
    kString,   // any text
    kSpecial,  // its own syntax: Option::parse
  };
  enum Flag : uint32_t {
    kImmutable = 1u << 0,   // start-up only: "can't set immutable config"
    kProtected = 1u << 1,   // CONFIG SET only with enable-protected-configs
    kHidden = 1u << 2,      // not matched by CONFIG GET patterns, only by its exact name
    kUnsigned = 1u << 3,    // kMemory up to 2^64-1 (stored as the bits of an int64)
    kPercent = 1u << 4,     // kMemory that also takes "N%" (stored as -N)
    kDeprecated = 1u << 5,  // accepted in a config file or on the command line, ignored
    kMultiArg = 1u << 6,    // several words: CONFIG SET's value is split at spaces
  };
  // What HotKV does with a parameter (for its documentation, README's table).
  enum class Use { kActs, kPartly, kIgnored, kHotkv };

  // A value as parsed for an option: the integer (bool/int/memory/enum/flags) and text.
  struct ParsedValue {
    int64_t iv = 0;
    std::string sv;
  };

  struct Option {
    std::string name;
    std::vector<std::string> aliases;
    Kind kind = Kind::kString;
    uint32_t flags = 0;
    Use use = Use::kIgnored;
    std::string note;  // one line: what HotKV does with it
    int64_t min = 0;
    int64_t max = 0;
    std::vector<std::pair<std::string, int64_t>> values;  // kEnum/kFlags, Redis's order
    std::atomic<int64_t>* int_value = nullptr;            // every kind but kString
    std::string* str_value = nullptr;                     // kString/kSpecial
    std::atomic<int64_t> own_int{0};
    std::string own_str;
    // kSpecial: parses the words of a value (CONFIG SET's value split at spaces, or a
    // config-file line's arguments); an error's message is Redis's reason.
    std::function<Result<ParsedValue>(const std::vector<std::string>&)> parse;
    // Any kind: a check or normalisation after parsing (`runtime`: from CONFIG SET).
    std::function<Status(ParsedValue*, bool runtime)> check;
    // Runs after the value is stored (derived values: notification bits, ...).
    std::function<void(const ParsedValue&)> on_store;
    // A side effect that can fail (chdir, open-files limit); CONFIG SET puts every value
    // back when one fails.
    std::function<Status(const ParsedValue&, bool runtime)> apply;
    std::string default_value;  // formatted, recorded after construction

    bool is(uint32_t f) const { return (flags & f) != 0; }
  };

  // Rebinds the listening sockets of every worker to `bind` x `port` (Server installs it
  // when the workers run). An error leaves the old sockets listening.
  using ListenHook = std::function<Status(const std::vector<std::string>& bind, int64_t port)>;

  Config();
  Config(const Config&) = delete;
  Config& operator=(const Config&) = delete;

  // argv: [program, config-file?, --name value..., ...]. An error's message is what
  // redis-server prints for the same mistake.
  Status LoadArgs(int argc, char** argv);
  Status LoadFile(const std::string& path);
  // Applies one directive (name + values), as from a config file line.
  Status ApplyDirective(const std::vector<std::string>& words);

  // CONFIG GET: (name, value) pairs for the patterns (an exact name is answered under
  // the name as given, hidden parameters included; a glob matches the others).
  std::vector<std::pair<std::string, std::string>> Get(
      const std::vector<std::string_view>& patterns);
  // CONFIG SET: all pairs or none. The error's message is Redis's full reply text
  // ("ERR CONFIG SET failed (possibly related to argument 'x') - ..."). `local_client`:
  // the caller is on a loopback connection (enable-protected-configs local).
  Status Set(const std::vector<std::pair<std::string, std::string>>& pairs,
             bool local_client = false);
  // The value of any parameter as CONFIG GET shows it ("" for an unknown name).
  std::string GetString(std::string_view name);
  // CONFIG REWRITE: updates the config file in place (keeps comments and order, replaces
  // the values of known directives, appends changed settings it did not contain).
  Status Rewrite();
  const std::string& config_file() const { return config_file_; }
  void SetListenHook(ListenHook hook);
  // Warnings for accepted settings HotKV does not honour (printed at start-up).
  std::vector<std::string> StartupWarnings();
  // Raises the open-files limit for `maxclients` clients (Redis keeps 32 descriptors in
  // reserve). On failure, `possible` is how many clients the current limit allows.
  static Status FitOpenFilesLimit(int64_t maxclients, int64_t* possible);
  // A multi-word CONFIG SET value split at single spaces, as Redis splits it ("" -> no
  // words, "a  b" -> "a", "", "b").
  static std::vector<std::string> SplitValue(std::string_view value);

  const std::vector<std::unique_ptr<Option>>& options() const { return options_; }

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
  int64_t active_expire_effort() const {
    return active_expire_effort_.load(std::memory_order_relaxed);
  }
  // LATENCY (server/latency.h): event threshold in ms (0: off); per-command histograms.
  int64_t latency_monitor_threshold() const {
    return latency_threshold_.load(std::memory_order_relaxed);
  }
  bool latency_tracking() const { return latency_tracking_.load(std::memory_order_relaxed) != 0; }
  int64_t slowlog_log_slower_than() const {
    return slowlog_slower_.load(std::memory_order_relaxed);
  }
  int64_t slowlog_max_len() const { return slowlog_max_len_.load(std::memory_order_relaxed); }
  int64_t slowlog_entry_max_argc() const {
    return slowlog_max_argc_.load(std::memory_order_relaxed);
  }
  int64_t slowlog_entry_max_string_len() const {
    return slowlog_max_string_len_.load(std::memory_order_relaxed);
  }
  bool lazyfree_lazy_user_del() const {
    return lazyfree_user_del_.load(std::memory_order_relaxed) != 0;
  }
  bool lazyfree_lazy_user_flush() const {
    return lazyfree_user_flush_.load(std::memory_order_relaxed) != 0;
  }
  bool lazyfree_lazy_server_del() const {
    return lazyfree_server_del_.load(std::memory_order_relaxed) != 0;
  }
  bool lazyfree_lazy_expire() const {
    return lazyfree_expire_.load(std::memory_order_relaxed) != 0;
  }
  bool lazyfree_lazy_eviction() const {
    return lazyfree_eviction_.load(std::memory_order_relaxed) != 0;
  }
  // maxmemory: bytes, 0 = no limit (values past 2^63-1 read as 2^63-1).
  int64_t maxmemory() const {
    const int64_t v = maxmemory_.load(std::memory_order_relaxed);
    return v < 0 ? INT64_MAX : v;
  }
  // The policy as an EvictionPolicy (engine/eviction.h) value.
  int64_t maxmemory_policy() const { return maxmemory_policy_.load(std::memory_order_relaxed); }
  bool lfu_policy() const;
  int64_t lfu_log_factor() const { return lfu_log_factor_.load(std::memory_order_relaxed); }
  int64_t lfu_decay_time() const { return lfu_decay_time_.load(std::memory_order_relaxed); }
  int64_t maxmemory_samples() const { return maxmemory_samples_.load(std::memory_order_relaxed); }
  int64_t tracking_table_max_keys() const {
    return tracking_table_max_keys_.load(std::memory_order_relaxed);
  }
  int64_t maxmemory_eviction_tenacity() const {
    return maxmemory_eviction_tenacity_.load(std::memory_order_relaxed);
  }
  // enable-debug-command: 0 no, 1 yes, 2 local (loopback connections only).
  int64_t enable_debug_command() const { return enable_debug_.load(std::memory_order_relaxed); }
  // "auto", "io_uring" or "epoll".
  std::string io_backend();
  int64_t tcp_backlog() const { return tcp_backlog_.load(std::memory_order_relaxed); }
  int64_t tcp_keepalive() const { return tcp_keepalive_.load(std::memory_order_relaxed); }
  bool requirepass_set() const { return has_requirepass_.load(std::memory_order_acquire); }
  std::string requirepass();
  // The bind addresses ("-" prefix: optional); "" (no address given) reads as "* -::*".
  std::vector<std::string> bind_addresses();
  // Hash/list/set/zset encoding thresholds.
  int64_t list_max_listpack_size() const {
    return list_max_listpack_size_.load(std::memory_order_relaxed);
  }
  int64_t hash_max_listpack_entries() const {
    return hash_max_listpack_entries_.load(std::memory_order_relaxed);
  }
  int64_t hash_max_listpack_value() const {
    return hash_max_listpack_value_.load(std::memory_order_relaxed);
  }
  // The collection encoding limits of every write (and of values loaded from files and
  // payloads), read from the live settings.
  types::EncodingLimits encoding_limits() const {
    types::EncodingLimits l;
    l.list_max_listpack_size = list_max_listpack_size();
    l.hash_max_listpack_entries = static_cast<uint64_t>(hash_max_listpack_entries());
    l.hash_max_listpack_value = static_cast<uint64_t>(hash_max_listpack_value());
    l.set_max_intset_entries = static_cast<uint64_t>(set_max_intset_entries());
    l.set_max_listpack_entries = static_cast<uint64_t>(set_max_listpack_entries());
    l.set_max_listpack_value = static_cast<uint64_t>(set_max_listpack_value());
    return l;
  }
  int64_t set_max_intset_entries() const {
    return set_max_intset_entries_.load(std::memory_order_relaxed);
  }
  int64_t set_max_listpack_entries() const {
    return set_max_listpack_entries_.load(std::memory_order_relaxed);
  }
  int64_t set_max_listpack_value() const {
    return set_max_listpack_value_.load(std::memory_order_relaxed);
  }
  // stream-node-max-bytes / stream-node-max-entries.
  int64_t stream_node_max_bytes() const {
    return stream_node_max_bytes_.load(std::memory_order_relaxed);
  }
  int64_t stream_node_max_entries() const {
    return stream_node_max_entries_.load(std::memory_order_relaxed);
  }
  // stream-idmp-duration (seconds) / stream-idmp-maxsize: new streams' IDMP settings.
  int64_t stream_idmp_duration() const {
    return stream_idmp_duration_.load(std::memory_order_relaxed);
  }
  int64_t stream_idmp_maxsize() const {
    return stream_idmp_maxsize_.load(std::memory_order_relaxed);
  }
  int64_t zset_max_listpack_entries() const {
    return zset_max_listpack_entries_.load(std::memory_order_relaxed);
  }
  int64_t zset_max_listpack_value() const {
    return zset_max_listpack_value_.load(std::memory_order_relaxed);
  }
  // hll-sparse-max-bytes: the size past which a sparse HyperLogLog turns dense.
  int64_t hll_sparse_max_bytes() const {
    return hll_sparse_max_bytes_.load(std::memory_order_relaxed);
  }
  // notify-keyspace-events as a bit set (see common/notify_flags.h for the bits).
  int64_t notify_flags() const { return notify_flags_.load(std::memory_order_relaxed); }
  // client-output-buffer-limit pubsub hard/soft/seconds.
  int64_t pubsub_hard_limit() const { return pubsub_hard_.load(std::memory_order_relaxed); }
  int64_t pubsub_soft_limit() const { return pubsub_soft_.load(std::memory_order_relaxed); }
  int64_t pubsub_soft_seconds() const {
    return pubsub_soft_seconds_.load(std::memory_order_relaxed);
  }

  // Called after a successful CONFIG SET of `name` (e.g. to resize something).
  void OnChange(std::string name, std::function<void()> fn);

 private:
  void BuildTable();         // config_options.cc: the rows, with their storage and parsers
  void AddSpecialParsers();  // config_special.cc
  Option* Find(std::string_view name);
  Result<ParsedValue> ParseValue(Option& opt, const std::vector<std::string>& words, bool runtime);
  std::string Format(const Option& opt);
  void Store(Option& opt, const ParsedValue& v);
  ParsedValue Current(const Option& opt);
  Status ApplyListeners(const std::vector<std::pair<Option*, ParsedValue>>& pending,
                        const std::vector<ParsedValue>& old,
                        const std::vector<std::string>& arg_names, bool* rebound);
  std::vector<std::string> BindAddressesLocked();
  Status LoadText(const std::string& text, const std::string& path, int first_line,
                  bool quoted_echo);

  std::vector<std::unique_ptr<Option>> options_;
  std::unordered_map<std::string, Option*> by_name_;
  std::unordered_map<std::string, std::vector<std::function<void()>>> on_change_;
  std::mutex mu_;  // guards string values and CONFIG SET atomicity
  std::string config_file_;
  ListenHook listen_hook_;
  bool loading_ = false;      // inside LoadArgs: `save` lines add up
  bool save_loaded_ = false;  // a `save` line was read by this load
  int include_depth_ = 0;
  bool threads_auto_ = false;            // threads 0: one per core, resolved at load
  std::vector<std::string> unresolved_;  // unknown directives of the load, as Redis lists them
  Option* port_opt_ = nullptr;
  Option* bind_opt_ = nullptr;
  Option* requirepass_opt_ = nullptr;

  std::atomic<int64_t> port_{6379}, threads_{0}, databases_{16}, maxclients_{10000}, timeout_{0};
  std::atomic<int64_t> proto_max_bulk_len_{512LL << 20}, client_query_buffer_limit_{1LL << 30};
  std::atomic<int64_t> pipeline_prefetch_{0}, hz_{10}, active_expire_effort_{1};
  std::atomic<int64_t> slowlog_slower_{10000}, slowlog_max_len_{128};
  std::atomic<int64_t> latency_threshold_{0}, latency_tracking_{1};
  std::atomic<int64_t> slowlog_max_argc_{32}, slowlog_max_string_len_{128};
  std::atomic<int64_t> lazyfree_user_del_{0}, lazyfree_user_flush_{0}, lazyfree_server_del_{0};
  std::atomic<int64_t> lazyfree_expire_{0}, lazyfree_eviction_{0};
  std::atomic<int64_t> maxmemory_{0}, maxmemory_policy_{7}, lfu_log_factor_{10}, lfu_decay_time_{1};
  std::atomic<int64_t> maxmemory_samples_{5}, maxmemory_eviction_tenacity_{10};
  std::atomic<int64_t> tracking_table_max_keys_{1000000};
  std::atomic<int64_t> hugepages_{0}, prefault_memory_{1}, enable_debug_{0};
  std::atomic<int64_t> tcp_backlog_{511}, tcp_keepalive_{300};
  std::atomic<int64_t> has_requirepass_{0};
  std::atomic<int64_t> list_max_listpack_size_{-2};
  std::atomic<int64_t> hash_max_listpack_entries_{512}, hash_max_listpack_value_{64};
  std::atomic<int64_t> set_max_intset_entries_{512}, set_max_listpack_entries_{128};
  std::atomic<int64_t> set_max_listpack_value_{64};
  std::atomic<int64_t> zset_max_listpack_entries_{128}, zset_max_listpack_value_{64};
  std::atomic<int64_t> hll_sparse_max_bytes_{3000};
  std::atomic<int64_t> stream_node_max_bytes_{4096}, stream_node_max_entries_{100};
  std::atomic<int64_t> stream_idmp_duration_{100}, stream_idmp_maxsize_{100};
  std::atomic<int64_t> notify_flags_{0};
  std::atomic<int64_t> io_backend_{0};
  std::atomic<int64_t> pubsub_hard_{32LL << 20}, pubsub_soft_{8LL << 20}, pubsub_soft_seconds_{60};
};

// Parses a memory amount as Redis does: digits then an optional unit ("", "b", "k" =
// 1000, "kb" = 1024, "m", "mb", "g", "gb", any case). No digits reads as 0; more digits
// than fit saturate at 2^64-1 and a unit multiplies modulo 2^64, as Redis's memtoull.
// False for anything else ("+1", " 1", "1.5mb", "-1").
bool ParseMemory(std::string_view s, uint64_t* out);

// A word in double quotes with escapes, as Redis shows arguments in config errors and
// writes strings in CONFIG REWRITE (sdscatrepr).
std::string ConfigRepr(const std::string& s);

}  // namespace hotkv

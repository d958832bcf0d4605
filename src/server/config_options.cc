// Config's options built from the parameter table (config_table.cc): storage (the hot
// settings' atomics, or the option's own), defaults, and the checks and side effects of
// the parameters HotKV acts on. The parsers of parameters with their own syntax are in
// config_special.cc.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/notify_flags.h"
#include "common/string_util.h"
#include "server/config.h"
#include "server/config_table.h"

namespace hotkv {

namespace {

// maxmemory-policy's values in Redis 8.8's order, and the EvictionPolicy
// (engine/eviction.h) each one is; -1: not implemented.
constexpr int64_t kPolicyToEviction[] = {0, 1, 2, 3, -1, 4, 5, 6, -1, 7};

// Descriptors Redis keeps beside its clients (listeners, log, persistence, ...).
constexpr int64_t kReservedFds = 32;

std::vector<std::pair<std::string, int64_t>> ParseValues(const char* spec) {
  std::vector<std::pair<std::string, int64_t>> out;
  std::istringstream in(spec);
  std::string w;
  int64_t next = 0;
  while (in >> w) {
    size_t eq = w.find('=');
    int64_t v = next;
    if (eq != std::string::npos) {
      v = *ParseInt64(w.substr(eq + 1));
      w.resize(eq);
    }
    out.emplace_back(w, v);
    next = v + 1;
  }
  return out;
}

}  // namespace

Status Config::FitOpenFilesLimit(int64_t maxclients, int64_t* possible) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    *possible = maxclients;
    return Status::Ok();  // nothing known to check against
  }
  const uint64_t needed = static_cast<uint64_t>(maxclients) + kReservedFds;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < needed) {
    rlimit want = lim;
    want.rlim_cur = needed;
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < needed) {
      want.rlim_cur = lim.rlim_max;
    }
    if (want.rlim_cur > lim.rlim_cur && setrlimit(RLIMIT_NOFILE, &want) == 0) {
      lim = want;
    }
  }
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < needed) {
    int64_t n = static_cast<int64_t>(lim.rlim_cur) - kReservedFds;
    *possible = n < 1 ? 1 : n;
    return Status::InvalidArgument(
        "The operating system is not able to handle the specified number of clients, try with " +
        std::to_string(*possible));
  }
  *possible = maxclients;
  return Status::Ok();
}

void Config::BuildTable() {
  const std::unordered_map<std::string, std::atomic<int64_t>*> hot = {
      {"port", &port_},
      {"threads", &threads_},
      {"databases", &databases_},
      {"maxclients", &maxclients_},
      {"timeout", &timeout_},
      {"proto-max-bulk-len", &proto_max_bulk_len_},
      {"client-query-buffer-limit", &client_query_buffer_limit_},
      {"pipeline-prefetch", &pipeline_prefetch_},
      {"hugepages", &hugepages_},
      {"prefault-memory", &prefault_memory_},
      {"io-backend", &io_backend_},
      {"hz", &hz_},
      {"active-expire-effort", &active_expire_effort_},
      {"slowlog-log-slower-than", &slowlog_slower_},
      {"latency-monitor-threshold", &latency_threshold_},
      {"latency-tracking", &latency_tracking_},
      {"slowlog-max-len", &slowlog_max_len_},
      {"slowlog-entry-max-argc", &slowlog_max_argc_},
      {"slowlog-entry-max-string-len", &slowlog_max_string_len_},
      {"lazyfree-lazy-user-del", &lazyfree_user_del_},
      {"lazyfree-lazy-user-flush", &lazyfree_user_flush_},
      {"lazyfree-lazy-server-del", &lazyfree_server_del_},
      {"lazyfree-lazy-expire", &lazyfree_expire_},
      {"lazyfree-lazy-eviction", &lazyfree_eviction_},
      {"maxmemory", &maxmemory_},
      {"lfu-log-factor", &lfu_log_factor_},
      {"lfu-decay-time", &lfu_decay_time_},
      {"maxmemory-samples", &maxmemory_samples_},
      {"tracking-table-max-keys", &tracking_table_max_keys_},
      {"maxmemory-eviction-tenacity", &maxmemory_eviction_tenacity_},
      {"enable-debug-command", &enable_debug_},
      {"tcp-backlog", &tcp_backlog_},
      {"tcp-keepalive", &tcp_keepalive_},
      {"list-max-listpack-size", &list_max_listpack_size_},
      {"hash-max-listpack-entries", &hash_max_listpack_entries_},
      {"hash-max-listpack-value", &hash_max_listpack_value_},
      {"set-max-intset-entries", &set_max_intset_entries_},
      {"set-max-listpack-entries", &set_max_listpack_entries_},
      {"set-max-listpack-value", &set_max_listpack_value_},
      {"zset-max-listpack-entries", &zset_max_listpack_entries_},
      {"zset-max-listpack-value", &zset_max_listpack_value_},
      {"hll-sparse-max-bytes", &hll_sparse_max_bytes_},
      {"stream-node-max-bytes", &stream_node_max_bytes_},
      {"stream-node-max-entries", &stream_node_max_entries_},
      {"stream-idmp-duration", &stream_idmp_duration_},
      {"stream-idmp-maxsize", &stream_idmp_maxsize_},
  };
  for (size_t i = 0; i < kConfigRowCount; i++) {
    const ConfigRow& row = kConfigRows[i];
    auto opt = std::make_unique<Option>();
    opt->name = row.name;
    std::istringstream aliases(row.aliases);
    for (std::string a; aliases >> a;) {
      opt->aliases.push_back(a);
    }
    opt->kind = row.kind;
    opt->flags = row.flags;
    opt->use = row.use;
    opt->note = row.note;
    opt->min = row.min;
    opt->max = row.max;
    opt->values = ParseValues(row.values);
    if (opt->kind == Kind::kFlags) {
      opt->flags |= kMultiArg;
    }
    auto it = hot.find(opt->name);
    opt->int_value = it != hot.end() ? it->second : &opt->own_int;
    opt->str_value = &opt->own_str;
    by_name_[opt->name] = opt.get();
    for (const auto& a : opt->aliases) {
      by_name_[a] = opt.get();
    }
    options_.push_back(std::move(opt));
  }
  port_opt_ = Find("port");
  bind_opt_ = Find("bind");
  requirepass_opt_ = Find("requirepass");

  // hz: any number is taken and kept within 1..500, as Redis does.
  Find("hz")->check = [](ParsedValue* v, bool) {
    v->iv = std::clamp<int64_t>(v->iv, 1, 500);
    return Status::Ok();
  };
  Find("repl-backlog-size")->check = [](ParsedValue* v, bool) {
    v->iv = std::max<int64_t>(v->iv, 16 * 1024);  // Redis's minimum backlog
    return Status::Ok();
  };
  Option* policy = Find("maxmemory-policy");
  policy->check = [](ParsedValue* v, bool) {
    if (kPolicyToEviction[v->iv] < 0) {
      return Status::InvalidArgument(
          "volatile-lrm and allkeys-lrm are not implemented by HotKV (it keeps access times, "
          "not modification times)");
    }
    return Status::Ok();
  };
  policy->on_store = [this](const ParsedValue& v) {
    maxmemory_policy_.store(kPolicyToEviction[v.iv], std::memory_order_relaxed);
  };
  Find("maxclients")->apply = [](const ParsedValue& v, bool runtime) {
    int64_t possible = 0;
    return runtime ? FitOpenFilesLimit(v.iv, &possible) : Status::Ok();
  };
  Find("requirepass")->on_store = [this](const ParsedValue& v) {
    has_requirepass_.store(v.sv.empty() ? 0 : 1, std::memory_order_release);
  };
  for (const char* name : {"shutdown-on-sigint", "shutdown-on-sigterm"}) {
    Find(name)->check = [](ParsedValue* v, bool) {
      if ((v->iv & 3) == 3) {
        return Status::InvalidArgument(
            "shutdown options SAVE and NOSAVE can't be used simultaneously");
      }
      return Status::Ok();
    };
  }
  Option* slot_stats = Find("cluster-slot-stats-enabled");
  slot_stats->check = [slot_stats](ParsedValue* v, bool runtime) {
    constexpr int64_t kMem = 4;
    if (runtime && (v->iv & kMem) && !(slot_stats->int_value->load() & kMem)) {
      return Status::InvalidArgument("memory tracking cannot be enabled at runtime");
    }
    return Status::Ok();
  };
  Option* histograms = Find("key-memory-histograms");
  histograms->check = [histograms](ParsedValue* v, bool runtime) {
    if (runtime && v->iv && !histograms->int_value->load()) {
      return Status::InvalidArgument("memory tracking cannot be enabled at runtime");
    }
    return Status::Ok();
  };
  for (const char* name : {"appendfilename", "dbfilename"}) {
    std::string n = name;
    Find(name)->check = [n](ParsedValue* v, bool) {
      if (n == "appendfilename" && v->sv.empty()) {
        return Status::InvalidArgument(n + " can't be empty");
      }
      if (v->sv.find('/') != std::string::npos) {
        return Status::InvalidArgument(n + " can't be a path, just a filename");
      }
      return Status::Ok();
    };
  }
  Find("appenddirname")->check = [](ParsedValue* v, bool) {
    if (v->sv.empty()) {
      return Status::InvalidArgument("appenddirname can't be empty");
    }
    if (v->sv.find('/') != std::string::npos) {
      return Status::InvalidArgument("appenddirname can't be a path, just a dirname");
    }
    return Status::Ok();
  };

  AddSpecialParsers();

  // Defaults: each row's default text, parsed like any value.
  for (size_t i = 0; i < options_.size(); i++) {
    Option* o = options_[i].get();
    const ConfigRow& row = kConfigRows[i];  // options_ holds the rows in order
    if (o->is(kDeprecated)) {
      continue;
    }
    std::vector<std::string> words = {row.default_value};
    if (o->is(kMultiArg)) {
      words = SplitValue(row.default_value);
    }
    Result<ParsedValue> v = ParseValue(*o, words, false);
    if (v.ok()) {
      Store(*o, *v);
    } else {
      fprintf(stderr, "# config table: bad default for %s: %s\n", o->name.c_str(),
              v.status().message().c_str());
      abort();
    }
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) {
    Find("dir")->own_str = cwd;
  }
  for (auto& o : options_) {
    o->default_value = Format(*o);
  }
}

bool Config::lfu_policy() const {
  int64_t p = maxmemory_policy();
  return p == 1 || p == 5;
}

std::string Config::io_backend() {
  static const char* kNames[] = {"auto", "io_uring", "epoll"};
  return kNames[io_backend_.load(std::memory_order_relaxed)];
}

std::string Config::requirepass() {
  std::lock_guard<std::mutex> g(mu_);
  return requirepass_opt_->own_str;
}

std::vector<std::string> Config::bind_addresses() {
  std::lock_guard<std::mutex> g(mu_);
  return BindAddressesLocked();
}

std::vector<std::string> Config::StartupWarnings() {
  std::vector<std::string> out;
  auto has = [this](const char* name) {
    std::string v = GetString(name);
    return !v.empty() && v != "0" && v != "no";
  };
  if (has("replicaof")) {
    out.push_back("replication is not implemented; 'replicaof " + GetString("replicaof") +
                  "' is ignored and this server accepts writes");
  }
  if (has("tls-port")) {
    out.push_back("TLS is not implemented; 'tls-port " + GetString("tls-port") + "' is ignored");
  }
  if (has("aclfile")) {
    out.push_back("ACL users are not implemented; 'aclfile " + GetString("aclfile") +
                  "' is not read (only the default user exists)");
  }
  if (has("unixsocket")) {
    out.push_back("Unix sockets are not implemented; 'unixsocket " + GetString("unixsocket") +
                  "' is ignored");
  }
  return out;
}

}  // namespace hotkv

#include "server/config.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/notify_flags.h"
#include "common/strings.h"
#include "protocol/resp_parser.h"

namespace hotkv {

bool ParseMemory(std::string_view s, int64_t* out) {
  if (s.empty()) {
    return false;
  }
  size_t i = 0;
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) {
    i++;
  }
  auto num = ParseUint64(s.substr(0, i));
  if (i == 0 || !num) {
    return false;
  }
  std::string unit = ToLower(s.substr(i));
  uint64_t mul = 1;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000 * 1000;
  } else if (unit == "mb") {
    mul = 1024 * 1024;
  } else if (unit == "g") {
    mul = 1000ULL * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ULL * 1024 * 1024;
  } else {
    return false;
  }
  if (*num > static_cast<uint64_t>(INT64_MAX) / mul) {
    return false;
  }
  *out = static_cast<int64_t>(*num * mul);
  return true;
}

namespace {
const std::vector<std::string> kPolicies = {"volatile-lru", "volatile-lfu",    "volatile-random",
                                            "volatile-ttl", "allkeys-lru",     "allkeys-lfu",
                                            "allkeys-random", "noeviction"};
constexpr int64_t kNoEviction = 7;
}  // namespace

Config::Option& Config::Add(std::string name, Kind kind, bool mut) {
  auto opt = std::make_unique<Option>();
  opt->name = std::move(name);
  opt->kind = kind;
  opt->mutable_at_runtime = mut;
  Option& ref = *opt;
  by_name_[ref.name] = &ref;
  options_.push_back(std::move(opt));
  return ref;
}

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
  add_int("hz", &hz_, 1, 500, true);
  add_int("slowlog-log-slower-than", &slowlog_slower_, -1, INT64_MAX, true);
  add_int("slowlog-max-len", &slowlog_max_len_, 0, INT32_MAX, true);
  add_mem("maxmemory", &maxmemory_, 0, INT64_MAX, true);
  add_enum("maxmemory-policy", &maxmemory_policy_, kPolicies, true);
  maxmemory_policy_ = kNoEviction;
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
  fsync.parse = [](const std::vector<std::string>& v, std::string* out, std::string* err) {
    if (v.size() != 1 || (v[0] != "always" && v[0] != "everysec" && v[0] != "no")) {
      *err = "argument(s) must be one of the following: always, everysec, no";
      return false;
    }
    *out = v[0];
    return true;
  };

  Option& pass = Add("requirepass", Kind::kSpecial, true);
  pass.str_value = &requirepass_;
  pass.parse = [this](const std::vector<std::string>& v, std::string* out, std::string* err) {
    if (v.size() != 1) {
      *err = "wrong number of arguments";
      return false;
    }
    *out = v[0];
    has_requirepass_.store(!v[0].empty() ? 1 : 0, std::memory_order_release);
    return true;
  };

  // Persistence is not implemented yet: `save` is accepted (a stock redis.conf has save
  // lines) and reported back, but nothing is written; `appendonly yes` is refused, since
  // accepting it would promise durability HotKV does not provide.
  Option& save = Add("save", Kind::kSpecial, true);
  save.str_value = &save_;
  save.parse = [](const std::vector<std::string>& v, std::string* out, std::string* err) {
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
      *err = "Invalid save parameters";
      return false;
    }
    for (const auto& w : words) {
      if (!ParseInt64(w) || *ParseInt64(w) < 0) {
        *err = "Invalid save parameters";
        return false;
      }
    }
    std::string joined;
    for (const auto& w : words) {
      if (!joined.empty()) {
        joined += ' ';
      }
      joined += w;
    }
    *out = joined;
    return true;
  };
  Option& aof = Add("appendonly", Kind::kBool, true);
  aof.int_value = &appendonly_;
  aof.parse = [](const std::vector<std::string>& v, std::string*, std::string* err) {
    if (v.size() == 1 && EqualsIgnoreCase(v[0], "yes")) {
      *err = "appendonly yes is not supported: HotKV has no persistence yet";
      return false;
    }
    return true;
  };

  Option& notify_opt = Add("notify-keyspace-events", Kind::kSpecial, true);
  notify_opt.str_value = &notify_keyspace_events_;
  notify_opt.parse = [this](const std::vector<std::string>& v, std::string* out, std::string* err) {
    int64_t flags = v.size() == 1 ? ParseNotifyFlags(v[0]) : -1;
    if (flags < 0) {
      *err = "Invalid event class character. Use 'Ag$lshzxeKEtmdnoc'.";
      return false;
    }
    // Classes are kept even without K or E (nothing is delivered then), as Redis does.
    notify_flags_.store(flags, std::memory_order_relaxed);
    *out = FormatNotifyFlags(flags);
    return true;
  };

  Option& cobl = Add("client-output-buffer-limit", Kind::kSpecial, true);
  cobl.str_value = &client_output_buffer_limit_;
  client_output_buffer_limit_ = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
  cobl.parse = [this](const std::vector<std::string>& v, std::string* out, std::string* err) {
    std::vector<std::string> words;
    for (const auto& s : v) {
      std::istringstream in(s);
      std::string w;
      while (in >> w) {
        words.push_back(w);
      }
    }
    if (words.empty() || words.size() % 4 != 0) {
      *err = "Wrong number of arguments in buffer limit configuration.";
      return false;
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
        *err = "Invalid client class specified in buffer limit configuration.";
        return false;
      }
      int64_t hard, soft, secs;
      if (!ParseMemory(words[i + 1], &hard) || !ParseMemory(words[i + 2], &soft) ||
          !ParseInt64(words[i + 3]) || (secs = *ParseInt64(words[i + 3])) < 0) {
        *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
        return false;
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
    *out = joined;
    return true;
  };

  for (auto& o : options_) {
    for (const auto& a : o->aliases) {
      by_name_[a] = o.get();
    }
    o->default_value = Format(*o);
  }
}

bool Config::Rewrite(std::string* err) {
  std::lock_guard<std::mutex> g(mu_);
  if (config_file_.empty()) {
    *err = "The server is running without a config file";
    return false;
  }
  std::vector<std::string> lines;
  {
    std::ifstream in(config_file_);
    std::string line;
    while (std::getline(in, line)) {
      lines.push_back(line);
    }
  }
  auto quote = [](const std::string& v) {
    if (v.empty()) {
      return std::string("\"\"");
    }
    bool plain = v.find_first_of(" \t\"'\\") == std::string::npos;
    if (plain) {
      return v;
    }
    std::string q = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') {
        q += '\\';
      }
      q += c;
    }
    return q + "\"";
  };
  std::vector<const Option*> written;
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') {
      out.push_back(line);
      continue;
    }
    size_t end = line.find_first_of(" \t", start);
    std::string name = ToLower(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      out.push_back(line);
      continue;
    }
    const Option* opt = it->second;
    if (std::find(written.begin(), written.end(), opt) != written.end()) {
      continue;  // a later duplicate of a directive already written
    }
    written.push_back(opt);
    out.push_back(opt->name + " " + quote(Format(*opt)));
  }
  bool header = false;
  for (const auto& o : options_) {
    if (std::find(written.begin(), written.end(), o.get()) != written.end()) {
      continue;
    }
    std::string v = Format(*o);
    if (v == o->default_value) {
      continue;
    }
    if (!header) {
      out.push_back("# Generated by CONFIG REWRITE");
      header = true;
    }
    out.push_back(o->name + " " + quote(v));
  }
  std::string tmp = config_file_ + ".tmp-rewrite";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) {
      *err = "Rewriting config file: " + std::string(strerror(errno));
      return false;
    }
    for (const auto& l : out) {
      f << l << "\n";
    }
    if (!f.flush()) {
      *err = "Rewriting config file: " + std::string(strerror(errno));
      return false;
    }
  }
  if (rename(tmp.c_str(), config_file_.c_str()) != 0) {
    *err = "Rewriting config file: " + std::string(strerror(errno));
    return false;
  }
  return true;
}

Config::Option* Config::Find(std::string_view name) {
  auto it = by_name_.find(ToLower(name));
  return it == by_name_.end() ? nullptr : it->second;
}

bool Config::lfu_policy() const {
  int64_t p = maxmemory_policy();
  return p == 1 || p == 5;
}

std::string Config::requirepass() {
  std::lock_guard<std::mutex> g(mu_);
  return requirepass_;
}

std::vector<std::string> Config::bind_addresses() {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::string> out;
  std::istringstream in(bind_);
  std::string w;
  while (in >> w) {
    out.push_back(w);
  }
  return out;
}

std::string Config::GetString(std::string_view name) {
  Option* o = Find(name);
  if (o == nullptr) {
    return "";
  }
  std::lock_guard<std::mutex> g(mu_);
  return Format(*o);
}

bool Config::ParseValue(Option& opt, const std::vector<std::string>& values, int64_t* iv,
                        std::string* sv, std::string* err) {
  if (opt.parse && opt.kind == Kind::kSpecial) {
    return opt.parse(values, sv, err);
  }
  if (opt.parse && !opt.parse(values, sv, err)) {
    return false;
  }
  if (values.size() != 1) {
    *err = "wrong number of arguments";
    return false;
  }
  const std::string& v = values[0];
  switch (opt.kind) {
    case Kind::kBool:
      if (EqualsIgnoreCase(v, "yes")) {
        *iv = 1;
      } else if (EqualsIgnoreCase(v, "no")) {
        *iv = 0;
      } else {
        *err = "argument must be 'yes' or 'no'";
        return false;
      }
      return true;
    case Kind::kInt:
    case Kind::kMemory: {
      int64_t n = 0;
      bool ok;
      if (opt.kind == Kind::kMemory) {
        ok = ParseMemory(v, &n);
        if (!ok && ParseInt64(v)) {
          n = *ParseInt64(v);
          ok = true;
        }
      } else {
        auto p = ParseInt64(v);
        ok = p.has_value();
        n = p.value_or(0);
      }
      if (!ok) {
        *err = opt.kind == Kind::kMemory ? "argument must be a memory value"
                                         : "argument couldn't be parsed into an integer";
        return false;
      }
      if (n < opt.min || n > opt.max) {
        *err = "argument must be between " + std::to_string(opt.min) + " and " +
               std::to_string(opt.max) + " inclusive";
        return false;
      }
      *iv = n;
      return true;
    }
    case Kind::kEnum:
      for (size_t i = 0; i < opt.enum_values.size(); i++) {
        if (EqualsIgnoreCase(v, opt.enum_values[i])) {
          *iv = static_cast<int64_t>(i);
          return true;
        }
      }
      *err = "argument(s) must be one of the following: ";
      for (size_t i = 0; i < opt.enum_values.size(); i++) {
        *err += (i ? ", " : "") + opt.enum_values[i];
      }
      return false;
    case Kind::kString:
      *sv = v;
      return true;
    case Kind::kSpecial:
      return false;
  }
  return false;
}

void Config::Store(Option& opt, int64_t iv, const std::string& sv) {
  if (opt.int_value != nullptr) {
    opt.int_value->store(iv, std::memory_order_relaxed);
  }
  if (opt.str_value != nullptr) {
    *opt.str_value = sv;
  }
}

std::string Config::Format(const Option& opt) {
  switch (opt.kind) {
    case Kind::kBool:
      return opt.int_value->load() ? "yes" : "no";
    case Kind::kInt:
    case Kind::kMemory:
      return std::to_string(opt.int_value->load());
    case Kind::kEnum:
      return opt.enum_values[static_cast<size_t>(opt.int_value->load())];
    case Kind::kString:
    case Kind::kSpecial:
      return *opt.str_value;
  }
  return "";
}

bool Config::ApplyDirective(const std::vector<std::string>& words, std::string* err) {
  if (words.empty()) {
    return true;
  }
  Option* opt = Find(words[0]);
  if (opt == nullptr) {
    *err = "Bad directive or wrong number of arguments";
    return false;
  }
  std::vector<std::string> values(words.begin() + 1, words.end());
  if (opt->kind != Kind::kSpecial && values.size() != 1) {
    *err = "wrong number of arguments";
    return false;
  }
  int64_t iv = 0;
  std::string sv;
  std::lock_guard<std::mutex> g(mu_);
  if (!ParseValue(*opt, values, &iv, &sv, err)) {
    return false;
  }
  Store(*opt, iv, sv);
  return true;
}

bool Config::LoadFile(const std::string& path, std::string* err) {
  std::ifstream in(path);
  if (!in) {
    *err = "Fatal error, can't open config file '" + path + "': " + strerror(errno);
    return false;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') {
      continue;
    }
    std::vector<std::string_view> views;
    std::vector<char> storage;
    std::string trimmed = line.substr(start);
    while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ')) {
      trimmed.pop_back();
    }
    std::string why;
    bool ok = SplitInlineArgs(trimmed, &views, &storage);
    std::vector<std::string> words(views.begin(), views.end());
    if (!ok) {
      why = "Unbalanced quotes in configuration line";
    } else if (!ApplyDirective(words, &why)) {
      // why set
    } else {
      continue;
    }
    *err = "\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line " +
           std::to_string(lineno) + "\n>>> '" + trimmed + "'\n" + why + "\n";
    return false;
  }
  config_file_ = path;
  return true;
}

bool Config::LoadArgs(int argc, char** argv, std::string* err) {
  int i = 1;
  if (i < argc && argv[i][0] != '-') {
    std::string path = argv[i];
    if (path.front() != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof(cwd)) != nullptr) {
        path = std::string(cwd) + "/" + path;
      }
    }
    if (!LoadFile(path, err)) {
      return false;
    }
    i++;
  }
  // "--name v1 v2 --other v": each --name starts a directive with the words after it.
  std::vector<std::string> words;
  auto flush = [&]() -> bool {
    if (words.empty()) {
      return true;
    }
    std::string why;
    if (!ApplyDirective(words, &why)) {
      std::string line;
      for (const auto& w : words) {
        line += (line.empty() ? "" : " ") + w;
      }
      *err = "\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line 2\n>>> '" +
             line + "'\n" + why + "\n";
      return false;
    }
    words.clear();
    return true;
  };
  for (; i < argc; i++) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      if (!flush()) {
        return false;
      }
      words.push_back(a.substr(2));
    } else {
      if (words.empty()) {
        *err = "Invalid argument '" + a + "': options are given as --name value\n";
        return false;
      }
      words.push_back(a);
    }
  }
  if (!flush()) {
    return false;
  }
  if (threads_.load() == 0) {
    // One worker per core this process may run on (taskset/cgroups), not per core of
    // the machine: two workers sharing one core only add context switches.
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    if (n <= 0) {
      n = static_cast<int>(std::thread::hardware_concurrency());
    }
    threads_ = n <= 0 ? 1 : n;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> Config::Get(
    const std::vector<std::string_view>& patterns) {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& o : options_) {
    std::vector<const std::string*> names = {&o->name};
    for (const auto& a : o->aliases) {
      names.push_back(&a);
    }
    for (const std::string* name : names) {
      for (auto p : patterns) {
        if (GlobMatch(p, *name, true)) {
          out.emplace_back(*name, Format(*o));
          break;
        }
      }
    }
  }
  return out;
}

bool Config::Set(const std::vector<std::pair<std::string, std::string>>& pairs,
                 std::string* err) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> g(mu_);
    struct Pending {
      Option* opt;
      int64_t iv;
      std::string sv;
      int64_t old_iv;
      std::string old_sv;
    };
    std::vector<Pending> pending;
    // Special parsers update derived atomics as they parse; on failure put them back so
    // that CONFIG SET applies all pairs or none.
    const int64_t saved_notify = notify_flags_.load();
    const int64_t saved_pass = has_requirepass_.load();
    const int64_t ph = pubsub_hard_, ps = pubsub_soft_, pss = pubsub_soft_seconds_;
    auto restore = [&] {
      notify_flags_ = saved_notify;
      has_requirepass_ = saved_pass;
      pubsub_hard_ = ph;
      pubsub_soft_ = ps;
      pubsub_soft_seconds_ = pss;
    };
    for (const auto& [name, value] : pairs) {
      Option* opt = nullptr;
      auto it = by_name_.find(ToLower(name));
      if (it != by_name_.end()) {
        opt = it->second;
      }
      if (opt == nullptr) {
        restore();
        *err = "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'";
        return false;
      }
      for (const auto& p : pending) {
        if (p.opt == opt) {
          restore();
          *err = "ERR CONFIG SET failed (possibly related to argument '" + name +
                 "') - duplicate parameter";
          return false;
        }
      }
      if (!opt->mutable_at_runtime) {
        restore();
        *err = "ERR CONFIG SET failed (possibly related to argument '" + name +
               "') - can't set immutable config";
        return false;
      }
      Pending p{opt, 0, {}, opt->int_value ? opt->int_value->load() : 0,
                opt->str_value ? *opt->str_value : std::string()};
      std::string why;
      if (!ParseValue(*opt, {value}, &p.iv, &p.sv, &why)) {
        restore();
        *err = "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
        return false;
      }
      pending.push_back(std::move(p));
    }
    for (auto& p : pending) {
      Store(*p.opt, p.iv, p.sv);
      auto cb = on_change_.find(p.opt->name);
      if (cb != on_change_.end()) {
        for (auto& fn : cb->second) {
          callbacks.push_back(fn);
        }
      }
    }
  }
  for (auto& fn : callbacks) {
    fn();
  }
  return true;
}

void Config::OnChange(std::string name, std::function<void()> fn) {
  std::lock_guard<std::mutex> g(mu_);
  on_change_[std::move(name)].push_back(std::move(fn));
}

}  // namespace hotkv

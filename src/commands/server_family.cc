// Server commands: INFO CONFIG (GET SET RESETSTAT REWRITE HELP) TIME SHUTDOWN
// DEBUG (RELOAD SLEEP) SLOWLOG (GET LEN RESET HELP) MEMORY (USAGE HELP).
//
// INFO uses Redis's section and field names so that tools parsing it keep working;
// HotKV-specific facts are added as extra fields (hotkv_version, worker_threads). The
// keysizes section is in server_family_info.cc, SLOWLOG's handlers in
// server_family_slowlog.cc.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "commands/dump_common.h"
#include "commands/helpers.h"
#include "common/clock.h"
#include "common/page_prefault.h"
#include "commands/register.h"
#include "commands/server_common.h"
#include "engine/eviction.h"
#include "engine/lazy_free.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/tracking.h"

namespace hotkv {

namespace {

void AddField(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out += ':';
  out.append(value);
  out += "\r\n";
}
void AddField(std::string& out, std::string_view name, int64_t value) {
  AddField(out, name, std::to_string(value));
}

std::string ServerSection(Server& s) {
  std::string o = "# Server\r\n";
  utsname u{};
  uname(&u);
  int64_t now = WallClockMs();
  int64_t uptime = (now - s.start_time_ms()) / 1000;
  AddField(o, "redis_version", kRedisCompatVersion);
  AddField(o, "hotkv_version", kHotkvVersion);
  AddField(o, "redis_git_sha1", "00000000");
  AddField(o, "redis_git_dirty", 0);
  AddField(o, "redis_build_id", "0");
  AddField(o, "redis_mode", "standalone");
  AddField(o, "os", std::string(u.sysname) + " " + u.release + " " + u.machine);
  AddField(o, "arch_bits", 64);
  AddField(o, "monotonic_clock", "POSIX clock_gettime");
  AddField(o, "multiplexing_api", s.num_workers() > 0 ? s.worker(0).io_backend_name() : "none");
  AddField(o, "atomicvar_api", "c11-builtin");  // std::atomic: GCC's __atomic builtins
  AddField(o, "gcc_version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                                 std::to_string(__GNUC_PATCHLEVEL__));
  AddField(o, "process_id", getpid());
  AddField(o, "process_supervised", "no");  // no upstart/systemd notification support
  AddField(o, "run_id", s.run_id());
  AddField(o, "tcp_port", s.config().port());
  AddField(o, "server_time_usec", WallClockUs());
  AddField(o, "uptime_in_seconds", uptime);
  AddField(o, "uptime_in_days", uptime / 86400);
  AddField(o, "hz", s.config().hz());
  AddField(o, "configured_hz", s.config().hz());
  AddField(o, "lru_clock", s.lru_clock());
  char exe[4096] = {0};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  AddField(o, "executable", n > 0 ? std::string(exe, static_cast<size_t>(n)) : "");
  AddField(o, "config_file", s.config().config_file());
  AddField(o, "io_threads_active", 0);
  std::string listener = "name=tcp";
  for (const std::string& addr : s.config().bind_addresses()) {
    listener += ",bind=" + addr;
  }
  AddField(o, "listener0", listener + ",port=" + std::to_string(s.config().port()));
  AddField(o, "worker_threads", s.num_workers());
  return o;
}

std::string ClientsSection(Server& s) {
  std::string o = "# Clients\r\n";
  int64_t blocked = 0, pubsub = 0, watching = 0;
  uint64_t max_in = 0, max_out = 0;
  s.clients().ForEach([&](Client* c) {
    if (c->blocked_flag.load(std::memory_order_relaxed)) {
      blocked++;
    }
    if (c->subscription_count() > 0) {
      pubsub++;
    }
    if (c->watch_len.load(std::memory_order_relaxed) > 0) {
      watching++;
    }
    max_in = std::max<uint64_t>(max_in, c->qbuf.load(std::memory_order_relaxed));
    max_out = std::max<uint64_t>(max_out, c->omem.load(std::memory_order_relaxed));
  });
  AddField(o, "connected_clients", static_cast<int64_t>(s.clients().size()));
  AddField(o, "cluster_connections", 0);
  AddField(o, "maxclients", s.config().maxclients());
  AddField(o, "client_recent_max_input_buffer", static_cast<int64_t>(max_in));
  AddField(o, "client_recent_max_output_buffer", static_cast<int64_t>(max_out));
  AddField(o, "blocked_clients", blocked);
  AddField(o, "tracking_clients", g_tracking_clients.load(std::memory_order_relaxed));
  AddField(o, "pubsub_clients", pubsub);
  AddField(o, "watching_clients", watching);
  AddField(o, "clients_in_timeout_table", blocked);
  AddField(o, "total_watched_keys", g_watch_registrations.load(std::memory_order_relaxed));
  AddField(o, "total_blocking_keys", static_cast<int64_t>(server_internal::BlockingKeys(s)));
  AddField(o, "total_blocking_keys_on_nokey", 0);  // only XREADGROUP blocks so; no streams
  return o;
}

std::string MemorySection(Server& s) {
  std::string o = "# Memory\r\n";
  MemoryInfo m = ReadMemoryInfo();
  uint64_t peak = std::max<uint64_t>(s.peak_memory().load(), m.used);
  s.peak_memory().store(peak);
  AddField(o, "used_memory", static_cast<int64_t>(m.used));
  AddField(o, "used_memory_human", HumanBytes(m.used));
  AddField(o, "used_memory_rss", static_cast<int64_t>(m.rss));
  AddField(o, "used_memory_rss_human", HumanBytes(m.rss));
  AddField(o, "used_memory_peak", static_cast<int64_t>(peak));
  AddField(o, "used_memory_peak_human", HumanBytes(peak));
  char perc[32];
  snprintf(perc, sizeof(perc), "%.2f%%", peak ? 100.0 * static_cast<double>(m.used) / static_cast<double>(peak) : 0.0);
  AddField(o, "used_memory_peak_perc", perc);
  long pages = sysconf(_SC_PHYS_PAGES);
  uint64_t total = static_cast<uint64_t>(pages) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  AddField(o, "total_system_memory", static_cast<int64_t>(total));
  AddField(o, "total_system_memory_human", HumanBytes(total));
  AddField(o, "maxmemory", s.config().maxmemory());
  AddField(o, "maxmemory_human", HumanBytes(static_cast<uint64_t>(s.config().maxmemory())));
  AddField(o, "maxmemory_policy", s.config().GetString("maxmemory-policy"));
  char ratio[32];
  snprintf(ratio, sizeof(ratio), "%.2f", m.used ? static_cast<double>(m.rss) / m.used : 0.0);
  AddField(o, "mem_fragmentation_ratio", ratio);
  AddField(o, "mem_fragmentation_bytes", static_cast<int64_t>(m.rss) - static_cast<int64_t>(m.used));
  AddField(o, "mem_allocator", m.allocator);
  // HotKV's own: the background paging-in of committed memory (prefault-memory).
  PrefaultStats pf = GetPrefaultStats();
  AddField(o, "mem_prefault_active", pf.active ? 1 : 0);
  AddField(o, "mem_prefault_ranges", static_cast<int64_t>(pf.ranges_queued));
  AddField(o, "mem_prefault_ranges_dropped", static_cast<int64_t>(pf.ranges_dropped));
  AddField(o, "mem_prefault_bytes", static_cast<int64_t>(pf.bytes_populated));
  LazyFreeStats lazy = GetLazyFreeStats();
  AddField(o, "lazyfree_pending_objects", static_cast<int64_t>(lazy.pending));
  AddField(o, "lazyfreed_objects", static_cast<int64_t>(lazy.freed));
  return o;
}

std::string PersistenceSection(Server& s) {
  std::string o = "# Persistence\r\n";
  if (PersistenceHooks* p = s.persistence()) {
    std::string fields = p->InfoFields();
    // The snapshot side prints the aof_* block as idle stand-ins (aof_enabled through
    // module_fork_in_progress): the AOF service's own lines replace it, in the same place.
    const size_t from = fields.find("aof_enabled:");
    const size_t mf = fields.find("module_fork_in_progress:");
    if (s.aof() != nullptr && from != std::string::npos && mf != std::string::npos) {
      const size_t to = fields.find("\r\n", mf) + 2;
      fields.replace(from, to - from, s.aof()->InfoFields());
    }
    return o + fields;
  }
  AddField(o, "loading", 0);
  AddField(o, "async_loading", 0);
  AddField(o, "rdb_changes_since_last_save", static_cast<int64_t>(s.dirty()));
  AddField(o, "rdb_bgsave_in_progress", 0);
  AddField(o, "rdb_last_save_time", s.start_time_ms() / 1000);
  AddField(o, "rdb_last_bgsave_status", "ok");
  if (s.aof() != nullptr) {
    o += s.aof()->InfoFields();  // the aof_* lines (persistence/aof_writer.cc)
  } else {
    AddField(o, "aof_enabled", 0);
    AddField(o, "aof_rewrite_in_progress", 0);
    AddField(o, "aof_last_bgrewrite_status", "ok");
    AddField(o, "aof_last_write_status", "ok");
  }
  return o;
}

std::string StatsSection(Server& s) {
  std::string o = "# Stats\r\n";
  AddField(o, "total_connections_received", static_cast<int64_t>(s.SumStat(&WorkerStats::connections)));
  AddField(o, "total_commands_processed", static_cast<int64_t>(s.total_commands()));
  AddField(o, "instantaneous_ops_per_sec", static_cast<int64_t>(s.InstantaneousOps()));
  AddField(o, "total_net_input_bytes", static_cast<int64_t>(s.SumStat(&WorkerStats::net_input)));
  AddField(o, "total_net_output_bytes", static_cast<int64_t>(s.SumStat(&WorkerStats::net_output)));
  AddField(o, "rejected_connections", static_cast<int64_t>(s.SumStat(&WorkerStats::rejected_connections)));
  AddField(o, "expired_subkeys", static_cast<int64_t>(s.keyspace().expired_fields()));
  AddField(o, "expired_subkeys_active", static_cast<int64_t>(s.keyspace().expired_fields_active()));
  AddField(o, "expired_keys", static_cast<int64_t>(s.keyspace().expired_keys()));
  AddField(o, "expired_keys_active", static_cast<int64_t>(s.SumStat(&WorkerStats::active_expired)));
  AddField(o, "expired_time_cap_reached_count", static_cast<int64_t>(s.keyspace().expire_cycles_capped()));
  AddField(o, "expire_cycle_cpu_milliseconds", static_cast<int64_t>(s.keyspace().expire_cycle_us() / 1000));
  AddField(o, "evicted_keys", static_cast<int64_t>(EvictedKeys()));
  AddField(o, "evicted_scripts", static_cast<int64_t>(s.evicted_scripts()));
  AddField(o, "keyspace_hits", static_cast<int64_t>(s.SumStat(&WorkerStats::keyspace_hits)));
  AddField(o, "keyspace_misses", static_cast<int64_t>(s.SumStat(&WorkerStats::keyspace_misses)));
  AddField(o, "pubsub_channels", static_cast<int64_t>(s.pubsub().ChannelCount(PubsubRegistry::kChannel)));
  AddField(o, "pubsub_patterns", s.pubsub().NumPat());
  AddField(o, "pubsubshard_channels", static_cast<int64_t>(s.pubsub().ChannelCount(PubsubRegistry::kShard)));
  AddField(o, "latest_fork_usec", s.latest_fork_usec());
  AddField(o, "total_forks", s.total_forks());
  AddField(o, "migrate_cached_sockets", MigrateCachedSockets());
  AddField(o, "tracking_total_keys", static_cast<int64_t>(TrackingTotalKeys()));
  AddField(o, "tracking_total_items", static_cast<int64_t>(TrackingTotalItems()));
  AddField(o, "tracking_total_prefixes", static_cast<int64_t>(TrackingTotalPrefixes()));
  AddField(o, "total_error_replies", static_cast<int64_t>(s.TotalErrorReplies()));
  AddField(o, "total_reads_processed", static_cast<int64_t>(s.SumStat(&WorkerStats::read_calls)));
  AddField(o, "total_writes_processed", static_cast<int64_t>(s.SumStat(&WorkerStats::write_calls)));
  AddField(o, "client_query_buffer_limit_disconnections",
           static_cast<int64_t>(s.SumStat(&WorkerStats::query_limit_disconnections)));
  AddField(o, "client_output_buffer_limit_disconnections",
           static_cast<int64_t>(s.SumStat(&WorkerStats::output_limit_disconnections)));
  SlowLog::Totals slow = s.slowlog().GetTotals();
  char ms[64];
  AddField(o, "slowlog_commands_count", static_cast<int64_t>(slow.count));
  snprintf(ms, sizeof(ms), "%.2f", static_cast<double>(slow.us_max) / 1000.0);
  AddField(o, "slowlog_commands_time_ms_max", ms);
  snprintf(ms, sizeof(ms), "%.2f", static_cast<double>(slow.us_sum) / 1000.0);
  AddField(o, "slowlog_commands_time_ms_sum", ms);
  return o;
}

std::string ReplicationSection(Server& s) {
  std::string o = "# Replication\r\n";
  AddField(o, "role", "master");
  AddField(o, "connected_slaves", 0);
  AddField(o, "master_failover_state", "no-failover");
  AddField(o, "master_replid", s.run_id());
  AddField(o, "master_replid2", "0000000000000000000000000000000000000000");
  AddField(o, "master_repl_offset", 0);
  AddField(o, "second_repl_offset", -1);
  AddField(o, "repl_backlog_active", 0);
  return o;
}

std::string CpuSection() {
  std::string o = "# CPU\r\n";
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  auto secs = [](const timeval& tv) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(tv.tv_sec), static_cast<long>(tv.tv_usec));
    return std::string(buf);
  };
  AddField(o, "used_cpu_sys", secs(self.ru_stime));
  AddField(o, "used_cpu_user", secs(self.ru_utime));
  AddField(o, "used_cpu_sys_children", secs(children.ru_stime));
  AddField(o, "used_cpu_user_children", secs(children.ru_utime));
  return o;
}

std::string KeyspaceSection(Server& s) {
  std::string o = "# Keyspace\r\n";
  for (int d = 0; d < s.keyspace().num_dbs(); d++) {
    // Inside EXEC this thread already holds some shard locks (ThisThreadHoldsShard).
    Keyspace::DbStats st = s.keyspace().Stats(d, WallClockMs(), ThisThreadHoldsShard);
    if (st.keys == 0) {
      continue;
    }
    AddField(o, "db" + std::to_string(d),
             "keys=" + std::to_string(st.keys) + ",expires=" + std::to_string(st.expires) +
                 ",avg_ttl=" + std::to_string(st.avg_ttl_ms) + ",subexpiry=0");
  }
  return o;
}

std::string CommandStatsSection(Server& s) {
  std::string o = "# Commandstats\r\n";
  const auto& specs = s.commands().by_id();
  for (size_t i = 0; i < specs.size(); i++) {
    uint64_t calls = 0, usec = 0, rejected = 0, failed = 0, slow = 0, slow_sum = 0, slow_max = 0;
    for (int w = 0; w < s.num_workers(); w++) {
      CommandStats& c = s.worker(w).command_stats()[i];
      calls += c.calls.load(std::memory_order_relaxed);
      usec += static_cast<uint64_t>(static_cast<double>(c.cycles.load(std::memory_order_relaxed)) /
                                    CyclesPerMicrosecond());
      rejected += c.rejected.load(std::memory_order_relaxed);
      failed += c.failed.load(std::memory_order_relaxed);
      slow += c.slowlog_count.load(std::memory_order_relaxed);
      slow_sum += c.slowlog_us_sum.load(std::memory_order_relaxed);
      slow_max = std::max(slow_max, c.slowlog_us_max.load(std::memory_order_relaxed));
    }
    if (calls == 0 && rejected == 0 && failed == 0) {
      continue;
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,failed_calls=%llu",
             static_cast<unsigned long long>(calls), static_cast<unsigned long long>(usec),
             calls ? static_cast<double>(usec) / calls : 0.0, static_cast<unsigned long long>(rejected),
             static_cast<unsigned long long>(failed));
    std::string value = buf;
    if (slow > 0) {  // Redis 8.8 adds these only for commands that entered the slow log
      snprintf(buf, sizeof(buf), ",slowlog_count=%llu,slowlog_time_ms_sum=%.2f,slowlog_time_ms_max=%.2f",
               static_cast<unsigned long long>(slow), static_cast<double>(slow_sum) / 1000.0,
               static_cast<double>(slow_max) / 1000.0);
      value += buf;
    }
    AddField(o, "cmdstat_" + specs[i]->full_name, value);
  }
  return o;
}

std::string ErrorStatsSection(Server& s) {
  std::string o = "# Errorstats\r\n";
  for (const auto& [prefix, count] : s.ErrorCountsByPrefix()) {
    AddField(o, "errorstat_" + prefix, "count=" + std::to_string(count));
  }
  return o;
}

void InfoCommand(CommandContext& ctx) {
  Server& s = ctx.server();
  // Redis's sections in the order it prints them, whatever the order asked for;
  // `in_default`: part of INFO / INFO default (all of them are in all / everything).
  struct Section {
    const char* name;
    bool in_default;
    std::string (*build)(Server&);
  };
  static const Section kSections[] = {
      {"server", true, ServerSection},
      {"clients", true, ClientsSection},
      {"memory", true, MemorySection},
      {"persistence", true, PersistenceSection},
      {"stats", true, StatsSection},
      {"replication", true, ReplicationSection},
      {"cpu", true, [](Server&) { return CpuSection(); }},
      {"modules", true, [](Server&) { return std::string("# Modules\r\n"); }},
      {"commandstats", false, CommandStatsSection},
      {"errorstats", true, ErrorStatsSection},
      {"cluster", true, [](Server& s) {
         return s.cluster() != nullptr ? s.cluster()->InfoSection()
                                       : std::string("# Cluster\r\ncluster_enabled:0\r\n");
       }},
      {"keyspace", true, KeyspaceSection},
      {"keysizes", true, server_internal::KeysizesSection},
  };
  bool defaults = ctx.argc() == 1, all = false;
  std::vector<std::string> named;
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string name = ToLower(ctx.arg(i));
    if (name == "default") {
      defaults = true;
    } else if (name == "all" || name == "everything") {
      all = true;
    } else {
      named.push_back(std::move(name));
    }
  }
  std::string out;
  for (const Section& sec : kSections) {
    if (!all && !(defaults && sec.in_default) &&
        std::find(named.begin(), named.end(), sec.name) == named.end()) {
      continue;
    }
    if (!out.empty()) {
      out += "\r\n";
    }
    out += sec.build(s);
  }
  ctx.rb().Verbatim(out);
}

void ConfigGetCommand(CommandContext& ctx) {
  std::vector<std::string_view> patterns(ctx.args().begin() + 2, ctx.args().end());
  auto pairs = ctx.server().config().Get(patterns);
  ctx.rb().Map(pairs.size());
  for (const auto& [k, v] : pairs) {
    ctx.rb().Bulk(k);
    ctx.rb().Bulk(v);
  }
}

// A loopback connection (or an in-process client), for the "local" settings of
// enable-protected-configs and enable-debug-command.
bool IsLocalClient(const Client& c) {
  return c.addr.empty() || c.addr.rfind("127.", 0) == 0 || c.addr.rfind("::1:", 0) == 0;
}

void ConfigSetCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 != 0) {
    return ctx.rb().Error("ERR syntax error");  // the arity (-4) is checked before
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 2; i + 1 < ctx.argc(); i += 2) {
    pairs.emplace_back(std::string(ctx.arg(i)), std::string(ctx.arg(i + 1)));
    // Redis's sensitive settings: their values never show in the slow log.
    if (EqualsIgnoreCase(ctx.arg(i), "requirepass") || EqualsIgnoreCase(ctx.arg(i), "masterauth")) {
      ctx.RedactArg(i + 1);
    }
  }
  if (Status st = ctx.server().config().Set(pairs, IsLocalClient(ctx.client())); !st.ok()) {
    return ctx.rb().Error(st.message());
  }
  ctx.rb().Ok();
}

void ConfigResetStatCommand(CommandContext& ctx) {
  ctx.server().ResetStats();
  ctx.rb().Ok();
}

void ConfigRewriteCommand(CommandContext& ctx) {
  if (Status st = ctx.server().config().Rewrite(); !st.ok()) {
    return ctx.rb().Error("ERR " + st.message());
  }
  ctx.rb().Ok();
}

void ConfigHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
      "RESETSTAT", "    Reset statistics reported by the INFO command.",
      "REWRITE", "    Rewrite the configuration file.",
      "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

void TimeCommand(CommandContext& ctx) {
  int64_t us = WallClockUs();
  ctx.rb().Array(2);
  ctx.rb().Bulk(std::to_string(us / 1000000));
  ctx.rb().Bulk(std::to_string(us % 1000000));
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] | ABORT, as Redis 8: the save (with save rules
// set, or SAVE) is made by the persistence layer; when it fails the server keeps running
// unless FORCE. NOW has nothing to skip (no replicas to wait for), and so no shutdown is
// ever in progress for ABORT to cancel.
void ShutdownCommand(CommandContext& ctx) {
  bool save = false, nosave = false, abort_req = false, force = false, now = false;
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NOSAVE")) {
      nosave = true;
    } else if (EqualsIgnoreCase(a, "SAVE")) {
      save = true;
    } else if (EqualsIgnoreCase(a, "NOW")) {
      now = true;
    } else if (EqualsIgnoreCase(a, "FORCE")) {
      force = true;
    } else if (EqualsIgnoreCase(a, "ABORT")) {
      abort_req = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if ((save && nosave) || (abort_req && ctx.argc() != 2)) {
    return ctx.rb().Error(errors::kSyntax);
  }
  if (abort_req) {
    return ctx.rb().Error("ERR No shutdown in progress.");
  }
  // As Redis: while a script is busy only SHUTDOWN NOSAVE goes through (the script is
  // then killed whether it wrote or not, scripting/script_run.cc).
  if (!nosave) {
    const char* busy = ThisThreadBusyGate();
    if (busy == nullptr) {
      busy = AnyBusyScriptError();
    }
    if (busy != nullptr) {
      return ctx.rb().Error(busy);
    }
  }
  (void)now;
  PersistenceHooks* p = ctx.server().persistence();
  if (p == nullptr) {
    if (save && !force) {
      return ctx.rb().Error("ERR Errors trying to SHUTDOWN. Check logs.");
    }
  } else {
    ShutdownSave mode = save     ? ShutdownSave::kSave
                        : nosave ? ShutdownSave::kNoSave
                                 : ShutdownSave::kDefault;
    if (Status st = p->PrepareShutdown(mode, force); !st.ok()) {
      return ctx.rb().Error("ERR Errors trying to SHUTDOWN. Check logs.");
    }
  }
  ctx.client().set_close_after_reply();
  ctx.server().RequestShutdown();
}

void MemoryUsageCommand(CommandContext& ctx) {
  for (size_t i = 3; i < ctx.argc(); i++) {
    if (EqualsIgnoreCase(ctx.arg(i), "SAMPLES") && i + 1 < ctx.argc()) {
      auto v = ctx.IntArg(++i);
      if (!v) {
        return;
      }
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  // The slot in the key table (8 bytes at the table's load) is part of the key's cost.
  ctx.rb().Integer(static_cast<int64_t>(e->MemoryUsage() + 12));
}

void MemoryHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                                 "DOCTOR",
                                 "    Return memory problems reports.",
                                 "MALLOC-STATS",
                                 "    Return internal statistics report from the memory allocator.",
                                 "PURGE",
                                 "    Attempt to purge dirty pages for reclamation by the allocator.",
                                 "STATS",
                                 "    Return information about the memory usage of the server.",
                                 "USAGE <key> [SAMPLES <count>]",
                                 "    Return memory in bytes used by <key> and its value. Nested values are",
                                 "    sampled up to <count> times (default: 5, 0 means sample all).",
                                 "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

// PSYNC / SYNC: HotKV cannot be a replication primary yet. A Redis node that tries to
// replicate it (a Redis cluster primary that lost its last slot to a HotKV node, with
// cluster-allow-replica-migration yes) gets this text and logs it (docs/cluster.md).
void ReplicationRefusedCommand(CommandContext& ctx) {
  ctx.rb().Error(
      "ERR HotKV does not support replication yet and cannot serve as a primary for a "
      "replica; in a Redis Cluster migration set cluster-allow-replica-migration no on "
      "the Redis nodes");
}

}  // namespace

void RegisterServerCommands(CommandTable& t) {
  t.Add({.name = "psync", .arity = -3, .flags = "admin noscript no_async_loading no_multi",
         .acl = "@admin @slow @dangerous", .handler = ReplicationRefusedCommand,
         .doc = {"server", "2.8.0", "", "An internal command used in replication (refused: no replication yet).",
                 "replicationid offset:integer"}});
  t.Add({.name = "sync", .arity = 1, .flags = "admin noscript no_async_loading no_multi",
         .acl = "@admin @slow @dangerous", .handler = ReplicationRefusedCommand,
         .doc = {"server", "1.0.0", "", "An internal command used in replication (refused: no replication yet).", ""}});
  t.Add({.name = "info", .arity = -1, .flags = "loading stale", .acl = "@slow @dangerous",
         .handler = InfoCommand,
         .doc = {"server", "1.0.0", "O(1)", "Returns information and statistics about the server.", "[section [section ...]]"},
         .tips = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}});
  t.Add({.name = "config", .arity = -2, .acl = "@slow",
         .doc = {"server", "2.0.0", "Depends on subcommand.", "A container for server configuration commands.", ""}});
  t.AddSub("config", {.name = "get", .arity = -3, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous",
                      .handler = ConfigGetCommand,
                      .doc = {"server", "2.0.0", "O(N) when N is the number of configuration parameters provided",
                              "Returns the settings whose names match the glob patterns.", "parameter [parameter ...]"}});
  t.AddSub("config", {.name = "set", .arity = -4, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous",
                      .handler = ConfigSetCommand,
                      .doc = {"server", "2.0.0", "O(N) when N is the number of configuration parameters provided",
                              "Changes settings at run time; all of them or none.", "<data: parameter value> ..."},
                      .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("config", {.name = "resetstat", .arity = 2, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous",
                      .handler = ConfigResetStatCommand,
                      .doc = {"server", "2.0.0", "O(1)", "Resets the statistics INFO reports.", ""},
                      .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("config", {.name = "rewrite", .arity = 2, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous",
                      .handler = ConfigRewriteCommand,
                      .doc = {"server", "2.8.0", "O(1)", "Writes the running settings back to the configuration file.", ""},
                      .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("config", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow",
                      .handler = ConfigHelpCommand,
                      .doc = {"server", "5.0.0", "O(1)", "Returns helpful text about CONFIG.", ""}});
  t.Add({.name = "time", .arity = 1, .flags = "loading stale fast", .acl = "@fast",
         .handler = TimeCommand,
         .doc = {"server", "2.6.0", "O(1)", "Returns the server time as seconds and microseconds.", ""},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "shutdown", .arity = -1, .flags = "admin noscript loading stale no_multi allow_busy",
         .acl = "@admin @slow @dangerous", .handler = ShutdownCommand,
         .doc = {"server", "1.0.0", "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
                 "Stops the server after finishing replies in flight.", "[abort-selector: <save-selector-block: [save-selector: NOSAVE | SAVE] [NOW] [FORCE]> | ABORT]"}});
  // DEBUG: server_family_debug.cc.
  t.Add({.name = "slowlog", .arity = -2, .acl = "@slow",
         .doc = {"server", "2.2.12", "Depends on subcommand.", "A container for slow log commands.", ""}});
  t.AddSub("slowlog", {.name = "get", .arity = -2, .flags = "admin loading stale", .acl = "@admin @slow @dangerous",
                       .handler = server_internal::SlowLogGetCommand,
                       .doc = {"server", "2.2.12", "O(N) where N is the number of entries returned",
                               "Returns the newest slow log entries.", "[count]"},
                       .tips = {"request_policy:all_nodes", "nondeterministic_output"}});
  t.AddSub("slowlog", {.name = "len", .arity = 2, .flags = "admin loading stale", .acl = "@admin @slow @dangerous",
                       .handler = server_internal::SlowLogLenCommand,
                       .doc = {"server", "2.2.12", "O(1)", "Returns the number of slow log entries.", ""},
                       .tips = {"request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"}});
  t.AddSub("slowlog", {.name = "reset", .arity = 2, .flags = "admin loading stale", .acl = "@admin @slow @dangerous",
                       .handler = server_internal::SlowLogResetCommand,
                       .doc = {"server", "2.2.12", "O(N) where N is the number of entries in the slowlog",
                               "Clears the slow log.", ""},
                       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("slowlog", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow",
                       .handler = server_internal::SlowLogHelpCommand,
                       .doc = {"server", "6.2.0", "O(1)", "Returns helpful text about SLOWLOG.", ""}});
  t.Add({.name = "memory", .arity = -2, .acl = "@slow",
         .doc = {"server", "4.0.0", "Depends on subcommand.", "A container for memory diagnostics commands.", ""}});
  t.AddSub("memory", {.name = "usage", .arity = -3, .flags = "readonly", .acl = "@read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = MemoryUsageCommand,
                      .doc = {"server", "4.0.0", "O(N) where N is the number of samples.",
                              "Estimates the bytes a key and its value use.", "key [SAMPLES count]"}});
  t.AddSub("memory", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow",
                      .handler = MemoryHelpCommand,
                      .doc = {"server", "4.0.0", "O(1)", "Returns helpful text about MEMORY.", ""}});
  server_internal::RegisterMemoryDiagnostics(t);
}

}  // namespace hotkv

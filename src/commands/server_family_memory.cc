// MEMORY STATS / DOCTOR / MALLOC-STATS / PURGE, as Redis 8.8 shapes them (the figures are
// HotKV's own accounting; see MemoryStatsCommand).
#if defined(HOTKV_MIMALLOC)
#include <mimalloc.h>
#endif

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/server_common.h"
#include "common/string_util.h"
#include "server/command_context.h"
#include "server/server.h"

namespace hotkv {

namespace {

int DatabaseCount(Server& s) {
  auto n = ParseInt64(s.config().GetString("databases"));
  return n ? static_cast<int>(*n) : 16;
}

// ---- MEMORY STATS / DOCTOR / MALLOC-STATS ----

// MEMORY STATS: Redis's fields in its order. HotKV's figures: allocated bytes from its
// allocation counters, overhead per database as 8 bytes per key slot and per TTL
// (approximate), clients' buffers from CLIENT LIST's tot-mem; the allocator
// fields come from mimalloc's process info; replication, AOF, Lua and cluster are 0.
void MemoryStatsCommand(CommandContext& ctx) {
  Server& s = ctx.server();
  MemoryInfo m = ReadMemoryInfo();
  const uint64_t peak = std::max<uint64_t>(s.peak_memory().load(), m.used);
  uint64_t clients_normal = 0;
  s.clients().ForEach([&](Client* c) {
    clients_normal += c->tot_mem.load(std::memory_order_relaxed);
  });
  const int dbs = DatabaseCount(s);
  struct DbRow {
    int db;
    uint64_t keys, expires;
  };
  std::vector<DbRow> rows;
  uint64_t total_keys = 0;
  for (int db = 0; db < dbs; db++) {
    uint64_t keys = 0, expires = 0;
    ctx.ForEachShard([&](Shard& sh, uint32_t) {
      sh.db(db).keys.ForEach([&](Entry* e) {
        keys++;
        expires += e->has_ttl();
      });
    });
    if (keys > 0) {
      rows.push_back({db, keys, expires});
      total_keys += keys;
    }
  }
  const uint64_t startup = 0;
  uint64_t overhead_db = 0;
  for (const DbRow& r : rows) {
    overhead_db += r.keys * 8 + r.expires * 8;
  }
  const uint64_t overhead = startup + clients_normal + overhead_db;
  const uint64_t dataset = m.used > overhead ? m.used - overhead : 0;
  ReplyBuilder& rb = ctx.rb();
  size_t pos = rb.BeginDeferred();
  size_t n = 0;
  auto num = [&](const char* k, uint64_t v) {
    rb.Bulk(k);
    rb.Integer(static_cast<int64_t>(v));
    n++;
  };
  auto dbl = [&](const char* k, double v) {
    rb.Bulk(k);
    rb.Double(v);
    n++;
  };
  num("peak.allocated", peak);
  num("total.allocated", m.used);
  num("startup.allocated", startup);
  num("replication.backlog", 0);
  num("replica.fullsync.buffer", 0);
  num("clients.slaves", 0);
  num("clients.normal", clients_normal);
  num("clients.normal.shared", 0);
  num("clients.normal.unshared", 0);
  num("cluster.links", 0);
  num("aof.buffer", 0);
  num("lua.caches", 0);
  num("functions.caches", 0);
  num("script.VMs", 0);
  for (const DbRow& r : rows) {
    const std::string name = "db." + std::to_string(r.db);
    rb.Bulk(name);
    rb.Map(2);
    rb.Bulk("overhead.hashtable.main");
    rb.Integer(static_cast<int64_t>(r.keys * 8));
    rb.Bulk("overhead.hashtable.expires");
    rb.Integer(static_cast<int64_t>(r.expires * 8));
    n++;
  }
  num("overhead.db.hashtable.lut", 0);
  num("overhead.db.hashtable.rehashing", 0);
  num("overhead.total", overhead);
  num("db.dict.rehashing.count", 0);
  num("keys.count", total_keys);
  num("keys.bytes-per-key", total_keys ? (m.used - startup) / total_keys : 0);
  num("dataset.bytes", dataset);
  dbl("dataset.percentage", m.used > startup ? 100.0 * static_cast<double>(dataset) /
                                                   static_cast<double>(m.used - startup)
                                             : 0.0);
  dbl("peak.percentage", peak ? 100.0 * static_cast<double>(m.used) / static_cast<double>(peak) : 0.0);
  size_t mi_commit = 0;
#if defined(HOTKV_MIMALLOC)
  size_t mi_elapsed, mi_user, mi_sys, mi_rss, mi_peak_rss, mi_peak_commit, mi_faults;
  mi_process_info(&mi_elapsed, &mi_user, &mi_sys, &mi_rss, &mi_peak_rss, &mi_commit,
                  &mi_peak_commit, &mi_faults);
#endif
  const uint64_t active = std::max<uint64_t>(mi_commit, m.used);
  const uint64_t resident = std::max<uint64_t>(m.rss, active);
  num("allocator.allocated", m.used);
  num("allocator.active", active);
  num("allocator.resident", resident);
  num("allocator.muzzy", 0);
  dbl("allocator-fragmentation.ratio", m.used ? static_cast<double>(active) / static_cast<double>(m.used) : 0);
  num("allocator-fragmentation.bytes", active - m.used);
  dbl("allocator-rss.ratio", active ? static_cast<double>(resident) / static_cast<double>(active) : 0);
  num("allocator-rss.bytes", resident - active);
  dbl("rss-overhead.ratio", resident ? static_cast<double>(m.rss) / static_cast<double>(resident) : 0);
  rb.Bulk("rss-overhead.bytes");
  rb.Integer(static_cast<int64_t>(m.rss) - static_cast<int64_t>(resident));
  n++;
  dbl("fragmentation", m.used ? static_cast<double>(m.rss) / static_cast<double>(m.used) : 0);
  rb.Bulk("fragmentation.bytes");
  rb.Integer(static_cast<int64_t>(m.rss) - static_cast<int64_t>(m.used));
  n++;
  rb.EndDeferredMap(pos, n);
}

void MemoryDoctorCommand(CommandContext& ctx) {
  MemoryInfo m = ReadMemoryInfo();
  std::string report;
  if (m.used < 1024 * 1024 * 5) {
    report =
        "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill "
        "it with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.";
  } else {
    const uint64_t peak = std::max<uint64_t>(ctx.server().peak_memory().load(), m.used);
    const bool high_peak = peak / 2 > m.used;
    const bool high_frag = m.used > 0 && m.rss > m.used * 14 / 10 && m.rss - m.used > (10u << 20);
    if (!high_peak && !high_frag) {
      report =
          "Hi Sam, I can't find any memory issue in your instance. I can only account for "
          "what occurs on this base.";
    } else {
      report = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
      if (high_peak) {
        report +=
            " * Peak memory: In the past this instance used more than 150% the memory that is "
            "currently using. The allocator is normally not able to release memory after a "
            "peak, so you can expect to see a big fragmentation ratio, however this is "
            "actually harmless and is only due to the memory peak, and if the Redis instance "
            "Resident Set Size (RSS) is currently bigger than expected, the memory will be "
            "used as soon as you fill the Redis instance with more data. If the memory peak "
            "was only occasional and you want to try to reclaim memory, please try the "
            "MEMORY PURGE command, otherwise the only other option is to shutdown and restart "
            "the instance.\n\n";
      }
      if (high_frag) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(m.rss) / static_cast<double>(m.used));
        report += std::string(" * High total RSS: This instance has a memory fragmentation and "
                              "RSS overhead greater than 1.4 (this means that the Resident Set "
                              "Size of the Redis process is much larger than the sum of the "
                              "logical allocations Redis performed). This problem is usually "
                              "due either to a large peak memory (check if there is a peak "
                              "memory entry above in the report) or may result from a workload "
                              "that causes the allocator to fragment memory a lot. If the "
                              "problem is a large peak memory, then there is no issue. "
                              "Otherwise, make sure you are using the Jemalloc allocator and "
                              "not the default libc malloc. Note: The currently used allocator "
                              "is \"") + m.allocator + "\" (ratio " + buf + ").\n\n";
      }
      report += "I'm here to keep you safe, Sam. I want to help you.\n";
    }
  }
  ctx.rb().Verbatim(report);
}

void MemoryMallocStatsCommand(CommandContext& ctx) {
#if defined(HOTKV_MIMALLOC)
  std::string out;
  mi_stats_print_out(
      [](const char* msg, void* arg) { static_cast<std::string*>(arg)->append(msg); }, &out);
  ctx.rb().Verbatim(out);
#else
  // Builds without mimalloc (the sanitizer build): Redis's text for an allocator it
  // cannot ask.
  ctx.rb().Verbatim("Stats not supported for the current allocator");
#endif
}

void MemoryPurgeCommand(CommandContext& ctx) {
#if defined(HOTKV_MIMALLOC)
  mi_collect(true);
#endif
  ctx.rb().Ok();
}

}  // namespace

namespace server_internal {

void RegisterMemoryDiagnostics(CommandTable& t) {
  t.AddSub("memory", {.name = "stats", .arity = 2, .acl = "@slow", .handler = MemoryStatsCommand,
                      .doc = {"server", "4.0.0", "O(1)", "Returns details about memory usage.", ""},
                      .tips = {"nondeterministic_output", "request_policy:all_shards",
                               "response_policy:special"}});
  t.AddSub("memory", {.name = "doctor", .arity = 2, .acl = "@slow", .handler = MemoryDoctorCommand,
                      .doc = {"server", "4.0.0", "O(1)", "Outputs a memory problems report.", ""},
                      .tips = {"nondeterministic_output", "request_policy:all_shards",
                               "response_policy:special"}});
  t.AddSub("memory", {.name = "malloc-stats", .arity = 2, .acl = "@slow",
                      .handler = MemoryMallocStatsCommand,
                      .doc = {"server", "4.0.0", "Depends on how much memory is allocated, could be slow",
                              "Returns the allocator's statistics.", ""},
                      .tips = {"nondeterministic_output", "request_policy:all_shards",
                               "response_policy:special"}});
  t.AddSub("memory", {.name = "purge", .arity = 2, .acl = "@slow", .handler = MemoryPurgeCommand,
                      .doc = {"server", "4.0.0", "Depends on how much memory is allocated, could be slow",
                              "Asks the allocator to release memory.", ""},
                      .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
}

}  // namespace server_internal

}  // namespace hotkv

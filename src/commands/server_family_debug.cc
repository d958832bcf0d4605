// DEBUG (behind enable-debug-command, as Redis) and MEMORY STATS / DOCTOR / MALLOC-STATS.
//
// DEBUG subcommands: OBJECT, SLEEP, RELOAD (the persistence hooks' save + reload),
// SET-ACTIVE-EXPIRE, DIGEST, DIGEST-VALUE, STRINGMATCH-LEN / STRINGMATCH-TEST,
// CHANGE-REPL-ID, QUICKLIST-PACKED-THRESHOLD, LISTPACK, HELP (Redis 8.8 has no JMAP).
//
// DIGEST is Redis's: per key a SHA1 mix of the key, the type and the value's contents
// (lists in order, sets and hash fields XORed, so order-independent), "!!expire!!" for a
// key with a TTL, and the per-key digests XORed together after mixing each database's
// number; equal datasets give equal digests whatever their encodings or insertion order.
// Strings, lists, sets, hashes and sorted sets digest as in Redis; streams, vector sets
// and JSON digest their own contents (Redis hashes its internal bytes there).
//
// DEBUG names keys but declares no key specs (as in Redis), so its key subcommands lock
// the key's shard themselves (unless EXEC holds it).
#include <unistd.h>

#include <mimalloc.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <thread>

#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/server_common.h"
#include "common/memory_usage.h"
#include "common/random.h"
#include "common/string_util.h"
#include "engine/keyspace.h"
#include "rdb/rdb.h"
#include "server/command_context.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace hotkv {

namespace {

// ---- SHA1 (FIPS 180-1), for DEBUG DIGEST ----
struct Sha1 {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  uint8_t buf[64];
  size_t buf_len = 0;
  uint64_t total = 0;

  static uint32_t Rol(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }
  void Block(const uint8_t* p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++) {
      w[i] = (uint32_t{p[4 * i]} << 24) | (uint32_t{p[4 * i + 1]} << 16) |
             (uint32_t{p[4 * i + 2]} << 8) | p[4 * i + 3];
    }
    for (int i = 16; i < 80; i++) {
      w[i] = Rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d), k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d, k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d, k = 0xCA62C1D6;
      }
      const uint32_t t = Rol(a, 5) + f + e + k + w[i];
      e = d, d = c, c = Rol(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  void Update(const void* data, size_t n) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    total += n;
    while (n > 0) {
      const size_t take = std::min(n, 64 - buf_len);
      memcpy(buf + buf_len, p, take);
      buf_len += take, p += take, n -= take;
      if (buf_len == 64) {
        Block(buf);
        buf_len = 0;
      }
    }
  }
  void Final(uint8_t out[20]) {
    const uint64_t bits = total * 8;
    const uint8_t pad = 0x80;
    Update(&pad, 1);
    const uint8_t zero = 0;
    while (buf_len != 56) {
      Update(&zero, 1);
    }
    uint8_t len[8];
    for (int i = 0; i < 8; i++) {
      len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    }
    Update(len, 8);
    for (int i = 0; i < 5; i++) {
      out[4 * i] = static_cast<uint8_t>(h[i] >> 24);
      out[4 * i + 1] = static_cast<uint8_t>(h[i] >> 16);
      out[4 * i + 2] = static_cast<uint8_t>(h[i] >> 8);
      out[4 * i + 3] = static_cast<uint8_t>(h[i]);
    }
  }
};

using Digest = uint8_t[20];

void XorDigest(Digest d, const void* p, size_t n) {
  Sha1 s;
  s.Update(p, n);
  uint8_t h[20];
  s.Final(h);
  for (int j = 0; j < 20; j++) {
    d[j] ^= h[j];
  }
}

void MixDigest(Digest d, const void* p, size_t n) {
  XorDigest(d, p, n);
  Sha1 s;
  s.Update(d, 20);
  s.Final(d);
}

void MixDigest(Digest d, std::string_view s) { MixDigest(d, s.data(), s.size()); }

std::string Hex(const Digest d) {
  static const char* kHex = "0123456789abcdef";
  std::string out(40, '0');
  for (int j = 0; j < 20; j++) {
    out[2 * j] = kHex[d[j] >> 4];
    out[2 * j + 1] = kHex[d[j] & 15];
  }
  return out;
}

// Redis's xorObjectDigest: the type, the contents, and the TTL mark.
void ObjectDigest(const Entry& e, Digest d) {
  const uint32_t type = htonl(static_cast<uint32_t>(e.type()));
  MixDigest(d, &type, sizeof(type));
  switch (e.type()) {
    case ValueType::kString:
      MixDigest(d, e.str());
      break;
    case ValueType::kList:
      e.As<types::ListValue>()->ForEach([&](std::string_view v) {
        MixDigest(d, v);
        return true;
      });
      break;
    case ValueType::kSet:
      e.As<types::SetValue>()->ForEach([&](std::string_view m) {
        XorDigest(d, m.data(), m.size());
        return true;
      });
      break;
    case ValueType::kZSet:
      e.As<types::ZSetValue>()->ForEach([&](std::string_view m, double score) {
        Digest ed = {};
        char buf[64];
        size_t n = FormatDouble(score, buf);
        MixDigest(ed, m);
        MixDigest(ed, buf, n);
        XorDigest(d, ed, 20);
      });
      break;
    case ValueType::kHash:
      e.As<types::HashValue>()->ForEach([&](std::string_view f, std::string_view v) {
        Digest ed = {};
        MixDigest(ed, f);
        MixDigest(ed, v);
        XorDigest(d, ed, 20);
        return true;
      });
      break;
    default: {
      // Streams, vector sets, JSON: the DUMP payload's value bytes (HotKV's own digest).
      std::string payload = rdb::DumpPayload(e, /*compress=*/false);
      MixDigest(d, payload);
      break;
    }
  }
  if (e.has_ttl()) {
    XorDigest(d, "!!expire!!", 10);
  }
}

int DatabaseCount(Server& s) {
  auto n = ParseInt64(s.config().GetString("databases"));
  return n ? static_cast<int>(*n) : 16;
}

void DebugDigest(CommandContext& ctx) {
  Digest final = {};
  const int dbs = DatabaseCount(ctx.server());
  const int64_t now = ctx.now_ms();
  for (int db = 0; db < dbs; db++) {
    Digest db_digest = {};
    bool any = false;
    ctx.ForEachShard([&](Shard& s, uint32_t) {
      s.db(db).keys.ForEach([&](Entry* e) {
        if (e->has_ttl() && e->expire_ms() <= now) {
          return;
        }
        any = true;
        Digest d = {};
        MixDigest(d, e->key());
        ObjectDigest(*e, d);
        XorDigest(db_digest, d, 20);  // Redis's xorDigest: the SHA1 of the key's digest
      });
    });
    if (!any) {
      continue;
    }
    // Redis mixes the database number into the running digest, then XORs each key's.
    const uint32_t aux = htonl(static_cast<uint32_t>(db));
    MixDigest(final, &aux, sizeof(aux));
    for (int j = 0; j < 20; j++) {
      final[j] ^= db_digest[j];
    }
  }
  ctx.rb().Bulk(Hex(final));
}

// Runs fn(Entry* or null) with the key's shard locked.
template <typename F>
void WithKey(CommandContext& ctx, std::string_view key, F fn) {
  const uint32_t shard = Keyspace::ShardOf(key);
  const bool held = ThisThreadHoldsShard(shard) || ctx.all_shards_locked();
  if (!held) {
    ctx.keyspace().shard(shard).lock.lock_read();
  }
  Entry* e = ctx.db().Find(key);
  fn(e);
  if (!held) {
    ctx.keyspace().shard(shard).lock.unlock();
  }
}

void DebugDigestValue(CommandContext& ctx) {
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    Digest d = {};
    WithKey(ctx, ctx.arg(i), [&](Entry* e) {
      if (e != nullptr) {
        ObjectDigest(*e, d);
      }
    });
    ctx.rb().Bulk(Hex(d));
  }
}

// Redis's "Value at:... refcount:... encoding:... serializedlength:... lru:...
// lru_seconds_idle:..." (+ ql_* for a quicklist). serializedlength is the RDB encoding's
// length (the DUMP payload less type, version and checksum).
void DebugObject(CommandContext& ctx) {
  std::string line;
  WithKey(ctx, ctx.arg(2), [&](Entry* e) {
    if (e == nullptr) {
      return;
    }
    std::string_view enc = e->EncodingName();
    const int64_t refcount = 1;  // Redis 8.8 prints 1 for shared integers too
    const size_t payload = rdb::DumpPayload(*e, /*compress=*/true).size();
    const size_t serialized = payload > 11 ? payload - 11 : 0;
    const uint32_t now = ctx.server().lru_clock();
    const uint32_t then = e->access_clock();
    char buf[512];
    snprintf(buf, sizeof(buf),
             "Value at:%p refcount:%lld encoding:%.*s serializedlength:%zu lru:%u "
             "lru_seconds_idle:%u",
             static_cast<const void*>(e), static_cast<long long>(refcount),
             static_cast<int>(enc.size()), enc.data(), serialized, then & 0xFFFFFF,
             now >= then ? now - then : 0);
    line = buf;
    if (e->type() == ValueType::kList && enc == "quicklist") {
      const auto* l = e->As<types::ListValue>();
      const size_t nodes = l->NodeCount();
      snprintf(buf, sizeof(buf),
               " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%lld ql_compressed:%d "
               "ql_uncompressed_size:%zu",
               nodes, nodes ? static_cast<double>(l->size()) / static_cast<double>(nodes) : 0.0,
               static_cast<long long>(ctx.server().config().list_max_listpack_size()),
               0, l->MemoryUsage());
      line += buf;
    }
  });
  if (line.empty()) {
    return ctx.rb().Error("ERR no such key");
  }
  ctx.rb().SimpleString(line);
}

// DEBUG LISTPACK key: Redis prints the listpack's layout to its log; HotKV has no such
// layout to show and answers as Redis does for a key that is not a listpack.
void DebugListpack(CommandContext& ctx) {
  bool found = false, packed = false;
  WithKey(ctx, ctx.arg(2), [&](Entry* e) {
    found = e != nullptr;
    packed = found && e->EncodingName() == "listpack";
  });
  if (!found) {
    return ctx.rb().Error("ERR no such key");
  }
  if (!packed) {
    return ctx.rb().Error("ERR Not a listpack encoded object.");
  }
  ctx.rb().SimpleString("Listpack structure printed on stdout");
}

void DebugStringMatchTest(CommandContext& ctx) {
  // Random patterns and strings through the glob matcher: it must not crash or hang.
  Rng& rng = ThreadRng();
  std::string pattern, str;
  for (int i = 0; i < 100000; i++) {
    pattern.assign(rng.Below(32), ' ');
    str.assign(rng.Below(32), ' ');
    for (char& c : pattern) {
      c = static_cast<char>(rng.Below(256));
    }
    for (char& c : str) {
      c = static_cast<char>(rng.Below(256));
    }
    (void)GlobMatch(pattern, str);
  }
  ctx.rb().SimpleString("Apparently Redis did not crash: test passed");
}

void DebugHelp(CommandContext& ctx) {
  static const char* kLines[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANGE-REPL-ID",
      "    Change the replication IDs of the instance.",
      "    Dangerous: should be used only for testing the replication subsystem.",
      "DIGEST",
      "    Output a hex signature representing the current DB content.",
      "DIGEST-VALUE <key> [<key> ...]",
      "    Output a hex signature of the values of all the specified keys.",
      "OBJECT <key>",
      "    Show low level info about `key` and associated value.",
      "RELOAD",
      "    Save the RDB on disk and reload it back to memory.",
      "SET-ACTIVE-EXPIRE <0|1>",
      "    Setting it to 0 disables expiring keys (and hash-fields) in background ",
      "    when they are not accessed (otherwise the Redis behavior). Setting it",
      "    to 1 reenables back the default.",
      "QUICKLIST-PACKED-THRESHOLD <size>",
      "    Sets the threshold for elements to be inserted as plain vs packed nodes",
      "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "STRINGMATCH-TEST",
      "    Run a fuzz tester against the stringmatchlen() function.",
      "LISTPACK <key>",
      "    Show low level info about the listpack encoding of <key>.",
      "HELP",
      "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

bool IsLocal(Client& c) {
  return c.addr.rfind("127.", 0) == 0 || c.addr.rfind("[::1]", 0) == 0 ||
         c.addr.rfind("::1", 0) == 0 || c.addr.empty();
}

void DebugCommand(CommandContext& ctx) {
  const int64_t allowed = ctx.server().config().enable_debug_command();  // no, yes, local
  if (allowed == 0 || (allowed == 2 && !IsLocal(ctx.client()))) {
    return ctx.rb().Error(
        "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "
        "you can run it from a local connection, otherwise you need to set this option in the "
        "configuration file, and then restart the server.");
  }
  std::string_view sub = ctx.arg(1);
  const size_t argc = ctx.argc();
  auto is = [&](const char* name, bool ok) { return EqualsIgnoreCase(sub, name) && ok; };
  if (is("HELP", argc == 2)) {
    return DebugHelp(ctx);
  }
  if (is("SLEEP", argc == 3)) {
    auto secs = ParseDouble(ctx.arg(2));
    if (!secs || *secs < 0) {
      return ctx.rb().Error(errors::kNotFloat);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(*secs * 1e6)));
    return ctx.rb().Ok();
  }
  if (is("RELOAD", argc == 2)) {
    PersistenceHooks* p = ctx.server().persistence();
    if (p == nullptr) {
      return ctx.rb().Error("ERR Error trying to load the RDB dump, check server logs.");
    }
    if (Status st = p->DebugReload(); !st.ok()) {
      return ctx.rb().Error(st.message());
    }
    return ctx.rb().Ok();
  }
  if (is("SET-ACTIVE-EXPIRE", argc == 3)) {
    auto on = ParseInt64(ctx.arg(2));
    if (!on) {
      return ctx.rb().Error(errors::kNotInteger);
    }
    ctx.keyspace().SetActiveExpire(*on != 0);
    return ctx.rb().Ok();
  }
  if (is("OBJECT", argc == 3)) {
    return DebugObject(ctx);
  }
  if (is("DIGEST", argc == 2)) {
    return DebugDigest(ctx);
  }
  if (is("DIGEST-VALUE", argc >= 2)) {
    return DebugDigestValue(ctx);
  }
  if (is("LISTPACK", argc == 3)) {
    return DebugListpack(ctx);
  }
  if (is("STRINGMATCH-TEST", argc == 2) || is("STRINGMATCH-LEN", argc == 2)) {
    return DebugStringMatchTest(ctx);
  }
  if (is("CHANGE-REPL-ID", argc == 2)) {
    return ctx.rb().Ok();  // no replication IDs to change yet
  }
  if (is("QUICKLIST-PACKED-THRESHOLD", argc == 3)) {
    auto v = ParseInt64(ctx.arg(2));
    if (!v || *v < 0 || *v > (int64_t{1} << 32)) {
      return ctx.rb().Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
    }
    return ctx.rb().Ok();  // HotKV's lists have no plain nodes: accepted, no effect
  }
  ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                 std::string(sub.substr(0, 128)) + "'. Try DEBUG HELP.");
}

// ---- MEMORY STATS / DOCTOR / MALLOC-STATS ----

// MEMORY STATS: Redis's fields in its order. HotKV's figures: allocated bytes from its
// allocation counters, overhead per database as 8 bytes per key slot plus the entry
// headers (approximate), clients' buffers from CLIENT LIST's figures; the allocator
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
  size_t mi_elapsed, mi_user, mi_sys, mi_rss, mi_peak_rss, mi_commit, mi_peak_commit, mi_faults;
  mi_process_info(&mi_elapsed, &mi_user, &mi_sys, &mi_rss, &mi_peak_rss, &mi_commit,
                  &mi_peak_commit, &mi_faults);
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
  std::string out;
  mi_stats_print_out(
      [](const char* msg, void* arg) { static_cast<std::string*>(arg)->append(msg); }, &out);
  ctx.rb().Verbatim(out);
}

void MemoryPurgeCommand(CommandContext& ctx) {
  mi_collect(true);
  ctx.rb().Ok();
}

}  // namespace

void RegisterDebugCommands(CommandTable& t) {
  t.Add({.name = "debug", .arity = -2, .flags = "admin noscript loading stale protected",
         .acl = "@admin @slow @dangerous", .handler = DebugCommand,
         .doc = {"server", "1.0.0", "Depends on subcommand.",
                 "Debugging helpers (OBJECT, DIGEST, RELOAD, SLEEP, ...).", ""}});
}

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

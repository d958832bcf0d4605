// DEBUG, behind enable-debug-command as in Redis (MEMORY STATS & co.: server_family_memory.cc).
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

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <thread>

#include "commands/helpers.h"
#include "commands/register.h"
#include "common/double_format.h"
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
        size_t n = FormatDoubleFpconv(score, buf);  // Redis >= 7.2's digest format
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
      "RELOAD [option ...]",
      "    Save the RDB on disk and reload it back to memory. Available options:",
      "    * MERGE: Merge the content of the RDB file into the current dataset, duplicate",
      "      keys are replaced.",
      "    * NOFLUSH: Do not empty the current dataset before loading the RDB file.",
      "    * NOSAVE: the database will be loaded from an existing RDB file.",
      "    Examples:",
      "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
      "      the database.",
      "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
      "      existing RDB file.",
      "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
      "      file to the database.",
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
  if (is("RELOAD", argc >= 2)) {
    // As Redis: MERGE (a duplicate key replaces), NOFLUSH (keep the dataset), NOSAVE
    // (load the file there is).
    bool save = true, flush = true, merge = false;
    for (size_t i = 2; i < argc; i++) {
      if (EqualsIgnoreCase(ctx.arg(i), "MERGE")) {
        merge = true;
      } else if (EqualsIgnoreCase(ctx.arg(i), "NOFLUSH")) {
        flush = false;
      } else if (EqualsIgnoreCase(ctx.arg(i), "NOSAVE")) {
        save = false;
      } else {
        return ctx.rb().Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      }
    }
    PersistenceHooks* p = ctx.server().persistence();
    if (p == nullptr) {
      return ctx.rb().Error("ERR Error trying to load the RDB dump, check server logs.");
    }
    if (Status st = p->DebugReload(save, flush, merge); !st.ok()) {
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

}  // namespace

void RegisterDebugCommands(CommandTable& t) {
  t.Add({.name = "debug", .arity = -2, .flags = "admin noscript loading stale protected",
         .acl = "@admin @slow @dangerous", .handler = DebugCommand,
         .doc = {"server", "1.0.0", "Depends on subcommand.",
                 "Debugging helpers (OBJECT, DIGEST, RELOAD, SLEEP, ...).", ""}});
}

}  // namespace hotkv

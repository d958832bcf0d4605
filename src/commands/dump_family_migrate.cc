// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
//         [AUTH2 username password] [KEYS key ...]
//
// Sends keys to another server as RESTORE commands and, unless COPY, deletes the ones
// the target acknowledged. As Redis, the worker talks to the target itself with
// blocking I/O bounded by `timeout` ms per operation (0 or less: 1000), and keeps the
// connection for later MIGRATEs to the same host:port (per worker; a socket idle for
// more than 10 s is closed at the next MIGRATE of that worker, and at most 64 are kept).
//
// Locking (self_locking): the shards of the keys are locked only to read the keys and
// build their payloads, released while talking to the target, and locked again to delete
// the sent keys. A key another client changed in between (its payload or TTL differs from
// what was sent) is not deleted, so that write is not lost. Inside EXEC the transaction
// already holds the shards, so the whole command runs under them.
//
// Replies and errors as Redis 8.8: "+NOKEY" when no key exists; "IOERR error or timeout
// connecting to the client" when the host does not resolve; "IOERR error or timeout
// writing|reading to target instance" (after one retry on a fresh connection unless the
// failure was a timeout or the target already answered); the first error line of the
// target (AUTH, SELECT or a RESTORE) as "ERR Target instance replied with error: ..."
// (keys the target did accept are still deleted); otherwise "+OK". Option errors:
// syntax error, "When using MIGRATE KEYS option, the key argument must be set to the
// empty string", then the timeout and the db as integers.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "commands/dump_common.h"
#include "commands/helpers.h"
#include "common/clock.h"
#include "engine/lazy_free.h"
#include "net/blocking_socket.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace hotkv {

namespace {

constexpr size_t kMaxCachedSockets = 64;
constexpr int64_t kSocketCacheTtlMs = 10000;
constexpr size_t kWriteChunk = 64 * 1024;
constexpr size_t kMaxReplyLine = 1023;  // Redis reads replies into 1024-byte buffers

struct CachedSocket {
  BlockingSocket sock;
  int64_t last_dbid = -1;  // the target's selected db, -1 when unknown
  int64_t last_use_ms = 0;
};

// Cached sockets of every worker (INFO migrate_cached_sockets).
std::atomic<int64_t> g_cached_sockets{0};

// This worker's connections to MIGRATE targets, by "host:port" as given.
class SocketCache {
 public:
  ~SocketCache() { g_cached_sockets.fetch_sub(static_cast<int64_t>(map_.size())); }

  CachedSocket* Find(const std::string& name) {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second;
  }
  CachedSocket& Add(const std::string& name) {
    if (map_.size() >= kMaxCachedSockets) {
      Erase(map_.begin());
    }
    g_cached_sockets.fetch_add(1);
    return map_[name];
  }
  void Erase(const std::string& name) {
    auto it = map_.find(name);
    if (it != map_.end()) {
      Erase(it);
    }
  }
  void CloseIdle(int64_t now_ms) {
    for (auto it = map_.begin(); it != map_.end();) {
      it = now_ms - it->second.last_use_ms > kSocketCacheTtlMs ? Erase(it) : std::next(it);
    }
  }

 private:
  using Map = std::unordered_map<std::string, CachedSocket>;
  Map::iterator Erase(Map::iterator it) {
    g_cached_sockets.fetch_sub(1);
    return map_.erase(it);
  }
  Map map_;
};

thread_local SocketCache t_sockets;

// A cached or new connection; null when the host does not resolve or no socket could be
// created (Redis's migrateGetSocket).
CachedSocket* GetSocket(const std::string& name, const std::string& host, int port,
                        int64_t timeout_ms, int64_t now_ms) {
  if (CachedSocket* cs = t_sockets.Find(name)) {
    cs->last_use_ms = now_ms;
    return cs;
  }
  Result<BlockingSocket> s = BlockingSocket::Connect(host, port, timeout_ms);
  if (!s.ok()) {
    return nullptr;
  }
  CachedSocket& cs = t_sockets.Add(name);
  cs.sock = std::move(*s);
  cs.last_dbid = -1;
  cs.last_use_ms = now_ms;
  return &cs;
}

void AppendArrayHeader(std::string& out, size_t n) {
  out += '*';
  out += std::to_string(n);
  out += "\r\n";
}

void AppendBulk(std::string& out, std::string_view s) {
  out += '$';
  out += std::to_string(s.size());
  out += "\r\n";
  out.append(s);
  out += "\r\n";
}

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  std::optional<std::string_view> username;
  std::optional<std::string_view> password;
  size_t first_key = 3;
  size_t num_keys = 1;
  int64_t timeout_ms = 0;
  int64_t dbid = 0;
  // cluster-enabled: the keys go as RESTORE-ASKING, so that a target that is importing
  // the slot (and not its owner yet) takes them, as Redis's MIGRATE sends them.
  bool asking = false;
};

std::optional<MigrateArgs> ParseMigrateArgs(CommandContext& ctx) {
  MigrateArgs a;
  const size_t argc = ctx.argc();
  for (size_t j = 6; j < argc; j++) {
    const size_t moreargs = argc - 1 - j;
    std::string_view w = ctx.arg(j);
    if (EqualsIgnoreCase(w, "COPY")) {
      a.copy = true;
    } else if (EqualsIgnoreCase(w, "REPLACE")) {
      a.replace = true;
    } else if (EqualsIgnoreCase(w, "AUTH")) {
      if (moreargs == 0) {
        ctx.rb().Error(errors::kSyntax);
        return std::nullopt;
      }
      a.password = ctx.arg(++j);
      ctx.RedactArg(j);
    } else if (EqualsIgnoreCase(w, "AUTH2")) {
      if (moreargs < 2) {
        ctx.rb().Error(errors::kSyntax);
        return std::nullopt;
      }
      a.username = ctx.arg(++j);
      ctx.RedactArg(j);
      a.password = ctx.arg(++j);
      ctx.RedactArg(j);
    } else if (EqualsIgnoreCase(w, "KEYS")) {
      if (!ctx.arg(3).empty()) {
        ctx.rb().Error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
        return std::nullopt;
      }
      a.first_key = j + 1;
      a.num_keys = argc - j - 1;
      break;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return std::nullopt;
    }
  }
  auto timeout = ctx.IntArg(5);
  if (!timeout) {
    return std::nullopt;
  }
  auto dbid = ctx.IntArg(4);
  if (!dbid) {
    return std::nullopt;
  }
  a.timeout_ms = *timeout <= 0 ? 1000 : *timeout;
  a.dbid = *dbid;
  return a;
}

// A key read under its shard lock: what is sent, and what the key must still be for the
// delete afterwards.
struct MigrateItem {
  std::string_view key;
  std::string payload;
  int64_t expire_ms = -1;  // absolute; -1: none
  int64_t ttl_ms = 0;      // sent to the target; 0: none
};

// Locks the shards of `keys` this thread does not already hold (EXEC holds them all).
ShardLockSet LockKeys(CommandContext& ctx, const std::vector<std::string_view>& keys) {
  ShardLockSet set;
  for (std::string_view k : keys) {
    uint32_t shard = Keyspace::ShardOf(k);
    if (!ThisThreadHoldsShard(shard)) {
      set.Add(shard);
    }
  }
  set.Lock(ctx.keyspace());
  return set;
}

// The keys that exist, with their payloads; an error text instead when one of them
// cannot be serialized.
std::vector<MigrateItem> ReadKeys(CommandContext& ctx, const std::vector<std::string_view>& keys,
                                  std::string* error) {
  std::vector<MigrateItem> items;
  const bool compress = DumpCompressionOn(ctx);
  ShardLockSet locks = LockKeys(ctx, keys);
  for (std::string_view k : keys) {
    Entry* e = LookupRead(ctx, k);
    if (e == nullptr) {
      continue;
    }
    MigrateItem it;
    it.key = k;
    it.payload = rdb::DumpPayload(*e, compress);
    if (it.payload.empty()) {
      *error = NotDumpableError(*e);
      break;
    }
    if (e->has_ttl()) {
      it.expire_ms = e->expire_ms();
      it.ttl_ms = std::max<int64_t>(it.expire_ms - ctx.now_ms(), 1);
    }
    items.push_back(std::move(it));
  }
  locks.Unlock(ctx.keyspace());
  return items;
}

// Deletes the sent keys that still hold what was sent.
void DeleteSentKeys(CommandContext& ctx, const std::vector<const MigrateItem*>& sent) {
  if (sent.empty()) {
    return;
  }
  std::vector<std::string_view> keys;
  for (const MigrateItem* it : sent) {
    keys.push_back(it->key);
  }
  const bool compress = DumpCompressionOn(ctx);
  const bool lazy = LazyServerDel(ctx);
  ShardLockSet locks = LockKeys(ctx, keys);
  Database& db = ctx.db();
  for (const MigrateItem* it : sent) {
    KeyRef ref = db.Lookup(it->key);
    if (!ref) {
      continue;
    }
    Entry* e = ref.entry();
    const int64_t expire = e->has_ttl() ? e->expire_ms() : -1;
    if (expire != it->expire_ms || rdb::DumpPayload(*e, compress) != it->payload) {
      continue;  // written meanwhile by another client: keep that write
    }
    FreeEntry(db.Detach(ref), lazy);
    ctx.KeyModified(it->key, notify::kGeneric, "del");
    ctx.PropagateAs({"DEL", it->key});  // replayed as the deletes it did, never as MIGRATE
  }
  if (ctx.propagating()) {
    ctx.server().write_stream().Commit();  // under the keys' locks
  }
  locks.Unlock(ctx.keyspace());
}

// The request: [AUTH], [SELECT], then one RESTORE per key.
std::string BuildRequest(const MigrateArgs& a, bool select, const std::vector<MigrateItem>& items) {
  std::string out;
  if (a.password) {
    AppendArrayHeader(out, a.username ? 3 : 2);
    AppendBulk(out, "AUTH");
    if (a.username) {
      AppendBulk(out, *a.username);
    }
    AppendBulk(out, *a.password);
  }
  if (select) {
    AppendArrayHeader(out, 2);
    AppendBulk(out, "SELECT");
    AppendBulk(out, std::to_string(a.dbid));
  }
  for (const MigrateItem& it : items) {
    AppendArrayHeader(out, a.replace ? 5 : 4);
    AppendBulk(out, a.asking ? "RESTORE-ASKING" : "RESTORE");
    AppendBulk(out, it.key);
    AppendBulk(out, std::to_string(it.ttl_ms));
    AppendBulk(out, it.payload);
    if (a.replace) {
      AppendBulk(out, "REPLACE");
    }
  }
  return out;
}

// One round with the target: the request written, then the replies read.
struct Exchange {
  bool write_error = false;
  bool timed_out = false;     // the last failed operation ran out of time
  bool headers_ok = false;    // written, and the AUTH / SELECT replies read
  bool socket_error = false;  // a RESTORE reply could not be read
  size_t replies = 0;         // RESTORE replies read
  std::string error_from_target;  // the reply for the client, when the target refused
  std::vector<const MigrateItem*> sent;  // keys the target accepted (to delete unless COPY)
};

Exchange TalkToTarget(CachedSocket& cs, const MigrateArgs& a, const std::vector<MigrateItem>& items) {
  Exchange x;
  const bool select = cs.last_dbid != a.dbid;
  const std::string request = BuildRequest(a, select, items);
  for (size_t pos = 0; pos < request.size() && !x.write_error; pos += kWriteChunk) {
    IoOutcome r = cs.sock.Write(std::string_view(request).substr(pos, kWriteChunk), a.timeout_ms);
    x.write_error = r != IoOutcome::kOk;
    x.timed_out = r == IoOutcome::kTimeout;
  }
  auto read = [&](std::string* out) {
    IoOutcome r = cs.sock.ReadLine(out, kMaxReplyLine, a.timeout_ms);
    x.timed_out = r == IoOutcome::kTimeout;
    // Redis's syncReadLine: an empty line counts as a failed read.
    return r == IoOutcome::kOk && !out->empty();
  };
  std::string auth_line, select_line, line;
  x.headers_ok = !x.write_error && (!a.password || read(&auth_line)) &&
                 (!select || read(&select_line));
  if (!x.headers_ok) {
    return x;
  }
  // As Redis: an AUTH or SELECT error makes every RESTORE reply count as an error.
  const bool auth_err = a.password && auth_line[0] == '-';
  const bool select_err = select && select_line[0] == '-';
  for (; x.replies < items.size(); x.replies++) {
    if (!read(&line)) {
      x.socket_error = true;
      break;
    }
    if (auth_err || select_err || line[0] == '-') {
      if (x.error_from_target.empty()) {
        cs.last_dbid = -1;
        const std::string& err = auth_err ? auth_line : select_err ? select_line : line;
        x.error_from_target = "ERR Target instance replied with error: " + err.substr(1);
      }
    } else if (!a.copy) {
      x.sent.push_back(&items[x.replies]);
    }
  }
  return x;
}

}  // namespace

int64_t MigrateCachedSockets() { return g_cached_sockets.load(std::memory_order_relaxed); }

void MigrateGetKeys(const std::vector<std::string_view>& args, std::vector<int>* out) {
  const int argc = static_cast<int>(args.size());
  int first = 3;
  int num = 1;
  if (argc > 6) {
    for (int i = 6; i < argc; i++) {
      if (EqualsIgnoreCase(args[i], "KEYS")) {
        if (!args[3].empty()) {
          return;  // Redis: no keys ("Cannot use MIGRATE KEYS option when key ...")
        }
        first = i + 1;
        num = argc - first;
        break;
      }
      if (EqualsIgnoreCase(args[i], "AUTH")) {
        i += 1;
      } else if (EqualsIgnoreCase(args[i], "AUTH2")) {
        i += 2;
      }
    }
  }
  for (int i = 0; i < num && first + i < argc; i++) {
    out->push_back(first + i);
  }
}

void MigrateCommand(CommandContext& ctx) {
  std::optional<MigrateArgs> a = ParseMigrateArgs(ctx);
  if (!a) {
    return;
  }
  a->asking = ctx.server().config().GetString("cluster-enabled") == "yes";
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < a->num_keys; i++) {
    keys.push_back(ctx.arg(a->first_key + i));
  }
  std::string error;
  const std::vector<MigrateItem> items = ReadKeys(ctx, keys, &error);
  if (!error.empty()) {
    return ctx.rb().Error(error);
  }
  if (items.empty()) {
    return ctx.rb().SimpleString("NOKEY");
  }

  const std::string host(ctx.arg(1));
  const int port = atoi(std::string(ctx.arg(2)).c_str());
  const std::string name = host + ":" + std::string(ctx.arg(2));
  const int64_t now = WallClockMs();
  t_sockets.CloseIdle(now);

  bool may_retry = true;
  while (true) {
    CachedSocket* cs = GetSocket(name, host, port, a->timeout_ms, now);
    if (cs == nullptr) {
      return ctx.rb().Error("IOERR error or timeout connecting to the client");
    }
    Exchange x = TalkToTarget(*cs, *a, items);
    // Retry on a fresh connection only when nothing was processed: a failed write or
    // header read, or no RESTORE reply at all (a cached socket the target had closed),
    // and not after a timeout.
    if (!x.headers_ok || (x.socket_error && x.replies == 0 && x.error_from_target.empty())) {
      t_sockets.Erase(name);
      if (may_retry && !x.timed_out) {
        may_retry = false;
        continue;
      }
      return ctx.rb().Error(x.write_error ? "IOERR error or timeout writing to target instance"
                                          : "IOERR error or timeout reading to target instance");
    }
    DeleteSentKeys(ctx, x.sent);
    if (x.socket_error) {
      t_sockets.Erase(name);
    }
    if (!x.error_from_target.empty()) {
      return ctx.rb().Error(x.error_from_target);
    }
    if (x.socket_error) {
      return ctx.rb().Error("IOERR error or timeout reading to target instance");
    }
    cs->last_dbid = a->dbid;
    return ctx.rb().Ok();
  }
}

}  // namespace hotkv

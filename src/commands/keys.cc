// Generic key commands: DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL
// EXPIRETIME PEXPIRETIME PERSIST KEYS SCAN RENAME RENAMENX RANDOMKEY DBSIZE FLUSHDB
// FLUSHALL COPY MOVE SWAPDB TOUCH OBJECT SELECT.
//
// Edge cases honoured (as Redis): EXPIRE's NX/XX/GT/LT (a key without TTL counts as an
// infinite TTL for GT/LT), a time in the past deletes the key and still returns 1,
// overflow on conversion is "invalid expire time"; TTL rounds to the nearest second;
// RENAME onto itself is OK if the key exists; EXISTS counts repeated keys; SCAN returns
// every key present for the whole iteration at least once, even across table resizes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "common/random.h"
#include "server/server.h"
#include "server/blocking.h"
#include "server/shard_state.h"

namespace hotkv {

namespace {

void DelGeneric(CommandContext& ctx, bool lazy) {
  int64_t n = 0;
  Database& db = ctx.db();
  for (size_t i = 1; i < ctx.argc(); i++) {
    KeyRef ref = db.Lookup(ctx.arg(i));
    if (!ref) {
      continue;
    }
    Entry* e = db.Detach(ref);
    if (lazy && !e->is_string()) {
      LazyFreeEntry(e);  // large collections are freed off the worker
    } else {
      Entry::Free(e);
    }
    ctx.KeyModified(ctx.arg(i), notify::kGeneric, "del");
    n++;
  }
  ctx.rb().Integer(n);
}
void DelCommand(CommandContext& ctx) { DelGeneric(ctx, false); }
void UnlinkCommand(CommandContext& ctx) { DelGeneric(ctx, true); }

void ExistsCommand(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.argc(); i++) {
    if (ctx.db().Find(ctx.arg(i)) != nullptr) {
      n++;
    }
  }
  ctx.rb().Integer(n);
}

void TypeCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(1));
  ctx.rb().SimpleString(e ? TypeName(e->type()) : "none");
}

// EXPIRE family. `unit_ms`: 1000 for seconds. `absolute`: EXPIREAT/PEXPIREAT.
void ExpireGeneric(CommandContext& ctx, int64_t unit_ms, bool absolute) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NX")) {
      nx = true;
    } else if (EqualsIgnoreCase(a, "XX")) {
      xx = true;
    } else if (EqualsIgnoreCase(a, "GT")) {
      gt = true;
    } else if (EqualsIgnoreCase(a, "LT")) {
      lt = true;
    } else {
      return ctx.rb().Error("ERR Unsupported option " + std::string(a));
    }
  }
  if (nx && (xx || gt || lt)) {
    return ctx.rb().Error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if (gt && lt) {
    return ctx.rb().Error("ERR GT and LT options at the same time are not compatible");
  }
  auto v = ctx.IntArg(2);
  if (!v) {
    return;
  }
  int64_t when = *v;
  if (unit_ms == 1000) {
    if (when > std::numeric_limits<int64_t>::max() / 1000 ||
        when < std::numeric_limits<int64_t>::min() / 1000) {
      return ReplyInvalidExpire(ctx);
    }
    when *= 1000;
  }
  if (!absolute && AddOverflow(when, ctx.now_ms(), &when)) {
    return ReplyInvalidExpire(ctx);
  }
  Database& db = ctx.db();
  std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  if (!ref) {
    return ctx.rb().Integer(0);
  }
  Entry* e = ref.entry();
  bool has = e->has_ttl();
  int64_t cur = has ? e->expire_ms() : -1;
  if ((nx && has) || (xx && !has) || (gt && (!has || when <= cur)) || (lt && has && when >= cur)) {
    return ctx.rb().Integer(0);
  }
  if (when <= ctx.now_ms()) {
    db.Erase(ref);
    ctx.KeyModified(key, notify::kGeneric, "del");
  } else {
    db.SetTtl(ref, when);
    ctx.KeyModified(key, notify::kGeneric, "expire");
  }
  ctx.rb().Integer(1);
}
void ExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, false); }
void PExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, false); }
void ExpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, true); }
void PExpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, true); }

// TTL/PTTL (relative) and EXPIRETIME/PEXPIRETIME (absolute).
void TtlGeneric(CommandContext& ctx, bool ms, bool absolute) {
  Entry* e = ctx.db().Find(ctx.arg(1));
  if (e == nullptr) {
    return ctx.rb().Integer(-2);
  }
  if (!e->has_ttl()) {
    return ctx.rb().Integer(-1);
  }
  int64_t at = e->expire_ms();
  if (absolute) {
    return ctx.rb().Integer(ms ? at : at / 1000);
  }
  int64_t ttl = std::max<int64_t>(at - ctx.now_ms(), 0);
  ctx.rb().Integer(ms ? ttl : (ttl + 500) / 1000);
}
void TtlCommand(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void PTtlCommand(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void ExpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void PExpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

void PersistCommand(CommandContext& ctx) {
  KeyRef ref = ctx.db().Lookup(ctx.arg(1));
  if (ref && ctx.db().ClearTtl(ref)) {
    ctx.KeyModified(ctx.arg(1), notify::kGeneric, "persist");
    return ctx.rb().Integer(1);
  }
  ctx.rb().Integer(0);
}

void KeysCommand(CommandContext& ctx) {
  std::string_view pattern = ctx.arg(1);
  bool all = pattern == "*";
  const int db = ctx.client().db();
  const int64_t now = ctx.now_ms();
  size_t pos = ctx.rb().BeginDeferred();
  size_t n = 0;
  ctx.ForEachShard([&](Shard& s, uint32_t) {
    s.dbs[db].keys.ForEach([&](Entry* e) {
      if (e->has_ttl() && e->expire_ms() <= now) {
        return;
      }
      if (all || GlobMatch(pattern, e->key())) {
        ctx.rb().Bulk(e->key());
        n++;
      }
    });
  });
  ctx.rb().EndDeferredArray(pos, n);
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
// The cursor packs (table cursor << kShardBits) | shard.
void ScanCommand(CommandContext& ctx) {
  auto cursor = ParseUint64(ctx.arg(1));
  if (!cursor) {
    return ctx.rb().Error("ERR invalid cursor");
  }
  std::string_view pattern;
  std::string_view type;
  bool has_pattern = false, has_type = false;
  int64_t count = 10;
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (i + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    if (EqualsIgnoreCase(a, "MATCH")) {
      pattern = ctx.arg(++i);
      has_pattern = pattern != "*";
    } else if (EqualsIgnoreCase(a, "COUNT")) {
      auto c = ctx.IntArg(++i);
      if (!c) {
        return;
      }
      if (*c < 1) {
        return ctx.rb().Error(errors::kSyntax);
      }
      count = *c;
    } else if (EqualsIgnoreCase(a, "TYPE")) {
      type = ctx.arg(++i);
      has_type = true;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  const int db = ctx.client().db();
  const int64_t now = ctx.now_ms();
  constexpr uint64_t kShardMask = Keyspace::kShardCount - 1;
  uint64_t shard = *cursor & kShardMask;
  uint64_t tcursor = *cursor >> Keyspace::kShardBits;
  std::vector<std::string> keys;
  int64_t budget = count * 10;
  Keyspace& ks = ctx.keyspace();
  while (shard < Keyspace::kShardCount && static_cast<int64_t>(keys.size()) < count && budget > 0) {
    Shard& s = ks.shard(static_cast<uint32_t>(shard));
    if (!ctx.all_shards_locked()) {
      s.lock.lock();
    }
    const KeyTable& t = s.dbs[db].keys;
    if (t.empty()) {
      tcursor = 0;
    } else {
      do {
        tcursor = t.Scan(tcursor, [&](Entry* e) {
          if (e->has_ttl() && e->expire_ms() <= now) {
            return;
          }
          if (has_type && !EqualsIgnoreCase(TypeName(e->type()), type)) {
            return;
          }
          if (has_pattern && !GlobMatch(pattern, e->key())) {
            return;
          }
          keys.emplace_back(e->key());
        });
        budget--;
      } while (tcursor != 0 && static_cast<int64_t>(keys.size()) < count && budget > 0);
    }
    if (!ctx.all_shards_locked()) {
      s.lock.unlock();
    }
    if (tcursor == 0) {
      shard++;
    }
  }
  uint64_t next = shard >= Keyspace::kShardCount ? 0 : (tcursor << Keyspace::kShardBits) | shard;
  ctx.rb().Array(2);
  ctx.rb().Bulk(std::to_string(next));
  ctx.rb().Array(keys.size());
  for (const auto& k : keys) {
    ctx.rb().Bulk(k);
  }
}

// RENAME/RENAMENX: the value and its TTL move to the new key.
void RenameGeneric(CommandContext& ctx, bool nx) {
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  Database& db = ctx.db();
  KeyRef from = db.Lookup(src);
  if (!from) {
    return ctx.rb().Error(errors::kNoSuchKey);
  }
  if (src == dst) {
    return nx ? ctx.rb().Integer(0) : ctx.rb().Ok();
  }
  KeyRef to = db.Lookup(dst);
  if (to) {
    if (nx) {
      return ctx.rb().Integer(0);
    }
    ctx.KeyOverwritten(dst, to.entry()->type(), from.entry()->type());
    db.Erase(to);
  }
  // Detach and Insert may move entries of a shared table: look the source up again.
  from = db.Lookup(src);
  Entry* e = Entry::Rekey(db.Detach(from), dst);
  to = db.Lookup(dst);
  db.Insert(to, e);
  ctx.KeyModified(src, notify::kGeneric, "rename_from");
  ctx.KeyModified(dst, notify::kGeneric, "rename_to");
  return nx ? ctx.rb().Integer(1) : ctx.rb().Ok();
}
void RenameCommand(CommandContext& ctx) { RenameGeneric(ctx, false); }
void RenameNxCommand(CommandContext& ctx) { RenameGeneric(ctx, true); }

void RandomKeyCommand(CommandContext& ctx) {
  const int db = ctx.client().db();
  Keyspace& ks = ctx.keyspace();
  FastRandom& rng = ThreadRandom();
  // Pick a random non-empty shard (random probes, then a sweep), then a random slot.
  for (int attempt = 0; attempt < 100; attempt++) {
    uint32_t start = static_cast<uint32_t>(rng.Uniform(Keyspace::kShardCount));
    for (uint32_t k = 0; k < Keyspace::kShardCount; k++) {
      uint32_t i = (start + (k < 16 ? static_cast<uint32_t>(rng.Uniform(Keyspace::kShardCount)) : k)) &
                   (Keyspace::kShardCount - 1);
      Shard& s = ks.shard(i);
      if (!ctx.all_shards_locked()) {
        s.lock.lock();
      }
      KeyTable& t = s.dbs[db].keys;
      std::string key;
      bool expired = false;
      if (!t.empty()) {
        Entry* e = t.At(t.RandomPosition(rng.Next()));
        key.assign(e->key());
        expired = e->has_ttl() && e->expire_ms() <= ctx.now_ms();
        if (expired) {
          Database view(&ks, db, ctx.now_ms());
          view.Lookup(key);  // removes it
        }
      }
      if (!ctx.all_shards_locked()) {
        s.lock.unlock();
      }
      if (!key.empty() || (!t.empty() && !expired)) {
        if (!expired) {
          return ctx.rb().Bulk(key);
        }
        break;  // try another random key
      }
    }
  }
  ctx.rb().Null();
}

void DbSizeCommand(CommandContext& ctx) {
  const int db = ctx.client().db();
  size_t n = 0;
  ctx.ForEachShard([&](Shard& s, uint32_t) { n += s.dbs[db].keys.size(); });
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// Parses FLUSHDB/FLUSHALL's [ASYNC | SYNC]; returns false after replying on error.
bool ParseFlushMode(CommandContext& ctx, bool* async) {
  *async = ctx.server().config().GetString("lazyfree-lazy-user-flush") == "yes";
  if (ctx.argc() > 2) {
    ctx.rb().Error(errors::kSyntax);
    return false;
  }
  if (ctx.argc() == 2) {
    if (EqualsIgnoreCase(ctx.arg(1), "ASYNC")) {
      *async = true;
    } else if (EqualsIgnoreCase(ctx.arg(1), "SYNC")) {
      *async = false;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

void FlushGeneric(CommandContext& ctx, int only_db) {
  bool async;
  if (!ParseFlushMode(ctx, &async)) {
    return;
  }
  std::vector<DbTable> detached;
  const int num_dbs = ctx.keyspace().num_dbs();
  ctx.ForEachShard([&](Shard& s, uint32_t) {
    for (int d = 0; d < num_dbs; d++) {
      if (only_db >= 0 && d != only_db) {
        continue;
      }
      DbTable& t = s.dbs[d];
      if (t.keys.empty()) {
        continue;
      }
      InvalidateWatchesInDb(s, d);
      if (async) {
        detached.emplace_back(std::move(t));
        t = DbTable();
      } else {
        t.keys.Clear([](Entry* e) { Entry::Free(e); });
        t = DbTable();
      }
    }
  });
  if (!detached.empty()) {
    LazyFree(std::move(detached));
  }
  WorkerStats::Inc(ctx.worker().stats().dirty);
  ctx.rb().Ok();
}
void FlushDbCommand(CommandContext& ctx) { FlushGeneric(ctx, ctx.client().db()); }
void FlushAllCommand(CommandContext& ctx) { FlushGeneric(ctx, -1); }

void SelectCommand(CommandContext& ctx) {
  auto db = ParseDbIndex(ctx, ctx.arg(1));
  if (!db) {
    return;
  }
  ctx.client().set_db(*db);
  ctx.rb().Ok();
}

// After SWAPDB, clients blocked on a key of either database may now find data.
void SignalWaitersInSwappedDbs(CommandContext& ctx, Shard& s, int a, int b) {
  ShardState* st = StateIfAny(s);
  if (st == nullptr || st->waiters.empty()) {
    return;
  }
  for (const auto& [dbkey, queue] : st->waiters) {
    uint32_t d;
    memcpy(&d, dbkey.data(), 4);
    if (static_cast<int>(d) != a && static_cast<int>(d) != b) {
      continue;
    }
    std::string_view key(dbkey.data() + 4, dbkey.size() - 4);
    if (s.dbs[d].keys.Find(key, HashKey(key)) != KeyTable::kNotFound) {
      SignalKeyReady(ctx.server(), static_cast<int>(d), key);
    }
  }
}

void SwapDbCommand(CommandContext& ctx) {
  auto a = ParseInt64(ctx.arg(1));
  if (!a) {
    return ctx.rb().Error("ERR invalid first DB index");
  }
  auto b = ParseInt64(ctx.arg(2));
  if (!b) {
    return ctx.rb().Error("ERR invalid second DB index");
  }
  int n = ctx.keyspace().num_dbs();
  if (*a < 0 || *a >= n || *b < 0 || *b >= n) {
    return ctx.rb().Error(errors::kDbIndex);
  }
  Keyspace& ks = ctx.keyspace();
  if (!ctx.all_shards_locked()) {
    ks.LockAll();
  }
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    Shard& s = ks.shard(i);
    InvalidateWatchesInDb(s, static_cast<int>(*a));
    InvalidateWatchesInDb(s, static_cast<int>(*b));
    std::swap(s.dbs[*a], s.dbs[*b]);
    SignalWaitersInSwappedDbs(ctx, s, static_cast<int>(*a), static_cast<int>(*b));
  }
  if (!ctx.all_shards_locked()) {
    ks.UnlockAll();
  }
  WorkerStats::Inc(ctx.worker().stats().dirty);
  ctx.rb().Ok();
}

// COPY source destination [DB destination-db] [REPLACE]
void CopyCommand(CommandContext& ctx) {
  int dst_db = ctx.client().db();
  bool replace = false;
  for (size_t i = 3; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(a, "DB") && i + 1 < ctx.argc()) {
      auto d = ParseDbIndex(ctx, ctx.arg(++i));
      if (!d) {
        return;
      }
      dst_db = *d;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  if (src == dst && dst_db == ctx.client().db()) {
    return ctx.rb().Error("ERR source and destination objects are the same");
  }
  Database& from_db = ctx.db();
  Entry* e = from_db.Find(src);
  if (e == nullptr) {
    return ctx.rb().Integer(0);
  }
  Database to_db = ctx.DbAt(dst_db);
  KeyRef to = to_db.Lookup(dst);
  if (to) {
    if (!replace) {
      return ctx.rb().Integer(0);
    }
    ctx.KeyOverwritten(dst, to.entry()->type(), e->type(), dst_db);
    to_db.Erase(to);
    to = to_db.Lookup(dst);
  }
  e = from_db.Find(src);
  Entry* copy = Entry::Clone(e, dst);
  if (e->has_ttl()) {
    copy->SetExpireMs(e->expire_ms());
  }
  to_db.Insert(to, copy);
  ctx.KeyModified(dst, notify::kGeneric, "copy_to", dst_db);
  ctx.rb().Integer(1);
}

void MoveCommand(CommandContext& ctx) {
  auto d = ParseDbIndex(ctx, ctx.arg(2));
  if (!d) {
    return;
  }
  if (*d == ctx.client().db()) {
    return ctx.rb().Error("ERR source and destination objects are the same");
  }
  std::string_view key = ctx.arg(1);
  Database& from_db = ctx.db();
  KeyRef from = from_db.Lookup(key);
  if (!from) {
    return ctx.rb().Integer(0);
  }
  Database to_db = ctx.DbAt(*d);
  KeyRef to = to_db.Lookup(key);
  if (to) {
    return ctx.rb().Integer(0);
  }
  Entry* e = from_db.Detach(from);
  to_db.Insert(to, e);
  ctx.KeyModified(key, notify::kGeneric, "move_from");
  ctx.KeyModified(key, notify::kGeneric, "move_to", *d);
  ctx.rb().Integer(1);
}

void TouchCommand(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.argc(); i++) {
    if (Entry* e = ctx.db().Find(ctx.arg(i))) {
      ctx.TouchEntry(e);
      n++;
    }
  }
  ctx.rb().Integer(n);
}

void ObjectEncodingCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(e->EncodingName());
}

void ObjectFreqCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  if (!ctx.server().config().lfu_policy()) {
    return ctx.rb().Error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
        "note that when switching between policies at runtime LRU and LFU data will take "
        "some time to adjust.");
  }
  ctx.rb().Integer(e->lfu_counter());
}

void ObjectIdleTimeCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  if (ctx.server().config().lfu_policy()) {
    return ctx.rb().Error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
        "when switching between policies at runtime LRU and LFU data will take some time to "
        "adjust.");
  }
  uint32_t now = ctx.server().lru_clock();
  uint32_t then = e->access_clock();
  ctx.rb().Integer(now >= then ? now - then : 0);
}

void ObjectRefCountCommand(CommandContext& ctx) {
  Entry* e = ctx.db().Find(ctx.arg(2));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  ctx.rb().Integer(1);
}

void ObjectHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace

void RegisterKeyCommands(CommandTable& t) {
  t.Add({.name = "del", .arity = -2, .flags = "write", .acl = "@keyspace @write @slow",
         .keys = {KeyRange(1, -1, 1, "RM DELETE")}, .handler = DelCommand,
         .doc = {"generic", "1.0.0", "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
                 "Deletes keys; returns how many existed.", "key [key ...]"}});
  t.Add({.name = "unlink", .arity = -2, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyRange(1, -1, 1, "RM DELETE")}, .handler = UnlinkCommand,
         .doc = {"generic", "4.0.0", "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
                 "Deletes keys, reclaiming the memory of large values in the background.", "key [key ...]"}});
  t.Add({.name = "exists", .arity = -2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyRange(1, -1, 1, "RO")}, .handler = ExistsCommand,
         .doc = {"generic", "1.0.0", "O(N) where N is the number of keys to check.",
                 "Counts how many of the given keys exist (a repeated key counts each time).", "key [key ...]"}});
  t.Add({.name = "type", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = TypeCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Returns the type of the value of a key, or none.", "key"}});
  const char* kExpireSyntax = " [NX | XX | GT | LT]";
  t.Add({.name = "expire", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ExpireCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Sets a time to live in seconds on a key.",
                 std::string("key seconds") + kExpireSyntax}});
  t.Add({.name = "pexpire", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PExpireCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Sets a time to live in milliseconds on a key.",
                 std::string("key milliseconds") + kExpireSyntax}});
  t.Add({.name = "expireat", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ExpireAtCommand,
         .doc = {"generic", "1.2.0", "O(1)", "Sets the expiry of a key as a Unix time in seconds.",
                 std::string("key unix-time-seconds") + kExpireSyntax}});
  t.Add({.name = "pexpireat", .arity = -3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PExpireAtCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Sets the expiry of a key as a Unix time in milliseconds.",
                 std::string("key unix-time-milliseconds") + kExpireSyntax}});
  t.Add({.name = "ttl", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = TtlCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Returns the remaining time to live of a key in seconds.", "key"}});
  t.Add({.name = "pttl", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = PTtlCommand,
         .doc = {"generic", "2.6.0", "O(1)", "Returns the remaining time to live of a key in milliseconds.", "key"}});
  t.Add({.name = "expiretime", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ExpireTimeCommand,
         .doc = {"generic", "7.0.0", "O(1)", "Returns the expiry of a key as a Unix time in seconds.", "key"}});
  t.Add({.name = "pexpiretime", .arity = 2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = PExpireTimeCommand,
         .doc = {"generic", "7.0.0", "O(1)", "Returns the expiry of a key as a Unix time in milliseconds.", "key"}});
  t.Add({.name = "persist", .arity = 2, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = PersistCommand,
         .doc = {"generic", "2.2.0", "O(1)", "Removes the time to live of a key.", "key"}});
  t.Add({.name = "keys", .arity = 2, .flags = "readonly all_shards", .acl = "@keyspace @read @slow @dangerous",
         .handler = KeysCommand,
         .doc = {"generic", "1.0.0", "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
                 "Returns every key name matching a glob pattern.", "pattern"},
         .tips = {"request_policy:all_shards", "nondeterministic_output_order"}});
  t.Add({.name = "scan", .arity = -2, .flags = "readonly all_shards", .acl = "@keyspace @read @slow",
         .handler = ScanCommand,
         .doc = {"generic", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
                 "Iterates over the key names of the database with a cursor.",
                 "cursor [MATCH pattern] [COUNT count] [TYPE type]"},
         .tips = {"nondeterministic_output", "request_policy:special", "response_policy:special"}});
  t.Add({.name = "rename", .arity = 3, .flags = "write", .acl = "@keyspace @write @slow",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "OW UPDATE")}, .handler = RenameCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Renames a key, overwriting the destination.", "key newkey"}});
  t.Add({.name = "renamenx", .arity = 3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "OW INSERT")}, .handler = RenameNxCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Renames a key only when the new name is not taken.", "key newkey"}});
  t.Add({.name = "randomkey", .arity = 1, .flags = "readonly all_shards", .acl = "@keyspace @read @slow",
         .handler = RandomKeyCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Returns a random key name from the database.", ""},
         .tips = {"request_policy:all_shards", "response_policy:special", "nondeterministic_output"}});
  t.Add({.name = "dbsize", .arity = 1, .flags = "readonly fast all_shards", .acl = "@keyspace @read @fast",
         .handler = DbSizeCommand,
         .doc = {"server", "1.0.0", "O(1)", "Returns the number of keys in the database.", ""},
         .tips = {"request_policy:all_shards", "response_policy:agg_sum"}});
  t.Add({.name = "flushdb", .arity = -1, .flags = "write all_shards", .acl = "@keyspace @write @slow @dangerous",
         .handler = FlushDbCommand,
         .doc = {"server", "1.0.0", "O(N) where N is the number of keys in the selected database",
                 "Removes every key of the selected database.", "[ASYNC | SYNC]"},
         .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.Add({.name = "flushall", .arity = -1, .flags = "write all_shards", .acl = "@keyspace @write @slow @dangerous",
         .handler = FlushAllCommand,
         .doc = {"server", "1.0.0", "O(N) where N is the total number of keys in all databases",
                 "Removes every key of every database.", "[ASYNC | SYNC]"},
         .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.Add({.name = "select", .arity = 2, .flags = "loading stale fast", .acl = "@keyspace @fast",
         .handler = SelectCommand,
         .doc = {"connection", "1.0.0", "O(1)", "Changes the selected database of the connection.", "index"}});
  t.Add({.name = "swapdb", .arity = 3, .flags = "write fast all_shards", .acl = "@keyspace @write @fast @dangerous",
         .handler = SwapDbCommand,
         .doc = {"server", "4.0.0", "O(N) where N is the count of clients watching or blocking on keys from both databases.",
                 "Swaps the contents of two databases.", "index1 index2"}});
  t.Add({.name = "copy", .arity = -3, .flags = "write denyoom", .acl = "@keyspace @write @slow",
         .keys = {KeyAt(1, "RO ACCESS"), KeyAt(2, "OW UPDATE")}, .handler = CopyCommand,
         .doc = {"generic", "6.2.0", "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
                 "Copies the value of a key to a new key, optionally in another database.",
                 "source destination [DB destination-db] [REPLACE]"}});
  t.Add({.name = "move", .arity = 3, .flags = "write fast", .acl = "@keyspace @write @fast",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = MoveCommand,
         .doc = {"generic", "1.0.0", "O(1)", "Moves a key to another database.", "key db"}});
  t.Add({.name = "touch", .arity = -2, .flags = "readonly fast", .acl = "@keyspace @read @fast",
         .keys = {KeyRange(1, -1, 1, "RO")}, .handler = TouchCommand,
         .doc = {"generic", "3.2.1", "O(N) where N is the number of keys that will be touched.",
                 "Updates the last access time of keys; returns how many exist.", "key [key ...]"}});
  t.Add({.name = "object", .arity = -2, .acl = "@slow",
         .doc = {"generic", "2.2.3", "Depends on subcommand.", "A container for object introspection commands.", ""}});
  t.AddSub("object", {.name = "encoding", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectEncodingCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the internal encoding of a value.", "key"}});
  t.AddSub("object", {.name = "freq", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectFreqCommand,
                      .doc = {"generic", "4.0.0", "O(1)", "Returns the logarithmic access frequency counter of a key.", "key"}});
  t.AddSub("object", {.name = "idletime", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectIdleTimeCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the seconds since the last access to a key.", "key"}});
  t.AddSub("object", {.name = "refcount", .arity = 3, .flags = "readonly", .acl = "@keyspace @read @slow",
                      .keys = {KeyAt(2, "RO")}, .handler = ObjectRefCountCommand,
                      .doc = {"generic", "2.2.3", "O(1)", "Returns the reference count of a value.", "key"}});
  t.AddSub("object", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@keyspace @slow",
                      .handler = ObjectHelpCommand,
                      .doc = {"generic", "6.2.0", "O(1)", "Returns helpful text about the OBJECT subcommands.", ""}});
}

}  // namespace hotkv

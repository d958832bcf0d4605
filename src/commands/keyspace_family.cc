// Whole-database commands: KEYS SCAN RANDOMKEY DBSIZE FLUSHDB FLUSHALL SELECT SWAPDB.
//
// They lock shard by shard themselves (flag all_shards), or use the locks EXEC holds.
// SCAN's cursor packs (table cursor << kShardBits) | shard, and every key present for
// the whole iteration is returned at least once, even across table resizes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>
#include "commands/helpers.h"
#include "commands/register.h"
#include "common/random.h"
#include "engine/extension_value.h"
#include "engine/lazy_free.h"
#include "engine/vector_set_value.h"
#include "server/blocking.h"
#include "server/server.h"
#include "server/shard_state.h"

namespace hotkv {

namespace {

void KeysCommand(CommandContext& ctx) {
  std::string_view pattern = ctx.arg(1);
  bool all = pattern == "*";
  const int db = ctx.client().db();
  const int64_t now = ctx.now_ms();
  size_t pos = ctx.rb().BeginDeferred();
  size_t n = 0;
  const bool done = ctx.ForEachShardUnlessBusy([&](Shard& s, uint32_t) {
    s.db(db).keys.ForEach([&](Entry* e) {
      if (e->has_ttl() && e->expire_ms() <= now) {
        return;
      }
      if (all || GlobMatch(pattern, e->key())) {
        ctx.rb().Bulk(e->key());
        n++;
      }
    });
    return true;
  });
  if (!done) {
    ctx.rb().buffer()->Truncate(pos);
    return ctx.rb().Error(BusyScriptError());
  }
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
  // Scan steps allowed for this call: ten per key asked for, without overflowing for a
  // huge COUNT (it did, the budget went negative and SCAN returned nothing).
  int64_t budget = count > std::numeric_limits<int64_t>::max() / 10
                       ? std::numeric_limits<int64_t>::max()
                       : count * 10;
  Keyspace& ks = ctx.keyspace();
  while (shard < Keyspace::kShardCount && static_cast<int64_t>(keys.size()) < count && budget > 0) {
    Shard& s = ks.shard(static_cast<uint32_t>(shard));
    // A read (its lazy expiry is no change to a snapshot's image); a busy script holding
    // the shard answers -BUSY, as Redis.
    if (!ctx.all_shards_locked() && !s.lock.try_lock_read() &&
        !LockContendedUnlessBusy(ks, static_cast<uint32_t>(shard), true)) {
      return ctx.rb().Error(BusyScriptError());
    }
    const KeyTable& t = s.db(db).keys;
    if (t.empty()) {
      tcursor = 0;
    } else {
      do {
        tcursor = t.Scan(tcursor, [&](Entry* e) {
          if (e->has_ttl() && e->expire_ms() <= now) {
            return;
          }
          if (has_type && !EqualsIgnoreCase(TypeName(*e), type)) {
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

void RandomKeyCommand(CommandContext& ctx) {
  const int db = ctx.client().db();
  Keyspace& ks = ctx.keyspace();
  Rng& rng = ThreadRng();
  // Pick a random non-empty shard (random probes, then a sweep), then a random slot.
  for (int attempt = 0; attempt < 100; attempt++) {
    uint32_t start = static_cast<uint32_t>(rng.Below(Keyspace::kShardCount));
    for (uint32_t k = 0; k < Keyspace::kShardCount; k++) {
      uint32_t i = (start + (k < 16 ? static_cast<uint32_t>(rng.Below(Keyspace::kShardCount)) : k)) &
                   (Keyspace::kShardCount - 1);
      Shard& s = ks.shard(i);
      if (!ctx.all_shards_locked()) {
        s.lock.lock_read();  // a read (its lazy expiry is no change to a snapshot's image)
      }
      KeyTable& t = s.db(db).keys;
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
  if (!ctx.ForEachShardUnlessBusy([&](Shard& s, uint32_t) {
        n += s.db(db).keys.size();
        return true;
      })) {
    return ctx.rb().Error(BusyScriptError());
  }
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

// As Redis 8: ASYNC (or lazyfree-lazy-user-flush yes) detaches the databases' tables and
// replies at once while the lazy-free thread frees them; SYNC detaches them too, but the
// client waits (blocked, its worker serving the others) until the thread is done, and
// only inside a transaction are they freed right here. Keys written after the detach
// stay, as Redis documents for FLUSHALL ASYNC.
void FlushGeneric(CommandContext& ctx, int only_db) {
  bool async;
  if (!ParseFlushMode(ctx, &async)) {
    return;
  }
  const bool free_here = !async && ctx.in_exec();
  // An observer that orders events (the write stream) needs the flush to be one point in
  // time: then every shard is locked at once (Redis's FLUSHALL is atomic too).
  Keyspace& ks = ctx.keyspace();
  const bool lock_all = !ctx.all_shards_locked() && ks.AtomicFlushWanted();
  if (lock_all) {
    ks.LockAll();
    ctx.set_all_shards_locked(true);
  }
  Database::TablesChanged();
  std::vector<DbTable> detached;
  const int num_dbs = ctx.keyspace().num_dbs();
  uint64_t removed = 0;
  ctx.ForEachShard([&](Shard& s, uint32_t) {
    for (int d = 0; d < num_dbs; d++) {
      if (only_db >= 0 && d != only_db) {
        continue;
      }
      DbTable& t = s.db(d);
      if (t.keys.empty()) {
        continue;
      }
      InvalidateWatchesInDb(s, d);
      removed += t.keys.size();
      if (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
        DetachVectorSetsInFlight(t.keys);  // freed later: their writes must not record
      }
      if (free_here) {
        t.keys.Clear([](Entry* e) { Entry::Free(e); });
      } else {
        detached.emplace_back(std::move(t));
      }
      t = DbTable();
    }
  });
  ks.NotifyFlush(only_db);
  if (lock_all) {
    ctx.set_all_shards_locked(false);
    ks.UnlockAll();
  }
  // Redis's emptyData: every removed key is a change. FLUSHALL then kills a running
  // BGSAVE and, with save rules set, saves the empty dataset at once (which resets the
  // change counter), as Redis's flushAllDataAndResetRDB.
  WorkerStats::Inc(ctx.worker().stats().dirty, removed);
  if (only_db < 0) {
    if (PersistenceHooks* p = ctx.server().persistence()) {
      p->OnFlushAll(ctx.all_shards_locked());
    }
  }
  if (free_here) {
    return ctx.rb().Ok();
  }
  if (async) {
    FreeTables(std::move(detached));
    return ctx.rb().Ok();
  }
  // The reply (+OK) comes with the wake-up.
  std::shared_ptr<Waiter> waiter = BlockClientOnJob(ctx);
  FreeTables(std::move(detached), [waiter] { ResumeJobWaiter(waiter); });
}
void FlushDbCommand(CommandContext& ctx) { FlushGeneric(ctx, ctx.client().db()); }
void FlushAllCommand(CommandContext& ctx) { FlushGeneric(ctx, -1); }

void SelectCommand(CommandContext& ctx) {
  if (ctx.server().cluster() != nullptr) {
    // Redis checks cluster mode before the range: only database 0 exists there.
    auto v = ParseInt64(ctx.arg(1));
    if (v && *v >= std::numeric_limits<int32_t>::min() &&
        *v <= std::numeric_limits<int32_t>::max() && *v != 0) {
      return ctx.rb().Error("ERR SELECT is not allowed in cluster mode");
    }
  }
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
    if (s.db(d).keys.Find(key, HashKey(key)) != KeyTable::kNotFound) {
      SignalKeyReady(ctx.server(), static_cast<int>(d), key);
    }
  }
}

void SwapDbCommand(CommandContext& ctx) {
  if (ctx.server().cluster() != nullptr) {
    return ctx.rb().Error("ERR SWAPDB is not allowed in cluster mode");
  }
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
  Database::TablesChanged();
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    Shard& s = ks.shard(i);
    InvalidateWatchesInDb(s, static_cast<int>(*a));
    InvalidateWatchesInDb(s, static_cast<int>(*b));
    std::swap(s.db(*a), s.db(*b));
    if (g_vector_writes_outside_lock.load(std::memory_order_acquire) > 0) {
      RelocateVectorSetsInFlight(s.db(*a).keys, static_cast<int>(*a));
      RelocateVectorSetsInFlight(s.db(*b).keys, static_cast<int>(*b));
    }
    SignalWaitersInSwappedDbs(ctx, s, static_cast<int>(*a), static_cast<int>(*b));
  }
  ks.NotifySwapDb(static_cast<int>(*a), static_cast<int>(*b));
  if (!ctx.all_shards_locked()) {
    ks.UnlockAll();
  }
  WorkerStats::Inc(ctx.worker().stats().dirty);
  ctx.rb().Ok();
}

}  // namespace

void RegisterKeyspaceCommands(CommandTable& t) {
  t.Add({.name = "keys", .arity = 2, .flags = "readonly all_shards", .acl = "@keyspace @read @slow @dangerous",
         .handler = KeysCommand,
         .doc = {"generic", "1.0.0", "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
                 "Returns every key name matching a glob pattern.", "pattern"},
         .tips = {"request_policy:all_shards", "nondeterministic_output_order"}});
  t.Add({.name = "scan", .arity = -2, .flags = "readonly touches_arbitrary_keys all_shards", .acl = "@keyspace @read @slow",
         .handler = ScanCommand,
         .doc = {"generic", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
                 "Iterates over the key names of the database with a cursor.",
                 "cursor [MATCH pattern] [COUNT count] [TYPE type]"},
         .tips = {"nondeterministic_output", "request_policy:special", "response_policy:special"}});
  t.Add({.name = "randomkey", .arity = 1, .flags = "readonly touches_arbitrary_keys all_shards", .acl = "@keyspace @read @slow",
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
                 "Removes every key of the selected database.", "[flush-type: ASYNC | SYNC]"},
         .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.Add({.name = "flushall", .arity = -1, .flags = "write all_shards", .acl = "@keyspace @write @slow @dangerous",
         .handler = FlushAllCommand,
         .doc = {"server", "1.0.0", "O(N) where N is the total number of keys in all databases",
                 "Removes every key of every database.", "[flush-type: ASYNC | SYNC]"},
         .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.Add({.name = "select", .arity = 2, .flags = "loading stale fast", .acl = "@fast @connection",
         .handler = SelectCommand,
         .doc = {"connection", "1.0.0", "O(1)", "Changes the selected database of the connection.", "index"}});
  t.Add({.name = "swapdb", .arity = 3, .flags = "write fast all_shards", .acl = "@keyspace @write @fast @dangerous",
         .handler = SwapDbCommand,
         .doc = {"server", "4.0.0", "O(N) where N is the count of clients watching or blocking on keys from both databases.",
                 "Swaps the contents of two databases.", "index1 index2"}});
}

}  // namespace hotkv

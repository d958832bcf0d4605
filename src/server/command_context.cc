#include "server/command_context.h"

#include "common/random.h"
#include "common/string_util.h"
#include "engine/eviction.h"
#include "server/blocking.h"
#include "server/dispatcher.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/tracking.h"
#include "server/worker.h"

namespace hotkv {

CommandContext::CommandContext(Server& server, Worker& worker, Client& client, ReplyBuilder& rb,
                               const std::vector<std::string_view>& args,
                               const CommandSpec* cmd, int64_t now_ms)
    : server_(server),
      worker_(worker),
      client_(client),
      rb_(rb),
      args_(args),
      cmd_(cmd),
      now_ms_(now_ms),
      db_(&server.keyspace(), client.db(), now_ms) {
  TrackingCommandBegin(client);
}

// The outermost context of a thread ending sends the client-side caching invalidations
// its command queued (no shard lock held any more).
CommandContext::~CommandContext() {
  TrackingCommandEnd(client_, server_, cmd_);
}

void CommandContext::KeyModified(std::string_view key, int64_t notify_class,
                                 std::string_view event, int db) {
  WorkerStats::Inc(worker_.stats().dirty);
  if (db < 0 || db == db_.index()) {
    db = db_.index();
    db_.UpdateKeySize(key);
  } else {
    DbAt(db).UpdateKeySize(key);
  }
  if (g_watch_registrations.load(std::memory_order_relaxed) > 0) {
    // The key's shard is locked by the dispatcher (or by EXEC).
    TouchWatchedKey(keyspace().shard(Keyspace::ShardOf(key)), db, key);
  }
  // A key that changed may wake clients blocked on it: stream readers wait on keys that
  // exist (XREAD after the last id), and XREADGROUP readers must hear of a deleted key or
  // a destroyed group. Serve functions tell whether the change serves them.
  if (g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    SignalKeyReady(server_, db, key);
  }
  if (TrackingActive()) [[unlikely]] {
    TrackingKeyChanged(key);  // client-side caching (Redis's signalModifiedKey)
  }
  if (g_key_change_observers.load(std::memory_order_relaxed) > 0) [[unlikely]] {
    // Search indexes re-read the key, except after a TTL-only change (EXPIRE, PEXPIRE*,
    // EXPIREAT, GETEX, PERSIST: Redis's "expire"/"persist" events; an EXPIRE in the past
    // deletes and says "del"): re-indexing a document, vectors included, for its TTL
    // cost ~1.5 ms per EXPIRE on 3,000 x 128-dim vectors (bench/results/ai-scache_*).
    if (event != "expire" && event != "persist") {
      keyspace().NotifyChanged(db, key);
    }
  }
  Notify(notify_class, event, key, db);
}

void CommandContext::AddDirty(int64_t n) {
  // n < 0 takes back what KeyModified counted in this command (RENAME: two keys, one
  // change for Redis); the counter never goes below its value before the command, and
  // every reader takes differences modulo 2^64.
  if (n != 0) {
    WorkerStats::Inc(worker_.stats().dirty, static_cast<uint64_t>(n));
  }
}

void CommandContext::KeyChangedUnwatched(std::string_view key, int64_t notify_class,
                                         std::string_view event, int db) {
  WorkerStats::Inc(worker_.stats().dirty);
  if (db < 0) {
    db = db_.index();
  }
  if (g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    SignalKeyReady(server_, db, key);
  }
  if (notify_class != 0) {
    Notify(notify_class, event, key, db);
  }
}

void CommandContext::Notify(int64_t notify_class, std::string_view event, std::string_view key,
                            int db) {
  if (!(server_.config().notify_flags() & notify_class)) {
    return;
  }
  NotifyKeyspaceEvent(server_, notify_class, event, key, db < 0 ? db_.index() : db);
}

bool CommandContext::HoldsShard(uint32_t shard) const {
  return all_locked_ || ThisThreadHoldsShard(shard);
}

bool CommandContext::propagating() const { return server_.write_stream().active(); }

void CommandContext::PropagateAs(const std::vector<std::string_view>& args, int db) {
  WriteStream& ws = server_.write_stream();
  if (!ws.active()) {
    return;
  }
  ws.Append(db < 0 ? db_.index() : db, args);
  ws.MarkRewritten();
}

void CommandContext::PreventPropagation() {
  if (server_.write_stream().active()) {
    server_.write_stream().MarkRewritten();
  }
}

void CommandContext::CountLookup(bool hit) {
  WorkerStats::Inc(hit ? worker_.stats().keyspace_hits : worker_.stats().keyspace_misses);
}

void CommandContext::TouchEntry(Entry* e) {
  // CLIENT NO-TOUCH: the client's commands leave access times alone, except TOUCH's
  // (which is what it asks for), as Redis's lookupKey.
  if (client_.no_touch() && (cmd_ == nullptr || cmd_->full_name != "touch")) {
    return;
  }
  Config& cfg = server_.config();
  if (!cfg.lfu_policy()) {
    e->set_access_clock(server_.lru_clock());
    return;
  }
  // LFU: decay the counter by the minutes elapsed, then a logarithmic increment
  // (Redis's LFULogIncr with lfu-log-factor).
  uint32_t minutes = static_cast<uint32_t>(now_ms_ / 60000);
  uint8_t counter = LfuDecayedCounter(e, minutes, cfg.lfu_decay_time());
  // This thread's generator: no lock (glibc's random(), used before, takes a process-wide
  // one on every LFU read of every worker; bench/micro/lfu_bench.cc).
  e->set_lfu_counter(LfuLogIncrement(counter, cfg.lfu_log_factor(), ThreadRng()));
  e->set_access_clock(minutes);
}

std::optional<int64_t> CommandContext::IntArg(size_t i, std::string_view err) {
  auto v = ParseInt64(args_[i]);
  if (!v) {
    rb_.Error(err);
  }
  return v;
}

std::optional<double> CommandContext::DoubleArg(size_t i, std::string_view err) {
  auto v = ParseDouble(args_[i]);
  if (!v) {
    rb_.Error(err);
  }
  return v;
}

}  // namespace hotkv

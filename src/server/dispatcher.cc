#include "server/dispatcher.h"

#include <x86intrin.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "common/string_util.h"
#include "common/spin_lock.h"
#include "engine/expiry_pause.h"
#include "engine/keyspace.h"
#include "server/blocking.h"
#include "server/command_clock.h"
#include "server/command_context.h"
#include "server/busy_watch.h"
#include "server/connection.h"
#include "server/dispatched_slots.h"
#include "server/lock_wait_stats.h"
#include "server/memory_limit.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/slot_stats_hooks.h"
#include "server/tracking.h"
#include "server/worker.h"

namespace hotkv {

uint64_t CyclesNow() { return __rdtsc(); }

double CyclesPerMicrosecond() {
  static const double value = [] {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    uint64_t c1 = __rdtsc();
    auto t1 = std::chrono::steady_clock::now();
    double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    return us > 0 ? static_cast<double>(c1 - c0) / us : 1000.0;
  }();
  return value;
}

void ShardLockSet::AddAll() {
  for (auto& b : bits_) {
    b = ~uint64_t{0};
  }
}

bool ShardLockSet::empty() const {
  for (auto b : bits_) {
    if (b != 0) {
      return false;
    }
  }
  return true;
}

void ShardLockSet::Lock(Keyspace& ks, bool read_only) const {
  for (uint32_t w = 0; w < 16; w++) {
    uint64_t b = bits_[w];
    while (b != 0) {
      uint32_t i = (w << 6) | static_cast<uint32_t>(__builtin_ctzll(b));
      if (read_only) {
        ks.shard(i).lock.lock_read();
      } else {
        ks.shard(i).lock.lock();
      }
      b &= b - 1;
    }
  }
}

namespace {
std::atomic<int> g_busy_scripts{0};
std::mutex g_busy_mu;
struct BusySet {
  const ShardLockSet* set;
  bool function;
};
std::vector<BusySet> g_busy_sets;  // guarded by g_busy_mu
thread_local bool t_busy_function = false;  // the kind ShardIsBusy last found
thread_local const char* t_busy_gate = nullptr;  // SetThisThreadBusyGate
thread_local const ShardLockSet* t_paused_locks = nullptr;  // the paused script's shards
constexpr const char* kBusyFunctionError =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
}  // namespace

void SetThisThreadBusyGate(const char* error, const ShardLockSet* paused_locks) {
  t_busy_gate = error;
  t_paused_locks = error != nullptr ? paused_locks : nullptr;
}

bool PausedScriptHoldsShard(uint32_t shard) {
  return t_paused_locks != nullptr && t_paused_locks->Contains(shard);
}
const char* ThisThreadBusyGate() { return t_busy_gate; }

const char* AnyBusyScriptError() {
  if (g_busy_scripts.load(std::memory_order_acquire) == 0) {
    return nullptr;
  }
  std::lock_guard<std::mutex> g(g_busy_mu);
  if (g_busy_sets.empty()) {
    return nullptr;
  }
  return g_busy_sets.front().function ? kBusyFunctionError : kBusyScriptError;
}

void AddBusyShards(const ShardLockSet* set, bool function) {
  std::lock_guard<std::mutex> g(g_busy_mu);
  g_busy_sets.push_back(BusySet{set, function});
  g_busy_scripts.fetch_add(1, std::memory_order_release);
}

const char* BusyScriptError() {
  return t_busy_function ? kBusyFunctionError : kBusyScriptError;
}

void RemoveBusyShards(const ShardLockSet* set) {
  std::lock_guard<std::mutex> g(g_busy_mu);
  auto it = std::find_if(g_busy_sets.begin(), g_busy_sets.end(),
                         [set](const BusySet& b) { return b.set == set; });
  if (it != g_busy_sets.end()) {
    g_busy_sets.erase(it);
    g_busy_scripts.fetch_sub(1, std::memory_order_release);
  }
}

bool ShardIsBusy(uint32_t shard) {
  if (g_busy_scripts.load(std::memory_order_acquire) == 0) {
    return false;
  }
  std::lock_guard<std::mutex> g(g_busy_mu);
  for (const BusySet& b : g_busy_sets) {
    // The script may add shards meanwhile; a stale bit only delays the BUSY reply.
    if (b.set->Contains(shard)) {
      t_busy_function = b.function;
      return true;
    }
  }
  return false;
}

ShardLockWaitStats g_shard_lock_waits;

namespace {
void RecordShardLockWait(int64_t ns_signed) {
  const uint64_t ns = static_cast<uint64_t>(std::max<int64_t>(0, ns_signed));
  ShardLockWaitStats& s = g_shard_lock_waits;
  s.waits.fetch_add(1, std::memory_order_relaxed);
  s.wait_ns.fetch_add(ns, std::memory_order_relaxed);
  if (ns >= 100000) {
    s.over_100us.fetch_add(1, std::memory_order_relaxed);
  }
  if (ns >= 1000000) {
    s.over_1ms.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t m = s.max_ns.load(std::memory_order_relaxed);
  while (ns > m && !s.max_ns.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {
  }
}
}  // namespace

bool LockContendedUnlessBusy(Keyspace& ks, uint32_t shard, bool read_only) {
  ShardLock& lock = ks.shard(shard).lock;
  const int64_t t0 = MonotonicNs();
  for (int spins = 0;; spins++) {
    if (read_only ? lock.try_lock_read() : lock.try_lock()) {
      RecordShardLockWait(MonotonicNs() - t0);  // a write's pre-write save included
      return true;
    }
    if (g_busy_scripts.load(std::memory_order_relaxed) != 0 && ShardIsBusy(shard)) {
      return false;
    }
    if (t_busy_gate != nullptr) [[unlikely]] {
      return false;  // serving while this thread's script is busy: never wait
    }
    SpinWait(spins);
  }
}

namespace {
// A WATCH (or UNWATCH) of one key waiting for the busy run that holds its shard. The
// waiter owns it (on its stack) and keeps it queued until done or withdrawn.
struct PendingWatch {
  uint32_t shard;
  int db;
  std::string_view key;
  Client* client;
  bool unwatch;
  bool done = false;
};
std::mutex g_pending_watch_mu;
std::vector<PendingWatch*> g_pending_watches;  // guarded by g_pending_watch_mu
std::atomic<int> g_pending_watch_count{0};

void Withdraw(PendingWatch* w) {  // g_pending_watch_mu held
  auto it = std::find(g_pending_watches.begin(), g_pending_watches.end(), w);
  if (it != g_pending_watches.end()) {
    g_pending_watches.erase(it);
    g_pending_watch_count.fetch_sub(1, std::memory_order_release);
  }
}

void DoPending(Keyspace& ks, const PendingWatch& w) {
  if (w.unwatch) {
    UnwatchKey(ks.shard(w.shard), w.db, w.key, w.client);
  } else {
    WatchKey(ks.shard(w.shard), w.db, w.key, w.client);
  }
}
}  // namespace

void DrainPendingWatches(Keyspace& ks, const ShardLockSet& held) {
  if (g_pending_watch_count.load(std::memory_order_acquire) == 0) [[likely]] {
    return;
  }
  std::lock_guard<std::mutex> g(g_pending_watch_mu);
  for (auto it = g_pending_watches.begin(); it != g_pending_watches.end();) {
    PendingWatch* w = *it;
    if (held.Contains(w->shard)) {
      DoPending(ks, *w);
      w->done = true;
      it = g_pending_watches.erase(it);
      g_pending_watch_count.fetch_sub(1, std::memory_order_release);
    } else {
      ++it;
    }
  }
}

namespace {

// Does one watch or unwatch on a shard that is taken: under its lock once it comes free,
// or by the busy run holding it (DrainPendingWatches), which is asked only once the shard
// is registered as busy (a run not busy yet ends or becomes busy). `limit_us` < 0 waits
// as long as it takes; false after the limit. A thread whose own script is paused here
// (Worker::ServeWhileBusy) serves the requests on that script's shards while it waits.
bool OnTakenShard(Keyspace& ks, PendingWatch& w, double limit_us) {
  bool queued = false;
  const uint64_t t0 = CyclesNow();
  ShardLock& lock = ks.shard(w.shard).lock;
  for (int spins = 0;; spins++) {
    if (queued) {
      std::lock_guard<std::mutex> g(g_pending_watch_mu);
      if (w.done) {
        return true;
      }
    } else if ((spins & 15) == 0 && g_busy_scripts.load(std::memory_order_relaxed) != 0 &&
               ShardIsBusy(w.shard)) {
      std::lock_guard<std::mutex> g(g_pending_watch_mu);
      g_pending_watches.push_back(&w);
      g_pending_watch_count.fetch_add(1, std::memory_order_release);
      queued = true;
    }
    if (w.unwatch ? lock.try_lock_read() : lock.try_lock()) {
      // Free again (the run ended): withdraw the request, unless it was served.
      bool served = false;
      if (queued) {
        std::lock_guard<std::mutex> g(g_pending_watch_mu);
        served = w.done;
        Withdraw(&w);
      }
      if (!served) {
        DoPending(ks, w);
      }
      lock.unlock();
      return true;
    }
    if (t_paused_locks != nullptr) [[unlikely]] {
      DrainPendingWatches(ks, *t_paused_locks);
    }
    if (limit_us >= 0 && (spins & 63) == 0 &&
        static_cast<double>(CyclesNow() - t0) / CyclesPerMicrosecond() > limit_us) {
      if (!queued) {
        return false;
      }
      std::lock_guard<std::mutex> g(g_pending_watch_mu);
      if (w.done) {
        return true;
      }
      Withdraw(&w);
      return false;
    }
    SpinWait(spins);
  }
}

// Registers one watch on a shard that is busy or taken. False after a second.
bool WatchOnBusyShard(Keyspace& ks, uint32_t shard, int db, std::string_view key, Client* c) {
  PendingWatch w{shard, db, key, c, /*unwatch=*/false};
  return OnTakenShard(ks, w, 1000000.0);
}

}  // namespace

bool UnwatchOnTakenShard(Keyspace& ks, uint32_t shard, int db, std::string_view key, Client* c) {
  PendingWatch w{shard, db, key, c, /*unwatch=*/true};
  return OnTakenShard(ks, w, t_busy_gate != nullptr ? 1000000.0 : -1.0);
}

void WatchDuringBusy(CommandContext& ctx) {
  Client& c = ctx.client();
  if (c.in_multi()) {
    return ctx.rb().Error("ERR WATCH inside MULTI is not allowed");
  }
  Keyspace& ks = ctx.keyspace();
  const int db = c.db();
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string_view key = ctx.arg(i);
    if (std::any_of(c.watched_keys().begin(), c.watched_keys().end(),
                    [&](const WatchedKey& wk) { return wk.db == db && wk.key == key; })) {
      continue;
    }
    const uint32_t shard = Keyspace::ShardOf(key);
    if (PausedScriptHoldsShard(shard)) {
      WatchKey(ks.shard(shard), db, key, &c);  // this thread's paused script holds it
    } else if (ks.shard(shard).lock.try_lock()) {
      WatchKey(ks.shard(shard), db, key, &c);
      ks.shard(shard).lock.unlock();
    } else if (!WatchOnBusyShard(ks, shard, db, key, &c)) {
      c.watch_len.store(c.watched_keys().size(), std::memory_order_relaxed);
      return ctx.rb().Error(BusyScriptError());
    }
    c.watched_keys().push_back({db, std::string(key)});
  }
  c.watch_len.store(c.watched_keys().size(), std::memory_order_relaxed);
  ctx.rb().Ok();
}

namespace {

// A shard a busy script holds: -BUSY, except for WATCH, which Redis registers meanwhile.
void ReplyShardBusy(CommandContext& ctx, const CommandSpec* cmd) {
  if (cmd->parent == nullptr && cmd->name == "watch") {
    return WatchDuringBusy(ctx);
  }
  ctx.rb().Error(BusyScriptError());
}

}  // namespace

// Never waits while holding a shard of the set: on a taken shard it releases what it
// took, waits for that shard to be free, and starts again. Scripts (scripting/) may then
// wait for a shard below the ones they hold without deadlocking with these lockers.
bool ShardLockSet::LockUnlessBusy(Keyspace& ks, bool read_only) const {
  for (;;) {
    int contended = -1;
    for (uint32_t w = 0; w < 16 && contended < 0; w++) {
      uint64_t b = bits_[w];
      while (b != 0) {
        uint32_t i = (w << 6) | static_cast<uint32_t>(__builtin_ctzll(b));
        ShardLock& lock = ks.shard(i).lock;
        if (!(read_only ? lock.try_lock_read() : lock.try_lock())) {
          contended = static_cast<int>(i);
          break;
        }
        b &= b - 1;
      }
    }
    if (contended < 0) {
      return true;
    }
    // Release the shards below the contended one.
    for (uint32_t w = 0; w <= static_cast<uint32_t>(contended) >> 6; w++) {
      uint64_t taken = bits_[w];
      if (w == static_cast<uint32_t>(contended) >> 6) {
        taken &= (uint64_t{1} << (contended & 63)) - 1;
      }
      while (taken != 0) {
        ks.shard((w << 6) | static_cast<uint32_t>(__builtin_ctzll(taken))).lock.unlock();
        taken &= taken - 1;
      }
    }
    if (t_busy_gate != nullptr) [[unlikely]] {
      return false;  // serving while this thread's script is busy: never wait
    }
    ShardLock& lock = ks.shard(static_cast<uint32_t>(contended)).lock;
    for (int spins = 0; lock.is_locked(); spins++) {
      if (g_busy_scripts.load(std::memory_order_relaxed) != 0 &&
          ShardIsBusy(static_cast<uint32_t>(contended))) {
        return false;
      }
      SpinWait(spins);
    }
  }
}

void ShardLockSet::Unlock(Keyspace& ks) const {
  for (uint32_t w = 0; w < 16; w++) {
    uint64_t b = bits_[w];
    while (b != 0) {
      uint32_t i = (w << 6) | static_cast<uint32_t>(__builtin_ctzll(b));
      ks.shard(i).lock.unlock();
      b &= b - 1;
    }
  }
}

namespace {

// Which shard locks the running command holds (for serve functions).
thread_local int t_single_shard = -1;
thread_local const ShardLockSet* t_lock_set = nullptr;
thread_local std::vector<uint32_t> t_extra_locks;
thread_local bool t_serve_retry = false;
thread_local Keyspace* t_extra_ks = nullptr;

}  // namespace

bool ThisThreadHoldsShard(uint32_t shard) {
  if (t_single_shard >= 0 && static_cast<uint32_t>(t_single_shard) == shard) {
    return true;
  }
  if (t_lock_set != nullptr && t_lock_set->Contains(shard)) {
    return true;
  }
  return std::find(t_extra_locks.begin(), t_extra_locks.end(), shard) != t_extra_locks.end();
}

const ShardLockSet* ExchangeThreadLockSet(const ShardLockSet* set) {
  const ShardLockSet* prev = t_lock_set;
  t_lock_set = set;
  return prev;
}

bool TryLockExtraShard(Keyspace& ks, uint32_t shard) {
  if (ThisThreadHoldsShard(shard)) {
    return true;
  }
  if (ks.shard(shard).lock.try_lock()) {
    t_extra_locks.push_back(shard);
    t_extra_ks = &ks;
    return true;
  }
  t_serve_retry = true;
  return false;
}

void ReleaseServeLocks() {
  for (uint32_t s : t_extra_locks) {
    t_extra_ks->shard(s).lock.unlock();
  }
  t_extra_locks.clear();
}

void ClearServeRetry() { t_serve_retry = false; }
bool ServeRetryRequested() { return t_serve_retry; }

namespace {

void RejectUnknown(ReplyBuilder& rb, const std::vector<std::string_view>& args) {
  std::string msg = "ERR unknown command '";
  msg.append(args[0].substr(0, 128));
  msg += "', with args beginning with: ";
  size_t args_len = 0;
  for (size_t i = 1; i < args.size() && args_len < 128; i++) {
    std::string_view a = args[i].substr(0, 128 - args_len);
    msg += '\'';
    msg.append(a);
    msg += "' ";
    args_len += a.size() + 3;
  }
  rb.Error(msg);
}

bool AllowedInMulti(const CommandSpec* c) {
  const std::string& n = c->parent ? c->parent->name : c->name;
  return n == "exec" || n == "discard" || n == "multi" || n == "watch" || n == "quit" ||
         n == "reset";
}

// Write stream: what a command that ran goes in as. A handler that rewrote its command
// (PropagateAs) has recorded it already; otherwise a command that changed the data (the
// dirty counter moved) goes in as it ran.
struct StreamScope {
  WriteStream* ws = nullptr;  // null: nobody consumes the stream
  uint64_t dirty_before = 0;
};

inline StreamScope BeginStream(CommandContext& ctx) {
  StreamScope sc;
  WriteStream& ws = ctx.server().write_stream();
  if (ws.active()) [[unlikely]] {
    sc.ws = &ws;
    ws.BeginCommand();
    sc.dirty_before = ctx.worker().stats().dirty.load(std::memory_order_relaxed);
  }
  return sc;
}

// Committed here when it can be (AppendCommit: nothing else pending, no MULTI): the
// records of blocked clients this command then serves follow it, as before.
inline void EndStream(const StreamScope& sc, CommandContext& ctx) {
  if (!sc.ws->rewritten() &&
      ctx.worker().stats().dirty.load(std::memory_order_relaxed) != sc.dirty_before) {
    sc.ws->AppendCommit(ctx.db().index(), ctx.args());
  }
}

// MONITOR (server/monitor.h): a command that ran, fed under its locks so that commands on
// one key reach monitors in the order they ran. One relaxed load when nobody monitors.
[[gnu::always_inline]] inline void FeedMonitors(CommandContext& ctx) {
  MonitorFeed& m = ctx.server().monitors();
  if (m.active()) [[unlikely]] {
    const CommandSpec* cmd = ctx.command();
    if (!cmd->is(kCmdAdmin) && !cmd->is(kCmdSkipMonitor)) {
      m.Feed(ctx.client(), ctx.client().db(), ctx.args(), ctx.redacted_args());
    }
  }
}

// After the handler, still under the command's locks: its write-stream record, the
// blocked clients it woke, and the record's commit (before the locks go: the order stays
// each key's history).
[[gnu::always_inline]] inline void FinishUnderLocks(CommandContext& ctx,
                                                    const StreamScope& stream) {
  if (ctx.client().tracking_flags() != 0) [[unlikely]] {
    TrackingRememberKeys(ctx, false);  // client-side caching: the keys it read
  }
  if (stream.ws != nullptr) [[unlikely]] {
    EndStream(stream, ctx);
  }
  if (g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    ServeReadyKeys(ctx.server(), ctx.worker());
  }
  if (stream.ws != nullptr) [[unlikely]] {
    stream.ws->Commit();
  }
  FeedMonitors(ctx);
}

// Runs the handler with the shards of `set` locked (ascending order). A handler that asks
// for more shards (CommandContext::RequestShard: keys named by data, as SORT's BY/GET
// patterns) has changed and replied nothing: the locks are released and the handler runs
// again with the larger set, until it has every shard it needs. The set only grows, so
// this ends; each run sees one consistent state, so the command stays atomic.
void RunWithLockSet(CommandContext& ctx, const CommandSpec* cmd, ShardLockSet set,
                    const SnapshotKeyHint* snapshot_hint = nullptr) {
  Keyspace& ks = ctx.keyspace();
  for (;;) {
    // Served while this thread's script is busy (WATCH): the paused script's shards are
    // used as they are; only the others are locked.
    const ShardLockSet* lock = &set;
    ShardLockSet unborrowed;
    if (t_paused_locks != nullptr) [[unlikely]] {
      unborrowed = set;
      unborrowed.Subtract(*t_paused_locks);
      lock = &unborrowed;
    }
    t_snapshot_key_hint = snapshot_hint;  // the first run only: more shards are reads
    const bool locked = lock->LockUnlessBusy(ks, !cmd->is(kCmdWrite | kCmdLockExclusive));
    t_snapshot_key_hint = nullptr;
    snapshot_hint = nullptr;
    if (!locked) [[unlikely]] {
      return ReplyShardBusy(ctx, cmd);
    }
    t_lock_set = &set;
    const StreamScope stream = BeginStream(ctx);
    cmd->handler(ctx);
    if (ctx.shards_requested()) [[unlikely]] {
      t_lock_set = nullptr;
      lock->Unlock(ks);
      for (uint32_t s : ctx.TakeRequestedShards()) {
        set.Add(s);
      }
      continue;
    }
    FinishUnderLocks(ctx, stream);
    t_lock_set = nullptr;
    lock->Unlock(ks);
    return;
  }
}

// Whether a walk snapshot's pre-write save may be limited to this write command's
// declared keys in the client's database (engine/keyspace.h, SnapshotKeyHint): not for
// commands that change keys elsewhere (MOVE and COPY ... DB: another database; the
// self-locking and all-shard ones lock by themselves), nor while clients are blocked
// (serving one may push to a BLMOVE destination in a shard the command holds).
bool SnapshotHintFits(const CommandSpec* cmd) {
  if (cmd->is(kCmdSelfLocking) || cmd->is(kCmdAllShards) ||
      g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    return false;
  }
  return cmd->name != "move" && cmd->name != "copy";
}

// A command whose only key spec runs from a fixed position to the last argument (PFCOUNT,
// EXISTS, DEL, MGET, ...), called with exactly one key: that key's position, without the
// key-spec walk (GetKeys and its vector); else -1.
inline int LoneRangeKey(const CommandSpec* cmd, size_t argc) {
  if (cmd->key_specs.size() != 1 || cmd->getkeys != nullptr) {
    return -1;
  }
  const KeySpec& k = cmd->key_specs[0];
  if (k.begin != KeySpec::Begin::kIndex || k.find != KeySpec::Find::kRange || k.lastkey != -1 ||
      k.limit > 1 || (k.flags & kKeyNotKey) || k.index <= 0 ||
      static_cast<size_t>(k.index) + 1 != argc) {
    return -1;
  }
  return k.index;
}

// Runs the handler with the key locks taken (unless the caller holds them already).
//
// self_locking commands (VSIM, VADD, VSIM.SEARCH, ...) are run with no lock: their
// handlers lock the key's shard only to look the key up (or create it) and copy the
// shared_ptr of its value, release it for the engine call, and take it again briefly
// for KeyModified. Inside EXEC (ExecuteQueued) every queued command's key shards are
// already locked from the declared key specs, and the handlers see that through
// ThisThreadHoldsShard() and lock nothing.
// Inlined into DispatchInner (its one caller): a call of its own cost ~10 Ir per command.
[[gnu::always_inline]] inline void RunCommand(CommandContext& ctx, const CommandSpec* cmd,
                                              bool locks_held) {
  Keyspace& ks = ctx.keyspace();
  thread_local std::vector<int> key_pos;
  // Plain single-key commands (GET, SET, INCR, ...: one key, always at the same position)
  // skip the key-spec walk.
  int single = -1;
  bool multi = false;
  if (!locks_held && !cmd->key_specs.empty() && !cmd->is(kCmdSelfLocking)) {
    if (cmd->single_key_index > 0) {
      if (static_cast<size_t>(cmd->single_key_index) < ctx.argc()) {
        single = cmd->single_key_index;
      }
    } else if (const int lone = LoneRangeKey(cmd, ctx.argc()); lone > 0) {
      single = lone;
    } else {
      key_pos.clear();
      cmd->GetKeys(ctx.args(), &key_pos);
      if (key_pos.size() == 1) {
        single = key_pos[0];
      } else {
        multi = !key_pos.empty();
      }
    }
  }
  // The stream's state is read only once the command's locks are held: a consumer that
  // starts (AOF turned on) takes every lock to write its base, so a command either ran
  // before (in the base) or sees the stream active (in the stream).
  //
  // The key hint (engine/database.h) of this command's key is cleared by Dispatch once
  // the command is over (argument memory is reused by later commands).
  if (single >= 0) {
    std::string_view key = ctx.arg(static_cast<size_t>(single));
    uint32_t shard;
    if (KeyHintNames(key)) {
      shard = t_key_hint.shard;  // pipeline-prefetch located it already
    } else {
      const uint32_t slot = KeySlot(key);
      shard = Keyspace::ShardOfSlot(slot);
      // The slot saves the engine's per-slot count a CRC.
      SetKeyHint(key, shard, HashKey(key), slot);
    }
    Shard& s = ks.shard(shard);
    // A read needs no snapshot pre-write check (engine/keyspace.h, ShardLock); a write
    // during a walk snapshot saves just its key first when it can say so.
    const bool write = cmd->is(kCmdWrite | kCmdLockExclusive);
    SnapshotKeyHint hint;
    if (write && g_snapshot_epoch.load(std::memory_order_relaxed) != 0 &&
        SnapshotHintFits(cmd)) [[unlikely]] {
      hint = SnapshotKeyHint{ctx.client().db(), &key, 1};
      t_snapshot_key_hint = &hint;
    }
    // Served while this thread's script is busy (WATCH): a shard the paused script holds
    // is used as it is, not locked (nor unlocked).
    const bool borrowed = t_busy_gate != nullptr && PausedScriptHoldsShard(shard);
    const bool locked = borrowed || (write ? s.lock.try_lock() : s.lock.try_lock_read()) ||
                        LockContendedUnlessBusy(ks, shard, !write);
    t_snapshot_key_hint = nullptr;
    if (!locked) [[unlikely]] {
      return ReplyShardBusy(ctx, cmd);
    }
    t_single_shard = static_cast<int>(shard);
    const StreamScope stream = BeginStream(ctx);
    cmd->handler(ctx);
    if (ctx.shards_requested()) [[unlikely]] {
      // The command found keys in other shards (SORT's BY/GET patterns) and changed
      // nothing: run it again holding them all.
      t_single_shard = -1;
      t_key_hint = KeyHint{};
      if (!borrowed) {
        s.lock.unlock();
      }
      ShardLockSet set;
      set.Add(shard);
      RunWithLockSet(ctx, cmd, set);
      return;
    }
    FinishUnderLocks(ctx, stream);
    t_single_shard = -1;
    if (!borrowed) {
      s.lock.unlock();
    }
  } else if (multi) {
    // Each key's slot is kept for the handler (server/dispatched_slots.h): MGET and MSET
    // then locate their keys without a second CRC16.
    ShardLockSet set;
    // The cluster router may have given them already (all keys in one slot).
    const bool given = DispatchedSlotsGiven(ctx.args());
    if (!given) {
      BeginDispatchedSlots(ctx.args());
    }
    for (int p : key_pos) {
      uint32_t slot = given ? DispatchedKeySlot(ctx.args(), static_cast<size_t>(p)) : kNoSlot;
      if (slot == kNoSlot) {
        const std::string_view key = ctx.arg(p);
        // (The first key's slot may come with the pipeline-prefetch hint.)
        const bool hinted = KeyHintNames(key) && t_key_hint.slot != kNoSlot;
        slot = hinted ? t_key_hint.slot : KeySlot(key);
        SetDispatchedSlot(static_cast<size_t>(p), slot);
      }
      set.Add(Keyspace::ShardOfSlot(slot));
    }
    if (cmd->is(kCmdWrite | kCmdLockExclusive) &&
        g_snapshot_epoch.load(std::memory_order_relaxed) != 0 && SnapshotHintFits(cmd)) [[unlikely]] {
      thread_local std::vector<std::string_view> keys;
      keys.clear();
      for (int p : key_pos) {
        keys.push_back(ctx.arg(p));
      }
      const SnapshotKeyHint hint{ctx.client().db(), keys.data(), keys.size()};
      RunWithLockSet(ctx, cmd, set, &hint);
    } else {
      RunWithLockSet(ctx, cmd, set);
    }
    EndDispatchedSlots();
  } else {
    const StreamScope stream = BeginStream(ctx);
    cmd->handler(ctx);
    if (ctx.client().tracking_flags() != 0 && cmd->is(kCmdSelfLocking)) [[unlikely]] {
      TrackingRememberKeys(ctx, !locks_held);  // VSIM & co. ran unlocked
    }
    if (stream.ws != nullptr) [[unlikely]] {
      EndStream(stream, ctx);
    }
    if (g_blocked_clients.load(std::memory_order_relaxed) > 0) {
      ServeReadyKeys(ctx.server(), ctx.worker(), false);  // keyless commands (SWAPDB)
    }
    if (stream.ws != nullptr) [[unlikely]] {
      // Keyless writes (FLUSHALL, SWAPDB) commit under their locks through the stream's
      // observer; a self-locking command (VADD) commits here, after its locks.
      stream.ws->Commit();
    }
    FeedMonitors(ctx);
    // (A pipeline-prefetch hint naming this command's key is cleared by Dispatch.)
  }
}

// Inlined into the dispatch path (an out-of-line call showed in instruction counts).
[[gnu::always_inline]] inline void Account(Worker& w, Client& c, const CommandSpec* cmd,
                    const std::vector<std::string_view>& args, uint64_t cycles, bool failed,
                    uint64_t redacted) {
  CommandStats& st = w.command_stats()[cmd->id];
  WorkerStats::Inc(st.calls);
  WorkerStats::Inc(st.cycles, cycles);
  if (failed) {
    WorkerStats::Inc(st.failed);
  }
  WorkerStats::Inc(w.stats().commands);
  Client::OwnerAdd(c.tot_cmds, 1);
  Config& cfg = w.server().config();
  // The TSC rate, converted once (one guard per command).
  struct CycleScale {
    double per_us;
    uint64_t one_us;  // cycles of a microsecond, rounded up
  };
  static const CycleScale scale = [] {
    const double per_us = CyclesPerMicrosecond();
    return CycleScale{per_us, static_cast<uint64_t>(std::ceil(per_us))};
  }();
  // Under a microsecond (most commands): latency bucket 0, below every latency-monitor
  // threshold (whole milliseconds), and slow only for slowlog-log-slower-than 0; no
  // floating-point conversion on this path.
  if (cycles < scale.one_us) [[likely]] {
    if (cfg.latency_tracking()) {
      WorkerStats::Inc(st.latency_hist[0]);
    }
    if (cfg.slowlog_log_slower_than() != 0 || cmd->is(kCmdSkipSlowlog)) {
      return;
    }
  } else {
    const bool tracking = cfg.latency_tracking();
    const int64_t threshold_ms = cfg.latency_monitor_threshold();
    if (tracking || threshold_ms > 0) {
      const uint64_t us = static_cast<uint64_t>(static_cast<double>(cycles) / scale.per_us);
      if (tracking) {
        // (1 us is bucket 0 too: bucket 0 holds up to 1,024 ns.)
        WorkerStats::Inc(st.latency_hist[us <= 1 ? 0 : LatencyBucket(us)]);
      }
      w.server().latency().AddIfNeeded(threshold_ms,
                                       cmd->is(kCmdFast) ? "fast-command" : "command",
                                       static_cast<int64_t>(us / 1000));
    }
  }
  int64_t slower = cfg.slowlog_log_slower_than();
  if (slower >= 0 && !cmd->is(kCmdSkipSlowlog) &&
      static_cast<double>(cycles) >= static_cast<double>(slower) * scale.per_us) {
    int64_t us = static_cast<int64_t>(static_cast<double>(cycles) / scale.per_us);
    if (w.server().slowlog().Add(args, us, c.addr, c.name(),
                                 static_cast<size_t>(cfg.slowlog_max_len()), redacted)) {
      WorkerStats::Inc(st.slowlog_count);
      WorkerStats::Inc(st.slowlog_us_sum, static_cast<uint64_t>(us));
      if (static_cast<uint64_t>(us) > st.slowlog_us_max.load(std::memory_order_relaxed)) {
        st.slowlog_us_max.store(static_cast<uint64_t>(us), std::memory_order_relaxed);
      }
    }
  }
}

}  // namespace

void AccountCommand(Worker& w, Client& c, const CommandSpec* cmd,
                    const std::vector<std::string_view>& args, uint64_t cycles, bool failed,
                    uint64_t redacted) {
  Account(w, c, cmd, args, cycles, failed, redacted);
}

namespace {

void Reject(Worker& w, Client& c, ReplyBuilder& rb, const CommandSpec* cmd, std::string_view msg) {
  rb.Error(msg);
  if (cmd != nullptr) {
    WorkerStats::Inc(w.command_stats()[cmd->id].rejected);
  }
  if (c.in_multi()) {
    c.FlagMultiError();
  }
}

// Redis's memory check in processCommand: with maxmemory set, evict before every
// command; when used memory stays over the limit, reject the commands that may grow it
// (denyoom), any command queued inside MULTI, and EXEC when its queue holds a denyoom
// command (that EXEC aborts the transaction, as Redis's execCommandAbort).
bool RejectedForMemory(Worker& w, Client& c, ReplyBuilder& rb, const CommandSpec* cmd, int64_t now) {
  if (PerformEvictions(w.server(), now) != MemoryState::kOverLimit) {
    return false;
  }
  bool deny = cmd->is(kCmdDenyOom);
  bool is_exec = false;
  if (c.in_multi()) {
    const std::string& n = cmd->parent ? cmd->parent->name : cmd->name;
    is_exec = n == "exec";
    if (is_exec) {
      for (const QueuedCommand& q : c.multi_queue()) {
        deny = deny || q.cmd->is(kCmdDenyOom);
      }
    } else if (n != "discard" && n != "quit" && n != "reset") {
      deny = true;
    }
  }
  if (!deny) {
    return false;
  }
  if (is_exec) {
    c.EndMulti();
    UnwatchAll(w.server().keyspace(), c);
    rb.Error(std::string("EXECABORT Transaction discarded because of: ") + kOomError);
    WorkerStats::Inc(w.command_stats()[cmd->id].rejected);
    return true;
  }
  Reject(w, c, rb, cmd, kOomError);
  return true;
}

// The persistence layer's gate (server/persistence_hooks.h): -LOADING while a dataset
// loads, -MISCONF after a failed BGSAVE with stop-writes-on-bgsave-error. EXEC of a queue
// holding a write command is refused as the write itself would be, and discards the
// transaction (Redis's execCommandAbort).
bool RejectedByPersistence(Worker& w, Client& c, ReplyBuilder& rb, const CommandSpec* cmd) {
  PersistenceHooks* p = w.server().persistence();
  if (p == nullptr) {
    return false;
  }
  bool exec_write = false;
  const bool is_exec = c.in_multi() && (cmd->parent ? cmd->parent->name : cmd->name) == "exec";
  if (is_exec) {
    for (const QueuedCommand& q : c.multi_queue()) {
      exec_write = exec_write || q.cmd->is(kCmdWrite);
    }
  }
  std::optional<std::string> err = p->RejectCommand(cmd, exec_write);
  if (!err) {
    return false;
  }
  if (is_exec) {
    c.EndMulti();
    UnwatchAll(w.server().keyspace(), c);
    rb.Error("EXECABORT Transaction discarded because of: " + *err);
    WorkerStats::Inc(w.command_stats()[cmd->id].rejected);
    return true;
  }
  Reject(w, c, rb, cmd, *err);
  return true;
}

// Cluster mode's routing point (server/cluster_hooks.h), Redis's processCommand check: a
// command with keys (or movable keys) and EXEC are routed; keyless commands run here. A
// refused command inside MULTI flags the transaction (EXECABORT later); a refused EXEC
// discards it.
bool RejectedByCluster(Worker& w, Client& c, ReplyBuilder& rb, const CommandSpec* cmd,
                       const std::vector<std::string_view>& args) {
  ClusterHooks* cl = w.server().cluster();
  thread_local std::string error;
  error.clear();
  const bool keyless = cmd->key_specs.empty() && !cmd->movable_keys;
  if (keyless && cmd->parent == nullptr && cmd->name == "exec") {  // EXEC has no keys
    if (!c.in_multi() || cl->RouteExec(w.server(), c, c.multi_queue(), &error)) {
      return false;
    }
    c.EndMulti();
    UnwatchAll(w.server().keyspace(), c);
    rb.Error(error);
    WorkerStats::Inc(w.command_stats()[cmd->id].rejected);
    return true;
  }
  if (keyless) {
    return false;
  }
  if (cl->Route(w.server(), c, cmd, args, &error)) {
    return false;
  }
  Reject(w, c, rb, cmd, error);
  return true;
}

// CLIENT PAUSE (server/client_pause.h): whether `cmd` waits for the pause to end. Only
// connections wait (not MONITOR clients, not in-process clients).
bool HeldByPause(Server& s, Client& c, const CommandSpec* cmd, int64_t now) {
  Connection* conn = c.AsConnection();
  if (conn == nullptr || c.monitor_flag.load(std::memory_order_relaxed)) {
    return false;
  }
  const uint32_t actions = s.client_pause().Check(s, now);
  if (actions == 0) {
    return false;
  }
  if (actions != ClientPause::kAll) {
    bool writes = cmd->is(kCmdWrite) || cmd->is(kCmdMayReplicate);
    if (!writes && c.in_multi() && (cmd->parent ? cmd->parent->name : cmd->name) == "exec") {
      for (const QueuedCommand& q : c.multi_queue()) {
        writes = writes || q.cmd->is(kCmdWrite) || q.cmd->is(kCmdMayReplicate);
      }
    }
    if (!writes) {
      return false;
    }
  }
  return s.client_pause().Hold(*conn);
}

// This thread's script is busy and the worker serves its other connections (Redis's
// processCommand during a busy script): only allow_busy commands run. Those that touch
// WATCHed keys (WATCH, UNWATCH, DISCARD, RESET, and a refused EXEC dropping its watches)
// use the shards the paused script holds without locking them (PausedScriptHoldsShard);
// on a shard held by a busy script of another worker the watch is added or removed by
// that run (busy_watch.h), which this worker waits for (up to a second).
bool BusyElsewhere(uint32_t shard) { return !PausedScriptHoldsShard(shard) && ShardIsBusy(shard); }

bool RejectedWhileBusy(Worker& w, Client& c, ReplyBuilder& rb, const CommandSpec* cmd,
                       const std::vector<std::string_view>& args) {
  const std::string& n = cmd->parent ? cmd->parent->name : cmd->name;
  if (!cmd->is(kCmdAllowBusy)) {
    if (c.in_multi() && n == "exec") {
      // As Redis's rejectCommand: a refused EXEC discards the transaction and its
      // watches (those on another worker's busy shard through that run).
      c.EndMulti();
      UnwatchAllUnlessStuck(w.server().keyspace(), c);
      rb.Error(std::string("EXECABORT Transaction discarded because of: ") + t_busy_gate);
      WorkerStats::Inc(w.command_stats()[cmd->id].rejected);
      return true;
    }
    Reject(w, c, rb, cmd, t_busy_gate);
    return true;
  }
  if (n == "watch") {
    for (size_t i = 1; i < args.size(); i++) {
      if (BusyElsewhere(Keyspace::ShardOf(args[i]))) {
        // A key on another worker's busy script's shard: registered by that run.
        CommandContext ctx(w.server(), w, c, rb, args, cmd, CachedNowMs());
        WatchDuringBusy(ctx);
        return true;
      }
    }
    return false;
  }
  // UNWATCH, DISCARD (in MULTI) and RESET drop the watches: those on another worker's
  // busy shard are dropped here through that run (the handler then finds none left);
  // a run stuck in one long command for a second gives -BUSY, the rest still watched.
  const bool unwatches = n == "unwatch" || n == "reset" || (n == "discard" && c.in_multi());
  if (unwatches && !c.watched_keys().empty() &&
      !UnwatchAllUnlessStuck(w.server().keyspace(), c)) {
    Reject(w, c, rb, cmd, t_busy_gate);
    return true;
  }
  return false;
}

}  // namespace

namespace {
// kLean: Dispatch's lean path, which has checked that the client is not in a
// transaction and has no subscription (so is not in RESP2 subscribed mode); those checks
// are not repeated. (Cluster routing is checked on both paths.)
template <bool kLean>
inline void DispatchInner(Worker& w, Client& c, ReplyBuilder& rb,
                          const std::vector<std::string_view>& args, const CommandSpec* cmd);
}  // namespace

namespace {
// After a command: ASKING's one-command window, and CLIENT REPLY OFF/SKIP dropping what
// the command replied (from out_before on).
inline void EndReplyState(Client& c, ByteBuffer& out, size_t out_before) {
  if (c.asking_state() != 0) [[unlikely]] {
    // ASKING covers the next command (or the whole transaction it starts), as Redis's
    // resetClient: the ASKING that just ran arms it, anything else outside MULTI ends it.
    c.set_asking_state(c.asking_state() == 2 ? 1 : (c.in_multi() ? 1 : 0));
  }
  switch (c.reply_mode()) {
    case Client::ReplyMode::kOff:
      out.Truncate(out_before);
      break;
    case Client::ReplyMode::kSkipThis:
      out.Truncate(out_before);
      c.set_reply_mode(Client::ReplyMode::kOn);
      break;
    default:
      break;
  }
}
}  // namespace

void Dispatch(Worker& w, Client& c, ReplyBuilder& rb, const std::vector<std::string_view>& args,
              const CommandSpec* cmd) {
  // Lean path, almost every command: replies on, no subscription, nobody tracking keys,
  // no CLUSTER SLOT-STATS cpu/net accounting, no transaction, no ASKING. Then nothing
  // can push a message to this client while its own command runs (a pub/sub message
  // needs a subscription, an invalidation a tracking client: a RESP3 redirect target
  // may have none itself; only EXEC could subscribe and publish within one command), so
  // the command needs no push outputs to keep such messages behind its reply, and no
  // slot statistics run. (Cluster mode takes it too: the router's routing needs none of
  // what the path below adds.)
  if (c.reply_mode() == Client::ReplyMode::kOn && c.subscription_count() == 0 &&
      c.asking_state() == 0 && !c.in_multi() && !TrackingActive() &&
      g_slot_stats_hook.load(std::memory_order_relaxed) == nullptr) [[likely]] {
    ByteBuffer& out = *rb.buffer();
    const size_t out_before = out.size();
    DispatchInner<true>(w, c, rb, args, cmd);
    // A key hint set for this command (pipeline-prefetch, RunCommand, the cluster
    // router) must not outlive it: the bytes of a later key may land at the same
    // address after the input buffer is compacted. Nor the keys' slots the router gave
    // (the next command may reuse the argument vector), nor its slot-stats mark (set
    // only while slot stats are being switched on).
    t_key_hint = KeyHint{};
    EndDispatchedSlots();
    t_routed_slot = -1;
    // The command itself may have turned replies off (CLIENT REPLY) or run ASKING.
    if (c.reply_mode() != Client::ReplyMode::kOn || c.asking_state() != 0) [[unlikely]] {
      EndReplyState(c, out, out_before);
    }
    return;
  }
  // CLIENT REPLY OFF/SKIP silences every reply a command produces, errors included, but
  // not its pub/sub pushes (Client::silenced_pushes(), pending_pushes()).
  if (c.reply_mode() == Client::ReplyMode::kSkipNext) {
    c.set_reply_mode(Client::ReplyMode::kSkipThis);
  }
  ByteBuffer& out = *rb.buffer();
  const size_t out_before = out.size();
  ByteBuffer silenced_out, pending_out;  // no allocation unless a push is written
  ReplyBuilder silenced(&silenced_out), pending(&pending_out);
  silenced.set_resp3(rb.resp3());
  pending.set_resp3(rb.resp3());
  c.set_push_outputs(c.reply_mode() == Client::ReplyMode::kOn ? nullptr : &silenced, &pending);
  // CLUSTER SLOT-STATS cpu / net (server/slot_stats_hooks.h): only while enabled.
  const SlotStatsHook slot_stats = g_slot_stats_hook.load(std::memory_order_relaxed);
  const int64_t started_us = slot_stats != nullptr ? MonotonicUs() : 0;
  DispatchInner<false>(w, c, rb, args, cmd);
  // (Only a connection's command was routed: a script's inner commands, dispatched for
  // an in-process client inside EVAL, leave EVAL's mark alone.)
  if (t_routed_slot >= 0 && c.AsConnection() != nullptr) [[unlikely]] {
    if (slot_stats != nullptr) {
      slot_stats(t_routed_slot, args, MonotonicUs() - started_us, out.size() - out_before);
    }
    t_routed_slot = -1;
  }
  c.set_push_outputs(nullptr, nullptr);
  t_key_hint = KeyHint{};  // as in the lean path above
  EndDispatchedSlots();
  EndReplyState(c, out, out_before);
  // Confirmations first (they are the command's own output), then the messages the
  // command raised for this client, as Redis orders them.
  if (!silenced_out.empty()) {
    out.Append(silenced_out.view());
  }
  if (!pending_out.empty()) {
    out.Append(pending_out.view());
  }
}

namespace {

template <bool kLean>
[[gnu::always_inline]] inline void DispatchInner(Worker& w, Client& c, ReplyBuilder& rb,
                                                 const std::vector<std::string_view>& args,
                                                 const CommandSpec* cmd) {
  Server& server = w.server();
  const int64_t now = CachedNowMs();
  c.set_last_interaction_ms(now);

  if (cmd == nullptr) {
    cmd = server.commands().Find(args[0]);
  }
  if (cmd == nullptr) {
    c.set_last_command(nullptr);  // CLIENT LIST's cmd=NULL, as Redis
    RejectUnknown(rb, args);
    if (c.in_multi()) {
      c.FlagMultiError();
    }
    return;
  }
  if (!cmd->subcommands.empty() && cmd->handler == nullptr) {
    if (args.size() < 2) {
      c.set_last_command(cmd);
      Reject(w, c, rb, cmd, "ERR wrong number of arguments for '" + cmd->name + "' command");
      return;
    }
    const CommandSpec* sub = cmd->FindSub(args[1]);
    if (sub == nullptr) {
      c.set_last_command(nullptr);
      std::string msg = "ERR unknown subcommand '";
      msg.append(args[1].substr(0, 128));
      msg += "'. Try " + ToUpper(cmd->name) + " HELP.";
      Reject(w, c, rb, cmd, msg);
      return;
    }
    cmd = sub;
  }
  // Redis records the command as the client's last one as soon as it is looked up, so
  // one rejected for its arity or queued by MULTI shows in CLIENT LIST's cmd too.
  c.set_last_command(cmd);
  const int argc = static_cast<int>(args.size());
  if ((cmd->arity > 0 && argc != cmd->arity) || (argc < -cmd->arity)) {
    Reject(w, c, rb, cmd, "ERR wrong number of arguments for '" + cmd->full_name + "' command");
    return;
  }
  if (!c.authenticated() && !cmd->is(kCmdNoAuth)) {
    if (server.config().requirepass_set()) {
      Reject(w, c, rb, cmd, errors::kNoAuth);
      return;
    }
    c.set_authenticated(true);
  }
  // In-process clients (the AOF loader replaying its commands) are obeyed, never
  // redirected, as Redis's mustObeyClient.
  // (Cluster mode takes the lean path too: the routing check runs on both.)
  if (server.cluster() != nullptr && c.AsConnection() != nullptr &&
      RejectedByCluster(w, c, rb, cmd, args)) [[unlikely]] {
    return;
  }
  if (!kLean && c.in_subscribed_mode() && !cmd->is(kCmdSubscribedOk)) {
    Reject(w, c, rb, cmd,
           "ERR Can't execute '" + cmd->full_name +
               "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed "
               "in this context");
    return;
  }
  if (server.config().maxmemory() > 0 && t_busy_gate == nullptr &&
      RejectedForMemory(w, c, rb, cmd, now)) {
    return;
  }
  if (server.dispatch_gate() != 0 && RejectedByPersistence(w, c, rb, cmd)) {
    return;
  }
  if (t_busy_gate != nullptr) [[unlikely]] {
    if (RejectedWhileBusy(w, c, rb, cmd, args)) {
      return;
    }
  }
  if (c.monitor_flag.load(std::memory_order_relaxed) &&
      (cmd->is(kCmdWrite) || cmd->is(kCmdReadonly) || cmd->is(kCmdMayReplicate))) [[unlikely]] {
    Reject(w, c, rb, cmd, "ERR Replica can't interact with the keyspace");
    return;
  }
  if (server.client_pause().actions() != 0 && HeldByPause(server, c, cmd, now)) [[unlikely]] {
    return;  // not run: the connection runs it again when the pause ends
  }
  if (!kLean && c.in_multi() && !AllowedInMulti(cmd)) {
    if (cmd->is(kCmdNoMulti)) {
      Reject(w, c, rb, cmd, "ERR Command not allowed inside a transaction");
      return;
    }
    QueuedCommand q{cmd, {}};
    q.args.reserve(args.size());
    size_t bytes = 0;
    for (auto a : args) {
      q.args.emplace_back(a);
      bytes += a.size();
    }
    c.multi_queue().push_back(std::move(q));
    c.multi_len.store(c.multi_queue().size(), std::memory_order_relaxed);
    Client::OwnerAdd(c.multi_mem, bytes);
    rb.SimpleString("QUEUED");
    return;
  }

  const uint64_t errors_before = rb.errors_written();

  CommandContext ctx(server, w, c, rb, args, cmd, now);
  // CLIENT PAUSE WRITE|ALL: a read leaves expired keys in place (engine/expiry_pause.h).
  const KeepExpiredScope keep_expired(server.client_pause().actions() != 0 &&
                                      !cmd->is(kCmdWrite) &&
                                      server.client_pause().WritesPaused(server, now));
  // One TSC read per command within a turn (server/command_clock.h).
  const uint64_t chain = command_clock_internal::t_chain;
  const uint64_t t0 = chain > 1 ? chain : CyclesNow();
  command_clock_internal::t_chain = 0;  // a command dispatched inside this one reads its own
  RunCommand(ctx, cmd, false);
  const uint64_t t1 = CyclesNow();
  if (chain != 0) {
    command_clock_internal::t_chain = t1;
  }
  const bool failed = ctx.failed() || rb.errors_written() != errors_before;
  if (c.blocked()) {
    // Counted when it is unblocked (FinishUnblock in blocking.cc), as Redis does.
    c.block_state()->exec_cycles = t1 - t0;
    c.block_state()->blocked_at_cycles = t1;
  } else {
    Account(w, c, cmd, args, t1 - t0, failed, ctx.redacted_args());
  }
}

}  // namespace

void Dispatch(Worker& w, Connection& c, const std::vector<std::string_view>& args,
              const CommandSpec* cmd) {
  Dispatch(w, c, c.reply, args, cmd);
}

bool ExecuteQueued(CommandContext& exec_ctx, std::vector<QueuedCommand>& queue) {
  Keyspace& ks = exec_ctx.keyspace();
  Client& client = exec_ctx.client();
  Worker& w = exec_ctx.worker();
  ShardLockSet set;
  bool all = false;
  std::vector<std::vector<std::string_view>> views(queue.size());
  std::vector<int> key_pos;
  for (size_t i = 0; i < queue.size(); i++) {
    for (const auto& a : queue[i].args) {
      views[i].emplace_back(a);
    }
    const CommandSpec* cmd = queue[i].cmd;
    if (cmd->is(kCmdAllShards) ||
        (cmd->all_shards_in_exec != nullptr && cmd->all_shards_in_exec(views[i]))) {
      all = true;
    }
    key_pos.clear();
    cmd->GetKeys(views[i], &key_pos);
    for (int p : key_pos) {
      set.Add(Keyspace::ShardOf(views[i][p]));
    }
  }
  if (all) {
    set.AddAll();
  }
  for (const WatchedKey& wk : client.watched_keys()) {
    set.Add(Keyspace::ShardOf(wk.key));
  }
  if (!set.LockUnlessBusy(ks)) {
    exec_ctx.rb().Error(BusyScriptError());
    return false;
  }
  // A watched key that expired counts as modified: looking it up deletes it, which
  // marks this client's watch dirty through the expiry observers.
  for (const WatchedKey& wk : client.watched_keys()) {
    Database(&ks, wk.db, exec_ctx.now_ms()).Lookup(wk.key);
  }
  if (client.watch_dirty().load(std::memory_order_acquire)) {
    set.Unlock(ks);
    exec_ctx.rb().NullArray();
    return false;
  }
  // The watches have done their job: drop them now, under the locks already held, as
  // Redis's EXEC does before running the commands. A queued UNWATCH then finds nothing
  // to do (it would otherwise wait for a shard lock this thread holds), and the
  // transaction's own writes do not touch its client's watches.
  UnwatchAllLocked(ks, client);
  exec_ctx.rb().Array(queue.size());
  t_lock_set = &set;
  WriteStream& ws = exec_ctx.server().write_stream();
  const bool streaming = ws.active();
  if (streaming) {
    ws.BeginMulti();
  }
  for (size_t i = 0; i < queue.size(); i++) {
    const CommandSpec* cmd = queue[i].cmd;
    uint64_t errors_before = exec_ctx.rb().errors_written();
    CommandContext ctx(exec_ctx.server(), w, client, exec_ctx.rb(), views[i], cmd,
                       exec_ctx.now_ms());
    ctx.set_in_exec(true);
    ctx.set_all_shards_locked(all);
    const StreamScope stream = streaming ? BeginStream(ctx) : StreamScope{};
    const uint64_t t0 = CyclesNow();
    cmd->handler(ctx);
    const uint64_t t1 = CyclesNow();
    if (stream.ws != nullptr) {
      EndStream(stream, ctx);
    }
    FeedMonitors(ctx);
    if (client.tracking_flags() != 0) [[unlikely]] {
      TrackingRememberKeys(ctx, false);
    }
    // Each queued command is counted and may enter the slow log (EXEC itself does not).
    Account(w, client, cmd, views[i], t1 - t0,
                   ctx.failed() || exec_ctx.rb().errors_written() != errors_before,
                   ctx.redacted_args());
  }
  if (streaming) {
    ws.EndMulti();      // MULTI ... EXEC around the transaction's writes
    ws.MarkRewritten();  // EXEC itself is not recorded again
  }
  // Blocked clients woken by the transaction see its final state, as in Redis.
  if (g_blocked_clients.load(std::memory_order_relaxed) > 0) {
    ServeReadyKeys(exec_ctx.server(), w);
  }
  if (streaming) {
    ws.Commit();
  }
  t_lock_set = nullptr;
  set.Unlock(ks);
  return true;
}

}  // namespace hotkv

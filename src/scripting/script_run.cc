#include "scripting/script_run.h"

#include <lua.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "common/key_hash.h"
#include "common/spin_lock.h"
#include "common/string_util.h"
#include "engine/keyspace.h"
#include "scripting/lua_convert.h"
#include "scripting/lua_debugger.h"
#include "scripting/lua_engine.h"
#include "server/blocking.h"
#include "server/busy_watch.h"
#include "server/cluster_script_hooks.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/local_client.h"
#include "server/memory_limit.h"
#include "server/server.h"
#include "server/worker.h"
#include "server/write_stream.h"

namespace hotkv::scripting {

namespace {

constexpr const char* kAbortText =
    "ERR script touched a key in a shard held by another client; it runs again with "
    "every shard locked";
constexpr const char* kBusyAfterWrite =
    "ERR Script accessed a key outside its declared KEYS whose shard another client held "
    "for too long, after it wrote: declare every key in KEYS or use the "
    "allow-cross-slot-keys flag";

// The client the commands of this thread's scripts run as (Redis's script client).
LocalClient& ScriptClient(Worker& worker) {
  thread_local std::unique_ptr<LocalClient> client;
  if (client == nullptr || client->worker() != &worker) {
    client = std::make_unique<LocalClient>(worker.server().clients().NextId(), &worker);
  }
  return *client;
}

// redis.call's command lookup, cached by the name's address: a script's command names
// are Lua string constants (interned, so the same address every call). The bytes are
// compared too (a collected string's address may be reused), which costs less than the
// table's hash and probe.
const CommandSpec* FindCommandCached(const CommandTable& table, std::string_view name) {
  struct Entry {
    const char* ptr = nullptr;
    const CommandTable* table = nullptr;
    const CommandSpec* cmd = nullptr;
    uint8_t len = 0;
    char bytes[23];
  };
  // 16 sets of two (most recent first), so that two names meeting in one set (a
  // script's INCR and EXPIRE) both stay.
  thread_local Entry cache[32];
  const uint64_t h = reinterpret_cast<uintptr_t>(name.data()) * 0x9E3779B97F4A7C15ull;
  Entry* set = &cache[(h >> 60) * 2];
  for (int way = 0; way < 2; way++) {
    const Entry& e = set[way];
    if (e.ptr == name.data() && e.len == name.size() && e.table == &table &&
        memcmp(e.bytes, name.data(), name.size()) == 0) [[likely]] {
      return e.cmd;
    }
  }
  const CommandSpec* cmd = table.Find(name);
  if (cmd != nullptr && name.size() <= sizeof(Entry::bytes)) {
    set[1] = set[0];
    Entry& e = set[0];
    e.ptr = name.data();
    e.table = &table;
    e.cmd = cmd;
    e.len = static_cast<uint8_t>(name.size());
    memcpy(e.bytes, name.data(), name.size());
  }
  return cmd;
}

}  // namespace

ScriptRun::ScriptRun(CommandContext& caller, const ScriptFlags& flags, bool read_only,
                     std::string_view name, CachedScript* learn)
    : caller_(caller),
      flags_(flags),
      read_only_(read_only || flags.no_writes),
      sha_(name),
      learn_(learn) {}

ScriptRun::~ScriptRun() = default;

// A shard not held yet: try it; if it is taken, waiting is deadlock-free when it lies
// above every shard this run holds (lockers that wait while holding take shards in
// ascending order, so its holder cannot be waiting for ours): wait. Below, only another
// script can be waiting for ours (the dispatcher's multi-shard locking never waits while
// holding: ShardLockSet::LockUnlessBusy): spin for a bounded time, then (before any
// write) abandon the run to be done again holding every shard, or (after a write) fail.
bool ScriptRun::AcquireShard(uint32_t shard, std::string* err) {
  if (held_.Contains(shard)) {
    return true;
  }
  ShardLock& lock = caller_.keyspace().shard(shard).lock;
  if (!lock.try_lock()) {
    const bool safe = static_cast<int>(shard) > held_.Highest();
    // A debugged run is never abandoned (its rerun would restart the session): it waits
    // as a run that wrote does.
    const bool no_abandon = wrote_ || ldb_ != nullptr;
    const double budget_us = safe ? -1.0 : (no_abandon ? 500000.0 : 50.0);
    const uint64_t t0 = CyclesNow();
    bool got = false;
    for (int spins = 0;; spins++) {
      if (lock.try_lock()) {
        got = true;
        break;
      }
      if (budget_us >= 0 && (spins & 63) == 0 &&
          static_cast<double>(CyclesNow() - t0) / CyclesPerMicrosecond() > budget_us) {
        break;
      }
      SpinWait(spins);
    }
    if (!got) {
      if (!no_abandon && outer_ == nullptr) {
        abort_for_all_ = true;
        *err = kAbortText;
      } else {
        *err = kBusyAfterWrite;
      }
      return false;
    }
  }
  held_.Add(shard);
  extra_.push_back(shard);
  return true;
}

bool ScriptRun::AcquireAll(std::string* err) {
  for (uint32_t s = 0; s < Keyspace::kShardCount; s++) {
    if (!AcquireShard(s, err)) {
      return false;
    }
  }
  all_held_ = true;
  return true;
}

void ScriptRun::Unlock() {
  Keyspace& ks = caller_.keyspace();
  for (uint32_t s : extra_) {
    ks.shard(s).lock.unlock();
  }
  extra_.clear();
  if (mine_single_ >= 0) {
    ks.shard(static_cast<uint32_t>(mine_single_)).lock.unlock();  // no walk over the set
    mine_single_ = -1;
  } else {
    mine_.Unlock(ks);
  }
  mine_ = ShardLockSet{};
}

namespace {
std::mutex g_busy_runs_mu;
std::vector<ScriptRun*> g_busy_runs;  // guarded by g_busy_runs_mu
}  // namespace

// busy-reply-threshold (or the legacy lua-time-limit), read once per run.
int64_t ScriptRun::ThresholdMs() {
  if (threshold_ms_ == -2) {
    Config& cfg = caller_.server().config();
    threshold_ms_ = 5000;
    std::optional<int64_t> v = ParseInt64(cfg.GetString("busy-reply-threshold"));
    std::optional<int64_t> legacy = ParseInt64(cfg.GetString("lua-time-limit"));
    if (v) {
      threshold_ms_ = *v;
    }
    if (legacy && *legacy != 5000 && threshold_ms_ == 5000) {
      threshold_ms_ = *legacy;
    }
  }
  return threshold_ms_;
}

double ScriptRun::ElapsedMs() const {
  return static_cast<double>(CyclesNow() - start_cycles_) / CyclesPerMicrosecond() / 1000.0;
}

int64_t ScriptRun::DebugTimeLimitMs() {
  const int64_t t = ThresholdMs();
  return t > 0 ? t : 5000;
}

void ScriptRun::RestartClock() { start_cycles_ = CyclesNow(); }

void ScriptRun::RegisterBusy() {
  busy_ = true;
  AddBusyShards(&held_, function_);
  std::lock_guard<std::mutex> g(g_busy_runs_mu);
  busy_command_.assign(caller_.args().begin(), caller_.args().end());
  g_busy_runs.push_back(this);
}

void ScriptRun::BeginDebugWait() {
  if (!busy_) {
    RegisterBusy();
  }
}

// Called by the Lua count hook (every 100,000 instructions). After busy-reply-threshold
// (lua-time-limit) the run registers its shards as busy: other clients needing them get
// -BUSY, and SCRIPT KILL may stop it.
const char* ScriptRun::CheckInterrupt() {
  if (!busy_) {
    if (ThresholdMs() <= 0) {
      return nullptr;
    }
    double ms = ElapsedMs();
    if (ms < static_cast<double>(threshold_ms_)) {
      return nullptr;
    }
    fprintf(stderr,
            "# Slow script detected: still in execution after %lld milliseconds. You can try "
            "killing the script using the SCRIPT KILL command. Script name is: %s.\n",
            static_cast<long long>(ms), std::string(sha_).c_str());
    RegisterBusy();
  }
  // Busy: WATCHes queued by other workers on this run's shards are registered here (the
  // run holds their locks; dispatcher.h WatchDuringBusy).
  DrainPendingWatches(caller_.keyspace(), held_);
  // Busy: this worker's other connections are served every millisecond (their commands
  // get -BUSY, SCRIPT KILL / FUNCTION KILL / SHUTDOWN NOSAVE run), as Redis's
  // processEventsWhileBlocked from its hook.
  const uint64_t now = CyclesNow();
  if (static_cast<double>(now - last_serve_cycles_) >= 1000.0 * CyclesPerMicrosecond()) {
    last_serve_cycles_ = now;
    const char* busy_error =
        function_ ? "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                    "SHUTDOWN NOSAVE."
                  : kBusyScriptError;
    if (caller_.worker().ServeWhileBusy(caller_.client(), busy_error)) {
      // SHUTDOWN NOSAVE (here or on another worker): the script stops even if it wrote,
      // and its caller, as with Redis's exit, gets no reply.
      caller_.client().set_reply_mode(Client::ReplyMode::kOff);
      caller_.client().set_close_after_reply();
      kill_.store(true, std::memory_order_release);
    }
  }
  if (kill_.load(std::memory_order_acquire)) {
    return "ERR Script killed by user with SCRIPT KILL...";
  }
  return nullptr;
}

void ScriptRun::DrainWatches() { DrainPendingWatches(caller_.keyspace(), held_); }

void ScriptRun::EndBusy() {
  if (!busy_) {
    return;
  }
  DrainPendingWatches(caller_.keyspace(), held_);  // before other threads may lock them
  busy_ = false;
  RemoveBusyShards(&held_);
  std::lock_guard<std::mutex> g(g_busy_runs_mu);
  g_busy_runs.erase(std::find(g_busy_runs.begin(), g_busy_runs.end(), this));
}

bool ScriptRun::DescribeBusy(BusyInfo* out) {
  std::lock_guard<std::mutex> g(g_busy_runs_mu);
  const ScriptRun* pick = nullptr;
  for (const ScriptRun* r : g_busy_runs) {
    if (pick == nullptr || (r->function_ && !pick->function_)) {
      pick = r;
    }
  }
  if (pick == nullptr) {
    return false;
  }
  out->eval = !pick->function_;
  out->name = std::string(pick->sha_);
  out->command = pick->busy_command_;
  out->duration_ms = static_cast<int64_t>(static_cast<double>(CyclesNow() - pick->start_cycles_) /
                                          CyclesPerMicrosecond() / 1000.0);
  return true;
}

std::string ScriptRun::KillBusy(bool is_eval) {
  std::lock_guard<std::mutex> g(g_busy_runs_mu);
  if (g_busy_runs.empty()) {
    return "NOTBUSY No scripts in execution right now.";
  }
  // Several scripts can be busy at once (on different workers). Redis's checks, in its
  // order, per run: written -> UNKILLABLE; the other kind -> BUSY naming the right KILL.
  bool killed = false;
  bool other_kind = false;
  for (ScriptRun* r : g_busy_runs) {
    if (r->wrote_shared_.load(std::memory_order_acquire)) {
      continue;
    }
    if (r->function_ == is_eval) {
      other_kind = true;
      continue;
    }
    r->kill_.store(true, std::memory_order_release);
    killed = true;
  }
  if (killed) {
    return {};
  }
  if (other_kind) {
    return is_eval ? "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                     "SHUTDOWN NOSAVE."
                   : "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                     "SHUTDOWN NOSAVE.";
  }
  return "UNKILLABLE Sorry the script already executed write commands against the dataset. "
         "You can either wait the script termination or kill the server in a hard way "
         "using the SHUTDOWN NOSAVE command.";
}

void ScriptRun::Execute(const std::vector<std::string_view>& keys,
                        const std::vector<std::string_view>& argv,
                        const std::function<std::string(LuaEngine&)>& push_fn, bool as_params) {
  Server& server = caller_.server();
  Keyspace& ks = caller_.keyspace();
  // No reset here: the caller may hold script pointers from this engine (EvalGeneric).
  LuaEngine& lua = LuaEngine::ForThisThread(server, false);
  // Inside EXEC the declared keys' shards are EXEC's already.
  outer_ = ExchangeThreadLockSet(nullptr);
  ExchangeThreadLockSet(outer_);
  if (flags_.no_cluster && server.cluster() != nullptr) {
    caller_.rb().Error("ERR Can not run script on cluster, 'no-cluster' flag is set.");
    return;
  }
  bool all = flags_.allow_cross_slot ||
             (learn_ != nullptr && learn_->needs_all_shards.load(std::memory_order_relaxed));
  // maxmemory, as Redis 7: a script with a shebang that may write is refused up front
  // when memory is over the limit (unless allow-oom); a script without one may run, but
  // its first deny-oom command (before any write) is refused (Call).
  oom_ = server.config().maxmemory() > 0 &&
         PerformEvictions(server, caller_.now_ms()) == MemoryState::kOverLimit;
  if (oom_ && flags_.shebang && !read_only_ && !flags_.allow_oom) {
    caller_.rb().Error(kOomError);
    return;
  }
  WriteStream& ws = server.write_stream();
  for (int attempt = 0;; attempt++) {
    std::string err = push_fn(lua);
    if (!err.empty()) {
      caller_.rb().Error(err);
      return;
    }
    held_ = outer_ != nullptr ? *outer_ : ShardLockSet{};
    mine_ = ShardLockSet{};
    extra_.clear();
    all_held_ = false;
    wrote_ = false;
    write_called_ = false;
    wrote_shared_.store(false, std::memory_order_relaxed);
    abort_for_all_ = false;
    resp_ = 2;
    db_ = caller_.client().db();
    key0_ = {};
    if (!keys.empty()) {
      key0_ = keys[0];
      if (KeyHintNames(key0_) && t_key_hint.slot != kNoSlot) {
        key0_slot_ = t_key_hint.slot;  // pipeline-prefetch located it already
        key0_hash_ = t_key_hint.hash;
      } else {
        key0_slot_ = KeySlot(key0_);
        key0_hash_ = HashKey(key0_);
      }
    }
    // Only cluster mode checks it (Call).
    cluster_slot_ = keys.empty() || GetClusterScriptHooks() == nullptr
                        ? -1
                        : static_cast<int>(key0_slot_);
    ops_ = 0;
    if (outer_ == nullptr) {
      bool locked = false;
      if (all) {
        mine_.AddAll();
        all_held_ = true;
      } else if (keys.size() == 1) {
        // One key (the common case): its shard directly, no walk over the set's words.
        const uint32_t shard = Keyspace::ShardOfSlot(key0_slot_);
        mine_.Add(shard);
        ShardLock& lock = ks.shard(shard).lock;
        locked = (read_only_ ? lock.try_lock_read() : lock.try_lock()) ||
                 LockContendedUnlessBusy(ks, shard, read_only_);
        if (!locked) {
          mine_ = ShardLockSet{};
        } else {
          mine_single_ = static_cast<int>(shard);
        }
      } else {
        for (std::string_view k : keys) {
          mine_.Add(Keyspace::ShardOf(k));
        }
      }
      const bool single = keys.size() == 1 && !all;
      if (single ? !locked : !mine_.LockUnlessBusy(ks, read_only_)) {
        lua_pop(lua.state(), 1);
        mine_ = ShardLockSet{};
        caller_.rb().Error(BusyScriptError());
        return;
      }
      held_.Merge(mine_);
    } else {
      all_held_ = caller_.all_shards_locked();
    }
    ExchangeThreadLockSet(&held_);
    const bool streaming = ws.active();
    if (streaming && outer_ == nullptr) {
      ws.BeginMulti();
    }
    start_cycles_ = CyclesNow();
    std::string all_err;
    if (all && !all_held_ && !AcquireAll(&all_err)) {
      lua_pop(lua.state(), 1);
      caller_.rb().Error(all_err);
    } else {
      if (ldb_ != nullptr) {
        lua.SetDebugHook(true);
      }
      lua.Run(*this, sha_, keys, argv, caller_.rb(), as_params);
      if (ldb_ != nullptr) {
        lua.SetDebugHook(false);
      }
    }
    EndBusy();
    kill_.store(false, std::memory_order_relaxed);
    if (abort_for_all_ && outer_ == nullptr && attempt == 0) {
      if (streaming) {
        ws.EndMulti();
      }
      ExchangeThreadLockSet(outer_);
      Unlock();
      if (learn_ != nullptr) {
        learn_->needs_all_shards.store(true, std::memory_order_relaxed);
      }
      all = true;
      continue;
    }
    if (streaming) {
      if (outer_ == nullptr) {
        ws.EndMulti();
      }
      ws.MarkRewritten();  // the script's effects are recorded, not EVAL itself
    }
    if (outer_ == nullptr && g_blocked_clients.load(std::memory_order_relaxed) > 0) {
      ServeReadyKeys(server, caller_.worker());
    }
    if (streaming && outer_ == nullptr) {
      ws.Commit();
    }
    ExchangeThreadLockSet(outer_);
    Unlock();
    return;
  }
}

int ScriptRun::Call(lua_State* L, bool raise) {
  auto fail = [&](std::string_view msg) -> int {
    if (ldb_ != nullptr && ldb_->stepping()) [[unlikely]] {
      ldb_->LogError(msg.starts_with("ERR ") ? msg.substr(4) : msg);
    }
    if (raise || abort_for_all_) {
      RaiseScriptError(L, msg);
    }
    PushErrorTable(L, msg);
    return 1;
  };
  if (abort_for_all_) {
    return fail(kAbortText);
  }
  const int argc = lua_gettop(L);
  if (argc == 0) {
    return fail("ERR Please specify at least one argument for this redis lib call");
  }
  // Numbers' text lives in `conv` (reserved: the views into it stay valid). Commands run
  // from a script never run another script, so these buffers are not re-entered.
  thread_local std::vector<std::string> conv;
  conv.clear();
  conv.reserve(static_cast<size_t>(argc));
  thread_local std::vector<std::string_view> args;
  args.clear();
  for (int i = 1; i <= argc; i++) {
    int t = lua_type(L, i);
    if (t == LUA_TNUMBER) {
      conv.push_back(NumberToArg(lua_tonumber(L, i)));
      args.emplace_back(conv.back());
    } else if (t == LUA_TSTRING) {
      size_t len;
      const char* s = lua_tolstring(L, i, &len);
      args.emplace_back(s, len);
    } else {
      return fail("ERR Lua redis lib command arguments must be strings or integers");
    }
  }
  const std::vector<std::string_view>& argv = args;
  if (ldb_ != nullptr && ldb_->stepping()) [[unlikely]] {
    ldb_->LogCommand(argv);
  }
  Server& server = caller_.server();
  const CommandSpec* cmd = FindCommandCached(server.commands(), argv[0]);
  if (cmd != nullptr && !cmd->subcommands.empty() && cmd->handler == nullptr) {
    cmd = argv.size() >= 2 ? cmd->FindSub(argv[1]) : nullptr;
  }
  if (cmd == nullptr) {
    return fail("ERR Unknown Redis command called from script");
  }
  const int n = static_cast<int>(argv.size());
  if ((cmd->arity > 0 && n != cmd->arity) || (n < -cmd->arity)) {
    return fail("ERR Wrong number of args calling Redis command from script");
  }
  if (cmd->is(kCmdNoscript)) {
    return fail("ERR This Redis command is not allowed from script");
  }
  // As Redis (scriptVerifyWriteCommandAllow): a read-only run refuses may-replicate
  // commands as writes too (PFCOUNT, PUBLISH, SPUBLISH). It also refuses any command the
  // dispatcher locks exclusively (kCmdLockExclusive: PFCOUNT, which stores its count in
  // the HLL): the run holds its shards in the lock's read mode, which skips the walk
  // snapshot's pre-write save. Every such command is write or may_replicate
  // (command_table_test.cc), so that adds no refusal Redis does not make.
  if (read_only_ && cmd->is(kCmdWrite | kCmdMayReplicate | kCmdLockExclusive)) {
    return fail("ERR Write commands are not allowed from read-only scripts.");
  }
  if (oom_ && !write_called_ && !flags_.allow_oom && cmd->is(kCmdDenyOom)) {
    return fail(kOomError);
  }
  std::string err;
  if (!all_held_ && (cmd->is(kCmdAllShards) ||
                     (cmd->all_shards_in_exec != nullptr && cmd->all_shards_in_exec(argv)))) {
    if (!AcquireAll(&err)) {
      return fail(err);
    }
  }
  // A command of one key (INCR, GET, EXPIRE, ...): its slot and hash go to the handler
  // as the key hint (engine/database.h), so its lookup computes neither again.
  struct HintGuard {  // every way out (errors raise as C++ exceptions) drops the hint
    bool set = false;
    ~HintGuard() {
      if (set) {
        t_key_hint = KeyHint{};  // the key's bytes belong to the script's Lua string
      }
    }
  } hint;
  if (cmd->single_key_index > 0 && static_cast<size_t>(cmd->single_key_index) < argv.size()) {
    const std::string_view key = argv[static_cast<size_t>(cmd->single_key_index)];
    uint32_t slot;
    uint64_t hash;
    if (key.size() == key0_.size() && key0_.data() != nullptr &&
        memcmp(key.data(), key0_.data(), key.size()) == 0) {
      slot = key0_slot_;
      hash = key0_hash_;
    } else {
      slot = KeySlot(key);
      hash = HashKey(key);
    }
    const uint32_t shard = Keyspace::ShardOfSlot(slot);
    if (!all_held_ && !AcquireShard(shard, &err)) {
      return fail(err);
    }
    SetKeyHint(key, shard, hash, slot);
    hint.set = true;
  } else if (!all_held_ && !cmd->key_specs.empty()) {
    thread_local std::vector<int> key_pos;
    key_pos.clear();
    cmd->GetKeys(argv, &key_pos);
    for (int p : key_pos) {
      if (!AcquireShard(Keyspace::ShardOf(argv[p]), &err)) {
        return fail(err);
      }
    }
  }
  if (ClusterScriptHooks* cl = GetClusterScriptHooks(); cl != nullptr) [[unlikely]] {
    // Cluster mode: the keys must be this node's, in one slot (Redis's
    // scriptVerifyClusterState).
    // Scripts without a shebang (EVAL's compatibility mode) may cross slots, as in Redis.
    if (!cl->RouteFromScript(server, caller_.client(), cmd, argv,
                             flags_.allow_cross_slot || !flags_.shebang, &cluster_slot_, &err)) {
      return fail(err);
    }
  }
  Worker& worker = caller_.worker();
  LocalClient& sc = ScriptClient(worker);
  sc.set_db(db_);
  sc.set_resp(resp_);
  sc.reply.set_resp3(resp_ == 3);
  sc.out.Clear();
  WriteStream& ws = server.write_stream();
  const bool streaming = ws.active();
  std::atomic<uint64_t>& dirty = worker.stats().dirty;
  const uint64_t dirty_before = dirty.load(std::memory_order_relaxed);
  const uint64_t errors_before = sc.reply.errors_written();
  uint64_t t0 = CyclesNow();
  int db_index;
  bool failed;
  for (;;) {
    CommandContext ctx(server, worker, sc, sc.reply, argv, cmd, caller_.now_ms());
    ctx.set_in_exec(true);
    ctx.set_all_shards_locked(all_held_);
    if (streaming) {
      ws.BeginCommand();
    }
    cmd->handler(ctx);
    if (ctx.shards_requested()) {
      // Keys named by data (SORT BY/GET): take them and run the command again.
      sc.out.Clear();
      for (uint32_t s : ctx.TakeRequestedShards()) {
        if (!AcquireShard(s, &err)) {
          return fail(err);
        }
      }
      continue;
    }
    db_index = ctx.db().index();
    failed = ctx.failed();
    if (cmd->is(kCmdWrite)) {
      // As Redis's SCRIPT_WRITE_DIRTY: any write command called, changed or not, makes
      // the script unkillable and lifts the OOM check.
      write_called_ = true;
      wrote_shared_.store(true, std::memory_order_release);
    }
    if (dirty.load(std::memory_order_relaxed) != dirty_before) {
      wrote_ = true;
      wrote_shared_.store(true, std::memory_order_release);
      if (streaming && !ws.rewritten()) {
        ws.Append(db_index, argv);
      }
    } else if (streaming && ws.rewritten()) {
      wrote_ = true;
      wrote_shared_.store(true, std::memory_order_release);
    }
    break;
  }
  uint64_t t1 = CyclesNow();
  db_ = sc.db();
  failed = failed || sc.reply.errors_written() != errors_before;
  AccountCommand(worker, sc, cmd, argv, t1 - t0, failed, 0);
  std::string_view out = sc.out.view();
  if (ldb_ != nullptr && ldb_->stepping()) [[unlikely]] {
    ldb_->LogReply(out);
  }
  if (raise && !out.empty() && out[0] == '-') {
    std::string msg(out.substr(1, out.find('\r') - 1));
    sc.out.Clear();
    RaiseScriptError(L, msg);
  }
  lua_settop(L, 0);
  if (PushReply(L, out, resp_ == 3) == 0) {
    lua_pushboolean(L, 0);
  }
  sc.out.Clear();
  return 1;
}

}  // namespace hotkv::scripting

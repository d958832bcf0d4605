// ScriptRun: one execution of a script (EVAL, EVALSHA, and FCALL through the same entry
// points): the shard locks it holds, the fake client its commands run as, the write
// stream wrapping, and redis.call/redis.pcall's bridge to the command table.
//
//   ScriptRun run(ctx, script_flags, read_only, sha);
//   run.Execute(keys, argv, [&](LuaEngine& lua) { return lua.PushScript(*script); });
//
// Locking (docs/architecture.md "scripting/"): the shards of the declared KEYS are locked
// in ascending order for the whole run (every shard with allow-cross-slot-keys, or after
// the script was seen touching a busy undeclared shard). A command on a key whose shard
// is not held try-locks it and keeps it to the end; if that fails before the script
// wrote anything, the run is abandoned (its result discarded, nothing was changed) and
// done again holding every shard; after a write it fails with an error.
//
// Thread safety: lives on its worker's stack for one command.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scripting/script_cache.h"
#include "server/dispatcher.h"

struct lua_State;

namespace hotkv {
class CommandContext;
class CommandSpec;
}  // namespace hotkv

namespace hotkv::scripting {

class LuaEngine;
class LdbSession;

class ScriptRun {
 public:
  // `read_only`: EVAL_RO/EVALSHA_RO/FCALL_RO or a no-writes script.
  // `name` (the SHA, or FCALL's function name) must outlive the run.
  ScriptRun(CommandContext& caller, const ScriptFlags& flags, bool read_only,
            std::string_view name, CachedScript* learn = nullptr);
  ~ScriptRun();

  // Locks, pushes the function (push_fn pushes any Lua function value and returns an
  // error text or empty; it may be called twice, for the all-shards rerun), runs it with
  // KEYS/ARGV (as_params: as the function's two arguments, FCALL) and replies to the
  // caller.
  void Execute(const std::vector<std::string_view>& keys, const std::vector<std::string_view>& argv,
               const std::function<std::string(LuaEngine&)>& push_fn, bool as_params = false);

  // redis.call (raise = true) / redis.pcall: the command in Lua stack slots 1..n.
  // Pushes its result and returns 1, or raises.
  int Call(lua_State* L, bool raise);

  // redis.setresp
  void set_resp(int v) { resp_ = v; }
  int resp() const { return resp_; }
  bool wrote() const { return wrote_; }
  // SCRIPT KILL (is_eval) / FUNCTION KILL: stops the busy runs of that kind (EVAL scripts
  // or FCALL functions) that have not written. Returns the reply's error text
  // ("NOTBUSY ...", "UNKILLABLE ...", "BUSY ... call FUNCTION KILL ..." for a function
  // met by SCRIPT KILL and the reverse) or empty for OK.
  static std::string KillBusy(bool is_eval);
  // FUNCTION STATS' running_script. Redis answers BUSY while an EVAL script is busy and
  // describes a busy function (its name, its caller's command, ms since it started).
  struct BusyInfo {
    bool eval = false;
    std::string name;
    std::vector<std::string> command;
    int64_t duration_ms = 0;
  };
  // A busy run (a function first, if any), or false when none is busy.
  static bool DescribeBusy(BusyInfo* out);
  // The run is an FCALL (FUNCTION KILL stops it, SCRIPT KILL does not).
  void set_function() { function_ = true; }
  // The run was abandoned (a busy undeclared shard before any write): no reply.
  bool aborted() const { return abort_for_all_; }
  // The hook's check (lua-time-limit, SCRIPT KILL): returns an error text to raise.
  const char* CheckInterrupt();

  // The Lua debugger (lua_debugger.h) drives this run: its line hook replaces the busy
  // check, redis.call logs while stepping, and a busy undeclared shard never abandons
  // the run (it would restart the session).
  void set_ldb(LdbSession* s) { ldb_ = s; }
  // The debugger's timeout stop: busy-reply-threshold (5000 ms when 0) since the start
  // or the last stop.
  double ElapsedMs() const;
  int64_t DebugTimeLimitMs();
  void RestartClock();
  // The debugger waits for its client: from the first stop the run's shards are a busy
  // script's (other clients get -BUSY) and SCRIPT KILL may stop it (kill_requested).
  void BeginDebugWait();
  bool kill_requested() const { return kill_.load(std::memory_order_acquire); }
  // Registers the WATCHes other workers queued on this run's shards (dispatcher.h
  // WatchDuringBusy): called while busy, by the hook and the debugger's wait.
  void DrainWatches();

 private:
  bool AcquireShard(uint32_t shard, std::string* err);
  int64_t ThresholdMs();
  void RegisterBusy();
  bool AcquireAll(std::string* err);
  void Unlock();

  CommandContext& caller_;
  ScriptFlags flags_;
  bool read_only_;
  std::string_view sha_;
  CachedScript* learn_;
  int resp_ = 2;
  bool function_ = false;      // FCALL / FCALL_RO (set_function)
  bool wrote_ = false;         // a command changed the data (undeclared-key policy)
  bool write_called_ = false;  // a write command ran (OOM check, SCRIPT KILL)
  bool abort_for_all_ = false;
  bool all_held_ = false;
  ShardLockSet held_;    // everything this thread holds while the script runs
  ShardLockSet mine_;    // locked in ascending order at the start (released at the end)
  int mine_single_ = -1;  // mine_'s only shard, when the run has one key (Unlock)
  std::vector<uint32_t> extra_;  // try-locked during the run (released at the end)
  const ShardLockSet* outer_ = nullptr;  // EXEC's set when the script runs inside EXEC
  int db_ = 0;  // the script's selected database (SELECT inside a script)
  int cluster_slot_ = -1;  // cluster mode: the slot the script's keys are in (-1: none yet)
  // KEYS[1], located once per run: redis.call on a key with the same bytes (the script's
  // KEYS[1] is another copy of them) reuses its slot and hash instead of computing them
  // twice more (its lock, then the handler's lookup, through the key hint).
  std::string_view key0_;
  uint32_t key0_slot_ = 0;
  uint64_t key0_hash_ = 0;
  uint64_t start_cycles_ = 0;
  uint64_t ops_ = 0;
  int64_t threshold_ms_ = -2;  // busy-reply-threshold, read by the hook's first check
  bool oom_ = false;           // used memory was over maxmemory when the script started
  bool busy_ = false;          // registered as busy (AddBusyShards)
  uint64_t last_serve_cycles_ = 0;  // the last Worker::ServeWhileBusy
  std::vector<std::string> busy_command_;  // the caller's arguments, copied when busy
  std::atomic<bool> wrote_shared_{false};  // wrote_, for SCRIPT KILL on another thread
  std::atomic<bool> kill_{false};
  LdbSession* ldb_ = nullptr;
  void EndBusy();
};

}  // namespace hotkv::scripting

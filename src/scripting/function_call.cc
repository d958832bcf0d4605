// FCALL and FCALL_RO: a registered function run by the script engine (script_run.h).
//
// Each worker thread's Lua state (LuaEngine) loads every library of the registry the first
// time a function is called there, and again whenever the registry's version changed
// (FUNCTION LOAD/DELETE/FLUSH/RESTORE on any worker) or the state is a new one (SCRIPT
// FLUSH): the version is kept in the state's own Lua registry. The library's code runs as FUNCTION LOAD ran it (only the loading `redis`
// table visible), then its environment is pointed at the state's sandboxed globals, so
// the callbacks see `redis.call`, `string`, ... and cannot write globals.
//
// Errors as Redis 8.8: "Function not found" (checked first), "Bad number of keys
// provided", "Number of keys can't be negative", "Number of keys can't be greater than
// number of args", and for FCALL_RO of a function without no-writes "Can not execute a
// script with write flag using *_ro command.", and over maxmemory (nothing left to evict)
// Redis's OOM error for a function with neither allow-oom nor no-writes. Flags act as
// shebang flags do for EVAL (no-writes makes the run read-only; allow-cross-slot-keys
// locks every shard); allow-stale and no-cluster change nothing without replication and
// cluster mode.
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include <lua.hpp>

#include "scripting/function_family.h"
#include "scripting/function_library.h"
#include "scripting/lua_engine.h"
#include "scripting/script_cache.h"
#include "scripting/script_run.h"
#include "server/command_context.h"
#include "server/memory_limit.h"

namespace hotkv::scripting {

namespace {

// The libraries a Lua state has loaded live in that state's registry: the registry's
// version they come from, and a table of callbacks by lower-cased function name (function
// names ignore case). A new state (SCRIPT FLUSH) has neither, so it loads them again.
constexpr const char* kVersionKey = "__hotkv_functions_version";
constexpr const char* kCallbacksKey = "__hotkv_functions";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Pushes the callback of function `name` (nil when there is none), loading the registry's
// libraries into L first when L has not got their current version.
void PushCallback(lua_State* L, std::string_view name) {
  FunctionRegistry& reg = Functions();
  const uint64_t version = reg.version();
  lua_getfield(L, LUA_REGISTRYINDEX, kVersionKey);
  const bool current = lua_isnumber(L, -1) && static_cast<uint64_t>(lua_tonumber(L, -1)) == version;
  lua_pop(L, 1);
  if (!current) {
    lua_newtable(L);  // the callbacks
    const int table = lua_gettop(L);
    for (const std::shared_ptr<const Library>& lib : reg.Libraries()) {
      Result<LibraryMetadata> md = ParseLibraryMetadata(lib->code);
      if (!md.ok()) {
        continue;  // validated when loaded: cannot happen
      }
      Result<std::vector<FunctionInfo>> fns = RunLibraryCode(L, md->body, /*keep_callbacks=*/true);
      if (!fns.ok()) {
        continue;  // ran once already (FUNCTION LOAD); a failure here leaves it out
      }
      SetLibraryGlobals(L, LUA_GLOBALSINDEX);
      for (const FunctionInfo& f : *fns) {
        const std::string key = Lower(f.name);
        lua_pushlstring(L, key.data(), key.size());
        lua_rawgeti(L, LUA_REGISTRYINDEX, f.callback_ref);
        lua_rawset(L, table);
        luaL_unref(L, LUA_REGISTRYINDEX, f.callback_ref);
      }
    }
    lua_setfield(L, LUA_REGISTRYINDEX, kCallbacksKey);
    lua_pushnumber(L, static_cast<double>(version));
    lua_setfield(L, LUA_REGISTRYINDEX, kVersionKey);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kCallbacksKey);
  const std::string key = Lower(name);
  lua_pushlstring(L, key.data(), key.size());
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

ScriptFlags ToScriptFlags(uint32_t f) {
  ScriptFlags flags;
  flags.shebang = true;
  flags.no_writes = f & kFunctionNoWrites;
  flags.allow_oom = f & kFunctionAllowOom;
  flags.allow_stale = f & kFunctionAllowStale;
  flags.no_cluster = f & kFunctionNoCluster;
  flags.allow_cross_slot = f & kFunctionAllowCrossSlotKeys;
  return flags;
}

void FcallGeneric(CommandContext& ctx, bool read_only) {
  std::optional<FunctionRegistry::FunctionRef> fn = Functions().FindFunction(ctx.arg(1));
  if (!fn) {
    return ctx.rb().Error("ERR Function not found");
  }
  int64_t numkeys = 0;
  std::string_view nk = ctx.arg(2);
  auto [ptr, ec] = std::from_chars(nk.data(), nk.data() + nk.size(), numkeys);
  if (ec != std::errc() || ptr != nk.data() + nk.size()) {
    return ctx.rb().Error("ERR Bad number of keys provided");
  }
  if (numkeys < 0) {
    return ctx.rb().Error("ERR Number of keys can't be negative");
  }
  if (numkeys > static_cast<int64_t>(ctx.argc()) - 3) {
    return ctx.rb().Error("ERR Number of keys can't be greater than number of args");
  }
  const FunctionInfo& info = fn->info();
  if (read_only && !(info.flags & kFunctionNoWrites)) {
    return ctx.rb().Error("ERR Can not execute a script with write flag using *_ro command.");
  }
  // Out of memory: only allow-oom and no-writes functions run (as Redis 7+).
  if (!(info.flags & (kFunctionAllowOom | kFunctionNoWrites)) &&
      PerformEvictions(ctx.server(), ctx.now_ms()) == MemoryState::kOverLimit) {
    return ctx.rb().Error(kOomError);
  }
  std::vector<std::string_view> keys, argv;
  for (size_t i = 3; i < ctx.argc(); i++) {
    (i < 3 + static_cast<size_t>(numkeys) ? keys : argv).push_back(ctx.arg(i));
  }
  const std::string name = info.name;
  ScriptRun run(ctx, ToScriptFlags(info.flags), read_only, name);
  run.set_function();
  run.Execute(
      keys, argv,
      [&](LuaEngine& lua) -> std::string {
        PushCallback(lua.state(), name);
        if (!lua_isfunction(lua.state(), -1)) {
          lua_pop(lua.state(), 1);
          return "ERR Function not found";
        }
        return {};
      },
      /*as_params=*/true);
}

void FcallCommand(CommandContext& ctx) { FcallGeneric(ctx, false); }
void FcallRoCommand(CommandContext& ctx) { FcallGeneric(ctx, true); }

}  // namespace

void RegisterFcallCommands(CommandTable& t) {
  // self_locking: ScriptRun locks the keys' shards itself (as EVAL).
  t.Add({.name = "fcall", .arity = -3,
         .flags = "noscript skip_monitor may_replicate no_mandatory_keys stale self_locking",
         .acl = "@slow @scripting", .keys = {KeyNum(2, 0, 1, 1, "RW ACCESS UPDATE")},
         .handler = FcallCommand,
         .doc = {"scripting", "7.0.0", "Depends on the function that is executed.",
                 "Calls a function of a loaded library.",
                 "function numkeys [key [key ...]] [arg [arg ...]]"}});
  t.Add({.name = "fcall_ro", .arity = -3,
         .flags = "noscript skip_monitor no_mandatory_keys stale readonly self_locking",
         .acl = "@slow @scripting", .keys = {KeyNum(2, 0, 1, 1, "RO ACCESS")},
         .handler = FcallRoCommand,
         .doc = {"scripting", "7.0.0", "Depends on the function that is executed.",
                 "Calls a read-only function of a loaded library.",
                 "function numkeys [key [key ...]] [arg [arg ...]]"}});
}

}  // namespace hotkv::scripting

// LuaEngine: one Lua 5.1 interpreter per worker thread, sandboxed as Redis 7 does.
//
//   LuaEngine& lua = LuaEngine::ForThisThread(server);   // created on first use
//   std::string err = lua.PushScript(script);            // compiled once per thread
//   lua.Run(run, "f_" + sha, keys, argv, rb);             // KEYS/ARGV, redis.*, the reply
//
// Libraries (OpenLibraries): base (without dofile/loadfile/print/...), table, string,
// math, os (os.clock only, as Redis 8), coroutine, cjson, bit, and the `redis` table
// (InstallRedisApi). Every global and library table is read-only, and reading an
// undefined global is an error, with Redis's texts: the globals table scripts see is an
// empty proxy over the real one (its __index refuses nil, its __newindex refuses all).
//
// A running script belongs to a ScriptRun (script_run.h): redis.call/pcall hand their
// command to it, and it decides locks, the write stream and flags. Lua errors are C++
// exceptions here (Debian's liblua5.1-c++), so RAII holds across lua_error.
//
// Thread safety: one engine per thread (thread_local); never shared.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct lua_State;

namespace hotkv {
class ReplyBuilder;
class Server;
}  // namespace hotkv

namespace hotkv::scripting {

class ScriptRun;
struct CachedScript;

class LuaEngine {
 public:
  // This thread's engine; recreated when SCRIPT FLUSH raised the cache's epoch (unless
  // `allow_reset` is false: then an existing engine is kept, so that script pointers taken
  // from it earlier in the same command stay valid).
  static LuaEngine& ForThisThread(Server& server, bool allow_reset = true);
  ~LuaEngine();

  lua_State* state() { return L_; }
  void PopValue();  // pops the value on top of the stack (a pushed script)
  Server& server() { return *server_; }

  // The cached script `sha` (lowercase): this thread's copy of the shared cache's entry,
  // so that a repeated EVALSHA takes no shared lock and touches no shared reference
  // count. Null when unknown. Valid while this engine lives (see ForThisThread).
  CachedScript* FindScript(std::string_view sha);
  // Keeps `script` (just added to the shared cache) in this engine's map; returns it.
  CachedScript* KeepScript(std::shared_ptr<CachedScript> script);

  // Pushes the compiled function of `script` (compiling it into this state on first use,
  // kept in the registry under its SHA). On a compile error pushes nothing and returns
  // Redis's error text.
  std::string PushScript(const CachedScript& script);
  // Compiles Lua source `code` named `chunk_name` ("@user_script") and pushes the function
  // with the sandbox's globals, or returns the Lua error message (nothing pushed).
  std::string Compile(std::string_view code, const char* chunk_name);

  // Calls the function on top of the stack (popping it) as script `name` (the SHA for
  // EVAL) and writes its result, or the error as Redis formats it ("... script: <name>,
  // on @user_script:<line>."), into `rb`. `run` serves redis.call meanwhile. The keys and
  // arguments are the globals KEYS and ARGV (EVAL), or with `as_params` the function's
  // two arguments, as tables (FCALL's function(keys, args)).
  void Run(ScriptRun& run, std::string_view name, const std::vector<std::string_view>& keys,
           const std::vector<std::string_view>& argv, ReplyBuilder& rb, bool as_params = false);

  // The run in progress (null between scripts).
  ScriptRun* current() const { return current_; }

  // The Lua debugger's line hook (lua_debugger.h) instead of the busy check, or back.
  void SetDebugHook(bool on);

 private:
  explicit LuaEngine(Server& server, uint64_t epoch);
  void OpenLibraries();
  void InstallRedisApi();
  void Sandbox();
  void SetArgTable(int* ref, const char* name, const std::vector<std::string_view>& values);

  lua_State* L_ = nullptr;
  Server* server_;
  uint64_t epoch_;
  int globals_ref_ = -2;  // the real globals table (LUA_NOREF until set)
  int handler_ref_ = -2;  // the error handler (ErrorHandler), created once
  int keys_ref_ = -2;     // the KEYS and ARGV tables EVAL refills (SetArgTable)
  int argv_ref_ = -2;
  struct LocalScript {
    std::shared_ptr<CachedScript> script;
    int fn_ref = -2;  // the compiled function in the registry (LUA_NOREF: not yet)
  };
  struct StringHash {
    using is_transparent = void;
    // Keys are SHA1 hex digests, already uniformly random: 16 of their characters hash
    // as well as all 40 at a fraction of std::hash's cost (EVALSHA looks up twice).
    size_t operator()(std::string_view s) const {
      if (s.size() < 16) {
        return std::hash<std::string_view>{}(s);
      }
      uint64_t a, b;
      std::memcpy(&a, s.data(), 8);
      std::memcpy(&b, s.data() + 8, 8);
      return static_cast<size_t>((a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ s.size());
    }
  };
  using LocalMap = std::unordered_map<std::string, LocalScript, StringHash, std::equal_to<>>;
  LocalMap local_;
  // The script FindScript found last and its compiled function (LUA_NOREF: not yet):
  // a repeated EVALSHA finds and pushes it without the two map lookups.
  CachedScript* last_script_ = nullptr;
  int last_fn_ref_ = -2;
  uint64_t swept_evictions_ = 0;  // ScriptCache::evictions() at the last sweep (KeepScript)
  void DropScript(LocalMap::iterator it);
  ScriptRun* current_ = nullptr;
};

// Raises `msg` as redis.call raises a command's error: the script's caller gets it as is
// (no "ERR " added), followed by " script: <sha>, on @user_script:<line>.".
[[noreturn]] void RaiseScriptError(lua_State* L, std::string_view msg);
// Pushes a read-only view of the table at `table` (a proxy, as the library tables: its
// fields read through, writes and rawset/setmetatable refused, pairs/next see the table).
void PushReadOnlyProxy(lua_State* L, int table);
// Pushes {err = msg} (what redis.pcall returns for a failed command).
void PushErrorTable(lua_State* L, std::string_view msg);

// Lua's number -> argument text, as Redis 7 converts redis.call's numeric arguments
// (shortest round-trip digits, e.g. 0.1 -> "0.1", 1e300 -> "1e+300").
std::string NumberToArg(double v);

}  // namespace hotkv::scripting

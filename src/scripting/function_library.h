// scripting/function_library: FUNCTION's libraries without the script engine — the
// `#!lua name=<lib>` header, running a library's code to collect what it registers
// (redis.register_function in both forms, with Redis's errors), and the registry of
// loaded libraries that FUNCTION LOAD/DELETE/FLUSH/RESTORE/LIST/STATS/DUMP and FCALL use.
//
//   Result<LibraryMetadata> md = ParseLibraryMetadata(code);   // "#!lua name=mylib\n..."
//   FunctionRegistry reg;
//   Result<std::string> name = reg.Load(code, /*replace=*/false);   // "mylib" or the error
//
// A library's code runs in a Lua state where, as in Redis 7+, only `redis` is visible,
// holding register_function, log, LOG_* and REDIS_VERSION(_NUM): any other global read
// fails with "Script attempted to access nonexistent global variable", a global write
// with "Attempt to modify a readonly table", and a run past 500 ms with "FUNCTION LOAD
// timeout". RunLibraryCode() does that in any lua_State, so a script engine can load the
// same code into its own states and keep the callbacks (registry references).
//
// Error texts are Redis's without the leading "ERR " (the command adds it).
//
// Thread safety: the free functions are reentrant (one lua_State per call). The registry
// is safe for concurrent use: readers share a lock; writers (Load, Delete, Flush,
// Restore) are exclusive. version() changes with every write, so a per-worker script
// state can tell when to reload its libraries.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

struct lua_State;

namespace hotkv::scripting {

// Function flags (redis.register_function's `flags`, as script shebang flags).
enum FunctionFlag : uint32_t {
  kFunctionNoWrites = 1u << 0,
  kFunctionAllowOom = 1u << 1,
  kFunctionAllowStale = 1u << 2,
  kFunctionNoCluster = 1u << 3,
  kFunctionAllowCrossSlotKeys = 1u << 4,
};
// The flag names in Redis's order (FUNCTION LIST lists them so).
std::vector<std::string_view> FunctionFlagNames(uint32_t flags);
// One flag by name (case-sensitive, as Redis); nullopt for an unknown name.
std::optional<uint32_t> FunctionFlagByName(std::string_view name);

struct FunctionInfo {
  std::string name;
  std::optional<std::string> description;
  uint32_t flags = 0;
  int callback_ref = -1;  // RunLibraryCode with keep_callbacks: luaL_ref in the registry
};

struct LibraryMetadata {
  std::string engine;  // as written ("lua", "LUA", ...)
  std::string name;
  std::string_view body;  // the code from the header's newline on (line numbers kept)
};

// The `#!<engine> name=<name>` first line, with Redis's errors ("Missing library metadata",
// "Invalid library metadata", "Library name was not given", "Invalid metadata value
// given: x", "Invalid metadata value, name argument was given multiple times"). The name
// and engine are not checked here (ValidateLibrary does).
Result<LibraryMetadata> ParseLibraryMetadata(std::string_view code);

// The error for a bad library name (Redis gives it for bad function names too).
inline constexpr const char* kBadNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";

// Letters, digits and '_', at least one (Redis's functionsVerifyName).
bool IsValidFunctionName(std::string_view name);

// Runs `body` (LibraryMetadata::body) in L, in a fresh environment table that sees only the
// loading `redis` table, and collects the functions it registers. With keep_callbacks the
// callbacks stay referenced from L's registry (FunctionInfo::callback_ref) and the
// environment is left on top of L's stack, for the caller to point at its real globals
// (SetLibraryGlobals); otherwise nothing is left. Errors: "Error compiling function: ...",
// "Error registering functions: ...", "No functions registered".
Result<std::vector<FunctionInfo>> RunLibraryCode(lua_State* L, std::string_view body,
                                                 bool keep_callbacks);
// After RunLibraryCode(keep_callbacks): makes the environment on top of the stack read
// globals from the table at `globals_index` (writes still refused) and pops it.
void SetLibraryGlobals(lua_State* L, int globals_index);

// Checks a library the way FUNCTION LOAD does before it touches the registry: metadata,
// name, engine, then its code run in a scratch Lua state.
struct ValidatedLibrary {
  std::string name;
  std::string code;
  std::vector<FunctionInfo> functions;
};
Result<ValidatedLibrary> ValidateLibrary(std::string_view code);

struct Library {
  std::string name;
  std::string engine = "LUA";
  std::string code;
  std::vector<FunctionInfo> functions;  // callback_ref unused here
};

enum class RestorePolicy { kAppend, kReplace, kFlush };

class FunctionRegistry {
 public:
  // FUNCTION LOAD [REPLACE]: the library's name, or the error (library exists, function
  // name taken by another library, or the code's own error). Load = PrepareLoad + Apply.
  Result<std::string> Load(std::string_view code, bool replace);
  // The checks and the run of the code, which change nothing (FUNCTION LOAD does them
  // before it locks the shards: the code may run for up to 500 ms).
  Result<ValidatedLibrary> PrepareLoad(std::string_view code, bool replace) const;
  // Adds a prepared library (checking again for a library or function added meanwhile).
  Status Apply(ValidatedLibrary&& lib, bool replace);
  // FUNCTION RESTORE in two steps the same way: Restore = PrepareRestore + ApplyRestore.
  Result<std::vector<ValidatedLibrary>> PrepareRestore(const std::vector<std::string>& codes) const;
  Status ApplyRestore(std::vector<ValidatedLibrary>&& libs, RestorePolicy policy);
  // FUNCTION DELETE: false when there is no such library.
  bool Delete(std::string_view name);
  // FUNCTION FLUSH.
  void Flush();
  // FUNCTION RESTORE: all of `codes` or nothing (Redis's errors).
  Status Restore(const std::vector<std::string>& codes, RestorePolicy policy);

  // Libraries by name (a copy of the pointers: safe after a later write).
  std::vector<std::shared_ptr<const Library>> Libraries() const;
  std::vector<std::string> Codes() const;
  // The library holding function `name` (function names ignore case, as in Redis; library
  // names do not), and the function's index in it.
  struct FunctionRef {
    std::shared_ptr<const Library> library;
    size_t index = 0;
    const FunctionInfo& info() const { return library->functions[index]; }
  };
  std::optional<FunctionRef> FindFunction(std::string_view name) const;
  size_t library_count() const;
  size_t function_count() const;
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  using LibraryMap = std::map<std::string, std::shared_ptr<const Library>, std::less<>>;
  // Adds `lib` to `libs`/`funcs` (replacing a library of the same name when `replace`);
  // the error of a name collision leaves them unchanged.
  static Status AddTo(LibraryMap* libs, std::shared_ptr<const Library> lib, bool replace);

  mutable std::shared_mutex mu_;
  LibraryMap libraries_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace hotkv::scripting

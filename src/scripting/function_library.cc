// FUNCTION's libraries (see function_library.h).
#include "scripting/function_library.h"

#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <utility>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace hotkv::scripting {

namespace {

struct FlagName {
  uint32_t flag;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {kFunctionNoWrites, "no-writes"},
    {kFunctionAllowOom, "allow-oom"},
    {kFunctionAllowStale, "allow-stale"},
    {kFunctionNoCluster, "no-cluster"},
    {kFunctionAllowCrossSlotKeys, "allow-cross-slot-keys"},
};


// What RunLibraryCode's redis.register_function collects (a userdata-free upvalue: a light
// userdata pointing here).
struct LoadState {
  std::vector<FunctionInfo>* functions;
  bool keep_callbacks;
  std::chrono::steady_clock::time_point start;
};

// The Redis version the loading `redis` table reports (INFO's redis_version).
constexpr const char* kLoadRedisVersion = "8.0.0";
constexpr int kLoadRedisVersionNum = 0x080000;
constexpr int64_t kLoadTimeoutMs = 500;

// Raises Redis's error table {err = "ERR <msg>"}. Takes a C string: nothing with a
// destructor may be alive in the frames lua_error jumps over.
[[noreturn]] void RaiseRedisError(lua_State* L, const char* msg) {
  lua_newtable(L);
  lua_pushstring(L, "ERR ");
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  lua_setfield(L, -2, "err");
  lua_error(L);
  __builtin_unreachable();
}

// __index of the loading environment and of the loading `redis` table.
int NonexistentGlobal(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    name ? name : "?");
}

int ReadonlyTable(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

// A string argument as Redis's luaGetStringSds takes it (numbers converted, on a copy so
// that a lua_next iteration is not disturbed).
std::optional<std::string> StringAt(lua_State* L, int index) {
  if (!lua_isstring(L, index)) {
    return std::nullopt;
  }
  lua_pushvalue(L, index);
  size_t len;
  const char* s = lua_tolstring(L, -1, &len);
  std::string out(s, len);
  lua_pop(L, 1);
  return out;
}

bool ReadFlags(lua_State* L, int index, uint32_t* flags) {
  for (int j = 1;; ++j) {
    lua_rawgeti(L, index, j);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return true;
    }
    std::optional<std::string> name = StringAt(L, -1);
    lua_pop(L, 1);
    if (!name) {
      return false;
    }
    std::optional<uint32_t> f = FunctionFlagByName(*name);
    if (!f) {
      return false;
    }
    *flags |= *f;
  }
}

// redis.register_function's work: nullptr, or the error to raise (returned, not raised,
// so that the C++ locals are destroyed first).
const char* RegisterFunctionImpl(lua_State* L, LoadState* state) {
  FunctionInfo fi;
  bool have_name = false;
  bool have_callback = false;
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) {
    return ("wrong number of arguments to redis.register_function");
  }
  if (argc == 1) {
    if (!lua_istable(L, 1)) {
      return ("calling redis.register_function with a single argument is only "
                      "applicable to Lua table (representing named arguments).");
    }
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      std::optional<std::string> key = StringAt(L, -2);
      if (!key) {
        return ("named argument key given to redis.register_function is not a string");
      }
      if (strcasecmp(key->c_str(), "function_name") == 0) {
        std::optional<std::string> v = StringAt(L, -1);
        if (!v) {
          return ("function_name argument given to redis.register_function must be a string");
        }
        fi.name = *v;
        have_name = true;
      } else if (strcasecmp(key->c_str(), "description") == 0) {
        std::optional<std::string> v = StringAt(L, -1);
        if (!v) {
          return ("description argument given to redis.register_function must be a string");
        }
        fi.description = *v;
      } else if (strcasecmp(key->c_str(), "callback") == 0) {
        if (!lua_isfunction(L, -1)) {
          return ("callback argument given to redis.register_function must be a function");
        }
        if (fi.callback_ref >= 0) {
          luaL_unref(L, LUA_REGISTRYINDEX, fi.callback_ref);
          fi.callback_ref = -1;
        }
        if (state->keep_callbacks) {
          lua_pushvalue(L, -1);
          fi.callback_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        }
        have_callback = true;
      } else if (strcasecmp(key->c_str(), "flags") == 0) {
        if (!lua_istable(L, -1)) {
          return ("flags argument to redis.register_function must be a table representing function flags");
        }
        if (!ReadFlags(L, lua_gettop(L), &fi.flags)) {
          return ("unknown flag given");
        }
      } else {
        return ("unknown argument given to redis.register_function");
      }
      lua_pop(L, 1);
    }
    if (!have_name) {
      return ("redis.register_function must get a function name argument");
    }
    if (!have_callback) {
      return ("redis.register_function must get a callback argument");
    }
  } else {
    std::optional<std::string> name = StringAt(L, 1);
    if (!name) {
      return ("first argument to redis.register_function must be a string");
    }
    if (!lua_isfunction(L, 2)) {
      return ("second argument to redis.register_function must be a function");
    }
    fi.name = *name;
    if (state->keep_callbacks) {
      lua_pushvalue(L, 2);
      fi.callback_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
  }
  auto drop_callback = [&] {
    if (fi.callback_ref >= 0) {
      luaL_unref(L, LUA_REGISTRYINDEX, fi.callback_ref);
    }
  };
  if (!IsValidFunctionName(fi.name)) {
    drop_callback();
    return (kBadNameError);
  }
  for (const FunctionInfo& f : *state->functions) {
    if (f.name == fi.name) {  // case-sensitive inside a library, as Redis
      drop_callback();
      return ("Function already exists in the library");
    }
  }
  state->functions->push_back(std::move(fi));
  return nullptr;
}

int RegisterFunction(lua_State* L) {
  auto* state = static_cast<LoadState*>(lua_touserdata(L, lua_upvalueindex(1)));
  if (const char* err = RegisterFunctionImpl(L, state); err != nullptr) {
    RaiseRedisError(L, err);
  }
  return 0;
}

int Log(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) {
    return luaL_error(L, "redis.log() requires two arguments or more.");
  }
  if (!lua_isnumber(L, 1)) {
    return luaL_error(L, "First argument must be a number (log level).");
  }
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) {
    return luaL_error(L, "Invalid debug level.");
  }
  return 0;  // the server log is not reachable from here; the message is dropped
}

void TimeoutHook(lua_State* L, lua_Debug*) {
  lua_getfield(L, LUA_REGISTRYINDEX, "__hotkv_load_state");
  auto* state = static_cast<LoadState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  if (state == nullptr) {
    return;
  }
  auto elapsed = std::chrono::steady_clock::now() - state->start;
  if (std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() > kLoadTimeoutMs) {
    lua_sethook(L, nullptr, 0, 0);
    lua_pushstring(L, "FUNCTION LOAD timeout");
    lua_error(L);
  }
}

// The message of the error on top of the stack, as Redis's luaExtractErrorInformation
// gives it: a table's `err` field, or "ERR " + a string.
std::string ErrorText(lua_State* L) {
  std::string out;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    if (lua_isstring(L, -1)) {
      out = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
  } else if (lua_isstring(L, -1)) {
    out = std::string("ERR ") + lua_tostring(L, -1);
  } else {
    out = "ERR unknown error";
  }
  lua_pop(L, 1);
  return out;
}

// t[name] = value on top (pops it), without metamethods; t is below the value.
void RawSetField(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, -3);
}

// Gives the table on top a metatable that refuses reads of missing fields and writes.
void SetGuard(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, NonexistentGlobal);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyTable);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
}

}  // namespace

std::vector<std::string_view> FunctionFlagNames(uint32_t flags) {
  std::vector<std::string_view> out;
  for (const FlagName& f : kFlagNames) {
    if (flags & f.flag) {
      out.push_back(f.name);
    }
  }
  return out;
}

std::optional<uint32_t> FunctionFlagByName(std::string_view name) {
  for (const FlagName& f : kFlagNames) {
    if (f.name == name) {
      return f.flag;
    }
  }
  return std::nullopt;
}

bool IsValidFunctionName(std::string_view name) {
  if (name.empty()) {
    return false;
  }
  for (char c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return false;
    }
  }
  return true;
}

Result<LibraryMetadata> ParseLibraryMetadata(std::string_view code) {
  if (code.substr(0, 2) != "#!") {
    return Status::InvalidArgument("Missing library metadata");
  }
  size_t eol = code.find('\n');
  if (eol == std::string_view::npos) {
    return Status::InvalidArgument("Invalid library metadata");
  }
  std::string_view line = code.substr(0, eol);
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
    }
    size_t start = i;
    while (i < line.size() && !isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
    }
    if (i > start) {
      parts.push_back(line.substr(start, i - start));
    }
  }
  if (parts.empty()) {
    return Status::InvalidArgument("Invalid library metadata");
  }
  LibraryMetadata md;
  md.engine = std::string(parts[0].substr(2));
  bool have_name = false;
  for (size_t p = 1; p < parts.size(); ++p) {
    std::string_view part = parts[p];
    if (part.size() >= 5 && strncasecmp(part.data(), "name=", 5) == 0) {
      if (have_name) {
        return Status::InvalidArgument(
            "Invalid metadata value, name argument was given multiple times");
      }
      md.name = std::string(part.substr(5));
      have_name = true;
      continue;
    }
    return Status::InvalidArgument("Invalid metadata value given: " + std::string(part));
  }
  if (!have_name) {
    return Status::InvalidArgument("Library name was not given");
  }
  md.body = code.substr(eol);
  return md;
}

Result<std::vector<FunctionInfo>> RunLibraryCode(lua_State* L, std::string_view body,
                                                 bool keep_callbacks) {
  const int top = lua_gettop(L);
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_function") != 0) {
    std::string msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error";
    lua_settop(L, top);
    return Status::InvalidArgument("Error compiling function: " + msg);
  }
  std::vector<FunctionInfo> functions;
  LoadState state{&functions, keep_callbacks, std::chrono::steady_clock::now()};
  // The loading `redis` table R: register_function, log, levels, versions; nothing else.
  lua_newtable(L);  // chunk R
  lua_pushlightuserdata(L, &state);
  lua_pushcclosure(L, RegisterFunction, 1);
  RawSetField(L, "register_function");
  lua_pushcfunction(L, Log);
  RawSetField(L, "log");
  const char* levels[] = {"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"};
  for (int l = 0; l < 4; ++l) {
    lua_pushinteger(L, l);
    RawSetField(L, levels[l]);
  }
  lua_pushstring(L, kLoadRedisVersion);
  RawSetField(L, "REDIS_VERSION");
  lua_pushinteger(L, kLoadRedisVersionNum);
  RawSetField(L, "REDIS_VERSION_NUM");
  SetGuard(L);
  // The loading globals G: only `redis`.
  lua_newtable(L);  // chunk R G
  lua_pushvalue(L, -2);
  RawSetField(L, "redis");
  SetGuard(L);
  // The chunk's environment E: reads go to G (later to the real globals), writes fail.
  lua_newtable(L);  // chunk R G E
  lua_newtable(L);  // chunk R G E mt
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyTable);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);  // chunk R G E
  lua_pushvalue(L, -1);
  lua_setfenv(L, top + 1);  // chunk R G E
  lua_insert(L, top + 1);   // E chunk R G
  lua_settop(L, top + 2);   // E chunk
  lua_pushlightuserdata(L, &state);
  lua_setfield(L, LUA_REGISTRYINDEX, "__hotkv_load_state");
  // The load's own time limit; the state's hook (a script engine's) is put back after.
  lua_Hook saved_hook = lua_gethook(L);
  const int saved_mask = lua_gethookmask(L);
  const int saved_count = lua_gethookcount(L);
  lua_sethook(L, TimeoutHook, LUA_MASKCOUNT, 100000);
  int rc = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, saved_hook, saved_mask, saved_count);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "__hotkv_load_state");
  auto release = [&] {
    for (FunctionInfo& f : functions) {
      if (f.callback_ref >= 0) {
        luaL_unref(L, LUA_REGISTRYINDEX, f.callback_ref);
        f.callback_ref = -1;
      }
    }
  };
  if (rc != 0) {
    std::string msg = ErrorText(L);
    release();
    lua_settop(L, top);
    return Status::InvalidArgument("Error registering functions: " + msg);
  }
  if (functions.empty()) {
    lua_settop(L, top);
    return Status::InvalidArgument("No functions registered");
  }
  if (keep_callbacks) {
    lua_settop(L, top + 1);  // the environment stays on top
  } else {
    lua_settop(L, top);
  }
  return functions;
}

void SetLibraryGlobals(lua_State* L, int globals_index) {
  if (globals_index < 0 && globals_index > LUA_REGISTRYINDEX) {
    globals_index = lua_gettop(L) + globals_index + 1;
  }
  lua_getmetatable(L, -1);          // env mt
  lua_pushvalue(L, globals_index);  // env mt globals
  lua_setfield(L, -2, "__index");
  lua_pop(L, 2);
}

Result<ValidatedLibrary> ValidateLibrary(std::string_view code) {
  Result<LibraryMetadata> md = ParseLibraryMetadata(code);
  if (!md.ok()) {
    return md.status();
  }
  if (!IsValidFunctionName(md->name)) {
    return Status::InvalidArgument(kBadNameError);
  }
  if (strcasecmp(md->engine.c_str(), "lua") != 0) {
    return Status::InvalidArgument("Engine '" + md->engine + "' not found");
  }
  lua_State* L = luaL_newstate();
  if (L == nullptr) {
    return Status::FailedPrecondition("Error registering functions: out of memory");
  }
  Result<std::vector<FunctionInfo>> fns = RunLibraryCode(L, md->body, /*keep_callbacks=*/false);
  lua_close(L);
  if (!fns.ok()) {
    return fns.status();
  }
  ValidatedLibrary lib;
  lib.name = md->name;
  lib.code = std::string(code);
  lib.functions = std::move(*fns);
  return lib;
}

}  // namespace hotkv::scripting

#include "scripting/lua_engine.h"

#include <lua.hpp>

extern "C" {
#include <lua-bitop.h>
#include <lua-cjson.h>
}

#include <cstdio>
#include <cstring>
#include <memory>

#include "common/string_util.h"
#include "protocol/reply_builder.h"
#include "scripting/lua_cjson_ext.h"
#include "scripting/lua_cmsgpack.h"
#include "scripting/lua_convert.h"
#include "scripting/lua_debugger.h"
#include "scripting/lua_struct.h"
#include "scripting/script_cache.h"
#include "scripting/script_run.h"
#include "scripting/sha1.h"

namespace hotkv::scripting {

namespace {

constexpr const char* kVersion = "8.0.0";
constexpr int kVersionNum = 0x080000;
constexpr const char* kCallErrKey = "__hotkv_call_err";

thread_local std::unique_ptr<LuaEngine> t_engine;

LuaEngine* EngineOf(lua_State* L) {
  return static_cast<LuaEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
}

ScriptRun* RunOf(lua_State* L) {
  LuaEngine* e = EngineOf(L);
  if (e == nullptr || e->current() == nullptr) {
    luaL_error(L, "redis.call can only be called from a running script");
  }
  return e->current();
}

// --- the redis table ---

int RedisCall(lua_State* L) { return RunOf(L)->Call(L, true); }
int RedisPcall(lua_State* L) { return RunOf(L)->Call(L, false); }

// Redis's luaPushErrorBuff rules: "-CODE msg" -> "CODE msg", "-msg" -> "ERR msg",
// "msg" -> "ERR msg" ... for error_reply the leading '-' is implied.
std::string ErrorText(std::string_view s) {
  if (!s.empty() && s[0] == '-') {
    s.remove_prefix(1);
  }
  if (s.find(' ') == std::string_view::npos) {
    return "ERR " + std::string(s);
  }
  return std::string(s);
}

// error_reply/status_reply with bad arguments return (not raise) an error table.
int BadArgs(lua_State* L) {
  lua_createtable(L, 0, 1);
  lua_pushstring(L, "ERR wrong number or type of arguments");
  lua_setfield(L, -2, "err");
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    return BadArgs(L);
  }
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  std::string e = ErrorText(std::string_view(s, len));
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, e.data(), e.size());
  lua_setfield(L, -2, "err");
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    return BadArgs(L);
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

// Raises a Redis-style error: a string the error handler recognises as already formatted
// (no "ERR " and no position added), as redis.call's errors are.
[[noreturn]] void RaiseRedisError(lua_State* L, std::string_view msg) {
  lua_pushlstring(L, msg.data(), msg.size());
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kCallErrKey);
  lua_error(L);
  __builtin_unreachable();
}

int RedisSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    RaiseRedisError(L, "ERR wrong number of arguments");
  }
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  std::string hex = Sha1Hex(std::string_view(s == nullptr ? "" : s, s == nullptr ? 0 : len));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int RedisLog(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) {
    RaiseRedisError(L, "ERR redis.log() requires two arguments or more.");
  }
  if (!lua_isnumber(L, 1)) {
    RaiseRedisError(L, "ERR First argument must be a number (log level).");
  }
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) {
    RaiseRedisError(L, "ERR Invalid debug level.");
  }
  std::string msg;
  for (int i = 2; i <= argc; i++) {
    size_t len;
    const char* s = lua_tolstring(L, i, &len);
    if (s != nullptr) {
      if (i > 2) {
        msg += ' ';
      }
      msg.append(s, len);
    }
  }
  if (level >= 2) {  // notice and warning reach the default loglevel
    fprintf(stderr, "# Lua: %s\n", msg.c_str());
  }
  return 0;
}

int RedisSetResp(lua_State* L) {
  ScriptRun* run = RunOf(L);
  if (lua_gettop(L) != 1) {
    RaiseRedisError(L, "ERR redis.setresp() requires one argument.");
  }
  int v = static_cast<int>(lua_tonumber(L, 1));
  if (v != 2 && v != 3) {
    RaiseRedisError(L, "ERR RESP version must be 2 or 3.");
  }
  run->set_resp(v);
  return 0;
}

int RedisSetRepl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    RaiseRedisError(L, "ERR redis.set_repl() requires one argument.");
  }
  int v = static_cast<int>(lua_tonumber(L, 1));
  if (v < 0 || v > 3) {
    RaiseRedisError(L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;  // HotKV always replicates the effects (REPL_ALL)
}

int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

// redis.debug(...): a "<debug>" line in the debugger's console; nothing outside a session.
int RedisDebug(lua_State* L) {
  if (LdbSession* s = LdbSession::Active()) {
    s->LogDebug(L);
  }
  return 0;
}

// redis.breakpoint(): stops at the next line in a debugging session (true); false
// outside one.
int RedisBreakpoint(lua_State* L) {
  LdbSession* s = LdbSession::Active();
  if (s != nullptr) {
    s->SetLuaBreakpoint();
  }
  lua_pushboolean(L, s != nullptr);
  return 1;
}

int RedisAclCheckCmd(lua_State* L) {
  if (lua_gettop(L) < 1) {
    RaiseRedisError(L, "ERR Please specify at least one argument for this redis lib call");
  }
  lua_pushboolean(L, 1);  // no ACL users yet: the default user may run everything
  return 1;
}

// --- sandbox ---

int GlobalIndex(lua_State* L) {  // __index of the real globals table: (table, key)
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) {
    return 1;
  }
  const char* name = lua_tostring(L, 2);
  luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
  return 0;
}

// The read-only proxies (library tables, the scripts' globals) map to their tables in
// the registry under this key, so that next / pairs / rawget see the real contents, as
// Redis 7+'s read-only tables (real tables with a read-only flag) let them.
const char kProxiesKey = 0;

// Replaces the value at `idx` by the table it proxies, if it is a proxy.
void Unproxy(lua_State* L, int idx) {
  lua_pushlightuserdata(L, const_cast<char*>(&kProxiesKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  if (lua_istable(L, -1)) {
    lua_replace(L, idx);
    lua_pop(L, 1);
  } else {
    lua_pop(L, 2);
  }
}

int ProxyNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  Unproxy(L, 1);
  if (lua_next(L, 1)) {
    return 2;
  }
  lua_pushnil(L);
  return 1;
}

int ProxyPairs(lua_State* L) {  // upvalue 1: Lua's own next (iterates the real table)
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  Unproxy(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_pushnil(L);
  return 3;
}

int ProxyRawGet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  Unproxy(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int ReadOnlyError(lua_State* L) {
  luaL_error(L, "Attempt to modify a readonly table");
  return 0;
}

bool IsReadOnly(lua_State* L, int index) {
  if (!lua_istable(L, index) || !lua_getmetatable(L, index)) {
    return false;
  }
  lua_pushstring(L, "__newindex");
  lua_rawget(L, -2);
  bool ro = lua_tocfunction(L, -1) == ReadOnlyError;
  lua_pop(L, 2);
  return ro;
}

// rawset (and setmetatable, below) refuse the read-only tables, as Redis 7's Lua does.
// The arguments are checked here, as Lua's own function would: its errors then name the
// function and the script's line ("user_script:1: bad argument #1 to 'rawset' ..."),
// which they cannot when Lua's function is called from this one.
int GuardedCall(lua_State* L) {
  if (IsReadOnly(L, 1)) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    lua_error(L);
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// loadstring / load as Redis's Lua has them: its parser never undumps precompiled
// bytecode (CVE-2015-4335), so a chunk starting with the bytecode signature (ESC) is read
// as text and fails with the text parser's error ("[string "..."]:1: unexpected symbol
// near 'char(27)'"). Debian's Lua would load it: the chunk is given a leading space
// (same error, same line) so that it is parsed as text too.
int LoadChunk(lua_State* L, const char* s, size_t len, const char* chunkname) {
  int status;
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    std::string text(" ");
    text.append(s, len);
    status = luaL_loadbuffer(L, text.data(), text.size(), chunkname);
  } else {
    status = luaL_loadbuffer(L, s, len, chunkname);
  }
  if (status == 0) {
    return 1;
  }
  lua_pushnil(L);
  lua_insert(L, -2);  // nil, message
  return 2;
}

int SafeLoadString(lua_State* L) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  return LoadChunk(L, s, len, chunkname);
}

// load(func [, chunkname]): Lua's own reader (so that its errors go through the script's
// message handler as in Redis), except that a chunk starting with the bytecode signature
// gets a space in front (parsed as text, as loadstring).
struct LoadReader {
  bool first = true;
  bool pending = false;  // the first piece waits behind the space
};

const char* ReadPiece(lua_State* L, void* ud, size_t* size) {
  auto* r = static_cast<LoadReader*>(ud);
  if (r->pending) {
    r->pending = false;
    return lua_tolstring(L, 3, size);  // kept in the reserved slot
  }
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) {
    luaL_error(L, "reader function must return a string");
  }
  lua_replace(L, 3);  // keeps the piece alive while the parser reads it
  const char* piece = lua_tolstring(L, 3, size);
  if (r->first && *size > 0) {
    r->first = false;
    if (piece[0] == LUA_SIGNATURE[0]) {
      r->pending = true;
      *size = 1;
      return " ";
    }
  }
  return piece;
}

int SafeLoad(lua_State* L) {
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 3);  // function, name, a reserved slot
  LoadReader reader;
  if (lua_load(L, ReadPiece, &reader, chunkname) == 0) {
    return 1;
  }
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// setmetatable: GuardedCall's check, and a metatable marking cjson arrays noticed
// (lua_cjson_ext.h).
int GuardedSetMetatable(lua_State* L) {
  if (IsReadOnly(L, 1)) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    lua_error(L);
  }
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (luaL_getmetafield(L, 1, "__metatable")) {
    luaL_error(L, "cannot change a protected metatable");
  }
  NoteCjsonMetatable(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Registry: read-only proxies of the metatables GuardedGetMetatable hands out, by
// metatable (one proxy each, so that getmetatable(_G) == getmetatable(_G)).
const char kMetatableProxiesKey = 0;

// getmetatable: a read-only proxy answers for the table it stands for, as Redis 7+'s
// read-only tables are the tables themselves (so a decoded cjson array's metatable has no
// metatable: nil, where the proxy's own answer would be its __metatable, false). A
// metatable found that way, and the strings' metatable, are handed out read-only (Redis
// protects them too: getmetatable('').__index = nil is "Attempt to modify a readonly
// table"), through one proxy per metatable.
int GuardedGetMetatable(lua_State* L) {
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  const bool ro = IsReadOnly(L, 1);
  if (ro) {
    Unproxy(L, 1);
  }
  const bool protect = ro || lua_type(L, 1) == LUA_TSTRING;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_call(L, 1, 1);  // 2: Lua's getmetatable of the value itself
  if (!protect || !lua_istable(L, 2) || IsReadOnly(L, 2)) {
    return 1;
  }
  lua_pushlightuserdata(L, const_cast<char*>(&kMetatableProxiesKey));
  lua_rawget(L, LUA_REGISTRYINDEX);  // 3
  if (!lua_istable(L, 3)) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lua_pushlightuserdata(L, const_cast<char*>(&kMetatableProxiesKey));
    lua_pushvalue(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, 3);  // 4
  if (!lua_isnil(L, 4)) {
    return 1;
  }
  lua_pop(L, 1);
  PushReadOnlyProxy(L, 2);  // 4
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 4);
  lua_rawset(L, 3);
  return 1;
}

int OsClock(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(clock()) / CLOCKS_PER_SEC);
  return 1;
}

// Message handler of every script call: turns the error into a table {err, source, line}
// where source/line are the script position that raised it (the caller of a C function).
int ErrorHandler(lua_State* L) {
  lua_Debug ar;
  bool have = false;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar)) {
    have = true;
    if (strcmp(ar.what, "C") == 0) {
      have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
    }
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kCallErrKey);
  bool from_call = lua_type(L, 1) == LUA_TSTRING && lua_rawequal(L, 1, -1);
  lua_pop(L, 1);
  lua_createtable(L, 0, 3);
  if (from_call) {
    lua_pushvalue(L, 1);
  } else if (lua_type(L, 1) == LUA_TTABLE) {
    lua_pushstring(L, "err");
    lua_rawget(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushstring(L, "ERR unknown error");
    }
  } else {
    lua_pushstring(L, "ERR ");
    if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER) {
      lua_pushvalue(L, 1);
    } else {
      lua_pushstring(L, lua_typename(L, lua_type(L, 1)));
      if (lua_isnil(L, 1)) {
        lua_pop(L, 1);
        lua_pushstring(L, "nil");
      }
    }
    lua_concat(L, 2);
  }
  lua_setfield(L, -2, "err");
  if (have) {
    lua_pushstring(L, ar.source);
    lua_setfield(L, -2, "source");
    lua_pushnumber(L, ar.currentline);
    lua_setfield(L, -2, "line");
  }
  return 1;
}

void Hook(lua_State* L, lua_Debug* ar) {
  LuaEngine* e = t_engine.get();
  if (e == nullptr || e->current() == nullptr) {
    return;
  }
  if (const char* err = e->current()->CheckInterrupt()) {
    RaiseRedisError(L, err);
  }
}

void DebugHook(lua_State* L, lua_Debug* ar) {
  if (LdbSession* s = LdbSession::Active()) {
    s->Hook(L, ar);
  }
}

void SetFn(lua_State* L, LuaEngine* e, const char* name, lua_CFunction fn) {
  lua_pushlightuserdata(L, e);
  lua_pushcclosure(L, fn, 1);
  lua_setfield(L, -2, name);
}

void SetNum(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

}  // namespace

std::string NumberToArg(double v) { return DoubleToString(v); }

void RaiseScriptError(lua_State* L, std::string_view msg) { RaiseRedisError(L, msg); }

void PushReadOnlyProxy(lua_State* L, int table) {
  table = table < 0 ? lua_gettop(L) + table + 1 : table;
  lua_createtable(L, 0, 0);  // the proxy
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, table);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadOnlyError);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, const_cast<char*>(&kProxiesKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, table);
  lua_rawset(L, -3);  // proxies[proxy] = table (next/pairs/rawget see through it)
  lua_pop(L, 1);
}

void PushErrorTable(lua_State* L, std::string_view msg) {
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, msg.data(), msg.size());
  lua_setfield(L, -2, "err");
}

LuaEngine& LuaEngine::ForThisThread(Server& server, bool allow_reset) {
  if (!allow_reset && t_engine != nullptr && t_engine->server_ == &server) {
    return *t_engine;
  }
  uint64_t epoch = ScriptCache::Instance().epoch();
  if (t_engine == nullptr || t_engine->epoch_ != epoch || t_engine->server_ != &server) {
    t_engine.reset();
    t_engine.reset(new LuaEngine(server, epoch));
  }
  return *t_engine;
}

LuaEngine::LuaEngine(Server& server, uint64_t epoch) : server_(&server), epoch_(epoch) {
  L_ = luaL_newstate();
  OpenLibraries();
  InstallRedisApi();
  Sandbox();
  lua_pushcfunction(L_, ErrorHandler);
  handler_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_sethook(L_, Hook, LUA_MASKCOUNT, 100000);
}

LuaEngine::~LuaEngine() {
  if (L_ != nullptr) {
    lua_close(L_);
  }
}

void LuaEngine::OpenLibraries() {
  // The libraries Redis loads (cmsgpack and struct: scripting/lua_cmsgpack.h, lua_struct.h).
  const luaL_Reg libs[] = {{"", luaopen_base},     {LUA_TABLIBNAME, luaopen_table},
                           {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
                           {LUA_DBLIBNAME, luaopen_debug},   {"cjson", luaopen_cjson},
                           {"bit", luaopen_bit},             {"cmsgpack", luaopen_cmsgpack},
                           {"struct", luaopen_struct}};
  for (const luaL_Reg& lib : libs) {
    lua_pushcfunction(L_, lib.func);
    lua_pushstring(L_, lib.name);
    lua_call(L_, 1, 1);
    if (lib.name[0] != '\0' && lua_istable(L_, -1)) {
      if (strcmp(lib.name, "cjson") == 0) {
        ExtendCjson(L_);  // Redis 8's decode_array_with_array_mt
      }
      lua_setglobal(L_, lib.name);  // lua-cjson returns its table without setting it
    } else {
      lua_pop(L_, 1);
    }
  }
  lua_getglobal(L_, "rawset");
  lua_pushcclosure(L_, GuardedCall, 1);
  lua_setglobal(L_, "rawset");
  lua_getglobal(L_, "setmetatable");
  lua_pushcclosure(L_, GuardedSetMetatable, 1);
  lua_setglobal(L_, "setmetatable");
  lua_getglobal(L_, "getmetatable");
  lua_pushcclosure(L_, GuardedGetMetatable, 1);
  lua_setglobal(L_, "getmetatable");
  lua_pushcfunction(L_, SafeLoadString);
  lua_setglobal(L_, "loadstring");
  lua_pushcfunction(L_, SafeLoad);
  lua_setglobal(L_, "load");
  // Redis's message handler is a global too (its scripts' errors go through it).
  lua_pushcfunction(L_, ErrorHandler);
  lua_setglobal(L_, "__redis__err__handler");
  // os: only os.clock, as Redis 8.
  lua_createtable(L_, 0, 1);
  lua_pushcfunction(L_, OsClock);
  lua_setfield(L_, -2, "clock");
  lua_setglobal(L_, "os");
}

void LuaEngine::InstallRedisApi() {
  lua_createtable(L_, 0, 32);
  SetFn(L_, this, "call", RedisCall);
  SetFn(L_, this, "pcall", RedisPcall);
  SetFn(L_, this, "error_reply", RedisErrorReply);
  SetFn(L_, this, "status_reply", RedisStatusReply);
  SetFn(L_, this, "sha1hex", RedisSha1Hex);
  SetFn(L_, this, "log", RedisLog);
  SetFn(L_, this, "setresp", RedisSetResp);
  SetFn(L_, this, "set_repl", RedisSetRepl);
  SetFn(L_, this, "replicate_commands", RedisReplicateCommands);
  SetFn(L_, this, "breakpoint", RedisBreakpoint);
  SetFn(L_, this, "debug", RedisDebug);
  SetFn(L_, this, "acl_check_cmd", RedisAclCheckCmd);
  SetNum(L_, "LOG_DEBUG", 0);
  SetNum(L_, "LOG_VERBOSE", 1);
  SetNum(L_, "LOG_NOTICE", 2);
  SetNum(L_, "LOG_WARNING", 3);
  SetNum(L_, "REPL_NONE", 0);
  SetNum(L_, "REPL_AOF", 1);
  SetNum(L_, "REPL_SLAVE", 2);
  SetNum(L_, "REPL_REPLICA", 2);
  SetNum(L_, "REPL_ALL", 3);
  lua_pushstring(L_, kVersion);
  lua_setfield(L_, -2, "REDIS_VERSION");
  SetNum(L_, "REDIS_VERSION_NUM", kVersionNum);
  lua_setglobal(L_, "redis");
}

void LuaEngine::Sandbox() {
  // Globals Redis does not offer.
  for (const char* name : {"dofile", "loadfile", "print", "setfenv", "getfenv", "newproxy",
                           "module", "require", "package", "io", "debug"}) {
    lua_pushnil(L_);
    lua_setglobal(L_, name);
  }
  // Library tables become read-only proxies.
  lua_pushvalue(L_, LUA_GLOBALSINDEX);
  int real = lua_gettop(L_);
  lua_createtable(L_, 0, 12);  // proxy -> table (Unproxy)
  int proxies = lua_gettop(L_);
  lua_createtable(L_, 0, 1);  // weak keys: a proxy made at run time (cjson) may go
  lua_pushstring(L_, "k");
  lua_setfield(L_, -2, "__mode");
  lua_setmetatable(L_, proxies);
  lua_pushlightuserdata(L_, const_cast<char*>(&kProxiesKey));
  lua_pushvalue(L_, proxies);
  lua_rawset(L_, LUA_REGISTRYINDEX);
  for (const char* name : {"redis", "string", "math", "table", "cjson", "bit", "cmsgpack",
                           "struct", "os", "coroutine"}) {
    lua_getfield(L_, real, name);
    if (!lua_istable(L_, -1)) {
      lua_pop(L_, 1);
      continue;
    }
    int lib = lua_gettop(L_);
    lua_createtable(L_, 0, 0);          // proxy
    lua_createtable(L_, 0, 3);          // its metatable
    lua_pushvalue(L_, lib);
    lua_setfield(L_, -2, "__index");
    lua_pushcfunction(L_, ReadOnlyError);
    lua_setfield(L_, -2, "__newindex");
    lua_pushboolean(L_, 0);
    lua_setfield(L_, -2, "__metatable");
    lua_setmetatable(L_, -2);
    lua_pushvalue(L_, -1);
    lua_pushvalue(L_, lib);
    lua_rawset(L_, proxies);            // proxies[proxy] = library
    if (strcmp(name, "string") == 0) {
      // Method calls on strings ("x"):sub() go through the proxy too, so that
      // getmetatable('').__index == string, as in Redis.
      lua_pushstring(L_, "");
      if (lua_getmetatable(L_, -1)) {
        lua_pushvalue(L_, -3);
        lua_setfield(L_, -2, "__index");
        lua_pop(L_, 1);
      }
      lua_pop(L_, 1);
    }
    lua_setfield(L_, real, name);       // real[name] = proxy
    lua_pop(L_, 1);                      // the library table
  }
  // The globals scripts see: an empty proxy whose __index is the real table itself, so
  // that reading a global (`redis`, `KEYS`, ...) is a table chain inside the VM and not a
  // C call per read; only a miss reaches GlobalIndex, the real table's own __index
  // (installed last, below), which raises Redis's error.
  lua_createtable(L_, 0, 0);
  int proxy = lua_gettop(L_);
  lua_createtable(L_, 0, 3);
  lua_pushvalue(L_, real);
  lua_setfield(L_, -2, "__index");
  lua_pushcfunction(L_, ReadOnlyError);
  lua_setfield(L_, -2, "__newindex");
  lua_pushboolean(L_, 0);
  lua_setfield(L_, -2, "__metatable");
  lua_setmetatable(L_, proxy);
  lua_pushvalue(L_, proxy);
  lua_pushvalue(L_, real);
  lua_rawset(L_, proxies);  // proxies[globals proxy] = the real globals
  // next / pairs / rawget that see through the proxies; pairs hands out Lua's own next
  // (saved before `next` is replaced) as the iterator, so iterating costs what it did.
  lua_getfield(L_, real, "next");
  lua_pushcclosure(L_, ProxyPairs, 1);
  lua_setfield(L_, real, "pairs");
  lua_pushcfunction(L_, ProxyNext);
  lua_setfield(L_, real, "next");
  lua_pushcfunction(L_, ProxyRawGet);
  lua_setfield(L_, real, "rawget");
  lua_pushvalue(L_, proxy);
  lua_setfield(L_, real, "_G");
  // From here on a non-raw read of a missing key of the real table raises: C code reads
  // it with lua_rawget (SetArgTable).
  lua_createtable(L_, 0, 1);
  lua_pushvalue(L_, real);
  lua_pushcclosure(L_, GlobalIndex, 1);
  lua_setfield(L_, -2, "__index");
  lua_setmetatable(L_, real);
  lua_pushvalue(L_, real);
  globals_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  // From now on chunks compiled in this state see the proxy as their globals.
  lua_pushvalue(L_, proxy);
  lua_replace(L_, LUA_GLOBALSINDEX);
  lua_settop(L_, 0);
}

void LuaEngine::PopValue() { lua_pop(L_, 1); }

void LuaEngine::SetDebugHook(bool on) {
  if (on) {
    lua_sethook(L_, DebugHook, LUA_MASKLINE | LUA_MASKCOUNT, 100000);
  } else {
    lua_sethook(L_, Hook, LUA_MASKCOUNT, 100000);
  }
}

std::string LuaEngine::Compile(std::string_view code, const char* chunk_name) {
  if (luaL_loadbuffer(L_, code.data(), code.size(), chunk_name) != 0) {
    std::string err = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "";
    lua_pop(L_, 1);
    return err;
  }
  return {};
}

CachedScript* LuaEngine::FindScript(std::string_view sha) {
  if (last_script_ != nullptr && sha.size() == last_script_->sha.size() &&
      memcmp(sha.data(), last_script_->sha.data(), sha.size()) == 0 &&
      !last_script_->evicted.load(std::memory_order_relaxed)) [[likely]] {
    return last_script_;
  }
  auto it = local_.find(sha);
  if (it != local_.end()) {
    CachedScript* s = it->second.script.get();
    if (s == nullptr || !s->evicted.load(std::memory_order_relaxed)) [[likely]] {
      if (s != nullptr) {
        last_script_ = s;
        last_fn_ref_ = it->second.fn_ref;
      }
      return s;
    }
    DropScript(it);  // evicted from the shared cache (EVAL's LRU): NOSCRIPT, as Redis
  }
  std::shared_ptr<CachedScript> s = ScriptCache::Instance().Find(sha);
  if (s == nullptr) {
    return nullptr;
  }
  return KeepScript(std::move(s));
}

void LuaEngine::DropScript(LocalMap::iterator it) {
  last_script_ = nullptr;
  last_fn_ref_ = LUA_NOREF;
  if (it->second.fn_ref != LUA_NOREF) {
    luaL_unref(L_, LUA_REGISTRYINDEX, it->second.fn_ref);
  }
  local_.erase(it);
}

CachedScript* LuaEngine::KeepScript(std::shared_ptr<CachedScript> script) {
  // Scripts evicted from the shared cache since the last sweep: their compiled functions
  // go too (a client sending ever new scripts would otherwise grow every worker's state).
  const uint64_t evictions = ScriptCache::Instance().evictions();
  if (evictions - swept_evictions_ >= 64) {
    swept_evictions_ = evictions;
    for (auto i = local_.begin(); i != local_.end();) {
      auto next = std::next(i);
      if (i->second.script != nullptr && i->second.script->evicted.load(std::memory_order_relaxed)) {
        DropScript(i);
      }
      i = next;
    }
  }
  auto it = local_.find(std::string_view(script->sha));
  if (it != local_.end()) {
    return it->second.script.get();
  }
  CachedScript* raw = script.get();
  local_.emplace(raw->sha, LocalScript{std::move(script), LUA_NOREF});
  return raw;
}

std::string LuaEngine::PushScript(const CachedScript& script) {
  if (&script == last_script_ && last_fn_ref_ != LUA_NOREF) [[likely]] {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, last_fn_ref_);
    return {};
  }
  auto it = local_.find(std::string_view(script.sha));
  if (it != local_.end() && it->second.fn_ref != LUA_NOREF) {
    if (&script == last_script_) {
      last_fn_ref_ = it->second.fn_ref;
    }
    lua_rawgeti(L_, LUA_REGISTRYINDEX, it->second.fn_ref);
    return {};
  }
  std::string code;
  std::string_view body = script.body;
  if (script.flags.shebang) {
    code = "--";  // the shebang line becomes a comment; line numbers stay
    code.append(body);
    body = code;
  }
  std::string err = Compile(body, "@user_script");
  if (!err.empty()) {
    return "ERR Error compiling script (new function): " + err;
  }
  lua_pushvalue(L_, -1);
  int ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  if (&script == last_script_) {
    last_fn_ref_ = ref;
  }
  if (it == local_.end()) {
    // Not from FindScript/KeepScript (FCALL's callers may push their own): kept by ref only.
    local_.emplace(script.sha, LocalScript{ScriptCache::Instance().Find(script.sha), ref});
  } else {
    it->second.fn_ref = ref;
  }
  return {};
}

namespace {

void PushStrings(lua_State* L, const std::vector<std::string_view>& values) {
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (size_t i = 0; i < values.size(); i++) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

}  // namespace

// KEYS / ARGV: the previous call's table is refilled (one allocation less per call).
void LuaEngine::SetArgTable(int* ref, const char* name, const std::vector<std::string_view>& values) {
  // One table per name for the state's life, reached by its registry ref (no name lookup
  // per call); scripts cannot replace the global (the globals are read-only).
  if (*ref != LUA_NOREF) [[likely]] {
    lua_pushnil(L_);  // keeps the stack shape of the creating branch: (slot, table)
    lua_rawgeti(L_, LUA_REGISTRYINDEX, *ref);
  } else {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, globals_ref_);
    lua_createtable(L_, static_cast<int>(values.size()), 0);
    lua_pushstring(L_, name);
    lua_pushvalue(L_, -2);
    lua_rawset(L_, -4);  // real[name] = table (raw: the real table's __index raises)
    lua_pushvalue(L_, -1);
    *ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  }
  for (size_t i = 0; i < values.size(); i++) {
    lua_pushlstring(L_, values[i].data(), values[i].size());
    lua_rawseti(L_, -2, static_cast<int>(i + 1));
  }
  for (int j = static_cast<int>(values.size()) + 1;; j++) {  // what the last call left
    lua_rawgeti(L_, -1, j);
    bool end = lua_isnil(L_, -1);
    lua_pop(L_, 1);
    if (end) {
      break;
    }
    lua_pushnil(L_);
    lua_rawseti(L_, -2, j);
  }
  lua_pop(L_, 2);
}

void LuaEngine::Run(ScriptRun& run, std::string_view sha, const std::vector<std::string_view>& keys,
                    const std::vector<std::string_view>& argv, ReplyBuilder& rb, bool as_params) {
  // Stack: fn
  int nargs = 0;
  if (as_params) {
    PushStrings(L_, keys);
    PushStrings(L_, argv);
    nargs = 2;
  } else {
    SetArgTable(&keys_ref_, "KEYS", keys);
    SetArgTable(&argv_ref_, "ARGV", argv);
  }
  lua_rawgeti(L_, LUA_REGISTRYINDEX, handler_ref_);
  lua_insert(L_, -2 - nargs);  // handler, fn, args...
  int handler = lua_gettop(L_) - 1 - nargs;
  ScriptRun* prev = current_;
  current_ = &run;
  int rc = lua_pcall(L_, nargs, 1, handler);
  current_ = prev;
  if (rc != 0) {
    lua_pushnil(L_);
    lua_setfield(L_, LUA_REGISTRYINDEX, kCallErrKey);
  }
  if (LdbSession* s = LdbSession::Active()) [[unlikely]] {
    s->End();  // "<endsession>" goes before the script's reply
  }
  if (run.aborted()) {
    // Abandoned to be run again holding every shard (script_run.h): no reply.
  } else if (rc == 0) {
    LuaToReply(L_, -1, rb, run.resp());
  } else if (lua_istable(L_, -1)) {
    lua_getfield(L_, -1, "err");
    lua_getfield(L_, -2, "source");
    lua_getfield(L_, -3, "line");
    std::string msg = lua_tostring(L_, -3) ? lua_tostring(L_, -3) : "ERR unknown error";
    if (lua_isstring(L_, -2)) {
      const char* source = lua_tostring(L_, -2);
      msg += " script: ";
      msg.append(sha);
      msg += ", on ";
      msg += source;
      msg += ':';
      msg += std::to_string(static_cast<long long>(lua_tonumber(L_, -1)));
      msg += '.';
    }
    lua_pop(L_, 3);
    for (char& c : msg) {
      if (c == '\r' || c == '\n') {
        c = ' ';
      }
    }
    rb.Error(msg);
  } else {
    // Out of memory or an error in the handler itself.
    const char* m = lua_tostring(L_, -1);
    rb.Error(std::string("ERR Error running script: ") + (m ? m : "unknown error"));
  }
  lua_settop(L_, 0);  // KEYS and ARGV stay until the next script replaces them
}

}  // namespace hotkv::scripting

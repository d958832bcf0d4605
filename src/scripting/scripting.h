// Lua scripting (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT ...): registered into the
// command table by main.cc; the runtime (server/) knows nothing of it.
//
// Pieces: script_cache.h (SHA -> body, shared), lua_engine.h (a lua_State per worker
// thread, sandbox, the redis.* API), script_run.h (locks, redis.call bridge, write
// stream), lua_convert.h (RESP <-> Lua). See docs/architecture.md, "scripting/".
#pragma once

namespace hotkv {
class CommandTable;
}

namespace hotkv::scripting {

void RegisterScriptingCommands(CommandTable& t);

}  // namespace hotkv::scripting

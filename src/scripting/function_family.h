// scripting/function_family: the FUNCTION command (LOAD DELETE FLUSH LIST STATS DUMP
// RESTORE KILL HELP) over a FunctionRegistry, and the registry's persistence hooks
// (server/function_hooks.h: the RDB function section, the AOF rewrite).
//
// Writes (LOAD, DELETE, FLUSH, RESTORE) change the registry with every shard locked (the
// locks EXEC holds, or all of them taken in order), and record themselves in the write
// stream under those locks, so that a snapshot or an AOF rewrite sees each one either in
// its base or in the stream that follows, never both or neither.
//
// Thread safety: the handlers run on any worker; the registry locks itself.
#pragma once

#include "scripting/function_library.h"
#include "server/command_table.h"

namespace hotkv::scripting {

// The process's registry (FUNCTION and FCALL share it; per-worker Lua states load from it).
FunctionRegistry& Functions();

// Adds FUNCTION and its subcommands, FCALL and FCALL_RO to `t`, and installs the
// persistence hooks.
void RegisterFunctionCommands(CommandTable& t);
// FCALL, FCALL_RO (function_call.cc; called by RegisterFunctionCommands).
void RegisterFcallCommands(CommandTable& t);

}  // namespace hotkv::scripting

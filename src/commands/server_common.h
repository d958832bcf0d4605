// Helpers shared by the server command files (server_family.cc, server_family_info.cc,
// server_family_slowlog.cc).
#pragma once

#include <cstddef>
#include <string>

namespace hotkv {

class CommandContext;
class CommandTable;
class Server;

namespace server_internal {

// INFO keysizes (Redis 8): per database that has keys, one line per basic type that has
// keys, "db<N>_distrib_<type>_<sizes|items>:<bin>=<count>,..." (engine/key_sizes.h).
std::string KeysizesSection(Server& s);

// SLOWLOG subcommands (server_family_slowlog.cc).
void SlowLogGetCommand(CommandContext& ctx);
void SlowLogLenCommand(CommandContext& ctx);
void SlowLogResetCommand(CommandContext& ctx);
void SlowLogHelpCommand(CommandContext& ctx);
// MEMORY STATS / DOCTOR / MALLOC-STATS / PURGE (server_family_debug.cc), added to the
// MEMORY container by RegisterServerCommands.
void RegisterMemoryDiagnostics(CommandTable& t);

// INFO total_blocking_keys: keys with at least one blocked client waiting on them.
size_t BlockingKeys(Server& s);

}  // namespace server_internal
}  // namespace hotkv

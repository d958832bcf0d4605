// search/search_family: the FT.* commands of the query engine that ftcore owns
// (FT.CREATE, FT.SEARCH, FT.DROPINDEX, FT._LIST) and the module's entry points main.cc
// calls: RegisterSearchCommands (command table) and InstallSearch (keyspace observer).
//
// Every FT.* command is flagged self_locking (no shard lock from the dispatcher: a search
// runs on the receiving worker with no keyspace lock held) and all_shards_in_exec (inside
// EXEC every shard is locked up front, so the handlers lock nothing themselves).
//
// Thread safety: handlers run on any worker; the registry and indexes lock themselves.
#pragma once

#include <string_view>
#include <vector>

#include "server/command_table.h"

namespace hotkv {
class Server;
class CommandContext;
}  // namespace hotkv

namespace hotkv::search {

void RegisterSearchCommands(CommandTable& t);
// Registers the keyspace observer; call once the Server exists, before it runs.
void InstallSearch(Server& server);

// For other FT.* command files (ftagg): the flags/key spec every FT.* entry uses.
bool FtAllShardsInExec(const std::vector<std::string_view>& args);

}  // namespace hotkv::search

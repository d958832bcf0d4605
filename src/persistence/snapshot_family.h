// Registration of the snapshot commands (SAVE, BGSAVE, LASTSAVE) into the server's
// command table; main.cc calls it with the Snapshotter it installed in the Server.
#pragma once

#include "persistence/snapshot.h"
#include "server/command_table.h"

namespace hotkv::persistence {

// `snapshotter` must outlive the table's use (the handlers call it).
void RegisterSnapshotCommands(CommandTable& t, Snapshotter* snapshotter);

}  // namespace hotkv::persistence

// search/aggregate_family + search_admin_family: the FT.* commands ftagg owns, registered
// by RegisterSearchCommands (search_family.cc).
//
//   FT.AGGREGATE, FT.CURSOR READ|DEL|GC, FT.PROFILE      (aggregate_family.cc)
//   FT.INFO, FT.ALTER, FT.ALIASADD|ALIASUPDATE|ALIASDEL, FT.TAGVALS, FT.CONFIG,
//   FT.EXPLAIN, FT.EXPLAINCLI, FT.DROP (legacy)            (search_admin_family.cc)
//
// FT.AGGREGATE runs the query (query_exec.h) under the index's shared lock, releases it,
// then feeds the pipeline (aggregate_plan.h) from the documents, locking each one's
// shard briefly to read its fields; WITHCURSOR reads them all first and keeps the paused
// pipeline in the cursor store (aggregate_cursor.h).
//
// Thread safety: handlers run on any worker; the registry, indexes and cursors lock
// themselves.
#pragma once

#include "server/command_table.h"

namespace hotkv::search {

void RegisterAggregateCommands(CommandTable& t);
void RegisterSearchAdminCommands(CommandTable& t);

}  // namespace hotkv::search

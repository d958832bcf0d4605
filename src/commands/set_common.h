// Shared pieces of the set command family (set_family.cc, set_family_algebra.cc): typed lookups,
// creating and deleting set keys, and the registration of the algebra commands.
//
//   bool wrong_type;
//   types::SetValue* s = ReadSet(ctx, ctx.arg(1), &wrong_type);
//   if (wrong_type) return;                 // WRONGTYPE already replied
//   if (s == nullptr) return ctx.rb().Set(0);
//
// Every handler runs with the shard locks of its keys held by the dispatcher (or EXEC).
//
// Thread safety: stateless helpers.
#pragma once

#include <string_view>

#include "server/command_context.h"
#include "server/command_table.h"
#include "types/set_value.h"

namespace hotkv {

// A read lookup (keyspace hits/misses, keymiss event, access time): the set of `key`, or
// null when it is missing. Sets *wrong_type and replies WRONGTYPE for another type.
types::SetValue* ReadSet(CommandContext& ctx, std::string_view key, bool* wrong_type);
// A write lookup (no hit/miss statistics, as Redis's lookupKeyWrite); same contract.
types::SetValue* FindSetForWrite(CommandContext& ctx, std::string_view key, bool* wrong_type);
// Stores `set` (non-empty once the caller is done) under `key`, which must be missing.
// Returns the stored set.
types::SetValue* InsertSet(CommandContext& ctx, std::string_view key, types::SetValue set);
// Deletes `key`, whose set the command has just emptied, and emits the generic "del".
void DeleteEmptiedSet(CommandContext& ctx, std::string_view key);

// SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE (set_family_algebra.cc).
void RegisterSetAlgebraCommands(CommandTable& t);

}  // namespace hotkv

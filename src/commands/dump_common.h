// Shared inside the key-transfer family (dump_family.cc: DUMP, RESTORE, RESTORE-ASKING
// and the table entries; dump_family_migrate.cc: MIGRATE).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/command_context.h"

namespace hotkv {

// rdbcompression: DUMP payloads compress strings longer than 20 bytes with LZF.
bool DumpCompressionOn(CommandContext& ctx);
// The error for a value rdb/ cannot serialize (DumpPayload returned nothing: vector sets
// of a metric other than cosine, HotKV's VSIM.CREATEINDEX sets).
std::string NotDumpableError(const Entry& e);
// lazyfree-lazy-server-del: keys a command deletes implicitly (RESTORE REPLACE, MIGRATE)
// are freed in the background when large.
bool LazyServerDel(CommandContext& ctx);

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
// [AUTH2 username password] [KEYS key ...] (self_locking: see dump_family_migrate.cc).
void MigrateCommand(CommandContext& ctx);
// Connections to MIGRATE targets cached by all workers (INFO migrate_cached_sockets).
int64_t MigrateCachedSockets();
// Redis's migrateGetKeys: the key at 3, or the keys after KEYS (AUTH/AUTH2 values skipped).
void MigrateGetKeys(const std::vector<std::string_view>& args, std::vector<int>* out);

}  // namespace hotkv

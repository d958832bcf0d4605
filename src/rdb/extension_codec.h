// rdb/extension_codec.h (internal): values of extension key types (engine/
// extension_value.h) in Redis's module encoding — RDB type MODULE_2, the 64-bit module
// id of the type's 9-character rdb_name and encoding version, the value's opcode stream
// (UINT, SINT, DOUBLE, STRING as Redis's RedisModule_Save* write them), the module EOF
// opcode. A Redis without such a module refuses the value by its id.
#pragma once

#include <string_view>

#include "engine/entry.h"
#include "rdb/format.h"

namespace hotkv::rdb {

// Writes the module id and value of an extension entry (after the type byte and key).
void WriteExtension(Encoder& enc, const Entry& e);

// The registered extension type of `module_id`, if any, and its encoding version.
bool IsExtensionModuleId(uint64_t module_id);
// Reads an extension value (after its module id) into a new entry; nullptr with `r`
// failed on error.
Entry* LoadExtension(Reader& r, uint64_t module_id, std::string_view key, bool expire_block);

}  // namespace hotkv::rdb

// rdb/json_codec.h (internal): JSON documents in Redis 8's RDB encoding — a module value
// (RDB type MODULE_2) of the module type "ReJSON-RL", encoding version 3: one module
// STRING opcode holding the document's compact JSON text, then the module EOF opcode.
// Version 2 (the same layout) is read too; version 0 (RedisJSON 1.x's binary tree) is
// refused.
#pragma once

#include <string_view>

#include "engine/entry.h"
#include "rdb/format.h"

namespace hotkv::rdb {

// The module id of "ReJSON-RL" with encoding version `encver`.
uint64_t JsonModuleId(int encver = 3);
// True for the ids this reader loads (versions 2 and 3).
bool IsJsonModuleId(uint64_t id);

// Writes the module id and value of a JSON entry (after the type byte and key).
void WriteJson(Encoder& enc, const Entry& e);

// Reads a JSON module value (after its module id) into a new entry; nullptr with `r`
// failed on error.
Entry* LoadJson(Reader& r, std::string_view key, bool expire_block);

}  // namespace hotkv::rdb

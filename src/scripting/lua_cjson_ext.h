// What Redis 8's cjson adds to lua-cjson 2.1.0 (Debian's, which HotKV links):
//
//   cjson.decode_array_with_array_mt([true|false|"on"|"off"])  -> the setting (a boolean)
//     When on, every table decode makes from a JSON array gets its own read-only
//     metatable {__is_cjson_array = true}.
//   cjson.encode(t) encodes any table whose metatable has a true __is_cjson_array as an
//     array of its first #t elements ("[]" when empty), whatever the setting.
//   cjson.new() instances have the same, with their own setting.
//
// Done around the library's own decode/encode (the parsing and the texts of every error
// stay lua-cjson's): decode runs lua-cjson's decode, then (setting on) walks the JSON text
// beside the result to mark the arrays; encode runs lua-cjson's encode directly unless a
// marked table may exist in this state (one was decoded, or setmetatable was called with
// a table: its __is_cjson_array may be set later), and then gives it a copy of each
// marked table with its #t elements (an empty one as a placeholder string, replaced by []
// in the output).
//
// Thread safety: per lua_State, as the library.
#pragma once

struct lua_State;

namespace hotkv::scripting {

// Extends the cjson table on top of the stack in place.
void ExtendCjson(lua_State* L);
// setmetatable's hook: a table metatable (at `mt_index`) makes encode look for marks.
void NoteCjsonMetatable(lua_State* L, int mt_index);

}  // namespace hotkv::scripting

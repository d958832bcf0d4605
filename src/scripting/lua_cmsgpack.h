// scripting/lua_cmsgpack: the `cmsgpack` Lua library Redis loads into its scripting
// environment (pack, unpack, unpack_one, unpack_limit), written for HotKV with the
// behaviour of Redis's vendored lua_cmsgpack (checked byte for byte against Redis 8.8):
//   - a number that is an integer in int64 range is packed in the smallest integer
//     form (positive/negative fixint, uint8..uint64, int8..int64), any other number as
//     float32 when the value survives the round trip through float, else float64;
//   - a table whose keys are exactly 1..n packs as an array, any other as a map (an
//     empty table is an empty array); tables nested deeper than 16 levels pack as nil
//     (so self-referencing tables terminate); functions/userdata pack as nil;
//   - strings use fixstr / str8 / str16 / str32; unpacking refuses bin and ext types
//     ("Bad data format in input.") and truncated input ("Missing bytes in input.").
// Thread safety: none of its own; each lua_State belongs to one thread.
#pragma once

extern "C" {
#include <lua.h>
}

namespace hotkv::scripting {

// Registers the global table `cmsgpack` in L and leaves it on the stack (returns 1),
// like a luaopen_* function (usable with lua_pushcfunction + lua_call).
int OpenCmsgpack(lua_State* L);

}  // namespace hotkv::scripting

extern "C" int luaopen_cmsgpack(lua_State* L);

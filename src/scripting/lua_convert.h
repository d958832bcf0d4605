// Conversions between RESP replies and Lua values, with the rules Redis documents
// ("Conversion between Lua and Redis data types"):
//
//   RESP -> Lua (what redis.call returns)        Lua -> RESP (what a script returns)
//   integer        -> number                     number        -> integer (truncated)
//   bulk           -> string                     string        -> bulk string
//   null bulk/array-> false (RESP3 null -> nil)  true -> 1 (RESP3: #t), false -> null (#f)
//   array          -> table (sequence)           table         -> array up to the first nil
//   status         -> {ok = s}                   {ok = s}      -> status
//   error          -> {err = s}                  {err = s}     -> error
//   RESP3 only: map -> {map = {k = v}}, set -> {set = {m = true}}, double -> {double = n},
//   big number -> {big_number = s}, verbatim -> {verbatim_string = {format=, string=}},
//   boolean -> boolean; and back: {map=}, {set=}, {double=}, {big_number=},
//   {verbatim_string=} as those types.
//
// Pure functions over a lua_State and RESP bytes / a ReplyBuilder; thread-safe per state.
#pragma once

#include <cstddef>
#include <string_view>

struct lua_State;

namespace hotkv {
class ReplyBuilder;
}

namespace hotkv::scripting {

// Pushes the Lua value of the one complete RESP reply at the start of `resp` and returns
// the bytes it used (0: malformed; nothing pushed). `resp3_rules`: the script asked for
// RESP3 (redis.setresp(3)), so nulls are nil and the RESP3 types are converted.
size_t PushReply(lua_State* L, std::string_view resp, bool resp3_rules);

// Writes the Lua value at `index` as a reply into `rb` (in rb's own protocol).
// `script_resp`: the script's protocol (redis.setresp), which decides booleans.
void LuaToReply(lua_State* L, int index, ReplyBuilder& rb, int script_resp);

// The "err" field of the error table at `index` (a string), or empty.
std::string_view ErrorField(lua_State* L, int index);

}  // namespace hotkv::scripting

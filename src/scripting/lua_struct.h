// scripting/lua_struct: the `struct` Lua library Redis loads (struct.pack, struct.unpack,
// struct.size), written for HotKV with the behaviour of the library by Roberto
// Ierusalimschy as Redis vendors it (format codes, endianness, alignment and error
// messages checked against Redis 8.8):
//   >  big endian        <  little endian       ![n]  max alignment n (default 8)
//   x  one zero byte     b/B signed/unsigned char   h/H short   l/L long   T size_t
//   i/I[n] integer of n bytes (default 4, at most 32)   f float   d double
//   c[n] n chars (pack: c0 = the whole string; unpack: c0 = length from the previous
//        number read)     s  zero-terminated string     ' ' ignored
// Integers are converted from Lua numbers as x86-64 C does (truncation; out-of-range
// values wrap the way Redis's build does), so the bytes equal Redis's.
// Thread safety: none of its own; each lua_State belongs to one thread.
#pragma once

extern "C" {
#include <lua.h>
}

namespace hotkv::scripting {

// Registers the global table `struct` in L and leaves it on the stack (returns 1).
int OpenStruct(lua_State* L);

}  // namespace hotkv::scripting

extern "C" int luaopen_struct(lua_State* L);

// The cmsgpack library (see lua_cmsgpack.h). Encoding appends to a std::string; the
// Lua stack discipline follows Redis's: each encoder pops the value it encoded.
#include "scripting/lua_cmsgpack.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
}

namespace hotkv::scripting {
namespace {

// Tables nested deeper than this are packed as nil (Redis's LUACMSGPACK_MAX_NESTING).
constexpr int kMaxNesting = 16;

// Is `x` an integer representable as int64 (Redis's IS_INT64_EQUIVALENT)?
bool IsInt64(double x) {
  if (std::isinf(x) || std::isnan(x)) {
    return false;
  }
  if (x < -9223372036854775808.0 || x >= 9223372036854775808.0) {
    return false;
  }
  return static_cast<double>(static_cast<int64_t>(x)) == x;
}

// Same for int (table_is_an_array's index test).
bool IsIntIndex(double x) {
  if (std::isinf(x) || std::isnan(x) || x < INT_MIN || x > INT_MAX) {
    return false;
  }
  return static_cast<double>(static_cast<int>(x)) == x;
}

void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

void PutTagged(std::string* out, uint8_t tag, uint64_t v, int bytes) {
  out->push_back(static_cast<char>(tag));
  PutBigEndian(out, v, bytes);
}

void EncodeInt(std::string* out, int64_t n) {
  if (n >= 0) {
    uint64_t u = static_cast<uint64_t>(n);
    if (u <= 127) {
      out->push_back(static_cast<char>(u));
    } else if (u <= 0xff) {
      PutTagged(out, 0xcc, u, 1);
    } else if (u <= 0xffff) {
      PutTagged(out, 0xcd, u, 2);
    } else if (u <= 0xffffffffULL) {
      PutTagged(out, 0xce, u, 4);
    } else {
      PutTagged(out, 0xcf, u, 8);
    }
  } else {
    uint64_t u = static_cast<uint64_t>(n);
    if (n >= -32) {
      out->push_back(static_cast<char>(static_cast<int8_t>(n)));
    } else if (n >= -128) {
      PutTagged(out, 0xd0, u, 1);
    } else if (n >= -32768) {
      PutTagged(out, 0xd1, u, 2);
    } else if (n >= -2147483648LL) {
      PutTagged(out, 0xd2, u, 4);
    } else {
      PutTagged(out, 0xd3, u, 8);
    }
  }
}

void EncodeDouble(std::string* out, double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    PutTagged(out, 0xca, bits, 4);
  } else {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    PutTagged(out, 0xcb, bits, 8);
  }
}

void EncodeString(std::string* out, const char* s, size_t len) {
  if (len < 32) {
    out->push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    PutTagged(out, 0xd9, len, 1);
  } else if (len <= 0xffff) {
    PutTagged(out, 0xda, len, 2);
  } else {
    PutTagged(out, 0xdb, len, 4);
  }
  out->append(s, len);
}

void EncodeContainerHeader(std::string* out, size_t n, bool array) {
  if (n <= 15) {
    out->push_back(static_cast<char>((array ? 0x90 : 0x80) | n));
  } else if (n <= 0xffff) {
    PutTagged(out, array ? 0xdc : 0xde, n, 2);
  } else {
    PutTagged(out, array ? 0xdd : 0xdf, n, 4);
  }
}

// Keys exactly 1..n (all positive integral numbers, the largest equal to the count).
bool TableIsArray(lua_State* L) {
  int top = lua_gettop(L);
  int count = 0;
  int max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    double n;
    if (lua_type(L, -1) != LUA_TNUMBER || (n = lua_tonumber(L, -1)) <= 0 || !IsIntIndex(n)) {
      lua_settop(L, top);
      return false;
    }
    if (n > max) {
      max = static_cast<int>(n);
    }
    ++count;
  }
  lua_settop(L, top);
  return max == count;
}

void EncodeTop(lua_State* L, std::string* out, int level);

void EncodeTable(lua_State* L, std::string* out, int level) {
  luaL_checkstack(L, 3, "in function EncodeTable");
  if (TableIsArray(L)) {
    size_t len = lua_objlen(L, -1);
    EncodeContainerHeader(out, len, true);
    for (size_t j = 1; j <= len; ++j) {
      lua_rawgeti(L, -1, static_cast<int>(j));
      EncodeTop(L, out, level + 1);
    }
    return;
  }
  size_t len = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    ++len;
  }
  EncodeContainerHeader(out, len, false);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    // Stack: ... table key value
    lua_pushvalue(L, -2);          // ... table key value key
    EncodeTop(L, out, level + 1);  // pops the key copy
    EncodeTop(L, out, level + 1);  // pops the value; the key stays for lua_next
  }
}

// Encodes the value on top of the stack and pops it.
void EncodeTop(lua_State* L, std::string* out, int level) {
  int t = lua_type(L, -1);
  if (t == LUA_TTABLE && level == kMaxNesting) {
    t = LUA_TNIL;
  }
  switch (t) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      EncodeString(out, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      out->push_back(static_cast<char>(lua_toboolean(L, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER: {
      double n = lua_tonumber(L, -1);
      if (IsInt64(n)) {
        EncodeInt(out, static_cast<int64_t>(n));
      } else {
        EncodeDouble(out, n);
      }
      break;
    }
    case LUA_TTABLE:
      EncodeTable(L, out, level);
      break;
    default:
      out->push_back(static_cast<char>(0xc0));
      break;
  }
  lua_pop(L, 1);
}

int Pack(lua_State* L) {
  int nargs = lua_gettop(L);
  if (nargs == 0) {
    return luaL_argerror(L, 0, "MessagePack pack needs input.");
  }
  std::string out;
  for (int i = 1; i <= nargs; ++i) {
    luaL_checkstack(L, 1, "in function mp_check");
    lua_pushvalue(L, i);
    EncodeTop(L, &out, 0);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// ---- Decoding ----

enum class DecodeError { kNone, kEof, kBadFormat };

struct Cursor {
  const unsigned char* p;
  size_t left;
  DecodeError err = DecodeError::kNone;

  bool Need(size_t n) {
    if (left < n) {
      err = DecodeError::kEof;
      return false;
    }
    return true;
  }
  uint64_t BigEndian(size_t offset, int bytes) const {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      v = (v << 8) | p[offset + i];
    }
    return v;
  }
  void Skip(size_t n) {
    p += n;
    left -= n;
  }
};

void DecodeValue(lua_State* L, Cursor* c);

void DecodeArray(lua_State* L, Cursor* c, uint64_t n) {
  luaL_checkstack(L, 2, "in function DecodeArray");
  lua_newtable(L);
  for (uint64_t i = 1; i <= n; ++i) {
    lua_pushnumber(L, static_cast<double>(i));
    DecodeValue(L, c);
    if (c->err != DecodeError::kNone) {
      return;
    }
    lua_settable(L, -3);
  }
}

void DecodeMap(lua_State* L, Cursor* c, uint64_t n) {
  luaL_checkstack(L, 3, "in function DecodeMap");
  lua_newtable(L);
  for (uint64_t i = 0; i < n; ++i) {
    DecodeValue(L, c);
    if (c->err != DecodeError::kNone) {
      return;
    }
    DecodeValue(L, c);
    if (c->err != DecodeError::kNone) {
      return;
    }
    lua_settable(L, -3);
  }
}

void DecodeString(lua_State* L, Cursor* c, size_t header, uint64_t len) {
  if (!c->Need(header + len)) {
    return;
  }
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p + header), len);
  c->Skip(header + len);
}

// Pushes one decoded value; on an error sets c->err (the stack may hold a partial value,
// the caller raises the error).
void DecodeValue(lua_State* L, Cursor* c) {
  if (!c->Need(1)) {
    return;
  }
  luaL_checkstack(L, 1, "too many values");
  unsigned char b = c->p[0];
  switch (b) {
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      int bytes = 1 << (b - 0xcc);
      if (!c->Need(1 + bytes)) {
        return;
      }
      uint64_t v = c->BigEndian(1, bytes);
      // uint64 is pushed through int64, as Redis's build does (0xff.. reads back as -1).
      lua_pushnumber(L, b == 0xcf ? static_cast<double>(static_cast<int64_t>(v))
                                  : static_cast<double>(v));
      c->Skip(1 + bytes);
      return;
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      int bytes = 1 << (b - 0xd0);
      if (!c->Need(1 + bytes)) {
        return;
      }
      uint64_t v = c->BigEndian(1, bytes);
      int64_t s;
      if (bytes == 8) {
        s = static_cast<int64_t>(v);
      } else {
        uint64_t sign = 1ULL << (bytes * 8 - 1);
        s = static_cast<int64_t>((v ^ sign)) - static_cast<int64_t>(sign);
      }
      lua_pushnumber(L, static_cast<double>(s));
      c->Skip(1 + bytes);
      return;
    }
    case 0xc0:
      lua_pushnil(L);
      c->Skip(1);
      return;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(L, b == 0xc3);
      c->Skip(1);
      return;
    case 0xca: {
      if (!c->Need(5)) {
        return;
      }
      uint32_t bits = static_cast<uint32_t>(c->BigEndian(1, 4));
      float f;
      memcpy(&f, &bits, 4);
      lua_pushnumber(L, f);
      c->Skip(5);
      return;
    }
    case 0xcb: {
      if (!c->Need(9)) {
        return;
      }
      uint64_t bits = c->BigEndian(1, 8);
      double d;
      memcpy(&d, &bits, 8);
      lua_pushnumber(L, d);
      c->Skip(9);
      return;
    }
    case 0xd9:
    case 0xda:
    case 0xdb: {
      int bytes = 1 << (b - 0xd9);
      if (!c->Need(1 + bytes)) {
        return;
      }
      DecodeString(L, c, 1 + bytes, c->BigEndian(1, bytes));
      return;
    }
    case 0xdc:
    case 0xdd:
    case 0xde:
    case 0xdf: {
      int bytes = (b == 0xdc || b == 0xde) ? 2 : 4;
      if (!c->Need(1 + bytes)) {
        return;
      }
      uint64_t n = c->BigEndian(1, bytes);
      c->Skip(1 + bytes);
      if (b <= 0xdd) {
        DecodeArray(L, c, n);
      } else {
        DecodeMap(L, c, n);
      }
      return;
    }
    default:
      break;
  }
  if (b <= 0x7f) {
    lua_pushnumber(L, b);
    c->Skip(1);
  } else if (b >= 0xe0) {
    lua_pushnumber(L, static_cast<int8_t>(b));
    c->Skip(1);
  } else if ((b & 0xe0) == 0xa0) {
    DecodeString(L, c, 1, b & 0x1f);
  } else if ((b & 0xf0) == 0x90) {
    c->Skip(1);
    DecodeArray(L, c, b & 0x0f);
  } else if ((b & 0xf0) == 0x80) {
    c->Skip(1);
    DecodeMap(L, c, b & 0x0f);
  } else {
    c->err = DecodeError::kBadFormat;
  }
}

// Redis's mp_unpack_full: `limit` values from `offset` (limit 0 and offset 0: all, and
// no offset is returned); otherwise the next offset (-1 at the end) comes first.
int UnpackFull(lua_State* L, int limit, int offset) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  bool decode_all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", offset,
                      static_cast<int>(len));
  }
  if (static_cast<size_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", offset,
                      static_cast<int>(len));
  }
  if (decode_all) {
    limit = INT_MAX;
  }
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - offset};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    DecodeValue(L, &c);
    if (c.err == DecodeError::kEof) {
      return luaL_error(L, "Missing bytes in input.");
    }
    if (c.err == DecodeError::kBadFormat) {
      return luaL_error(L, "Bad data format in input.");
    }
  }
  if (!decode_all) {
    int next = static_cast<int>(len - c.left);
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, c.left == 0 ? -1 : next);
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int Unpack(lua_State* L) { return UnpackFull(L, 0, 0); }

int UnpackOne(lua_State* L) {
  int offset = static_cast<int>(luaL_optinteger(L, 2, 0));
  lua_settop(L, 1);
  return UnpackFull(L, 1, offset);
}

int UnpackLimit(lua_State* L) {
  int limit = static_cast<int>(luaL_checkinteger(L, 2));
  int offset = static_cast<int>(luaL_optinteger(L, 3, 0));
  lua_settop(L, 1);
  return UnpackFull(L, limit, offset);
}

const luaL_Reg kFunctions[] = {
    {"pack", Pack},
    {"unpack", Unpack},
    {"unpack_one", UnpackOne},
    {"unpack_limit", UnpackLimit},
    {nullptr, nullptr},
};

}  // namespace

int OpenCmsgpack(lua_State* L) {
  luaL_register(L, "cmsgpack", kFunctions);
  lua_pushliteral(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushliteral(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace hotkv::scripting

extern "C" int luaopen_cmsgpack(lua_State* L) { return hotkv::scripting::OpenCmsgpack(L); }

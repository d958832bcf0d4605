#include "scripting/lua_cjson_ext.h"

#include <lua.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "scripting/lua_engine.h"

namespace hotkv::scripting {

namespace {

// Registry: true once a table marked as an array may exist in this state.
const char kArraysSeenKey = 0;
// Registry: the shared {__is_cjson_array = true} behind every decoded array's metatable.
const char kArrayMtKey = 0;
// Registry: the placeholder string an empty marked table is encoded as, and its JSON text.
const char kPlaceholderKey = 0;
const char kPlaceholderJsonKey = 0;

// Per instance (cjson and each cjson.new()): upvalue 1 of its functions.
struct Instance {
  bool decode_array_mt = false;
};

bool ArraysSeen(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<char*>(&kArraysSeenKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  bool seen = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return seen;
}

void SetArraysSeen(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<char*>(&kArraysSeenKey));
  lua_pushboolean(L, 1);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

void CheckOneArg(lua_State* L) { luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument"); }

// Raises the error on top of the stack that lua-cjson's function raised with luaL_error:
// called from this wrapper it carries no position, so the wrapper's caller's is added, as
// when the script calls lua-cjson directly ("user_script:1: Expected value ...").
[[noreturn]] void Reraise(lua_State* L) {
  if (lua_type(L, -1) == LUA_TSTRING) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
  }
  lua_error(L);
  __builtin_unreachable();
}

// Calls lua-cjson's function (below its `nargs` arguments) for one result.
void CallOriginal(lua_State* L, int nargs) {
  if (lua_pcall(L, nargs, 1, 0) != 0) {
    Reraise(L);
  }
}

// --- decode: marking the arrays ---

void SkipWs(const char*& p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
    p++;
  }
}

unsigned Hex4(const char* p, const char* end) {
  unsigned v = 0;
  for (int i = 0; i < 4 && p + i < end; i++) {
    char c = p[i];
    v = v * 16 + static_cast<unsigned>(c >= '0' && c <= '9'   ? c - '0'
                                       : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                              : 0);
  }
  return v;
}

// A JSON string at p (on its opening quote), decoded as lua-cjson does; p moves past it.
std::string ReadString(const char*& p, const char* end) {
  std::string out;
  p++;
  while (p < end && *p != '"') {
    if (*p != '\\') {
      out.push_back(*p++);
      continue;
    }
    p++;
    if (p >= end) {
      break;
    }
    char c = *p++;
    switch (c) {
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        unsigned cp = Hex4(p, end);
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && p + 6 <= end && p[0] == '\\' && p[1] == 'u') {
          unsigned lo = Hex4(p + 2, end);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
          }
        }
        AppendUtf8(cp, &out);
        break;
      }
      default: out.push_back(c); break;  // \" \\ \/
    }
  }
  if (p < end) {
    p++;  // the closing quote
  }
  return out;
}

// Moves p past one JSON value (already validated by lua-cjson's decode).
void SkipValue(const char*& p, const char* end) {
  SkipWs(p, end);
  if (p >= end) {
    return;
  }
  if (*p == '"') {
    ReadString(p, end);
    return;
  }
  if (*p == '[' || *p == '{') {
    int depth = 0;
    while (p < end) {
      char c = *p;
      if (c == '"') {
        ReadString(p, end);
        continue;
      }
      p++;
      if (c == '[' || c == '{') {
        depth++;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) {
          return;
        }
      }
    }
    return;
  }
  while (p < end && *p != ',' && *p != ']' && *p != '}' && *p != ' ' && *p != '\t' &&
         *p != '\n' && *p != '\r') {
    p++;
  }
}

// Gives the table at `idx` (decoded from a JSON array) its own read-only metatable.
void MarkArray(lua_State* L, int idx) {
  lua_pushlightuserdata(L, const_cast<char*>(&kArrayMtKey));
  lua_rawget(L, LUA_REGISTRYINDEX);  // the shared {__is_cjson_array = true}
  PushReadOnlyProxy(L, lua_gettop(L));
  lua_remove(L, -2);
  lua_setmetatable(L, idx);
}

// Walks the JSON value at p beside the Lua value at `idx` (what decode made of it).
void Mark(lua_State* L, int idx, const char*& p, const char* end) {
  SkipWs(p, end);
  if (p >= end) {
    return;
  }
  if (*p == '[') {
    p++;
    if (lua_istable(L, idx)) {
      MarkArray(L, idx);
    }
    SkipWs(p, end);
    if (p < end && *p == ']') {
      p++;
      return;
    }
    lua_checkstack(L, 4);
    for (int i = 1; p < end; i++) {
      lua_rawgeti(L, idx, i);
      Mark(L, lua_gettop(L), p, end);
      lua_pop(L, 1);
      SkipWs(p, end);
      if (p < end && *p == ',') {
        p++;
        continue;
      }
      if (p < end) {
        p++;  // ']'
      }
      return;
    }
    return;
  }
  if (*p == '{') {
    p++;
    // Members first (a key given twice keeps its last value, as decode does).
    std::vector<std::pair<std::string, const char*>> members;
    SkipWs(p, end);
    if (p < end && *p == '}') {
      p++;
      return;
    }
    while (p < end) {
      SkipWs(p, end);
      std::string key = ReadString(p, end);
      SkipWs(p, end);
      if (p < end) {
        p++;  // ':'
      }
      SkipWs(p, end);
      members.emplace_back(std::move(key), p);
      SkipValue(p, end);
      SkipWs(p, end);
      if (p < end && *p == ',') {
        p++;
        continue;
      }
      if (p < end) {
        p++;  // '}'
      }
      break;
    }
    if (!lua_istable(L, idx)) {
      return;
    }
    lua_checkstack(L, 4);
    for (size_t j = 0; j < members.size(); j++) {
      bool last = true;
      for (size_t k = j + 1; k < members.size() && last; k++) {
        last = members[k].first != members[j].first;
      }
      if (!last) {
        continue;
      }
      const char* v = members[j].second;
      if (*v != '[' && *v != '{') {
        continue;
      }
      lua_pushlstring(L, members[j].first.data(), members[j].first.size());
      lua_rawget(L, idx);
      Mark(L, lua_gettop(L), v, end);
      lua_pop(L, 1);
    }
    return;
  }
  SkipValue(p, end);
}

int Decode(lua_State* L) {
  CheckOneArg(L);
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  auto* inst = static_cast<Instance*>(lua_touserdata(L, lua_upvalueindex(1)));
  lua_pushvalue(L, lua_upvalueindex(2));  // lua-cjson's decode
  lua_pushvalue(L, 1);
  CallOriginal(L, 1);
  if (inst->decode_array_mt) {
    SetArraysSeen(L);
    const char* p = s;
    Mark(L, lua_gettop(L), p, s + len);
  }
  return 1;
}

// --- encode: marked tables as arrays ---

// The metatable's __is_cjson_array, read as Redis 8's encoder does (through __index: a
// decoded array's metatable is a read-only proxy, and so may a user's be).
bool IsMarked(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) {
    return false;
  }
  lua_getfield(L, -1, "__is_cjson_array");
  bool marked = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return marked;
}

struct Undo {
  int table_ref;
  int key_ref;
  int value_ref;
};

// Pushes what the encoder should see for the value at `idx`: a marked table becomes a
// fresh sequence of its #t elements (an empty one the placeholder string); another table
// keeps its identity, its values that need it replaced in place (recorded in `undo`, so
// that the key order the encoder sees is the table's own). Deeper than `max_depth`, the
// value is left as is (the encoder raises its nesting error there).
void Convert(lua_State* L, int idx, int depth, int max_depth, int visited, std::vector<Undo>* undo) {
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  if (!lua_istable(L, idx) || depth > max_depth) {
    lua_pushvalue(L, idx);
    return;
  }
  lua_checkstack(L, 8);
  if (IsMarked(L, idx)) {
    const int n = static_cast<int>(lua_objlen(L, idx));
    if (n == 0) {
      lua_pushlightuserdata(L, const_cast<char*>(&kPlaceholderKey));
      lua_rawget(L, LUA_REGISTRYINDEX);
      return;
    }
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, idx, i);
      Convert(L, -1, depth + 1, max_depth, visited, undo);
      lua_rawseti(L, -3, i);
      lua_pop(L, 1);
    }
    return;
  }
  // A plain table: each visited once (shared or cyclic tables).
  lua_pushvalue(L, idx);
  lua_rawget(L, visited);
  const bool seen = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (!seen) {
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, visited);
    lua_pushnil(L);
    while (lua_next(L, idx)) {  // key, value
      Convert(L, -1, depth + 1, max_depth, visited, undo);
      if (!lua_rawequal(L, -1, -2)) {
        // Replace the value of an existing key (no rehash: lua_next stays valid).
        lua_pushvalue(L, idx);
        const int t = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pushvalue(L, -3);
        const int k = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pushvalue(L, -2);
        const int v = luaL_ref(L, LUA_REGISTRYINDEX);
        undo->push_back(Undo{t, k, v});
        lua_pushvalue(L, -3);  // key
        lua_pushvalue(L, -2);  // converted
        lua_rawset(L, idx);
      }
      lua_pop(L, 2);
    }
  }
  lua_pushvalue(L, idx);
}

void RestoreAll(lua_State* L, std::vector<Undo>& undo) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, it->table_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, it->key_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, it->value_ref);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, it->table_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, it->key_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, it->value_ref);
  }
  undo.clear();
}

int Encode(lua_State* L) {
  CheckOneArg(L);
  if (!lua_istable(L, 1) || !ArraysSeen(L)) [[likely]] {
    lua_pushvalue(L, lua_upvalueindex(2));  // lua-cjson's encode
    lua_insert(L, 1);
    CallOriginal(L, 1);
    return 1;
  }
  // The instance's nesting limit (its encode_max_depth()).
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_call(L, 0, 1);
  const int max_depth = static_cast<int>(lua_tonumber(L, -1));
  lua_pop(L, 1);
  lua_newtable(L);
  const int visited = lua_gettop(L);
  std::vector<Undo> undo;
  Convert(L, 1, 1, max_depth, visited, &undo);
  const int converted = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, converted);
  const int rc = lua_pcall(L, 1, 1, 0);
  RestoreAll(L, undo);
  if (rc != 0) {
    Reraise(L);
  }
  size_t len;
  const char* out = lua_tolstring(L, -1, &len);
  lua_pushlightuserdata(L, const_cast<char*>(&kPlaceholderJsonKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  size_t plen;
  const char* ph = lua_tolstring(L, -1, &plen);
  std::string_view text(out, len);
  if (ph == nullptr || text.find(std::string_view(ph, plen)) == std::string_view::npos) {
    lua_pop(L, 1);
    return 1;
  }
  std::string result;
  result.reserve(len);
  size_t pos = 0;
  for (;;) {
    size_t hit = text.find(std::string_view(ph, plen), pos);
    if (hit == std::string_view::npos) {
      result.append(text.substr(pos));
      break;
    }
    result.append(text.substr(pos, hit - pos));
    result.append("[]");
    pos = hit + plen;
  }
  lua_pushlstring(L, result.data(), result.size());
  return 1;
}

// decode_array_with_array_mt([setting]): lua-cjson's boolean option rules.
int DecodeArrayWithArrayMt(lua_State* L) {
  static const char* const kOptions[] = {"off", "on", nullptr};
  auto* inst = static_cast<Instance*>(lua_touserdata(L, lua_upvalueindex(1)));
  luaL_argcheck(L, lua_gettop(L) <= 1, 2, "found too many arguments");
  if (!lua_isnoneornil(L, 1)) {
    if (lua_isboolean(L, 1)) {
      inst->decode_array_mt = lua_toboolean(L, 1);
    } else {
      inst->decode_array_mt = luaL_checkoption(L, 1, nullptr, kOptions) == 1;
    }
  }
  lua_pushboolean(L, inst->decode_array_mt);
  return 1;
}

void Extend(lua_State* L, int table);

// cjson.new(): lua-cjson's instance, extended the same way.
int New(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  if (lua_istable(L, -1)) {
    Extend(L, lua_gettop(L));
  }
  return 1;
}

void Extend(lua_State* L, int table) {
  auto* inst = static_cast<Instance*>(lua_newuserdata(L, sizeof(Instance)));
  new (inst) Instance();
  const int ud = lua_gettop(L);
  lua_getfield(L, table, "decode");
  lua_pushvalue(L, ud);
  lua_insert(L, -2);
  lua_pushcclosure(L, Decode, 2);
  lua_setfield(L, table, "decode");
  lua_pushvalue(L, ud);
  lua_getfield(L, table, "encode");
  lua_getfield(L, table, "encode_max_depth");
  lua_pushcclosure(L, Encode, 3);
  lua_setfield(L, table, "encode");
  lua_pushvalue(L, ud);
  lua_pushcclosure(L, DecodeArrayWithArrayMt, 1);
  lua_setfield(L, table, "decode_array_with_array_mt");
  lua_getfield(L, table, "new");
  if (lua_iscfunction(L, -1) && lua_tocfunction(L, -1) != New) {
    lua_pushcclosure(L, New, 1);
    lua_setfield(L, table, "new");
  } else {
    lua_pop(L, 1);
  }
  lua_pop(L, 1);  // the userdata
}

}  // namespace

void ExtendCjson(lua_State* L) {
  const int table = lua_gettop(L);
  // The shared {__is_cjson_array = true}.
  lua_pushlightuserdata(L, const_cast<char*>(&kArrayMtKey));
  lua_createtable(L, 0, 1);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "__is_cjson_array");
  lua_rawset(L, LUA_REGISTRYINDEX);
  // The placeholder of an empty marked table (never met in real data: a random part),
  // and its JSON text as lua-cjson writes it.
  std::random_device rd;
  char buf[64];
  snprintf(buf, sizeof(buf), "\x01hotkv-empty-array-%08x%08x\x01", rd(), rd());
  lua_pushlightuserdata(L, const_cast<char*>(&kPlaceholderKey));
  lua_pushstring(L, buf);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, const_cast<char*>(&kPlaceholderJsonKey));
  lua_getfield(L, table, "encode");
  lua_pushstring(L, buf);
  lua_call(L, 1, 1);
  lua_rawset(L, LUA_REGISTRYINDEX);
  Extend(L, table);
}

void NoteCjsonMetatable(lua_State* L, int mt_index) {
  // Any metatable: it may be given __is_cjson_array later (mt.__is_cjson_array = true
  // after setmetatable), which encode must then see.
  if (lua_istable(L, mt_index)) {
    SetArraysSeen(L);
  }
}

}  // namespace hotkv::scripting

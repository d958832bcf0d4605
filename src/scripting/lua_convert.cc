#include "scripting/lua_convert.h"

#include <lua.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "protocol/reply_builder.h"

namespace hotkv::scripting {

namespace {

// Reads the line after the type byte: returns its text and advances *pos past CRLF.
bool Line(std::string_view r, size_t* pos, std::string_view* line) {
  size_t e = r.find("\r\n", *pos);
  if (e == std::string_view::npos) {
    return false;
  }
  *line = r.substr(*pos, e - *pos);
  *pos = e + 2;
  return true;
}

int64_t ToInt(std::string_view s) {
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

void SetField(lua_State* L, const char* name) {  // t[name] = top; pops the value
  lua_setfield(L, -2, name);
}

size_t Push(lua_State* L, std::string_view r, size_t pos, bool resp3, int depth);

// Pushes a table holding `n` elements of r starting at *pos; returns false on error.
bool PushSequence(lua_State* L, std::string_view r, size_t* pos, int64_t n, bool resp3, int depth) {
  lua_createtable(L, static_cast<int>(n), 0);
  for (int64_t i = 0; i < n; i++) {
    size_t used = Push(L, r, *pos, resp3, depth + 1);
    if (used == 0) {
      lua_pop(L, 1);
      return false;
    }
    *pos += used;
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return true;
}

size_t Push(lua_State* L, std::string_view r, size_t start, bool resp3, int depth) {
  if (start >= r.size()) {
    return 0;
  }
  if (depth > 0) {  // a C function has LUA_MINSTACK free slots: the top level fits
    luaL_checkstack(L, 4, "reply too deep");
  }
  size_t pos = start + 1;
  std::string_view line;
  if (!Line(r, &pos, &line)) {
    return 0;
  }
  switch (r[start]) {
    case '+':
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, line.data(), line.size());
      SetField(L, "ok");
      break;
    case '-':
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, line.data(), line.size());
      SetField(L, "err");
      break;
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(ToInt(line)));
      break;
    case '$':
    case '=': {
      int64_t n = ToInt(line);
      if (n < 0) {
        if (resp3) {
          lua_pushnil(L);
        } else {
          lua_pushboolean(L, 0);
        }
        break;
      }
      if (pos + static_cast<size_t>(n) + 2 > r.size()) {
        return 0;
      }
      std::string_view body = r.substr(pos, static_cast<size_t>(n));
      pos += static_cast<size_t>(n) + 2;
      if (r[start] == '=' && resp3 && body.size() >= 4) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, 2);
        lua_pushlstring(L, body.data() + 4, body.size() - 4);
        SetField(L, "string");
        lua_pushlstring(L, body.data(), 3);
        SetField(L, "format");
        SetField(L, "verbatim_string");
      } else if (r[start] == '=') {
        size_t skip = body.size() >= 4 ? 4 : 0;
        lua_pushlstring(L, body.data() + skip, body.size() - skip);
      } else {
        lua_pushlstring(L, body.data(), body.size());
      }
      break;
    }
    case '*':
    case '>':
    case '~': {
      int64_t n = ToInt(line);
      if (n < 0) {
        if (resp3) {
          lua_pushnil(L);
        } else {
          lua_pushboolean(L, 0);
        }
        break;
      }
      if (r[start] == '~' && resp3) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, static_cast<int>(n));
        for (int64_t i = 0; i < n; i++) {
          size_t used = Push(L, r, pos, resp3, depth + 1);
          if (used == 0) {
            lua_pop(L, 2);
            return 0;
          }
          pos += used;
          lua_pushboolean(L, 1);
          lua_rawset(L, -3);
        }
        SetField(L, "set");
        break;
      }
      if (!PushSequence(L, r, &pos, n, resp3, depth)) {
        return 0;
      }
      break;
    }
    case '%':
    case '|': {
      int64_t n = ToInt(line);
      if (r[start] == '|') {
        // Attributes are skipped: the value that follows is the reply.
        for (int64_t i = 0; i < 2 * n; i++) {
          size_t used = Push(L, r, pos, resp3, depth + 1);
          if (used == 0) {
            return 0;
          }
          lua_pop(L, 1);
          pos += used;
        }
        size_t used = Push(L, r, pos, resp3, depth);
        return used == 0 ? 0 : pos + used - start;
      }
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, static_cast<int>(n));
        for (int64_t i = 0; i < n; i++) {
          for (int kv = 0; kv < 2; kv++) {
            size_t used = Push(L, r, pos, resp3, depth + 1);
            if (used == 0) {
              lua_pop(L, 2 + kv);
              return 0;
            }
            pos += used;
          }
          lua_rawset(L, -3);
        }
        SetField(L, "map");
      } else if (!PushSequence(L, r, &pos, 2 * n, resp3, depth)) {
        return 0;
      }
      break;
    }
    case '_':
      if (resp3) {
        lua_pushnil(L);
      } else {
        lua_pushboolean(L, 0);
      }
      break;
    case '#':
      if (resp3) {
        lua_pushboolean(L, line == "t");
      } else {
        lua_pushnumber(L, line == "t" ? 1 : 0);
      }
      break;
    case ',': {
      double d = strtod(std::string(line).c_str(), nullptr);
      if (line == "inf") {
        d = HUGE_VAL;
      } else if (line == "-inf") {
        d = -HUGE_VAL;
      }
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_pushnumber(L, d);
        SetField(L, "double");
      } else {
        lua_pushlstring(L, line.data(), line.size());
      }
      break;
    }
    case '(':
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_pushlstring(L, line.data(), line.size());
        SetField(L, "big_number");
      } else {
        lua_pushlstring(L, line.data(), line.size());
      }
      break;
    default:
      return 0;
  }
  return pos - start;
}

// Returns the type of t[name] (a table at `index`), leaving the value pushed.
int GetField(lua_State* L, int index, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, index);
  return lua_type(L, -1);
}

void ErrorReply(ReplyBuilder& rb, std::string_view msg) {
  // Sent as is (Redis sends {err='-X y'} as "--X y"); line breaks become spaces.
  std::string s(msg);
  for (char& c : s) {
    if (c == '\r' || c == '\n') {
      c = ' ';
    }
  }
  rb.Error(s);
}

void TableToReply(lua_State* L, int index, ReplyBuilder& rb, int script_resp, int depth);

void ValueToReply(lua_State* L, int index, ReplyBuilder& rb, int script_resp, int depth) {
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, index, &len);
      rb.Bulk(std::string_view(s, len));
      break;
    }
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(L, index)) {
          rb.Integer(1);
        } else {
          rb.Null();
        }
      } else if (rb.resp3()) {
        rb.Bool(lua_toboolean(L, index));
      } else {
        rb.Integer(lua_toboolean(L, index) ? 1 : 0);
      }
      break;
    case LUA_TNUMBER:
      rb.Integer(static_cast<int64_t>(lua_tonumber(L, index)));
      break;
    case LUA_TTABLE:
      if (depth > 1000) {
        rb.Error("ERR reached lua stack limit");
        break;
      }
      TableToReply(L, index, rb, script_resp, depth);
      break;
    default:
      rb.Null();
      break;
  }
}

void TableToReply(lua_State* L, int index, ReplyBuilder& rb, int script_resp, int depth) {
  if (index < 0) {
    index = lua_gettop(L) + index + 1;
  }
  luaL_checkstack(L, 4, "reply too deep");
  if (GetField(L, index, "err") == LUA_TSTRING) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    ErrorReply(rb, std::string_view(s, len));
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (GetField(L, index, "ok") == LUA_TSTRING) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    std::string st(s, len);
    for (char& c : st) {
      if (c == '\r' || c == '\n') {
        c = ' ';
      }
    }
    rb.SimpleString(st);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (GetField(L, index, "double") == LUA_TNUMBER) {
    rb.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (GetField(L, index, "big_number") == LUA_TSTRING) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    std::string_view v(s, len);
    if (rb.resp3()) {
      std::string raw = "(";
      for (char c : v) {
        raw += (c == '\r' || c == '\n') ? ' ' : c;
      }
      raw += "\r\n";
      rb.Raw(raw);
    } else {
      rb.Bulk(v);
    }
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (GetField(L, index, "verbatim_string") == LUA_TTABLE) {
    int vt = lua_gettop(L);
    GetField(L, vt, "format");
    GetField(L, vt, "string");
    if (lua_type(L, -1) == LUA_TSTRING && lua_type(L, -2) == LUA_TSTRING) {
      size_t flen, slen;
      const char* f = lua_tolstring(L, -2, &flen);
      const char* s = lua_tolstring(L, -1, &slen);
      rb.Verbatim(std::string_view(s, slen), std::string_view(f, flen));
      lua_pop(L, 3);
      return;
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  if (GetField(L, index, "map") == LUA_TTABLE) {
    int mt = lua_gettop(L);
    size_t pos = rb.buffer()->size();
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, mt) != 0) {
      ValueToReply(L, -2, rb, script_resp, depth + 1);
      ValueToReply(L, -1, rb, script_resp, depth + 1);
      lua_pop(L, 1);
      n++;
    }
    rb.EndDeferredMap(pos, n);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (GetField(L, index, "set") == LUA_TTABLE) {
    int st = lua_gettop(L);
    size_t pos = rb.buffer()->size();
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, st) != 0) {
      ValueToReply(L, -2, rb, script_resp, depth + 1);
      lua_pop(L, 1);
      n++;
    }
    rb.EndDeferredSet(pos, n);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  // An array: elements 1, 2, ... up to the first nil.
  size_t pos = rb.buffer()->size();
  size_t n = 0;
  for (int j = 1;; j++) {
    lua_rawgeti(L, index, j);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    ValueToReply(L, -1, rb, script_resp, depth + 1);
    lua_pop(L, 1);
    n++;
  }
  rb.EndDeferredArray(pos, n);
}

}  // namespace

size_t PushReply(lua_State* L, std::string_view resp, bool resp3_rules) {
  return Push(L, resp, 0, resp3_rules, 0);
}

void LuaToReply(lua_State* L, int index, ReplyBuilder& rb, int script_resp) {
  ValueToReply(L, index, rb, script_resp, 0);
}

std::string_view ErrorField(lua_State* L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) {
    return {};
  }
  lua_pushstring(L, "err");
  lua_rawget(L, index < 0 ? index - 1 : index);
  std::string_view v;
  if (lua_type(L, -1) == LUA_TSTRING) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    v = std::string_view(s, len);
  }
  lua_pop(L, 1);  // the string stays alive: the table holds it
  return v;
}

}  // namespace hotkv::scripting

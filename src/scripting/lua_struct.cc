// The struct library (see lua_struct.h).
#include "scripting/lua_struct.h"

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
}

namespace hotkv::scripting {
namespace {

// Largest integer size ('i32').
constexpr size_t kMaxIntSize = 32;
// Default maximum alignment for '!' without a number (alignment of double).
constexpr size_t kMaxAlign = 8;

enum Endian { kBig = 0, kLittle = 1 };

struct Header {
  Endian endian = kLittle;  // x86-64's native order
  size_t align = 1;
};

bool IsPowerOf2(size_t x) { return x > 0 && (x & (x - 1)) == 0; }

size_t GetNum(lua_State* L, const char** fmt, size_t df) {
  if (!isdigit(static_cast<unsigned char>(**fmt))) {
    return df;
  }
  int a = 0;
  do {
    int digit = **fmt - '0';
    if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) {
      luaL_error(L, "integral size overflow");
    }
    a = a * 10 + digit;
    ++*fmt;
  } while (isdigit(static_cast<unsigned char>(**fmt)));
  return static_cast<size_t>(a);
}

size_t OptSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return sizeof(char);
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return GetNum(L, fmt, 1);
    case 'i':
    case 'I': {
      size_t sz = GetNum(L, fmt, sizeof(int));
      if (sz > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", static_cast<int>(sz),
                   static_cast<int>(kMaxIntSize));
      }
      return sz;
    }
    default:
      return 0;
  }
}

size_t ToAlign(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') {
    return 0;
  }
  if (size > h.align) {
    size = h.align;
  }
  return (size - (len & (size - 1))) & (size - 1);
}

void ControlOption(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->endian = kBig;
      return;
    case '<':
      h->endian = kLittle;
      return;
    case '!': {
      size_t a = GetNum(L, fmt, kMaxAlign);
      if (!IsPowerOf2(a)) {
        luaL_error(L, "alignment %d is not a power of 2", static_cast<int>(a));
      }
      h->align = a;
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

// (uint64_t)d as GCC compiles it on x86-64 (cvttsd2si; out of range gives INT64_MIN),
// so that out-of-range numbers give Redis's bytes.
uint64_t DoubleToU64(double d) {
  constexpr double k2p63 = 9223372036854775808.0;
  auto to_i64 = [](double x) -> int64_t {
    if (x >= -k2p63 && x < k2p63) {
      return static_cast<int64_t>(x);
    }
    return INT64_MIN;
  };
  if (d < k2p63) {
    return static_cast<uint64_t>(to_i64(d));
  }
  return static_cast<uint64_t>(to_i64(d - k2p63)) ^ (1ULL << 63);
}

void PutInteger(lua_State* L, luaL_Buffer* b, int arg, Endian endian, size_t size) {
  double n = luaL_checknumber(L, arg);
  uint64_t value;
  if (n < 0) {
    value = static_cast<uint64_t>(n >= -9223372036854775808.0 ? static_cast<int64_t>(n)
                                                               : INT64_MIN);
  } else {
    value = DoubleToU64(n);
  }
  char buff[kMaxIntSize];
  for (size_t i = 0; i < size; ++i) {
    char byte = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;  // bytes past the 8th are zero
    if (endian == kLittle) {
      buff[i] = byte;
    } else {
      buff[size - 1 - i] = byte;
    }
  }
  luaL_addlstring(b, buff, size);
}

void CorrectBytes(char* b, size_t size, Endian endian) {
  if (endian != kLittle) {
    for (size_t i = 0, j = size - 1; i < j; ++i, --j) {
      std::swap(b[i], b[j]);
    }
  }
}

int Pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // separates the arguments from the buffer's stack use
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptSize(L, opt, &fmt);
    size_t pad = ToAlign(total, h, opt, size);
    total += pad;
    while (pad-- > 0) {
      luaL_addchar(&b, '\0');
    }
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        PutInteger(L, &b, arg++, h.endian, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        float f = static_cast<float>(luaL_checknumber(L, arg++));
        CorrectBytes(reinterpret_cast<char*>(&f), size, h.endian);
        luaL_addlstring(&b, reinterpret_cast<char*>(&f), size);
        break;
      }
      case 'd': {
        double d = luaL_checknumber(L, arg++);
        CorrectBytes(reinterpret_cast<char*>(&d), size, h.endian);
        luaL_addlstring(&b, reinterpret_cast<char*>(&d), size);
        break;
      }
      case 'c':
      case 's': {
        size_t l;
        const char* s = luaL_checklstring(L, arg++, &l);
        if (size == 0) {
          size = l;
        }
        luaL_argcheck(L, l >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

double GetInteger(const char* buff, Endian endian, bool is_signed, size_t size) {
  uint64_t l = 0;
  for (size_t i = 0; i < size; ++i) {
    unsigned char byte =
        static_cast<unsigned char>(endian == kBig ? buff[i] : buff[size - 1 - i]);
    l = (l << 8) | byte;  // only the last 8 bytes remain for sizes past 8
  }
  if (!is_signed) {
    return static_cast<double>(l);
  }
  // The sign bit's position, as x86-64 masks a 64-bit shift count.
  uint64_t mask = ~0ULL << ((size * 8 - 1) & 63);
  if (l & mask) {
    l |= mask;
  }
  return static_cast<double>(static_cast<int64_t>(l));
}

int Unpack(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld;
  const char* data = luaL_checklstring(L, 2, &ld);
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  --pos;
  lua_settop(L, 2);
  while (*fmt) {
    char opt = *fmt++;
    size_t size = OptSize(L, opt, &fmt);
    pos += ToAlign(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(L, GetInteger(data + pos, h.endian, islower(opt), size));
        break;
      case 'x':
        break;
      case 'f': {
        float f;
        memcpy(&f, data + pos, size);
        CorrectBytes(reinterpret_cast<char*>(&f), sizeof(f), h.endian);
        lua_pushnumber(L, f);
        break;
      }
      case 'd': {
        double d;
        memcpy(&d, data + pos, size);
        CorrectBytes(reinterpret_cast<char*>(&d), sizeof(d), h.endian);
        lua_pushnumber(L, d);
        break;
      }
      case 'c': {
        if (size == 0) {
          if (lua_gettop(L) == 2 || !lua_isnumber(L, -1)) {
            luaL_error(L, "format 'c0' needs a previous size");
          }
          double n = lua_tonumber(L, -1);
          size = n >= 0 ? static_cast<size_t>(n) : SIZE_MAX;
          lua_pop(L, 1);
          luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        break;
      }
      case 's': {
        const char* e = static_cast<const char*>(memchr(data + pos, '\0', ld - pos));
        if (e == nullptr) {
          luaL_error(L, "unfinished string in data");
        }
        size = static_cast<size_t>(e - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return lua_gettop(L) - 2;
}

int Size(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t pos = 0;
  while (*fmt) {
    char opt = *fmt++;
    size_t size = OptSize(L, opt, &fmt);
    pos += ToAlign(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!isalnum(static_cast<unsigned char>(opt))) {
      ControlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

const luaL_Reg kFunctions[] = {
    {"pack", Pack},
    {"unpack", Unpack},
    {"size", Size},
    {nullptr, nullptr},
};

}  // namespace

int OpenStruct(lua_State* L) {
  luaL_register(L, "struct", kFunctions);
  return 1;
}

}  // namespace hotkv::scripting

extern "C" int luaopen_struct(lua_State* L) { return hotkv::scripting::OpenStruct(L); }

// cmsgpack and struct in a plain lua_State. Expected bytes and errors were read off
// Redis 8.8 (`EVAL "return cmsgpack.pack(...)" 0` and the like).
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "scripting/lua_cmsgpack.h"
#include "scripting/lua_struct.h"

namespace hotkv::scripting {
namespace {

class LuaLibrariesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushcfunction(L, luaopen_cmsgpack);
    lua_call(L, 0, 0);
    lua_pushcfunction(L, luaopen_struct);
    lua_call(L, 0, 0);
  }
  void TearDown() override { lua_close(L); }

  // Runs `code` (a chunk that returns one value) and gives the returned string, or
  // "ERR:" and the error message.
  std::string Run(const std::string& code) {
    if (luaL_loadbuffer(L, code.data(), code.size(), "@test") != 0 ||
        lua_pcall(L, 0, 1, 0) != 0) {
      std::string err = std::string("ERR:") + lua_tostring(L, -1);
      lua_pop(L, 1);
      return err;
    }
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    std::string out = s ? std::string(s, len) : std::string("<nil>");
    lua_pop(L, 1);
    return out;
  }
  // The bytes of `code`'s result as lower-case hex.
  std::string Hex(const std::string& code) {
    std::string raw = Run(code);
    if (raw.rfind("ERR:", 0) == 0) {
      return raw;
    }
    static const char* kDigits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
    return out;
  }

  lua_State* L = nullptr;
};

TEST_F(LuaLibrariesTest, CmsgpackIntegersUseTheSmallestForm) {
  EXPECT_EQ(Hex("return cmsgpack.pack(1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296)"),
            "017fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000");
  EXPECT_EQ(Hex("return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, "
                "-2147483649)"),
            "ffe0d0dfd080d1ff7fd18000d2ffff7fffd280000000d3ffffffff7fffffff");
  EXPECT_EQ(Hex("return cmsgpack.pack(-0.0, 3.0, 2^31, -2^31-1)"),
            "0003ce80000000d3ffffffff7fffffff");
  EXPECT_EQ(Hex("return cmsgpack.pack(9007199254740993, -2^63)"),
            "cf0020000000000000d38000000000000000");
}

TEST_F(LuaLibrariesTest, CmsgpackFloatsAsFloat32WhenExact) {
  EXPECT_EQ(Hex("return cmsgpack.pack(1.5, 0.1, 1e300, 1/0, -1/0)"),
            "ca3fc00000cb3fb999999999999acb7e37e43c8800759cca7f800000caff800000");
  EXPECT_EQ(Hex("return cmsgpack.pack(2^63, 2^64)"), "ca5f000000ca5f800000");
  EXPECT_EQ(Run("return #cmsgpack.pack(0/0)"), "9");
  EXPECT_EQ(Hex("return cmsgpack.pack(1e-40)"), "cb37a16c262777579c");
}

TEST_F(LuaLibrariesTest, CmsgpackStringsAndScalars) {
  EXPECT_EQ(Hex("return cmsgpack.pack('', 'abc', true, false, nil)"), "a0a3616263c3c2c0");
  EXPECT_EQ(Hex("return cmsgpack.pack(string.rep('x', 31)):sub(1, 1)"), "bf");
  EXPECT_EQ(Hex("return cmsgpack.pack(string.rep('x', 32)):sub(1, 2)"), "d920");
  EXPECT_EQ(Hex("return cmsgpack.pack(string.rep('x', 255)):sub(1, 2)"), "d9ff");
  EXPECT_EQ(Hex("return cmsgpack.pack(string.rep('x', 256)):sub(1, 3)"), "da0100");
  EXPECT_EQ(Hex("return cmsgpack.pack(string.rep('x', 65536)):sub(1, 5)"), "db00010000");
  EXPECT_EQ(Hex("return cmsgpack.pack(print)"), "c0");
}

TEST_F(LuaLibrariesTest, CmsgpackTablesArraysAndMaps) {
  EXPECT_EQ(Hex("return cmsgpack.pack({})"), "90");
  EXPECT_EQ(Hex("return cmsgpack.pack({1,2,3})"), "93010203");
  EXPECT_EQ(Hex("return cmsgpack.pack({a=1})"), "81a16101");
  EXPECT_EQ(Hex("return cmsgpack.pack({[1]=1,[3]=3})"), "8201010303");
  EXPECT_EQ(Hex("return cmsgpack.pack({[2]=1,[1]=3})"), "920301");
  EXPECT_EQ(Hex("return cmsgpack.pack({[1.5]=1})"), "81ca3fc0000001");
  EXPECT_EQ(Hex("return cmsgpack.pack({[0]=1})"), "810001");
  EXPECT_EQ(Hex("return cmsgpack.pack({1, {a=1}, 'x'})"), "930181a16101a178");
  EXPECT_EQ(Hex("local t = {} for i=1,16 do t[i]=i end return cmsgpack.pack(t):sub(1,3)"),
            "dc0010");
  EXPECT_EQ(Hex("local t = {} for i=1,65536 do t[i]=i end return cmsgpack.pack(t):sub(1,5)"),
            "dd00010000");
  EXPECT_EQ(Hex("local t = {} for i=1,16 do t['k'..i]=i end return cmsgpack.pack(t):sub(1,3)"),
            "de0010");
}

TEST_F(LuaLibrariesTest, CmsgpackNestingLimit) {
  // 16 levels are packed; the 17th table is nil. A self-referencing table ends.
  EXPECT_EQ(Hex("return cmsgpack.pack({{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}})"),
            "919191919191919191919191919191910" "1");
  EXPECT_EQ(Run("local t = {} t.self = t return #cmsgpack.pack(t)"), "97");
  EXPECT_EQ(Hex("local t = {} t[1] = t return cmsgpack.pack(t)"),
            "91919191919191919191919191919191c0");
}

TEST_F(LuaLibrariesTest, CmsgpackUnpack) {
  EXPECT_EQ(Run("local a, b, c, d = cmsgpack.unpack(cmsgpack.pack(1, 'a', {1,2}, {x=3})) "
                "return a .. b .. c[2] .. d.x"),
            "1a23");
  EXPECT_EQ(Run("return select('#', cmsgpack.unpack(''))"), "0");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255'))"),
            "-1");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\206\\255\\255\\255\\255'))"), "4294967295");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\210\\128\\0\\0\\0'))"), "-2147483648");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\224'))"), "-32");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\208\\128'))"), "-128");
  EXPECT_EQ(Run("return tostring(cmsgpack.unpack('\\202\\63\\192\\0\\0'))"), "1.5");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\217\\3abc')"), "abc");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\218\\0\\2ab')"), "ab");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\219\\0\\0\\0\\2ab')"), "ab");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\220\\0\\1\\1')[1]"), "1");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\222\\0\\1\\1\\2')[1]"), "2");
  EXPECT_EQ(Run("return cmsgpack.unpack(cmsgpack.pack({a={b={1,2}}}))['a']['b'][2]"), "2");
  EXPECT_EQ(Run("return cmsgpack.unpack(123)"), "49");
}

TEST_F(LuaLibrariesTest, CmsgpackUnpackErrors) {
  EXPECT_EQ(Run("return cmsgpack.unpack('\\205\\1')"), "ERR:test:1: Missing bytes in input.");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\145')"), "ERR:test:1: Missing bytes in input.");
  EXPECT_EQ(Run("return cmsgpack.unpack('\\129\\1')"), "ERR:test:1: Missing bytes in input.");
  for (const char* bad : {"\\193", "\\196\\3abc", "\\197\\0\\3abc", "\\198\\0\\0\\0\\2ab",
                          "\\199\\1\\1a", "\\212\\1a"}) {
    EXPECT_EQ(Run(std::string("return cmsgpack.unpack('") + bad + "')"),
              "ERR:test:1: Bad data format in input.")
        << bad;
  }
  EXPECT_EQ(Run("return cmsgpack.pack()"),
            "ERR:test:1: bad argument #0 to 'pack' (MessagePack pack needs input.)");
  EXPECT_EQ(Run("return select(2, pcall(cmsgpack.unpack, '\\129\\192\\1'))"),
            "table index is nil");
}

TEST_F(LuaLibrariesTest, CmsgpackUnpackOneAndLimit) {
  auto all = [&](const std::string& call) {
    return Run("return table.concat({" + call + "}, ',')");
  };
  EXPECT_EQ(all("cmsgpack.unpack_one(cmsgpack.pack(1,2,3))"), "1,1");
  EXPECT_EQ(all("cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)"), "-1,3");
  EXPECT_EQ(all("cmsgpack.unpack_one(cmsgpack.pack(1))"), "-1,1");
  EXPECT_EQ(all("cmsgpack.unpack_one(cmsgpack.pack(1,2), 2)"), "-1");
  EXPECT_EQ(all("cmsgpack.unpack_one('')"), "-1");
  EXPECT_EQ(all("cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)"), "2,1,2");
  EXPECT_EQ(all("cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 1)"), "-1,2,3");
  EXPECT_EQ(all("cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0)"), "1,2,3");
  EXPECT_EQ(all("cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0, 1)"), "1");
  EXPECT_EQ(all("cmsgpack.unpack_limit('\\1\\2', 5)"), "-1,1,2");
  EXPECT_EQ(Run("return cmsgpack.unpack_one(cmsgpack.pack(1,2), -1)"),
            "ERR:test:1: Invalid request to unpack with offset of -1 and limit of 2.");
  EXPECT_EQ(Run("return cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), -1)"),
            "ERR:test:1: Invalid request to unpack with offset of 0 and limit of 3.");
  EXPECT_EQ(Run("return cmsgpack.unpack_one(cmsgpack.pack(1,2), 9)"),
            "ERR:test:1: Start offset 9 greater than input length 2.");
  EXPECT_EQ(Run("return cmsgpack.unpack_limit(cmsgpack.pack(1,2,3))"),
            "ERR:test:1: bad argument #2 to 'unpack_limit' (number expected, got no value)");
}

TEST_F(LuaLibrariesTest, CmsgpackRoundTrips) {
  EXPECT_EQ(Run("local v = {1, -2, 3.25, 'abc', true, {k = 'v', n = {1, 2}}, 2^40, -2^40} "
                "local u = cmsgpack.unpack(cmsgpack.pack(v)) "
                "return table.concat({u[1], u[2], u[3], u[4], tostring(u[5]), u[6].k, "
                "u[6].n[2], u[7], u[8]}, ',')"),
            "1,-2,3.25,abc,true,v,2,1099511627776,-1099511627776");
  EXPECT_EQ(Run("local s = string.rep('z', 70000) "
                "return tostring(cmsgpack.unpack(cmsgpack.pack(s)) == s)"),
            "true");
}

TEST_F(LuaLibrariesTest, CmsgpackLibraryFields) {
  EXPECT_EQ(Run("return cmsgpack._NAME .. '|' .. cmsgpack._VERSION"),
            "cmsgpack|lua-cmsgpack 0.4.0");
}

TEST_F(LuaLibrariesTest, StructPack) {
  EXPECT_EQ(Hex("return struct.pack('>i', 1)"), "00000001");
  EXPECT_EQ(Hex("return struct.pack('<i', -2)"), "feffffff");
  EXPECT_EQ(Hex("return struct.pack('b', 300)"), "2c");
  EXPECT_EQ(Hex("return struct.pack('B', -1)"), "ff");
  EXPECT_EQ(Hex("return struct.pack('>I3', 65536+2)"), "010002");
  EXPECT_EQ(Hex("return struct.pack('!4 b i', 1, 2)"), "0100000002000000");
  EXPECT_EQ(Hex("return struct.pack('!>bd', 1, 1.5)"), "01000000000000003ff8000000000000");
  EXPECT_EQ(Run("return struct.pack('c0', 'hello')"), "hello");
  EXPECT_EQ(Run("return struct.pack('c3', 'hello')"), "hel");
  EXPECT_EQ(Hex("return struct.pack('s', 'hi')"), "686900");
  EXPECT_EQ(Hex("return struct.pack('>h x H', -2, 3)"), "fffe000003");
  EXPECT_EQ(Hex("return struct.pack('>T', 5)"), "0000000000000005");
  EXPECT_EQ(Hex("return struct.pack('>l', -1)"), "ffffffffffffffff");
  EXPECT_EQ(Hex("return struct.pack('f', 1.5)"), "0000c03f");
  EXPECT_EQ(Hex("return struct.pack('>I16', 1)"), "00000000000000000000000000000001");
  EXPECT_EQ(Hex("return struct.pack('>i16', -1)"), "0000000000000000ffffffffffffffff");
  EXPECT_EQ(Hex("return struct.pack('i3', 1)"), "010000");
  EXPECT_EQ(Hex("return struct.pack('>i', '12')"), "0000000c");
  EXPECT_EQ(Hex("return struct.pack('>I8', -1)"), "ffffffffffffffff");
  EXPECT_EQ(Hex("return struct.pack('>i4', 4294967296+5)"), "00000005");
  EXPECT_EQ(Hex("return struct.pack('>i4', 2.7)"), "00000002");
  EXPECT_EQ(Hex("return struct.pack('>i4', -2.7)"), "fffffffe");
  EXPECT_EQ(Hex("return struct.pack('>I4', 1e20)"), "00000000");
}

TEST_F(LuaLibrariesTest, StructPackErrors) {
  EXPECT_EQ(Run("return struct.pack('c6', 'hello')"),
            "ERR:test:1: bad argument #3 to 'pack' (string too short)");
  EXPECT_EQ(Run("return struct.pack('i33', 1)"),
            "ERR:test:1: integral size 33 is larger than limit of 32");
  EXPECT_EQ(Run("return struct.pack('!3i', 1)"), "ERR:test:1: alignment 3 is not a power of 2");
  EXPECT_EQ(Run("return struct.pack('z', 1)"),
            "ERR:test:1: bad argument #1 to 'pack' (invalid format option 'z')");
  EXPECT_EQ(Run("return struct.pack('=i', 1)"),
            "ERR:test:1: bad argument #1 to 'pack' (invalid format option '=')");
  EXPECT_EQ(Run("return struct.pack('>i')"),
            "ERR:test:1: bad argument #2 to 'pack' (number expected, got nil)");
  EXPECT_EQ(Run("return struct.pack('i99999999999999999999', 1)"),
            "ERR:test:1: integral size overflow");
}

TEST_F(LuaLibrariesTest, StructUnpack) {
  auto all = [&](const std::string& call) {
    return Run("return table.concat({" + call + "}, ',')");
  };
  EXPECT_EQ(all("struct.unpack('>i', '\\0\\0\\0\\1')"), "1,5");
  EXPECT_EQ(all("struct.unpack('>b B', '\\255\\255')"), "-1,255,3");
  EXPECT_EQ(all("struct.unpack('>bc0', '\\3abcd')"), "abc,5");
  EXPECT_EQ(all("struct.unpack('s', 'abc\\0de')"), "abc,5");
  EXPECT_EQ(all("struct.unpack('>h', 'xx\\0\\5', 3)"), "5,5");
  EXPECT_EQ(all("struct.unpack('>i16', string.rep('\\255', 15) .. '\\254')"), "-2,17");
  EXPECT_EQ(all("struct.unpack('>I16', string.rep('\\0', 14) .. '\\1\\0')"), "256,17");
  EXPECT_EQ(all("struct.unpack('>d', struct.pack('>d', 1.25))"), "1.25,9");
  EXPECT_EQ(all("struct.unpack('<f', struct.pack('<f', 0.5))"), "0.5,5");
  EXPECT_EQ(all("struct.unpack('!4 b i', struct.pack('!4 b i', 1, 2))"), "1,2,9");
  EXPECT_EQ(all("struct.unpack('>i8', '\\255\\255\\255\\255\\255\\255\\255\\254')"), "-2,9");
  EXPECT_EQ(Run("return string.format('%.0f', struct.unpack('>I8', string.rep('\\255', 8)))"),
            "18446744073709551616");
}

TEST_F(LuaLibrariesTest, StructUnpackErrors) {
  EXPECT_EQ(Run("return struct.unpack('>i', '\\0\\0\\0')"),
            "ERR:test:1: bad argument #2 to 'unpack' (data string too short)");
  EXPECT_EQ(Run("return struct.unpack('c0', 'abcd')"),
            "ERR:test:1: format 'c0' needs a previous size");
  EXPECT_EQ(Run("return struct.unpack('s', 'abc')"), "ERR:test:1: unfinished string in data");
  EXPECT_EQ(Run("return struct.unpack('>h', 'xx\\0\\5', 0)"),
            "ERR:test:1: bad argument #3 to 'unpack' (offset must be 1 or greater)");
  EXPECT_EQ(Run("return struct.unpack('>h', 'xx\\0\\5', -1)"),
            "ERR:test:1: bad argument #2 to 'unpack' (data string too short)");
  EXPECT_EQ(Run("return struct.unpack('>h', 'xx\\0\\5', 10)"),
            "ERR:test:1: bad argument #2 to 'unpack' (data string too short)");
  EXPECT_EQ(Run("return struct.unpack('>bc0', '\\9abc')"),
            "ERR:test:1: bad argument #2 to 'unpack' (data string too short)");
}

TEST_F(LuaLibrariesTest, StructSize) {
  EXPECT_EQ(Run("return struct.size('>i')"), "4");
  EXPECT_EQ(Run("return struct.size('!4 b i d')"), "16");
  EXPECT_EQ(Run("return struct.size('c5 x')"), "6");
  EXPECT_EQ(Run("return struct.size('z')"), "0");
  EXPECT_EQ(Run("return struct.size('s')"),
            "ERR:test:1: bad argument #1 to 'size' (option 's' has no fixed size)");
  EXPECT_EQ(Run("return struct.size('c0')"),
            "ERR:test:1: bad argument #1 to 'size' (option 'c0' has no fixed size)");
  EXPECT_EQ(Run("return struct.size('i40')"),
            "ERR:test:1: integral size 40 is larger than limit of 32");
  EXPECT_EQ(Run("return struct.size('!3')"), "ERR:test:1: alignment 3 is not a power of 2");
}

}  // namespace
}  // namespace hotkv::scripting

// RESP <-> Lua conversions (scripting/lua_convert.h), the tables of Redis's documentation.
#include "scripting/lua_convert.h"

#include <gtest/gtest.h>
#include <lua.hpp>

#include <string>

#include "protocol/byte_buffer.h"
#include "protocol/reply_builder.h"
#include "scripting/script_cache.h"
#include "scripting/sha1.h"

namespace hotkv::scripting {
namespace {

class LuaConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
  }
  void TearDown() override { lua_close(L); }

  // Evaluates `expr` (a Lua expression) and converts it for a client of `resp3`.
  std::string Reply(const std::string& expr, bool resp3 = false, int script_resp = 2) {
    EXPECT_EQ(luaL_dostring(L, ("return " + expr).c_str()), 0) << lua_tostring(L, -1);
    ByteBuffer out;
    ReplyBuilder rb(&out);
    rb.set_resp3(resp3);
    LuaToReply(L, -1, rb, script_resp);
    lua_settop(L, 0);
    return std::string(out.view());
  }

  // Pushes the Lua value of `resp`, then evaluates `check` (a function of it) to a string.
  std::string Lua(const std::string& resp, const std::string& check, bool resp3_rules = false) {
    EXPECT_EQ(luaL_loadstring(L, ("local v = ... return " + check).c_str()), 0);
    EXPECT_EQ(PushReply(L, resp, resp3_rules), resp.size());
    EXPECT_EQ(lua_pcall(L, 1, 1, 0), 0) << lua_tostring(L, -1);
    std::string s = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(not a string)";
    lua_settop(L, 0);
    return s;
  }

  lua_State* L = nullptr;
};

TEST_F(LuaConvertTest, LuaToResp2) {
  EXPECT_EQ(Reply("1"), ":1\r\n");
  EXPECT_EQ(Reply("3.99"), ":3\r\n");
  EXPECT_EQ(Reply("-3.99"), ":-3\r\n");
  EXPECT_EQ(Reply("'abc'"), "$3\r\nabc\r\n");
  EXPECT_EQ(Reply("true"), ":1\r\n");
  EXPECT_EQ(Reply("false"), "$-1\r\n");
  EXPECT_EQ(Reply("nil"), "$-1\r\n");
  EXPECT_EQ(Reply("{1, 'a', {2}, nil, 3}"), "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n");
  EXPECT_EQ(Reply("{ok='fine'}"), "+fine\r\n");
  EXPECT_EQ(Reply("{err='ERR bad'}"), "-ERR bad\r\n");
  EXPECT_EQ(Reply("{err='x\\r\\ny'}"), "-x  y\r\n");
  EXPECT_EQ(Reply("{double=3.5}"), "$3\r\n3.5\r\n");
  EXPECT_EQ(Reply("{big_number='123'}"), "$3\r\n123\r\n");
  EXPECT_EQ(Reply("{map={a=1}}"), "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(Reply("{set={a=true}}"), "*1\r\n$1\r\na\r\n");
}

TEST_F(LuaConvertTest, LuaToResp3) {
  EXPECT_EQ(Reply("true", true), ":1\r\n");  // the script speaks RESP2
  EXPECT_EQ(Reply("true", true, 3), "#t\r\n");
  EXPECT_EQ(Reply("false", true, 3), "#f\r\n");
  EXPECT_EQ(Reply("false", false, 3), ":0\r\n");
  EXPECT_EQ(Reply("nil", true), "_\r\n");
  EXPECT_EQ(Reply("{double=3.5}", true), ",3.5\r\n");
  EXPECT_EQ(Reply("{big_number='123'}", true), "(123\r\n");
  EXPECT_EQ(Reply("{map={a=1}}", true), "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(Reply("{set={a=true}}", true), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(Reply("{verbatim_string={format='txt', string='hi'}}", true), "=6\r\ntxt:hi\r\n");
}

TEST_F(LuaConvertTest, Resp2ToLua) {
  EXPECT_EQ(Lua(":42\r\n", "type(v) .. tostring(v)"), "number42");
  EXPECT_EQ(Lua("$3\r\nabc\r\n", "v"), "abc");
  EXPECT_EQ(Lua("$-1\r\n", "tostring(v)"), "false");
  EXPECT_EQ(Lua("*-1\r\n", "tostring(v)"), "false");
  EXPECT_EQ(Lua("+OK\r\n", "v.ok"), "OK");
  EXPECT_EQ(Lua("-ERR x\r\n", "v.err"), "ERR x");
  EXPECT_EQ(Lua("*2\r\n:1\r\n*1\r\n$1\r\nz\r\n", "v[1] .. v[2][1]"), "1z");
}

TEST_F(LuaConvertTest, Resp3ToLua) {
  EXPECT_EQ(Lua("_\r\n", "tostring(v)", true), "nil");
  EXPECT_EQ(Lua("_\r\n", "tostring(v)", false), "false");
  EXPECT_EQ(Lua("#t\r\n", "type(v)", true), "boolean");
  EXPECT_EQ(Lua(",1.5\r\n", "tostring(v.double)", true), "1.5");
  EXPECT_EQ(Lua("(123\r\n", "v.big_number", true), "123");
  EXPECT_EQ(Lua("%1\r\n$1\r\nf\r\n$1\r\nv\r\n", "v.map.f", true), "v");
  EXPECT_EQ(Lua("~1\r\n$1\r\na\r\n", "tostring(v.set.a)", true), "true");
  EXPECT_EQ(Lua("=6\r\ntxt:hi\r\n", "v.verbatim_string.format .. v.verbatim_string.string", true),
            "txthi");
  // Without RESP3 rules a map is a flat array.
  EXPECT_EQ(Lua("%1\r\n$1\r\nf\r\n$1\r\nv\r\n", "v[1] .. v[2]", false), "fv");
}

TEST_F(LuaConvertTest, MalformedReplyPushesNothing) {
  EXPECT_EQ(PushReply(L, "$5\r\nab", false), 0u);
  EXPECT_EQ(lua_gettop(L), 0);
}

TEST(Sha1, KnownDigests) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(Sha1Hex(std::string(1000, 'a')), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
}

TEST(Shebang, Flags) {
  ScriptFlags f;
  EXPECT_EQ(ParseShebang("return 1", &f), "");
  EXPECT_FALSE(f.shebang);
  EXPECT_EQ(ParseShebang("#!lua\nreturn 1", &f), "");
  EXPECT_TRUE(f.shebang);
  EXPECT_FALSE(f.no_writes);
  EXPECT_EQ(ParseShebang("#!lua flags=no-writes,allow-cross-slot-keys\nreturn 1", &f), "");
  EXPECT_TRUE(f.no_writes && f.allow_cross_slot && !f.allow_oom);
  EXPECT_EQ(ParseShebang("#!lua flags=bad\n", &f), "ERR Unexpected flag in script shebang: bad");
  EXPECT_EQ(ParseShebang("#!py\n", &f), "ERR Unexpected engine in script shebang: #!py");
  EXPECT_EQ(ParseShebang("#!lua x=y\n", &f), "ERR Unknown lua shebang option: x=y");
}

}  // namespace
}  // namespace hotkv::scripting

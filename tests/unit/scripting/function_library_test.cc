// FUNCTION's library header, loading run, registry and DUMP payloads, without a server.
// Error texts are Redis 8.8's (tests/integration/test_functions.py checks them end to end).
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "rdb/rdb.h"
#include "scripting/function_library.h"

namespace hotkv::scripting {
namespace {

std::string Lib(const std::string& name, const std::vector<std::string>& funcs) {
  std::string code = "#!lua name=" + name + "\n";
  for (const std::string& f : funcs) {
    code += "redis.register_function('" + f + "', function(keys, args) return '" + f + "' end)\n";
  }
  return code;
}

std::string ErrorOf(const Status& st) { return st.ok() ? "<ok>" : st.message(); }

TEST(LibraryMetadata, ParsesNameEngineAndBody) {
  Result<LibraryMetadata> md = ParseLibraryMetadata("#!LUA  name=mylib\nreturn 1");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->engine, "LUA");
  EXPECT_EQ(md->name, "mylib");
  EXPECT_EQ(md->body, "\nreturn 1");  // the newline stays: line numbers are the file's
}

TEST(LibraryMetadata, Errors) {
  EXPECT_EQ(ErrorOf(ParseLibraryMetadata("return 1").status()), "Missing library metadata");
  EXPECT_EQ(ErrorOf(ParseLibraryMetadata("#!lua name=x").status()), "Invalid library metadata");
  EXPECT_EQ(ErrorOf(ParseLibraryMetadata("#!lua\nx").status()), "Library name was not given");
  EXPECT_EQ(ErrorOf(ParseLibraryMetadata("#!lua name=a NAME=b\nx").status()),
            "Invalid metadata value, name argument was given multiple times");
  EXPECT_EQ(ErrorOf(ParseLibraryMetadata("#!lua name=a x=y\nx").status()),
            "Invalid metadata value given: x=y");
  EXPECT_TRUE(IsValidFunctionName("a_B9"));
  EXPECT_FALSE(IsValidFunctionName(""));
  EXPECT_FALSE(IsValidFunctionName("a-b"));
}

TEST(ValidateLibrary, CollectsFunctionsFlagsAndDescriptions) {
  Result<ValidatedLibrary> v = ValidateLibrary(
      "#!lua name=l\n"
      "redis.register_function('p', function() return 1 end)\n"
      "redis.register_function{function_name='t', callback=function() return 2 end,\n"
      "  flags={'no-writes', 'allow-oom'}, description='d'}\n");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->name, "l");
  ASSERT_EQ(v->functions.size(), 2u);
  EXPECT_EQ(v->functions[0].name, "p");
  EXPECT_FALSE(v->functions[0].description.has_value());
  EXPECT_EQ(v->functions[1].flags, kFunctionNoWrites | kFunctionAllowOom);
  EXPECT_EQ(*v->functions[1].description, "d");
  EXPECT_EQ(FunctionFlagNames(v->functions[1].flags),
            (std::vector<std::string_view>{"no-writes", "allow-oom"}));
}

TEST(ValidateLibrary, Errors) {
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!js name=l\nx").status()), "Engine 'js' not found");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nreturn 1").status()), "No functions registered");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nlocal = 1").status()),
            "Error compiling function: user_function:2: '<name>' expected near '='");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\n\nredis.call('ping')").status()),
            "Error registering functions: ERR user_function:3: Script attempted to access "
            "nonexistent global variable 'call'");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nx = 1").status()),
            "Error registering functions: ERR user_function:2: Attempt to modify a readonly table");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nredis.register_function('a b', print)").status()),
            "Error registering functions: ERR user_function:2: Script attempted to access "
            "nonexistent global variable 'print'");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nredis.register_function{function_name='f', "
                                    "callback=function() end, flags={'nope'}}")
                        .status()),
            "Error registering functions: ERR unknown flag given");
  EXPECT_EQ(ErrorOf(ValidateLibrary("#!lua name=l\nwhile true do end").status()),
            "Error registering functions: ERR FUNCTION LOAD timeout");
}

TEST(RunLibraryCode, CallbacksSeeTheGlobalsTheyAreGiven) {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  Result<std::vector<FunctionInfo>> fns = RunLibraryCode(
      L, "\nredis.register_function('up', function(keys, args) return string.upper(args[1]) end)",
      /*keep_callbacks=*/true);
  ASSERT_TRUE(fns.ok()) << fns.status().message();
  ASSERT_EQ(lua_gettop(L), 1);  // the library's environment
  SetLibraryGlobals(L, LUA_GLOBALSINDEX);
  EXPECT_EQ(lua_gettop(L), 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, (*fns)[0].callback_ref);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "abc");
  lua_rawseti(L, -2, 1);
  ASSERT_EQ(lua_pcall(L, 2, 1, 0), 0) << lua_tostring(L, -1);
  EXPECT_STREQ(lua_tostring(L, -1), "ABC");
  lua_close(L);
}

TEST(FunctionRegistry, LoadReplaceDeleteFlush) {
  FunctionRegistry reg;
  const uint64_t v0 = reg.version();
  ASSERT_EQ(*reg.Load(Lib("a", {"fa"}), false), "a");
  EXPECT_GT(reg.version(), v0);
  EXPECT_EQ(ErrorOf(reg.Load(Lib("a", {"fa"}), false).status()), "Library 'a' already exists");
  EXPECT_EQ(ErrorOf(reg.Load(Lib("b", {"FA"}), false).status()), "Function FA already exists");
  ASSERT_TRUE(reg.Load(Lib("a", {"fa2", "fa3"}), true).ok());
  EXPECT_FALSE(reg.FindFunction("fa").has_value());
  ASSERT_TRUE(reg.FindFunction("FA2").has_value());  // function names ignore case
  EXPECT_EQ(reg.FindFunction("fa2")->library->name, "a");
  EXPECT_EQ(reg.library_count(), 1u);
  EXPECT_EQ(reg.function_count(), 2u);
  EXPECT_FALSE(reg.Delete("A"));  // library names do not
  EXPECT_TRUE(reg.Delete("a"));
  EXPECT_EQ(reg.library_count(), 0u);
  ASSERT_TRUE(reg.Load(Lib("c", {"fc"}), false).ok());
  reg.Flush();
  EXPECT_EQ(reg.Codes().size(), 0u);
}

TEST(FunctionRegistry, RestorePolicies) {
  FunctionRegistry reg;
  ASSERT_TRUE(reg.Load(Lib("a", {"fa"}), false).ok());
  const std::vector<std::string> payload = {Lib("a", {"fa_new"}), Lib("b", {"fb"})};
  EXPECT_EQ(ErrorOf(reg.Restore(payload, RestorePolicy::kAppend)), "Library a already exists");
  EXPECT_EQ(reg.library_count(), 1u);
  ASSERT_TRUE(reg.Restore(payload, RestorePolicy::kReplace).ok());
  EXPECT_TRUE(reg.FindFunction("fa_new").has_value());
  EXPECT_FALSE(reg.FindFunction("fa").has_value());
  ASSERT_TRUE(reg.Load(Lib("c", {"fc"}), false).ok());
  ASSERT_TRUE(reg.Restore({Lib("d", {"fd"})}, RestorePolicy::kFlush).ok());
  EXPECT_EQ(reg.library_count(), 1u);
  // A function of another library blocks REPLACE; nothing changes.
  EXPECT_EQ(ErrorOf(reg.Restore({Lib("e", {"fd"})}, RestorePolicy::kReplace)),
            "Function fd already exists");
  EXPECT_EQ(ErrorOf(reg.Restore({Lib("x", {"f1"}), Lib("x", {"f2"})}, RestorePolicy::kFlush)),
            "Library 'x' already exists");
  EXPECT_EQ(reg.library_count(), 1u);
}

TEST(FunctionPayload, RoundTripAndRedis88Payload) {
  const std::vector<std::string> codes = {Lib("a", {"fa"}), Lib("b", {"fb"})};
  std::string payload = rdb::FunctionDumpPayload(codes, true);
  Result<std::vector<std::string>> back = rdb::ParseFunctionPayload(payload);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, codes);
  // FUNCTION DUMP of Redis 8.8 (RDB version 14, an LZF-compressed library).
  const std::string hex =
      "f5c3405a405f1f23216c7561206e616d653d6c696238380a72656469732e72656769737465725f0f66756e"
      "6374696f6e2827663838272c20e0000f1a6b6579732c2061726773292072657475726e2027656967687479"
      "2d6006052720656e64290e009a19fbf1a20dfe45";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  Result<std::vector<std::string>> r88 = rdb::ParseFunctionPayload(bytes);
  ASSERT_TRUE(r88.ok()) << r88.status().message();
  ASSERT_EQ(r88->size(), 1u);
  EXPECT_EQ((*r88)[0],
            "#!lua name=lib88\nredis.register_function('f88', function(keys, args) return "
            "'eighty-eight' end)");
  bytes[3] ^= 1;
  EXPECT_EQ(ErrorOf(rdb::ParseFunctionPayload(bytes).status()),
            "DUMP payload version or checksum are wrong");
}

}  // namespace
}  // namespace hotkv::scripting

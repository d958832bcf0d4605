// EVAL EVALSHA EVAL_RO EVALSHA_RO and SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP.
//
// EVAL* are self_locking for the dispatcher: ScriptRun locks the declared keys' shards
// itself (it may add shards during the run), records the script's effects in the write
// stream and serves woken blocked clients under its locks. Inside EXEC the transaction
// holds the declared keys' shards already (from EVAL's key specs).
#include <algorithm>
#include <charconv>
#include <iterator>

#include "common/string_util.h"
#include "scripting/lua_debugger.h"
#include "scripting/lua_engine.h"
#include "scripting/script_cache.h"
#include "scripting/script_run.h"
#include "scripting/scripting.h"
#include "scripting/sha1.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/connection.h"
#include "server/server.h"

namespace hotkv::scripting {

namespace {

// The debugging session of the EVAL being started (EvalDebugging -> EvalGeneric).
thread_local LdbSession* t_ldb_session = nullptr;

// Parses numkeys and splits KEYS / ARGV; replies Redis's error and returns false.
bool SplitArgs(CommandContext& ctx, std::vector<std::string_view>* keys,
               std::vector<std::string_view>* argv) {
  std::optional<int64_t> parsed = ctx.IntArg(2);
  if (!parsed) {
    return false;
  }
  const int64_t n = *parsed;
  if (n < 0) {
    ctx.rb().Error("ERR Number of keys can't be negative");
    return false;
  }
  if (n > static_cast<int64_t>(ctx.argc()) - 3) {
    ctx.rb().Error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  for (size_t i = 3; i < ctx.argc(); i++) {
    (i < 3 + static_cast<size_t>(n) ? keys : argv)->push_back(ctx.arg(i));
  }
  return true;
}

// The script of `body` (added to the cache when new), kept alive by this thread's engine
// for the command. Null after replying a shebang error.
CachedScript* CacheBody(CommandContext& ctx, LuaEngine& lua, std::string_view body,
                        bool from_eval = false) {
  std::string sha = Sha1Hex(body);
  CachedScript* s = lua.FindScript(sha);
  if (s != nullptr) {
    return s;
  }
  ScriptFlags flags;
  std::string err = ParseShebang(body, &flags);
  if (!err.empty()) {
    ctx.rb().Error(err);
    return nullptr;
  }
  uint64_t evicted = 0;
  CachedScript* added =
      lua.KeepScript(ScriptCache::Instance().Add(std::move(sha), body, flags, from_eval, &evicted));
  if (evicted != 0) {
    ctx.server().AddEvictedScripts(evicted);  // INFO's evicted_scripts
  }
  return added;
}

void RunScript(CommandContext& ctx, CachedScript* script, bool read_only,
               const std::vector<std::string_view>& keys, const std::vector<std::string_view>& argv,
               LdbSession* ldb = nullptr) {
  ScriptRun run(ctx, script->flags, read_only, script->sha, script);
  if (ldb != nullptr) {
    run.set_ldb(ldb);
    ldb->set_run(&run);
  }
  run.Execute(keys, argv, [&](LuaEngine& lua) { return lua.PushScript(*script); });
  if (ldb != nullptr) {
    ldb->set_run(nullptr);
  }
}

void EvalGeneric(CommandContext& ctx, bool by_sha, bool read_only);

// EVAL of a client in SCRIPT DEBUG mode (lua_debugger.h): the script runs under the
// debugger, and the connection closes after EVAL's reply, which ends the session as in
// Redis. Inside MULTI/EXEC (Redis would debug there too) the script runs normally.
bool EvalDebugging(CommandContext& ctx, bool by_sha, bool read_only) {
  Client& client = ctx.client();
  if (by_sha) {
    ctx.rb().Error("ERR Please use EVAL instead of EVALSHA for debugging");
    return true;
  }
  Connection* conn = client.AsConnection();
  if (conn == nullptr || ctx.in_exec()) {
    return false;
  }
  {
    LdbSession session(*conn, ctx.worker(), ctx.arg(1), client.lua_debug == 1);
    const size_t mark = conn->out.size();
    t_ldb_session = &session;
    EvalGeneric(ctx, false, read_only);
    t_ldb_session = nullptr;
    if (!session.ended()) {
      // EVAL failed before the script ran (numkeys, compile error...): "<endsession>"
      // still goes before the error, as Redis sends its logs straight to the socket.
      std::string tail;
      if (conn->out.size() >= mark) {
        tail.assign(conn->out.view().substr(mark));
        conn->out.Truncate(mark);
      }
      session.End();
      conn->out.Append(tail);
    }
  }
  client.lua_debug = 0;
  client.set_close_after_reply();
  return true;
}

void EvalGeneric(CommandContext& ctx, bool by_sha, bool read_only) {
  LdbSession* ldb = nullptr;
  if (ctx.client().lua_debug != 0) [[unlikely]] {
    if (t_ldb_session == nullptr && EvalDebugging(ctx, by_sha, read_only)) {
      return;
    }
    ldb = t_ldb_session;
    t_ldb_session = nullptr;
  }
  thread_local std::vector<std::string_view> keys, argv;
  keys.clear();
  argv.clear();
  if (!SplitArgs(ctx, &keys, &argv)) {
    return;
  }
  LuaEngine& lua = LuaEngine::ForThisThread(ctx.server());
  CachedScript* script = nullptr;
  if (by_sha) {
    std::string_view arg = ctx.arg(1);
    if (arg.size() == 40) {
      script = lua.FindScript(arg);  // clients send the lower-case digest SCRIPT LOAD gave
    }
    if (script == nullptr && arg.size() == 40 &&
        std::any_of(arg.begin(), arg.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
      char sha[40];
      for (size_t i = 0; i < 40; i++) {
        char c = arg[i];
        sha[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
      }
      script = lua.FindScript(std::string_view(sha, 40));
    }
    if (script == nullptr) {
      return ctx.rb().Error("NOSCRIPT No matching script. Please use EVAL.");
    }
  } else {
    script = CacheBody(ctx, lua, ctx.arg(1), /*from_eval=*/true);
    if (script == nullptr) {
      return;
    }
  }
  ScriptCache::Instance().Touch(*script);
  RunScript(ctx, script, read_only, keys, argv, ldb);
}

void EvalCommand(CommandContext& ctx) { EvalGeneric(ctx, false, false); }
void EvalShaCommand(CommandContext& ctx) { EvalGeneric(ctx, true, false); }
void EvalRoCommand(CommandContext& ctx) { EvalGeneric(ctx, false, true); }
void EvalShaRoCommand(CommandContext& ctx) { EvalGeneric(ctx, true, true); }

void ScriptLoadCommand(CommandContext& ctx) {
  LuaEngine& lua = LuaEngine::ForThisThread(ctx.server());
  CachedScript* script = CacheBody(ctx, lua, ctx.arg(2));
  if (script == nullptr) {
    return;
  }
  std::string err = lua.PushScript(*script);
  if (!err.empty()) {
    return ctx.rb().Error(err);
  }
  lua.PopValue();
  ctx.rb().Bulk(script->sha);
}

void ScriptExistsCommand(CommandContext& ctx) {
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::string sha(ctx.arg(i));
    for (char& c : sha) {
      c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    }
    ctx.rb().Integer(ScriptCache::Instance().Find(sha) != nullptr ? 1 : 0);
  }
}

void ScriptFlushCommand(CommandContext& ctx) {
  if (ctx.argc() > 3 ||
      (ctx.argc() == 3 && !EqualsIgnoreCase(ctx.arg(2), "sync") &&
       !EqualsIgnoreCase(ctx.arg(2), "async"))) {
    return ctx.rb().Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  }
  ScriptCache::Instance().Flush();
  ctx.rb().Ok();
}

void ScriptKillCommand(CommandContext& ctx) {
  std::string err = ScriptRun::KillBusy(/*is_eval=*/true);
  if (!err.empty()) {
    return ctx.rb().Error(err);
  }
  ctx.rb().Ok();
}

void ScriptDebugCommand(CommandContext& ctx) {
  // As Redis's clientHasPendingReplies check: replies of earlier commands not written yet
  // (a pipeline, or EXEC's own reply under way).
  Connection* conn = ctx.client().AsConnection();
  if (ctx.in_exec() || (conn != nullptr && conn->out.total_size() > 0)) {
    return ctx.rb().Error("ERR SCRIPT DEBUG must be called outside a pipeline");
  }
  std::string_view mode = ctx.arg(2);
  if (EqualsIgnoreCase(mode, "no")) {
    ctx.client().lua_debug = 0;
  } else if (EqualsIgnoreCase(mode, "yes")) {
    ctx.client().lua_debug = 1;
  } else if (EqualsIgnoreCase(mode, "sync")) {
    ctx.client().lua_debug = 2;
  } else {
    return ctx.rb().Error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
  }
  ctx.rb().Ok();
}

void ScriptHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace

void RegisterScriptingCommands(CommandTable& t) {
  const std::string eval_flags = "noscript skip_monitor may_replicate no_mandatory_keys stale self_locking";
  const std::string ro_flags = "noscript skip_monitor no_mandatory_keys stale readonly self_locking";
  t.Add({.name = "eval", .arity = -3, .flags = eval_flags, .acl = "@slow @scripting",
         .keys = {KeyNum(2, 0, 1, 1, "RW ACCESS UPDATE")}, .handler = EvalCommand,
         .doc = {"scripting", "2.6.0", "Depends on the script that is executed.",
                 "Runs a Lua script on the server.", "script numkeys [key [key ...]] [arg [arg ...]]"}});
  t.Add({.name = "evalsha", .arity = -3, .flags = eval_flags, .acl = "@slow @scripting",
         .keys = {KeyNum(2, 0, 1, 1, "RW ACCESS UPDATE")}, .handler = EvalShaCommand,
         .doc = {"scripting", "2.6.0", "Depends on the script that is executed.",
                 "Runs a cached Lua script by its SHA1 digest.", "sha1 numkeys [key [key ...]] [arg [arg ...]]"}});
  t.Add({.name = "eval_ro", .arity = -3, .flags = ro_flags, .acl = "@slow @scripting",
         .keys = {KeyNum(2, 0, 1, 1, "RO ACCESS")}, .handler = EvalRoCommand,
         .doc = {"scripting", "7.0.0", "Depends on the script that is executed.",
                 "Runs a read-only Lua script on the server.", "script numkeys [key [key ...]] [arg [arg ...]]"}});
  t.Add({.name = "evalsha_ro", .arity = -3, .flags = ro_flags, .acl = "@slow @scripting",
         .keys = {KeyNum(2, 0, 1, 1, "RO ACCESS")}, .handler = EvalShaRoCommand,
         .doc = {"scripting", "7.0.0", "Depends on the script that is executed.",
                 "Runs a cached read-only Lua script by its SHA1 digest.", "sha1 numkeys [key [key ...]] [arg [arg ...]]"}});
  t.Add({.name = "script", .arity = -2,
         .doc = {"scripting", "2.6.0", "Depends on subcommand.", "A container for Lua scripts management commands.", ""}});
  t.AddSub("script", {.name = "load", .arity = 3, .flags = "noscript stale", .acl = "@slow @scripting",
                      .handler = ScriptLoadCommand,
                      .doc = {"scripting", "2.6.0", "O(N) with N being the length in bytes of the script body.",
                              "Loads a Lua script into the script cache; returns its SHA1 digest.", "script"},
                      .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("script", {.name = "exists", .arity = -3, .flags = "noscript", .acl = "@slow @scripting",
                      .handler = ScriptExistsCommand,
                      .doc = {"scripting", "2.6.0", "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
                              "Tells which scripts are in the script cache.", "sha1 [sha1 ...]"},
                      .tips = {"request_policy:all_shards", "response_policy:agg_logical_and"}});
  t.AddSub("script", {.name = "flush", .arity = -2, .flags = "noscript", .acl = "@slow @scripting",
                      .handler = ScriptFlushCommand,
                      .doc = {"scripting", "2.6.0", "O(N) with N being the number of scripts in cache",
                              "Removes every script from the script cache.", "[flush-type: ASYNC | SYNC]"},
                      .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  t.AddSub("script", {.name = "kill", .arity = 2, .flags = "noscript allow_busy", .acl = "@slow @scripting",
                      .handler = ScriptKillCommand,
                      .doc = {"scripting", "2.6.0", "O(1)", "Stops the running script if it has not written.", ""},
                      .tips = {"request_policy:all_shards", "response_policy:one_succeeded"}});
  t.AddSub("script", {.name = "debug", .arity = 3, .flags = "noscript", .acl = "@slow @scripting",
                      .handler = ScriptDebugCommand,
                      .doc = {"scripting", "3.2.0", "O(1)", "Sets the debug mode of server-side Lua scripts.",
                              "<mode: YES | SYNC | NO>"}});
  t.AddSub("script", {.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow @scripting",
                      .handler = ScriptHelpCommand,
                      .doc = {"scripting", "5.0.0", "O(1)", "Returns helpful text about the SCRIPT subcommands.", ""}});
}

}  // namespace hotkv::scripting

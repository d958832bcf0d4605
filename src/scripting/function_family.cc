// FUNCTION LOAD DELETE FLUSH LIST STATS DUMP RESTORE KILL HELP (see function_family.h).
// Replies and error texts follow Redis 8.8:
// - LOAD: "Unknown option given: X" for anything but REPLACE before the code; header and
//   code errors from FunctionRegistry::Load.
// - LIST: LIBRARYNAME and WITHCODE once each ("Unknown argument X" for a repeat),
//   "library name argument was not given"; the pattern matches names case-insensitively.
// - FLUSH: "FUNCTION FLUSH only supports SYNC|ASYNC option"; more arguments are a
//   subcommand syntax error. Both modes free the libraries at once (they are small).
// - RESTORE: "Wrong restore policy given, value should be either FLUSH, APPEND or
//   REPLACE."; the payload's errors from rdb::ParseFunctionPayload.
#include "scripting/function_family.h"

#include <iterator>
#include <string>
#include <vector>

#include "common/string_util.h"
#include "rdb/rdb.h"
#include "scripting/script_run.h"
#include "server/command_context.h"
#include "server/config.h"
#include "server/dispatcher.h"
#include "server/function_hooks.h"
#include "server/server.h"
#include "server/worker.h"
#include "server/write_stream.h"

namespace hotkv::scripting {

FunctionRegistry& Functions() {
  static FunctionRegistry* registry = new FunctionRegistry();
  return *registry;
}

namespace {

void ReplyError(CommandContext& ctx, const std::string& msg) { ctx.rb().Error("ERR " + msg); }

void SubcommandSyntaxError(CommandContext& ctx) {
  ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                 std::string(ctx.arg(1).substr(0, 128)) + "'. Try FUNCTION HELP.");
}

// Runs `change` with every shard locked (EXEC's locks, or all taken in ascending order)
// and, when it changed the registry, counts the change and records the command in the
// write stream under those locks (see function_family.h).
template <typename F>
void WriteUnderAllLocks(CommandContext& ctx, F change) {
  ShardLockSet all;
  const bool take = !ctx.all_shards_locked();
  if (take) {
    all.AddAll();
    all.Lock(ctx.keyspace());
  }
  if (change()) {
    WorkerStats::Inc(ctx.worker().stats().dirty);
    WriteStream& ws = ctx.server().write_stream();
    if (ws.active()) {
      ws.Append(-1, ctx.args());
      ws.MarkRewritten();
      ws.Commit();
    }
  }
  if (take) {
    all.Unlock(ctx.keyspace());
  }
}

void FunctionLoadCommand(CommandContext& ctx) {
  bool replace = false;
  size_t i = 2;
  for (; i + 1 < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "replace")) {
      replace = true;
      continue;
    }
    return ReplyError(ctx, "Unknown option given: " + std::string(ctx.arg(i)));
  }
  // The code runs before the shards are locked (it may take up to 500 ms).
  Result<ValidatedLibrary> lib = Functions().PrepareLoad(ctx.arg(i), replace);
  if (!lib.ok()) {
    return ReplyError(ctx, lib.status().message());
  }
  const std::string name = lib->name;
  Status st;
  WriteUnderAllLocks(ctx, [&] {
    st = Functions().Apply(std::move(*lib), replace);
    return st.ok();
  });
  if (!st.ok()) {
    return ReplyError(ctx, st.message());
  }
  ctx.rb().Bulk(name);
}

void FunctionDeleteCommand(CommandContext& ctx) {
  bool found = false;
  WriteUnderAllLocks(ctx, [&] { return found = Functions().Delete(ctx.arg(2)); });
  if (!found) {
    return ReplyError(ctx, "Library not found");
  }
  ctx.rb().Ok();
}

void FunctionFlushCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return SubcommandSyntaxError(ctx);
  }
  if (ctx.argc() == 3 && !EqualsIgnoreCase(ctx.arg(2), "sync") &&
      !EqualsIgnoreCase(ctx.arg(2), "async")) {
    return ReplyError(ctx, "FUNCTION FLUSH only supports SYNC|ASYNC option");
  }
  WriteUnderAllLocks(ctx, [&] {
    Functions().Flush();
    return true;
  });
  ctx.rb().Ok();
}

void FunctionRestoreCommand(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    return SubcommandSyntaxError(ctx);
  }
  RestorePolicy policy = RestorePolicy::kAppend;
  if (ctx.argc() == 4) {
    std::string_view p = ctx.arg(3);
    if (EqualsIgnoreCase(p, "flush")) {
      policy = RestorePolicy::kFlush;
    } else if (EqualsIgnoreCase(p, "append")) {
      policy = RestorePolicy::kAppend;
    } else if (EqualsIgnoreCase(p, "replace")) {
      policy = RestorePolicy::kReplace;
    } else {
      return ReplyError(
          ctx, "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
    }
  }
  Result<std::vector<std::string>> codes = rdb::ParseFunctionPayload(ctx.arg(2));
  if (!codes.ok()) {
    return ReplyError(ctx, codes.status().message());
  }
  Result<std::vector<ValidatedLibrary>> libs = Functions().PrepareRestore(*codes);
  if (!libs.ok()) {
    return ReplyError(ctx, libs.status().message());
  }
  Status st;
  WriteUnderAllLocks(ctx, [&] {
    st = Functions().ApplyRestore(std::move(*libs), policy);
    return st.ok();
  });
  if (!st.ok()) {
    return ReplyError(ctx, st.message());
  }
  ctx.rb().Ok();
}

void FunctionDumpCommand(CommandContext& ctx) {
  const bool compress = ctx.server().config().GetString("rdbcompression") == "yes";
  ctx.rb().Bulk(rdb::FunctionDumpPayload(Functions().Codes(), compress));
}

void FunctionListCommand(CommandContext& ctx) {
  bool with_code = false;
  std::optional<std::string_view> pattern;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    if (!with_code && EqualsIgnoreCase(a, "withcode")) {
      with_code = true;
      continue;
    }
    if (!pattern && EqualsIgnoreCase(a, "libraryname")) {
      if (i + 1 >= ctx.argc()) {
        return ReplyError(ctx, "library name argument was not given");
      }
      pattern = ctx.arg(++i);
      continue;
    }
    return ReplyError(ctx, "Unknown argument " + std::string(a));
  }
  std::vector<std::shared_ptr<const Library>> libs = Functions().Libraries();
  if (pattern) {
    std::erase_if(libs, [&](const std::shared_ptr<const Library>& l) {
      return !GlobMatch(*pattern, l->name, /*nocase=*/true);
    });
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(libs.size());
  for (const auto& lib : libs) {
    rb.Map(with_code ? 4 : 3);
    rb.Bulk("library_name");
    rb.Bulk(lib->name);
    rb.Bulk("engine");
    rb.Bulk(lib->engine);
    rb.Bulk("functions");
    rb.Array(lib->functions.size());
    for (const FunctionInfo& f : lib->functions) {
      rb.Map(3);
      rb.Bulk("name");
      rb.Bulk(f.name);
      rb.Bulk("description");
      if (f.description) {
        rb.Bulk(*f.description);
      } else {
        rb.Null();
      }
      rb.Bulk("flags");
      std::vector<std::string_view> flags = FunctionFlagNames(f.flags);
      rb.Set(flags.size());
      for (std::string_view fl : flags) {
        rb.SimpleString(fl);  // status strings, as Redis replies them
      }
    }
    if (with_code) {
      rb.Bulk("library_code");
      rb.Bulk(lib->code);
    }
  }
}

void FunctionStatsCommand(CommandContext& ctx) {
  ReplyBuilder& rb = ctx.rb();
  ScriptRun::BusyInfo busy;
  const bool running = ScriptRun::DescribeBusy(&busy);
  if (running && busy.eval) {
    return rb.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                    "SHUTDOWN NOSAVE.");
  }
  rb.Map(2);
  rb.Bulk("running_script");
  if (!running) {
    rb.Null();
  } else {
    // A function past busy-reply-threshold on another worker (this worker is free).
    rb.Map(3);
    rb.Bulk("name");
    rb.Bulk(busy.name);
    rb.Bulk("command");
    rb.Array(busy.command.size());
    for (const std::string& a : busy.command) {
      rb.Bulk(a);
    }
    rb.Bulk("duration_ms");
    rb.Integer(busy.duration_ms);
  }
  rb.Bulk("engines");
  rb.Map(1);
  rb.Bulk("LUA");
  rb.Map(2);
  rb.Bulk("libraries_count");
  rb.Integer(static_cast<int64_t>(Functions().library_count()));
  rb.Bulk("functions_count");
  rb.Integer(static_cast<int64_t>(Functions().function_count()));
}

void FunctionKillCommand(CommandContext& ctx) {
  std::string err = ScriptRun::KillBusy(/*is_eval=*/false);
  if (!err.empty()) {
    return ctx.rb().Error(err);
  }
  ctx.rb().Ok();
}

void FunctionHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored "
      "using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On "
      "collision, replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Print this help.",
  };
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

// The registry as the persistence layer sees it.
class RegistryHooks : public FunctionHooks {
 public:
  std::vector<std::string> LibraryCodes() override { return Functions().Codes(); }
  Status LoadLibraryFromFile(std::string_view code) override {
    Result<std::string> r = Functions().Load(code, /*replace=*/true);
    if (!r.ok()) {
      return Status::InvalidArgument("Failed loading library: " + r.status().message());
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterFunctionCommands(CommandTable& t) {
  static RegistryHooks hooks;
  SetFunctionHooks(&hooks);
  RegisterFcallCommands(t);
  t.Add({.name = "function", .arity = -2, .acl = "@slow",
         .doc = {"scripting", "7.0.0", "Depends on subcommand.",
                 "A container for function commands.", ""}});
  t.AddSub("function", {.name = "load", .arity = -3, .flags = "write denyoom noscript all_shards",
                        .acl = "@write @slow @scripting", .handler = FunctionLoadCommand,
                        .doc = {"scripting", "7.0.0",
                                "O(1) (considering compilation time is redundant)",
                                "Loads a function library.", "[REPLACE] function-code"},
                        .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.AddSub("function", {.name = "delete", .arity = 3, .flags = "write noscript all_shards",
                        .acl = "@write @slow @scripting", .handler = FunctionDeleteCommand,
                        .doc = {"scripting", "7.0.0", "O(1)",
                                "Removes a function library and its functions.", "library-name"},
                        .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.AddSub("function", {.name = "flush", .arity = -2, .flags = "write noscript all_shards",
                        .acl = "@write @slow @scripting", .handler = FunctionFlushCommand,
                        .doc = {"scripting", "7.0.0",
                                "O(N) where N is the number of functions deleted",
                                "Removes every function library.", "[flush-type: ASYNC | SYNC]"},
                        .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.AddSub("function", {.name = "restore", .arity = -3,
                        .flags = "write denyoom noscript all_shards",
                        .acl = "@write @slow @scripting", .handler = FunctionRestoreCommand,
                        .doc = {"scripting", "7.0.0",
                                "O(N) where N is the number of functions on the payload",
                                "Loads function libraries from a FUNCTION DUMP payload.",
                                "serialized-value [policy: FLUSH | APPEND | REPLACE]"},
                        .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.AddSub("function", {.name = "dump", .arity = 2, .flags = "noscript",
                        .acl = "@slow @scripting", .handler = FunctionDumpCommand,
                        .doc = {"scripting", "7.0.0", "O(N) where N is the number of functions",
                                "Serializes every function library into a payload.", ""}});
  t.AddSub("function", {.name = "list", .arity = -2, .flags = "noscript",
                        .acl = "@slow @scripting", .handler = FunctionListCommand,
                        .doc = {"scripting", "7.0.0", "O(N) where N is the number of functions",
                                "Describes the loaded libraries and their functions.",
                                "[LIBRARYNAME library-name-pattern] [WITHCODE]"},
                        .tips = {"nondeterministic_output_order"}});
  t.AddSub("function", {.name = "stats", .arity = 2, .flags = "noscript allow_busy",
                        .acl = "@slow @scripting", .handler = FunctionStatsCommand,
                        .doc = {"scripting", "7.0.0", "O(1)",
                                "Reports the running function and the libraries per engine.", ""},
                        .tips = {"nondeterministic_output", "request_policy:all_shards",
                                 "response_policy:special"}});
  t.AddSub("function", {.name = "kill", .arity = 2, .flags = "noscript allow_busy",
                        .acl = "@slow @scripting", .handler = FunctionKillCommand,
                        .doc = {"scripting", "7.0.0", "O(1)",
                                "Stops the function that is running.", ""},
                        .tips = {"request_policy:all_shards", "response_policy:one_succeeded"}});
  t.AddSub("function", {.name = "help", .arity = 2, .flags = "loading stale",
                        .acl = "@slow @scripting", .handler = FunctionHelpCommand,
                        .doc = {"scripting", "7.0.0", "O(1)",
                                "Returns helpful text about FUNCTION's subcommands.", ""}});
}

}  // namespace hotkv::scripting

// Connection commands: PING ECHO QUIT RESET HELLO AUTH (CLIENT is in
// connection_family_client.cc).
//
// Edge cases honoured (as Redis): HELLO validates the version before AUTH/SETNAME and
// applies nothing on error; AUTH without a configured password is an error; client names
// may not contain spaces or special characters.
#include "commands/connection_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/tracking.h"

namespace hotkv {

namespace {

constexpr std::string_view kWrongPass = "WRONGPASS invalid username-password pair or user is disabled.";

void PingCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    return ctx.rb().Error("ERR wrong number of arguments for 'ping' command");
  }
  if (ctx.client().in_subscribed_mode()) {
    // RESP2 subscribed mode replies in the message format.
    ctx.rb().Array(2);
    ctx.rb().Bulk("pong");
    ctx.rb().Bulk(ctx.argc() == 2 ? ctx.arg(1) : "");
    return;
  }
  if (ctx.argc() == 2) {
    return ctx.rb().Bulk(ctx.arg(1));
  }
  ctx.rb().Raw("+PONG\r\n");  // SimpleString("PONG"), without the call
}

void EchoCommand(CommandContext& ctx) { ctx.rb().Bulk(ctx.arg(1)); }

void QuitCommand(CommandContext& ctx) {
  ctx.rb().Ok();
  ctx.client().set_close_after_reply();
}

// Checks a password against requirepass (constant-time compare of equal lengths).
bool PasswordMatches(Server& server, std::string_view user, std::string_view pass) {
  if (!EqualsIgnoreCase(user, "default") && user != "default") {
    return false;
  }
  std::string expected = server.config().requirepass();
  if (!server.config().requirepass_set()) {
    return true;  // the default user has no password ("nopass")
  }
  if (expected.size() != pass.size()) {
    return false;
  }
  unsigned char diff = 0;
  for (size_t i = 0; i < pass.size(); i++) {
    diff |= static_cast<unsigned char>(expected[i] ^ pass[i]);
  }
  return diff == 0;
}

void AuthCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  for (size_t i = 1; i < ctx.argc(); i++) {
    ctx.RedactArg(i);  // as Redis: never show the password in the slow log
  }
  if (ctx.argc() == 2 && !ctx.server().config().requirepass_set()) {
    return ctx.rb().Error(
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?");
  }
  std::string_view user = ctx.argc() == 3 ? ctx.arg(1) : "default";
  std::string_view pass = ctx.arg(ctx.argc() - 1);
  if (!PasswordMatches(ctx.server(), user, pass)) {
    return ctx.rb().Error(kWrongPass);
  }
  ctx.client().set_authenticated(true);
  ctx.rb().Ok();
}

void HelloCommand(CommandContext& ctx) {
  int proto = ctx.client().resp();
  size_t i = 1;
  if (ctx.argc() >= 2) {
    auto v = ParseInt64(ctx.arg(1));
    if (!v) {
      return ctx.rb().Error("ERR Protocol version is not an integer or out of range");
    }
    if (*v < 2 || *v > 3) {
      return ctx.rb().Error("NOPROTO unsupported protocol version");
    }
    proto = static_cast<int>(*v);
    i = 2;
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (; i < ctx.argc(); i++) {
    size_t left = ctx.argc() - i - 1;
    if (EqualsIgnoreCase(ctx.arg(i), "AUTH") && left >= 2) {
      user = ctx.arg(i + 1);
      pass = ctx.arg(i + 2);
      ctx.RedactArg(i + 1);
      ctx.RedactArg(i + 2);
      has_auth = true;
      i += 2;
    } else if (EqualsIgnoreCase(ctx.arg(i), "SETNAME") && left >= 1) {
      name = ctx.arg(i + 1);
      has_name = true;
      i += 1;
    } else {
      return ctx.rb().Error("ERR Syntax error in HELLO option '" + std::string(ctx.arg(i)) + "'");
    }
  }
  if (has_auth) {
    if (!PasswordMatches(ctx.server(), user, pass)) {
      return ctx.rb().Error(kWrongPass);
    }
    ctx.client().set_authenticated(true);
  }
  if (!ctx.client().authenticated()) {
    return ctx.rb().Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
        "select the RESP protocol version at the same time");
  }
  if (has_name) {
    if (!ValidClientName(name)) {
      return ctx.rb().Error(
          "ERR Client names cannot contain spaces, newlines or special characters.");
    }
    ctx.client().set_name(name);
  }
  ctx.client().set_resp(proto);
  ctx.rb().set_resp3(proto == 3);
  ReplyBuilder& rb = ctx.rb();
  rb.Map(7);
  rb.Bulk("server");
  rb.Bulk("redis");
  rb.Bulk("version");
  rb.Bulk(kRedisCompatVersion);
  rb.Bulk("proto");
  rb.Integer(proto);
  rb.Bulk("id");
  rb.Integer(static_cast<int64_t>(ctx.client().id()));
  rb.Bulk("mode");
  rb.Bulk("standalone");
  rb.Bulk("role");
  rb.Bulk("master");
  rb.Bulk("modules");
  rb.Array(0);
}

void ResetCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  if (c.monitor_flag.load(std::memory_order_relaxed)) {
    c.monitor_flag.store(false, std::memory_order_relaxed);
    ctx.server().monitors().Remove(c.id());
  }
  c.EndMulti();
  UnwatchAll(ctx.keyspace(), c);
  UnsubscribeAll(ctx.server(), c);
  TrackingDisable(c);
  c.set_db(0);
  c.set_resp(2);
  ctx.rb().set_resp3(false);
  c.set_reply_mode(Client::ReplyMode::kOn);
  c.set_no_evict(false);
  c.set_no_touch(false);
  c.set_name("");
  c.set_authenticated(!ctx.server().config().requirepass_set());
  ctx.rb().SimpleString("RESET");
}


}  // namespace

void RegisterConnectionCommands(CommandTable& t) {
  t.Add({.name = "ping", .arity = -1, .flags = "fast subscribed_ok", .acl = "@fast @connection",
         .handler = PingCommand,
         .doc = {"connection", "1.0.0", "O(1)", "Replies PONG, or echoes its argument.", "[message]"},
         .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}});
  t.Add({.name = "echo", .arity = 2, .flags = "loading stale fast", .acl = "@fast @connection",
         .handler = EchoCommand,
         .doc = {"connection", "1.0.0", "O(1)", "Replies with its argument.", "message"}});
  t.Add({.name = "quit", .arity = -1, .flags = "allow_busy noscript loading stale fast no_auth subscribed_ok",
         .acl = "@fast @connection", .handler = QuitCommand,
         .doc = {"connection", "1.0.0", "O(1)", "Closes the connection after replying OK.", "",
                 "deprecated", "7.2.0", "just closing the connection"}});
  t.Add({.name = "reset", .arity = 1, .flags = "noscript loading stale fast no_auth allow_busy subscribed_ok",
         .acl = "@fast @connection", .handler = ResetCommand,
         .doc = {"connection", "6.2.0", "O(1)",
                 "Resets the connection: leaves MULTI, unwatches, unsubscribes, RESP2, database 0.", ""}});
  t.Add({.name = "hello", .arity = -1, .flags = "noscript loading stale fast no_auth allow_busy",
         .acl = "@fast @connection", .handler = HelloCommand,
         .doc = {"connection", "6.0.0", "O(1)",
                 "Chooses the protocol version (2 or 3), optionally authenticates and names the connection.",
                 "[arguments: protover:integer [auth: AUTH username password] [SETNAME clientname]]"}});
  t.Add({.name = "auth", .arity = -2, .flags = "noscript loading stale fast no_auth allow_busy",
         .acl = "@fast @connection", .handler = AuthCommand,
         .doc = {"connection", "1.0.0", "O(N) where N is the number of passwords defined for the user",
                 "Authenticates the connection.", "[username] password"}});
}

}  // namespace hotkv

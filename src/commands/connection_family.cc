// Connection commands: PING ECHO QUIT RESET HELLO AUTH CLIENT (ID SETNAME GETNAME LIST
// INFO KILL SETINFO NO-EVICT NO-TOUCH REPLY HELP GETREDIR).
//
// Edge cases honoured (as Redis): HELLO validates the version before AUTH/SETNAME and
// applies nothing on error; AUTH without a configured password is an error; client names
// may not contain spaces or special characters; CLIENT KILL's old form replies OK or
// "No such client", the filter form replies a count and skips the caller by default.
#include <algorithm>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/blocking.h"
#include "server/connection.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/worker.h"

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
  ctx.rb().SimpleString("PONG");
}

void EchoCommand(CommandContext& ctx) { ctx.rb().Bulk(ctx.arg(1)); }

void QuitCommand(CommandContext& ctx) {
  ctx.rb().Ok();
  ctx.client().set_close_after_reply();
}

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') {
      return false;
    }
  }
  return true;
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
  c.EndMulti();
  UnwatchAll(ctx.keyspace(), c);
  UnsubscribeAll(ctx.server(), c);
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

// ---- CLIENT ----

void ClientIdCommand(CommandContext& ctx) { ctx.rb().Integer(static_cast<int64_t>(ctx.client().id())); }

void ClientSetNameCommand(CommandContext& ctx) {
  if (!ValidClientName(ctx.arg(2))) {
    return ctx.rb().Error("ERR Client names cannot contain spaces, newlines or special characters.");
  }
  ctx.client().set_name(ctx.arg(2));
  ctx.rb().Ok();
}

void ClientGetNameCommand(CommandContext& ctx) {
  std::string n = ctx.client().name();
  if (n.empty()) {
    return ctx.rb().Null();
  }
  ctx.rb().Bulk(n);
}

// Replication client types of CLIENT LIST / CLIENT KILL TYPE, lower-cased. Redis 8 names
// the replication source "primary" and keeps "master" for old clients. HotKV has no
// replication links, so no connected client is of these types.
bool IsReplicationClientType(std::string_view type) {
  return type == "master" || type == "primary" || type == "replica" || type == "slave";
}

bool IsClientTypeName(std::string_view type) {
  return type == "normal" || type == "pubsub" || IsReplicationClientType(type);
}

void ClientInfoCommand(CommandContext& ctx) {
  ctx.rb().Verbatim(FormatClientInfo(ctx.client(), ctx.now_ms()) + "\n");
}

void ClientListCommand(CommandContext& ctx) {
  std::string type;
  std::vector<uint64_t> ids;
  for (size_t i = 2; i < ctx.argc(); i++) {
    if (EqualsIgnoreCase(ctx.arg(i), "TYPE") && i + 1 < ctx.argc()) {
      type = ToLower(ctx.arg(++i));
      if (!IsClientTypeName(type)) {
        return ctx.rb().Error("ERR Unknown client type '" + std::string(ctx.arg(i)) + "'");
      }
    } else if (EqualsIgnoreCase(ctx.arg(i), "ID") && i + 1 < ctx.argc()) {
      for (i++; i < ctx.argc(); i++) {
        auto id = ParseInt64(ctx.arg(i));
        if (!id || *id <= 0) {
          return ctx.rb().Error("ERR Invalid client ID");
        }
        ids.push_back(static_cast<uint64_t>(*id));
      }
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  std::vector<std::pair<uint64_t, std::string>> lines;
  ctx.server().clients().ForEach([&](Client* c) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), c->id()) == ids.end()) {
      return;
    }
    // A killed client is gone for everyone else at once, though its worker closes it a
    // moment later (Redis closes it before serving any other client).
    if (c->kill_requested.load(std::memory_order_relaxed) && c != &ctx.client()) {
      return;
    }
    bool pubsub = c->subscription_count() > 0;
    if (!type.empty()) {
      if (IsReplicationClientType(type)) {
        return;
      }
      if ((type == "pubsub") != pubsub) {
        return;
      }
    }
    lines.emplace_back(c->id(), FormatClientInfo(*c, ctx.now_ms()));
  });
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (auto& [id, l] : lines) {
    out += l;
    out += '\n';
  }
  ctx.rb().Verbatim(out);
}

// Asks the owning worker to close client `id` (after its pending replies).
void KillClient(CommandContext& ctx, Client* c) {
  if (c == &ctx.client()) {
    ctx.client().set_close_after_reply();
    return;
  }
  c->kill_requested.store(true, std::memory_order_relaxed);
  Worker* w = c->worker();
  uint64_t id = c->id();
  w->Post([w, id] {
    if (Connection* conn = w->FindConnection(id)) {
      w->CloseConnection(conn);
    }
  });
}

void ClientKillCommand(CommandContext& ctx) {
  if (ctx.argc() == 3) {
    // Old form: CLIENT KILL addr:port.
    std::string_view addr = ctx.arg(2);
    Client* victim = nullptr;
    ctx.server().clients().ForEach([&](Client* c) {
      if (victim == nullptr && c->addr == addr && !c->kill_requested.load(std::memory_order_relaxed)) {
        victim = c;
        KillClient(ctx, c);
      }
    });
    if (victim == nullptr) {
      return ctx.rb().Error("ERR No such client");
    }
    return ctx.rb().Ok();
  }
  std::optional<uint64_t> id;
  std::string type, addr, laddr, user;
  bool skipme = true;
  int64_t maxage = 0;
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    if (i + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    std::string_view opt = ctx.arg(i);
    std::string_view val = ctx.arg(i + 1);
    if (EqualsIgnoreCase(opt, "ID")) {
      auto v = ParseInt64(val);
      if (!v || *v <= 0) {
        return ctx.rb().Error("ERR client-id should be greater than 0");
      }
      id = static_cast<uint64_t>(*v);
    } else if (EqualsIgnoreCase(opt, "TYPE")) {
      type = ToLower(val);
      if (!IsClientTypeName(type)) {
        return ctx.rb().Error("ERR Unknown client type '" + std::string(val) + "'");
      }
    } else if (EqualsIgnoreCase(opt, "ADDR")) {
      addr = std::string(val);
    } else if (EqualsIgnoreCase(opt, "LADDR")) {
      laddr = std::string(val);
    } else if (EqualsIgnoreCase(opt, "USER")) {
      user = std::string(val);
      if (user != "default") {
        return ctx.rb().Error("ERR No such user '" + user + "'");
      }
    } else if (EqualsIgnoreCase(opt, "SKIPME")) {
      if (EqualsIgnoreCase(val, "yes")) {
        skipme = true;
      } else if (EqualsIgnoreCase(val, "no")) {
        skipme = false;
      } else {
        return ctx.rb().Error(errors::kSyntax);
      }
    } else if (EqualsIgnoreCase(opt, "MAXAGE")) {
      auto v = ParseInt64(val);
      if (!v) {
        return ctx.rb().Error(errors::kNotInteger);
      }
      maxage = *v;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  int64_t killed = 0;
  ctx.server().clients().ForEach([&](Client* c) {
    if (id && c->id() != *id) {
      return;
    }
    if (c->kill_requested.load(std::memory_order_relaxed)) {
      return;  // already being closed
    }
    if (!type.empty()) {
      bool pubsub = c->subscription_count() > 0;
      if (IsReplicationClientType(type) || (type == "pubsub") != pubsub) {
        return;
      }
    }
    if (!addr.empty() && c->addr != addr) {
      return;
    }
    if (!laddr.empty() && c->laddr != laddr) {
      return;
    }
    if (!user.empty() && user != "default") {
      return;
    }
    if (maxage > 0 && (ctx.now_ms() - c->created_ms()) / 1000 < maxage) {
      return;
    }
    if (skipme && c == &ctx.client()) {
      return;
    }
    KillClient(ctx, c);
    killed++;
  });
  ctx.rb().Integer(killed);
}

void ClientSetInfoCommand(CommandContext& ctx) {
  std::string_view attr = ctx.arg(2);
  std::string_view val = ctx.arg(3);
  bool is_name = EqualsIgnoreCase(attr, "LIB-NAME");
  if (!is_name && !EqualsIgnoreCase(attr, "LIB-VER")) {
    return ctx.rb().Error("ERR Unrecognized option '" + std::string(attr) + "'");
  }
  if (!ValidClientName(val)) {
    return ctx.rb().Error("ERR " + std::string(is_name ? "lib-name" : "lib-ver") +
                          " cannot contain spaces, newlines or special characters.");
  }
  if (is_name) {
    ctx.client().set_lib_name(val);
  } else {
    ctx.client().set_lib_ver(val);
  }
  ctx.rb().Ok();
}

std::optional<bool> OnOff(CommandContext& ctx, std::string_view v) {
  if (EqualsIgnoreCase(v, "ON")) {
    return true;
  }
  if (EqualsIgnoreCase(v, "OFF")) {
    return false;
  }
  ctx.rb().Error(errors::kSyntax);
  return std::nullopt;
}

void ClientNoEvictCommand(CommandContext& ctx) {
  if (auto v = OnOff(ctx, ctx.arg(2))) {
    ctx.client().set_no_evict(*v);
    ctx.rb().Ok();
  }
}

void ClientNoTouchCommand(CommandContext& ctx) {
  if (auto v = OnOff(ctx, ctx.arg(2))) {
    ctx.client().set_no_touch(*v);
    ctx.rb().Ok();
  }
}

void ClientReplyCommand(CommandContext& ctx) {
  std::string_view m = ctx.arg(2);
  if (EqualsIgnoreCase(m, "ON")) {
    ctx.client().set_reply_mode(Client::ReplyMode::kOn);
    ctx.rb().Ok();
  } else if (EqualsIgnoreCase(m, "OFF")) {
    ctx.client().set_reply_mode(Client::ReplyMode::kOff);
  } else if (EqualsIgnoreCase(m, "SKIP")) {
    if (ctx.client().reply_mode() != Client::ReplyMode::kOff) {
      ctx.client().set_reply_mode(Client::ReplyMode::kSkipNext);
    }
  } else {
    ctx.rb().Error(errors::kSyntax);
  }
}

void ClientGetRedirCommand(CommandContext& ctx) { ctx.rb().Integer(-1); }

void ClientUnblockCommand(CommandContext& ctx) {
  auto id = ParseInt64(ctx.arg(2));
  if (!id) {
    return ctx.rb().Error(errors::kNotInteger);
  }
  bool with_error = false;
  if (ctx.argc() == 4) {
    if (EqualsIgnoreCase(ctx.arg(3), "ERROR")) {
      with_error = true;
    } else if (!EqualsIgnoreCase(ctx.arg(3), "TIMEOUT")) {
      return ctx.rb().Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  }
  ctx.rb().Integer(UnblockClientById(ctx.server(), static_cast<uint64_t>(*id), with_error) ? 1 : 0);
}

void ClientHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETNAME", "    Return the name of the current connection.",
      "ID", "    Return the ID of the current connection.",
      "INFO", "    Return information about the current client connection.",
      "KILL <ip:port>", "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are: ID, TYPE, USER, ADDR, LADDR, SKIPME (yes|no), MAXAGE.",
      "LIST [TYPE <normal|master|replica|pubsub>] [ID <id> [<id> ...]]",
      "    Return information about client connections.",
      "NO-EVICT (ON|OFF)", "    Protect the current client connection from eviction.",
      "NO-TOUCH (ON|OFF)", "    Do not touch the last access time of keys read by this client.",
      "REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
      "SETNAME <name>", "    Assign the name <name> to the current connection.",
      "SETINFO <option> <value>", "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
      "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
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
  t.Add({.name = "client", .arity = -2, .acl = "@slow",
         .doc = {"connection", "2.4.0", "Depends on subcommand.", "A container for client connection commands.", ""}});
  auto sub = [&t](CommandDef d) { t.AddSub("client", std::move(d)); };
  sub({.name = "id", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientIdCommand, .doc = {"connection", "5.0.0", "O(1)", "Returns the unique id of the connection.", ""}});
  sub({.name = "setname", .arity = 3, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientSetNameCommand, .doc = {"connection", "2.6.9", "O(1)", "Names the connection.", "connection-name"}});
  sub({.name = "getname", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientGetNameCommand, .doc = {"connection", "2.6.9", "O(1)", "Returns the name of the connection.", ""}});
  sub({.name = "info", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientInfoCommand, .doc = {"connection", "6.2.0", "O(1)", "Describes this connection.", ""},
       .tips = {"nondeterministic_output"}});
  sub({.name = "list", .arity = -2, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous @connection",
       .handler = ClientListCommand,
       .doc = {"connection", "2.4.0", "O(N) where N is the number of client connections",
               "Describes every client connection.", "[client-type: TYPE <'normal' | 'master' | 'replica' | 'pubsub'>] [ID client-id:integer ...]"},
       .tips = {"nondeterministic_output"}});
  sub({.name = "kill", .arity = -3, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous @connection",
       .handler = ClientKillCommand,
       .doc = {"connection", "2.4.0", "O(N) where N is the number of client connections",
               "Closes client connections chosen by address or filters.",
               "<filter: <old-format: ip:port> | <new-format: [ID client-id:integer] | "
               "[client-type: TYPE <'normal' | 'master' | 'primary' | 'slave' | 'replica' | 'pubsub'>] | "
               "[USER username] | [ADDR addr] | [LADDR laddr] | [skipme: SKIPME <YES | NO>] | "
               "[MAXAGE maxage:integer]> ...>"}});
  sub({.name = "setinfo", .arity = 4, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientSetInfoCommand,
       .doc = {"connection", "7.2.0", "O(1)", "Records the client library name or version.", "<attr: 'lib-name' libname | 'lib-ver' libver>"},
       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
  sub({.name = "no-evict", .arity = 3, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous @connection",
       .handler = ClientNoEvictCommand,
       .doc = {"connection", "7.0.0", "O(1)", "Exempts the connection from client eviction.", "<enabled: ON | OFF>"}});
  sub({.name = "no-touch", .arity = 3, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientNoTouchCommand,
       .doc = {"connection", "7.2.0", "O(1)", "Stops this connection's reads from updating key access times.", "<enabled: ON | OFF>"}});
  sub({.name = "reply", .arity = 3, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientReplyCommand,
       .doc = {"connection", "3.2.0", "O(1)", "Turns replies to this connection on, off, or off for the next command.", "<action: ON | OFF | SKIP>"}});
  sub({.name = "getredir", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientGetRedirCommand,
       .doc = {"connection", "6.0.0", "O(1)", "Returns the client-side caching redirection id (-1: none).", ""}});
  sub({.name = "unblock", .arity = -3, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous @connection",
       .handler = ClientUnblockCommand,
       .doc = {"connection", "5.0.0", "O(log N) where N is the number of client connections",
               "Unblocks a client blocked by a blocking command, as a timeout or with an error.",
               "client-id:integer [unblock-type: TIMEOUT | ERROR]"}});
  sub({.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = ClientHelpCommand, .doc = {"connection", "5.0.0", "O(1)", "Returns helpful text about CLIENT.", ""}});
}

}  // namespace hotkv

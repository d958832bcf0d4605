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

// Client types of CLIENT LIST / CLIENT KILL TYPE, lower-cased (Redis's
// getClientTypeByName: no "primary"). HotKV has no replication links, so no connected
// client is of the replication types.
bool IsReplicationClientType(std::string_view type) {
  return type == "master" || type == "replica" || type == "slave";
}

bool IsClientTypeName(std::string_view type) {
  return type == "normal" || type == "pubsub" || IsReplicationClientType(type);
}

// Whether `c` is of `type` (a valid, lower-cased type name).
bool ClientIsOfType(const Client& c, std::string_view type) {
  if (IsReplicationClientType(type)) {
    return false;
  }
  return (type == "pubsub") == (c.subscription_count() > 0);
}

// A killed client is gone for everyone else at once, though its worker closes it a
// moment later (Redis closes it before serving any other client).
bool BeingKilled(CommandContext& ctx, const Client& c) {
  return c.kill_requested.load(std::memory_order_relaxed) && &c != &ctx.client();
}

// The caller's own line shows the moment of the command, as Redis's does: the command
// running counts in argv-mem, and the buffers are published as they are now.
class OwnInfo {
 public:
  explicit OwnInfo(CommandContext& ctx) : client_(ctx.client()) {
    size_t bytes = 0;
    for (std::string_view a : ctx.args()) {
      bytes += a.size();
    }
    client_.argv_mem.store(bytes, std::memory_order_relaxed);
    if (Connection* conn = client_.AsConnection()) {
      conn->PublishInfo();
    }
  }
  ~OwnInfo() { client_.argv_mem.store(0, std::memory_order_relaxed); }
  OwnInfo(const OwnInfo&) = delete;
  OwnInfo& operator=(const OwnInfo&) = delete;

 private:
  Client& client_;
};

void ClientInfoCommand(CommandContext& ctx) {
  OwnInfo own(ctx);
  ctx.rb().Verbatim(FormatClientInfo(ctx.client(), ctx.now_ms()) + "\n");
}

// CLIENT LIST [TYPE type] | [ID id [id ...]], as Redis 8.8 parses it: TYPE only as the
// sole option; ID takes every argument after it, any integer (ids that match no client,
// 0 or negative included, list nothing), and lists in the order given, repeats too.
void ClientListCommand(CommandContext& ctx) {
  std::string type;
  std::vector<int64_t> ids;
  bool by_id = false;
  if (ctx.argc() == 4 && EqualsIgnoreCase(ctx.arg(2), "TYPE")) {
    type = ToLower(ctx.arg(3));
    if (!IsClientTypeName(type)) {
      return ctx.rb().Error("ERR Unknown client type '" + std::string(ctx.arg(3)) + "'");
    }
  } else if (ctx.argc() > 3 && EqualsIgnoreCase(ctx.arg(2), "ID")) {
    by_id = true;
    for (size_t i = 3; i < ctx.argc(); i++) {
      auto id = ParseInt64(ctx.arg(i));
      if (!id) {
        return ctx.rb().Error("ERR Invalid client ID");
      }
      ids.push_back(*id);
    }
  } else if (ctx.argc() != 2) {
    return ctx.rb().Error(errors::kSyntax);
  }
  std::vector<int64_t> sorted_ids = ids;
  std::sort(sorted_ids.begin(), sorted_ids.end());
  OwnInfo own(ctx);
  std::vector<std::pair<uint64_t, std::string>> lines;
  ctx.server().clients().ForEach([&](Client* c) {
    if (BeingKilled(ctx, *c)) {
      return;
    }
    if (by_id && !std::binary_search(sorted_ids.begin(), sorted_ids.end(),
                                     static_cast<int64_t>(c->id()))) {
      return;
    }
    if (!type.empty() && !ClientIsOfType(*c, type)) {
      return;
    }
    lines.emplace_back(c->id(), FormatClientInfo(*c, ctx.now_ms()));
  });
  std::sort(lines.begin(), lines.end());
  std::string out;
  if (by_id) {
    for (int64_t id : ids) {
      auto it = std::lower_bound(lines.begin(), lines.end(), static_cast<uint64_t>(id),
                                 [](const auto& l, uint64_t v) { return l.first < v; });
      if (id > 0 && it != lines.end() && it->first == static_cast<uint64_t>(id)) {
        out += it->second;
        out += '\n';
      }
    }
  } else {
    for (auto& [id, l] : lines) {
      out += l;
      out += '\n';
    }
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

// CLIENT KILL's filters (Redis's clientFilter); empty strings / 0 mean "any".
struct KillFilter {
  std::optional<uint64_t> id;
  std::string type, addr, laddr, user;
  bool skipme = true;
  int64_t max_age = 0;
};

// Parses CLIENT KILL's <option> <value> pairs from argument 2 on, with Redis's errors in
// Redis's order (left to right; an option without a value is a syntax error).
bool ParseKillFilter(CommandContext& ctx, KillFilter* f) {
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    std::string_view opt = ctx.arg(i);
    if (i + 1 >= ctx.argc()) {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
    std::string_view val = ctx.arg(i + 1);
    if (EqualsIgnoreCase(opt, "ID")) {
      auto v = ParseInt64(val);
      if (!v || *v <= 0) {
        ctx.rb().Error("ERR client-id should be greater than 0");
        return false;
      }
      f->id = static_cast<uint64_t>(*v);
    } else if (EqualsIgnoreCase(opt, "TYPE")) {
      f->type = ToLower(val);
      if (!IsClientTypeName(f->type)) {
        ctx.rb().Error("ERR Unknown client type '" + std::string(val) + "'");
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "ADDR")) {
      f->addr = std::string(val);
    } else if (EqualsIgnoreCase(opt, "LADDR")) {
      f->laddr = std::string(val);
    } else if (EqualsIgnoreCase(opt, "USER")) {
      // The default user is the only ACL user here.
      if (val != "default") {
        ctx.rb().Error("ERR No such user '" + std::string(val) + "'");
        return false;
      }
      f->user = std::string(val);
    } else if (EqualsIgnoreCase(opt, "SKIPME")) {
      if (EqualsIgnoreCase(val, "yes")) {
        f->skipme = true;
      } else if (EqualsIgnoreCase(val, "no")) {
        f->skipme = false;
      } else {
        ctx.rb().Error(errors::kSyntax);
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "MAXAGE")) {
      auto v = ParseInt64(val);
      if (!v) {
        ctx.rb().Error("ERR maxage is not an integer or out of range");
        return false;
      }
      if (*v <= 0) {
        ctx.rb().Error("ERR maxage should be greater than 0");
        return false;
      }
      f->max_age = *v;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

bool KillFilterMatches(CommandContext& ctx, const KillFilter& f, const Client& c) {
  if (f.id && c.id() != *f.id) {
    return false;
  }
  if (!f.type.empty() && !ClientIsOfType(c, f.type)) {
    return false;
  }
  if (!f.addr.empty() && c.addr != f.addr) {
    return false;
  }
  if (!f.laddr.empty() && c.laddr != f.laddr) {
    return false;
  }
  // MAXAGE kills the clients at least that old, in CLIENT LIST's whole seconds.
  if (f.max_age > 0 && ctx.now_ms() / 1000 - c.created_ms() / 1000 < f.max_age) {
    return false;
  }
  if (f.skipme && &c == &ctx.client()) {
    return false;
  }
  return true;  // USER: every client is the default user's
}

void ClientKillCommand(CommandContext& ctx) {
  KillFilter f;
  const bool old_form = ctx.argc() == 3;
  if (old_form) {
    // CLIENT KILL addr:port: may be the caller itself; OK or "No such client".
    f.addr = std::string(ctx.arg(2));
    f.skipme = false;
  } else if (!ParseKillFilter(ctx, &f)) {
    return;
  }
  int64_t killed = 0;
  ctx.server().clients().ForEach([&](Client* c) {
    if (c->kill_requested.load(std::memory_order_relaxed)) {
      return;  // already being closed
    }
    if (KillFilterMatches(ctx, f, *c)) {
      KillClient(ctx, c);
      killed++;
    }
  });
  if (!old_form) {
    return ctx.rb().Integer(killed);
  }
  if (killed == 0) {
    return ctx.rb().Error("ERR No such client");
  }
  ctx.rb().Ok();
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
  // Redis 8.8's text, less the subcommands HotKV does not have (CACHING, PAUSE,
  // UNPAUSE, TRACKING, TRACKINGINFO).
  static const char* kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "    * ID <client-id>",
      "      Kill connections by client id.",
      "    * MAXAGE <maxage>",
      "      Kill connections older than the specified age.",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "SETINFO <option> <value>",
      "    Set client meta attr. Options are:",
      "    * LIB-NAME: the client lib name.",
      "    * LIB-VER: the client lib version.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "NO-TOUCH (ON|OFF)",
      "    Will not touch LRU/LFU stats when this mode is on.",
      "HELP",
      "    Print this help."};
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
       .handler = ClientSetNameCommand, .doc = {"connection", "2.6.9", "O(1)", "Names the connection.", "connection-name"},
       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}});
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
               "[client-type: TYPE <'normal' | 'master' | 'slave' | 'replica' | 'pubsub'>] | "
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

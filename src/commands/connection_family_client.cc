// CLIENT and its subcommands: ID SETNAME GETNAME INFO LIST KILL SETINFO NO-EVICT
// NO-TOUCH REPLY UNBLOCK HELP (client-side caching's: connection_family_tracking.cc).
//
// As Redis 8.8: CLIENT INFO / LIST print every field of its CLIENT LIST in its order
// (FormatClientInfo, server/client.cc); LIST takes TYPE alone or ID with any integers;
// KILL's old form (an address) replies OK or "No such client" and may close the caller,
// the filter form replies a count, skips the caller by default and checks its arguments
// left to right with Redis's errors.
#include <algorithm>
#include <optional>
#include <vector>

#include "commands/connection_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/blocking.h"
#include "server/connection.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv {

namespace {

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
  // Redis 8.8's text.
  static const char* kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
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
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
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
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
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

void RegisterClientCommands(CommandTable& t) {
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
  RegisterClientTrackingCommands(t);  // TRACKING CACHING TRACKINGINFO GETREDIR
  sub({.name = "unblock", .arity = -3, .flags = "admin noscript loading stale", .acl = "@admin @slow @dangerous @connection",
       .handler = ClientUnblockCommand,
       .doc = {"connection", "5.0.0", "O(log N) where N is the number of client connections",
               "Unblocks a client blocked by a blocking command, as a timeout or with an error.",
               "client-id:integer [unblock-type: TIMEOUT | ERROR]"}});
  sub({.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = ClientHelpCommand, .doc = {"connection", "5.0.0", "O(1)", "Returns helpful text about CLIENT.", ""}});
}

}  // namespace hotkv

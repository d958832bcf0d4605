// CLIENT TRACKING, CACHING, TRACKINGINFO and GETREDIR: client-side caching's commands
// (the machinery is server/tracking.h).
//
// As Redis 8.8: TRACKING parses every option first (syntax errors, the REDIRECT id
// checked for existence as soon as it is read, a second REDIRECT refused), then ON checks
// PREFIX without BCAST, a BCAST switch, OPTIN/OPTOUT with BCAST, both OPTIN and OPTOUT,
// an OPTIN/OPTOUT switch and prefix overlaps, in that order, with Redis's texts; OFF
// ignores the options. Re-enabling keeps CLIENT CACHING's pending flag and adds BCAST
// prefixes to those the client has. CACHING YES/NO sets the flag for the next command
// (or transaction); TRACKINGINFO is a map (flags as a set) in RESP3.
#include <algorithm>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"
#include "server/tracking.h"

namespace hotkv {

namespace {

// One prefix is a prefix of the other (Redis's stringCheckPrefix).
bool Overlaps(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

void ClientTrackingCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  uint64_t redirect = 0;
  uint32_t options = 0;
  std::vector<std::string> prefixes;
  for (size_t j = 3; j < ctx.argc(); j++) {
    const std::string_view a = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (EqualsIgnoreCase(a, "redirect") && more) {
      j++;
      if (redirect != 0) {
        return ctx.rb().Error("ERR A client can only redirect to a single other client");
      }
      auto id = ParseInt64(ctx.arg(j));
      if (!id) {
        return ctx.rb().Error(errors::kNotInteger);
      }
      if (*id <= 0 || ctx.server().clients().WorkerOf(static_cast<uint64_t>(*id)) < 0) {
        return ctx.rb().Error("ERR The client ID you want redirect to does not exist");
      }
      redirect = static_cast<uint64_t>(*id);
    } else if (EqualsIgnoreCase(a, "bcast")) {
      options |= kTrackBcast;
    } else if (EqualsIgnoreCase(a, "optin")) {
      options |= kTrackOptin;
    } else if (EqualsIgnoreCase(a, "optout")) {
      options |= kTrackOptout;
    } else if (EqualsIgnoreCase(a, "noloop")) {
      options |= kTrackNoloop;
    } else if (EqualsIgnoreCase(a, "prefix") && more) {
      j++;
      prefixes.emplace_back(ctx.arg(j));
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  const std::string_view mode = ctx.arg(2);
  if (EqualsIgnoreCase(mode, "off")) {
    TrackingDisable(c);
    return ctx.rb().Ok();
  }
  if (!EqualsIgnoreCase(mode, "on")) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const uint32_t f = c.tracking_flags();
  if (!(options & kTrackBcast) && !prefixes.empty()) {
    return ctx.rb().Error("ERR PREFIX option requires BCAST mode to be enabled");
  }
  if ((f & kTrackOn) && ((f & kTrackBcast) != 0) != ((options & kTrackBcast) != 0)) {
    return ctx.rb().Error(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
        "and then re-enabling it with a different mode.");
  }
  if ((options & kTrackBcast) && (options & (kTrackOptin | kTrackOptout))) {
    return ctx.rb().Error("ERR OPTIN and OPTOUT are not compatible with BCAST");
  }
  if ((options & kTrackOptin) && (options & kTrackOptout)) {
    return ctx.rb().Error("ERR You can't specify both OPTIN mode and OPTOUT mode");
  }
  if (((options & kTrackOptin) && (f & kTrackOptout)) ||
      ((options & kTrackOptout) && (f & kTrackOptin))) {
    return ctx.rb().Error(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
        "and then re-enabling it with a different mode.");
  }
  if (options & kTrackBcast) {
    const std::vector<std::string>& mine = TrackingPrefixes(c);
    for (size_t i = 0; i < prefixes.size(); i++) {
      for (const std::string& have : mine) {
        if (Overlaps(have, prefixes[i])) {
          return ctx.rb().Error("ERR Prefix '" + prefixes[i] +
                                "' overlaps with an existing prefix '" + have +
                                "'. Prefixes for a single client must not overlap.");
        }
      }
      for (size_t k = i + 1; k < prefixes.size(); k++) {
        if (Overlaps(prefixes[i], prefixes[k])) {
          return ctx.rb().Error("ERR Prefix '" + prefixes[i] +
                                "' overlaps with another provided prefix '" + prefixes[k] +
                                "'. Prefixes for a single client must not overlap.");
        }
      }
    }
  }
  TrackingEnable(c, redirect, options, prefixes);
  ctx.rb().Ok();
}

void ClientCachingCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  const uint32_t f = c.tracking_flags();
  if (!(f & kTrackOn)) {
    return ctx.rb().Error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
        "or OPTOUT mode enabled");
  }
  const std::string_view opt = ctx.arg(2);
  if (EqualsIgnoreCase(opt, "yes")) {
    if (!(f & kTrackOptin)) {
      return ctx.rb().Error(
          "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
    }
  } else if (EqualsIgnoreCase(opt, "no")) {
    if (!(f & kTrackOptout)) {
      return ctx.rb().Error(
          "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
    }
  } else {
    return ctx.rb().Error(errors::kSyntax);
  }
  c.set_tracking_flags(f | kTrackCaching);
  ctx.rb().Ok();
}

void ClientTrackingInfoCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  const uint32_t f = c.tracking_flags();
  std::vector<const char*> flags;
  flags.push_back((f & kTrackOn) ? "on" : "off");
  if (f & kTrackBcast) {
    flags.push_back("bcast");
  }
  if (f & kTrackOptin) {
    flags.push_back("optin");
    if (f & kTrackCaching) {
      flags.push_back("caching-yes");
    }
  }
  if (f & kTrackOptout) {
    flags.push_back("optout");
    if (f & kTrackCaching) {
      flags.push_back("caching-no");
    }
  }
  if (f & kTrackNoloop) {
    flags.push_back("noloop");
  }
  if (f & kTrackBrokenRedir) {
    flags.push_back("broken_redirect");
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Map(3);
  rb.Bulk("flags");
  rb.Set(flags.size());
  for (const char* s : flags) {
    rb.Bulk(s);
  }
  rb.Bulk("redirect");
  rb.Integer((f & kTrackOn) ? static_cast<int64_t>(c.tracking_redirect.load()) : -1);
  rb.Bulk("prefixes");
  const std::vector<std::string>& prefixes = TrackingPrefixes(c);
  rb.Array(prefixes.size());
  for (const std::string& p : prefixes) {
    rb.Bulk(p);
  }
}

void ClientGetRedirCommand(CommandContext& ctx) {
  Client& c = ctx.client();
  ctx.rb().Integer((c.tracking_flags() & kTrackOn)
                       ? static_cast<int64_t>(c.tracking_redirect.load())
                       : -1);
}

}  // namespace

void RegisterClientTrackingCommands(CommandTable& t) {
  auto sub = [&t](CommandDef d) { t.AddSub("client", std::move(d)); };
  sub({.name = "tracking", .arity = -3, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientTrackingCommand,
       .doc = {"connection", "6.0.0", "O(1). Some options may introduce additional complexity.",
               "Turns client-side caching invalidations on or off for this connection.",
               "<status: ON | OFF> [REDIRECT client-id:integer] "
               "[PREFIX prefix:string [PREFIX prefix:string ...]] [BCAST: BCAST] "
               "[OPTIN: OPTIN] [OPTOUT: OPTOUT] [NOLOOP: NOLOOP]"}});
  sub({.name = "caching", .arity = 3, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientCachingCommand,
       .doc = {"connection", "6.0.0", "O(1)",
               "Says whether the next command's keys are tracked (OPTIN / OPTOUT modes).",
               "<mode: YES | NO>"}});
  sub({.name = "trackinginfo", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientTrackingInfoCommand,
       .doc = {"connection", "6.2.0", "O(1)",
               "Describes this connection's client-side caching state.", ""}});
  sub({.name = "getredir", .arity = 2, .flags = "noscript loading stale", .acl = "@slow @connection",
       .handler = ClientGetRedirCommand,
       .doc = {"connection", "6.0.0", "O(1)",
               "Returns the client id invalidations are redirected to (0: none, -1: tracking off).",
               ""}});
}

}  // namespace hotkv

// Pub/Sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE
// PUBLISH SPUBLISH PUBSUB (CHANNELS NUMSUB NUMPAT SHARDCHANNELS SHARDNUMSUB HELP).
//
// Edge cases honoured (as Redis): UNSUBSCRIBE without arguments confirms every channel
// (or once with a null channel and count 0 when there was none); the count in
// (P)SUBSCRIBE confirmations is channels + patterns, in SSUBSCRIBE it is shard channels;
// RESP3 confirmations and messages are push frames, so a RESP3 subscriber may run any
// command, while RESP2 subscribers are limited to the subscribe family, PING, QUIT, RESET.
#include <algorithm>

#include "commands/helpers.h"
#include "commands/register.h"
#include "pubsub/messages.h"
#include "pubsub/subscriptions.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv {

namespace {

SubscriptionState& Subs(CommandContext& ctx) {
  auto& slot = ctx.client().subscriptions_slot();
  if (!slot) {
    slot = std::make_unique<SubscriptionState>();
  }
  return *slot;
}

void SyncCounts(Client& c) {
  SubscriptionState* st = c.subscriptions();
  size_t ch = st ? st->channels.size() : 0;
  size_t pat = st ? st->patterns.size() : 0;
  size_t sh = st ? st->shard_channels.size() : 0;
  c.sub_channels = ch;
  c.sub_patterns = pat;
  c.sub_shard = sh;
  c.set_subscription_count(ch + pat + sh);
}

Subscriber Me(CommandContext& ctx) { return {ctx.client().id(), ctx.worker().index()}; }

// Where a confirmation goes: inline as the command's reply, or, when CLIENT REPLY
// OFF/SKIP silences the replies, to the pushes that are sent anyway (Redis >= 7.2).
ReplyBuilder& ConfirmationOut(CommandContext& ctx) {
  ReplyBuilder* silenced = ctx.client().silenced_pushes();
  if (silenced == nullptr) {
    return ctx.rb();
  }
  silenced->set_resp3(ctx.rb().resp3());
  return *silenced;
}

void SubscribeGeneric(CommandContext& ctx, PubsubRegistry::Space space) {
  SubscriptionState& st = Subs(ctx);
  auto& set = space == PubsubRegistry::kShard ? st.shard_channels : st.channels;
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string ch(ctx.arg(i));
    if (set.insert(ch).second) {
      ctx.server().pubsub().Subscribe(space, ch, Me(ctx));
    }
    int64_t count = space == PubsubRegistry::kShard
                        ? static_cast<int64_t>(st.shard_channels.size())
                        : static_cast<int64_t>(st.channels.size() + st.patterns.size());
    WriteSubscriptionReply(ConfirmationOut(ctx),
                           space == PubsubRegistry::kShard ? "ssubscribe" : "subscribe", &ch,
                           count);
  }
  SyncCounts(ctx.client());
}

void UnsubscribeGeneric(CommandContext& ctx, PubsubRegistry::Space space) {
  SubscriptionState& st = Subs(ctx);
  auto& set = space == PubsubRegistry::kShard ? st.shard_channels : st.channels;
  const char* kind = space == PubsubRegistry::kShard ? "sunsubscribe" : "unsubscribe";
  auto count = [&] {
    return space == PubsubRegistry::kShard
               ? static_cast<int64_t>(st.shard_channels.size())
               : static_cast<int64_t>(st.channels.size() + st.patterns.size());
  };
  std::vector<std::string> targets;
  if (ctx.argc() == 1) {
    targets.assign(set.begin(), set.end());
    if (targets.empty()) {
      WriteSubscriptionReply(ConfirmationOut(ctx), kind, nullptr, count());
    }
  } else {
    for (size_t i = 1; i < ctx.argc(); i++) {
      targets.emplace_back(ctx.arg(i));
    }
  }
  for (const std::string& ch : targets) {
    if (set.erase(ch) > 0) {
      ctx.server().pubsub().Unsubscribe(space, ch, ctx.client().id());
    }
    WriteSubscriptionReply(ConfirmationOut(ctx), kind, &ch, count());
  }
  SyncCounts(ctx.client());
}

void SubscribeCommand(CommandContext& ctx) { SubscribeGeneric(ctx, PubsubRegistry::kChannel); }
void UnsubscribeCommand(CommandContext& ctx) { UnsubscribeGeneric(ctx, PubsubRegistry::kChannel); }
void SSubscribeCommand(CommandContext& ctx) {
  if (ctx.in_exec()) {
    // Redis runs EXEC's commands as a client that may not block, and SSUBSCRIBE refuses it.
    return ctx.rb().Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
  }
  SubscribeGeneric(ctx, PubsubRegistry::kShard);
}
void SUnsubscribeCommand(CommandContext& ctx) { UnsubscribeGeneric(ctx, PubsubRegistry::kShard); }

void PSubscribeCommand(CommandContext& ctx) {
  SubscriptionState& st = Subs(ctx);
  for (size_t i = 1; i < ctx.argc(); i++) {
    std::string p(ctx.arg(i));
    if (st.patterns.insert(p).second) {
      ctx.server().pubsub().PSubscribe(p, Me(ctx));
    }
    WriteSubscriptionReply(ConfirmationOut(ctx), "psubscribe", &p,
                           static_cast<int64_t>(st.channels.size() + st.patterns.size()));
  }
  SyncCounts(ctx.client());
}

void PUnsubscribeCommand(CommandContext& ctx) {
  SubscriptionState& st = Subs(ctx);
  std::vector<std::string> targets;
  auto count = [&] { return static_cast<int64_t>(st.channels.size() + st.patterns.size()); };
  if (ctx.argc() == 1) {
    targets.assign(st.patterns.begin(), st.patterns.end());
    if (targets.empty()) {
      WriteSubscriptionReply(ConfirmationOut(ctx), "punsubscribe", nullptr, count());
    }
  } else {
    for (size_t i = 1; i < ctx.argc(); i++) {
      targets.emplace_back(ctx.arg(i));
    }
  }
  for (const std::string& p : targets) {
    if (st.patterns.erase(p) > 0) {
      ctx.server().pubsub().PUnsubscribe(p, ctx.client().id());
    }
    WriteSubscriptionReply(ConfirmationOut(ctx), "punsubscribe", &p, count());
  }
  SyncCounts(ctx.client());
}

void PublishCommand(CommandContext& ctx) {
  ctx.rb().Integer(Publish(ctx.server(), PubsubRegistry::kChannel, ctx.arg(1), ctx.arg(2)));
  PropagateClusterPublish(false, ctx.arg(1), ctx.arg(2));
}

void SPublishCommand(CommandContext& ctx) {
  ctx.rb().Integer(Publish(ctx.server(), PubsubRegistry::kShard, ctx.arg(1), ctx.arg(2)));
  PropagateClusterPublish(true, ctx.arg(1), ctx.arg(2));
}

void ChannelsGeneric(CommandContext& ctx, PubsubRegistry::Space space) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error("ERR unknown subcommand or wrong number of arguments for '" +
                          ToUpper(ctx.command()->name) + "'. Try PUBSUB HELP.");
  }
  auto list = ctx.server().pubsub().Channels(space, ctx.argc() == 3 ? ctx.arg(2) : "*",
                                             ctx.argc() < 3);
  ctx.rb().Array(list.size());
  for (const auto& c : list) {
    ctx.rb().Bulk(c);
  }
}

void NumSubGeneric(CommandContext& ctx, PubsubRegistry::Space space) {
  ctx.rb().Array((ctx.argc() - 2) * 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    ctx.rb().Bulk(ctx.arg(i));
    ctx.rb().Integer(ctx.server().pubsub().NumSub(space, ctx.arg(i)));
  }
}

void PubsubChannelsCommand(CommandContext& ctx) { ChannelsGeneric(ctx, PubsubRegistry::kChannel); }
void PubsubShardChannelsCommand(CommandContext& ctx) { ChannelsGeneric(ctx, PubsubRegistry::kShard); }
void PubsubNumSubCommand(CommandContext& ctx) { NumSubGeneric(ctx, PubsubRegistry::kChannel); }
void PubsubShardNumSubCommand(CommandContext& ctx) { NumSubGeneric(ctx, PubsubRegistry::kShard); }
void PubsubNumPatCommand(CommandContext& ctx) { ctx.rb().Integer(ctx.server().pubsub().NumPat()); }

void PubsubHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]", "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT", "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]", "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]", "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]", "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

}  // namespace

void RegisterPubsubCommands(CommandTable& t) {
  const char* kSubFlags = "pubsub noscript loading stale subscribed_ok";
  // Redis 8 refuses new subscriptions when out of memory.
  const char* kSubscribeFlags = "denyoom pubsub noscript loading stale subscribed_ok";
  t.Add({.name = "subscribe", .arity = -2, .flags = kSubscribeFlags, .acl = "@pubsub @slow",
         .handler = SubscribeCommand,
         .doc = {"pubsub", "2.0.0", "O(N) where N is the number of channels to subscribe to.",
                 "Listens for messages published to channels.", "channel [channel ...]"}});
  t.Add({.name = "unsubscribe", .arity = -1, .flags = kSubFlags, .acl = "@pubsub @slow",
         .handler = UnsubscribeCommand,
         .doc = {"pubsub", "2.0.0", "O(N) where N is the number of channels to unsubscribe.",
                 "Stops listening to channels (all of them without arguments).", "[channel [channel ...]]"}});
  t.Add({.name = "psubscribe", .arity = -2, .flags = kSubscribeFlags, .acl = "@pubsub @slow",
         .handler = PSubscribeCommand,
         .doc = {"pubsub", "2.0.0", "O(N) where N is the number of patterns to subscribe to.",
                 "Listens for messages published to channels that match glob patterns.", "pattern [pattern ...]"}});
  t.Add({.name = "punsubscribe", .arity = -1, .flags = kSubFlags, .acl = "@pubsub @slow",
         .handler = PUnsubscribeCommand,
         .doc = {"pubsub", "2.0.0", "O(N) where N is the number of patterns to unsubscribe.",
                 "Stops listening to patterns (all of them without arguments).", "[pattern [pattern ...]]"}});
  t.Add({.name = "ssubscribe", .arity = -2, .flags = kSubscribeFlags, .acl = "@pubsub @slow",
         .keys = {KeyRange(1, -1, 1, "NOT_KEY")}, .handler = SSubscribeCommand,
         .doc = {"pubsub", "7.0.0", "O(N) where N is the number of shard channels to subscribe to.",
                 "Listens for messages published to shard channels.", "shardchannel [shardchannel ...]"}});
  t.Add({.name = "sunsubscribe", .arity = -1, .flags = kSubFlags, .acl = "@pubsub @slow",
         .keys = {KeyRange(1, -1, 1, "NOT_KEY")}, .handler = SUnsubscribeCommand,
         .doc = {"pubsub", "7.0.0", "O(N) where N is the number of shard channels to unsubscribe.",
                 "Stops listening to shard channels (all of them without arguments).",
                 "[shardchannel [shardchannel ...]]"}});
  t.Add({.name = "publish", .arity = 3, .flags = "pubsub loading stale fast may_replicate",
         .acl = "@pubsub @fast", .handler = PublishCommand,
         .doc = {"pubsub", "2.0.0", "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
                 "Posts a message to a channel; returns how many subscribers received it.", "channel message"}});
  t.Add({.name = "spublish", .arity = 3, .flags = "pubsub loading stale fast may_replicate",
         .acl = "@pubsub @fast", .keys = {KeyAt(1, "NOT_KEY")}, .handler = SPublishCommand,
         .doc = {"pubsub", "7.0.0", "O(N) where N is the number of clients subscribed to the receiving shard channel.",
                 "Posts a message to a shard channel.", "shardchannel message"}});
  t.Add({.name = "pubsub", .arity = -2, .acl = "@slow",
         .doc = {"pubsub", "2.8.0", "Depends on subcommand.", "A container for pub/sub introspection commands.", ""}});
  auto sub = [&t](CommandDef d) { t.AddSub("pubsub", std::move(d)); };
  sub({.name = "channels", .arity = -2, .flags = "pubsub loading stale", .acl = "@pubsub @slow",
       .handler = PubsubChannelsCommand,
       .doc = {"pubsub", "2.8.0", "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
               "Returns the channels with subscribers, optionally matching a pattern.", "[pattern]"}});
  sub({.name = "numsub", .arity = -2, .flags = "pubsub loading stale", .acl = "@pubsub @slow",
       .handler = PubsubNumSubCommand,
       .doc = {"pubsub", "2.8.0", "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
               "Returns the subscriber counts of channels.", "[channel [channel ...]]"}});
  sub({.name = "numpat", .arity = 2, .flags = "pubsub loading stale", .acl = "@pubsub @slow",
       .handler = PubsubNumPatCommand,
       .doc = {"pubsub", "2.8.0", "O(1)", "Returns the number of subscribed patterns.", ""}});
  sub({.name = "shardchannels", .arity = -2, .flags = "pubsub loading stale", .acl = "@pubsub @slow",
       .handler = PubsubShardChannelsCommand,
       .doc = {"pubsub", "7.0.0", "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
               "Returns the shard channels with subscribers, optionally matching a pattern.", "[pattern]"}});
  sub({.name = "shardnumsub", .arity = -2, .flags = "pubsub loading stale", .acl = "@pubsub @slow",
       .handler = PubsubShardNumSubCommand,
       .doc = {"pubsub", "7.0.0", "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
               "Returns the subscriber counts of shard channels.", "[shardchannel [shardchannel ...]]"}});
  sub({.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow",
       .handler = PubsubHelpCommand, .doc = {"pubsub", "6.2.0", "O(1)", "Returns helpful text about PUBSUB.", ""}});
}

}  // namespace hotkv

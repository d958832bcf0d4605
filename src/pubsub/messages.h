// RESP encodings of pub/sub messages and (un)subscribe confirmations: arrays in RESP2,
// push frames (">") in RESP3.
#pragma once

#include <string_view>

#include "protocol/reply_builder.h"
#include "pubsub/registry.h"

namespace hotkv {

// ["message", channel, payload] / ["pmessage", pattern, channel, payload] /
// ["smessage", channel, payload]
void WriteDelivery(ReplyBuilder& rb, const PubsubDelivery& d);

// ["subscribe", channel, count] and friends; a null channel when `channel` is null.
void WriteSubscriptionReply(ReplyBuilder& rb, std::string_view kind, const std::string* channel,
                            int64_t count);

}  // namespace hotkv

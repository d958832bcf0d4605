#include "pubsub/messages.h"

namespace hotkv {

void WriteDelivery(ReplyBuilder& rb, const PubsubDelivery& d) {
  switch (d.kind) {
    case PubsubDelivery::kMessage:
      rb.Push(3);
      rb.Bulk("message");
      rb.Bulk(d.channel);
      break;
    case PubsubDelivery::kSMessage:
      rb.Push(3);
      rb.Bulk("smessage");
      rb.Bulk(d.channel);
      break;
    case PubsubDelivery::kPMessage:
      rb.Push(4);
      rb.Bulk("pmessage");
      rb.Bulk(d.pattern);
      rb.Bulk(d.channel);
      break;
  }
  rb.Bulk(*d.payload);
}

void WriteSubscriptionReply(ReplyBuilder& rb, std::string_view kind, const std::string* channel,
                            int64_t count) {
  rb.Push(3);
  rb.Bulk(kind);
  if (channel != nullptr) {
    rb.Bulk(*channel);
  } else {
    rb.Null();
  }
  rb.Integer(count);
}

}  // namespace hotkv

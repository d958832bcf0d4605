// PubsubRegistry: who is subscribed to which channel, pattern or shard channel, across
// all workers, and the fan-out of a published message.
//
//   registry.Subscribe("news", {client_id, worker});
//   int64_t n = registry.Publish(PubsubRegistry::kChannel, "news", "hello", post);
//
// Publish() groups the receivers by worker and calls post(worker, delivery) once per
// worker with every client id of that worker, so a message to 100 subscribers spread
// over 4 workers costs 4 mailbox posts. Messages from one publisher to one subscriber
// keep their order: the publisher runs on one thread and each worker's mailbox is FIFO.
//
// Thread safety: all methods are thread-safe (one shared mutex: publishers share it,
// (un)subscribers take it exclusively).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hotkv {

struct Subscriber {
  uint64_t client_id;
  int worker;
};

// One message for some clients of one worker.
struct PubsubDelivery {
  enum Kind { kMessage, kPMessage, kSMessage } kind = kMessage;
  std::string channel;
  std::string pattern;  // kPMessage: the pattern that matched
  std::shared_ptr<const std::string> payload;
  std::vector<uint64_t> client_ids;
};

class PubsubRegistry {
 public:
  enum Space { kChannel = 0, kShard = 1 };

  // Returns false when the client was already subscribed.
  bool Subscribe(Space space, const std::string& channel, Subscriber s);
  bool Unsubscribe(Space space, const std::string& channel, uint64_t client_id);
  bool PSubscribe(const std::string& pattern, Subscriber s);
  bool PUnsubscribe(const std::string& pattern, uint64_t client_id);

  using PostFn = std::function<void(int worker, std::shared_ptr<PubsubDelivery>)>;
  // Delivers `message` to the subscribers of `channel` (and, for kChannel, of every
  // matching pattern). Returns the number of receivers, as PUBLISH replies.
  int64_t Publish(Space space, std::string_view channel, std::string_view message,
                  const PostFn& post);

  // Cheap check used before building keyspace notifications.
  bool HasSubscribers() const;

  // PUBSUB introspection.
  std::vector<std::string> Channels(Space space, std::string_view pattern, bool all);
  int64_t NumSub(Space space, std::string_view channel);
  int64_t NumPat();
  size_t ChannelCount(Space space);

 private:
  using Map = std::unordered_map<std::string, std::vector<Subscriber>>;
  mutable std::shared_mutex mu_;
  Map channels_[2];
  // pattern -> subscribers (few patterns is the common case; Publish scans them all)
  std::vector<std::pair<std::string, std::vector<Subscriber>>> patterns_;
  size_t pattern_subs_ = 0;
};

}  // namespace hotkv

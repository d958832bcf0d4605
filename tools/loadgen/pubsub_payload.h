// The pub/sub latency payload: who sent a message, in which order, and when it was
// meant to be sent.
//
// Text, so it reads well in redis-cli: "<intended_ns>:<publisher>:<seq>:" followed by
// '.' padding up to the payload size. intended_ns is the CLOCK_MONOTONIC time the
// message was scheduled for (the same process reads it back, so one clock), publisher
// the publisher's index and seq its per-(publisher, channel) sequence number from 0.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hotkv::loadgen {

struct PayloadStamp {
  uint64_t intended_ns = 0;
  uint32_t publisher = 0;
  uint64_t seq = 0;
};

// The longest stamp (all fields at their maximum width); payloads must be at least this.
inline constexpr size_t kMaxStampSize = 20 + 1 + 10 + 1 + 20 + 1;

// Where publisher `publisher` (of `publishers`) sends its k-th message among `channels`
// channels: channel (publisher + k * publishers) % channels, which gives every channel
// the same publish rate; and that message's sequence number on its channel, counting
// from 0 per (publisher, channel) without any state.
struct PublishTarget {
  uint64_t channel = 0;
  uint64_t seq = 0;
};
PublishTarget TargetOf(uint64_t publisher, uint64_t k, uint64_t publishers, uint64_t channels);

// Appends the payload (stamp + padding, `size` bytes, or the stamp alone if longer).
void AppendPayload(const PayloadStamp& stamp, size_t size, std::string& out);
// Reads a stamp back; nullopt if `payload` does not start with one.
std::optional<PayloadStamp> ParsePayload(std::string_view payload);

}  // namespace hotkv::loadgen

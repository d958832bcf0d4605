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

// Appends the payload (stamp + padding, `size` bytes, or the stamp alone if longer).
void AppendPayload(const PayloadStamp& stamp, size_t size, std::string& out);
// Reads a stamp back; nullopt if `payload` does not start with one.
std::optional<PayloadStamp> ParsePayload(std::string_view payload);

}  // namespace hotkv::loadgen

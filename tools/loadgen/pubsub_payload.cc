#include "pubsub_payload.h"

#include <charconv>
#include <numeric>

namespace hotkv::loadgen {
namespace {

template <typename T>
bool ReadField(const char*& p, const char* end, T& value) {
  auto [ptr, ec] = std::from_chars(p, end, value);
  if (ec != std::errc() || ptr == end || *ptr != ':') {
    return false;
  }
  p = ptr + 1;
  return true;
}

// Appends "<value>:".
void AppendField(uint64_t value, std::string& out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, end);
  out.push_back(':');
}

}  // namespace

PublishTarget TargetOf(uint64_t publisher, uint64_t k, uint64_t publishers, uint64_t channels) {
  // The channel sequence repeats every channels / gcd(publishers, channels) messages and
  // visits distinct channels within a period, so the k-th message is the
  // (k / period)-th on its channel.
  uint64_t period = channels / std::gcd(publishers, channels);
  return {(publisher + k * publishers) % channels, k / period};
}

void AppendPayload(const PayloadStamp& stamp, size_t size, std::string& out) {
  size_t begin = out.size();
  AppendField(stamp.intended_ns, out);
  AppendField(stamp.publisher, out);
  AppendField(stamp.seq, out);
  size_t len = out.size() - begin;
  if (size > len) {
    out.append(size - len, '.');
  }
}

std::optional<PayloadStamp> ParsePayload(std::string_view payload) {
  PayloadStamp stamp;
  const char* p = payload.data();
  const char* end = p + payload.size();
  if (!ReadField(p, end, stamp.intended_ns) || !ReadField(p, end, stamp.publisher) ||
      !ReadField(p, end, stamp.seq)) {
    return std::nullopt;
  }
  return stamp;
}

}  // namespace hotkv::loadgen

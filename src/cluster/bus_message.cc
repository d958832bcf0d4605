#include "cluster/bus_message.h"

#include <cstring>

namespace hotkv::cluster::bus {
namespace {

// Header field offsets (docs/cluster.md, "Bus header").
constexpr size_t kOffTotlen = 4;
constexpr size_t kOffVer = 8;
constexpr size_t kOffPort = 10;
constexpr size_t kOffType = 12;
constexpr size_t kOffCount = 14;
constexpr size_t kOffCurrentEpoch = 16;
constexpr size_t kOffConfigEpoch = 24;
constexpr size_t kOffOffset = 32;
constexpr size_t kOffSender = 40;
constexpr size_t kOffMySlots = 80;
constexpr size_t kOffSlaveOf = 2128;
constexpr size_t kOffMyIp = 2168;
constexpr size_t kOffExtensions = 2214;
constexpr size_t kOffPPort = 2246;
constexpr size_t kOffCPort = 2248;
constexpr size_t kOffFlags = 2250;
constexpr size_t kOffState = 2252;
constexpr size_t kOffMFlags = 2253;
static_assert(kOffMFlags + 3 == kHeaderSize);

// Gossip section offsets.
constexpr size_t kGName = 0;
constexpr size_t kGPingSent = 40;
constexpr size_t kGPongReceived = 44;
constexpr size_t kGIp = 48;
constexpr size_t kGPort = 94;
constexpr size_t kGCPort = 96;
constexpr size_t kGFlags = 98;
constexpr size_t kGPPort = 100;
static_assert(kGPPort + 4 == kGossipSize);

void Put16(char* p, uint16_t v) {
  p[0] = static_cast<char>(v >> 8);
  p[1] = static_cast<char>(v);
}
void Put32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (24 - 8 * i));
}
void Put64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (56 - 8 * i));
}
uint16_t Get16(const char* p) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>((u[0] << 8) | u[1]);
}
uint32_t Get32(const char* p) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}
uint64_t Get64(const char* p) {
  return (uint64_t{Get32(p)} << 32) | Get32(p + 4);
}
// Copies at most `n` bytes of `s` into a zeroed field of `n` bytes.
void PutField(char* p, std::string_view s, size_t n) {
  std::memcpy(p, s.data(), s.size() < n ? s.size() : n);
}
bool AllZero(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

size_t Align8(size_t n) { return (n + 7) / 8 * 8; }

size_t ExtDataSize(const PingExt& e) {
  switch (e.type) {
    case kExtHostname:
    case kExtHumanNodename:
      return Align8(e.text.size() + 1);  // NUL-terminated, padded
    case kExtForgottenNode:
      return kNameLen + 8;
    case kExtShardId:
      return kNameLen;
    default:
      return Align8(e.text.size());
  }
}

bool Fail(std::string* error, const char* why) {
  if (error) *error = why;
  return false;
}

bool IsPingType(uint16_t t) { return t == kPing || t == kPong || t == kMeet; }

}  // namespace

const char* MsgTypeName(uint16_t type) {
  static const char* const kNames[kNumMsgTypes] = {
      "ping", "pong", "meet", "fail", "publish", "auth-req", "auth-ack",
      "update", "mfstart", "module", "publishshard"};
  return type < kNumMsgTypes ? kNames[type] : "unknown";
}

std::string_view CString(const char* p, size_t max) {
  const void* z = std::memchr(p, 0, max);
  return std::string_view(p, z ? static_cast<const char*>(z) - p : max);
}

void Encode(const Message& m, std::string* out) {
  const Header& h = m.hdr;
  size_t body = 0;
  bool ping = IsPingType(h.type);
  if (ping) {
    body = m.gossip.size() * kGossipSize;
    for (const PingExt& e : m.exts) body += kExtHeadSize + ExtDataSize(e);
  } else if (h.type == kFail) {
    body = kNameLen;
  } else if (h.type == kPublish || h.type == kPublishShard) {
    body = 8 + m.channel.size() + m.payload.size();
  } else if (h.type == kUpdate) {
    body = kUpdateBodySize;
  } else if (h.type == kModule) {
    body = 13 + m.payload.size();
  } else if (h.type >= kNumMsgTypes) {
    body = m.payload.size();
  }
  size_t start = out->size();
  out->resize(start + kHeaderSize + body, '\0');
  char* p = out->data() + start;
  std::memcpy(p, "RCmb", 4);
  Put32(p + kOffTotlen, static_cast<uint32_t>(kHeaderSize + body));
  Put16(p + kOffVer, h.ver);
  Put16(p + kOffPort, h.port);
  Put16(p + kOffType, h.type);
  Put16(p + kOffCount, ping ? static_cast<uint16_t>(m.gossip.size()) : h.count);
  Put64(p + kOffCurrentEpoch, h.current_epoch);
  Put64(p + kOffConfigEpoch, h.config_epoch);
  Put64(p + kOffOffset, h.offset);
  PutField(p + kOffSender, h.sender, kNameLen);
  std::memcpy(p + kOffMySlots, h.myslots.data(), kSlotBytes);
  PutField(p + kOffSlaveOf, h.slaveof, kNameLen);
  PutField(p + kOffMyIp, h.myip, kIpLen - 1);
  Put16(p + kOffExtensions, ping ? static_cast<uint16_t>(m.exts.size()) : 0);
  Put16(p + kOffPPort, h.pport);
  Put16(p + kOffCPort, h.cport);
  Put16(p + kOffFlags, h.flags);
  p[kOffState] = static_cast<char>(h.state);
  uint8_t mf0 = h.mflags[0];
  if (ping && !m.exts.empty()) mf0 |= kFlag0ExtData;
  p[kOffMFlags] = static_cast<char>(mf0);
  p[kOffMFlags + 1] = static_cast<char>(h.mflags[1]);
  p[kOffMFlags + 2] = static_cast<char>(h.mflags[2]);

  char* b = p + kHeaderSize;
  if (ping) {
    for (const Gossip& g : m.gossip) {
      PutField(b + kGName, g.name, kNameLen);
      Put32(b + kGPingSent, g.ping_sent);
      Put32(b + kGPongReceived, g.pong_received);
      PutField(b + kGIp, g.ip, kIpLen - 1);
      Put16(b + kGPort, g.port);
      Put16(b + kGCPort, g.cport);
      Put16(b + kGFlags, g.flags);
      Put16(b + kGPPort, g.pport);
      b += kGossipSize;
    }
    for (const PingExt& e : m.exts) {
      size_t data = ExtDataSize(e);
      Put32(b, static_cast<uint32_t>(kExtHeadSize + data));
      Put16(b + 4, e.type);
      char* d = b + kExtHeadSize;
      if (e.type == kExtShardId) {
        PutField(d, e.text, kNameLen);
      } else if (e.type == kExtForgottenNode) {
        PutField(d, e.text, kNameLen);
        Put64(d + kNameLen, e.ttl);
      } else {
        std::memcpy(d, e.text.data(), e.text.size());
      }
      b += kExtHeadSize + data;
    }
  } else if (h.type == kFail) {
    PutField(b, m.node, kNameLen);
  } else if (h.type == kPublish || h.type == kPublishShard) {
    Put32(b, static_cast<uint32_t>(m.channel.size()));
    Put32(b + 4, static_cast<uint32_t>(m.payload.size()));
    std::memcpy(b + 8, m.channel.data(), m.channel.size());
    std::memcpy(b + 8 + m.channel.size(), m.payload.data(), m.payload.size());
  } else if (h.type == kUpdate) {
    Put64(b, m.update_epoch);
    PutField(b + 8, m.node, kNameLen);
    std::memcpy(b + 8 + kNameLen, m.update_slots.data(), kSlotBytes);
  } else if (h.type == kModule) {
    Put64(b, m.module_id);
    Put32(b + 8, static_cast<uint32_t>(m.payload.size()));
    b[12] = static_cast<char>(m.module_type);
    std::memcpy(b + 13, m.payload.data(), m.payload.size());
  } else if (h.type >= kNumMsgTypes) {
    std::memcpy(b, m.payload.data(), m.payload.size());
  }
}

std::string Encode(const Message& m) {
  std::string out;
  Encode(m, &out);
  return out;
}

uint32_t FrameLength(std::string_view first8) {
  if (first8.size() < 8 || std::memcmp(first8.data(), "RCmb", 4) != 0) return 0;
  uint32_t len = Get32(first8.data() + kOffTotlen);
  if (len < kHeaderSize || len > kMaxMessageSize) return 0;
  return len;
}

namespace {

bool DecodeBody(std::string_view data, Message* m, std::string* error) {
  const char* p = data.data();
  const size_t total = data.size();
  const Header& h = m->hdr;
  const char* b = p + kHeaderSize;
  const size_t avail = total - kHeaderSize;
  if (IsPingType(h.type)) {
    size_t need = size_t{h.count} * kGossipSize;
    if (need > avail) return Fail(error, "gossip sections exceed the message length");
    m->gossip.resize(h.count);
    for (size_t i = 0; i < h.count; ++i) {
      const char* g = b + i * kGossipSize;
      Gossip& o = m->gossip[i];
      o.name.assign(g + kGName, kNameLen);
      o.ping_sent = Get32(g + kGPingSent);
      o.pong_received = Get32(g + kGPongReceived);
      o.ip.assign(CString(g + kGIp, kIpLen));
      o.port = Get16(g + kGPort);
      o.cport = Get16(g + kGCPort);
      o.flags = Get16(g + kGFlags);
      o.pport = Get16(g + kGPPort);
    }
    size_t pos = need;
    if (h.mflags[0] & kFlag0ExtData) {
      for (uint16_t i = 0; i < h.extensions; ++i) {
        if (avail - pos < kExtHeadSize) return Fail(error, "extension header truncated");
        const char* e = b + pos;
        uint32_t len = Get32(e);
        if (len < kExtHeadSize || len % 8 != 0) return Fail(error, "bad extension length");
        if (len > avail - pos) return Fail(error, "extension exceeds the message length");
        PingExt x;
        x.type = Get16(e + 4);
        const char* d = e + kExtHeadSize;
        size_t dlen = len - kExtHeadSize;
        switch (x.type) {
          case kExtHostname:
          case kExtHumanNodename:
            x.text.assign(CString(d, dlen));
            break;
          case kExtForgottenNode:
            if (dlen < kNameLen + 8) return Fail(error, "forgotten-node extension too short");
            x.text.assign(d, kNameLen);
            x.ttl = Get64(d + kNameLen);
            break;
          case kExtShardId:
            if (dlen < kNameLen) return Fail(error, "shard-id extension too short");
            x.text.assign(d, kNameLen);
            break;
          default:
            x.text.assign(d, dlen);  // unknown: kept raw, skipped by its length
            break;
        }
        m->exts.push_back(std::move(x));
        pos += len;
      }
    }
    if (pos != avail) return Fail(error, "message length does not match its content");
    return true;
  }
  switch (h.type) {
    case kFail:
      if (avail != kNameLen) return Fail(error, "bad FAIL length");
      m->node.assign(b, kNameLen);
      return true;
    case kPublish:
    case kPublishShard: {
      if (avail < 8) return Fail(error, "PUBLISH truncated");
      uint64_t clen = Get32(b), mlen = Get32(b + 4);
      if (8 + clen + mlen != avail) return Fail(error, "bad PUBLISH length");
      m->channel.assign(b + 8, clen);
      m->payload.assign(b + 8 + clen, mlen);
      return true;
    }
    case kUpdate:
      if (avail != kUpdateBodySize) return Fail(error, "bad UPDATE length");
      m->update_epoch = Get64(b);
      m->node.assign(b + 8, kNameLen);
      std::memcpy(m->update_slots.data(), b + 8 + kNameLen, kSlotBytes);
      return true;
    case kModule: {
      if (avail < 13) return Fail(error, "MODULE truncated");
      uint64_t len = Get32(b + 8);
      if (13 + len != avail) return Fail(error, "bad MODULE length");
      m->module_id = Get64(b);
      m->module_type = static_cast<uint8_t>(b[12]);
      m->payload.assign(b + 13, len);
      return true;
    }
    case kFailoverAuthRequest:
    case kFailoverAuthAck:
    case kMfStart:
      if (avail != 0) return Fail(error, "header-only message with a body");
      return true;
    default:
      // A type this version does not know: kept raw; the bus counts and ignores it.
      m->payload.assign(b, avail);
      return true;
  }
}

}  // namespace

DecodeResult Decode(std::string_view data, Message* out, std::string* error) {
  *out = Message();
  if (data.size() < kHeaderSize) {
    if (error) *error = "message shorter than the header";
    return DecodeResult::kBad;
  }
  const char* p = data.data();
  if (std::memcmp(p, "RCmb", 4) != 0) {
    if (error) *error = "bad signature";
    return DecodeResult::kBad;
  }
  Header& h = out->hdr;
  h.totlen = Get32(p + kOffTotlen);
  if (h.totlen != data.size()) {
    if (error) *error = "total length does not match the packet";
    return DecodeResult::kBad;
  }
  h.ver = Get16(p + kOffVer);
  if (h.ver != kProtocolVersion) return DecodeResult::kIgnore;
  h.port = Get16(p + kOffPort);
  h.type = Get16(p + kOffType);
  h.count = Get16(p + kOffCount);
  h.current_epoch = Get64(p + kOffCurrentEpoch);
  h.config_epoch = Get64(p + kOffConfigEpoch);
  h.offset = Get64(p + kOffOffset);
  h.sender.assign(p + kOffSender, kNameLen);
  std::memcpy(h.myslots.data(), p + kOffMySlots, kSlotBytes);
  if (!AllZero(p + kOffSlaveOf, kNameLen)) h.slaveof.assign(p + kOffSlaveOf, kNameLen);
  h.myip.assign(CString(p + kOffMyIp, kIpLen));
  h.extensions = Get16(p + kOffExtensions);
  h.pport = Get16(p + kOffPPort);
  h.cport = Get16(p + kOffCPort);
  h.flags = Get16(p + kOffFlags);
  h.state = static_cast<uint8_t>(p[kOffState]);
  for (int i = 0; i < 3; ++i) h.mflags[i] = static_cast<uint8_t>(p[kOffMFlags + i]);
  if (!DecodeBody(data, out, error)) return DecodeResult::kBad;
  return DecodeResult::kOk;
}

}  // namespace hotkv::cluster::bus

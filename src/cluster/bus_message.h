// The Redis Cluster bus wire format (cluster port, binary, big-endian): a pure codec,
// no server or cluster-state dependency, so that it is tested byte for byte against
// packets captured off real Redis 7.0 / 8.x nodes (tests/unit/cluster/).
//
// Every message starts with the same 2256-byte header ("RCmb", total length, version 1,
// sender's ports, type, count, epochs, replication offset, sender name, the sender's
// 2048-byte slot bitmap, its primary's name, its IP, extension count, flags, cluster
// state, message flags), followed by a type-specific body:
//   PING / PONG / MEET   `count` gossip sections of 104 bytes, then (when message flag
//                        kFlag0ExtData is set) `extensions` ping extensions, each
//                        {u32 length incl. this 8-byte head, u16 type, u16 unused, data
//                        zero-padded to a multiple of 8}.
//   FAIL                 the failing node's 40-byte name.
//   PUBLISH(SHARD)       u32 channel length, u32 message length, channel, message.
//   UPDATE               u64 config epoch, 40-byte node name, 2048-byte slot bitmap.
//   MODULE               u64 module id, u32 length, u8 type, payload.
//   AUTH_REQUEST/ACK, MFSTART   header only.
// docs/cluster.md describes the fields and the behaviour around them.
//
// Decode() checks every length against the buffer (total length vs. the declared gossip
// count, extension lengths, publish lengths), so a malformed or truncated packet is
// rejected with a reason and never read out of bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::cluster::bus {

inline constexpr size_t kHeaderSize = 2256;
inline constexpr size_t kGossipSize = 104;
inline constexpr size_t kNameLen = 40;
inline constexpr size_t kIpLen = 46;
inline constexpr size_t kSlotBytes = 2048;  // 16384 slots, bit i of byte i/8 (LSB first)
inline constexpr size_t kExtHeadSize = 8;
inline constexpr size_t kUpdateBodySize = 8 + kNameLen + kSlotBytes;
inline constexpr uint16_t kProtocolVersion = 1;
// The largest total length a reader accepts (a PUBLISH of a huge message still fits;
// anything larger closes the link instead of allocating it).
inline constexpr uint32_t kMaxMessageSize = 512u * 1024 * 1024;

enum MsgType : uint16_t {
  kPing = 0,
  kPong = 1,
  kMeet = 2,
  kFail = 3,
  kPublish = 4,
  kFailoverAuthRequest = 5,
  kFailoverAuthAck = 6,
  kUpdate = 7,
  kMfStart = 8,
  kModule = 9,
  kPublishShard = 10,
  kNumMsgTypes = 11,
};
const char* MsgTypeName(uint16_t type);  // "ping", "pong", ... as CLUSTER INFO names them

// mflags[0] bits.
enum MsgFlag0 : uint8_t {
  kFlag0Paused = 1 << 0,    // primary paused for a manual failover
  kFlag0ForceAck = 1 << 1,  // vote even though the primary is up (manual failover)
  kFlag0ExtData = 1 << 2,   // ping extensions follow the gossip sections
};

// Ping extension types (Redis 7.0 knows only the hostname; 7.2+ all four; Redis 8 adds
// more, which are skipped by their length).
enum ExtType : uint16_t {
  kExtHostname = 0,
  kExtHumanNodename = 1,
  kExtForgottenNode = 2,
  kExtShardId = 3,
};

using SlotBytes = std::array<uint8_t, kSlotBytes>;
inline bool SlotBit(const SlotBytes& b, int slot) { return (b[slot >> 3] >> (slot & 7)) & 1; }
inline void SetSlotBit(SlotBytes& b, int slot) {
  b[slot >> 3] = static_cast<uint8_t>(b[slot >> 3] | (1u << (slot & 7)));
}

struct Header {
  uint32_t totlen = 0;  // filled by Encode, checked by Decode
  uint16_t ver = kProtocolVersion;
  uint16_t port = 0;   // sender's client port
  uint16_t type = kPing;
  uint16_t count = 0;  // gossip sections (PING/PONG/MEET); filled by Encode
  uint64_t current_epoch = 0;
  uint64_t config_epoch = 0;
  uint64_t offset = 0;  // replication offset
  std::string sender;   // 40 characters
  SlotBytes myslots{};
  std::string slaveof;  // the sender's primary; "" (all zero on the wire) for a primary
  std::string myip;     // "" (all zero): the receiver uses the link's peer address
  uint16_t extensions = 0;  // filled by Encode
  uint16_t pport = 0;       // plaintext port when the base port is TLS
  uint16_t cport = 0;       // sender's bus port
  uint16_t flags = 0;       // sender's node flags (CLUSTER_NODE_* values)
  uint8_t state = 0;        // 0 ok, 1 fail, from the sender's point of view
  std::array<uint8_t, 3> mflags{};
};

struct Gossip {
  std::string name;
  uint32_t ping_sent = 0;      // seconds (Unix time), 0: none in flight
  uint32_t pong_received = 0;  // seconds (Unix time)
  std::string ip;
  uint16_t port = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint16_t pport = 0;
};

struct PingExt {
  uint16_t type = kExtHostname;
  std::string text;  // hostname / human nodename / shard id; unknown types: raw data
  uint64_t ttl = 0;  // forgotten node: seconds the name stays banned (text = its name)
};

struct Message {
  Header hdr;
  std::vector<Gossip> gossip;   // PING/PONG/MEET
  std::vector<PingExt> exts;    // PING/PONG/MEET
  std::string node;             // FAIL: the failing node; UPDATE: the slots' owner
  uint64_t update_epoch = 0;    // UPDATE
  SlotBytes update_slots{};     // UPDATE
  std::string channel;          // PUBLISH / PUBLISHSHARD
  std::string payload;          // PUBLISH(SHARD) message; MODULE payload; unknown: body
  uint64_t module_id = 0;       // MODULE
  uint8_t module_type = 0;      // MODULE
};

// Serialises `m` (totlen, count and extensions computed here; kFlag0ExtData set when
// there are extensions) and appends it to `out`.
void Encode(const Message& m, std::string* out);
std::string Encode(const Message& m);

enum class DecodeResult {
  kOk,
  kIgnore,  // well-formed but not for us (protocol version other than 1)
  kBad,     // malformed: the link should be closed
};

// Decodes one whole message (`data` must be exactly totlen bytes). On kBad, `error`
// (if given) says why.
DecodeResult Decode(std::string_view data, Message* out, std::string* error = nullptr);

// Framing: given at least 8 bytes of a stream, the message's total length, or 0 when the
// signature or length is invalid (the link should be closed).
uint32_t FrameLength(std::string_view first8);

// A name field: the bytes up to the first NUL (at most `max`).
std::string_view CString(const char* p, size_t max);

}  // namespace hotkv::cluster::bus

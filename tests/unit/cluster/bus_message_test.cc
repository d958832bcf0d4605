// The cluster bus codec against packets captured off real Redis nodes on loopback
// (fixtures/*.hex: /usr/bin/redis-server 7.0.15 and Redis 8.8, three nodes MEETing
// through a logging TCP proxy), plus round trips and malformed input.
#include "cluster/bus_message.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace hotkv::cluster::bus {
namespace {

const char* kR1 = "316d1bc363a50d1da6978fd0d888d2cb37787c5d";  // 7.0, hostname host-a
const char* kR2 = "650aff0aabd04f1d83f50cb51c86d32181d95846";  // 7.0
const char* kR3 = "a051eb50d9c597db201b989d8af1441c7b66e1fb";  // 8.8, host-c / human-c

std::string LoadFixture(const std::string& name) {
  std::string path = CLUSTER_FIXTURE_DIR;
  path.append("/").append(name).append(".hex");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << name;
  std::string hex, line;
  while (std::getline(in, line)) hex += line;
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

void ExpectSlots(const SlotBytes& b, std::initializer_list<int> slots) {
  int n = 0;
  for (int s = 0; s < 16384; ++s) n += SlotBit(b, s);
  EXPECT_EQ(n, static_cast<int>(slots.size()));
  for (int s : slots) EXPECT_TRUE(SlotBit(b, s)) << s;
}

TEST(BusMessage, DecodesRedis70Meet) {
  std::string raw = LoadFixture("redis70_meet_hostname");
  ASSERT_EQ(raw.size(), 2376u);
  EXPECT_EQ(FrameLength(raw.substr(0, 8)), 2376u);
  Message m;
  std::string err;
  ASSERT_EQ(Decode(raw, &m, &err), DecodeResult::kOk) << err;
  EXPECT_EQ(m.hdr.type, kMeet);
  EXPECT_EQ(m.hdr.ver, 1);
  EXPECT_EQ(m.hdr.port, 27101);
  EXPECT_EQ(m.hdr.cport, 37101);
  EXPECT_EQ(m.hdr.flags, 0x11);  // myself|master
  EXPECT_EQ(m.hdr.sender, kR1);
  EXPECT_EQ(m.hdr.slaveof, "");
  EXPECT_EQ(m.hdr.myip, "");
  EXPECT_EQ(m.hdr.current_epoch, 1u);
  EXPECT_EQ(m.hdr.config_epoch, 1u);
  EXPECT_EQ(m.hdr.state, 1);  // fail: not all slots covered
  EXPECT_EQ(m.hdr.mflags[0], kFlag0ExtData);
  ExpectSlots(m.hdr.myslots, {1, 2, 3, 100, 16383});
  ASSERT_EQ(m.gossip.size(), 1u);
  EXPECT_EQ(m.gossip[0].name, kR2);
  EXPECT_EQ(m.gossip[0].ip, "127.0.0.1");
  EXPECT_EQ(m.gossip[0].port, 27102);
  EXPECT_EQ(m.gossip[0].cport, 27199);
  EXPECT_EQ(m.gossip[0].flags, 1);
  EXPECT_EQ(m.gossip[0].ping_sent, 0u);
  EXPECT_GT(m.gossip[0].pong_received, 1700000000u);
  ASSERT_EQ(m.exts.size(), 1u);
  EXPECT_EQ(m.exts[0].type, kExtHostname);
  EXPECT_EQ(m.exts[0].text, "host-a");
  // Re-encoding gives back the same bytes.
  EXPECT_EQ(Encode(m), raw);
}

TEST(BusMessage, DecodesRedis70PingAndPong) {
  std::string ping = LoadFixture("redis70_ping_gossip");
  Message m;
  ASSERT_EQ(Decode(ping, &m), DecodeResult::kOk);
  EXPECT_EQ(m.hdr.type, kPing);
  EXPECT_EQ(m.hdr.sender, kR1);
  ASSERT_EQ(m.gossip.size(), 1u);
  EXPECT_EQ(m.gossip[0].name, kR3);
  EXPECT_EQ(m.gossip[0].port, 27103);
  EXPECT_EQ(Encode(m), ping);

  std::string pong = LoadFixture("redis70_pong");
  ASSERT_EQ(Decode(pong, &m), DecodeResult::kOk);
  EXPECT_EQ(m.hdr.type, kPong);
  EXPECT_EQ(m.hdr.sender, kR2);
  EXPECT_EQ(m.hdr.port, 27102);
  EXPECT_EQ(m.hdr.cport, 27199);  // cluster-announce-bus-port
  EXPECT_EQ(m.hdr.mflags[0], 0);  // 7.0 without a hostname sends no extension
  EXPECT_TRUE(m.exts.empty());
  ExpectSlots(m.hdr.myslots, {});
  ASSERT_EQ(m.gossip.size(), 1u);
  EXPECT_EQ(Encode(m), pong);
}

TEST(BusMessage, DecodesRedis8PongExtensions) {
  std::string raw = LoadFixture("redis88_pong_ext");
  Message m;
  std::string err;
  ASSERT_EQ(Decode(raw, &m, &err), DecodeResult::kOk) << err;
  EXPECT_EQ(m.hdr.type, kPong);
  EXPECT_EQ(m.hdr.sender, kR3);
  EXPECT_EQ(m.hdr.extensions, 4);
  ASSERT_EQ(m.exts.size(), 4u);
  EXPECT_EQ(m.exts[0].type, kExtHostname);
  EXPECT_EQ(m.exts[0].text, "host-c");
  EXPECT_EQ(m.exts[1].type, kExtHumanNodename);
  EXPECT_EQ(m.exts[1].text, "human-c");
  EXPECT_EQ(m.exts[2].type, kExtShardId);
  EXPECT_EQ(m.exts[2].text, "5a950e76933c0b8337b36c8bd3f76fda3ebeacae");
  EXPECT_EQ(m.exts[3].type, 4);  // Redis 8's internal secret: unknown here, kept raw
  EXPECT_EQ(m.exts[3].text.size(), 40u);
  EXPECT_EQ(Encode(m), raw);
}

TEST(BusMessage, DecodesRedis70Publish) {
  std::string raw = LoadFixture("redis70_publish");
  Message m;
  ASSERT_EQ(Decode(raw, &m), DecodeResult::kOk);
  EXPECT_EQ(m.hdr.type, kPublish);
  EXPECT_EQ(m.channel, "chan");
  EXPECT_EQ(m.payload, "hello");
  EXPECT_EQ(Encode(m), raw);
}

Message SamplePing() {
  Message m;
  m.hdr.type = kPing;
  m.hdr.port = 7000;
  m.hdr.cport = 17000;
  m.hdr.flags = 0x11;
  m.hdr.current_epoch = 7;
  m.hdr.config_epoch = 3;
  m.hdr.sender = std::string(40, 'a');
  m.hdr.myip = "10.1.2.3";
  SetSlotBit(m.hdr.myslots, 0);
  SetSlotBit(m.hdr.myslots, 16383);
  for (int i = 0; i < 3; ++i) {
    Gossip g;
    g.name = std::string(40, static_cast<char>('b' + i));
    g.ip = "127.0.0.1";
    g.port = static_cast<uint16_t>(7001 + i);
    g.cport = static_cast<uint16_t>(17001 + i);
    g.flags = 1;
    g.pong_received = 1800000000u;
    m.gossip.push_back(g);
  }
  m.exts.push_back({kExtHostname, "node-1.example", 0});
  m.exts.push_back({kExtHumanNodename, "n1", 0});
  m.exts.push_back({kExtForgottenNode, std::string(40, 'f'), 59});
  m.exts.push_back({kExtShardId, std::string(40, 'e'), 0});
  return m;
}

TEST(BusMessage, RoundTripsEveryType) {
  Message m = SamplePing();
  std::string raw = Encode(m);
  EXPECT_EQ(raw.size(), kHeaderSize + 3 * kGossipSize + (8 + 16) + (8 + 8) + (8 + 48) + (8 + 40));
  Message d;
  ASSERT_EQ(Decode(raw, &d), DecodeResult::kOk);
  EXPECT_EQ(d.hdr.count, 3);
  EXPECT_EQ(d.hdr.myip, "10.1.2.3");
  EXPECT_EQ(d.gossip[2].port, 7003);
  ASSERT_EQ(d.exts.size(), 4u);
  EXPECT_EQ(d.exts[0].text, "node-1.example");
  EXPECT_EQ(d.exts[2].ttl, 59u);
  EXPECT_EQ(d.exts[2].text, std::string(40, 'f'));
  EXPECT_EQ(Encode(d), raw);

  Message f;
  f.hdr.type = kFail;
  f.hdr.sender = std::string(40, 'a');
  f.node = std::string(40, 'c');
  raw = Encode(f);
  EXPECT_EQ(raw.size(), kHeaderSize + 40);
  ASSERT_EQ(Decode(raw, &d), DecodeResult::kOk);
  EXPECT_EQ(d.node, f.node);

  Message u;
  u.hdr.type = kUpdate;
  u.update_epoch = 42;
  u.node = std::string(40, 'd');
  SetSlotBit(u.update_slots, 5000);
  raw = Encode(u);
  EXPECT_EQ(raw.size(), kHeaderSize + kUpdateBodySize);
  ASSERT_EQ(Decode(raw, &d), DecodeResult::kOk);
  EXPECT_EQ(d.update_epoch, 42u);
  EXPECT_TRUE(SlotBit(d.update_slots, 5000));
  EXPECT_FALSE(SlotBit(d.update_slots, 5001));

  Message p;
  p.hdr.type = kPublishShard;
  p.channel = "ch";
  p.payload = std::string("a\0b", 3);
  ASSERT_EQ(Decode(Encode(p), &d), DecodeResult::kOk);
  EXPECT_EQ(d.channel, "ch");
  EXPECT_EQ(d.payload, p.payload);

  Message mod;
  mod.hdr.type = kModule;
  mod.module_id = 0x1122334455667788ull;
  mod.module_type = 9;
  mod.payload = "xyz";
  ASSERT_EQ(Decode(Encode(mod), &d), DecodeResult::kOk);
  EXPECT_EQ(d.module_id, mod.module_id);
  EXPECT_EQ(d.payload, "xyz");

  for (uint16_t t : {kFailoverAuthRequest, kFailoverAuthAck, kMfStart}) {
    Message h;
    h.hdr.type = t;
    h.hdr.mflags[0] = kFlag0ForceAck;
    raw = Encode(h);
    EXPECT_EQ(raw.size(), kHeaderSize);
    ASSERT_EQ(Decode(raw, &d), DecodeResult::kOk);
    EXPECT_EQ(d.hdr.type, t);
    EXPECT_EQ(d.hdr.mflags[0], kFlag0ForceAck);
  }
}

TEST(BusMessage, RejectsMalformed) {
  std::string raw = Encode(SamplePing());
  Message d;
  std::string err;
  // Every truncation is rejected (totlen no longer matches).
  for (size_t n = 0; n < raw.size(); n += 7) {
    EXPECT_EQ(Decode(std::string_view(raw).substr(0, n), &d), DecodeResult::kBad) << n;
  }
  // Bad signature.
  std::string bad = raw;
  bad[0] = 'X';
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  EXPECT_EQ(FrameLength(bad), 0u);
  // A gossip count larger than the packet holds.
  bad = raw;
  bad[14] = 0x7f;
  EXPECT_EQ(Decode(bad, &d, &err), DecodeResult::kBad);
  // An extension length that is not a multiple of 8, or runs past the end.
  size_t ext0 = kHeaderSize + 3 * kGossipSize;
  bad = raw;
  bad[ext0 + 3] = 17;
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  bad = raw;
  bad[ext0 + 2] = 0x10;
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  bad = raw;
  bad[ext0 + 3] = 0;  // length 0
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  // More extensions declared than present.
  bad = raw;
  bad[2215] = 9;
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  // Trailing bytes after the declared content.
  bad = raw;
  bad.append(8, '\0');
  bad[4] = static_cast<char>(bad.size() >> 24);
  bad[5] = static_cast<char>(bad.size() >> 16);
  bad[6] = static_cast<char>(bad.size() >> 8);
  bad[7] = static_cast<char>(bad.size());
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  // PUBLISH lengths that overflow 32 bits.
  Message p;
  p.hdr.type = kPublish;
  p.channel = "c";
  p.payload = "m";
  bad = Encode(p);
  for (int i = 0; i < 4; ++i) bad[kHeaderSize + i] = static_cast<char>(0xff);
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kBad);
  // Another protocol version is ignored, not an error.
  bad = raw;
  bad[9] = 2;
  EXPECT_EQ(Decode(bad, &d), DecodeResult::kIgnore);
  // Lengths the framer refuses.
  std::string head("RCmb\0\0\0\x10", 8);
  EXPECT_EQ(FrameLength(head), 0u);
  head = std::string("RCmb\xff\xff\xff\xff", 8);
  EXPECT_EQ(FrameLength(head), 0u);
}

TEST(BusMessage, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(1234);
  std::string base = Encode(SamplePing());
  Message d;
  for (int i = 0; i < 20000; ++i) {
    std::string bad = base;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Corrupt mostly the length-bearing places: header counts and the body.
      size_t pos = (rng() % 3 == 0) ? rng() % 16 + 2200 : rng() % bad.size();
      bad[pos] = static_cast<char>(rng());
    }
    if (rng() % 4 == 0) bad.resize(rng() % bad.size());
    (void)Decode(bad, &d);
  }
}

}  // namespace
}  // namespace hotkv::cluster::bus

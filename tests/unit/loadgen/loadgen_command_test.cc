// Tests of hotkv-loadgen's request encoding, pub/sub payload stamps and options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "command_builder.h"
#include "options.h"
#include "pubsub_payload.h"

namespace hotkv::loadgen {
namespace {

TEST(LoadgenCommand, BuiltInCommandsEncodeAsRespArrays) {
  auto get = CommandTemplate::ForName("get", "key:", 256);
  ASSERT_TRUE(get.has_value());
  std::string out;
  get->Append(42, out);
  EXPECT_EQ(out, "*2\r\n$3\r\nGET\r\n$6\r\nkey:42\r\n");
  EXPECT_TRUE(get->uses_key());
  EXPECT_EQ(get->name(), "GET");

  auto set = CommandTemplate::ForName("SET", "k", 5);
  out.clear();
  set->Append(7, out);
  EXPECT_EQ(out, "*3\r\n$3\r\nSET\r\n$2\r\nk7\r\n$5\r\nabcde\r\n");

  auto ping = CommandTemplate::ForName("ping", "key:", 0);
  out.clear();
  ping->Append(0, out);
  EXPECT_EQ(out, "*1\r\n$4\r\nPING\r\n");
  EXPECT_FALSE(ping->uses_key());

  EXPECT_FALSE(CommandTemplate::ForName("custom", "key:", 1).has_value());
}

TEST(LoadgenCommand, CustomTemplateWithPlaceholders) {
  auto t = CommandTemplate::Parse("HSET  h:__key__ __key__ __value__", "u", 3);
  ASSERT_TRUE(t.has_value());
  std::string out;
  t->Append(5, out);
  // Only whole arguments are placeholders; "h:__key__" is literal.
  EXPECT_EQ(out, "*4\r\n$4\r\nHSET\r\n$9\r\nh:__key__\r\n$2\r\nu5\r\n$3\r\nabc\r\n");
  out.clear();
  t->Append(123, out);
  EXPECT_NE(out.find("$4\r\nu123\r\n"), std::string::npos);
  EXPECT_FALSE(CommandTemplate::Parse("   ", "k", 1).has_value());
}

TEST(LoadgenCommand, EncodeCommandAndValue) {
  EXPECT_EQ(EncodeCommand({"SUBSCRIBE", "ch"}), "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n");
  EXPECT_EQ(MakeValue(28), "abcdefghijklmnopqrstuvwxyzab");
  EXPECT_EQ(MakeValue(0), "");
}

TEST(LoadgenPayload, RoundTripAndPadding) {
  PayloadStamp stamp{123456789012345ULL, 63, 99};
  std::string out;
  AppendPayload(stamp, 128, out);
  EXPECT_EQ(out.size(), 128u);
  EXPECT_EQ(out.substr(0, 25), "123456789012345:63:99:...");
  auto back = ParsePayload(out);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->intended_ns, stamp.intended_ns);
  EXPECT_EQ(back->publisher, 63u);
  EXPECT_EQ(back->seq, 99u);

  // The widest stamp fits in kMaxStampSize.
  out.clear();
  AppendPayload({UINT64_MAX, UINT32_MAX, UINT64_MAX}, 0, out);
  EXPECT_EQ(out.size(), kMaxStampSize);

  EXPECT_FALSE(ParsePayload("hello").has_value());
  EXPECT_FALSE(ParsePayload("12:3").has_value());
  EXPECT_FALSE(ParsePayload("").has_value());
}

TEST(LoadgenPayload, PublishTargetsSpreadEvenlyWithConsecutiveSequences) {
  struct Case {
    uint64_t publishers, channels;
  };
  for (Case c : {Case{64, 1}, Case{64, 64}, Case{64, 3}, Case{6, 4}, Case{3, 10}, Case{1, 7}}) {
    std::vector<std::vector<uint64_t>> next_seq(c.publishers, std::vector<uint64_t>(c.channels, 0));
    std::vector<uint64_t> per_channel(c.channels, 0);
    const uint64_t rounds = 10 * c.channels;
    for (uint64_t k = 0; k < rounds; ++k) {
      for (uint64_t p = 0; p < c.publishers; ++p) {
        PublishTarget t = TargetOf(p, k, c.publishers, c.channels);
        ASSERT_LT(t.channel, c.channels);
        // Sequence numbers per (publisher, channel) are 0, 1, 2, ... with no gap.
        ASSERT_EQ(t.seq, next_seq[p][t.channel]++)
            << c.publishers << "/" << c.channels << " p" << p << " k" << k;
        ++per_channel[t.channel];
      }
    }
    // Every channel gets the same number of publishes.
    for (uint64_t n : per_channel) {
      EXPECT_EQ(n, rounds * c.publishers / c.channels) << c.publishers << "/" << c.channels;
    }
  }
}

ParseResult Parse(std::vector<std::string> args) { return ParseOptions(args); }

TEST(LoadgenOptions, BurstyArrivalIsARequestModeOption) {
  ParseResult r = Parse({"--rate", "100k", "--arrival", "bursty", "--threads", "2"});
  ASSERT_TRUE(r.options.has_value()) << r.error;
  EXPECT_EQ(r.options->arrival, Arrival::kBursty);
  ParseResult p = Parse({"--mode", "pubsub", "--rate", "1000", "--arrival", "bursty"});
  EXPECT_FALSE(p.options.has_value());
  EXPECT_NE(p.error.find("bursty"), std::string::npos) << p.error;
  EXPECT_FALSE(Parse({"--rate", "1000", "--arrival", "burst"}).options.has_value());
}

TEST(LoadgenOptions, RequestModeFlags) {
  ParseResult r = Parse({"--port", "7000", "--rate", "50k", "--connections=20", "--duration", "2.5",
                         "--threads", "2", "--command", "set", "--arrival", "poisson", "--json"});
  ASSERT_TRUE(r.options.has_value()) << r.error;
  const Options& o = *r.options;
  EXPECT_EQ(o.mode, Mode::kRequest);
  EXPECT_EQ(o.port, 7000);
  EXPECT_EQ(o.rate, 50000);
  EXPECT_EQ(o.connections, 20);
  EXPECT_EQ(o.duration_s, 2.5);
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.command, "set");
  EXPECT_EQ(o.arrival, Arrival::kPoisson);
  EXPECT_TRUE(o.json);
}

TEST(LoadgenOptions, LoadAndPubsubModes) {
  ParseResult load = Parse({"--load", "1m", "--value-size", "256"});
  ASSERT_TRUE(load.options.has_value()) << load.error;
  EXPECT_EQ(load.options->mode, Mode::kLoad);
  EXPECT_EQ(load.options->load_keys, 1'000'000u);

  ParseResult ps = Parse({"--mode", "pubsub", "--rate", "20000", "--publishers", "64",
                          "--subscribers", "100", "--channels", "64", "--payload", "128"});
  ASSERT_TRUE(ps.options.has_value()) << ps.error;
  EXPECT_EQ(ps.options->mode, Mode::kPubsub);
  EXPECT_EQ(ps.options->channels, 64);
}

TEST(LoadgenOptions, Rejections) {
  EXPECT_FALSE(Parse({"--rate"}).options.has_value());
  EXPECT_FALSE(Parse({"--bogus", "1"}).options.has_value());
  EXPECT_FALSE(Parse({"--connections", "10"}).options.has_value());  // no --rate
  EXPECT_FALSE(Parse({"--rate", "abc"}).options.has_value());
  EXPECT_FALSE(Parse({"--rate", "10", "--arrival", "clumpy"}).options.has_value());
  EXPECT_FALSE(Parse({"--mode", "pubsub", "--rate", "10", "--payload", "8"}).options.has_value());
  EXPECT_FALSE(Parse({"--mode", "pubsub", "--rate", "10", "--subscribers", "2", "--channels", "3"})
                   .options.has_value());
  EXPECT_TRUE(Parse({"--help"}).help);
}

}  // namespace
}  // namespace hotkv::loadgen

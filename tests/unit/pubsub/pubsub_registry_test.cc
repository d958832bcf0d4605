// PubsubRegistry: subscriptions, pattern matching, per-worker grouping of deliveries.
#include "pubsub/registry.h"

#include <gtest/gtest.h>

#include <map>

namespace hotkv {
namespace {

TEST(PubsubRegistry, FanOutGroupedByWorker) {
  PubsubRegistry r;
  EXPECT_TRUE(r.Subscribe(PubsubRegistry::kChannel, "news", {1, 0}));
  EXPECT_FALSE(r.Subscribe(PubsubRegistry::kChannel, "news", {1, 0}));
  EXPECT_TRUE(r.Subscribe(PubsubRegistry::kChannel, "news", {2, 1}));
  EXPECT_TRUE(r.Subscribe(PubsubRegistry::kChannel, "news", {3, 1}));
  EXPECT_TRUE(r.PSubscribe("n*", {4, 0}));
  std::map<int, std::vector<std::shared_ptr<PubsubDelivery>>> got;
  int64_t n = r.Publish(PubsubRegistry::kChannel, "news", "hello",
                        [&](int w, std::shared_ptr<PubsubDelivery> d) { got[w].push_back(d); });
  EXPECT_EQ(n, 4);
  ASSERT_EQ(got[0].size(), 2u);  // one message delivery, one pattern delivery
  ASSERT_EQ(got[1].size(), 1u);
  EXPECT_EQ(got[1][0]->client_ids.size(), 2u);
  EXPECT_EQ(*got[1][0]->payload, "hello");
  EXPECT_EQ(got[0][1]->kind, PubsubDelivery::kPMessage);
  EXPECT_EQ(got[0][1]->pattern, "n*");
}

TEST(PubsubRegistry, ShardChannelsAreSeparate) {
  PubsubRegistry r;
  r.Subscribe(PubsubRegistry::kShard, "s", {1, 0});
  r.PSubscribe("*", {2, 0});
  int64_t n = r.Publish(PubsubRegistry::kShard, "s", "m", [](int, auto) {});
  EXPECT_EQ(n, 1);  // patterns never see shard messages
  EXPECT_EQ(r.Publish(PubsubRegistry::kChannel, "s", "m", [](int, auto) {}), 1);
  EXPECT_EQ(r.NumSub(PubsubRegistry::kShard, "s"), 1);
  EXPECT_EQ(r.NumSub(PubsubRegistry::kChannel, "s"), 0);
}

TEST(PubsubRegistry, UnsubscribeAndIntrospection) {
  PubsubRegistry r;
  r.Subscribe(PubsubRegistry::kChannel, "a", {1, 0});
  r.Subscribe(PubsubRegistry::kChannel, "b", {1, 0});
  r.PSubscribe("x*", {1, 0});
  EXPECT_EQ(r.Channels(PubsubRegistry::kChannel, "*", true).size(), 2u);
  EXPECT_EQ(r.Channels(PubsubRegistry::kChannel, "a", false).size(), 1u);
  EXPECT_EQ(r.NumPat(), 1);
  EXPECT_TRUE(r.Unsubscribe(PubsubRegistry::kChannel, "a", 1));
  EXPECT_FALSE(r.Unsubscribe(PubsubRegistry::kChannel, "a", 1));
  EXPECT_TRUE(r.PUnsubscribe("x*", 1));
  EXPECT_EQ(r.NumPat(), 0);
  EXPECT_EQ(r.ChannelCount(PubsubRegistry::kChannel), 1u);
}

}  // namespace
}  // namespace hotkv

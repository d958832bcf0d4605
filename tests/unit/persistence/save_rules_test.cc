// Save rules: parsing of `save` values and Redis's serverCron condition (SaveDue),
// including the retry delay after a failed BGSAVE.
#include "persistence/save_rules.h"

#include <gtest/gtest.h>

namespace hotkv::persistence {
namespace {

TEST(SaveRules, ParsesPairs) {
  auto r = ParseSaveRules("3600 1 300 100 60 10000");
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].seconds, 3600);
  EXPECT_EQ((*r)[0].changes, 1);
  EXPECT_EQ((*r)[2].seconds, 60);
  EXPECT_EQ((*r)[2].changes, 10000);
}

TEST(SaveRules, EmptyMeansNoRules) {
  auto r = ParseSaveRules("");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
}

TEST(SaveRules, RejectsMalformed) {
  EXPECT_FALSE(ParseSaveRules("3600").has_value());
  EXPECT_FALSE(ParseSaveRules("3600 x").has_value());
  EXPECT_FALSE(ParseSaveRules("0 1").has_value());
  EXPECT_FALSE(ParseSaveRules("10 -1").has_value());
  EXPECT_FALSE(ParseSaveRules("1 2 3").has_value());
}

TEST(SaveRules, DueNeedsChangesAndTime) {
  std::vector<SaveRule> rules = {{60, 10}, {3600, 1}};
  SaveState st{.changes = 10, .last_save_s = 1000, .last_try_s = 1000, .last_bgsave_ok = true};
  EXPECT_FALSE(SaveDue(rules, st, 1060));  // Redis wants strictly more than 60 s
  EXPECT_TRUE(SaveDue(rules, st, 1061));
  st.changes = 9;
  EXPECT_FALSE(SaveDue(rules, st, 1061));
  EXPECT_TRUE(SaveDue(rules, st, 1000 + 3601));  // the second rule
  st.changes = 0;
  EXPECT_FALSE(SaveDue(rules, st, 100000));
  EXPECT_FALSE(SaveDue({}, st, 100000));
}

TEST(SaveRules, RetryDelayAfterFailure) {
  std::vector<SaveRule> rules = {{1, 1}};
  SaveState st{.changes = 5, .last_save_s = 1000, .last_try_s = 2000, .last_bgsave_ok = false};
  EXPECT_FALSE(SaveDue(rules, st, 2000 + kBgsaveRetryDelaySeconds));
  EXPECT_TRUE(SaveDue(rules, st, 2001 + kBgsaveRetryDelaySeconds));
  st.last_bgsave_ok = true;
  EXPECT_TRUE(SaveDue(rules, st, 2001));
}

}  // namespace
}  // namespace hotkv::persistence

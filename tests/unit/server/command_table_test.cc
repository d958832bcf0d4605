// CommandSpec::GetKeys on numkeys-style key specs (ZUNIONSTORE, ZMPOP, BZMPOP).
#include "server/command_table.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace hotkv {
namespace {

CommandSpec* AddZUnionStoreLike(CommandTable& t) {
  return t.Add({.name = "zunionstore",
                .arity = -4,
                .flags = "write",
                .keys = {KeyAt(1, "OW UPDATE"), KeyNum(2, 0, 1, 1, "RO ACCESS")}});
}

TEST(CommandTableTest, KeyNumFindsTheCountedKeys) {
  CommandTable t;
  CommandSpec* spec = AddZUnionStoreLike(t);
  std::vector<std::string_view> args = {"zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"};
  std::vector<int> keys;
  EXPECT_TRUE(spec->GetKeys(args, &keys));
  EXPECT_EQ(keys, (std::vector<int>{1, 3, 4}));
}

TEST(CommandTableTest, KeyNumRejectsCountsBeyondTheArguments) {
  CommandTable t;
  CommandSpec* spec = AddZUnionStoreLike(t);
  for (std::string_view count :
       {"3", "-1", "x", "9223372036854775807", "9223372036854775806", "4611686018427387905"}) {
    std::vector<std::string_view> args = {"zunionstore", "d", count, "a", "b"};
    std::vector<int> keys;
    EXPECT_FALSE(spec->GetKeys(args, &keys)) << count;
    EXPECT_LE(keys.size(), 1u) << count;  // at most the destination
  }
}

}  // namespace
}  // namespace hotkv

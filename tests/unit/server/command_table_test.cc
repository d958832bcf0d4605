// CommandSpec::GetKeys on numkeys-style key specs (ZUNIONSTORE, ZMPOP, BZMPOP);
// CommandSpec::KeysBySpecs (COMMAND GETKEYS) with Redis's rules; COMMAND INFO flag names.
#include "server/command_table.h"

#include <gtest/gtest.h>

#include <string>
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

std::vector<int> Positions(const std::vector<KeyPosition>& keys) {
  std::vector<int> out;
  for (const KeyPosition& k : keys) {
    out.push_back(k.pos);
  }
  return out;
}

TEST(CommandTableTest, KeysBySpecsReportsEachSpecsFlags) {
  CommandTable t;
  CommandSpec* spec = AddZUnionStoreLike(t);
  auto keys = spec->KeysBySpecs({"zunionstore", "d", "2", "a", "b"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(Positions(*keys), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ((*keys)[0].flags, kKeyOW | kKeyUpdate);
  EXPECT_EQ((*keys)[1].flags, kKeyRO | kKeyAccess);
}

TEST(CommandTableTest, KeysBySpecsRejectsWhatRedisRejects) {
  CommandTable t;
  CommandSpec* spec = AddZUnionStoreLike(t);
  // A zero count (no key where one must be), a count that is not a plain integer (Redis's
  // string2ll: no leading zeros, spaces or '+'), a count past the end.
  for (std::string_view count : {"0", "02", " 2", "+2", "2abc", "-1", "3"}) {
    EXPECT_FALSE(spec->KeysBySpecs({"zunionstore", "d", count, "a", "b"}).has_value()) << count;
  }
  CommandSpec* get = t.Add({.name = "get", .arity = 2, .keys = {KeyAt(1, "RO")}});
  EXPECT_FALSE(get->KeysBySpecs({"get"}).has_value());  // the key is past the end
}

TEST(CommandTableTest, KeysBySpecsKeywordSearchBounds) {
  CommandTable t;
  // XREAD-like: keys after STREAMS, half of what follows it.
  CommandSpec* fwd = t.Add({.name = "xr", .arity = -4,
                            .keys = {KeyKeyword("STREAMS", 1, -1, 1, "RO", 2)}});
  auto keys = fwd->KeysBySpecs({"xr", "COUNT", "1", "streams", "a", "b", "0", "0"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(Positions(*keys), (std::vector<int>{4, 5}));
  // The keyword is not searched in the last argument: no keyword, so no key from it.
  keys = fwd->KeysBySpecs({"xr", "a", "b", "STREAMS"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_TRUE(keys->empty());
  // Backwards from the end (MIGRATE-like KEYS), never down to argument 1.
  CommandSpec* back = t.Add({.name = "mg", .arity = -2,
                             .keys = {KeyKeyword("KEYS", -2, -1, 1, "RW")}});
  keys = back->KeysBySpecs({"mg", "h", "KEYS", "a", "b"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(Positions(*keys), (std::vector<int>{3, 4}));
  keys = back->KeysBySpecs({"mg", "KEYS", "a"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_TRUE(keys->empty());
}

TEST(CommandTableTest, KeysBySpecsSkipsNotKeySpecsAndHasKeysSaysSo) {
  CommandTable t;
  CommandSpec* spub = t.Add({.name = "spublish", .arity = 3, .keys = {KeyAt(1, "NOT_KEY")}});
  EXPECT_FALSE(spub->HasKeys());
  auto keys = spub->KeysBySpecs({"spublish", "c", "m"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_TRUE(keys->empty());
  CommandSpec* del = t.Add({.name = "del", .arity = -2, .keys = {KeyRange(1, -1, 1, "RM DELETE")}});
  EXPECT_TRUE(del->HasKeys());
  CommandSpec* ping = t.Add({.name = "ping", .arity = -1});
  EXPECT_FALSE(ping->HasKeys());
}

TEST(CommandTableTest, FlagNamesHideWhatRedisHidesAndPlaceMovableKeys) {
  auto names = CommandFlagNames(kCmdWrite | kCmdMayReplicate | kCmdProtected |
                                    kCmdTouchesArbitraryKeys | kCmdNoMulti | kCmdAllowBusy,
                                true);
  EXPECT_EQ(names, (std::vector<std::string_view>{"write", "no_multi", "movablekeys", "allow_busy"}));
  EXPECT_EQ(CommandFlagNames(kCmdReadonly | kCmdSelfLocking, true),
            (std::vector<std::string_view>{"readonly", "movablekeys"}));
}

}  // namespace
}  // namespace hotkv

namespace hotkv {
namespace {

// Find's short-name index (names of up to 16 bytes, folded a word at a time) agrees with a
// byte-by-byte case-insensitive compare for every length, case mix and near miss.
TEST(CommandTableTest, FindMatchesNamesOfEveryLengthInAnyCase) {
  CommandTable t;
  std::vector<std::string> names;
  for (size_t len = 1; len <= 20; len++) {
    std::string n;
    for (size_t i = 0; i < len; i++) {
      n += static_cast<char>('a' + (i * 7 + len) % 26);
    }
    if (len % 3 == 0) {
      n[len / 2] = '.';  // module-style names ("ft.search") and other punctuation
    }
    if (len % 4 == 0) {
      n[len - 1] = '_';
    }
    names.push_back(n);
    t.Add({.name = n, .arity = 1, .flags = "fast"});
  }
  t.Finalize();
  for (const std::string& n : names) {
    const CommandSpec* spec = t.Find(n);
    ASSERT_NE(spec, nullptr) << n;
    EXPECT_EQ(spec->name, n);
    std::string upper = n, mixed = n;
    for (size_t i = 0; i < n.size(); i++) {
      upper[i] = static_cast<char>(toupper(static_cast<unsigned char>(n[i])));
      if (i % 2 == 0) {
        mixed[i] = upper[i];
      }
    }
    EXPECT_EQ(t.Find(upper), spec) << upper;
    EXPECT_EQ(t.Find(mixed), spec) << mixed;
    // Near misses: one byte changed (also into what folding must not equate), one byte
    // more or fewer, a NUL appended.
    for (size_t i = 0; i < n.size(); i++) {
      for (char c : {'{', '@', '[', '`', '\xc1', '\xe1'}) {
        std::string other = n;
        other[i] = c;
        EXPECT_EQ(t.Find(other), nullptr) << other;
      }
    }
    EXPECT_EQ(t.Find(n + "x"), nullptr);
    EXPECT_EQ(t.Find(n + std::string(1, '\0')), nullptr);
    if (n.size() > 1) {
      const CommandSpec* shorter = t.Find(n.substr(0, n.size() - 1));
      EXPECT_TRUE(shorter == nullptr || shorter->name == n.substr(0, n.size() - 1));
    }
  }
  EXPECT_EQ(t.Find(""), nullptr);
  EXPECT_EQ(t.Find(std::string(100, 'a')), nullptr);
}

// Find remembers the name this thread found last (a pipeline repeats its command): the
// same bytes again, other names in between, other case, and a table built afterwards (at
// the same address as a destroyed one, or beside it) all get their own table's spec.
TEST(CommandTableTest, FindsLastNameAgainAndNeverFromAnotherTable) {
  for (int round = 0; round < 3; round++) {
    CommandTable t;
    // Different arity per round: a stale spec from the previous round would show.
    t.Add({.name = "ping", .arity = -1 - round, .flags = "fast"});
    t.Add({.name = "get", .arity = 2, .flags = "readonly fast"});
    t.Finalize();
    const CommandSpec* ping = t.Find("ping");
    ASSERT_NE(ping, nullptr);
    EXPECT_EQ(ping->arity, -1 - round);
    EXPECT_EQ(t.Find("ping"), ping);
    EXPECT_EQ(t.Find("PING"), ping);
    EXPECT_EQ(t.Find("get")->name, "get");
    EXPECT_EQ(t.Find("ping"), ping);
    EXPECT_EQ(t.Find("pong"), nullptr);
    EXPECT_EQ(t.Find("pin"), nullptr);
    EXPECT_EQ(t.Find("ping"), ping);
  }
  CommandTable a;
  a.Add({.name = "ping", .arity = -1, .flags = "fast"});
  a.Finalize();
  const CommandSpec* in_a = a.Find("ping");
  CommandTable b;
  b.Add({.name = "ping", .arity = -2, .flags = "fast"});
  b.Finalize();
  const CommandSpec* in_b = b.Find("ping");
  ASSERT_NE(in_b, nullptr);
  EXPECT_NE(in_b, in_a);
  EXPECT_EQ(in_b->arity, -2);
}

}  // namespace
}  // namespace hotkv

// AofManifest: Redis 7's manifest lines, parsed and written exactly.
#include "persistence/aof_manifest.h"

#include <gtest/gtest.h>

namespace hotkv::persistence {
namespace {

TEST(AofManifest, ParsesWhatRedisWrites) {
  // As Redis 7.0 writes it after a rewrite that left a history file behind.
  const std::string text =
      "file appendonly.aof.2.base.rdb seq 2 type b\n"
      "file appendonly.aof.1.incr.aof seq 1 type h\n"
      "file appendonly.aof.2.incr.aof seq 2 type i\n"
      "file appendonly.aof.3.incr.aof seq 3 type i\n";
  Result<AofManifest> m = AofManifest::Parse(text, "m");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m.value().base.name, "appendonly.aof.2.base.rdb");
  EXPECT_EQ(m.value().cur_base_seq, 2);
  ASSERT_EQ(m.value().incrs.size(), 2u);
  EXPECT_EQ(m.value().incrs[1].name, "appendonly.aof.3.incr.aof");
  EXPECT_EQ(m.value().cur_incr_seq, 3);
  ASSERT_EQ(m.value().history.size(), 1u);
  EXPECT_EQ(m.value().Format(), text);
}

TEST(AofManifest, CommentsQuotesUnknownKeysAndCrlf) {
  Result<AofManifest> m = AofManifest::Parse(
      "# a comment\r\n\nfile \"my file.1.incr.aof\" seq 1 type i future x\r\n", "m");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m.value().incrs.size(), 1u);
  EXPECT_EQ(m.value().incrs[0].name, "my file.1.incr.aof");
  EXPECT_TRUE(m.value().base.name.empty());
  EXPECT_EQ(m.value().Format(), "file \"my file.1.incr.aof\" seq 1 type i\n");
}

TEST(AofManifest, Errors) {
  auto err = [](const std::string& text) {
    Result<AofManifest> m = AofManifest::Parse(text, "dir/x.manifest");
    return m.ok() ? std::string("ok") : m.status().message();
  };
  EXPECT_EQ(err("file a.1.base.rdb seq 1 type b\nfile a.2.base.rdb seq 2 type b\n"),
            "Found duplicate base file information in dir/x.manifest");
  EXPECT_EQ(err("file a.2.incr.aof seq 2 type i\nfile a.1.incr.aof seq 1 type i\n"),
            "Found a non-monotonic sequence number in dir/x.manifest");
  EXPECT_NE(err("file a.1.incr.aof seq 1\n").find("lacks file, seq or type"), std::string::npos);
  EXPECT_NE(err("file a seq 1 type z\n").find("unknown type 'z'"), std::string::npos);
  EXPECT_NE(err("file a seq x type i\n").find("bad seq 'x'"), std::string::npos);
  EXPECT_NE(err("file ../a seq 1 type i\n").find("with a path"), std::string::npos);
  EXPECT_NE(err("file a seq\n").find("odd number of words"), std::string::npos);
  EXPECT_EQ(err(""), "ok");
}

TEST(AofManifest, Names) {
  EXPECT_EQ(AofManifest::BaseName("appendonly.aof", 3, true), "appendonly.aof.3.base.rdb");
  EXPECT_EQ(AofManifest::BaseName("appendonly.aof", 3, false), "appendonly.aof.3.base.aof");
  EXPECT_EQ(AofManifest::IncrName("x", 12), "x.12.incr.aof");
  EXPECT_EQ(AofManifest::ManifestName("x"), "x.manifest");
}

}  // namespace
}  // namespace hotkv::persistence

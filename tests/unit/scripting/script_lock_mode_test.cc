// The shard lock mode of read-only scripts (EVAL_RO, EVALSHA_RO, FCALL_RO, no-writes):
// a read-only script may call PFCOUNT, which stores the count it computed in the HLL's
// header (kCmdLockExclusive). The shard must then have been locked in the lock's write
// mode, whose walk-snapshot pre-write save (engine/keyspace.h, ShardLock) keeps the
// snapshot's image of the key as it was at the barrier. A recording hook stands in for
// the walk snapshot: it must be called for the key's shard before the bytes change.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../commands/in_process.h"
#include "common/key_hash.h"
#include "engine/keyspace.h"
#include "scripting/function_family.h"
#include "scripting/scripting.h"

namespace hotkv {
namespace {

using testing::InProcessServer;

void RegisterScripting(CommandTable& t) {
  scripting::RegisterScriptingCommands(t);
  scripting::RegisterFunctionCommands(t);
}

// Records, for each save the lock asked for, the shard and the key's bytes at that moment.
class RecordingHook : public ShardSnapshotHook {
 public:
  explicit RecordingHook(std::string key) : key_(std::move(key)) {}
  void SaveShard(Shard& shard, uint64_t epoch) override {
    saves.push_back(&shard);
    const size_t pos = shard.db0.keys.Find(key_, HashKey(key_));
    if (pos != KeyTable::kNotFound) {
      bytes_at_save.emplace_back(shard.db0.keys.At(pos)->str());
    } else {
      bytes_at_save.emplace_back();
    }
    shard.snapshot_epoch = epoch;
  }
  void SaveKeys(Shard& shard, uint64_t epoch, const SnapshotKeyHint&) override {
    SaveShard(shard, epoch);
  }
  std::vector<Shard*> saves;
  std::vector<std::string> bytes_at_save;

 private:
  std::string key_;
};

class ScriptLockModeTest : public ::testing::Test {
 protected:
  ScriptLockModeTest() : s_(RegisterScripting), a_(s_.NewClient()) {}
  ~ScriptLockModeTest() override { EndSnapshot(); }

  void BeginSnapshot(RecordingHook* hook) {
    g_snapshot_hook.store(hook, std::memory_order_release);
    g_snapshot_epoch.store(++epoch_, std::memory_order_release);
  }
  void EndSnapshot() {
    g_snapshot_epoch.store(0, std::memory_order_release);
    g_snapshot_hook.store(nullptr, std::memory_order_release);
  }
  std::string Run(const std::vector<std::string>& args) { return s_.Run(a_, args); }
  // The HLL's raw bytes (GET of an HLL is its string).
  std::string Bytes(const std::string& key) {
    std::string out = Run({"GET", key});
    const size_t eol = out.find("\r\n");
    return out.substr(eol + 2, out.size() - eol - 4);
  }

  InProcessServer s_;
  LocalClient& a_;
  uint64_t epoch_ = 1000;
};

TEST_F(ScriptLockModeTest, ReadOnlyScriptCallingPfcountSavesTheShardFirst) {
  ASSERT_EQ(Run({"FUNCTION", "LOAD", "REPLACE",
                 "#!lua name=lib\n"
                 "redis.register_function{function_name='cnt', callback=function(k) "
                 "return redis.call('pfcount', k[1]) end, flags={'no-writes'}}"}),
            "$3\r\nlib\r\n");
  const std::string body = "return redis.call('pfcount', KEYS[1])";
  const std::string sha_reply = Run({"SCRIPT", "LOAD", body});
  const std::string sha = sha_reply.substr(sha_reply.find("\r\n") + 2, 40);
  const std::vector<std::vector<std::string>> calls = {
      {"EVAL_RO", body, "1", "h"},
      {"EVALSHA_RO", sha, "1", "h"},
      {"EVAL", "#!lua flags=no-writes\n" + body, "1", "h"},
      {"FCALL_RO", "cnt", "1", "h"},
      {"PFCOUNT", "h"},  // the dispatcher's own lock of PFCOUNT (kCmdLockExclusive)
  };
  Shard* shard = &s_.server().keyspace().shard(Keyspace::ShardOf("h"));
  int n = 3;
  for (const auto& call : calls) {
    SCOPED_TRACE(call[0]);
    // A new element: the cached count is invalid again (outside the snapshot).
    ASSERT_EQ(Run({"PFADD", "h", "e" + std::to_string(n)}), ":1\r\n");
    n++;
    const std::string before = Bytes("h");
    RecordingHook hook("h");
    BeginSnapshot(&hook);
    EXPECT_EQ(Run(call), ":" + std::to_string(n - 3) + "\r\n");
    EndSnapshot();
    const std::string after = Bytes("h");
    ASSERT_NE(before, after) << "PFCOUNT did not store its count: nothing to check";
    ASSERT_EQ(hook.saves.size(), 1u) << "the shard was changed without its pre-write save";
    EXPECT_EQ(hook.saves[0], shard);
    EXPECT_EQ(hook.bytes_at_save[0], before);
  }
}

// A read-only script is still refused writes (the lock mode is not the permission).
TEST_F(ScriptLockModeTest, ReadOnlyScriptStillRefusesWrites) {
  const std::string out = Run({"EVAL_RO", "return redis.call('set', KEYS[1], 'v')", "1", "k"});
  EXPECT_EQ(out.rfind("-ERR Write commands are not allowed from read-only scripts.", 0), 0u)
      << out;
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

}  // namespace
}  // namespace hotkv

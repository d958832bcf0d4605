// Read-only scripts (EVAL_RO, EVALSHA_RO, FCALL_RO, no-writes) and commands that change
// their key's bytes although they are reads (kCmdLockExclusive: PFCOUNT stores the count
// it computed in the HLL header). A read-only run holds its shards in the lock's read
// mode, which skips the walk snapshot's pre-write save (engine/keyspace.h, ShardLock): it
// must not run such a command. Redis refuses may-replicate commands (PFCOUNT, PUBLISH) in
// read-only scripts as writes, and so does HotKV. A recording hook stands in for the walk
// snapshot: a run that may change a key saves its shard first.
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

// Records, for each save a lock asked for, the shard and the key's bytes at that moment.
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
  std::string Sha(const std::string& body) {
    const std::string reply = Run({"SCRIPT", "LOAD", body});
    return reply.substr(reply.find("\r\n") + 2, 40);
  }

  InProcessServer s_;
  LocalClient& a_;
  uint64_t epoch_ = 1000;
};

// The refusal covers every command a read-only run must not call under its read locks:
// each lock_exclusive command is also write or may_replicate, which Redis refuses in
// read-only scripts (so refusing lock_exclusive adds no refusal Redis does not make).
TEST_F(ScriptLockModeTest, EveryLockExclusiveCommandIsWriteOrMayReplicate) {
  int exclusive = 0;
  for (const CommandSpec* c : s_.server().commands().by_id()) {
    if (c != nullptr && c->is(kCmdLockExclusive)) {
      exclusive++;
      EXPECT_TRUE(c->is(kCmdWrite | kCmdMayReplicate)) << c->name;
    }
  }
  EXPECT_GE(exclusive, 1);  // PFCOUNT
}

TEST_F(ScriptLockModeTest, ReadOnlyScriptsRefusePfcountAndLeaveTheHllAlone) {
  ASSERT_EQ(Run({"FUNCTION", "LOAD", "REPLACE",
                 "#!lua name=lib\n"
                 "redis.register_function{function_name='cnt', callback=function(k) "
                 "return redis.call('pfcount', k[1]) end, flags={'no-writes'}}"}),
            "$3\r\nlib\r\n");
  const std::string body = "return redis.call('pfcount', KEYS[1])";
  const std::vector<std::vector<std::string>> calls = {
      {"EVAL_RO", body, "1", "h"},
      {"EVALSHA_RO", Sha(body), "1", "h"},
      {"EVAL", "#!lua flags=no-writes\n" + body, "1", "h"},
      {"FCALL_RO", "cnt", "1", "h"},
      {"FCALL", "cnt", "1", "h"},  // a no-writes function is a read-only run
      {"EVAL_RO", "return redis.pcall('pfcount', KEYS[1])", "1", "h"},
      {"EVAL_RO", "return redis.call('publish', 'ch', 'm')", "1", "h"},
  };
  ASSERT_EQ(Run({"PFADD", "h", "a", "b", "c"}), ":1\r\n");  // the cached count is stale
  const std::string before = Bytes("h");
  for (const auto& call : calls) {
    SCOPED_TRACE(call[0] + " " + call[1]);
    RecordingHook hook("h");
    BeginSnapshot(&hook);
    const std::string out = Run(call);
    EndSnapshot();
    EXPECT_EQ(out.rfind("-ERR Write commands are not allowed from read-only scripts.", 0), 0u)
        << out;
    EXPECT_EQ(Bytes("h"), before) << "a read-only run changed the HLL";
    EXPECT_TRUE(hook.saves.empty());
  }
}

// A script that may write (EVAL, FCALL of a function without no-writes) locks in write
// mode: PFCOUNT runs, and the shard is saved before the HLL's bytes change. So does the
// dispatcher's own PFCOUNT (kCmdLockExclusive).
TEST_F(ScriptLockModeTest, WritingRunsSaveTheShardBeforePfcountChangesIt) {
  ASSERT_EQ(Run({"FUNCTION", "LOAD", "REPLACE",
                 "#!lua name=lib2\n"
                 "redis.register_function('cnt2', function(k) "
                 "return redis.call('pfcount', k[1]) end)"}),
            "$4\r\nlib2\r\n");
  const std::string body = "return redis.call('pfcount', KEYS[1])";
  const std::vector<std::vector<std::string>> calls = {
      {"EVAL", body, "1", "h"},
      {"EVALSHA", Sha(body), "1", "h"},
      {"FCALL", "cnt2", "1", "h"},
      {"PFCOUNT", "h"},
  };
  Shard* shard = &s_.server().keyspace().shard(Keyspace::ShardOf("h"));
  int n = 0;
  for (const auto& call : calls) {
    SCOPED_TRACE(call[0]);
    // A new element: the cached count is stale again (outside the snapshot).
    ASSERT_EQ(Run({"PFADD", "h", "e" + std::to_string(n++)}), ":1\r\n");
    const std::string before = Bytes("h");
    RecordingHook hook("h");
    BeginSnapshot(&hook);
    EXPECT_EQ(Run(call), ":" + std::to_string(n) + "\r\n");
    EndSnapshot();
    ASSERT_NE(Bytes("h"), before) << "PFCOUNT did not store its count: nothing to check";
    ASSERT_EQ(hook.saves.size(), 1u) << "the shard was changed without its pre-write save";
    EXPECT_EQ(hook.saves[0], shard);
    EXPECT_EQ(hook.bytes_at_save[0], before);
  }
}

}  // namespace
}  // namespace hotkv

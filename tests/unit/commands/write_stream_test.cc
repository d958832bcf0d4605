// The write stream (server/write_stream.h) as commands produce it: exact commands, in
// order, with Redis's rewrites (absolute expiry, SPOP -> SREM, INCRBYFLOAT -> SET, served
// blocking pops -> the pop they did, MULTI ... EXEC, SELECT on a database change).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "in_process.h"
#include "server/write_stream.h"

namespace hotkv {
namespace {

using testing::InProcessServer;

class WriteStreamTest : public ::testing::Test {
 protected:
  WriteStreamTest() : a_(s_.NewClient()), b_(s_.NewClient()) {
    s_.server().write_stream().AddConsumer();
  }
  ~WriteStreamTest() override { s_.server().write_stream().RemoveConsumer(); }

  std::string Run(LocalClient& c, const std::vector<std::string>& args) { return s_.Run(c, args); }
  std::string Run(const std::vector<std::string>& args) { return s_.Run(a_, args); }

  // What the stream holds since the last call, one "CMD arg arg" string per command.
  std::vector<std::string> Stream() {
    std::string resp;
    s_.server().write_stream().Drain(&resp, &db_);
    std::vector<std::string> cmds;
    size_t pos = 0;
    while (pos < resp.size()) {
      EXPECT_EQ(resp[pos], '*');
      size_t eol = resp.find("\r\n", pos);
      const int n = std::stoi(resp.substr(pos + 1, eol - pos - 1));
      pos = eol + 2;
      std::string line;
      for (int i = 0; i < n; i++) {
        eol = resp.find("\r\n", pos);
        const size_t len = std::stoul(resp.substr(pos + 1, eol - pos - 1));
        pos = eol + 2;
        if (i > 0) {
          line += ' ';
        }
        line += resp.substr(pos, len);
        pos += len + 2;
      }
      cmds.push_back(line);
    }
    return cmds;
  }

  using V = std::vector<std::string>;
  InProcessServer s_;
  LocalClient& a_;
  LocalClient& b_;
  int db_ = -1;
};

TEST_F(WriteStreamTest, WritesAsTheyRanAndNothingForNoChange) {
  Run({"SET", "k", "v"});
  Run({"GET", "k"});
  Run({"DEL", "missing"});
  Run({"SET", "k", "w", "NX"});
  Run({"EXPIRE", "missing", "10"});
  Run({"RPUSH", "l", "a", "b"});
  Run({"SREM", "l", "a"});  // WRONGTYPE: nothing
  Run({"DEL", "k"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET k v", "RPUSH l a b", "DEL k"}));
}

TEST_F(WriteStreamTest, NothingWhileNoConsumer) {
  s_.server().write_stream().RemoveConsumer();
  Run({"SET", "k", "v"});
  s_.server().write_stream().AddConsumer();
  Run({"SET", "k2", "v"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET k2 v"}));
}

TEST_F(WriteStreamTest, RelativeExpiryBecomesAbsolute) {
  RefreshCachedClock();
  const int64_t now = CachedNowMs();
  Run({"SET", "a", "1", "EX", "100"});
  Run({"SETEX", "b", "100", "2"});
  Run({"PSETEX", "c", "100000", "3"});
  Run({"EXPIRE", "a", "200"});
  Run({"PEXPIRE", "b", "200000", "GT"});
  Run({"GETEX", "c", "PX", "300000"});
  Run({"GETEX", "c", "PERSIST"});
  Run({"SET", "d", "4", "PXAT", "4000000000000"});
  std::vector<std::string> got = Stream();
  ASSERT_EQ(got.size(), 9u);
  // Every absolute time is now + the relative one (the clock is cached per command).
  auto at = [&](const std::string& cmd, const std::string& prefix) -> int64_t {
    EXPECT_EQ(cmd.substr(0, prefix.size()), prefix) << cmd;
    return std::stoll(cmd.substr(prefix.size()));
  };
  auto near = [&](int64_t t, int64_t rel) { return t >= now + rel && t <= now + rel + 60000; };
  EXPECT_TRUE(near(at(got[1], "SET a 1 PXAT "), 100000)) << got[1];
  EXPECT_TRUE(near(at(got[2], "SET b 2 PXAT "), 100000)) << got[2];
  EXPECT_TRUE(near(at(got[3], "SET c 3 PXAT "), 100000)) << got[3];
  EXPECT_TRUE(near(at(got[4], "PEXPIREAT a "), 200000)) << got[4];
  EXPECT_TRUE(near(at(got[5], "PEXPIREAT b "), 200000)) << got[5];
  EXPECT_TRUE(near(at(got[6], "PEXPIREAT c "), 300000)) << got[6];
  EXPECT_EQ(got[7], "PERSIST c");
  EXPECT_EQ(got[8], "SET d 4 PXAT 4000000000000");
}

TEST_F(WriteStreamTest, PastExpiryBecomesDel) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "1"});
  Run({"EXPIRE", "a", "-1"});
  Run({"GETEX", "b", "EXAT", "1"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET a 1", "SET b 1", "DEL a", "DEL b"}));
}

TEST_F(WriteStreamTest, ExpiredKeyBecomesDel) {
  RefreshCachedClock();
  const std::string soon = std::to_string(CachedNowMs() + 20);
  Run({"SET", "k", "v", "PXAT", soon});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET k v PXAT " + soon, "DEL k"}));
}

TEST_F(WriteStreamTest, FloatIncrementsBecomeTheirResult) {
  Run({"SET", "f", "1.5"});
  Run({"INCRBYFLOAT", "f", "2"});
  Run({"HINCRBYFLOAT", "h", "x", "0.25"});
  Run({"INCRBYFLOAT", "h", "1"});  // WRONGTYPE: nothing
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET f 1.5", "SET f 3.5 KEEPTTL", "HSET h x 0.25"}));
}

TEST_F(WriteStreamTest, SpopBecomesSrem) {
  Run({"SADD", "s", "a", "b", "c", "d"});
  const std::string one = Run({"SPOP", "s"});
  ASSERT_EQ(one.substr(0, 4), "$1\r\n");
  const std::string m = one.substr(4, 1);
  Run({"SPOP", "s", "10"});  // the rest: the whole set goes
  Run({"SADD", "t", "x", "y"});
  Run({"SPOP", "t", "0"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SADD s a b c d", "SREM s " + m, "DEL s", "SADD t x y"}));
}

TEST_F(WriteStreamTest, SelectWhenTheDatabaseChanges) {
  Run({"SET", "a", "1"});
  Run({"SELECT", "3"});
  Run({"SET", "b", "2"});
  Run(b_, {"SET", "c", "3"});
  Run({"SET", "d", "4"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET a 1", "SELECT 3", "SET b 2", "SELECT 0", "SET c 3",
                         "SELECT 3", "SET d 4"}));
}

TEST_F(WriteStreamTest, MultiExecIsWrapped) {
  Run({"MULTI"});
  Run({"SET", "a", "1"});
  Run({"GET", "a"});
  Run({"INCR", "n"});
  Run({"EXPIRE", "a", "-1"});
  Run({"EXEC"});
  // One write only: no wrapping (as Redis 7).
  Run({"MULTI"});
  Run({"SET", "b", "2"});
  Run({"EXEC"});
  // No write: nothing.
  Run({"MULTI"});
  Run({"GET", "b"});
  Run({"EXEC"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "MULTI", "SET a 1", "INCR n", "DEL a", "EXEC", "SET b 2"}));
}

TEST_F(WriteStreamTest, BlockingPopsServedByAPush) {
  EXPECT_EQ(Run(a_, {"BLPOP", "l", "0"}), "");
  EXPECT_EQ(Run(b_, {"RPUSH", "l", "x", "y"}), ":2\r\n");
  s_.RunPendingWork();
  EXPECT_EQ(a_.TakeOutput(), "*2\r\n$1\r\nl\r\n$1\r\nx\r\n");
  EXPECT_EQ(Run(a_, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}), "");
  Run(b_, {"LPUSH", "src", "z"});
  s_.RunPendingWork();
  EXPECT_EQ(a_.TakeOutput(), "$1\r\nz\r\n");
  EXPECT_EQ(Run(a_, {"BZPOPMIN", "z", "0"}), "");
  Run(b_, {"ZADD", "z", "1", "m", "2", "n"});
  s_.RunPendingWork();
  EXPECT_EQ(a_.TakeOutput(), "*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run(a_, {"BLMPOP", "0", "1", "l2", "RIGHT", "COUNT", "5"}), "");
  Run(b_, {"RPUSH", "l2", "p", "q"});
  s_.RunPendingWork();
  EXPECT_EQ(Stream(),
            (V{"SELECT 0", "RPUSH l x y", "LPOP l", "LPUSH src z", "LMOVE src dst LEFT RIGHT",
               "ZADD z 1 m 2 n", "ZPOPMIN z", "RPUSH l2 p q", "RPOP l2 5"}));
}

TEST_F(WriteStreamTest, BlockingPopServedByATransaction) {
  EXPECT_EQ(Run(a_, {"BLPOP", "q", "0"}), "");
  Run(b_, {"MULTI"});
  Run(b_, {"RPUSH", "q", "1", "2"});
  Run(b_, {"SET", "x", "y"});
  Run(b_, {"EXEC"});
  s_.RunPendingWork();
  EXPECT_EQ(a_.TakeOutput(), "*2\r\n$1\r\nq\r\n$1\r\n1\r\n");
  // The waiter sees the transaction's final state: its pop comes after EXEC.
  EXPECT_EQ(Stream(), (V{"SELECT 0", "MULTI", "RPUSH q 1 2", "SET x y", "EXEC", "LPOP q"}));
}

TEST_F(WriteStreamTest, BlockingPopsWithDataAndMpops) {
  Run({"RPUSH", "l", "a", "b", "c"});
  Run({"BRPOP", "l", "0"});
  Run({"BRPOPLPUSH", "l", "m", "0"});
  Run({"LMPOP", "1", "l", "LEFT"});
  Run({"ZADD", "z", "1", "a", "2", "b"});
  Run({"BZPOPMAX", "z", "0"});
  Run({"ZMPOP", "1", "z", "MIN", "COUNT", "3"});
  Run({"BLPOP", "nothing", "0.01"});  // times out later: nothing now
  EXPECT_EQ(Stream(), (V{"SELECT 0", "RPUSH l a b c", "RPOP l", "RPOPLPUSH l m", "LPOP l 1",
                         "ZADD z 1 a 2 b", "ZPOPMAX z", "ZPOPMIN z 3"}));
}

TEST_F(WriteStreamTest, RestoreWithRelativeTtlBecomesAbsttl) {
  Run({"SET", "src", "value"});
  const std::string dump = Run({"DUMP", "src"});
  ASSERT_EQ(dump[0], '$');
  const size_t eol = dump.find("\r\n");
  const std::string payload = dump.substr(eol + 2, std::stoul(dump.substr(1, eol - 1)));
  RefreshCachedClock();
  const int64_t now = CachedNowMs();
  EXPECT_EQ(Run({"RESTORE", "a", "100000", payload}), "+OK\r\n");
  EXPECT_EQ(Run({"RESTORE", "b", "0", payload}), "+OK\r\n");
  EXPECT_EQ(Run({"RESTORE", "a", "-5", payload, "REPLACE"}).substr(0, 4), "-ERR");
  std::vector<std::string> got = Stream();
  ASSERT_EQ(got.size(), 4u);
  const std::string prefix = "RESTORE a ";
  ASSERT_EQ(got[2].substr(0, prefix.size()), prefix);
  const int64_t at = std::stoll(got[2].substr(prefix.size()));
  EXPECT_TRUE(at >= now + 100000 && at <= now + 160000) << at;
  EXPECT_EQ(got[2].substr(got[2].size() - 7), " ABSTTL");
  EXPECT_EQ(got[3], "RESTORE b 0 " + payload);
}

TEST_F(WriteStreamTest, FlushAndSwapDb) {
  Run({"SET", "a", "1"});
  Run({"SELECT", "2"});
  Run({"FLUSHDB"});
  Run({"SWAPDB", "0", "2"});
  Run({"FLUSHALL", "ASYNC"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET a 1", "SELECT 2", "FLUSHDB", "SWAPDB 0 2", "FLUSHALL"}));
}

TEST_F(WriteStreamTest, RenameCopyMoveAsTheyRan) {
  Run({"SET", "a", "1"});
  Run({"RENAME", "a", "b"});
  Run({"COPY", "b", "c", "DB", "1"});
  Run({"MOVE", "b", "2"});
  Run({"RENAME", "missing", "x"});  // an error: nothing
  EXPECT_EQ(Stream(), (V{"SELECT 0", "SET a 1", "RENAME a b", "COPY b c DB 1", "MOVE b 2"}));
}

TEST_F(WriteStreamTest, VectorWritesRecordedUnderTheElementLock) {
  // Self-locking writes record themselves when the change applied (vector_common.h):
  // as they ran, nothing when nothing changed, VSIM.DEL one record per element removed,
  // inside EXEC within the MULTI ... EXEC.
  Run({"VADD", "vs", "VALUES", "2", "1", "2", "a"});
  Run({"VADD", "vs", "VALUES", "2", "1", "3", "b"});
  Run({"VSETATTR", "vs", "a", "{\"x\":1}"});
  Run({"VSETATTR", "vs", "zz", "{}"});
  Run({"VREM", "vs", "zz"});
  Run({"VREM", "vs", "a"});
  Run({"MULTI"});
  Run({"VREM", "vs", "b"});
  Run({"VADD", "vs", "VALUES", "2", "1", "1", "c"});
  Run({"EXEC"});
  EXPECT_EQ(Stream(), (V{"SELECT 0", "VADD vs VALUES 2 1 2 a", "VADD vs VALUES 2 1 3 b",
                         "VSETATTR vs a {\"x\":1}", "VREM vs a", "MULTI", "VREM vs b",
                         "VADD vs VALUES 2 1 1 c", "EXEC"}));
  Run({"VSIM.CREATEINDEX", "idx", "DIM", "2"});
  Run({"VSIM.SET", "idx", "p", "VALUES", "2", "1", "2"});
  Run({"VSIM.SET", "idx", "q", "VALUES", "2", "2", "1"});
  EXPECT_EQ(Stream().size(), 3u);  // VSIM.CREATEINDEX, two VSIM.SET
  Run({"VSIM.DEL", "idx", "p", "zz", "q"});
  EXPECT_EQ(Stream(), (V{"VSIM.DEL idx p", "VSIM.DEL idx q"}));
}

// The stream alone, with producers on several threads: Drain merges their buffers by
// sequence number (runs of one thread, SELECT between databases), and buffers reused
// across drains (the spares) carry nothing over.
TEST(WriteStreamMerge, ThreadsInterleaveInSequenceOrder) {
  WriteStream ws;
  ws.AddConsumer();
  std::string out;
  int db = -1;
  uint64_t expect_complete = 0;
  for (int round = 0; round < 3; round++) {
    // Each step: which thread commits the next record, and in which database.
    const std::vector<std::pair<int, int>> steps = {{0, 0}, {0, 0}, {1, 0}, {1, 1}, {1, 1},
                                                    {0, 1}, {2, 0}, {0, 0}, {0, 0}, {1, 0}};
    std::vector<std::thread> threads;
    std::vector<std::string> want;
    std::mutex mu;
    std::condition_variable cv;
    size_t turn = 0;
    for (int t = 0; t < 3; t++) {
      threads.emplace_back([&, t] {
        for (size_t i = 0; i < steps.size(); i++) {
          if (steps[i].first != t) {
            continue;
          }
          std::unique_lock<std::mutex> lk(mu);
          cv.wait(lk, [&] { return turn == i; });
          const std::string key = "k" + std::to_string(round) + "_" + std::to_string(i);
          ws.Append(steps[i].second, {"SET", key, "v"});
          if (i == 4) {
            ws.Append(steps[i].second, {"DEL", key});  // two entries, one record
          }
          ws.Commit();
          turn++;
          cv.notify_all();
        }
      });
    }
    for (auto& th : threads) {
      th.join();
    }
    expect_complete += steps.size();
    out.clear();
    EXPECT_EQ(ws.Drain(&out, &db), expect_complete);
    int cur = round == 0 ? -1 : 0;
    std::string expected;
    for (size_t i = 0; i < steps.size(); i++) {
      if (steps[i].second != cur) {
        cur = steps[i].second;
        WriteStream::EncodeCommand(&expected, {"SELECT", std::to_string(cur)});
      }
      const std::string key = "k" + std::to_string(round) + "_" + std::to_string(i);
      WriteStream::EncodeCommand(&expected, {"SET", key, "v"});
      if (i == 4) {
        WriteStream::EncodeCommand(&expected, {"DEL", key});
      }
    }
    EXPECT_EQ(out, expected) << "round " << round;
    EXPECT_EQ(db, 0);
  }
  out.clear();
  EXPECT_EQ(ws.Drain(&out, &db), expect_complete);
  EXPECT_EQ(out, "");
  ws.RemoveConsumer();
}

// A drain appends after what `out` holds already.
TEST(WriteStreamMerge, DrainAppends) {
  WriteStream ws;
  ws.AddConsumer();
  ws.Append(0, {"SET", "a", "1"});
  ws.Commit();
  std::string out = "kept";
  int db = 0;
  ws.Drain(&out, &db);
  EXPECT_EQ(out, "kept*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n");
  ws.RemoveConsumer();
}

// DrainPieces hands out the merged runs where they lie (no copy): their concatenation is
// exactly what Drain would write, SELECTs included, for records of several threads
// interleaved by number across databases; after ReleaseDrained the next drain holds only
// what came later.
TEST(WriteStreamMerge, DrainPiecesEqualsDrain) {
  WriteStream ws;
  ws.AddConsumer();
  // Two producing threads taking turns (each a buffer of its own): A B A A B, in
  // databases 0 0 1 1 0.
  const std::vector<std::pair<int, int>> steps = {{0, 0}, {1, 0}, {0, 1}, {0, 1}, {1, 0}};
  std::mutex mu;
  std::condition_variable cv;
  size_t turn = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; t++) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < steps.size(); i++) {
        if (steps[i].first != t) {
          continue;
        }
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return turn == i; });
        ws.Append(steps[i].second, {"SET", "k" + std::to_string(i), "v"});
        ws.Commit();
        turn++;
        cv.notify_all();
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  std::string expected;
  WriteStream::EncodeCommand(&expected, {"SELECT", "0"});
  WriteStream::EncodeCommand(&expected, {"SET", "k0", "v"});
  WriteStream::EncodeCommand(&expected, {"SET", "k1", "v"});
  WriteStream::EncodeCommand(&expected, {"SELECT", "1"});
  WriteStream::EncodeCommand(&expected, {"SET", "k2", "v"});
  WriteStream::EncodeCommand(&expected, {"SET", "k3", "v"});
  WriteStream::EncodeCommand(&expected, {"SELECT", "0"});
  WriteStream::EncodeCommand(&expected, {"SET", "k4", "v"});
  WriteStream::Drained d;
  int db = -1;
  EXPECT_EQ(ws.DrainPieces(&d, &db), 5u);
  std::string got;
  for (const WriteStream::Piece& p : d.pieces) {
    got.append(p.data, p.size);
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(d.bytes, expected.size());
  EXPECT_EQ(d.pieces.size(), 7u);  // 3 SELECTs, 4 runs (k2 k3: one run)
  EXPECT_EQ(db, 0);
  ws.ReleaseDrained(&d);
  EXPECT_TRUE(d.pieces.empty());
  ws.Append(0, {"DEL", "k0"});
  ws.Commit();
  EXPECT_EQ(ws.DrainPieces(&d, &db), 6u);
  got.clear();
  for (const WriteStream::Piece& p : d.pieces) {
    got.append(p.data, p.size);
  }
  expected.clear();
  WriteStream::EncodeCommand(&expected, {"DEL", "k0"});
  EXPECT_EQ(got, expected);
  ws.ReleaseDrained(&d);
  std::string out;
  EXPECT_EQ(ws.Drain(&out, &db), 6u);
  EXPECT_EQ(out, "");
  ws.RemoveConsumer();
}

// AppendCommit commits at once when nothing is pending (the dispatcher's common case);
// behind a pending record, or inside a MULTI, it only appends, and Commit commits both in
// order. The raw request's bytes are copied when they are canonical RESP, else encoded.
TEST(WriteStreamMerge, AppendCommitAloneOrBehindAPendingRecord) {
  WriteStream ws;
  ws.AddConsumer();
  const std::vector<std::string_view> a{"SET", "a", "1"};
  EXPECT_NE(ws.AppendCommit(0, a), 0u);
  EXPECT_EQ(ws.Commit(), 0u);  // nothing left pending
  ws.Append(0, {"DEL", "x"});
  const std::vector<std::string_view> b{"SET", "b", "2"};
  EXPECT_EQ(ws.AppendCommit(0, b), 0u);
  EXPECT_NE(ws.Commit(), 0u);
  // A raw request: canonical bytes copied as they came; a longer form is re-encoded.
  const std::string raw = "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n3\r\n";
  const std::vector<std::string_view> c{std::string_view(raw).substr(8, 3),
                                        std::string_view(raw).substr(17, 1),
                                        std::string_view(raw).substr(24, 1)};
  WriteStream::SetRawRequest(&c, raw);
  EXPECT_NE(ws.AppendCommit(0, c), 0u);
  const std::string padded = "*3\r\n$03\r\nSET\r\n$1\r\nd\r\n$1\r\n4\r\n";
  const std::vector<std::string_view> d{std::string_view(padded).substr(9, 3),
                                        std::string_view(padded).substr(18, 1),
                                        std::string_view(padded).substr(25, 1)};
  WriteStream::SetRawRequest(&d, padded);
  EXPECT_NE(ws.AppendCommit(0, d), 0u);
  WriteStream::SetRawRequest(nullptr, {});
  std::string out;
  int db = 0;
  ws.Drain(&out, &db);
  EXPECT_EQ(out,
            "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
            "*2\r\n$3\r\nDEL\r\n$1\r\nx\r\n"
            "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n" + raw +
            "*3\r\n$3\r\nSET\r\n$1\r\nd\r\n$1\r\n4\r\n");
  ws.RemoveConsumer();
}

}  // namespace
}  // namespace hotkv

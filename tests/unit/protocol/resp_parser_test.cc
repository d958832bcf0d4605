// RequestParser: complete commands, every split point, limits and random garbage.
#include "protocol/resp_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace hotkv {
namespace {

// Feeds `input` to a parser in pieces of the given sizes (buffer compaction included, as
// the server does it) and returns the parsed commands, or the error.
struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;
};

Outcome Feed(const std::string& input, const std::vector<size_t>& pieces,
             const ParseLimits& limits = {}) {
  Outcome out;
  RequestParser parser;
  std::string buf;
  size_t fed = 0;
  size_t piece = 0;
  while (fed < input.size()) {
    size_t n = piece < pieces.size() ? pieces[piece++] : input.size() - fed;
    n = std::min(n, input.size() - fed);
    buf.append(input, fed, n);
    fed += n;
    for (;;) {
      size_t consumed = 0;
      auto st = parser.Parse(buf, limits, &consumed);
      if (st == RequestParser::kIncomplete) {
        break;
      }
      if (st == RequestParser::kError) {
        out.error = parser.error();
        return out;
      }
      std::vector<std::string> cmd(parser.args().begin(), parser.args().end());
      if (!cmd.empty()) {
        out.commands.push_back(cmd);
      }
      buf.erase(0, consumed);
    }
  }
  return out;
}

std::string Multibulk(const std::vector<std::string>& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) {
    s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return s;
}

TEST(RespParser, ParsesMultibulkAndInline) {
  auto o = Feed(Multibulk({"SET", "key", "value"}) + "PING\r\n" + "GET  key\n", {});
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.commands.size(), 3u);
  EXPECT_EQ(o.commands[0], (std::vector<std::string>{"SET", "key", "value"}));
  EXPECT_EQ(o.commands[1], (std::vector<std::string>{"PING"}));
  EXPECT_EQ(o.commands[2], (std::vector<std::string>{"GET", "key"}));
}

TEST(RespParser, BinarySafeBulk) {
  std::string v("a\r\nb\0c", 6);
  auto o = Feed(Multibulk({"SET", "k", v}), {});
  ASSERT_EQ(o.commands.size(), 1u);
  EXPECT_EQ(o.commands[0][2], v);
}

TEST(RespParser, EverySplitPointParsesTheSame) {
  std::string input = Multibulk({"MSET", "a", std::string(300, 'x'), "b", ""}) +
                      Multibulk({"GET", "a"}) + "ECHO \"hello world\"\r\n";
  auto whole = Feed(input, {});
  ASSERT_EQ(whole.commands.size(), 3u);
  for (size_t split = 1; split < input.size(); split++) {
    auto o = Feed(input, {split});
    ASSERT_EQ(o.error, "") << split;
    ASSERT_EQ(o.commands, whole.commands) << split;
  }
  // One byte at a time.
  auto bytes = Feed(input, std::vector<size_t>(input.size(), 1));
  EXPECT_EQ(bytes.commands, whole.commands);
}

TEST(RespParser, RandomSplitsOfManyCommands) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 200; round++) {
    std::vector<std::vector<std::string>> expected;
    std::string input;
    int n = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < n; i++) {
      std::vector<std::string> cmd;
      int argc = 1 + static_cast<int>(rng() % 5);
      for (int a = 0; a < argc; a++) {
        std::string arg(rng() % 70, '\0');
        for (char& c : arg) {
          c = static_cast<char>(rng() & 0xff);
        }
        cmd.push_back(arg);
      }
      expected.push_back(cmd);
      input += Multibulk(cmd);
    }
    std::vector<size_t> pieces;
    for (size_t left = input.size(); left > 0;) {
      size_t p = 1 + rng() % 40;
      pieces.push_back(p);
      left -= std::min(left, p);
    }
    auto o = Feed(input, pieces);
    ASSERT_EQ(o.error, "");
    ASSERT_EQ(o.commands, expected) << "round " << round;
  }
}

// A whole command in one buffer takes the one-pass path (ParseWhole), the same bytes fed
// one at a time take the resumable one: both must accept, reject and report alike, for
// the unusual spellings the one-pass path hands over too (leading zeros, signs, counts
// of zero or below, long length lines, limits).
TEST(RespParser, WholeBufferAndByteByByteAgree) {
  const std::vector<std::string> inputs = {
      Multibulk({"GET", "key:000000123456"}),
      Multibulk({"SET", "k", std::string(256, 'x')}),
      Multibulk({"SET", "k", std::string(100000, 'y')}),
      Multibulk({"", "a", std::string(10, 'z'), std::string(99, 'q'), std::string(1000, 'w')}),
      "*2\r\n$3\r\nGET\r\n$03\r\nabc\r\n",
      "*02\r\n$3\r\nGET\r\n$1\r\na\r\n",
      "*+2\r\n$3\r\nGET\r\n$1\r\na\r\n",
      "*2\r\n$3\r\nGET\r\n$+1\r\na\r\n",
      "*2\r\n$3\r\nGET\r\n$-1\r\n",
      "*0\r\n*1\r\n$4\r\nPING\r\n",
      "*-1\r\n*1\r\n$4\r\nPING\r\n",
      "*1\r\n$4\r\nPINGx\r\n",
      "*1\r\n$4\r\nPING\rx",
      "*1\r\n$4\nPING\r\n",
      "*1\n$4\r\nPING\r\n",
      "*1\r\n:4\r\nPING\r\n",
      "*1\r\n$00000000000000000004\r\nPING\r\n",
      "*1\r\n$99999999999\r\nPING\r\n",
      "*1234567\r\n",
      "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000\r\n" + std::string(2000, 'v') + "\r\n",
      "*11\r\n" + std::string(11 * 7, ' '),
  };
  for (bool auth : {true, false}) {
    ParseLimits limits;
    limits.authenticated = auth;
    limits.max_bulk_len = 1000;
    for (const std::string& in : inputs) {
      Outcome whole = Feed(in, {in.size()}, limits);
      Outcome bytes = Feed(in, std::vector<size_t>(in.size(), 1), limits);
      EXPECT_EQ(whole.commands, bytes.commands) << auth << " " << in.substr(0, 40);
      EXPECT_EQ(whole.error, bytes.error) << auth << " " << in.substr(0, 40);
    }
  }
}

// A command of thousands of arguments (PCACHE.LONGEST, MGET) arriving in pieces: the
// one-pass path takes the whole arguments of the first piece and the resumable one goes
// on from there; every way of cutting it parses the same, long and malformed arguments
// in the middle included.
TEST(RespParser, ManyArgumentsInPieces) {
  std::mt19937_64 rng(19);
  std::vector<std::string> args = {"PCACHE.LONGEST", "ns"};
  for (int i = 0; i < 4000; i++) {
    std::string a(i % 97 == 0 ? 150 + i % 7 : 32, 'a');
    for (char& c : a) {
      c = static_cast<char>('0' + rng() % 75);
    }
    args.push_back(a);
  }
  const std::string input = Multibulk(args) + Multibulk({"GET", "k"});
  const std::vector<std::vector<std::string>> expected = {args, {"GET", "k"}};
  for (size_t piece : {size_t{1}, size_t{5}, size_t{4096}, size_t{32768}, size_t{65536}}) {
    auto o = Feed(input, std::vector<size_t>(input.size() / piece + 1, piece));
    ASSERT_EQ(o.error, "") << piece;
    ASSERT_EQ(o.commands, expected) << piece;
  }
  for (int round = 0; round < 20; round++) {
    std::vector<size_t> pieces;
    for (size_t left = input.size(); left > 0;) {
      size_t p = 1 + rng() % 20000;
      pieces.push_back(p);
      left -= std::min(left, p);
    }
    auto o = Feed(input, pieces);
    ASSERT_EQ(o.error, "") << round;
    ASSERT_EQ(o.commands, expected) << round;
  }
  // A malformed argument after many good ones is reported wherever the cut falls.
  std::string bad = Multibulk(args);
  bad.replace(bad.size() - 40, 1, "x");
  for (size_t split : {size_t{100}, bad.size() / 2, bad.size() - 60, bad.size() - 30}) {
    auto o = Feed(bad, {split});
    EXPECT_EQ(o.error.rfind("Protocol error", 0), 0u) << split << " " << o.error;
    EXPECT_EQ(Feed(bad, {}).error, o.error) << split;
  }
}

TEST(RespParser, ProtocolErrors) {
  EXPECT_EQ(Feed("*abc\r\n", {}).error, "Protocol error: invalid multibulk length");
  EXPECT_EQ(Feed("*1\r\n$x\r\n", {}).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(Feed("*1\r\n$-5\r\n", {}).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(Feed("*1\r\n+OK\r\n", {}).error, "Protocol error: expected '$', got '+'");
  EXPECT_EQ(Feed("*1\r\n$3\r\nabcd\r\n", {}).error, "Protocol error: invalid bulk format");
  EXPECT_EQ(Feed("SET \"a b\r\n", {}).error, "Protocol error: unbalanced quotes in request");
  ParseLimits small;
  small.max_bulk_len = 10;
  EXPECT_EQ(Feed("*1\r\n$11\r\n", {}, small).error, "Protocol error: invalid bulk length");
  ParseLimits unauth;
  unauth.authenticated = false;
  EXPECT_EQ(Feed("*11\r\n", {}, unauth).error, "Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(Feed("*1\r\n$16385\r\n", {}, unauth).error, "Protocol error: unauthenticated bulk length");
  EXPECT_EQ(Feed(std::string(70000, 'a'), {}).error, "Protocol error: too big inline request");
  EXPECT_EQ(Feed("*" + std::string(70000, '1'), {}).error, "Protocol error: too big mbulk count string");
}

TEST(RespParser, EmptyCommandsAreSkipped) {
  auto o = Feed("\r\n*0\r\n*-1\r\nPING\r\n", {});
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.commands.size(), 1u);
}

TEST(RespParser, InlineQuoting) {
  auto o = Feed("SET k \"a\\x41\\n\" 'it\\'s'\r\n", {});
  ASSERT_EQ(o.commands.size(), 1u);
  EXPECT_EQ(o.commands[0][2], "aA\n");
  EXPECT_EQ(o.commands[0][3], "it's");
  EXPECT_EQ(Feed("SET k \"a\"b\r\n", {}).error, "Protocol error: unbalanced quotes in request");
}

TEST(RespParser, PendingBytesForLargeBulk) {
  RequestParser p;
  std::string head = "*2\r\n$3\r\nSET\r\n$100000\r\nabc";
  size_t consumed = 0;
  ASSERT_EQ(p.Parse(head, {}, &consumed), RequestParser::kIncomplete);
  EXPECT_GE(p.PendingBytes(), 100000u - 3);
}

// Random garbage, fed in random pieces, must never crash or hang; the parser either
// reports an error or keeps asking for more.
TEST(RespParser, FuzzRandomBytesNeverCrash) {
  std::mt19937_64 rng(7);
  const char alphabet[] = "*$\r\n0123456789-+ \"'\\xabcSETGET";
  for (int round = 0; round < 5000; round++) {
    std::string input(rng() % 200, '\0');
    bool structured = rng() % 2;
    for (char& c : input) {
      c = structured ? alphabet[rng() % (sizeof(alphabet) - 1)] : static_cast<char>(rng() & 0xff);
    }
    std::vector<size_t> pieces;
    for (size_t left = input.size(); left > 0;) {
      size_t p = 1 + rng() % 17;
      pieces.push_back(p);
      left -= std::min(left, p);
    }
    ParseLimits limits;
    limits.max_bulk_len = 1 + static_cast<int64_t>(rng() % 1000);
    limits.authenticated = rng() % 4 != 0;
    Outcome o = Feed(input, pieces, limits);
    (void)o;
  }
}

}  // namespace
}  // namespace hotkv

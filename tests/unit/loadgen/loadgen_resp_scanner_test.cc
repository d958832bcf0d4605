// Tests of hotkv-loadgen's streaming RESP2 reply scanner.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "resp_scanner.h"

namespace hotkv::loadgen {
namespace {

// What a test keeps of each reply (views die with the callback).
struct Seen {
  char type;
  int64_t number;
  std::vector<std::string> items;
};

// Feeds `stream` in the given chunk sizes (cycled); returns the replies seen.
std::vector<Seen> Scan(RespScanner& scanner, const std::string& stream,
                       const std::vector<size_t>& chunks, bool* ok = nullptr) {
  std::vector<Seen> seen;
  auto on_reply = [&](const RespReply& r) {
    Seen s{r.type, r.number, {}};
    for (size_t i = 0; i < r.num_items; ++i) {
      s.items.emplace_back(r.items[i]);
    }
    seen.push_back(std::move(s));
  };
  size_t pos = 0;
  size_t c = 0;
  bool all_ok = true;
  while (pos < stream.size()) {
    size_t n = std::min(chunks[c++ % chunks.size()], stream.size() - pos);
    all_ok = scanner.Feed(std::string_view(stream).substr(pos, n), on_reply) && all_ok;
    pos += n;
  }
  if (ok != nullptr) {
    *ok = all_ok;
  }
  return seen;
}

std::vector<Seen> ScanAll(const std::string& stream, bool capture = false) {
  RespScanner scanner(capture);
  return Scan(scanner, stream, {stream.size() + 1});
}

TEST(LoadgenRespScanner, ScalarTypes) {
  std::vector<Seen> r =
      ScanAll("+OK\r\n-ERR wrong\r\n:42\r\n:-7\r\n$3\r\nfoo\r\n$0\r\n\r\n$-1\r\n");
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].type, '+');
  EXPECT_EQ(r[1].type, '-');
  ASSERT_EQ(r[1].items.size(), 1u);  // error text is always captured
  EXPECT_EQ(r[1].items[0], "ERR wrong");
  EXPECT_EQ(r[2].type, ':');
  EXPECT_EQ(r[2].number, 42);
  EXPECT_EQ(r[3].number, -7);
  EXPECT_EQ(r[4].type, '$');
  EXPECT_EQ(r[4].number, 3);
  EXPECT_TRUE(r[4].items.empty());  // not in capture mode
  EXPECT_EQ(r[5].number, 0);
  EXPECT_EQ(r[6].number, -1);
}

TEST(LoadgenRespScanner, ArraysEmptyNullAndNested) {
  std::vector<Seen> r = ScanAll(
      "*0\r\n"
      "*-1\r\n"
      "*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n$1\r\na\r\n"
      "*3\r\n*0\r\n*-1\r\n$-1\r\n"
      "*1\r\n*1\r\n*1\r\n*1\r\n+deep\r\n"
      ":5\r\n");
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].type, '*');
  EXPECT_EQ(r[0].number, 0);
  EXPECT_EQ(r[1].number, -1);
  EXPECT_EQ(r[2].number, 2);
  EXPECT_EQ(r[3].number, 3);
  EXPECT_EQ(r[4].number, 1);
  EXPECT_EQ(r[5].type, ':');
  EXPECT_EQ(r[5].number, 5);
}

TEST(LoadgenRespScanner, ErrorsAreTopLevelOnly) {
  // EXEC-style: an error inside an array does not make the reply an error.
  std::vector<Seen> r = ScanAll("*2\r\n+OK\r\n-ERR inner\r\n-WRONGTYPE outer\r\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].type, '*');
  EXPECT_EQ(r[1].type, '-');
  EXPECT_EQ(r[1].items[0], "WRONGTYPE outer");
}

TEST(LoadgenRespScanner, EverySplitGivesTheSameReplies) {
  const std::string stream =
      "+OK\r\n$5\r\nhello\r\n*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$4\r\nbody\r\n"
      "-ERR x\r\n:123456789\r\n*2\r\n*1\r\n:1\r\n$-1\r\n$0\r\n\r\n";
  std::vector<Seen> whole = ScanAll(stream, true);
  ASSERT_EQ(whole.size(), 7u);
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    RespScanner scanner(true);
    std::vector<Seen> split = Scan(scanner, stream, {chunk});
    ASSERT_EQ(split.size(), whole.size()) << "chunk " << chunk;
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(split[i].type, whole[i].type);
      EXPECT_EQ(split[i].number, whole[i].number);
      EXPECT_EQ(split[i].items, whole[i].items) << "chunk " << chunk << " reply " << i;
    }
    EXPECT_TRUE(scanner.AtReplyBoundary());
  }
  // Random splits.
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> chunks;
    for (int i = 0; i < 16; ++i) {
      chunks.push_back(1 + rng() % 9);
    }
    RespScanner scanner(true);
    EXPECT_EQ(Scan(scanner, stream, chunks).size(), whole.size());
  }
}

TEST(LoadgenRespScanner, PartialReplyIsNotReported) {
  RespScanner scanner;
  int count = 0;
  auto on_reply = [&](const RespReply&) { ++count; };
  EXPECT_TRUE(scanner.Feed("*2\r\n$3\r\nab", on_reply));
  EXPECT_EQ(count, 0);
  EXPECT_FALSE(scanner.AtReplyBoundary());
  EXPECT_TRUE(scanner.Feed("c\r\n:1\r", on_reply));
  EXPECT_EQ(count, 0);
  EXPECT_TRUE(scanner.Feed("\n", on_reply));
  EXPECT_EQ(count, 1);
  EXPECT_TRUE(scanner.AtReplyBoundary());
}

TEST(LoadgenRespScanner, BigBulkInManyReads) {
  std::string payload(1 << 20, 'x');
  for (size_t i = 0; i < payload.size(); ++i) {
    payload[i] = static_cast<char>('a' + i % 23);
  }
  payload[1000] = '\r';  // CR/LF inside a bulk are data
  payload[1001] = '\n';
  std::string stream = "$" + std::to_string(payload.size()) + "\r\n" + payload + "\r\n+after\r\n";
  for (bool capture : {false, true}) {
    RespScanner scanner(capture);
    std::vector<Seen> r = Scan(scanner, stream, {4096, 1, 65536, 7});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].type, '$');
    EXPECT_EQ(r[0].number, 1 << 20);
    if (capture) {
      ASSERT_EQ(r[0].items.size(), 1u);
      EXPECT_TRUE(r[0].items[0] == payload);
    }
    EXPECT_EQ(r[1].type, '+');
  }
}

TEST(LoadgenRespScanner, BigArrayInManyReads) {
  std::string stream = "*100000\r\n";
  for (int i = 0; i < 100000; ++i) {
    stream += ":" + std::to_string(i) + "\r\n";
  }
  stream += "+OK\r\n";
  RespScanner scanner;
  std::vector<Seen> r = Scan(scanner, stream, {1000, 3});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].number, 100000);
  EXPECT_EQ(r[1].type, '+');
}

TEST(LoadgenRespScanner, CaptureModeKeepsTheFirstChildrenOfAnArray) {
  std::vector<Seen> r = ScanAll(
      "*3\r\n$7\r\nmessage\r\n$5\r\nch:01\r\n$7\r\npay\r\nld\r\n"
      "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
      "*6\r\n:1\r\n:2\r\n*1\r\n:9\r\n:4\r\n:5\r\n:6\r\n",
      true);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_EQ(r[0].items.size(), 3u);
  EXPECT_EQ(r[0].items[0], "message");
  EXPECT_EQ(r[0].items[1], "ch:01");
  EXPECT_EQ(r[0].items[2], "pay\r\nld");
  ASSERT_EQ(r[1].items.size(), 3u);
  EXPECT_EQ(r[1].items[0], "subscribe");
  EXPECT_EQ(r[1].items[2], "1");
  ASSERT_EQ(r[2].items.size(), RespReply::kMaxItems);
  EXPECT_EQ(r[2].items[0], "1");
  EXPECT_EQ(r[2].items[2], "");  // a nested array is not captured
  EXPECT_EQ(r[2].items[3], "4");
}

TEST(LoadgenRespScanner, MalformedStreamsFailAndStayFailed) {
  for (const char* bad : {"?what\r\n", "$abc\r\n", "$-2\r\n", "*-5\r\n", ":12x\r\n", "$\r\n"}) {
    RespScanner scanner;
    bool ok = true;
    Scan(scanner, bad, {100}, &ok);
    EXPECT_FALSE(ok) << bad;
    EXPECT_TRUE(scanner.failed()) << bad;
    EXPECT_FALSE(scanner.Feed("+OK\r\n", [](const RespReply&) {})) << bad;
  }
  // Nesting deeper than kMaxDepth is refused rather than growing without bound.
  std::string deep;
  for (size_t i = 0; i <= RespScanner::kMaxDepth; ++i) {
    deep += "*1\r\n";
  }
  RespScanner scanner;
  bool ok = true;
  Scan(scanner, deep, {100}, &ok);
  EXPECT_FALSE(ok);
}

TEST(LoadgenRespScanner, BareLineFeedIsAccepted) {
  // Inline-style "\n" endings are tolerated (the CR is optional when scanning).
  std::vector<Seen> r = ScanAll("+OK\n:3\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].number, 3);
}

}  // namespace
}  // namespace hotkv::loadgen

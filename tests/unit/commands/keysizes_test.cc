// INFO keysizes in-process: the histogram against a model of every key's type and size,
// through random creates, growth, shrinking, deletes, renames, moves, copies, SWAPDB,
// FLUSHDB and expiry; and the bin labels.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "engine/key_sizes.h"
#include "in_process.h"

namespace hotkv::testing {
namespace {

// The text of a bulk (RESP2 verbatim) reply.
std::string BulkText(const std::string& reply) {
  size_t start = reply.find("\r\n");
  EXPECT_EQ(reply[0], '$');
  return reply.substr(start + 2, reply.size() - start - 4);
}

std::string Keysizes(InProcessServer& s, LocalClient& c) { return BulkText(s.Run(c, {"INFO", "keysizes"})); }

TEST(KeySizes, BinsAndLabelsAreRedis) {
  EXPECT_EQ(KeySizeHistogram::BinOf(0), 0);
  EXPECT_EQ(KeySizeHistogram::BinOf(1), 1);
  EXPECT_EQ(KeySizeHistogram::BinOf(2), 2);
  EXPECT_EQ(KeySizeHistogram::BinOf(3), 2);
  EXPECT_EQ(KeySizeHistogram::BinOf(1023), 10);
  EXPECT_EQ(KeySizeHistogram::BinOf(1024), 11);
  EXPECT_EQ(KeySizeHistogram::BinOf(~uint64_t{0}), KeySizeHistogram::kBins - 1);
  EXPECT_STREQ(KeySizeBinLabel(0), "0");
  EXPECT_STREQ(KeySizeBinLabel(1), "1");
  EXPECT_STREQ(KeySizeBinLabel(10), "512");
  EXPECT_STREQ(KeySizeBinLabel(11), "1K");
  EXPECT_STREQ(KeySizeBinLabel(20), "512K");
  EXPECT_STREQ(KeySizeBinLabel(21), "1M");
  EXPECT_STREQ(KeySizeBinLabel(31), "1G");
  EXPECT_STREQ(KeySizeBinLabel(33), "4G");
  EXPECT_STREQ(KeySizeBinLabel(40), "512G");
}

TEST(KeySizes, ExactTextPerTypeAndDatabase) {
  InProcessServer s;
  LocalClient& a = s.NewClient();
  EXPECT_EQ(Keysizes(s, a), "# Keysizes\r\n");
  s.Run(a, {"SET", "e", ""});
  s.Run(a, {"SET", "n", "12345"});
  s.Run(a, {"RPUSH", "l", "a", "b", "c"});
  s.Run(a, {"HSET", "h", "f", "v"});
  s.Run(a, {"SELECT", "2"});
  s.Run(a, {"ZADD", "z", "1", "a", "2", "b"});
  s.Run(a, {"SADD", "s", "x"});
  EXPECT_EQ(Keysizes(s, a),
            "# Keysizes\r\n"
            "db0_distrib_strings_sizes:0=1,4=1\r\n"
            "db0_distrib_lists_items:2=1\r\n"
            "db0_distrib_hashes_items:1=1\r\n"
            "db2_distrib_sets_items:1=1\r\n"
            "db2_distrib_zsets_items:2=1\r\n");
  // Inside EXEC (shard locks held by the transaction) INFO still sums every shard.
  s.Run(a, {"MULTI"});
  s.Run(a, {"SADD", "s", "y"});
  s.Run(a, {"INFO", "keysizes"});
  std::string exec = s.Run(a, {"EXEC"});
  EXPECT_NE(exec.find("db2_distrib_sets_items:2=1\r\n"), std::string::npos) << exec;
}

// A model of the keyspace: (db, key) -> (type index, size).
struct Model {
  std::map<std::pair<int, std::string>, std::pair<int, uint64_t>> keys;

  std::string Text(int dbs) const {
    static const char* kNames[] = {"strings_sizes", "lists_items", "sets_items", "zsets_items",
                                   "hashes_items"};
    std::string out = "# Keysizes\r\n";
    for (int d = 0; d < dbs; d++) {
      for (int t = 0; t < 5; t++) {
        std::map<int, int> bins;
        for (const auto& [k, v] : keys) {
          if (k.first == d && v.first == t) {
            bins[KeySizeHistogram::BinOf(v.second)]++;
          }
        }
        if (bins.empty()) {
          continue;
        }
        out += "db" + std::to_string(d) + "_distrib_" + kNames[t] + ":";
        bool first = true;
        for (const auto& [b, n] : bins) {
          out += (first ? "" : ",") + std::string(KeySizeBinLabel(b)) + "=" + std::to_string(n);
          first = false;
        }
        out += "\r\n";
      }
    }
    return out;
  }
};

TEST(KeySizes, RandomOperationsMatchTheModel) {
  InProcessServer s;
  LocalClient& c = s.NewClient();
  Model m;
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int db = 0;
  auto run = [&](std::vector<std::string> args) { return s.Run(c, args); };
  auto exists = [&](int d, const std::string& k) { return m.keys.count({d, k}) > 0; };
  auto type_of = [&](int d, const std::string& k) { return m.keys.at({d, k}).first; };
  for (int step = 0; step < 3000; step++) {
    const std::string k = "k" + std::to_string(pick(10));
    const std::string k2 = "k" + std::to_string(pick(10));
    std::pair<int, std::string> id{db, k};
    switch (pick(12)) {
      case 0: {  // SET: any type becomes a string
        int len = pick(3) == 0 ? 0 : pick(3000);
        run({"SET", k, std::string(static_cast<size_t>(len), 'x')});
        m.keys[id] = {0, static_cast<uint64_t>(len)};
        break;
      }
      case 1: {  // APPEND
        int len = 1 + pick(600);
        std::string r = run({"APPEND", k, std::string(static_cast<size_t>(len), 'y')});
        if (r[0] == ':') {
          m.keys[id] = {0, std::stoull(r.substr(1))};
        }
        break;
      }
      case 2: {  // RPUSH n elements
        std::vector<std::string> args = {"RPUSH", k};
        int n = 1 + pick(70);
        for (int i = 0; i < n; i++) {
          args.push_back(std::to_string(i));
        }
        std::string r = run(args);
        if (r[0] == ':') {
          m.keys[id] = {1, std::stoull(r.substr(1))};
        }
        break;
      }
      case 3: {  // LPOP count (the key goes when emptied)
        std::string r = run({"LPOP", k, std::to_string(1 + pick(40))});
        if (r[0] == '*' && exists(db, k)) {
          uint64_t popped = std::stoull(r.substr(1));
          auto& v = m.keys[id];
          v.second -= popped;
          if (v.second == 0) {
            m.keys.erase(id);
          }
        }
        break;
      }
      case 4: {  // SADD distinct members
        std::vector<std::string> args = {"SADD", k};
        int n = 1 + pick(150);
        int base = pick(100);
        for (int i = 0; i < n; i++) {
          args.push_back(std::to_string(base + i));
        }
        std::string r = run(args);
        if (r[0] == ':') {
          std::string card = run({"SCARD", k});
          m.keys[id] = {2, std::stoull(card.substr(1))};
        }
        break;
      }
      case 5: {  // ZADD + HSET
        bool zset = pick(2) == 0;
        std::vector<std::string> args = {zset ? "ZADD" : "HSET", k};
        int n = 1 + pick(40);
        for (int i = 0; i < n; i++) {
          args.push_back(zset ? std::to_string(i) : "f" + std::to_string(pick(60)));
          args.push_back(zset ? "m" + std::to_string(pick(60)) : "v");
        }
        std::string r = run(args);
        if (r[0] == ':') {
          std::string card = run({zset ? "ZCARD" : "HLEN", k});
          m.keys[id] = {zset ? 3 : 4, std::stoull(card.substr(1))};
        }
        break;
      }
      case 6:
        run({pick(2) ? "DEL" : "UNLINK", k});
        m.keys.erase(id);
        break;
      case 7: {  // RENAME
        std::string r = run({"RENAME", k, k2});
        if (r == "+OK\r\n" && k != k2) {
          auto v = m.keys.at(id);
          m.keys.erase(id);
          m.keys[{db, k2}] = v;
        }
        break;
      }
      case 8: {  // MOVE to another database
        int to = pick(3);
        std::string r = run({"MOVE", k, std::to_string(to)});
        if (r == ":1\r\n") {
          m.keys[{to, k}] = m.keys.at(id);
          m.keys.erase(id);
        }
        break;
      }
      case 9: {  // COPY ... DB d REPLACE
        int to = pick(3);
        std::string r = run({"COPY", k, k2, "DB", std::to_string(to), "REPLACE"});
        if (r == ":1\r\n") {
          m.keys[{to, k2}] = m.keys.at(id);
        }
        break;
      }
      case 10: {  // SELECT / SWAPDB / rarely FLUSHDB
        int other = pick(3);
        if (pick(10) == 0) {
          run({"FLUSHDB", pick(2) ? "ASYNC" : "SYNC"});
          std::erase_if(m.keys, [&](const auto& kv) { return kv.first.first == db; });
        } else if (pick(2) == 0) {
          run({"SWAPDB", std::to_string(db), std::to_string(other)});
          decltype(m.keys) swapped;
          for (const auto& [key, v] : m.keys) {
            int d = key.first == db ? other : key.first == other ? db : key.first;
            swapped[{d, key.second}] = v;
          }
          m.keys = std::move(swapped);
        } else {
          run({"SELECT", std::to_string(other)});
          db = other;
        }
        break;
      }
      default: {  // a TTL that runs out: the key expires on the next access
        if (exists(db, k) && pick(3) == 0) {
          // A first TTL re-allocates the entry (an expire block); later writes use it.
          run({"EXPIRE", k, "100000"});
        } else if (exists(db, k) && pick(4) == 0) {
          run({"PEXPIRE", k, "1"});
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          EXPECT_EQ(run({"EXISTS", k}), ":0\r\n");
          m.keys.erase(id);
        } else if (exists(db, k) && type_of(db, k) == 0) {
          std::string r = run({"SETRANGE", k, std::to_string(pick(5000)), "z"});
          m.keys[id].second = std::stoull(r.substr(1));
        }
        break;
      }
    }
    ASSERT_EQ(Keysizes(s, c), m.Text(16)) << "step " << step;
  }
}

}  // namespace
}  // namespace hotkv::testing

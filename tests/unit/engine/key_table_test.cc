// KeyTable against a reference map: inserts, lookups, deletes with backward shift,
// resizes, and SCAN's guarantee across resizes.
#include "engine/key_table.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <unordered_map>

#include "common/key_hash.h"

namespace hotkv {
namespace {

Entry* Make(const std::string& k) { return Entry::NewString(k, "v:" + k, false); }

TEST(KeyTable, RandomOpsMatchReference) {
  KeyTable t;
  std::unordered_map<std::string, Entry*> ref;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; i++) {
    std::string k = "key:" + std::to_string(rng() % 5000);
    uint64_t h = HashKey(k);
    size_t pos = t.Find(k, h);
    auto it = ref.find(k);
    ASSERT_EQ(pos != KeyTable::kNotFound, it != ref.end()) << k;
    if (rng() % 3 == 0) {
      if (pos != KeyTable::kNotFound) {
        Entry* e = t.At(pos);
        ASSERT_EQ(e, it->second);
        t.EraseAt(pos);
        Entry::Free(e);
        ref.erase(it);
      }
    } else if (pos == KeyTable::kNotFound) {
      Entry* e = Make(k);
      t.Insert(h, e);
      ref[k] = e;
    } else {
      ASSERT_EQ(t.At(pos)->key(), k);
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (auto& [k, e] : ref) {
    ASSERT_NE(t.Find(k, HashKey(k)), KeyTable::kNotFound);
  }
  t.Clear([](Entry* e) { Entry::Free(e); });
  EXPECT_EQ(t.size(), 0u);
}

TEST(KeyTable, ScanReturnsEveryKeyEvenWhileResizing) {
  KeyTable t;
  std::set<std::string> stable;
  for (int i = 0; i < 3000; i++) {
    std::string k = "stable:" + std::to_string(i);
    t.Insert(HashKey(k), Make(k));
    stable.insert(k);
  }
  std::mt19937_64 rng(3);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int extra = 0;
  std::vector<std::string> temp;
  do {
    cursor = t.Scan(cursor, [&](Entry* e) { seen.insert(std::string(e->key())); });
    // Grow and shrink the table between steps with keys that come and go.
    if (rng() % 2) {
      for (int j = 0; j < 200; j++) {
        std::string k = "temp:" + std::to_string(extra++);
        t.Insert(HashKey(k), Make(k));
        temp.push_back(k);
      }
    } else {
      for (int j = 0; j < 400 && !temp.empty(); j++) {
        std::string k = temp.back();
        temp.pop_back();
        size_t pos = t.Find(k, HashKey(k));
        Entry* e = t.At(pos);
        t.EraseAt(pos);
        Entry::Free(e);
      }
    }
  } while (cursor != 0);
  for (const auto& k : stable) {
    ASSERT_TRUE(seen.count(k)) << k;
  }
  t.Clear([](Entry* e) { Entry::Free(e); });
}

// Past 65536 slots the home bits no longer fit in a slot's tag and homes are computed
// from the keys: grow through that size, delete every other key (backward shifts), and
// check lookups and a full scan (each key exactly once when the size does not change).
TEST(KeyTable, LargeTablesComputeHomesFromKeys) {
  KeyTable t;
  std::vector<std::string> keys;
  for (int i = 0; i < 120000; i++) {
    keys.push_back("big:" + std::to_string(i));
    t.Insert(HashKey(keys.back()), Make(keys.back()));
  }
  ASSERT_GT(t.capacity(), 65536u);
  for (size_t i = 0; i < keys.size(); i += 2) {
    size_t pos = t.Find(keys[i], HashKey(keys[i]));
    ASSERT_NE(pos, KeyTable::kNotFound);
    Entry* e = t.At(pos);
    t.EraseAt(pos);
    Entry::Free(e);
  }
  for (size_t i = 0; i < keys.size(); i++) {
    ASSERT_EQ(t.Find(keys[i], HashKey(keys[i])) != KeyTable::kNotFound, i % 2 == 1) << keys[i];
  }
  std::multiset<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = t.Scan(cursor, [&](Entry* e) { seen.insert(std::string(e->key())); });
  } while (cursor != 0);
  ASSERT_EQ(seen.size(), keys.size() / 2);
  for (size_t i = 1; i < keys.size(); i += 2) {
    ASSERT_EQ(seen.count(keys[i]), 1u) << keys[i];
  }
  t.Clear([](Entry* e) { Entry::Free(e); });
}

TEST(KeyTable, ShrinksAfterDeletes) {
  KeyTable t;
  std::vector<std::string> keys;
  for (int i = 0; i < 10000; i++) {
    keys.push_back("k" + std::to_string(i));
    t.Insert(HashKey(keys.back()), Make(keys.back()));
  }
  size_t big = t.capacity();
  for (const auto& k : keys) {
    size_t pos = t.Find(k, HashKey(k));
    Entry* e = t.At(pos);
    t.EraseAt(pos);
    Entry::Free(e);
  }
  EXPECT_LT(t.capacity(), big);
  EXPECT_EQ(t.size(), 0u);
}

TEST(Entry, StringLayoutAndTtlBlock) {
  Entry* e = Entry::NewString("key", "value", false);
  EXPECT_EQ(e->key(), "key");
  EXPECT_EQ(e->str(), "value");
  EXPECT_FALSE(e->has_ttl());
  e = Entry::WithExpireBlock(e);
  EXPECT_EQ(e->key(), "key");
  EXPECT_EQ(e->str(), "value");
  e->SetExpireMs(12345);
  EXPECT_TRUE(e->has_ttl());
  EXPECT_EQ(e->expire_ms(), 12345);
  Entry* r = Entry::Rekey(e, "another-key");
  EXPECT_EQ(r->key(), "another-key");
  EXPECT_EQ(r->str(), "value");
  EXPECT_EQ(r->expire_ms(), 12345);
  EXPECT_EQ(r->StringEncoding(), "embstr");
  Entry::Free(r);
  Entry* n = Entry::NewString("n", "-123", false);
  EXPECT_EQ(n->StringEncoding(), "int");
  Entry::Free(n);
  Entry* big = Entry::NewString("b", std::string(45, 'x'), false);
  EXPECT_EQ(big->StringEncoding(), "raw");
  Entry::Free(big);
}

TEST(Hashing, KeySlotMatchesRedisCluster) {
  // Values from the Redis Cluster specification and redis-cli CLUSTER KEYSLOT.
  EXPECT_EQ(KeySlot("foo"), 12182u);
  EXPECT_EQ(KeySlot("bar"), 5061u);
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers"));
  EXPECT_EQ(KeySlot("foo{}{bar}"), KeySlot("foo{}{bar}"));
  EXPECT_EQ(KeySlot("{}x"), Crc16("{}x", 3) & 16383);
  EXPECT_EQ(Crc16("123456789", 9), 0x31C3);
}

}  // namespace

// key_hash.cc: whether Crc16 uses carry-less multiplication (declared there only).
extern bool g_crc16_clmul;

namespace {

// Crc16 (carry-less multiplication where the CPU has it, and the slicing tables) against
// CRC16-XMODEM spelled out bit by bit, on every length 0-100 (every head of 0-7 bytes
// before whole 8-byte blocks) with random bytes, all-ones and all-zero bytes.
TEST(Hashing, Crc16MatchesBitwiseReference) {
  auto reference = [](const std::string& s) {
    uint16_t crc = 0;
    for (unsigned char c : s) {
      crc ^= static_cast<uint16_t>(c << 8);
      for (int b = 0; b < 8; b++) {
        crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                             : static_cast<uint16_t>(crc << 1);
      }
    }
    return crc;
  };
  const bool had_clmul = g_crc16_clmul;
  std::mt19937_64 rng(7);
  for (bool clmul : {false, true}) {
    g_crc16_clmul = clmul && had_clmul;
    for (size_t len = 0; len <= 100; len++) {
      for (int round = 0; round < 40; round++) {
        std::string s(len, '\0');
        for (char& c : s) {
          c = round == 0 ? '\xff' : round == 1 ? '\0' : static_cast<char>(rng());
        }
        ASSERT_EQ(Crc16(s.data(), s.size()), reference(s)) << "len " << len << " clmul " << clmul;
      }
    }
    EXPECT_EQ(Crc16("123456789", 9), 0x31C3);
  }
  g_crc16_clmul = had_clmul;
}

// The word-at-a-time search for '{' against the rule spelled out byte by byte, on keys
// of every length up to 80 with braces, high bytes and '{'-adjacent values anywhere.
TEST(Hashing, KeySlotHashTagsMatchAByteLoop) {
  auto reference = [](std::string_view key) -> uint32_t {
    size_t open = std::string_view::npos;
    for (size_t i = 0; i < key.size(); i++) {
      if (key[i] == '{') {
        open = i;
        break;
      }
    }
    if (open != std::string_view::npos) {
      size_t close = key.find('}', open + 1);
      if (close != std::string_view::npos && close != open + 1) {
        return Crc16(key.data() + open + 1, close - open - 1) & 16383;
      }
    }
    return Crc16(key.data(), key.size()) & 16383;
  };
  std::mt19937_64 rng(11);
  const char alphabet[] = {'{', '}', 'a', 'z', '\x7a', '\x7c', '\xfb', '\x80', '\0', '0'};
  for (int n = 0; n < 20000; n++) {
    std::string key(rng() % 81, 'x');
    for (char& c : key) {
      c = rng() % 4 == 0 ? alphabet[rng() % sizeof(alphabet)] : static_cast<char>(rng());
    }
    ASSERT_EQ(KeySlot(key), reference(key)) << n;
  }
}

}  // namespace
}  // namespace hotkv

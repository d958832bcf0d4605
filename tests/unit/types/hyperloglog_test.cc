// Tests for the HyperLogLog representation (types/hyperloglog.h). The byte vectors and
// estimates are what Redis 8.8 (and 7.0) produce for the same additions.

#include "types/hyperloglog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/random.h"

namespace hotkv::types::hll {
namespace {

using namespace std::string_literals;

const std::string kEmpty = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff"s;

std::string Header(uint8_t enc, uint8_t cache_flag) {
  std::string h = "HYLL"s + static_cast<char>(enc) + std::string(10, '\0');
  h += static_cast<char>(cache_flag);
  return h;
}

TEST(HyperLogLog, NewIsOneXZeroOpcode) {
  EXPECT_EQ(NewSparse(), kEmpty);
  EXPECT_TRUE(IsValid(kEmpty));
  EXPECT_EQ(Count(kEmpty), 0u);
  EXPECT_EQ(DecodeSparse(kEmpty), "Z:16384");
}

TEST(HyperLogLog, SparseBytesMatchRedis) {
  std::string h = NewSparse();
  for (const char* e : {"a", "b", "c", "d", "e", "f", "g"}) {
    EXPECT_EQ(Add(&h, e, 3000), 1) << e;
  }
  EXPECT_EQ(Add(&h, "a", 3000), 0);
  const std::string expected = Header(kSparse, 0x80) +
                               "Fm\x80V\x0c\x80"
                               "D<\x84"
                               "8\x80P\xb1\x84I\x8c\x80"
                               "Bm\x80"
                               "BZ"s;
  EXPECT_EQ(h, expected);
  EXPECT_FALSE(CacheValid(h));
  EXPECT_EQ(Count(h), 7u);
}

TEST(HyperLogLog, DecodeMatchesRedis) {
  std::string h = NewSparse();
  for (const char* e : {"a", "b", "c"}) {
    Add(&h, e, 3000);
  }
  EXPECT_EQ(DecodeSparse(h), "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
}

TEST(HyperLogLog, EstimateMatchesRedis) {
  std::string h = NewSparse();
  for (int i = 0; i < 300; i++) {
    Add(&h, std::to_string(i), 3000);
  }
  EXPECT_EQ(Encoding(h), kSparse);
  EXPECT_EQ(h.size(), 698u);
  EXPECT_EQ(Count(h), 302u);
  for (int i = 300; i < 20000; i++) {
    Add(&h, std::to_string(i), 3000);
  }
  EXPECT_EQ(Encoding(h), kDense);
  EXPECT_EQ(h.size(), kDenseSize);
  EXPECT_EQ(Count(h), 19891u);
}

TEST(HyperLogLog, SparseAndDenseAgree) {
  std::string sparse = NewSparse();
  std::string dense = NewSparse();
  ASSERT_TRUE(SparseToDense(&dense));
  EXPECT_EQ(dense.size(), kDenseSize);
  Rng rng(7);
  for (int i = 0; i < 2000; i++) {
    const std::string e = std::to_string(rng.Next());
    const int a = Add(&sparse, e, 1u << 20);
    const int b = DenseAdd(dense.data(), e);
    ASSERT_EQ(a, b) << i;
  }
  EXPECT_EQ(Encoding(sparse), kSparse);
  EXPECT_EQ(Count(sparse), Count(dense));
  uint8_t m1[kRegisters] = {}, m2[kRegisters] = {};
  ASSERT_TRUE(MergeInto(sparse, m1));
  ASSERT_TRUE(MergeInto(dense, m2));
  EXPECT_EQ(std::string(m1, m1 + kRegisters), std::string(m2, m2 + kRegisters));
  EXPECT_EQ(CountRaw(m1), Count(dense));
  std::string converted = sparse;
  ASSERT_TRUE(SparseToDense(&converted));
  EXPECT_EQ(converted.substr(kHeaderSize), dense.substr(kHeaderSize));
}

TEST(HyperLogLog, PromotedPastMaxBytes) {
  std::string h = NewSparse();
  int added = 0;
  while (Encoding(h) == kSparse) {
    ASSERT_LE(h.size(), 100u);
    Add(&h, std::to_string(added++), 100);
  }
  EXPECT_EQ(h.size(), kDenseSize);
  EXPECT_GT(added, 5);
}

TEST(HyperLogLog, PromotedWhenARegisterExceeds32) {
  std::string h = NewSparse();
  EXPECT_EQ(SetRegister(&h, 100, 32, 3000), 1);
  EXPECT_EQ(Encoding(h), kSparse);
  EXPECT_EQ(SetRegister(&h, 100, 32, 3000), 0);
  EXPECT_EQ(SetRegister(&h, 5, 33, 3000), 1);
  EXPECT_EQ(Encoding(h), kDense);
  const auto* regs = reinterpret_cast<const uint8_t*>(h.data()) + kHeaderSize;
  EXPECT_EQ(DenseGet(regs, 100), 32);
  EXPECT_EQ(DenseGet(regs, 5), 33);
}

TEST(HyperLogLog, OpcodesSplitAndMerge) {
  std::string h = NewSparse();
  SetRegister(&h, 0, 3, 3000);
  SetRegister(&h, 1, 3, 3000);
  SetRegister(&h, 16383, 1, 3000);
  // Adjacent equal values merge into one VAL opcode of length 2.
  EXPECT_EQ(DecodeSparse(h), "v:3,2 Z:16381 v:1,1");
  SetRegister(&h, 70, 2, 3000);
  EXPECT_EQ(DecodeSparse(h), "v:3,2 Z:68 v:2,1 Z:16312 v:1,1");
  SetRegister(&h, 3, 5, 3000);
  EXPECT_EQ(DecodeSparse(h), "v:3,2 z:1 v:5,1 Z:66 v:2,1 Z:16312 v:1,1");
}

TEST(HyperLogLog, DenseRegisterPacking) {
  std::vector<uint8_t> regs(kDenseSize - kHeaderSize);
  std::vector<uint8_t> want(kRegisters);
  Rng rng(1);
  for (int i = 0; i < kRegisters; i++) {
    want[i] = static_cast<uint8_t>(rng.Next() & 63);
    DenseSetRaw(regs.data(), i, want[i]);
  }
  for (int i = 0; i < kRegisters; i++) {
    ASSERT_EQ(DenseGet(regs.data(), i), want[i]) << i;
  }
  // Register 0 is the low 6 bits of the first byte.
  std::vector<uint8_t> one(kDenseSize - kHeaderSize);
  DenseSetRaw(one.data(), 0, 63);
  DenseSetRaw(one.data(), 1, 1);
  EXPECT_EQ(one[0], 0x7f);
  EXPECT_EQ(one[1], 0x00);
}

// The AVX-512 VBMI histogram and the portable one against the registers one by one:
// uniform 0..63, HLL-like (mostly below 16, a few up to 63), and constant registers (every
// byte counter of the SIMD code reaches 255 before a fold).
TEST(HyperLogLog, DenseHistogramImplementationsAgree) {
  std::mt19937_64 rng(2214);
  std::vector<std::vector<uint8_t>> cases;
  for (int round = 0; round < 12; round++) {
    std::vector<uint8_t> regs(kRegisters);
    for (auto& r : regs) {
      if (round < 4) {
        r = static_cast<uint8_t>(rng() % 64);
      } else {
        // 1 + trailing zeros of a random word, as PFADD's pattern lengths, shifted.
        const int v = __builtin_ctzll(rng() | (uint64_t{1} << 50)) + 1 + round - 4;
        r = static_cast<uint8_t>(rng() % 50 == 0 ? 0 : std::min(v, 63));
      }
    }
    cases.push_back(regs);
  }
  for (uint8_t c : {0, 1, 5, 15, 16, 17, 51, 63}) {
    cases.emplace_back(kRegisters, c);
  }
  for (size_t k = 0; k < cases.size(); k++) {
    std::vector<uint8_t> dense(kDenseSize - kHeaderSize, 0);
    int want[64] = {0};
    for (int i = 0; i < kRegisters; i++) {
      DenseSetRaw(dense.data(), i, cases[k][i]);
      want[cases[k][i]]++;
    }
    int portable[64], simd[64];
    DenseHistogramPortable(dense.data(), portable);
    for (int v = 0; v < 64; v++) {
      ASSERT_EQ(portable[v], want[v]) << "case " << k << " value " << v;
    }
    if (DenseHistogramVbmi(dense.data(), simd)) {
      for (int v = 0; v < 64; v++) {
        ASSERT_EQ(simd[v], want[v]) << "case " << k << " value " << v;
      }
    }
    int dispatched[64];
    DenseHistogram(dense.data(), dispatched);
    ASSERT_EQ(std::memcmp(dispatched, want, sizeof(want)), 0) << k;
  }
  std::vector<uint8_t> zeros(kDenseSize - kHeaderSize, 0);
  int histogram[64];
  if (!DenseHistogramVbmi(zeros.data(), histogram)) {
    GTEST_SKIP() << "no AVX-512 VBMI here: only the portable histogram ran";
  }
}

// PFCOUNT's dense histogram (eight registers per 64-bit load) against the registers one
// by one, for random registers over the whole 0..63 range and for skewed ones.
TEST(HyperLogLog, DenseCountMatchesRegisters) {
  std::mt19937_64 rng(22);
  for (int round = 0; round < 20; round++) {
    std::string hll = NewSparse();
    ASSERT_TRUE(SparseToDense(&hll));
    std::vector<uint8_t> regs(kRegisters);
    for (int i = 0; i < kRegisters; i++) {
      regs[i] = static_cast<uint8_t>(round < 10 ? rng() % 64 : (rng() % 8 == 0 ? rng() % 64 : round));
      DenseSetRaw(reinterpret_cast<uint8_t*>(hll.data()) + kHeaderSize, i, regs[i]);
    }
    ASSERT_EQ(Count(hll), CountRaw(regs.data())) << round;
  }
}

TEST(HyperLogLog, Validity) {
  EXPECT_FALSE(IsValid("HYLL"));
  EXPECT_FALSE(IsValid(Header(2, 0)));
  EXPECT_FALSE(IsValid("HYLX"s + kEmpty.substr(4)));
  EXPECT_FALSE(IsValid(Header(kDense, 0) + std::string(10, '\0')));
  EXPECT_TRUE(IsValid(Header(kDense, 0) + std::string(kDenseSize - kHeaderSize, '\0')));
  // Sparse opcodes covering the wrong number of registers.
  const std::string too_many = Header(kSparse, 0x80) + "\x7f\xff\x80"s;
  const std::string too_few = Header(kSparse, 0x80) + "\x7f\xfe"s;
  for (const std::string& bad : {too_many, too_few}) {
    EXPECT_TRUE(IsValid(bad));
    EXPECT_EQ(Count(bad), std::nullopt);
    uint8_t max[kRegisters] = {};
    EXPECT_FALSE(MergeInto(bad, max));
    std::string copy = bad;
    EXPECT_FALSE(SparseToDense(&copy));
    EXPECT_EQ(copy, bad);
  }
}

TEST(HyperLogLog, CachedCardinality) {
  std::string h = NewSparse();
  EXPECT_TRUE(CacheValid(h));
  StoreCard(h.data(), 0x0102030405060708ULL);
  EXPECT_EQ(h.substr(8, 8), "\x08\x07\x06\x05\x04\x03\x02\x01"s);
  EXPECT_EQ(CachedCard(h), 0x0102030405060708ULL);
  InvalidateCache(h.data());
  EXPECT_FALSE(CacheValid(h));
}

TEST(HyperLogLog, WriteRegistersAsPfmerge) {
  std::string a = NewSparse();
  for (int i = 0; i < 50; i++) {
    Add(&a, "x" + std::to_string(i), 3000);
  }
  uint8_t max[kRegisters] = {};
  ASSERT_TRUE(MergeInto(a, max));
  std::string dst = NewSparse();
  ASSERT_TRUE(WriteRegisters(&dst, max, 3000));
  EXPECT_EQ(Count(dst), Count(a));
  EXPECT_EQ(dst.substr(kHeaderSize), a.substr(kHeaderSize));
}

TEST(HyperLogLog, SelfTestPasses) {
  Rng rng(3);
  EXPECT_EQ(SelfTest(rng), "");
}

}  // namespace
}  // namespace hotkv::types::hll

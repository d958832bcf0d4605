// types/bitops: every function against a bit-by-bit reference on random buffers.
#include "types/bitops.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/random.h"

namespace hotkv::types {
namespace {

int RefBit(const std::string& s, uint64_t i) {
  return (i >> 3) < s.size() ? (static_cast<uint8_t>(s[i >> 3]) >> (7 - (i & 7))) & 1 : 0;
}

std::string RandomBytes(Rng& rng, size_t n, int density) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n * 8; i++) {
    if (static_cast<int>(rng.Below(100)) < density) {
      s[i >> 3] = static_cast<char>(static_cast<uint8_t>(s[i >> 3]) | (0x80 >> (i & 7)));
    }
  }
  return s;
}

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(BitopsTest, CountBitsMatchesReference) {
  Rng rng(1);
  for (size_t n : {0, 1, 7, 8, 31, 32, 63, 64, 65, 100, 1000, 4096, 9999}) {
    for (int density : {0, 3, 50, 97, 100}) {
      std::string s = RandomBytes(rng, n, density);
      uint64_t want = 0;
      for (uint64_t i = 0; i < n * 8; i++) {
        want += static_cast<uint64_t>(RefBit(s, i));
      }
      EXPECT_EQ(CountBits(U(s), n), want) << n << " " << density;
      for (const auto& [name, fn] : CountBitsImplementations()) {
        EXPECT_EQ(fn(U(s), n), want) << name << " " << n << " " << density;
      }
      // Unaligned starts.
      if (n > 3) {
        uint64_t tail = 0;
        for (uint64_t i = 24; i < n * 8; i++) {
          tail += static_cast<uint64_t>(RefBit(s, i));
        }
        EXPECT_EQ(CountBits(U(s) + 3, n - 3), tail);
      }
    }
  }
}

// Every popcount implementation this CPU can run (AVX-512 VPOPCNTDQ, AVX2, POPCNT,
// generic), at every start alignment 0..63 and every length 0..700 (past the AVX-512
// loop's 256-byte rounds and its 64-byte tail steps), against a byte-by-byte count.
TEST(BitopsTest, CountBitsEveryAlignmentAndLength) {
  Rng rng(7);
  const std::string s = RandomBytes(rng, 64 + 700 + 64, 50);
  const auto impls = CountBitsImplementations();
  for (size_t start = 0; start < 64; start++) {
    uint64_t want = 0;
    for (size_t n = 0; n <= 700; n++) {
      if (n > 0) {
        want += static_cast<uint64_t>(__builtin_popcount(static_cast<uint8_t>(s[start + n - 1])));
      }
      ASSERT_EQ(CountBits(U(s) + start, n), want) << start << " " << n;
      for (const auto& [name, fn] : impls) {
        ASSERT_EQ(fn(U(s) + start, n), want) << name << " " << start << " " << n;
      }
    }
  }
}

TEST(BitopsTest, CountBitsInRangeMatchesReference) {
  Rng rng(2);
  std::string s = RandomBytes(rng, 300, 40);
  for (int t = 0; t < 3000; t++) {
    uint64_t a = rng.Below(s.size() * 8), b = rng.Below(s.size() * 8);
    if (a > b) {
      std::swap(a, b);
    }
    if (t % 3 == 0) {
      b = std::min<uint64_t>(a + rng.Below(20), s.size() * 8 - 1);
    }
    uint64_t want = 0;
    for (uint64_t i = a; i <= b; i++) {
      want += static_cast<uint64_t>(RefBit(s, i));
    }
    ASSERT_EQ(CountBitsInRange(U(s), a, b), want) << a << ".." << b;
  }
}

TEST(BitopsTest, FindBitMatchesReference) {
  Rng rng(3);
  for (int density : {0, 1, 50, 99, 100}) {
    std::string s = RandomBytes(rng, 100, density);
    for (int t = 0; t < 2000; t++) {
      uint64_t a = rng.Below(s.size() * 8), b = rng.Below(s.size() * 8);
      if (a > b) {
        std::swap(a, b);
      }
      for (bool bit : {false, true}) {
        int64_t want = -1;
        for (uint64_t i = a; i <= b; i++) {
          if (RefBit(s, i) == static_cast<int>(bit)) {
            want = static_cast<int64_t>(i);
            break;
          }
        }
        ASSERT_EQ(FindBit(U(s), a, b, bit), want) << a << ".." << b << " bit " << bit;
      }
    }
  }
}

TEST(BitopsTest, FindBitAcrossLongRuns) {
  // Long runs of 0x00 / 0xFF (the block-skipping path) with one odd bit, random ranges.
  Rng rng(6);
  for (int t = 0; t < 400; t++) {
    const bool bit = t % 2 == 0;
    std::string s(1000, bit ? '\0' : '\xff');
    const uint64_t odd = rng.Below(8000);
    s[odd >> 3] = static_cast<char>(static_cast<uint8_t>(s[odd >> 3]) ^ (0x80 >> (odd & 7)));
    uint64_t a = rng.Below(8000), b = rng.Below(8000);
    if (a > b) {
      std::swap(a, b);
    }
    const int64_t want = (odd >= a && odd <= b) ? static_cast<int64_t>(odd) : -1;
    ASSERT_EQ(FindBit(U(s), a, b, bit), want) << a << ".." << b << " odd " << odd;
    ASSERT_EQ(FindBit(U(s), 0, 7999, bit), static_cast<int64_t>(odd));
  }
}

TEST(BitopsTest, BitOpsMatchReference) {
  Rng rng(4);
  for (int t = 0; t < 300; t++) {
    std::vector<std::string> owned;
    const size_t k = 1 + rng.Below(4);
    for (size_t i = 0; i < k; i++) {
      owned.push_back(RandomBytes(rng, rng.Below(24), 50));
    }
    std::vector<std::string_view> srcs(owned.begin(), owned.end());
    size_t len = 0;
    for (auto& s : owned) {
      len = std::max(len, s.size());
    }
    for (BitOp op : {BitOp::kAnd, BitOp::kOr, BitOp::kXor, BitOp::kNot, BitOp::kDiff, BitOp::kDiff1,
                     BitOp::kAndOr, BitOp::kOne}) {
      if (op == BitOp::kNot && k != 1) {
        continue;
      }
      if (k < BitOpMinSources(op)) {
        continue;
      }
      std::string got = ApplyBitOp(op, srcs);
      ASSERT_EQ(got.size(), len);
      for (uint64_t i = 0; i < len * 8; i++) {
        int first = RefBit(owned[0], i), all = 1, any = 0, parity = 0, ones = 0, rest_or = 0;
        for (size_t j = 0; j < k; j++) {
          const int b = RefBit(owned[j], i);
          all &= b;
          any |= b;
          parity ^= b;
          ones += b;
          if (j > 0) {
            rest_or |= b;
          }
        }
        int want = 0;
        switch (op) {
          case BitOp::kAnd:
            want = all;
            break;
          case BitOp::kOr:
            want = any;
            break;
          case BitOp::kXor:
            want = parity;
            break;
          case BitOp::kNot:
            want = !first;
            break;
          case BitOp::kDiff:
            want = first && !rest_or;
            break;
          case BitOp::kDiff1:
            want = !first && rest_or;
            break;
          case BitOp::kAndOr:
            want = first && rest_or;
            break;
          case BitOp::kOne:
            want = ones == 1;
            break;
        }
        ASSERT_EQ(RefBit(got, i), want) << static_cast<int>(op) << " bit " << i;
      }
    }
  }
  EXPECT_FALSE(ParseBitOp("nand").has_value());
  EXPECT_EQ(ParseBitOp("diff1"), BitOp::kDiff1);
}

TEST(BitopsTest, BitfieldGetSetRoundTrip) {
  Rng rng(5);
  std::string s = RandomBytes(rng, 40, 50);
  for (int t = 0; t < 5000; t++) {
    const int bits = 1 + static_cast<int>(rng.Below(64));
    const uint64_t offset = rng.Below(40 * 8 - static_cast<uint64_t>(bits));
    uint64_t want = 0;
    for (int i = 0; i < bits; i++) {
      want = (want << 1) | static_cast<uint64_t>(RefBit(s, offset + static_cast<uint64_t>(i)));
    }
    ASSERT_EQ(GetBitfield(U(s), s.size(), offset, bits), want);
    const std::string before = s;
    const uint64_t value = rng.Next();
    SetBitfield(reinterpret_cast<uint8_t*>(s.data()), offset, bits, value);
    for (uint64_t i = 0; i < s.size() * 8; i++) {
      const bool inside = i >= offset && i < offset + static_cast<uint64_t>(bits);
      const int expect =
          inside ? static_cast<int>((value >> (offset + static_cast<uint64_t>(bits) - 1 - i)) & 1)
                 : RefBit(before, i);
      ASSERT_EQ(RefBit(s, i), expect) << "offset " << offset << " bits " << bits;
    }
  }
  // Past the end reads zeros.
  std::string one("\xff", 1);
  EXPECT_EQ(GetBitfield(U(one), 1, 4, 8), 0xF0u);
  EXPECT_EQ(GetBitfield(U(one), 1, 100, 64), 0u);
}

TEST(BitopsTest, ResolveBitfieldOverflow) {
  using O = BitfieldOverflow;
  EXPECT_EQ(SignExtend(0xFF, 8), -1);
  EXPECT_EQ(SignExtend(0x7F, 8), 127);
  EXPECT_EQ(SignExtend(1, 1), -1);
  // i8: 100 + 100.
  EXPECT_EQ(ResolveBitfield(true, 8, 100, 100, O::kWrap), -56);
  EXPECT_EQ(ResolveBitfield(true, 8, 100, 100, O::kSat), 127);
  EXPECT_EQ(ResolveBitfield(true, 8, 100, 100, O::kFail), std::nullopt);
  EXPECT_EQ(ResolveBitfield(true, 8, 100, 27, O::kFail), 127);
  EXPECT_EQ(ResolveBitfield(true, 8, -129, 0, O::kWrap), 127);  // SET -129
  EXPECT_EQ(ResolveBitfield(true, 8, -129, 0, O::kSat), -128);
  EXPECT_EQ(ResolveBitfield(true, 8, -128, -1, O::kSat), -128);
  // Redis's 64-bit wrap-around: a SET far below the minimum counts as above the maximum.
  EXPECT_EQ(ResolveBitfield(true, 8, INT64_MIN, 0, O::kSat), 127);
  EXPECT_EQ(ResolveBitfield(true, 8, INT64_MIN, 0, O::kWrap), 0);
  // u8, and an unsigned SET of -1 (taken as 2^64 - 1).
  EXPECT_EQ(ResolveBitfield(false, 8, 255, 1, O::kWrap), 0);
  EXPECT_EQ(ResolveBitfield(false, 8, 0, -1, O::kWrap), 255);
  EXPECT_EQ(ResolveBitfield(false, 8, 0, -1, O::kSat), 0);
  EXPECT_EQ(ResolveBitfield(false, 8, 0, -1, O::kFail), std::nullopt);
  EXPECT_EQ(ResolveBitfield(false, 8, -1, 0, O::kSat), 255);
  EXPECT_EQ(ResolveBitfield(false, 8, -1, 0, O::kWrap), 255);
  EXPECT_EQ(ResolveBitfield(false, 8, 256, 0, O::kWrap), 0);
  // i64 at its limits, u63.
  EXPECT_EQ(ResolveBitfield(true, 64, INT64_MAX, 1, O::kWrap), INT64_MIN);
  EXPECT_EQ(ResolveBitfield(true, 64, INT64_MAX, 1, O::kSat), INT64_MAX);
  EXPECT_EQ(ResolveBitfield(true, 64, INT64_MIN, -1, O::kSat), INT64_MIN);
  EXPECT_EQ(ResolveBitfield(true, 64, INT64_MIN, INT64_MAX, O::kFail), -1);
  EXPECT_EQ(ResolveBitfield(false, 63, INT64_MAX, 0, O::kFail), INT64_MAX);
  EXPECT_EQ(ResolveBitfield(false, 63, INT64_MAX, 1, O::kWrap), 0);
}

}  // namespace
}  // namespace hotkv::types

// Tests for the packed array encoding (both flavours) and its integer helpers.

#include "types/packed_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "types/element.h"

namespace hotkv::types {
namespace {

using namespace std::string_literals;

template <typename Array>
std::vector<std::string> Forward(const Array& a) {
  std::vector<std::string> out;
  for (auto p = a.Begin(); p != a.End(); p = a.Next(p)) {
    out.push_back(a.Get(p).ToString());
  }
  return out;
}

std::vector<std::string> Backward(const BidiPackedArray& a) {
  std::vector<std::string> out;
  for (auto p = a.End(); p != a.Begin();) {
    p = a.Prev(p);
    out.push_back(a.Get(p).ToString());
  }
  return out;
}

TEST(CanonicalIntTest, ParsesOnlyCanonicalIntegers) {
  EXPECT_EQ(ParseCanonicalInt("0"), 0);
  EXPECT_EQ(ParseCanonicalInt("-1"), -1);
  EXPECT_EQ(ParseCanonicalInt("123"), 123);
  EXPECT_EQ(ParseCanonicalInt("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseCanonicalInt("-9223372036854775808"), INT64_MIN);
  for (const char* s : {"", "-", "-0", "007", "01", "+1", " 1", "1 ", "1e3", "0x10", "1.0",
                        "9223372036854775808", "-9223372036854775809",
                        "99999999999999999999", "123456789012345678901"}) {
    EXPECT_FALSE(ParseCanonicalInt(s).has_value()) << s;
  }
  EXPECT_FALSE(ParseCanonicalInt("1\0"s).has_value());
}

TEST(CanonicalIntTest, FormatRoundTrips) {
  char buf[kMaxIntDigits];
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{42}, INT64_MAX, INT64_MIN}) {
    const std::string text(buf, FormatInt(v, buf));
    EXPECT_EQ(text, std::to_string(v));
    EXPECT_EQ(ParseCanonicalInt(text), v);
  }
}

TEST(ElementTest, CopiesKeepTheirOwnIntegerText) {
  Element a(int64_t{-12345});
  Element b = a;
  a = Element(std::string_view("other"));
  EXPECT_EQ(b.view(), "-12345");
  EXPECT_EQ(a.view(), "other");
}

template <typename Array>
class PackedArrayTest : public ::testing::Test {};
using Flavours = ::testing::Types<PackedArray, BidiPackedArray>;
TYPED_TEST_SUITE(PackedArrayTest, Flavours);

TYPED_TEST(PackedArrayTest, EmptyOwnsNothing) {
  TypeParam a;
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.bytes(), 0u);
  EXPECT_EQ(a.MemoryUsage(), 0u);
  EXPECT_EQ(a.Begin(), a.End());
  EXPECT_EQ(a.Seek(0), a.End());
  EXPECT_EQ(a.Seek(-1), a.End());
  EXPECT_EQ(a.Find(Probe("x")), a.End());
}

TYPED_TEST(PackedArrayTest, PushAndIterate) {
  TypeParam a;
  a.PushBack("b");
  a.PushBack("c");
  a.PushFront("a");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(Forward(a), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(a.Get(a.Seek(-1)).view(), "c");
  EXPECT_EQ(a.Get(a.Seek(1)).view(), "b");
  EXPECT_EQ(a.Seek(3), a.End());
  EXPECT_EQ(a.Seek(-4), a.End());
  EXPECT_GT(a.MemoryUsage(), 0u);
}

TYPED_TEST(PackedArrayTest, IntegersReadBackAsTheSameText) {
  const std::vector<std::string> values = {
      "0",   "1",    "-1",     "12",    "127",   "128",    "-128",   "-129",
      "255", "256",  "32767",  "32768", "-32768", "-32769", "8388607", "8388608",
      "2147483647", "2147483648", "-2147483648", "-2147483649", "12345678",
      "9223372036854775807", "-9223372036854775808", "007", "-0", "+5", "1e3",
      "99999999999999999999", " 7"};
  TypeParam a;
  for (const std::string& v : values) {
    a.PushBack(v);
  }
  EXPECT_EQ(Forward(a), values);
  for (const std::string& v : values) {
    const auto p = a.Find(Probe(v));
    ASSERT_NE(p, a.End()) << v;
    EXPECT_EQ(a.Get(p).view(), v);
    EXPECT_EQ(a.ValueSize(p), v.size());
  }
  EXPECT_EQ(a.Find(Probe("12345679")), a.End());
  EXPECT_EQ(a.Find(Probe("08")), a.End());
  EXPECT_EQ(a.GetInt(a.Find(Probe("12345678"))), 12345678);
  EXPECT_FALSE(a.GetInt(a.Find(Probe("007"))).has_value());
}

TYPED_TEST(PackedArrayTest, IntegersAreStoredCompactly) {
  TypeParam as_int;
  as_int.PushBack("12345678");  // 4-byte integer
  TypeParam as_text;
  as_text.PushBack("abcdefgh");
  EXPECT_LT(as_int.bytes(), as_text.bytes());
  EXPECT_EQ(TypeParam::BytesFor("12345678") + 4, TypeParam::BytesFor("abcdefgh"));
  // Short values cost one header byte (plus one back-link byte in the bidi flavour).
  EXPECT_EQ(TypeParam::BytesFor("field1"), 7u + (std::is_same_v<TypeParam, BidiPackedArray>));
}

TYPED_TEST(PackedArrayTest, BinarySafeAndLengthBoundaries) {
  std::vector<std::string> values = {""s, "\0"s, "a\0b"s, "\xff\xfe\0\x80"s};
  for (size_t len : {126u, 127u, 128u, 129u, 16381u, 16382u, 16383u, 16384u, 70000u}) {
    std::string s(len, 'x');
    s[len / 2] = '\0';
    values.push_back(s);
  }
  TypeParam a;
  for (const std::string& v : values) {
    a.PushBack(v);
  }
  EXPECT_EQ(Forward(a), values);
  for (const std::string& v : values) {
    EXPECT_NE(a.Find(Probe(v)), a.End());
  }
  if constexpr (std::is_same_v<TypeParam, BidiPackedArray>) {
    EXPECT_EQ(Backward(a), std::vector<std::string>(values.rbegin(), values.rend()));
  }
}

TYPED_TEST(PackedArrayTest, InsertReplaceErase) {
  TypeParam a;
  for (const char* v : {"a", "b", "c", "d", "e"}) {
    a.PushBack(v);
  }
  a.Insert(a.Seek(2), "X");  // a b X c d e
  EXPECT_EQ(Forward(a), (std::vector<std::string>{"a", "b", "X", "c", "d", "e"}));
  a.Replace(a.Seek(0), std::string(300, 'L'));  // grows the entry
  a.Replace(a.Seek(1), "");                      // shrinks it
  a.Replace(a.Seek(2), "Y");                     // same size
  EXPECT_EQ(Forward(a),
            (std::vector<std::string>{std::string(300, 'L'), "", "Y", "c", "d", "e"}));
  auto p = a.Erase(a.Seek(1), 2);  // removes "" and "Y"
  EXPECT_EQ(a.Get(p).view(), "c");
  EXPECT_EQ(Forward(a), (std::vector<std::string>{std::string(300, 'L'), "c", "d", "e"}));
  p = a.Erase(a.Seek(-1));
  EXPECT_EQ(p, a.End());
  a.Erase(a.Begin(), a.size());
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.MemoryUsage(), 0u);
}

TYPED_TEST(PackedArrayTest, FindWithSkipComparesEveryOtherEntry) {
  TypeParam a;
  for (const char* v : {"f1", "v1", "v1", "f2", "f2", "x"}) {
    a.PushBack(v);
  }
  // As field/value pairs: fields are f1, v1, f2 at positions 0, 2, 4.
  EXPECT_EQ(a.Find(Probe("v1"), a.Begin(), 1), a.Seek(2));
  EXPECT_EQ(a.Find(Probe("f2"), a.Begin(), 1), a.Seek(4));
  EXPECT_EQ(a.Find(Probe("x"), a.Begin(), 1), a.End());
  EXPECT_EQ(a.Find(Probe("x")), a.Seek(5));
}

TYPED_TEST(PackedArrayTest, SplitAppendClone) {
  TypeParam a;
  for (int i = 0; i < 10; ++i) {
    a.PushBack(std::to_string(i * 1000));
  }
  TypeParam tail = a.SplitAt(a.Seek(6));
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(tail.size(), 4u);
  EXPECT_EQ(Forward(tail), (std::vector<std::string>{"6000", "7000", "8000", "9000"}));
  TypeParam copy = a.Clone();
  copy.AppendAll(tail);
  EXPECT_EQ(copy.size(), 10u);
  EXPECT_EQ(Forward(copy)[9], "9000");
  EXPECT_EQ(a.size(), 6u);  // the original is untouched
  TypeParam all = a.SplitAt(a.Begin());
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(all.size(), 6u);
  TypeParam none = all.SplitAt(all.End());
  EXPECT_TRUE(none.empty());
}

std::string RandomValue(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
    case 1:
      return std::to_string(rng() % 1000);
    case 2: {
      std::string s(rng() % 4, '\0');
      for (char& c : s) {
        c = static_cast<char>(rng());
      }
      return s;
    }
    case 3:
      return std::string(120 + rng() % 20, 'm');
    case 4:
      return rng() % 50 == 0 ? std::string(16380 + rng() % 10, 'L') : "v" + std::to_string(rng() % 50);
    default:
      return "0" + std::to_string(rng() % 100);  // never an integer
  }
}

TYPED_TEST(PackedArrayTest, RandomOperationsMatchADeque) {
  std::mt19937_64 rng(20240501);
  TypeParam a;
  std::deque<std::string> model;
  for (int step = 0; step < 30000; ++step) {
    const size_t n = model.size();
    const int op = static_cast<int>(rng() % 10);
    if (op <= 3 || n == 0) {
      const std::string v = RandomValue(rng);
      const size_t at = n == 0 ? 0 : rng() % (n + 1);
      a.Insert(at == n ? a.End() : a.Seek(static_cast<int64_t>(at)), v);
      model.insert(model.begin() + static_cast<ptrdiff_t>(at), v);
    } else if (op <= 5) {
      const size_t at = rng() % n;
      const size_t k = 1 + rng() % std::min<size_t>(3, n - at);
      a.Erase(a.Seek(static_cast<int64_t>(at)), k);
      model.erase(model.begin() + static_cast<ptrdiff_t>(at),
                  model.begin() + static_cast<ptrdiff_t>(at + k));
    } else if (op <= 7) {
      const size_t at = rng() % n;
      const std::string v = RandomValue(rng);
      a.Replace(a.Seek(static_cast<int64_t>(at)), v);
      model[at] = v;
    } else if (op == 8) {
      const int64_t at = static_cast<int64_t>(rng() % n) - static_cast<int64_t>(n);
      ASSERT_EQ(a.Get(a.Seek(at)).view(), model[static_cast<size_t>(at + static_cast<int64_t>(n))]);
    } else {
      const std::string& want = model[rng() % n];
      const auto p = a.Find(Probe(want));
      ASSERT_NE(p, a.End());
      ASSERT_EQ(a.Get(p).view(), want);
    }
    ASSERT_EQ(a.size(), model.size());
    if (step % 97 == 0 || model.size() < 8) {
      ASSERT_EQ(Forward(a), std::vector<std::string>(model.begin(), model.end())) << step;
      if constexpr (std::is_same_v<TypeParam, BidiPackedArray>) {
        ASSERT_EQ(Backward(a), std::vector<std::string>(model.rbegin(), model.rend())) << step;
      }
    }
    if (model.size() > 300) {
      a.Clear();
      model.clear();
    }
  }
}

}  // namespace
}  // namespace hotkv::types

// ReplyBuilder: the RESP text of integers, bulk strings and aggregate headers around the
// boundaries of the inline small-number path (0..999) and the general one.
#include "protocol/reply_builder.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

namespace hotkv {
namespace {

std::string Text(const ByteBuffer& b) { return std::string(b.data(), b.size()); }

TEST(ReplyBuilder, IntegersAcrossTheSmallNumberBoundary) {
  for (int64_t v : {INT64_MIN, int64_t{-1000}, int64_t{-1}, int64_t{0}, int64_t{9}, int64_t{10},
                    int64_t{99}, int64_t{100}, int64_t{999}, int64_t{1000}, int64_t{123456},
                    INT64_MAX}) {
    ByteBuffer out;
    ReplyBuilder rb(&out);
    rb.Integer(v);
    EXPECT_EQ(Text(out), ":" + std::to_string(v) + "\r\n");
  }
}

TEST(ReplyBuilder, BulkLengthsAndArrayCounts) {
  for (size_t n : {0, 1, 9, 10, 99, 100, 999, 1000, 65536}) {
    ByteBuffer out;
    ReplyBuilder rb(&out);
    const std::string s(n, 'x');
    rb.Array(n);
    rb.Bulk(s);
    EXPECT_EQ(Text(out), "*" + std::to_string(n) + "\r\n$" + std::to_string(n) + "\r\n" + s + "\r\n");
  }
}

}  // namespace
}  // namespace hotkv

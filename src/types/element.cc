#include "types/element.h"

namespace hotkv::types {

std::optional<int64_t> ParseCanonicalInt(std::string_view s) {
  if (s.empty() || s.size() > kMaxIntDigits) {
    return std::nullopt;
  }
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) {
    i = 1;
    if (s.size() == 1) {
      return std::nullopt;
    }
  }
  if (s[i] == '0') {
    // "0" is canonical; "-0", "01" and "-01" are not.
    if (s.size() == 1) {
      return 0;
    }
    return std::nullopt;
  }
  // Accumulate as a negative number so that INT64_MIN fits.
  constexpr int64_t kMin = INT64_MIN;
  int64_t acc = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const int digit = c - '0';
    if (acc < kMin / 10 || acc * 10 < kMin + digit) {
      return std::nullopt;
    }
    acc = acc * 10 - digit;
  }
  if (negative) {
    return acc;
  }
  if (acc == kMin) {
    return std::nullopt;
  }
  return -acc;
}

size_t FormatInt(int64_t v, char* buf) {
  char tmp[kMaxIntDigits];
  size_t n = 0;
  // Work on the magnitude as unsigned so INT64_MIN is fine.
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    tmp[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  size_t len = 0;
  if (v < 0) {
    buf[len++] = '-';
  }
  while (n > 0) {
    buf[len++] = tmp[--n];
  }
  return len;
}

}  // namespace hotkv::types

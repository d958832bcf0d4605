#include "common/string_util.h"

#include "common/double_format.h"
#include "common/grisu2.h"
#include "common/parse_digits.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace hotkv {

std::optional<int64_t> ParseInt64(std::string_view s) {
  if (s.empty() || s.size() > 20) {
    return std::nullopt;
  }
  if (s.size() == 1) {  // "0".."9" (SETBIT's value, COUNT 1, ...)
    const unsigned d = static_cast<unsigned char>(s[0]) - '0';
    return d <= 9 ? std::optional<int64_t>(d) : std::nullopt;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) {
      return std::nullopt;
    }
  }
  // First digit must be 1..9 (no leading zeros, no "-0").
  if (s[i] < '1' || s[i] > '9') {
    return std::nullopt;
  }
  if (s.size() - i <= 18) {
    // Up to 18 digits cannot overflow (10^18 - 1 < 2^63): no per-digit range check.
    uint64_t u;
    if (!ParseDigits(s.data() + i, s.size() - i, &u)) {
      return std::nullopt;
    }
    const auto v = static_cast<int64_t>(u);
    return negative ? -v : v;
  }
  uint64_t v = 0;
  for (; i < s.size(); i++) {
    unsigned d = static_cast<unsigned char>(s[i]) - '0';
    if (d > 9) {
      return std::nullopt;
    }
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      return std::nullopt;
    }
    v = v * 10 + d;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
      return std::nullopt;
    }
    return static_cast<int64_t>(0 - v);
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  if (s.empty() || s.size() > 20) {
    return std::nullopt;
  }
  if (s.size() == 1 && s[0] == '0') {
    return 0;
  }
  if (s[0] < '1' || s[0] > '9') {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (char c : s) {
    unsigned d = static_cast<unsigned char>(c) - '0';
    if (d > 9 || v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      return std::nullopt;
    }
    v = v * 10 + d;
  }
  return v;
}

namespace {

// Clinger's fast path for the common [-]digits[.digits] with at most 15 digits in all:
// the digits are an exact integer below 2^53 and the power of ten (<= 10^15) is exact, so
// one IEEE division gives the correctly rounded double, which is what glibc's strtod
// returns (it rounds correctly). Anything else (exponents, "inf", '+', more digits, a
// leading or trailing '.') returns false and goes through strtod.
inline bool ParseDoubleFast(std::string_view s, double* out) {
  static constexpr double kPow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = s.data();
  size_t n = s.size();
  const bool negative = n != 0 && p[0] == '-';
  if (negative) {
    p++;
    n--;
  }
  if (n == 0 || n > 16) {
    return false;
  }
  // One pass: the digits as one integer, and where the '.' is (at most one).
  uint64_t m = 0;
  size_t dot = n;
  for (size_t i = 0; i < n; i++) {
    const unsigned d = static_cast<unsigned char>(p[i]) - '0';
    if (d <= 9) {
      m = m * 10 + d;
    } else if (p[i] == '.' && dot == n) {
      dot = i;
    } else {
      return false;
    }
  }
  const size_t frac = dot == n ? 0 : n - dot - 1;
  if (dot == 0 || (dot != n && frac == 0) || dot + frac > 15) {
    return false;
  }
  const double v = static_cast<double>(m) / kPow10[frac];
  *out = negative ? -v : v;
  return true;
}

}  // namespace

std::optional<double> ParseDouble(std::string_view s) {
  double fast;
  if (ParseDoubleFast(s, &fast)) {
    return fast;
  }
  if (s.empty() || s.size() >= 512 || isspace(static_cast<unsigned char>(s[0]))) {
    return std::nullopt;
  }
  char buf[512];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  double v = strtod(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) {
    return std::nullopt;
  }
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) {
    // Overflow/underflow of a finite-looking input, as Redis rejects it.
    return std::nullopt;
  }
  return v;
}

std::optional<long double> ParseLongDouble(std::string_view s) {
  if (s.empty() || s.size() >= kLongDoubleChars || isspace(static_cast<unsigned char>(s[0]))) {
    return std::nullopt;
  }
  char buf[kLongDoubleChars];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long double v = strtold(buf, &end);
  // As string2ld: an overflow or an underflow to zero is an error, a subnormal is not.
  if (end != buf + s.size() || std::isnan(v) ||
      (errno == ERANGE && (std::isinf(v) || v == 0))) {
    return std::nullopt;
  }
  return v;
}

size_t FormatInt64(int64_t v, char* buf) {
  auto res = std::to_chars(buf, buf + kInt64Digits, v);
  return static_cast<size_t>(res.ptr - buf);
}

std::string Int64ToString(int64_t v) {
  char buf[kInt64Digits];
  return std::string(buf, FormatInt64(v, buf));
}

size_t FormatDouble(double v, char* buf) {
  if (std::isinf(v)) {
    if (v > 0) {
      memcpy(buf, "inf", 3);
      return 3;
    }
    memcpy(buf, "-inf", 4);
    return 4;
  }
  if (v == 0) {
    // Redis prints negative zero as "-0"; keep the sign.
    if (std::signbit(v)) {
      memcpy(buf, "-0", 2);
      return 2;
    }
    buf[0] = '0';
    return 1;
  }
  // Redis >= 7.2 (d2string): integral values within +-2^62 print as integers...
  constexpr double kIntLimit = static_cast<double>(INT64_MAX / 2);
  if (v >= -kIntLimit && v <= kIntLimit) {
    const auto ll = static_cast<int64_t>(v);
    if (static_cast<double>(ll) == v) {
      return FormatInt64(ll, buf);
    }
  }
  // ...others as fpconv_dtoa lays out Grisu2's digits.
  return FormatDoubleFpconv(v, buf);
}

size_t FormatDoubleFpconv(double v, char* buf) {
  if (std::isinf(v)) {
    return FormatDouble(v, buf);
  }
  if (v == 0) {
    return FormatDouble(v, buf);
  }
  // Grisu2's digits laid out as fpconv_dtoa does: plain for exponents the rules below
  // allow, else d.ddde-N / d.ddde+N (exponent without padding).
  size_t n = 0;
  if (std::signbit(v)) {
    buf[n++] = '-';
  }
  char digits[24];
  int k = 0;  // value = digits * 10^k
  const int ndigits = Grisu2Digits(std::fabs(v), digits, &k);
  const int e10 = k + ndigits - 1;
  const int exp = std::abs(e10);
  if (k >= 0 && exp < ndigits + 7) {
    memcpy(buf + n, digits, ndigits);
    memset(buf + n + ndigits, '0', k);
    return n + ndigits + k;
  }
  if (k < 0 && (k > -7 || exp < 4)) {
    const int int_digits = ndigits + k;
    if (int_digits <= 0) {
      buf[n++] = '0';
      buf[n++] = '.';
      memset(buf + n, '0', -int_digits);
      n += -int_digits;
      memcpy(buf + n, digits, ndigits);
      return n + ndigits;
    }
    memcpy(buf + n, digits, int_digits);
    n += int_digits;
    buf[n++] = '.';
    memcpy(buf + n, digits + int_digits, ndigits - int_digits);
    return n + ndigits - int_digits;
  }
  buf[n++] = digits[0];
  if (ndigits > 1) {
    buf[n++] = '.';
    memcpy(buf + n, digits + 1, ndigits - 1);
    n += ndigits - 1;
  }
  buf[n++] = 'e';
  buf[n++] = e10 < 0 ? '-' : '+';
  char ebuf[8];
  const int elen = snprintf(ebuf, sizeof(ebuf), "%d", exp);
  memcpy(buf + n, ebuf, elen);
  return n + elen;
}

std::string DoubleToString(double v) {
  char buf[kDoubleChars];
  return std::string(buf, FormatDouble(v, buf));
}

size_t FormatLongDoubleHuman(long double v, char* buf, size_t cap) {
  if (!std::isfinite(v)) {
    return 0;
  }
  int n = snprintf(buf, cap, "%.17Lf", v);
  if (n <= 0 || static_cast<size_t>(n) >= cap) {
    return 0;
  }
  size_t len = static_cast<size_t>(n);
  if (memchr(buf, '.', len) != nullptr) {
    while (len > 0 && buf[len - 1] == '0') {
      len--;
    }
    if (len > 0 && buf[len - 1] == '.') {
      len--;
    }
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') {
    buf[0] = '0';
    len = 1;
  }
  return len;
}

bool IsCanonicalInt64(std::string_view s) { return s.size() <= 20 && ParseInt64(s).has_value(); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); i++) {
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void ToLowerInPlace(std::string& s) {
  for (char& c : s) {
    c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  }
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  ToLowerInPlace(out);
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

namespace {

inline unsigned char Fold(unsigned char c, bool nocase) {
  return nocase ? static_cast<unsigned char>(tolower(c)) : c;
}

// Matches one non-star pattern token at p against character c. Advances p past the
// token. Returns whether it matched.
bool MatchOne(std::string_view pat, size_t& p, unsigned char c, bool nocase) {
  c = Fold(c, nocase);
  char t = pat[p];
  if (t == '?') {
    p++;
    return true;
  }
  if (t == '\\' && p + 1 < pat.size()) {
    p += 2;
    return Fold(static_cast<unsigned char>(pat[p - 1]), nocase) == c;
  }
  if (t == '[') {
    p++;
    bool negate = false;
    if (p < pat.size() && pat[p] == '^') {
      negate = true;
      p++;
    }
    bool match = false;
    while (p < pat.size()) {
      if (pat[p] == '\\' && p + 1 < pat.size()) {
        p++;
        if (Fold(static_cast<unsigned char>(pat[p]), nocase) == c) {
          match = true;
        }
      } else if (pat[p] == ']') {
        break;
      } else if (p + 2 < pat.size() && pat[p + 1] == '-') {
        unsigned char lo = Fold(static_cast<unsigned char>(pat[p]), nocase);
        unsigned char hi = Fold(static_cast<unsigned char>(pat[p + 2]), nocase);
        if (lo > hi) {
          std::swap(lo, hi);
        }
        if (c >= lo && c <= hi) {
          match = true;
        }
        p += 2;
      } else if (Fold(static_cast<unsigned char>(pat[p]), nocase) == c) {
        match = true;
      }
      p++;
    }
    if (p < pat.size()) {
      p++;  // past ']'
    }
    return negate ? !match : match;
  }
  p++;
  return Fold(static_cast<unsigned char>(t), nocase) == c;
}

}  // namespace

// Iterative glob with single-star backtracking: on a mismatch, retry from the most recent
// '*' with one more character consumed by it. O(|pattern| * |string|) worst case and no
// recursion, so hostile patterns cannot blow the stack.
bool GlobMatch(std::string_view pat, std::string_view str, bool nocase) {
  size_t p = 0;
  size_t s = 0;
  size_t star_p = std::string_view::npos;
  size_t star_s = 0;
  while (s < str.size()) {
    if (p < pat.size() && pat[p] == '*') {
      while (p < pat.size() && pat[p] == '*') {
        p++;
      }
      if (p == pat.size()) {
        return true;
      }
      star_p = p;
      star_s = s;
      continue;
    }
    if (p < pat.size()) {
      size_t next = p;
      if (MatchOne(pat, next, static_cast<unsigned char>(str[s]), nocase)) {
        p = next;
        s++;
        continue;
      }
    }
    if (star_p == std::string_view::npos) {
      return false;
    }
    p = star_p;
    s = ++star_s;
  }
  while (p < pat.size() && pat[p] == '*') {
    p++;
  }
  return p == pat.size();
}

std::string HumanBytes(uint64_t n) {
  char buf[64];
  double d = static_cast<double>(n);
  if (n < 1024) {
    snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  } else if (n < 1024ULL * 1024) {
    snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < 1024ULL * 1024 * 1024) {
    snprintf(buf, sizeof(buf), "%.2fM", d / (1024 * 1024));
  } else if (n < 1024ULL * 1024 * 1024 * 1024) {
    snprintf(buf, sizeof(buf), "%.2fG", d / (1024.0 * 1024 * 1024));
  } else {
    snprintf(buf, sizeof(buf), "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
  }
  return buf;
}

void AppendQuotedRepr(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      default:
        if (ch >= 0x20 && ch < 0x7f) {
          out += static_cast<char>(ch);
        } else {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\x%02x", ch);
          out += buf;
        }
    }
  }
  out += '"';
}

}  // namespace hotkv

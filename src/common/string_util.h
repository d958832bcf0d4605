// String helpers with Redis's exact parsing and formatting rules.
//
//   int64_t v;
//   if (!ParseInt64("123", &v)) { ... "value is not an integer or out of range" ... }
//   char buf[kInt64Digits]; size_t n = FormatInt64(-42, buf);
//
// ParseInt64 is strict like Redis's string2ll: no spaces, no '+', no leading zeros,
// no "-0", must fit in int64. Doubles follow Redis's strtod/strtold rules (no spaces,
// no NaN; "inf"/"-inf" accepted where Redis accepts them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hotkv {

inline constexpr size_t kInt64Digits = 21;  // "-9223372036854775808"
inline constexpr size_t kDoubleChars = 64;
// Longest text of a long double INCRBYFLOAT/HINCRBYFLOAT read or write (Redis's
// MAX_LONG_DOUBLE_CHARS): "%.17Lf" of the largest long double fits.
inline constexpr size_t kLongDoubleChars = 5 * 1024;

// Strict integer parse (Redis string2ll). Returns nullopt on any deviation.
std::optional<int64_t> ParseInt64(std::string_view s);
// Strict unsigned parse (no sign allowed).
std::optional<uint64_t> ParseUint64(std::string_view s);

// Double parse as Redis's getDoubleFromObject: strtod over the whole string, no leading
// space, no NaN. Accepts "inf", "-inf", "+inf" (any case) and exponents.
std::optional<double> ParseDouble(std::string_view s);
// Long double parse as Redis's string2ld (INCRBYFLOAT): no space, no NaN, no infinity
// in the input is still accepted by strtold but results are checked by the caller.
std::optional<long double> ParseLongDouble(std::string_view s);

// Writes the decimal form of v into buf (at least kInt64Digits bytes); returns length.
size_t FormatInt64(int64_t v, char* buf);
std::string Int64ToString(int64_t v);

// What Redis >= 7.2 replies for a double (d2string + fpconv_dtoa): integers within
// +-2^62 as integers, others as the shortest digits that round-trip, laid out as fpconv
// does: "1.5", "0.1", "0.00001", "2.682209014892578e-6", "1e+21", "inf", "-inf".
size_t FormatDouble(double v, char* buf);
std::string DoubleToString(double v);

// INCRBYFLOAT's human format (Redis LD_STR_HUMAN): "%.17Lf" with trailing zeros and a
// trailing dot removed, e.g. 10.5, 5000, 3.1. Returns 0 when v is not finite.
size_t FormatLongDoubleHuman(long double v, char* buf, size_t cap);

// True when s is exactly the canonical decimal form of an int64 (what Redis stores with
// the "int" encoding): ParseInt64 succeeds and the string is at most 20 chars.
bool IsCanonicalInt64(std::string_view s);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
void ToLowerInPlace(std::string& s);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);

// Redis-style glob match: * ? [abc] [^a] [a-z] and backslash escapes.
bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

// Formats a human size like Redis's INFO: "1.23M", "512B".
std::string HumanBytes(uint64_t n);

// Redis's sdscatrepr (MONITOR lines, config errors, CONFIG REWRITE): `s` in double
// quotes, with \\ \" \n \r \t \a \b escaped and other non-printable bytes as \xhh.
void AppendQuotedRepr(std::string& out, std::string_view s);

}  // namespace hotkv

// fpconv_dtoa alone, for the few places Redis >= 7.2 uses it without d2string's integer
// shortcut (implemented in string_util.cc next to FormatDouble).
#pragma once

#include <cstddef>

namespace hotkv {

// What Redis >= 7.2 mixes into DEBUG DIGEST / DIGEST-VALUE for sorted-set scores: the
// shortest round-trip digits laid out as fpconv_dtoa does, with no integer shortcut,
// e.g. 1e16 -> "1e+16", 1e8 -> "1e+8", 1e7 -> "10000000", 0.1 -> "0.1", inf, -0.
// (Redis 7.0 used "%.17g" there: the two Redis versions disagree for some scores.)
size_t FormatDoubleFpconv(double v, char* buf);

}  // namespace hotkv

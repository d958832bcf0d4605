// Grisu2 (Florian Loitsch, "Printing Floating-Point Numbers Quickly and Accurately",
// 2010): the decimal digits of a double that Redis >= 7.2 prints (its fpconv_dtoa). The
// digits always read back as the same double; in a small share of cases they are one
// longer than the shortest such string (37.142030831502034, where 37.14203083150203
// would do), and Redis's replies carry exactly these digits, so HotKV computes them the
// same way instead of using std::to_chars.
//
//   char digits[18];
//   int k;
//   int n = Grisu2Digits(0.3, digits, &k);   // "3", n = 1, k = -1: 3 * 10^-1
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>

namespace hotkv {

// For a finite, positive, non-zero `v`: writes its digits (no sign, no dot, at most 18)
// to `digits`, returns how many, and sets `*k` so that v ~= digits * 10^k.
int Grisu2Digits(double v, char* digits, int* k);

}  // namespace hotkv

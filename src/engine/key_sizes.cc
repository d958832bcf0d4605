#include "engine/key_sizes.h"

#include <array>
#include <string>

namespace hotkv {

namespace {

// "0", then 2^(b-1) for bin b with Redis's unit letters: 1 .. 512, 1K .. 512K, 1M ...
std::array<std::string, KeySizeHistogram::kBins> MakeLabels() {
  static const char kUnits[] = {'\0', 'K', 'M', 'G', 'T', 'P', 'E'};
  std::array<std::string, KeySizeHistogram::kBins> labels;
  labels[0].assign(1, '0');  // not = "0": GCC 12 -Wrestrict false positive (bug 105329)
  for (int b = 1; b < KeySizeHistogram::kBins; b++) {
    const int exp = b - 1;
    labels[b] = std::to_string(1 << (exp % 10));
    if (kUnits[exp / 10] != '\0') {
      labels[b] += kUnits[exp / 10];
    }
  }
  return labels;
}

}  // namespace

const char* KeySizeBinLabel(int bin) {
  static const std::array<std::string, KeySizeHistogram::kBins> kLabels = MakeLabels();
  return kLabels[static_cast<size_t>(bin)].c_str();
}

}  // namespace hotkv

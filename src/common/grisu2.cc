// Grisu2 digit generation (see grisu2.h). The cached powers are 10^k for
// k = -348, -340, ..., 340, each as a 64-bit significand rounded to nearest and its binary
// exponent (generated with exact rational arithmetic).
#include "common/grisu2.h"

#include <cstring>

namespace hotkv {

namespace {

struct DiyFp {
  uint64_t f;
  int e;
};

constexpr int kFirstPower = -348;
constexpr int kPowerStep = 8;
constexpr int kPowerCount = 87;
constexpr int kMinTargetExp = -60;
constexpr int kMaxTargetExp = -32;

constexpr DiyFp kPowers[kPowerCount] = {
    {18054884314459144840ULL, -1220}, {13451937075301367670ULL, -1193},
    {10022474136428063862ULL, -1166}, {14934650266808366570ULL, -1140},
    {11127181549972568877ULL, -1113}, {16580792590934885855ULL, -1087},
    {12353653155963782858ULL, -1060}, {18408377700990114895ULL, -1034},
    {13715310171984221708ULL, -1007}, {10218702384817765436ULL, -980},
    {15227053142812498563ULL, -954},  {11345038669416679861ULL, -927},
    {16905424996341287883ULL, -901},  {12595523146049147757ULL, -874},
    {9384396036005875287ULL, -847},   {13983839803942852151ULL, -821},
    {10418772551374772303ULL, -794},  {15525180923007089351ULL, -768},
    {11567161174868858868ULL, -741},  {17236413322193710309ULL, -715},
    {12842128665889583758ULL, -688},  {9568131466127621947ULL, -661},
    {14257626930069360058ULL, -635},  {10622759856335341974ULL, -608},
    {15829145694278690180ULL, -582},  {11793632577567316726ULL, -555},
    {17573882009934360870ULL, -529},  {13093562431584567480ULL, -502},
    {9755464219737475723ULL, -475},   {14536774485912137811ULL, -449},
    {10830740992659433045ULL, -422},  {16139061738043178685ULL, -396},
    {12024538023802026127ULL, -369},  {17917957937422433684ULL, -343},
    {13349918974505688015ULL, -316},  {9946464728195732843ULL, -289},
    {14821387422376473014ULL, -263},  {11042794154864902060ULL, -236},
    {16455045573212060422ULL, -210},  {12259964326927110867ULL, -183},
    {18268770466636286478ULL, -157},  {13611294676837538539ULL, -130},
    {10141204801825835212ULL, -103},  {15111572745182864684ULL, -77},
    {11258999068426240000ULL, -50},   {16777216000000000000ULL, -24},
    {12500000000000000000ULL, 3},     {9313225746154785156ULL, 30},
    {13877787807814456755ULL, 56},    {10339757656912845936ULL, 83},
    {15407439555097886824ULL, 109},   {11479437019748901445ULL, 136},
    {17105694144590052135ULL, 162},   {12744735289059618216ULL, 189},
    {9495567745759798747ULL, 216},    {14149498560666738074ULL, 242},
    {10542197943230523224ULL, 269},   {15709099088952724970ULL, 295},
    {11704190886730495818ULL, 322},   {17440603504673385349ULL, 348},
    {12994262207056124023ULL, 375},   {9681479787123295682ULL, 402},
    {14426529090290212157ULL, 428},   {10748601772107342003ULL, 455},
    {16016664761464807395ULL, 481},   {11933345169920330789ULL, 508},
    {17782069995880619868ULL, 534},   {13248674568444952270ULL, 561},
    {9871031767461413346ULL, 588},    {14708983551653345445ULL, 614},
    {10959046745042015199ULL, 641},   {16330252207878254650ULL, 667},
    {12166986024289022870ULL, 694},   {18130221999122236476ULL, 720},
    {13508068024458167312ULL, 747},   {10064294952495520794ULL, 774},
    {14996968138956309548ULL, 800},   {11173611982879273257ULL, 827},
    {16649979327439178909ULL, 853},   {12405201291620119593ULL, 880},
    {9242595204427927429ULL, 907},    {13772540099066387757ULL, 933},
    {10261342003245940623ULL, 960},   {15290591125556738113ULL, 986},
    {11392378155556871081ULL, 1013},  {16975966327722178521ULL, 1039},
    {12648080533535911531ULL, 1066},
};

constexpr uint64_t kFracMask = 0x000FFFFFFFFFFFFFULL;
constexpr uint64_t kHiddenBit = 0x0010000000000000ULL;
constexpr int kExpBias = 1023 + 52;

constexpr uint64_t kPow10[] = {10000000000000000000ULL,
                               1000000000000000000ULL,
                               100000000000000000ULL,
                               10000000000000000ULL,
                               1000000000000000ULL,
                               100000000000000ULL,
                               10000000000000ULL,
                               1000000000000ULL,
                               100000000000ULL,
                               10000000000ULL,
                               1000000000ULL,
                               100000000ULL,
                               10000000ULL,
                               1000000ULL,
                               100000ULL,
                               10000ULL,
                               1000ULL,
                               100ULL,
                               10ULL,
                               1ULL};

DiyFp Decompose(double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof(bits));
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  DiyFp fp{bits & kFracMask, 0};
  if (biased != 0) {
    fp.f += kHiddenBit;
    fp.e = biased - kExpBias;
  } else {
    fp.e = 1 - kExpBias;  // subnormal
  }
  return fp;
}

// Shifts the significand up until its top bit is set.
DiyFp Normalized(DiyFp fp) {
  while ((fp.f & kHiddenBit) == 0) {
    fp.f <<= 1;
    fp.e--;
  }
  fp.f <<= 11;
  fp.e -= 11;
  return fp;
}

// The neighbours half-way to the adjacent doubles, on a common exponent.
void Boundaries(DiyFp fp, DiyFp* lower, DiyFp* upper) {
  upper->f = (fp.f << 1) + 1;
  upper->e = fp.e - 1;
  while ((upper->f & (kHiddenBit << 1)) == 0) {
    upper->f <<= 1;
    upper->e--;
  }
  upper->f <<= 10;
  upper->e -= 10;
  const int l_shift = fp.f == kHiddenBit ? 2 : 1;  // the gap below a power of two is half
  lower->f = (fp.f << l_shift) - 1;
  lower->e = fp.e - l_shift;
  lower->f <<= lower->e - upper->e;
  lower->e = upper->e;
}

// The upper 64 bits of the 128-bit product, rounded half up.
DiyFp Multiply(DiyFp a, DiyFp b) {
  constexpr uint64_t kLow = 0xFFFFFFFFULL;
  const uint64_t ah = a.f >> 32, al = a.f & kLow, bh = b.f >> 32, bl = b.f & kLow;
  const uint64_t ah_bl = ah * bl, al_bh = al * bh, al_bl = al * bl, ah_bh = ah * bh;
  uint64_t mid = (ah_bl & kLow) + (al_bh & kLow) + (al_bl >> 32);
  mid += uint64_t{1} << 31;
  return {ah_bh + (ah_bl >> 32) + (al_bh >> 32) + (mid >> 32), a.e + b.e + 64};
}

// A cached power c = 10^k with e(fp) + e(c) + 64 in [kMinTargetExp, kMaxTargetExp].
DiyFp CachedPower(int exp, int* k) {
  constexpr double kLog10Of2 = 0.30102999566398114;
  const int approx = static_cast<int>(-(exp + kPowerCount) * kLog10Of2);
  int idx = (approx - kFirstPower) / kPowerStep;
  while (true) {
    const int target = exp + kPowers[idx].e + 64;
    if (target < kMinTargetExp) {
      idx++;
    } else if (target > kMaxTargetExp) {
      idx--;
    } else {
      *k = kFirstPower + idx * kPowerStep;
      return kPowers[idx];
    }
  }
}

// Moves the last digit down while that brings the number closer to the exact value
// and stays inside the rounding interval.
void RoundLastDigit(char* digits, int n, uint64_t delta, uint64_t rest, uint64_t ten_kappa,
                    uint64_t distance) {
  while (rest < distance && delta - rest >= ten_kappa &&
         (rest + ten_kappa < distance || distance - rest > rest + ten_kappa - distance)) {
    digits[n - 1]--;
    rest += ten_kappa;
  }
}

int GenerateDigits(DiyFp w, DiyFp upper, DiyFp lower, char* digits, int* k) {
  const uint64_t distance = upper.f - w.f;
  uint64_t delta = upper.f - lower.f;
  const int shift = -upper.e;
  const uint64_t one = uint64_t{1} << shift;
  uint64_t integral = upper.f >> shift;
  uint64_t fraction = upper.f & (one - 1);
  int n = 0;
  int kappa = 10;
  for (const uint64_t* div = kPow10 + 10; kappa > 0; div++) {
    const uint64_t digit = integral / *div;
    if (digit != 0 || n != 0) {
      digits[n++] = static_cast<char>('0' + digit);
    }
    integral -= digit * *div;
    kappa--;
    const uint64_t rest = (integral << shift) + fraction;
    if (rest <= delta) {
      *k += kappa;
      RoundLastDigit(digits, n, delta, rest, *div << shift, distance);
      return n;
    }
  }
  const uint64_t* unit = kPow10 + 18;
  while (true) {
    fraction *= 10;
    delta *= 10;
    kappa--;
    const uint64_t digit = fraction >> shift;
    if (digit != 0 || n != 0) {
      digits[n++] = static_cast<char>('0' + digit);
    }
    fraction &= one - 1;
    if (fraction < delta) {
      *k += kappa;
      RoundLastDigit(digits, n, delta, fraction, one, distance * *unit);
      return n;
    }
    unit--;
  }
}

}  // namespace

int Grisu2Digits(double v, char* digits, int* k) {
  DiyFp w = Decompose(v);
  DiyFp lower, upper;
  Boundaries(w, &lower, &upper);
  w = Normalized(w);
  int mk;
  const DiyFp c = CachedPower(upper.e, &mk);
  w = Multiply(w, c);
  upper = Multiply(upper, c);
  lower = Multiply(lower, c);
  lower.f++;
  upper.f--;
  *k = -mk;
  return GenerateDigits(w, upper, lower, digits, k);
}

}  // namespace hotkv

// HyperLogLog: see hyperloglog.h. The estimator is compiled with -ffp-contract=off
// (CMakeLists.txt) so that no fused multiply-add changes the rounding Redis gets.
#include "types/hyperloglog.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>

namespace hotkv::types::hll {

namespace {

constexpr uint64_t kSeed = 0xadc83b19ULL;
constexpr int kQ = 64 - kP;
constexpr uint8_t kRegisterMax = (1 << kBits) - 1;
constexpr int kZeroMaxLen = 64;
constexpr int kXZeroMaxLen = 16384;
constexpr int kValMaxLen = 4;
constexpr double kAlphaInf = 0.721347520444481703680;  // 0.5 / ln(2)

// Sparse opcodes.
inline bool IsZero(uint8_t b) { return (b & 0xc0) == 0; }
inline bool IsXZero(uint8_t b) { return (b & 0xc0) == 0x40; }
inline bool IsVal(uint8_t b) { return (b & 0x80) != 0; }
inline int ZeroLen(uint8_t b) { return (b & 0x3f) + 1; }
inline int XZeroLen(uint8_t b0, uint8_t b1) { return (((b0 & 0x3f) << 8) | b1) + 1; }
inline int ValValue(uint8_t b) { return ((b >> 2) & 0x1f) + 1; }
inline int ValLen(uint8_t b) { return (b & 0x3) + 1; }
inline uint8_t ValOp(int value, int len) {
  return static_cast<uint8_t>(((value - 1) << 2 | (len - 1)) | 0x80);
}
inline uint8_t ZeroOp(int len) { return static_cast<uint8_t>(len - 1); }
inline void XZeroOp(uint8_t* p, int len) {
  const int l = len - 1;
  p[0] = static_cast<uint8_t>((l >> 8) | 0x40);
  p[1] = static_cast<uint8_t>(l & 0xff);
}

inline uint8_t* Bytes(std::string* s) { return reinterpret_cast<uint8_t*>(s->data()); }
inline const uint8_t* Bytes(std::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Appends a zero run of `len` registers (ZERO or XZERO) to `out`; returns bytes written.
int ZeroRun(uint8_t* out, int len) {
  if (len > kZeroMaxLen) {
    XZeroOp(out, len);
    return 2;
  }
  out[0] = ZeroOp(len);
  return 1;
}

// Redis's hllSigma and hllTau (Ertl's estimator).
double Sigma(double x) {
  if (x == 1.) {
    return INFINITY;
  }
  double z_prime;
  double y = 1;
  double z = x;
  do {
    x *= x;
    z_prime = z;
    z += x * y;
    y += y;
  } while (z_prime != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) {
    return 0.;
  }
  double z_prime;
  double y = 1.0;
  double z = 1 - x;
  do {
    x = std::sqrt(x);
    z_prime = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prime != z);
  return z / 3;
}

uint64_t Estimate(const int* reghisto) {
  const double m = kRegisters;
  double z = m * Tau((m - reghisto[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += reghisto[j];
    z *= 0.5;
  }
  z += m * Sigma(reghisto[0] / m);
  return static_cast<uint64_t>(std::llroundl(kAlphaInf * m * m / z));
}

// Walks a sparse HLL's opcodes, calling run(first_register, length, value) for each
// (value 0 for ZERO and XZERO). Returns false, stopping, when the runs go past kRegisters;
// otherwise whether they cover exactly kRegisters registers (Redis since the
// CVE-2025-32023 fix treats both as corruption). An XZERO cut short by the end reads its
// missing byte as 0 (Redis: the string's terminator).
template <typename F>
bool WalkSparse(std::string_view hll, F run) {
  const uint8_t* p = Bytes(hll) + kHeaderSize;
  const uint8_t* end = Bytes(hll) + hll.size();
  int idx = 0;
  while (p < end) {
    int len, value = 0;
    if (IsZero(*p)) {
      len = ZeroLen(*p);
      p++;
    } else if (IsXZero(*p)) {
      len = p + 1 < end ? XZeroLen(p[0], p[1]) : XZeroLen(p[0], 0);
      p += 2;
    } else {
      len = ValLen(*p);
      value = ValValue(*p);
      p++;
    }
    if (idx + len > kRegisters) {
      return false;
    }
    run(idx, len, value);
    idx += len;
  }
  return idx == kRegisters;
}

// Calls fn(index, value) for every dense register: four 6-bit registers per 3 bytes,
// least significant bits first.
template <typename F>
void ForEachDense(const uint8_t* regs, F fn) {
  int i = 0;
  for (size_t b = 0; b < kDenseSize - kHeaderSize; b += 3, i += 4) {
    const unsigned b0 = regs[b], b1 = regs[b + 1], b2 = regs[b + 2];
    fn(i, static_cast<uint8_t>(b0 & 63));
    fn(i + 1, static_cast<uint8_t>(((b0 >> 6) | (b1 << 2)) & 63));
    fn(i + 2, static_cast<uint8_t>(((b1 >> 4) | (b2 << 4)) & 63));
    fn(i + 3, static_cast<uint8_t>(b2 >> 2));
  }
}

}  // namespace

uint64_t MurmurHash64A(const void* key, int len, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  uint64_t h = seed ^ (static_cast<uint64_t>(len) * m);
  const uint8_t* data = static_cast<const uint8_t*>(key);
  const uint8_t* end = data + (len - (len & 7));
  while (data != end) {
    uint64_t k;
    memcpy(&k, data, 8);  // x86-64: little-endian, as Redis reads it
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
    data += 8;
  }
  // The 1-7 trailing bytes, little-endian (the reference's fall-through switch).
  const int tail = len & 7;
  for (int i = tail - 1; i >= 0; i--) {
    h ^= static_cast<uint64_t>(data[i]) << (8 * i);
  }
  if (tail != 0) {
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

int PatternLength(std::string_view element, int* reg) {
  uint64_t hash = MurmurHash64A(element.data(), static_cast<int>(element.size()), kSeed);
  *reg = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kP;
  hash |= uint64_t{1} << kQ;  // the loop ends, count <= kQ + 1
  // Position of the first set bit, 1-based.
  return __builtin_ctzll(hash) + 1;
}

bool IsValid(std::string_view v) {
  if (v.size() < kHeaderSize || v.substr(0, 4) != "HYLL") {
    return false;
  }
  const uint8_t enc = Encoding(v);
  if (enc > kSparse) {
    return false;
  }
  return enc != kDense || v.size() == kDenseSize;
}

std::string NewSparse() {
  std::string s(kHeaderSize, '\0');
  s.replace(0, 4, "HYLL");
  s[4] = static_cast<char>(kSparse);
  uint8_t op[2];
  for (int left = kRegisters; left > 0;) {
    const int run = left < kXZeroMaxLen ? left : kXZeroMaxLen;
    XZeroOp(op, run);
    s.append(reinterpret_cast<const char*>(op), 2);
    left -= run;
  }
  return s;
}

// Bytes 8..15, little-endian (x86-64 loads them as they are).
uint64_t CachedCard(std::string_view v) {
  uint64_t card;
  memcpy(&card, v.data() + 8, sizeof(card));
  return card;
}

void StoreCard(char* value, uint64_t card) { memcpy(value + 8, &card, sizeof(card)); }

uint8_t DenseGet(const uint8_t* regs, int index) {
  const size_t byte = static_cast<size_t>(index) * kBits / 8;
  const unsigned fb = (static_cast<unsigned>(index) * kBits) & 7;
  const unsigned b0 = regs[byte];
  // The last register never reaches into a next byte (its bits end at the value's end).
  const unsigned b1 = byte + 1 < kDenseSize - kHeaderSize ? regs[byte + 1] : 0;
  return static_cast<uint8_t>(((b0 >> fb) | (b1 << (8 - fb))) & kRegisterMax);
}

void DenseSetRaw(uint8_t* regs, int index, uint8_t value) {
  const size_t byte = static_cast<size_t>(index) * kBits / 8;
  const unsigned fb = (static_cast<unsigned>(index) * kBits) & 7;
  const unsigned fb8 = 8 - fb;
  const unsigned v = value;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(kRegisterMax << fb)) | (v << fb));
  if (byte + 1 < kDenseSize - kHeaderSize) {
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(kRegisterMax >> fb8)) | (v >> fb8));
  }
}

bool DenseSet(uint8_t* regs, int index, uint8_t count) {
  if (count > DenseGet(regs, index)) {
    DenseSetRaw(regs, index, count);
    return true;
  }
  return false;
}

int DenseAdd(char* value, std::string_view element) {
  int reg;
  const int count = PatternLength(element, &reg);
  uint8_t* regs = reinterpret_cast<uint8_t*>(value) + kHeaderSize;
  return DenseSet(regs, reg, static_cast<uint8_t>(count)) ? 1 : 0;
}

bool SparseToDense(std::string* hll) {
  if (Encoding(*hll) == kDense) {
    return true;
  }
  std::string dense(kDenseSize, '\0');
  memcpy(dense.data(), hll->data(), kHeaderSize);  // magic, unused bytes and cache
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = Bytes(&dense) + kHeaderSize;
  const bool ok = WalkSparse(*hll, [regs](int first, int len, int value) {
    for (int i = first; value != 0 && i < first + len; i++) {
      DenseSetRaw(regs, i, static_cast<uint8_t>(value));
    }
  });
  if (!ok) {
    return false;
  }
  *hll = std::move(dense);
  return true;
}

namespace {

// Redis's hllSparseSet: finds the opcode covering `index`, rewrites it (splitting runs
// into at most three opcodes) and merges adjacent equal VAL opcodes around the change.
int SparseSet(std::string* hll, int index, uint8_t count, size_t sparse_max_bytes) {
  if (count > kSparseValMax) {
    return -2;  // promote
  }
  const size_t base = kHeaderSize;
  size_t end = hll->size();
  uint8_t* b = Bytes(hll);
  // Step 1: the opcode covering `index`.
  size_t p = base;
  int64_t first = 0;
  int64_t span = 0;
  size_t prev = 0;
  bool has_prev = false;
  while (p < end) {
    size_t oplen = 1;
    if (IsZero(b[p])) {
      span = ZeroLen(b[p]);
    } else if (IsVal(b[p])) {
      span = ValLen(b[p]);
    } else {
      span = p + 1 < end ? XZeroLen(b[p], b[p + 1]) : XZeroLen(b[p], 0);
      oplen = 2;
    }
    if (index <= first + span - 1) {
      break;
    }
    prev = p;
    has_prev = true;
    p += oplen;
    first += span;
  }
  if (span == 0 || p >= end) {
    return -1;
  }
  const bool is_xzero = IsXZero(b[p]);
  const bool is_zero = IsZero(b[p]);
  const bool is_val = !is_xzero && !is_zero;
  const int runlen = is_zero ? ZeroLen(b[p]) : is_val ? ValLen(b[p]) : static_cast<int>(span);

  bool rewritten = false;
  if (is_val) {
    if (ValValue(b[p]) >= count) {
      return 0;  // case A: no change
    }
    if (runlen == 1) {
      b[p] = ValOp(count, 1);  // case B
      rewritten = true;
    }
  }
  if (!rewritten && is_zero && runlen == 1) {
    b[p] = ValOp(count, 1);  // case C
    rewritten = true;
  }
  if (!rewritten) {
    // Case D: split the run into [before][our VAL][after].
    uint8_t seq[5];
    int n = 0;
    const int64_t last = first + span - 1;
    if (is_zero || is_xzero) {
      if (index != first) {
        n += ZeroRun(seq + n, static_cast<int>(index - first));
      }
      seq[n++] = ValOp(count, 1);
      if (index != last) {
        n += ZeroRun(seq + n, static_cast<int>(last - index));
      }
    } else {
      const int curval = ValValue(b[p]);
      if (index != first) {
        seq[n++] = ValOp(curval, static_cast<int>(index - first));
      }
      seq[n++] = ValOp(count, 1);
      if (index != last) {
        seq[n++] = ValOp(curval, static_cast<int>(last - index));
      }
    }
    const int oldlen = is_xzero ? 2 : 1;
    const int deltalen = n - oldlen;
    if (deltalen > 0 && hll->size() + deltalen > sparse_max_bytes) {
      return -2;  // promote
    }
    if (p + oldlen <= hll->size()) {
      hll->replace(p, oldlen, reinterpret_cast<const char*>(seq), n);
    } else {
      // A truncated XZERO at the very end (its second byte is the terminating NUL in
      // Redis): the value grows by n - 2 from its length, the last byte written is lost.
      const size_t new_size = hll->size() + n - oldlen;
      hll->resize(p);
      hll->append(reinterpret_cast<const char*>(seq), n);
      hll->resize(new_size);
    }
    b = Bytes(hll);
    end = hll->size();
  }
  // Step 4: merge adjacent VAL opcodes of equal value, scanning up to 5 opcodes from the
  // one before the change.
  p = has_prev ? prev : base;
  int scanlen = 5;
  while (p < end && scanlen--) {
    if (IsXZero(b[p])) {
      p += 2;
      continue;
    }
    if (IsZero(b[p])) {
      p++;
      continue;
    }
    if (p + 1 < end && IsVal(b[p + 1])) {
      const int v1 = ValValue(b[p]);
      const int v2 = ValValue(b[p + 1]);
      if (v1 == v2) {
        const int len = ValLen(b[p]) + ValLen(b[p + 1]);
        if (len <= kValMaxLen) {
          b[p + 1] = ValOp(v1, len);
          hll->erase(p, 1);
          b = Bytes(hll);
          end = hll->size();
          continue;
        }
      }
    }
    p++;
  }
  InvalidateCache(hll->data());
  return 1;
}

}  // namespace

int SetRegister(std::string* hll, int index, uint8_t count, size_t sparse_max_bytes) {
  if (Encoding(*hll) == kSparse) {
    const int r = SparseSet(hll, index, count, sparse_max_bytes);
    if (r != -2) {
      return r;
    }
    if (!SparseToDense(hll)) {
      return -1;
    }
    // A promotion always comes with a register change.
  }
  return DenseSet(Bytes(hll) + kHeaderSize, index, count) ? 1 : 0;
}

int Add(std::string* hll, std::string_view element, size_t sparse_max_bytes) {
  const uint8_t enc = Encoding(*hll);
  if (enc > kSparse) {
    return -1;
  }
  int reg;
  const int count = PatternLength(element, &reg);
  return SetRegister(hll, reg, static_cast<uint8_t>(count), sparse_max_bytes);
}

bool MergeInto(std::string_view hll, uint8_t* max) {
  const uint8_t* bytes = Bytes(hll);
  if (Encoding(hll) == kDense) {
    ForEachDense(bytes + kHeaderSize, [max](int i, uint8_t v) {
      if (v > max[i]) {
        max[i] = v;
      }
    });
    return true;
  }
  return WalkSparse(hll, [max](int first, int len, int value) {
    for (int i = first; i < first + len; i++) {
      if (value > max[i]) {
        max[i] = static_cast<uint8_t>(value);
      }
    }
  });
}

// The histogram of a dense HLL's registers: eight registers per 6-byte step from one
// 64-bit load (the registers are a little-endian bit stream), counted into four
// histograms so that runs of equal registers do not chain their increments.
void DenseHistogramPortable(const uint8_t* regs, int* reghisto) {
  constexpr size_t kBytes = kDenseSize - kHeaderSize;
  int h[4][64] = {};
  size_t b = 0;
  for (; b + 8 <= kBytes; b += 6) {
    uint64_t w;
    memcpy(&w, regs + b, 8);
    h[0][w & 63]++;
    h[1][(w >> 6) & 63]++;
    h[2][(w >> 12) & 63]++;
    h[3][(w >> 18) & 63]++;
    h[0][(w >> 24) & 63]++;
    h[1][(w >> 30) & 63]++;
    h[2][(w >> 36) & 63]++;
    h[3][(w >> 42) & 63]++;
  }
  for (; b < kBytes; b += 3) {
    const unsigned b0 = regs[b], b1 = regs[b + 1], b2 = regs[b + 2];
    h[0][b0 & 63]++;
    h[1][((b0 >> 6) | (b1 << 2)) & 63]++;
    h[2][((b1 >> 4) | (b2 << 4)) & 63]++;
    h[3][b2 >> 2]++;
  }
  for (int v = 0; v < 64; v++) {
    reghisto[v] = h[0][v] + h[1][v] + h[2][v] + h[3][v];
  }
}

namespace {

// 64 registers (48 bytes) per step: VPERMB gives each 64-bit lane the 6 bytes of its 8
// registers, VPMULTISHIFTQB moves register k of a lane to its byte k, and a mask keeps
// the 6 bits. Values 0..15 (nearly every register of a real HLL) are counted in 16 vectors
// of 64 byte counters (one compare and one masked add each; the counters stay in
// registers), folded into the histogram every 255 steps before a byte counter can wrap;
// the rare larger values one by one.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void HistogramVbmi(const uint8_t* regs,
                                                                          int* reghisto) {
  constexpr size_t kBytes = kDenseSize - kHeaderSize;
  constexpr size_t kStep = 48;
  static_assert(kBytes % kStep == 0);
  alignas(64) static constexpr uint8_t kPerm[64] = {
      0,  1,  2,  3,  4,  5,  6,  7,  6,  7,  8,  9,  10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
      18, 19, 18, 19, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 30, 31, 30, 31, 32, 33,
      34, 35, 36, 37, 36, 37, 38, 39, 40, 41, 42, 43, 42, 43, 44, 45, 46, 47, 48, 49};
  // kValues[v]: 64 bytes equal to v, compared from memory (registers are for the counters).
  alignas(64) static constexpr auto kValues = [] {
    std::array<std::array<uint8_t, 64>, 16> t{};
    for (int v = 0; v < 16; v++) {
      for (auto& b : t[v]) {
        b = static_cast<uint8_t>(v);
      }
    }
    return t;
  }();
  const __m512i perm = _mm512_load_si512(kPerm);
  const __m512i shifts = _mm512_set1_epi64(0x2A241E18120C0600LL);  // 0, 6, ..., 42
  const __m512i low6 = _mm512_set1_epi8(0x3f);
  const __m512i one = _mm512_set1_epi8(1);
  const __m512i sixteen = _mm512_set1_epi8(16);
  // (The maskz forms: GCC 12's plain ones warn of their own undefined pass-through.)
  constexpr __mmask64 kAll = ~__mmask64{0};
  for (size_t b = 0; b < kBytes;) {
    __m512i acc[16];
#pragma GCC unroll 16
    for (int v = 0; v < 16; v++) {
      acc[v] = _mm512_setzero_si512();
    }
    const size_t end = std::min(kBytes, b + 255 * kStep);
    for (; b < end; b += kStep) {
      const __m512i raw = _mm512_maskz_loadu_epi8(0x0000FFFFFFFFFFFFULL, regs + b);
      const __m512i lanes = _mm512_maskz_permutexvar_epi8(kAll, perm, raw);
      const __m512i x =
          _mm512_and_si512(_mm512_maskz_multishift_epi64_epi8(kAll, shifts, lanes), low6);
#pragma GCC unroll 16
      for (int v = 0; v < 16; v++) {
        const __mmask64 eq = _mm512_cmpeq_epi8_mask(x, _mm512_load_si512(kValues[v].data()));
        acc[v] = _mm512_mask_add_epi8(acc[v], eq, acc[v], one);
      }
      if (const __mmask64 high = _mm512_cmpge_epu8_mask(x, sixteen); high != 0) [[unlikely]] {
        alignas(64) uint8_t values[64];
        _mm512_store_si512(values, x);
        for (uint64_t m = high; m != 0; m &= m - 1) {
          reghisto[values[__builtin_ctzll(m)]]++;
        }
      }
    }
#pragma GCC unroll 16
    for (int v = 0; v < 16; v++) {
      alignas(64) uint64_t sums[8];
      _mm512_store_si512(sums, _mm512_sad_epu8(acc[v], _mm512_setzero_si512()));
      reghisto[v] += static_cast<int>(sums[0] + sums[1] + sums[2] + sums[3] + sums[4] + sums[5] +
                                      sums[6] + sums[7]);
    }
  }
}

bool HaveVbmi() {
  static const bool have = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
  }();
  return have;
}

std::atomic<bool> g_simd{true};

}  // namespace

bool DenseHistogramVbmi(const uint8_t* regs, int* reghisto) {
  if (!HaveVbmi()) {
    return false;
  }
  for (int v = 0; v < 64; v++) {
    reghisto[v] = 0;
  }
  HistogramVbmi(regs, reghisto);
  return true;
}

void DenseHistogram(const uint8_t* regs, int* reghisto) {
  if (!g_simd.load(std::memory_order_relaxed) || !DenseHistogramVbmi(regs, reghisto)) {
    DenseHistogramPortable(regs, reghisto);
  }
}

void SetSimd(bool on) { g_simd.store(on, std::memory_order_relaxed); }

std::optional<uint64_t> Count(std::string_view hll) {
  int reghisto[64] = {0};
  const uint8_t* bytes = Bytes(hll);
  if (Encoding(hll) == kDense) {
    DenseHistogram(bytes + kHeaderSize, reghisto);
  } else if (!WalkSparse(hll, [&reghisto](int, int len, int value) { reghisto[value] += len; })) {
    return std::nullopt;
  }
  return Estimate(reghisto);
}

uint64_t CountRaw(const uint8_t* registers) {
  int reghisto[256] = {0};
  for (int i = 0; i < kRegisters; i++) {
    reghisto[registers[i]]++;
  }
  return Estimate(reghisto);
}

bool WriteRegisters(std::string* hll, const uint8_t* max, size_t sparse_max_bytes) {
  for (int j = 0; j < kRegisters; j++) {
    if (max[j] == 0) {
      continue;
    }
    if (SetRegister(hll, j, max[j], sparse_max_bytes) < 0) {
      return false;
    }
  }
  return true;
}

std::string DecodeSparse(std::string_view hll) {
  std::string out;
  const uint8_t* bytes = Bytes(hll);
  const uint8_t* p = bytes + kHeaderSize;
  const uint8_t* end = bytes + hll.size();
  while (p < end) {
    if (!out.empty()) {
      out += ' ';
    }
    if (IsZero(*p)) {
      out += "z:" + std::to_string(ZeroLen(*p));
      p++;
    } else if (IsXZero(*p)) {
      out += "Z:" + std::to_string(p + 1 < end ? XZeroLen(p[0], p[1]) : XZeroLen(p[0], 0));
      p += 2;
    } else {
      out += "v:" + std::to_string(ValValue(*p)) + "," + std::to_string(ValLen(*p));
      p++;
    }
  }
  return out;
}

std::string SelfTest(Rng& rng) {
  // 1: register access, every register set to random values and read back.
  std::string dense(kDenseSize, '\0');
  dense.replace(0, 4, "HYLL");
  uint8_t* regs = Bytes(&dense) + kHeaderSize;
  uint8_t bytecounters[kRegisters];
  for (int cycle = 0; cycle < 100; cycle++) {
    for (int i = 0; i < kRegisters; i++) {
      const auto r = static_cast<uint8_t>(rng.Next() & kRegisterMax);
      bytecounters[i] = r;
      DenseSetRaw(regs, i, r);
    }
    for (int i = 0; i < kRegisters; i++) {
      const uint8_t v = DenseGet(regs, i);
      if (v != bytecounters[i]) {
        return "TESTFAILED Register " + std::to_string(i) + " should be " +
               std::to_string(bytecounters[i]) + " but is " + std::to_string(v);
      }
    }
  }
  // 2: dense and sparse agree, and the error stays within 6 standard errors.
  memset(regs, 0, kDenseSize - kHeaderSize);
  std::string sparse = NewSparse();
  const double relerr = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const uint64_t seed = rng.Next();
  int64_t checkpoint = 1;
  for (int64_t j = 1; j <= 1000000; j++) {
    const uint64_t ele = static_cast<uint64_t>(j) ^ seed;
    std::string_view e(reinterpret_cast<const char*>(&ele), sizeof(ele));
    DenseAdd(dense.data(), e);
    Add(&sparse, e, 3000);
    if (j != checkpoint) {
      continue;
    }
    if (j < 1500 && Encoding(sparse) != kSparse) {
      return "TESTFAILED sparse encoding not used";
    }
    const uint64_t card = *Count(dense);
    if (Count(sparse) != card) {
      return "TESTFAILED dense/sparse disagree";
    }
    int64_t abserr = checkpoint - static_cast<int64_t>(card);
    auto maxerr = static_cast<int64_t>(std::ceil(relerr * 6 * static_cast<double>(checkpoint)));
    if (j == 10) {
      maxerr = 1;
    }
    if (abserr < 0) {
      abserr = -abserr;
    }
    if (abserr > maxerr) {
      return "TESTFAILED Too big error. card:" + std::to_string(checkpoint) +
             " abserr:" + std::to_string(abserr);
    }
    checkpoint *= 10;
  }
  return "";
}

}  // namespace hotkv::types::hll

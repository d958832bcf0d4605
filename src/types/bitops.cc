#include "types/bitops.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "common/string_util.h"

namespace hotkv::types {

namespace {

inline uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}
inline void Store64(uint8_t* p, uint64_t w) { memcpy(p, &w, 8); }

// Up to 8 bytes as a big-endian word, missing bytes (past n) as zero low bytes.
inline uint64_t LoadBigEndian(const uint8_t* p, size_t n) {
  if (n >= 8) {
    return __builtin_bswap64(Load64(p));
  }
  uint64_t w = 0;
  for (size_t i = 0; i < n; i++) {
    w |= uint64_t{p[i]} << (56 - 8 * i);
  }
  return w;
}

uint64_t CountGeneric(const uint8_t* p, size_t n) {
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    total += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i)));
  }
  for (; i < n; i++) {
    total += static_cast<uint64_t>(__builtin_popcount(p[i]));
  }
  return total;
}

__attribute__((target("popcnt"))) uint64_t CountPopcnt(const uint8_t* p, size_t n) {
  // Four independent sums, so the POPCNTs do not wait on one another.
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i)));
    b += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 8)));
    c += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 16)));
    d += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) {
    a += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i)));
  }
  for (; i < n; i++) {
    b += static_cast<uint64_t>(__builtin_popcount(p[i]));
  }
  return a + b + c + d;
}

// The nibble-table method: each byte's count is two table lookups (VPSHUFB); the byte
// counts add up in 8-bit lanes for up to 31 rounds (31 * 8 < 256), then fold into 64-bit
// sums with VPSADBW.
__attribute__((target("avx2,popcnt"))) uint64_t CountAvx2(const uint8_t* p, size_t n) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low_mask = _mm256_set1_epi8(0x0f);
  __m256i total = _mm256_setzero_si256();
  size_t i = 0;
  while (i + 32 <= n) {
    __m256i bytes = _mm256_setzero_si256();
    for (int round = 0; round < 31 && i + 32 <= n; round++, i += 32) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      __m256i lo = _mm256_and_si256(v, low_mask);
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low_mask);
      bytes = _mm256_add_epi8(bytes, _mm256_shuffle_epi8(table, lo));
      bytes = _mm256_add_epi8(bytes, _mm256_shuffle_epi8(table, hi));
    }
    total = _mm256_add_epi64(total, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
  }
  uint64_t lanes[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), total);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + CountPopcnt(p + i, n - i);
}

// AVX-512 VPOPCNTDQ: a popcount per 64-bit lane, 256 bytes per round in four sums.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) uint64_t CountAvx512(const uint8_t* p,
                                                                               size_t n) {
  __m512i a = _mm512_set1_epi64(0), b = a, c = a, d = a;
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i)));
    b = _mm512_add_epi64(b, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 64)));
    c = _mm512_add_epi64(c, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 128)));
    d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i + 192)));
  }
  for (; i + 64 <= n; i += 64) {
    a = _mm512_add_epi64(a, _mm512_popcnt_epi64(_mm512_loadu_si512(p + i)));
  }
  const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d));
  uint64_t lanes[8];
  _mm512_storeu_si512(lanes, sum);
  uint64_t total = 0;
  for (uint64_t lane : lanes) {
    total += lane;
  }
  return total + CountPopcnt(p + i, n - i);
}

}  // namespace

std::vector<std::pair<std::string, CountBitsFn>> CountBitsImplementations() {
  __builtin_cpu_init();
  std::vector<std::pair<std::string, CountBitsFn>> out;
  const bool popcnt = __builtin_cpu_supports("popcnt");
  if (popcnt && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) {
    out.emplace_back("avx512", CountAvx512);
  }
  if (popcnt && __builtin_cpu_supports("avx2")) {
    out.emplace_back("avx2", CountAvx2);
  }
  if (popcnt) {
    out.emplace_back("popcnt", CountPopcnt);
  }
  out.emplace_back("generic", CountGeneric);
  return out;
}

uint64_t CountBits(const uint8_t* p, size_t n) {
  static const CountBitsFn fn = CountBitsImplementations().front().second;
  // Short strings: the call through the table costs more than it saves.
  return n < 64 ? CountGeneric(p, n) : fn(p, n);
}

uint64_t CountBitsInRange(const uint8_t* p, uint64_t first, uint64_t last) {
  const uint64_t first_byte = first >> 3, last_byte = last >> 3;
  // Bits of the end bytes that lie outside the range.
  const uint8_t head_mask = static_cast<uint8_t>(0xFF >> (first & 7));
  const uint8_t tail_mask = static_cast<uint8_t>(0xFF << (7 - (last & 7)));
  if (first_byte == last_byte) {
    return static_cast<uint64_t>(__builtin_popcount(p[first_byte] & head_mask & tail_mask));
  }
  uint64_t n = static_cast<uint64_t>(__builtin_popcount(p[first_byte] & head_mask)) +
               static_cast<uint64_t>(__builtin_popcount(p[last_byte] & tail_mask));
  return n + CountBits(p + first_byte + 1, last_byte - first_byte - 1);
}

int64_t FindBit(const uint8_t* p, uint64_t first, uint64_t last, bool bit) {
  uint64_t pos = first;
  const uint64_t last_byte = last >> 3;
  while (pos <= last) {
    if ((pos & 7) == 0) {
      // Skip 32-byte blocks holding no wanted bit (all 0x00, or all 0xFF for a 0), with
      // plain word ops the compiler vectorises. A block may hold bits past `last`: they
      // are unwanted too, so skipping it finds nothing wrong.
      uint64_t byte = pos >> 3;
      while (byte + 32 <= last_byte + 1) {
        const uint64_t w0 = Load64(p + byte), w1 = Load64(p + byte + 8);
        const uint64_t w2 = Load64(p + byte + 16), w3 = Load64(p + byte + 24);
        if (bit ? (w0 | w1 | w2 | w3) != 0 : (w0 & w1 & w2 & w3) != ~uint64_t{0}) {
          break;
        }
        byte += 32;
      }
      pos = byte * 8;
      if (pos > last) {
        break;
      }
    }
    const uint64_t byte = pos >> 3;
    const size_t avail = static_cast<size_t>(std::min<uint64_t>(8, last_byte - byte + 1));
    uint64_t w = LoadBigEndian(p + byte, avail);
    if (!bit) {
      w = ~w;
    }
    w &= ~uint64_t{0} >> (pos & 7);  // bits before pos
    const uint64_t rel_last = last - byte * 8;
    if (rel_last < 63) {
      w &= ~(~uint64_t{0} >> (rel_last + 1));  // bits after last (and past the buffer)
    }
    if (w != 0) {
      return static_cast<int64_t>(byte * 8 + static_cast<uint64_t>(__builtin_clzll(w)));
    }
    pos = byte * 8 + avail * 8;
  }
  return -1;
}

std::optional<BitOp> ParseBitOp(std::string_view name) {
  static constexpr std::pair<std::string_view, BitOp> kOps[] = {
      {"AND", BitOp::kAnd},     {"OR", BitOp::kOr},     {"XOR", BitOp::kXor},
      {"NOT", BitOp::kNot},     {"DIFF", BitOp::kDiff}, {"DIFF1", BitOp::kDiff1},
      {"ANDOR", BitOp::kAndOr}, {"ONE", BitOp::kOne}};
  for (const auto& [text, op] : kOps) {
    if (EqualsIgnoreCase(name, text)) {
      return op;
    }
  }
  return std::nullopt;
}

size_t BitOpMinSources(BitOp op) {
  return (op == BitOp::kDiff || op == BitOp::kDiff1 || op == BitOp::kAndOr) ? 2 : 1;
}

namespace {

// acc[i] = f(acc[i], src[i]) over the source's length, eight bytes at a time.
template <typename F>
void Fold(std::string& acc, std::string_view src, F f) {
  uint8_t* a = reinterpret_cast<uint8_t*>(acc.data());
  const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
  const size_t n = src.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Store64(a + i, f(Load64(a + i), Load64(s + i)));
  }
  for (; i < n; i++) {
    a[i] = static_cast<uint8_t>(f(a[i], s[i]));
  }
}

std::string Padded(std::string_view s, size_t len) {
  std::string out(len, '\0');
  memcpy(out.data(), s.data(), s.size());
  return out;
}

}  // namespace

std::string ApplyBitOp(BitOp op, const std::vector<std::string_view>& srcs) {
  size_t len = 0;
  for (std::string_view s : srcs) {
    len = std::max(len, s.size());
  }
  auto or_of_rest = [&] {
    std::string acc(len, '\0');
    for (size_t i = 1; i < srcs.size(); i++) {
      Fold(acc, srcs[i], [](auto a, auto b) { return a | b; });
    }
    return acc;
  };
  switch (op) {
    case BitOp::kAnd: {
      std::string acc = Padded(srcs[0], len);
      for (size_t i = 1; i < srcs.size(); i++) {
        Fold(acc, srcs[i], [](auto a, auto b) { return a & b; });
        std::fill(acc.begin() + static_cast<ptrdiff_t>(srcs[i].size()), acc.end(), '\0');
      }
      return acc;
    }
    case BitOp::kOr:
    case BitOp::kXor: {
      std::string acc(len, '\0');
      for (std::string_view s : srcs) {
        if (op == BitOp::kOr) {
          Fold(acc, s, [](auto a, auto b) { return a | b; });
        } else {
          Fold(acc, s, [](auto a, auto b) { return a ^ b; });
        }
      }
      return acc;
    }
    case BitOp::kNot: {
      std::string acc(len, '\xff');
      Fold(acc, srcs[0], [](auto a, auto b) { return a & ~b; });
      return acc;
    }
    case BitOp::kDiff: {
      std::string acc = Padded(srcs[0], len);
      Fold(acc, or_of_rest(), [](auto a, auto b) { return a & ~b; });
      return acc;
    }
    case BitOp::kDiff1: {
      std::string acc = or_of_rest();
      Fold(acc, srcs[0], [](auto a, auto b) { return a & ~b; });
      return acc;
    }
    case BitOp::kAndOr: {
      std::string acc = Padded(srcs[0], len);
      Fold(acc, or_of_rest(), [](auto a, auto b) { return a & b; });
      return acc;
    }
    case BitOp::kOne: {
      // seen: set in at least one source so far; more: in at least two.
      std::string seen(len, '\0'), more(len, '\0');
      for (std::string_view s : srcs) {
        // more |= seen & s, computed before seen takes s in.
        std::string both = Padded(s, len);
        Fold(both, seen, [](auto a, auto b) { return a & b; });
        Fold(more, both, [](auto a, auto b) { return a | b; });
        Fold(seen, s, [](auto a, auto b) { return a | b; });
      }
      Fold(seen, more, [](auto a, auto b) { return a & ~b; });
      return seen;
    }
  }
  return {};
}

uint64_t GetBitfield(const uint8_t* p, size_t len, uint64_t offset, int bits) {
  // The field lies within 9 bytes from its first: gather them big-endian into 128 bits.
  const uint64_t first = offset >> 3;
  const uint64_t last = (offset + static_cast<uint64_t>(bits) - 1) >> 3;
  unsigned __int128 v = 0;
  for (uint64_t b = first; b <= last; b++) {
    v = (v << 8) | (b < len ? p[b] : 0);
  }
  const int span = static_cast<int>(last - first + 1) * 8;
  const int shift = span - static_cast<int>(offset & 7) - bits;
  v >>= shift;
  return bits == 64 ? static_cast<uint64_t>(v)
                    : static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
}

void SetBitfield(uint8_t* p, uint64_t offset, int bits, uint64_t value) {
  const uint64_t first = offset >> 3;
  const uint64_t last = (offset + static_cast<uint64_t>(bits) - 1) >> 3;
  unsigned __int128 v = 0;
  for (uint64_t b = first; b <= last; b++) {
    v = (v << 8) | p[b];
  }
  const int span = static_cast<int>(last - first + 1) * 8;
  const int shift = span - static_cast<int>(offset & 7) - bits;
  const unsigned __int128 field_mask =
      (bits == 64 ? ~static_cast<unsigned __int128>(0) >> 64
                  : (static_cast<unsigned __int128>(1) << bits) - 1);
  v = (v & ~(field_mask << shift)) |
      ((static_cast<unsigned __int128>(value) & field_mask) << shift);
  for (uint64_t b = last + 1; b-- > first;) {
    p[b] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

int64_t SignExtend(uint64_t raw, int bits) {
  if (bits == 64) {
    return static_cast<int64_t>(raw);
  }
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((raw ^ sign) - sign);
}

namespace {

// 64-bit arithmetic that wraps around, as Redis's overflow checks compute.
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace

std::optional<int64_t> ResolveBitfield(bool is_signed, int bits, int64_t value, int64_t incr,
                                       BitfieldOverflow overflow) {
  const uint64_t wrapped = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
  int direction = 0;  // 1: above the maximum, -1: below the minimum
  int64_t max, min;
  if (is_signed) {
    max = bits == 64 ? INT64_MAX : static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
    min = -max - 1;
    const int64_t max_incr = WrapSub(max, value), min_incr = WrapSub(min, value);
    if (value > max || (bits != 64 && incr > max_incr) ||
        (value >= 0 && incr > 0 && incr > max_incr)) {
      direction = 1;
    } else if (value < min || (bits != 64 && incr < min_incr) ||
               (value < 0 && incr < 0 && incr < min_incr)) {
      direction = -1;
    }
  } else {
    const uint64_t umax = (uint64_t{1} << bits) - 1;  // bits <= 63
    const auto uvalue = static_cast<uint64_t>(value);
    max = static_cast<int64_t>(umax);
    min = 0;
    const auto max_incr = static_cast<int64_t>(umax - uvalue);
    const auto min_incr = static_cast<int64_t>(uint64_t{0} - uvalue);
    if (uvalue > umax || (incr > 0 && incr > max_incr)) {
      direction = 1;
    } else if (incr < 0 && incr < min_incr) {
      direction = -1;
    }
  }
  if (direction == 0) {
    return static_cast<int64_t>(wrapped);
  }
  switch (overflow) {
    case BitfieldOverflow::kFail:
      return std::nullopt;
    case BitfieldOverflow::kSat:
      return direction > 0 ? max : min;
    case BitfieldOverflow::kWrap:
      break;
  }
  if (bits == 64) {
    return static_cast<int64_t>(wrapped);
  }
  const uint64_t low = wrapped & ((uint64_t{1} << bits) - 1);
  return is_signed ? SignExtend(low, bits) : static_cast<int64_t>(low);
}

}  // namespace hotkv::types

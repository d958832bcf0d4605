#include "protocol/resp_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/string_util.h"

namespace hotkv {

namespace {

// Finds "\r\n" at or after `from`; returns the index of '\r' or npos.
inline size_t FindCrlf(std::string_view data, size_t from) {
  while (from < data.size()) {
    const void* p = memchr(data.data() + from, '\r', data.size() - from);
    if (p == nullptr) {
      return std::string_view::npos;
    }
    size_t i = static_cast<const char*>(p) - data.data();
    if (i + 1 >= data.size()) {
      return std::string_view::npos;  // '\r' is the last byte: need more
    }
    if (data[i + 1] == '\n') {
      return i;
    }
    from = i + 1;
  }
  return std::string_view::npos;
}

// Parses the decimal number of a count line with Redis's string2ll rules. Counts are
// almost always a few plain digits, so that case is handled inline.
inline bool ParseCount(std::string_view s, int64_t* out) {
  size_t n = s.size();
  if (n > 0 && n <= 9 && (s[0] != '0' || n == 1)) {
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned d = static_cast<unsigned char>(s[i]) - '0';
      if (d > 9) {
        goto slow;
      }
      v = v * 10 + d;
    }
    *out = v;
    return true;
  }
slow:
  auto v = ParseInt64(s);
  if (!v) {
    return false;
  }
  *out = *v;
  return true;
}

// Finds the CRLF ending a short count line starting at `from`: a direct scan of the
// first bytes, falling back to memchr for long lines.
inline size_t FindLineEnd(std::string_view data, size_t from) {
  size_t limit = std::min(data.size(), from + 24);
  for (size_t i = from; i < limit; i++) {
    if (data[i] == '\r') {
      if (i + 1 >= data.size()) {
        return std::string_view::npos;
      }
      if (data[i + 1] == '\n') {
        return i;
      }
    }
  }
  return limit == data.size() ? std::string_view::npos : FindCrlf(data, limit);
}

}  // namespace

void RequestParser::Reset() {
  in_multibulk_ = false;
  multibulk_len_ = 0;
  pos_ = 0;
  offsets_.clear();
  pending_bytes_ = 0;
}

RequestParser::Status RequestParser::Fail(const char* msg) {
  error_ = msg;
  Reset();
  return kError;
}

// The common case in one pass: a whole multibulk command of plain decimal lengths already
// in `data`, its arguments written straight into args_ (no offsets, no resume state).
// Anything else (a malformed or unusual line, an unauthenticated client) returns false,
// and the general parser below takes over: from the command's first byte when the count
// line was not plain (*count = 0), else from *resume, the first argument not taken (args_
// holds the ones before it). That is also how a command larger than what has arrived so
// far goes on: the general parser picks up after the last whole argument instead of
// parsing the first read's thousands of arguments twice. The general parser alone
// reports errors, so both accept exactly the same input.
namespace {
bool ParseWhole(std::string_view data, const ParseLimits& limits,
                std::vector<std::string_view>& args_, size_t* consumed, uint64_t* count,
                size_t* resume) {
  *count = 0;
  if (!limits.authenticated) {
    return false;
  }
  const char* const begin = data.data();
  const char* const end = begin + data.size();
  const char* p = begin + 1;  // after '*'
  // Count: 1-6 digits, no leading zero.
  if (p >= end || static_cast<unsigned>(*p - '1') > 8) {
    return false;
  }
  uint64_t n = 0;
  const char* digits_end = std::min(end, p + 6);
  while (p < digits_end && static_cast<unsigned>(*p - '0') <= 9) {
    n = n * 10 + static_cast<unsigned>(*p - '0');
    p++;
  }
  if (end - p < 2 || p[0] != '\r' || p[1] != '\n') {
    return false;
  }
  p += 2;
  *count = n;
  const uint64_t max_bulk = static_cast<uint64_t>(limits.max_bulk_len);
  // Stops before the argument at p (the general parser goes on from there).
  auto stop = [&] {
    *resume = static_cast<size_t>(p - begin);
    return false;
  };
  for (uint64_t i = 0; i < n; i++) {
    // "$<len>\r\n": 1-10 digits, no leading zero except "$0".
    if (end - p < 4 || p[0] != '$') {
      return stop();
    }
    const char* q = p + 1;
    uint64_t len = static_cast<unsigned>(*q - '0');
    if (len > 9) {
      return stop();
    }
    q++;
    if (len != 0) {
      const char* len_end = std::min(end, q + 9);
      while (q < len_end && static_cast<unsigned>(*q - '0') <= 9) {
        len = len * 10 + static_cast<unsigned>(*q - '0');
        q++;
      }
    }
    if (end - q < 2 || q[0] != '\r' || q[1] != '\n' || len > max_bulk) {
      return stop();
    }
    q += 2;
    if (static_cast<uint64_t>(end - q) < len + 2 || q[len] != '\r' || q[len + 1] != '\n') {
      return stop();
    }
    args_.emplace_back(q, len);
    p = q + len + 2;
  }
  *consumed = static_cast<size_t>(p - begin);
  return true;
}
}  // namespace

RequestParser::Status RequestParser::Parse(std::string_view data, const ParseLimits& limits,
                                           size_t* consumed) {
  args_.clear();
  pending_bytes_ = 0;
  if (!in_multibulk_) {
    if (data.empty()) {
      return kIncomplete;
    }
    if (data[0] != '*') {
      return ParseInline(data, consumed);
    }
    inline_ = false;
    uint64_t count = 0;
    size_t resume = 0;
    if (ParseWhole(data, limits, args_, consumed, &count, &resume)) {
      return kDone;
    }
    if (count > 0) {
      // Go on after the arguments ParseWhole took (their views become offsets: the
      // caller may move the buffer before the next call).
      in_multibulk_ = true;
      multibulk_len_ = static_cast<int64_t>(count);
      pos_ = resume;
      offsets_.clear();
      offsets_.reserve(std::max<size_t>(args_.size(), std::min<uint64_t>(count, 1024)));
      for (std::string_view a : args_) {
        offsets_.emplace_back(static_cast<uint32_t>(a.data() - data.data()),
                              static_cast<uint32_t>(a.size()));
      }
      args_.clear();
    }
  }
  if (!in_multibulk_) {
    size_t cr = FindLineEnd(data, 1);
    if (cr == std::string_view::npos) {
      if (data.size() > kMaxInlineLen) {
        return Fail("Protocol error: too big mbulk count string");
      }
      return kIncomplete;
    }
    if (cr > kMaxInlineLen) {
      return Fail("Protocol error: too big mbulk count string");
    }
    int64_t n = 0;
    if (!ParseCount(data.substr(1, cr - 1), &n) || n > kMaxMultibulkLen) {
      return Fail("Protocol error: invalid multibulk length");
    }
    if (!limits.authenticated && n > kUnauthMultibulkLen) {
      return Fail("Protocol error: unauthenticated multibulk length");
    }
    if (n <= 0) {
      *consumed = cr + 2;  // "*0" and "*-1" are empty commands
      return kDone;
    }
    in_multibulk_ = true;
    multibulk_len_ = n;
    pos_ = cr + 2;
    offsets_.clear();
    if (n < 1024) {
      offsets_.reserve(static_cast<size_t>(n));
    }
  }

  // Records the bulk of `len` bytes at `start` (after its "$len\r\n") and returns true;
  // else false with *stop = kIncomplete (resumed at its '$' line next time) or kError.
  auto take_bulk = [&](size_t start, size_t len, Status* stop) {
    const size_t need = start + len + 2;
    if (need > data.size()) {
      pending_bytes_ = need - data.size();
      *stop = kIncomplete;
      return false;
    }
    if (data[start + len] != '\r' || data[start + len + 1] != '\n') {
      *stop = Fail("Protocol error: invalid bulk format");
      return false;
    }
    offsets_.emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(len));
    pos_ = need;
    return true;
  };
  Status stop = kIncomplete;
  while (static_cast<int64_t>(offsets_.size()) < multibulk_len_) {
    // Tight loop over whole short bulks ("$32\r\n<32 bytes>\r\n"), the bulk of a request
    // of thousands of keys: locals only (the members are written once after it), no
    // bounds checks beyond the one per argument. Stops at anything else (a long or
    // incomplete bulk, a malformed line), which the steps below handle or report.
    {
      const char* const base = data.data();
      const char* const end = base + data.size();
      const char* p = base + pos_;
      size_t left = static_cast<size_t>(multibulk_len_) - offsets_.size();
      const uint64_t max_bulk = static_cast<uint64_t>(limits.max_bulk_len);
      // Room for as many as the bytes could hold (6 bytes at least each), growing
      // geometrically across reads.
      const size_t want =
          offsets_.size() + std::min<size_t>(left, static_cast<size_t>(end - p) / 6 + 1);
      if (want > offsets_.capacity()) {
        offsets_.reserve(std::max(want, 2 * offsets_.capacity()));
      }
      while (left > 0 && end - p >= 5 && p[0] == '$') {
        const unsigned d0 = static_cast<unsigned char>(p[1]) - '0';
        const unsigned d1 = static_cast<unsigned char>(p[2]) - '0';
        uint64_t len;
        const char* s;
        if (d0 <= 9 && p[2] == '\r' && p[3] == '\n') {
          len = d0;
          s = p + 4;
        } else if (d0 - 1 <= 8 && d1 <= 9 && p[3] == '\r' && p[4] == '\n') {
          len = d0 * 10 + d1;
          s = p + 5;
        } else {
          break;
        }
        if (len > max_bulk || static_cast<uint64_t>(end - s) < len + 2 || s[len] != '\r' ||
            s[len + 1] != '\n') {
          break;  // the steps below: an error, or more bytes needed
        }
        offsets_.emplace_back(static_cast<uint32_t>(s - base), static_cast<uint32_t>(len));
        p = s + len + 2;
        left--;
      }
      pos_ = static_cast<size_t>(p - base);
      if (left == 0) {
        break;
      }
    }
    if (pos_ >= data.size()) {
      return kIncomplete;
    }
    // Fast path: a bulk of 0-99 bytes ("$5\r\n", "$32\r\n"), the common short key or
    // value; a request of thousands of keys (PCACHE.LONGEST, MGET) is mostly these.
    if (data.size() - pos_ >= 5 && data[pos_] == '$') {
      const char* p = data.data() + pos_;
      const unsigned d0 = static_cast<unsigned char>(p[1]) - '0';
      const unsigned d1 = static_cast<unsigned char>(p[2]) - '0';
      size_t len = SIZE_MAX, start = 0;
      if (d0 <= 9 && p[2] == '\r' && p[3] == '\n') {
        len = d0;
        start = pos_ + 4;
      } else if (d0 >= 1 && d0 <= 9 && d1 <= 9 && p[3] == '\r' && p[4] == '\n') {
        len = d0 * 10 + d1;
        start = pos_ + 5;
      }
      if (len != SIZE_MAX && static_cast<int64_t>(len) <= limits.max_bulk_len) {
        if (!take_bulk(start, len, &stop)) {
          return stop;
        }
        continue;
      }
    }
    if (data[pos_] != '$') {
      // Redis reports the offending byte.
      static thread_local char msg[64];
      snprintf(msg, sizeof(msg), "Protocol error: expected '$', got '%c'", data[pos_]);
      return Fail(msg);
    }
    size_t cr = FindLineEnd(data, pos_ + 1);
    if (cr == std::string_view::npos) {
      if (data.size() - pos_ > kMaxInlineLen) {
        return Fail("Protocol error: too big bulk count string");
      }
      return kIncomplete;
    }
    if (cr - pos_ > kMaxInlineLen) {
      return Fail("Protocol error: too big bulk count string");
    }
    int64_t len = 0;
    if (!ParseCount(data.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0 ||
        len > limits.max_bulk_len) {
      return Fail("Protocol error: invalid bulk length");
    }
    if (!limits.authenticated && len > kUnauthBulkLen) {
      return Fail("Protocol error: unauthenticated bulk length");
    }
    if (!take_bulk(cr + 2, static_cast<size_t>(len), &stop)) {
      return stop;
    }
  }

  args_.reserve(offsets_.size());
  for (const auto& [start, len] : offsets_) {
    args_.emplace_back(data.data() + start, len);
  }
  *consumed = pos_;
  in_multibulk_ = false;
  pos_ = 0;
  offsets_.clear();
  return kDone;
}

RequestParser::Status RequestParser::ParseInline(std::string_view data, size_t* consumed) {
  inline_ = true;
  const void* nl = memchr(data.data(), '\n', data.size());
  if (nl == nullptr) {
    if (data.size() > kMaxInlineLen) {
      return Fail("Protocol error: too big inline request");
    }
    return kIncomplete;
  }
  size_t end = static_cast<const char*>(nl) - data.data();
  if (end > kMaxInlineLen) {
    return Fail("Protocol error: too big inline request");
  }
  size_t line_end = end;
  if (line_end > 0 && data[line_end - 1] == '\r') {
    line_end--;
  }
  static thread_local std::vector<char> storage;
  storage.clear();
  storage.reserve(line_end);
  if (!SplitInlineArgs(data.substr(0, line_end), &args_, &storage)) {
    args_.clear();
    return Fail("Protocol error: unbalanced quotes in request");
  }
  *consumed = end + 1;
  return kDone;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

bool SplitInlineArgs(std::string_view line, std::vector<std::string_view>* out,
                     std::vector<char>* storage) {
  // The storage is reserved to the line length up front, so views into it stay valid
  // (an unescaped argument is never longer than its source).
  if (storage->capacity() < line.size()) {
    storage->reserve(line.size());
  }
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && IsSpace(line[i])) {
      i++;
    }
    if (i >= n) {
      return true;
    }
    if (line[i] != '"' && line[i] != '\'') {
      size_t start = i;
      while (i < n && !IsSpace(line[i])) {
        if (line[i] == '"' || line[i] == '\'') {
          // A quote in the middle of a word starts a quoted part; handle the rare case by
          // falling through to the general path below.
          break;
        }
        i++;
      }
      if (i >= n || IsSpace(line[i])) {
        out->emplace_back(line.data() + start, i - start);
        continue;
      }
      i = start;
    }
    // General path: build the argument into storage.
    size_t begin = storage->size();
    bool in_dq = false;
    bool in_sq = false;
    bool done = false;
    while (!done) {
      if (in_dq) {
        if (i >= n) {
          return false;
        }
        char c = line[i];
        if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && HexValue(line[i + 2]) >= 0 &&
            HexValue(line[i + 3]) >= 0) {
          storage->push_back(static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
          i += 4;
        } else if (c == '\\' && i + 1 < n) {
          char e = line[i + 1];
          switch (e) {
            case 'n': storage->push_back('\n'); break;
            case 'r': storage->push_back('\r'); break;
            case 't': storage->push_back('\t'); break;
            case 'b': storage->push_back('\b'); break;
            case 'a': storage->push_back('\a'); break;
            default: storage->push_back(e); break;
          }
          i += 2;
        } else if (c == '"') {
          // The closing quote must be followed by a space or the end.
          if (i + 1 < n && !IsSpace(line[i + 1])) {
            return false;
          }
          in_dq = false;
          done = true;
          i++;
        } else {
          storage->push_back(c);
          i++;
        }
      } else if (in_sq) {
        if (i >= n) {
          return false;
        }
        char c = line[i];
        if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
          storage->push_back('\'');
          i += 2;
        } else if (c == '\'') {
          if (i + 1 < n && !IsSpace(line[i + 1])) {
            return false;
          }
          in_sq = false;
          done = true;
          i++;
        } else {
          storage->push_back(c);
          i++;
        }
      } else {
        if (i >= n || IsSpace(line[i])) {
          done = true;
        } else if (line[i] == '"') {
          in_dq = true;
          i++;
        } else if (line[i] == '\'') {
          in_sq = true;
          i++;
        } else {
          storage->push_back(line[i]);
          i++;
        }
      }
    }
    out->emplace_back(storage->data() + begin, storage->size() - begin);
  }
}

}  // namespace hotkv

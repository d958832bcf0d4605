#include "protocol/reply_builder.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/string_util.h"

namespace hotkv {

namespace {

// Digits of 0 <= n < 1000, inline: most lengths, counts and integers in replies are
// small, and FormatInt64 is an out-of-line call.
inline size_t FormatSmall(char* p, uint32_t n) {
  if (n < 10) {
    p[0] = static_cast<char>('0' + n);
    return 1;
  }
  if (n < 100) {
    p[0] = static_cast<char>('0' + n / 10);
    p[1] = static_cast<char>('0' + n % 10);
    return 2;
  }
  p[0] = static_cast<char>('0' + n / 100);
  p[1] = static_cast<char>('0' + n / 10 % 10);
  p[2] = static_cast<char>('0' + n % 10);
  return 3;
}

// Writes "<type><n>\r\n" to p; returns the length.
inline size_t FormatHeader(char* p, char type, int64_t n) {
  p[0] = type;
  size_t len = 1 + (static_cast<uint64_t>(n) < 1000 ? FormatSmall(p + 1, static_cast<uint32_t>(n))
                                                     : FormatInt64(n, p + 1));
  p[len] = '\r';
  p[len + 1] = '\n';
  return len + 2;
}

}  // namespace

void ReplyBuilder::SimpleString(std::string_view s) {
  char* p = out_->Reserve(s.size() + 3);
  p[0] = '+';
  memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '\r';
  p[s.size() + 2] = '\n';
  out_->Commit(s.size() + 3);
}

void ReplyBuilder::Error(std::string_view text) {
  errors_written_++;
  if (sink_ != nullptr) {
    sink_->OnError(text.substr(0, text.find(' ')));
  }
  char* p = out_->Reserve(text.size() + 3);
  p[0] = '-';
  // An error line may not contain CR/LF; Redis replaces them with spaces.
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    p[i + 1] = (c == '\r' || c == '\n') ? ' ' : c;
  }
  p[text.size() + 1] = '\r';
  p[text.size() + 2] = '\n';
  out_->Commit(text.size() + 3);
}

void ReplyBuilder::Integer(int64_t v) {
  char* p = out_->Reserve(kInt64Digits + 3);
  out_->Commit(FormatHeader(p, ':', v));
}

void ReplyBuilder::BulkByRef(std::shared_ptr<const void> hold, std::string_view s) {
  char* p = out_->Reserve(kInt64Digits + 3);
  out_->Commit(FormatHeader(p, '$', static_cast<int64_t>(s.size())));
  out_->AppendRef(std::move(hold), s);
  out_->Append("\r\n", 2);
}

void ReplyBuilder::Bulk(std::string_view s) {
  char* p = out_->Reserve(s.size() + kInt64Digits + 5);
  size_t n = FormatHeader(p, '$', static_cast<int64_t>(s.size()));
  memcpy(p + n, s.data(), s.size());
  n += s.size();
  p[n] = '\r';
  p[n + 1] = '\n';
  out_->Commit(n + 2);
}

void ReplyBuilder::Null() {
  if (resp3_) {
    out_->Append("_\r\n", 3);
  } else {
    out_->Append("$-1\r\n", 5);
  }
}

void ReplyBuilder::NullArray() {
  if (resp3_) {
    out_->Append("_\r\n", 3);
  } else {
    out_->Append("*-1\r\n", 5);
  }
}

void ReplyBuilder::Map(size_t n) {
  if (resp3_) {
    AggregateHeader('%', n);
  } else {
    AggregateHeader('*', n * 2);
  }
}

void ReplyBuilder::Double(double v) {
  char buf[kDoubleChars];
  size_t n = FormatDouble(v, buf);
  if (resp3_) {
    char* p = out_->Reserve(n + 3);
    p[0] = ',';
    memcpy(p + 1, buf, n);
    p[n + 1] = '\r';
    p[n + 2] = '\n';
    out_->Commit(n + 3);
  } else {
    Bulk(std::string_view(buf, n));
  }
}

void ReplyBuilder::Bool(bool v) {
  if (resp3_) {
    out_->Append(v ? "#t\r\n" : "#f\r\n", 4);
  } else {
    out_->Append(v ? ":1\r\n" : ":0\r\n", 4);
  }
}

void ReplyBuilder::Verbatim(std::string_view s, std::string_view format) {
  if (!resp3_) {
    Bulk(s);
    return;
  }
  char* p = out_->Reserve(s.size() + format.size() + kInt64Digits + 6);
  size_t n = FormatHeader(p, '=', static_cast<int64_t>(s.size() + format.size() + 1));
  memcpy(p + n, format.data(), format.size());
  n += format.size();
  p[n++] = ':';
  memcpy(p + n, s.data(), s.size());
  n += s.size();
  p[n] = '\r';
  p[n + 1] = '\n';
  out_->Commit(n + 2);
}

void ReplyBuilder::AggregateHeader(char type, size_t n) {
  char* p = out_->Reserve(kInt64Digits + 3);
  out_->Commit(FormatHeader(p, type, static_cast<int64_t>(n)));
}

void ReplyBuilder::InsertHeader(size_t pos, char type, size_t n) {
  char buf[kInt64Digits + 3];
  size_t len = FormatHeader(buf, type, static_cast<int64_t>(n));
  out_->Insert(pos, buf, len);
}

void ReplyBuilder::EndDeferredMap(size_t pos, size_t pairs) {
  if (resp3_) {
    InsertHeader(pos, '%', pairs);
  } else {
    InsertHeader(pos, '*', pairs * 2);
  }
}

}  // namespace hotkv

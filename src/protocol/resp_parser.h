// RequestParser: incremental parser for client requests (RESP multibulk and inline).
//
//   RequestParser parser;
//   size_t consumed = 0;
//   switch (parser.Parse(buffer_view, limits, &consumed)) {
//     case RequestParser::kDone:       use parser.args(); drop `consumed` bytes; repeat
//     case RequestParser::kIncomplete: read more bytes, call again with the same start
//     case RequestParser::kError:      reply parser.error(), close the connection
//   }
//
// A command split across any number of reads parses the same: when the buffer ends in the
// middle of a command the parser remembers how far it got (as offsets from the command's
// first byte), so the next call resumes there instead of rescanning a large command, and
// the caller may move the unconsumed bytes (compaction) between calls. args() are views
// into the caller's buffer, valid until the buffer is changed.
//
// Every length is checked before it is trusted: multibulk counts, bulk lengths against
// proto-max-bulk-len, the length of a count line, inline lines. Errors use Redis's texts.
//
// Thread safety: one parser per connection, used by the connection's worker only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hotkv {

struct ParseLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  bool authenticated = true;  // unauthenticated clients get much tighter limits
};

class RequestParser {
 public:
  enum Status { kDone, kIncomplete, kError };

  // Longest count line ("*123\r\n") or inline request accepted without a newline.
  static constexpr size_t kMaxInlineLen = 64 * 1024;
  static constexpr int64_t kMaxMultibulkLen = 1024 * 1024 * 1024;
  static constexpr int64_t kUnauthMultibulkLen = 10;
  static constexpr int64_t kUnauthBulkLen = 16384;

  // Parses from data[0], which must be where the previous call stopped consuming.
  // On kDone, *consumed is the length of the parsed command (possibly an empty one: an
  // empty inline line or "*0" parse as a command with no args, which callers skip).
  Status Parse(std::string_view data, const ParseLimits& limits, size_t* consumed);

  const std::vector<std::string_view>& args() const { return args_; }
  // Moves the parsed arguments into *out (a swap: no copy of a 4,000-argument vector);
  // args() is then out's old contents, which the next Parse clears.
  void TakeArgs(std::vector<std::string_view>* out) { out->swap(args_); }
  const char* error() const { return error_; }
  bool inline_request() const { return inline_; }

  // When the current command is incomplete: bytes of it still missing if known (a bulk
  // whose length was read), otherwise 0. Lets the caller size its buffer once.
  size_t PendingBytes() const { return pending_bytes_; }

  // Forgets a partially parsed command.
  void Reset();

 private:
  Status ParseInline(std::string_view data, size_t* consumed);
  Status Fail(const char* msg);

  // Resume state for a multibulk command, relative to its first byte.
  bool in_multibulk_ = false;
  int64_t multibulk_len_ = 0;
  size_t pos_ = 0;  // where parsing resumes
  std::vector<std::pair<uint32_t, uint32_t>> offsets_;  // (start, length) of each arg
  std::vector<std::string_view> args_;
  size_t pending_bytes_ = 0;
  bool inline_ = false;
  const char* error_ = "";
};

// Splits an inline request line into arguments with redis-cli's quoting rules
// ("..." with \n \r \t \b \a \\ \" \xHH escapes, '...' with \'). Returns false on
// unbalanced quotes. Appends to *out; views point into *storage when unescaping was needed.
bool SplitInlineArgs(std::string_view line, std::vector<std::string_view>* out,
                     std::vector<char>* storage);

}  // namespace hotkv

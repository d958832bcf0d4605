// RespScanner: an incremental, streaming scanner of RESP2 replies.
//
// Feed() takes whatever bytes a read() returned, in any split, and calls back once per
// complete top-level reply (simple string, error, integer, bulk string, array, nested
// to any depth up to kMaxDepth, null bulks and arrays). It keeps no copy of the stream:
// bulk payloads are skipped by length, arrays by a stack of remaining element counts,
// so a 1 MB bulk or a 100k-element array costs the same whether it comes in one read or
// in a thousand. Only header lines (a few bytes) are accumulated across reads.
//
// What a callback sees (RespReply): the top-level type, its number (integer value, bulk
// length or array length; -1 for null), and — in capture mode — the contents of a
// top-level scalar or of the first kMaxItems direct children of a top-level array
// (enough for pub/sub's ["message", channel, payload]). Top-level error lines are always
// captured (errors are rare and their text is worth reporting). Views in the reply are
// valid only during the callback.
//
// A malformed stream (unknown type byte, bad length) makes Feed() return false; the
// scanner then stays failed (the connection should be dropped).
//
// Thread safety: none; one scanner per connection.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::loadgen {

struct RespReply {
  static constexpr size_t kMaxItems = 4;
  char type = 0;       // '+', '-', ':', '$' or '*'
  int64_t number = 0;  // ':' value, '$' length, '*' element count; -1 for null
  size_t num_items = 0;
  std::array<std::string_view, kMaxItems> items;

  bool IsError() const { return type == '-'; }
};

class RespScanner {
 public:
  static constexpr size_t kMaxDepth = 64;
  static constexpr int64_t kMaxBulk = 512LL * 1024 * 1024;
  static constexpr size_t kMaxLine = 64 * 1024;  // longer lines are truncated, not rejected

  explicit RespScanner(bool capture = false) : capture_(capture) {}

  // Scans `data`; calls on_reply(const RespReply&) for each complete top-level reply.
  // Returns false if the stream is malformed.
  template <typename OnReply>
  bool Feed(std::string_view data, OnReply&& on_reply);

  bool failed() const { return failed_; }
  bool capture() const { return capture_; }
  // True when no reply is partially scanned.
  bool AtReplyBoundary() const { return state_ == State::kType && stack_.empty(); }

 private:
  enum class State : uint8_t { kType, kLine, kBulk };
  enum class Step : uint8_t { kMore, kReplyDone, kError };

  bool StartElement(char type);
  Step EndLine();
  Step EndElement();
  void CaptureBulk(const char* p, size_t n);
  void FinishReply();

  bool capture_;
  bool failed_ = false;
  State state_ = State::kType;
  char type_ = 0;             // type of the element being scanned
  int slot_ = -1;             // capture slot of that element, -1 if none
  int64_t bulk_payload_ = 0;  // bulk payload bytes still to come (before CRLF)
  int64_t bulk_left_ = 0;     // bulk bytes still to skip, CRLF included
  size_t children_ = 0;       // direct children of the top-level array started so far
  std::string line_;
  std::vector<int64_t> stack_;  // remaining elements of each open array
  std::array<std::string, RespReply::kMaxItems> item_bufs_;
  RespReply reply_;
};

template <typename OnReply>
bool RespScanner::Feed(std::string_view data, OnReply&& on_reply) {
  if (failed_) {
    return false;
  }
  const char* p = data.data();
  const char* end = p + data.size();
  while (p < end) {
    Step step = Step::kMore;
    switch (state_) {
      case State::kType:
        if (!StartElement(*p++)) {
          failed_ = true;
          return false;
        }
        break;
      case State::kLine: {
        const auto* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
        const char* stop = nl == nullptr ? end : nl;
        size_t room = kMaxLine - std::min(kMaxLine, line_.size());
        line_.append(p, std::min(room, static_cast<size_t>(stop - p)));
        if (nl == nullptr) {
          p = end;
          break;
        }
        p = nl + 1;
        step = EndLine();
        break;
      }
      case State::kBulk: {
        auto n = static_cast<int64_t>(std::min<size_t>(bulk_left_, end - p));
        if (slot_ >= 0 && bulk_payload_ > 0) {
          CaptureBulk(p, static_cast<size_t>(std::min(n, bulk_payload_)));
        }
        bulk_payload_ -= std::min(n, bulk_payload_);
        bulk_left_ -= n;
        p += n;
        if (bulk_left_ == 0) {
          step = EndElement();
        }
        break;
      }
    }
    if (step == Step::kReplyDone) {
      FinishReply();
      on_reply(static_cast<const RespReply&>(reply_));
    } else if (step == Step::kError) {
      failed_ = true;
      return false;
    }
  }
  return true;
}

}  // namespace hotkv::loadgen

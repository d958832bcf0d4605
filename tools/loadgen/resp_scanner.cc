#include "resp_scanner.h"

#include <charconv>

namespace hotkv::loadgen {

bool RespScanner::StartElement(char type) {
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '$':
    case '*':
      break;
    default:
      return false;
  }
  type_ = type;
  line_.clear();
  state_ = State::kLine;
  slot_ = -1;
  if (stack_.empty()) {
    reply_.type = type;
    reply_.number = 0;
    reply_.num_items = 0;
    children_ = 0;
    if (capture_ || type == '-') {
      slot_ = 0;
    }
  } else if (stack_.size() == 1) {
    if (capture_ && children_ < RespReply::kMaxItems) {
      slot_ = static_cast<int>(children_);
    }
    ++children_;
  }
  if (slot_ >= 0) {
    item_bufs_[slot_].clear();
  }
  return true;
}

RespScanner::Step RespScanner::EndLine() {
  if (!line_.empty() && line_.back() == '\r') {
    line_.pop_back();
  }
  if (type_ == '+' || type_ == '-') {
    if (slot_ >= 0) {
      item_bufs_[slot_] = line_;
    }
    return EndElement();
  }
  int64_t n = 0;
  const char* first = line_.data();
  const char* last = first + line_.size();
  auto [ptr, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || ptr != last) {
    return Step::kError;
  }
  if (stack_.empty()) {
    reply_.number = n;
  }
  if (type_ == ':') {
    if (slot_ >= 0) {
      item_bufs_[slot_] = line_;
    }
    return EndElement();
  }
  if (type_ == '$') {
    if (n < -1 || n > kMaxBulk) {
      return Step::kError;
    }
    if (n == -1) {
      return EndElement();
    }
    bulk_payload_ = n;
    bulk_left_ = n + 2;
    state_ = State::kBulk;
    return Step::kMore;
  }
  // '*'
  if (n < -1) {
    return Step::kError;
  }
  if (n <= 0) {
    return EndElement();
  }
  if (stack_.size() >= kMaxDepth) {
    return Step::kError;
  }
  stack_.push_back(n);
  state_ = State::kType;
  return Step::kMore;
}

RespScanner::Step RespScanner::EndElement() {
  state_ = State::kType;
  while (!stack_.empty()) {
    if (--stack_.back() > 0) {
      return Step::kMore;
    }
    stack_.pop_back();
  }
  return Step::kReplyDone;
}

void RespScanner::CaptureBulk(const char* p, size_t n) {
  std::string& buf = item_bufs_[slot_];
  size_t room = kMaxBulk - std::min<size_t>(kMaxBulk, buf.size());
  buf.append(p, std::min(room, n));
}

void RespScanner::FinishReply() {
  size_t n = 0;
  if (reply_.type == '*') {
    n = capture_ ? std::min(children_, RespReply::kMaxItems) : 0;
  } else if (capture_ || reply_.type == '-') {
    n = 1;
  }
  reply_.num_items = n;
  for (size_t i = 0; i < RespReply::kMaxItems; ++i) {
    reply_.items[i] = i < n ? std::string_view(item_bufs_[i]) : std::string_view();
  }
}

}  // namespace hotkv::loadgen

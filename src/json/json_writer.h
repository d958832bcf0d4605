// Internal to json/: an appending writer for the compact serializers (json_node.cc's
// tree writer and json_packed.cc's packed-bytes writer).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "json/json_node.h"

namespace hotkv::json {

// Appends to a std::string through a raw cursor: the string is grown ahead (resize)
// and cut back to what was written when the writer goes, so single characters cost a
// compare and a store.
class Writer {
 public:
  explicit Writer(std::string* s) : s_(s), used_(s->size()) { s_->resize(used_ + 256); }
  ~Writer() { s_->resize(used_); }
  void Ensure(size_t n) {
    if (used_ + n > s_->size()) {
      s_->resize(std::max(s_->size() * 2, used_ + n));
    }
  }
  void Put(char c) {
    Ensure(1);
    (*s_)[used_++] = c;
  }
  void Put(std::string_view v) {
    Ensure(v.size());
    memcpy(s_->data() + used_, v.data(), v.size());
    used_ += v.size();
  }
  char* Cursor(size_t n) {
    Ensure(n);
    return s_->data() + used_;
  }
  void Advance(size_t n) { used_ += n; }

 private:
  std::string* s_;
  size_t used_;
};

inline void WriteQuoted(std::string_view str, Writer& w) {
  size_t i = 0;
  while (i < str.size()) {
    auto c = static_cast<unsigned char>(str[i]);
    if (c < 0x20 || c == '"' || c == '\\') {
      break;
    }
    i++;
  }
  if (i == str.size()) {
    char* p = w.Cursor(str.size() + 2);
    p[0] = '"';
    memcpy(p + 1, str.data(), str.size());
    p[str.size() + 1] = '"';
    w.Advance(str.size() + 2);
    return;
  }
  std::string escaped;
  AppendQuoted(str, &escaped);
  w.Put(escaped);
}

}  // namespace hotkv::json

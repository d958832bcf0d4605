// Element: a string read out of a collection, plus the canonical-integer helpers the
// compact encodings use.
//
// Collections store some strings as integers (intsets; packed arrays store "12345" in
// three bytes). Reading such an entry renders its decimal text, so an Element is either a
// view of bytes the collection owns, or an integer's text kept inside the Element:
//
//   std::optional<Element> v = hash.Get("field");
//   if (v) { reply.AddBulk(v->view()); }
//
// view() is valid while the Element lives and the collection it came from is not
// modified. Copying an Element is cheap (40 bytes) and keeps the copy valid.
//
// Thread safety: an Element is an immutable value.

#ifndef HOTKV_TYPES_ELEMENT_H_
#define HOTKV_TYPES_ELEMENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hotkv::types {

// Longest decimal text of an int64 ("-9223372036854775808").
inline constexpr size_t kMaxIntDigits = 20;

// Parses `s` if it is an integer written canonically, the way Redis decides that a
// string "is" an integer: optional '-', no leading zeros, no '+', no spaces, no "-0",
// within int64 range. Anything else (including "007" and "1e3") is not an integer.
std::optional<int64_t> ParseCanonicalInt(std::string_view s);

// Writes the decimal text of `v` to `buf` (at least kMaxIntDigits bytes); returns its
// length.
size_t FormatInt(int64_t v, char* buf);

class Element {
 public:
  explicit Element(std::string_view bytes) : bytes_(bytes) {}
  explicit Element(int64_t v) : bytes_(), int_len_(static_cast<uint8_t>(FormatInt(v, int_text_))) {}

  Element(const Element& other) { *this = other; }
  Element& operator=(const Element& other) {
    bytes_ = other.bytes_;
    int_len_ = other.int_len_;
    for (size_t i = 0; i < int_len_; ++i) {
      int_text_[i] = other.int_text_[i];
    }
    return *this;
  }

  std::string_view view() const {
    return int_len_ != 0 ? std::string_view(int_text_, int_len_) : bytes_;
  }
  size_t size() const { return view().size(); }
  std::string ToString() const { return std::string(view()); }

  friend bool operator==(const Element& a, std::string_view b) { return a.view() == b; }

 private:
  std::string_view bytes_;
  uint8_t int_len_ = 0;  // non-zero: the element is int_text_[0, int_len_)
  char int_text_[kMaxIntDigits];
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ELEMENT_H_

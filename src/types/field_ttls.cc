#include "types/field_ttls.h"

namespace hotkv::types {

FieldTtls& FieldTtls::operator=(const FieldTtls& other) {
  if (this == &other) {
    return *this;
  }
  by_field_.clear();
  by_time_.clear();
  for (const auto& [field, at] : other.by_field_) {
    Set(field, at);
  }
  return *this;
}

int64_t FieldTtls::Get(std::string_view field) const {
  auto it = by_field_.find(field);
  return it == by_field_.end() ? 0 : it->second;
}

void FieldTtls::Set(std::string_view field, int64_t at_ms) {
  auto it = by_field_.find(field);
  if (it == by_field_.end()) {
    it = by_field_.emplace(std::string(field), at_ms).first;
  } else {
    by_time_.erase({it->second, std::string_view(it->first)});
    it->second = at_ms;
  }
  by_time_.emplace(at_ms, std::string_view(it->first));
}

bool FieldTtls::Erase(std::string_view field) {
  auto it = by_field_.find(field);
  if (it == by_field_.end()) {
    return false;
  }
  by_time_.erase({it->second, std::string_view(it->first)});
  by_field_.erase(it);
  return true;
}

std::vector<std::string> FieldTtls::Due(int64_t now_ms, size_t limit) const {
  std::vector<std::string> out;
  for (auto it = by_time_.begin(); it != by_time_.end() && it->first <= now_ms; ++it) {
    if (out.size() == limit) {
      break;
    }
    out.emplace_back(it->second);
  }
  return out;
}

void FieldTtls::ForEach(FunctionRef<void(std::string_view field, int64_t at_ms)> visit) const {
  for (const auto& [field, at] : by_field_) {
    visit(field, at);
  }
}

size_t FieldTtls::MemoryUsage() const {
  // A map node holds the string and the time (~80 bytes), a set node the pair (~56).
  constexpr size_t kNodes = 80 + 56;
  constexpr size_t kInlineChars = 15;  // std::string's small buffer
  size_t bytes = by_field_.size() * kNodes;
  for (const auto& [field, at] : by_field_) {
    if (field.size() > kInlineChars) {
      bytes += field.size() + 1;
    }
  }
  return bytes;
}

}  // namespace hotkv::types

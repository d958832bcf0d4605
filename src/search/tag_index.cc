#include "search/tag_index.h"

#include <algorithm>

namespace hotkv::search {

namespace {

const std::vector<std::string> kNoValues;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                        s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' ||
                        s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

void InsertSorted(DocIds& ids, DocId d) {
  if (ids.empty() || ids.back() < d) {
    ids.push_back(d);
    return;
  }
  auto it = std::lower_bound(ids.begin(), ids.end(), d);
  if (it == ids.end() || *it != d) {
    ids.insert(it, d);
  }
}

void EraseSorted(DocIds& ids, DocId d) {
  auto it = std::lower_bound(ids.begin(), ids.end(), d);
  if (it != ids.end() && *it == d) {
    ids.erase(it);
  }
}

DocIds Unite(const DocIds& a, const DocIds& b) {
  DocIds out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::string FoldTag(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i < out.size(); i++) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    if (c >= 'A' && c <= 'Z') {
      out[i] = static_cast<char>(c + 32);
    } else if (c >= 0xc0 && c < 0xe0 && i + 1 < out.size()) {
      // Two-byte UTF-8: decode, lower-case the common capitals, encode again.
      unsigned cp = ((c & 0x1fu) << 6) | (static_cast<unsigned char>(out[i + 1]) & 0x3fu);
      unsigned lower = cp;
      if ((cp >= 0xc0 && cp <= 0xde && cp != 0xd7)) {
        lower = cp + 0x20;  // Latin-1
      } else if (cp >= 0x100 && cp <= 0x17f && (cp % 2) == 0 && cp != 0x130) {
        lower = cp + 1;  // Latin Extended-A pairs (approximation)
      } else if (cp >= 0x391 && cp <= 0x3ab && cp != 0x3a2) {
        lower = cp + 0x20;  // Greek
      } else if (cp >= 0x410 && cp <= 0x42f) {
        lower = cp + 0x20;  // Cyrillic
      } else if (cp >= 0x400 && cp <= 0x40f) {
        lower = cp + 0x50;
      }
      if (lower != cp && lower < 0x800) {
        out[i] = static_cast<char>(0xc0 | (lower >> 6));
        out[i + 1] = static_cast<char>(0x80 | (lower & 0x3f));
      }
      i++;
    }
  }
  return out;
}

std::vector<std::string> TagIndex::Split(std::string_view raw, bool keep_empty) const {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = raw.find(separator_, start);
    std::string_view piece =
        Trim(raw.substr(start, pos == std::string_view::npos ? std::string_view::npos
                                                             : pos - start));
    if (!piece.empty() || keep_empty) {
      out.push_back(Normalize(piece));
    }
    if (pos == std::string_view::npos) {
      break;
    }
    start = pos + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string TagIndex::Normalize(std::string_view value) const {
  return case_sensitive_ ? std::string(value) : FoldTag(value);
}

void TagIndex::Set(DocId doc, std::vector<std::string> values) {
  Remove(doc);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (const std::string& v : values) {
    InsertSorted(values_[v], doc);
  }
  if (doc >= doc_values_.size()) {
    doc_values_.resize(doc + 1);
  }
  doc_values_[doc] = std::move(values);
}

void TagIndex::Remove(DocId doc) {
  if (doc >= doc_values_.size()) {
    return;
  }
  for (const std::string& v : doc_values_[doc]) {
    auto it = values_.find(v);
    if (it != values_.end()) {
      EraseSorted(it->second, doc);
      if (it->second.empty()) {
        values_.erase(it);
      }
    }
  }
  doc_values_[doc].clear();
  doc_values_[doc].shrink_to_fit();
}

DocIds TagIndex::MatchOne(const TagValue& tv) const {
  const std::string v = Normalize(tv.value);
  switch (tv.match) {
    case TagValue::Match::kExact: {
      auto it = values_.find(v);
      return it == values_.end() ? DocIds{} : it->second;
    }
    case TagValue::Match::kPrefix: {
      DocIds out;
      for (auto it = values_.lower_bound(v);
           it != values_.end() && it->first.compare(0, v.size(), v) == 0; ++it) {
        out = Unite(out, it->second);
      }
      return out;
    }
    case TagValue::Match::kSuffix:
    case TagValue::Match::kInfix: {
      DocIds out;
      for (const auto& [value, ids] : values_) {
        bool hit = tv.match == TagValue::Match::kInfix
                       ? value.find(v) != std::string::npos
                       : value.size() >= v.size() &&
                             value.compare(value.size() - v.size(), v.size(), v) == 0;
        if (hit) {
          out = Unite(out, ids);
        }
      }
      return out;
    }
  }
  return {};
}

DocIds TagIndex::Match(const std::vector<TagValue>& values) const {
  DocIds out;
  for (const TagValue& v : values) {
    out = out.empty() ? MatchOne(v) : Unite(out, MatchOne(v));
  }
  return out;
}

std::vector<std::string> TagIndex::Values() const {
  std::vector<std::string> out;
  out.reserve(values_.size());
  for (const auto& [v, ids] : values_) {
    out.push_back(v);
  }
  return out;
}

const std::vector<std::string>& TagIndex::ValuesOf(DocId doc) const {
  return doc < doc_values_.size() ? doc_values_[doc] : kNoValues;
}

size_t TagIndex::MemoryBytes() const {
  size_t n = doc_values_.size() * sizeof(std::vector<std::string>);
  for (const auto& [v, ids] : values_) {
    n += 64 + v.size() + ids.capacity() * sizeof(DocId);
  }
  return n;
}

}  // namespace hotkv::search

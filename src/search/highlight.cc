// RediSearch's fragmenter and highlighter (fragmenter.c, highlight_processor.c),
// re-derived: same fragment rules, same context cuts, same byte-level quirks.
#include "search/highlight.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "search/text_index_internal.h"

namespace hotkv::search {

namespace {

constexpr uint32_t kMaxDistance = 8;  // token positions between matches of one fragment
constexpr int64_t kEstWordSize = 6;   // bytes per word when turning words into bytes

bool IsSep(char ch) {
  switch (static_cast<unsigned char>(ch)) {
    case ' ': case '\t': case ',': case '.': case '/': case '(': case ')': case '{':
    case '}': case '[': case ']': case ':': case ';': case '~': case '!': case '@':
    case '#': case '$': case '%': case '^': case '&': case '*': case '-': case '=':
    case '+': case '|': case '\'': case '`': case '"': case '<': case '>': case '?':
      return true;
    default:
      return false;
  }
}

// Collapses runs of blanks (isspace) into one ' '.
void AppendStripped(std::string_view s, std::string* out) {
  bool last_space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!last_space) {
        out->push_back(' ');
      }
      last_space = true;
    } else {
      out->push_back(c);
      last_space = false;
    }
  }
}

struct Loc {
  size_t offset;  // from the fragment's start
  size_t len;
  uint32_t term;
};

struct Fragment {
  size_t buf = 0;  // byte offset in the text
  size_t len = 0;
  uint32_t last_pos = 0;
  uint32_t total_tokens = 0;
  uint32_t num_matches = 0;
  size_t pos = 0;  // index among fragments
  float score = 0;
  std::vector<Loc> locs;
};

// Writes a fragment's bytes with the tags around its matches.
void WriteFragment(std::string_view doc, const Fragment& f, const HighlightSettings& s,
                   bool tags, std::string* out) {
  size_t at = f.buf;
  for (const Loc& l : f.locs) {
    const size_t start = f.buf + l.offset;
    out->append(doc.substr(at, start - at));
    if (tags) {
      out->append(s.open);
    }
    out->append(doc.substr(start, l.len));
    if (tags) {
      out->append(s.close);
    }
    at = start + l.len;
  }
}

// No fragment: the head of the text, cut back to a separator.
std::string TrimField(std::string_view doc, const HighlightSettings& s) {
  uint64_t head = kEstWordSize * s.len * s.frags + kEstWordSize;
  if (s.len != 0 && s.frags != 0 && head / s.len / s.frags < kEstWordSize) {
    head = doc.size();  // overflow: everything
  }
  head = std::min<uint64_t>(head, doc.size());
  std::string out;
  AppendStripped(doc.substr(0, head), &out);
  size_t n = out.size();
  while (n > 1 && !IsSep(out[n - 1])) {
    n--;
  }
  while (n > 0 && std::isspace(static_cast<unsigned char>(out[n - 1]))) {
    n--;
  }
  out.resize(n);
  return out;
}

}  // namespace

std::optional<std::string> HighlightText(const Analyzer& analyzer, bool text_field, bool stem,
                                         std::string_view doc,
                                         const std::vector<MatchedTerm>& terms,
                                         const HighlightSettings& s) {
  if (!s.highlight && !s.summarize) {
    return std::nullopt;
  }
  std::vector<Fragment> frags;
  if (text_field && !terms.empty()) {
    std::vector<Analyzer::Token> tokens;
    analyzer.Tokenize(doc, &tokens);
    const bool can_stem = stem && analyzer.HasStemmer();
    uint32_t since_last = 0;
    size_t last_end = 0;
    for (const Analyzer::Token& tok : tokens) {
      const MatchedTerm* m = nullptr;
      for (const MatchedTerm& t : terms) {
        if (t.term == tok.text) {
          m = &t;
          break;
        }
      }
      if (m == nullptr && can_stem && tok.text.size() >= text_internal::kMinStemLen) {
        const std::string st = analyzer.Stem(tok.text);
        if (!st.empty() && st != tok.text) {
          for (const MatchedTerm& t : terms) {
            if (t.term.size() == st.size() + 1 && t.term[0] == text_internal::kStemPrefix &&
                t.term.compare(1, st.size(), st) == 0) {
              m = &t;
              break;
            }
          }
        }
      }
      if (m == nullptr) {
        since_last++;
        continue;
      }
      const size_t start = tok.byte_offset;
      if (start < last_end) {
        continue;
      }
      size_t len = 0;
      while (start + len < doc.size() && !IsSep(doc[start + len])) {
        len++;
      }
      Fragment* cur = frags.empty() ? nullptr : &frags.back();
      if (cur != nullptr && tok.position - cur->last_pos > kMaxDistance) {
        cur = nullptr;
      }
      if (cur == nullptr) {
        frags.emplace_back();
        cur = &frags.back();
        cur->pos = frags.size() - 1;
        cur->buf = start;
        since_last = 0;
      }
      bool has = false;
      for (const Loc& l : cur->locs) {
        has = has || l.term == m->id;
      }
      if (!has) {
        cur->score += static_cast<float>(m->idf);
      }
      cur->len = start - cur->buf + len;
      cur->last_pos = tok.position;
      cur->num_matches++;
      cur->total_tokens += since_last + 1;
      since_last = 0;
      cur->locs.push_back(Loc{start - cur->buf, len, m->id});
      last_end = start + len;
    }
  }
  if (frags.empty()) {
    if (s.summarize && !s.highlight) {
      return TrimField(doc, s);
    }
    return std::nullopt;
  }
  std::string out;
  if (!s.summarize) {
    size_t at = 0;
    for (const Fragment& f : frags) {
      out.append(doc.substr(at, f.buf - at));
      WriteFragment(doc, f, s, true, &out);
      at = f.buf + f.len;
    }
    out.append(doc.substr(at));
    return out;
  }
  // The best `frags` fragments (score descending, then position), in document order.
  std::vector<const Fragment*> order;
  for (const Fragment& f : frags) {
    order.push_back(&f);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Fragment* a, const Fragment* b) { return a->score > b->score; });
  const size_t n = static_cast<size_t>(std::min<uint64_t>(s.frags, order.size()));
  order.resize(n);
  std::sort(order.begin(), order.end(),
            [](const Fragment* a, const Fragment* b) { return a->pos < b->pos; });
  const int64_t doc_len = static_cast<int64_t>(doc.size());
  for (size_t i = 0; i < n; i++) {
    const Fragment& f = *order[i];
    const int64_t buf = static_cast<int64_t>(f.buf);
    const int64_t end = buf + static_cast<int64_t>(f.len);
    int64_t limit_before = i > 0 ? static_cast<int64_t>(order[i - 1]->buf + order[i - 1]->len) : 0;
    int64_t limit_after = i + 1 < n ? static_cast<int64_t>(order[i + 1]->buf) : doc_len - 1;
    const uint64_t inside = f.total_tokens - f.num_matches;
    std::string_view before, after;
    if (s.len > inside) {
      const uint64_t words = (s.len - inside) / 2;
      const int64_t bytes = words > static_cast<uint64_t>(INT32_MAX)
                                ? INT64_MAX / 4
                                : static_cast<int64_t>(words) * kEstWordSize;
      limit_before = std::max(buf - bytes, limit_before);
      limit_after = std::min(end + bytes, limit_after);
      while (limit_before < buf && !IsSep(doc[limit_before])) {
        limit_before++;
      }
      while (limit_before < buf && IsSep(doc[limit_before])) {
        limit_before++;
      }
      before = doc.substr(static_cast<size_t>(limit_before), static_cast<size_t>(buf - limit_before));
      while (limit_after > end && !IsSep(doc[limit_after])) {
        limit_after--;
      }
      while (limit_after > end && IsSep(doc[limit_after])) {
        limit_after--;
      }
      const int64_t alen = limit_after - end + 1;
      if (alen > 0) {
        after = doc.substr(static_cast<size_t>(end), static_cast<size_t>(alen));
      }
    }
    std::string piece(before);
    WriteFragment(doc, f, s, s.highlight, &piece);
    piece.append(after);
    AppendStripped(piece, &out);
    out.append(s.separator);
  }
  return out;
}

}  // namespace hotkv::search

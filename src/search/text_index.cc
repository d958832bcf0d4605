// The inverted index of full-text search and RediSearch's scorers.
//
// Terms live in a sorted dictionary (std::map: prefix expansion is a range, suffix /
// infix / wildcard / fuzzy a scan). Each term's postings are a list of blocks of at most
// kBlockEntries documents, varint-encoded: doc delta, frequency, field mask, offset count,
// offset deltas. Adding or removing one document re-encodes one block per term. A
// document remembers its terms, so Remove really removes its postings.
//
// Scores follow RediSearch 2.10 (src/ext/default.c) with its numeric types: frequencies
// are integers weighted by the field's WEIGHT (stems count WEIGHT * 0.2, at least 1), a
// document's length is the weighted count of its words (stems excluded), TFIDF's IDF is
// logb(1 + (N + 1) / df), BM25STD's is log(1 + (N - df + 0.5) / (df + 0.5)).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

#include "search/text_index.h"

namespace hotkv::search {

namespace {

constexpr size_t kBlockEntries = 64;
constexpr char kStemPrefix = '+';
constexpr float kStemTokenFactor = 0.2f;
constexpr size_t kMinStemLen = 4;
constexpr uint32_t kOffsetEof = 0xffffffffu;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

uint64_t GetVarint(const char*& p) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    const auto b = static_cast<unsigned char>(*p++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
    shift += 7;
  }
}

// One decoded posting (positions point into a shared buffer).
struct Posting {
  DocId doc;
  uint32_t freq;
  uint64_t mask;
  std::vector<uint32_t> positions;
};

struct Block {
  DocId last = 0;
  uint32_t count = 0;
  std::string data;
};

void DecodeBlock(const Block& b, std::vector<Posting>* out) {
  const char* p = b.data.data();
  DocId doc = 0;
  for (uint32_t i = 0; i < b.count; ++i) {
    Posting post;
    doc += static_cast<DocId>(GetVarint(p));
    post.doc = doc;
    post.freq = static_cast<uint32_t>(GetVarint(p));
    post.mask = GetVarint(p);
    const auto n = static_cast<size_t>(GetVarint(p));
    post.positions.resize(n);
    uint32_t pos = 0;
    for (size_t k = 0; k < n; ++k) {
      pos += static_cast<uint32_t>(GetVarint(p));
      post.positions[k] = pos;
    }
    out->push_back(std::move(post));
  }
}

void EncodeBlock(const Posting* begin, const Posting* end, Block* b) {
  b->data.clear();
  b->count = static_cast<uint32_t>(end - begin);
  DocId prev = 0;
  for (const Posting* it = begin; it != end; ++it) {
    PutVarint(it->doc - prev, &b->data);
    prev = it->doc;
    PutVarint(it->freq, &b->data);
    PutVarint(it->mask, &b->data);
    PutVarint(it->positions.size(), &b->data);
    uint32_t last = 0;
    for (const uint32_t pos : it->positions) {
      PutVarint(pos - last, &b->data);
      last = pos;
    }
  }
  b->last = prev;
  b->data.shrink_to_fit();
}

struct TermData {
  uint32_t num_docs = 0;
  std::vector<Block> blocks;
  uint64_t offsets = 0;  // positions stored, for FT.INFO
};

using Dict = std::map<std::string, TermData, std::less<>>;

struct DocInfo {
  bool present = false;
  uint32_t len = 0;       // weighted count of the words (stems excluded)
  uint32_t max_freq = 0;  // highest term frequency (stems included)
  std::vector<Dict::iterator> terms;
};

// A document matched by a query node, carrying what the scorers need (RediSearch's
// RSIndexResult: a term record or an aggregate of children).
struct Hit {
  DocId doc;
  uint32_t freq;
  uint64_t mask;
  double value;       // the scorer's recursive value (tfidf / bm25 / dismax sum)
  int slop_div;       // IndexResult_MinOffsetDelta of this result (1 for a term)
  bool has_offsets;   // RSIndexResult_HasOffsets
  std::vector<uint32_t> positions;  // sorted, merged over children (duplicates kept)
};
using Hits = std::vector<Hit>;

// Per-child offsets view for the distance computations.
struct OffsetList {
  bool has_offsets;
  const std::vector<uint32_t>* positions;
};

uint32_t At(const std::vector<uint32_t>& v, size_t i) { return i < v.size() ? v[i] : kOffsetEof; }

// RediSearch's IndexResult_MinOffsetDelta over an aggregate's children (same quirks: the
// delta is computed between consecutive children with offsets, sqrt truncated to int).
int MinOffsetDelta(const std::vector<OffsetList>& children) {
  const int num = static_cast<int>(children.size());
  if (num <= 1) return 1;
  int dist = 0;
  int i = 0;
  while (i < num) {
    while (i < num && !children[i].has_offsets) ++i;
    if (i == num) break;
    const auto& v1 = *children[i].positions;
    ++i;
    while (i < num && !children[i].has_offsets) ++i;
    if (i == num) break;
    const auto& v2 = *children[i].positions;
    size_t i1 = 0, i2 = 0;
    uint32_t p1 = At(v1, i1++);
    uint32_t p2 = At(v2, i2++);
    auto absdelta = [](uint32_t x, uint32_t y) { return static_cast<int>(x > y ? x - y : y - x); };
    int cd = absdelta(p2, p1);
    while (cd > 1 && p1 != kOffsetEof && p2 != kOffsetEof) {
      cd = std::min(absdelta(p2, p1), cd);
      if (p2 > p1) {
        p1 = At(v1, i1++);
      } else {
        p2 = At(v2, i2++);
      }
    }
    dist += cd * cd;
  }
  return dist ? static_cast<int>(std::sqrt(static_cast<double>(dist))) : num - 1;
}

bool WithinRangeInOrder(const std::vector<const std::vector<uint32_t>*>& lists, int max_slop) {
  const size_t num = lists.size();
  std::vector<uint32_t> positions(num, 0);
  std::vector<size_t> next(num, 0);
  auto advance = [&](size_t i) { return At(*lists[i], next[i]++); };
  while (true) {
    int span = 0;
    for (size_t i = 0; i < num; ++i) {
      uint32_t pos = i ? positions[i] : advance(0);
      const uint32_t last = i ? positions[i - 1] : 0;
      while (pos != kOffsetEof && pos < last) pos = advance(i);
      if (pos == kOffsetEof) return false;
      positions[i] = pos;
      if (i > 0) {
        span += static_cast<int>(pos) - static_cast<int>(last) - 1;
        if (span > max_slop) break;
      }
    }
    if (span <= max_slop) return true;
  }
}

bool WithinRangeUnordered(const std::vector<const std::vector<uint32_t>*>& lists, int max_slop) {
  const size_t num = lists.size();
  std::vector<uint32_t> positions(num);
  std::vector<size_t> next(num, 0);
  for (size_t i = 0; i < num; ++i) positions[i] = At(*lists[i], next[i]++);
  uint32_t max = positions[0];
  for (size_t i = 1; i < num; ++i) max = std::max(max, positions[i]);
  while (true) {
    size_t min_at = 0;
    for (size_t i = 1; i < num; ++i) {
      if (positions[i] < positions[min_at]) min_at = i;
    }
    const uint32_t min = positions[min_at];
    if (min != max) {
      const int span = static_cast<int>(max) - static_cast<int>(min) - static_cast<int>(num - 1);
      if (span <= max_slop) return true;
    }
    positions[min_at] = At(*lists[min_at], next[min_at]++);
    if (positions[min_at] == kOffsetEof) return false;
    if (positions[min_at] > max) max = positions[min_at];
  }
}

// Levenshtein distance between code-point strings, or > limit.
size_t Levenshtein(const std::u32string& a, const std::u32string& b, size_t limit) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  std::vector<size_t> prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return prev[m];
}

std::u32string ToCodePoints(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    size_t n = b0 < 0x80 ? 1 : (b0 & 0xE0) == 0xC0 ? 2 : (b0 & 0xF0) == 0xE0 ? 3 : (b0 & 0xF8) == 0xF0 ? 4 : 1;
    if (i + n > s.size()) n = 1;
    char32_t cp = n == 1 ? b0 : (b0 & (0x7F >> n));
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

// Glob over code points: '?' one, '*' any run (RediSearch's wildcard queries).
bool WildcardMatch(const std::u32string& pat, const std::u32string& s) {
  size_t p = 0, i = 0, star = std::u32string::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == U'?' || pat[p] == s[i])) {
      ++p;
      ++i;
    } else if (p < pat.size() && pat[p] == U'*') {
      star = p++;
      mark = i;
    } else if (star != std::u32string::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == U'*') ++p;
  return p == pat.size();
}

bool IsTextKind(NodeKind k) {
  switch (k) {
    case NodeKind::kTerm:
    case NodeKind::kPrefix:
    case NodeKind::kSuffix:
    case NodeKind::kInfix:
    case NodeKind::kWildcard:
    case NodeKind::kFuzzy:
    case NodeKind::kPhrase:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct TextIndex::Impl {
  const Analyzer* analyzer;
  bool store_offsets;
  Dict dict;
  std::vector<DocInfo> docs;
  std::unordered_map<DocId, double> doc_scores;  // only those != 1
  std::vector<std::string> field_names;
  uint64_t num_docs = 0;
  uint64_t total_len = 0;
  uint64_t num_records = 0;
  uint64_t offsets_count = 0;
  uint64_t inverted_bytes = 0;
  uint64_t offset_bytes = 0;

  // ---- postings maintenance ----

  void InsertPosting(TermData& t, Posting post) {
    const uint64_t noff = post.positions.size();
    auto it = std::lower_bound(t.blocks.begin(), t.blocks.end(), post.doc,
                               [](const Block& b, DocId d) { return b.last < d; });
    if (it == t.blocks.end()) {
      if (t.blocks.empty() || t.blocks.back().count >= kBlockEntries) {
        t.blocks.emplace_back();
        it = t.blocks.end() - 1;
      } else {
        it = t.blocks.end() - 1;
      }
    }
    std::vector<Posting> list;
    DecodeBlock(*it, &list);
    inverted_bytes -= it->data.size();
    auto pos = std::lower_bound(list.begin(), list.end(), post.doc,
                                [](const Posting& p, DocId d) { return p.doc < d; });
    list.insert(pos, std::move(post));
    if (list.size() > kBlockEntries) {
      const size_t half = list.size() / 2;
      Block second;
      EncodeBlock(list.data() + half, list.data() + list.size(), &second);
      EncodeBlock(list.data(), list.data() + half, &*it);
      inverted_bytes += it->data.size() + second.data.size();
      t.blocks.insert(it + 1, std::move(second));
    } else {
      EncodeBlock(list.data(), list.data() + list.size(), &*it);
      inverted_bytes += it->data.size();
    }
    ++t.num_docs;
    t.offsets += noff;
    ++num_records;
    offsets_count += noff;
  }

  void ErasePosting(TermData& t, DocId doc) {
    auto it = std::lower_bound(t.blocks.begin(), t.blocks.end(), doc,
                               [](const Block& b, DocId d) { return b.last < d; });
    if (it == t.blocks.end()) return;
    std::vector<Posting> list;
    DecodeBlock(*it, &list);
    auto pos = std::lower_bound(list.begin(), list.end(), doc,
                                [](const Posting& p, DocId d) { return p.doc < d; });
    if (pos == list.end() || pos->doc != doc) return;
    const uint64_t noff = pos->positions.size();
    list.erase(pos);
    inverted_bytes -= it->data.size();
    if (list.empty()) {
      t.blocks.erase(it);
    } else {
      EncodeBlock(list.data(), list.data() + list.size(), &*it);
      inverted_bytes += it->data.size();
    }
    --t.num_docs;
    t.offsets -= noff;
    --num_records;
    offsets_count -= noff;
  }

  // ---- matching ----

  // Decoded postings of one term, restricted to `mask`, as term hits.
  struct TermHits {
    double idf = 0;       // TFIDF / BM25 idf
    double bm25_idf = 0;  // BM25STD idf
    std::vector<Posting> postings;
  };

  struct Ctx {
    uint64_t mask;
    Scorer scorer;
    bool verbatim;
    size_t max_expansions;
    size_t n;        // documents in the index
    double avg_len;  // average document length
  };

  double TermValue(const Ctx& c, const Posting& p, double idf, double bm25_idf, double weight) const {
    const double f = static_cast<double>(p.freq);
    switch (c.scorer) {
      case Scorer::kTfIdf:
      case Scorer::kTfIdfDocNorm:
        return weight * f * idf;
      case Scorer::kBm25: {
        static const float b = 0.5;
        static const float k1 = 1.2;
        return weight * idf * f / (f + k1 * (1.0f - b + b * c.avg_len));
      }
      case Scorer::kBm25Std: {
        static const float b = 0.5;
        static const float k1 = 1.2;
        const int len = static_cast<int>(docs[p.doc].len);
        return weight * bm25_idf * f * (k1 + 1) / (f + k1 * (1.0f - b + b * len / c.avg_len));
      }
      case Scorer::kDisMax:
        return weight * f;
      default:
        return 0;
    }
  }

  // Hits of one dictionary term.
  Hits TermResults(const Ctx& c, const TermData& t, double weight) const {
    Hits out;
    const double idf = std::logb(1.0F + static_cast<double>(c.n + 1) / static_cast<double>(t.num_docs ? t.num_docs : 1));
    const size_t total = c.n, df = t.num_docs;
    // As RediSearch's C: the float quotient promoted to double before log.
    const double bm25_idf = std::log(static_cast<double>(1.0F + (total - df + 0.5F) / (df + 0.5F)));
    std::vector<Posting> list;
    for (const Block& b : t.blocks) {
      list.clear();
      DecodeBlock(b, &list);
      for (Posting& p : list) {
        if ((p.mask & c.mask) == 0) continue;
        Hit h;
        h.doc = p.doc;
        h.freq = p.freq;
        h.mask = p.mask;
        h.value = TermValue(c, p, idf, bm25_idf, weight);
        h.slop_div = 1;
        h.has_offsets = !p.positions.empty();
        h.positions = std::move(p.positions);
        out.push_back(std::move(h));
      }
    }
    return out;
  }

  double AggregateValue(const Ctx& c, double sum_or_max, double weight) const {
    (void)c;
    return weight * sum_or_max;
  }

  // Union of children (each sorted by doc): RediSearch's union result.
  Hits Union(const Ctx& c, std::vector<Hits> children, double weight) const {
    if (children.empty()) return {};
    if (children.size() == 1 && weight == 1.0) return std::move(children[0]);
    std::vector<size_t> idx(children.size(), 0);
    Hits out;
    std::vector<const Hit*> cur;
    std::vector<OffsetList> offs;
    while (true) {
      DocId min = kNoDoc;
      bool any = false;
      for (size_t i = 0; i < children.size(); ++i) {
        if (idx[i] < children[i].size()) {
          any = true;
          min = std::min(min, children[i][idx[i]].doc);
        }
      }
      if (!any) break;
      cur.clear();
      for (size_t i = 0; i < children.size(); ++i) {
        if (idx[i] < children[i].size() && children[i][idx[i]].doc == min) {
          cur.push_back(&children[i][idx[i]]);
          ++idx[i];
        }
      }
      out.push_back(Combine(c, cur, weight, /*is_union=*/true, &offs));
    }
    return out;
  }

  Hit Combine(const Ctx& c, const std::vector<const Hit*>& parts, double weight, bool is_union,
              std::vector<OffsetList>* offs) const {
    Hit h;
    h.doc = parts[0]->doc;
    h.freq = 0;
    h.mask = 0;
    double acc = 0;
    offs->clear();
    for (const Hit* p : parts) {
      h.freq += p->freq;
      h.mask |= p->mask;
      if (c.scorer == Scorer::kDisMax && is_union) {
        acc = std::max(acc, p->value);
      } else {
        acc += p->value;
      }
      offs->push_back(OffsetList{p->has_offsets, &p->positions});
    }
    h.value = AggregateValue(c, acc, weight);
    h.slop_div = MinOffsetDelta(*offs);
    h.has_offsets = true;
    size_t total = 0;
    for (const Hit* p : parts) total += p->positions.size();
    h.positions.reserve(total);
    for (const Hit* p : parts) {
      const size_t mid = h.positions.size();
      h.positions.insert(h.positions.end(), p->positions.begin(), p->positions.end());
      std::inplace_merge(h.positions.begin(), h.positions.begin() + static_cast<long>(mid),
                         h.positions.end());
    }
    return h;
  }

  // Intersection of children; slop < 0 and !inorder: no distance constraint.
  Hits Intersect(const Ctx& c, std::vector<Hits> children, double weight, int slop, bool inorder) const {
    if (children.empty()) return {};
    for (const auto& ch : children) {
      if (ch.empty()) return {};
    }
    const bool check = slop >= 0 || inorder;
    const int max_slop = slop >= 0 ? slop : (1 << 30);
    std::vector<size_t> idx(children.size(), 0);
    Hits out;
    std::vector<const Hit*> cur(children.size());
    std::vector<OffsetList> offs;
    std::vector<const std::vector<uint32_t>*> lists;
    DocId target = children[0][0].doc;
    while (true) {
      bool all = true;
      for (size_t i = 0; i < children.size(); ++i) {
        auto& ch = children[i];
        size_t& k = idx[i];
        // gallop to target
        while (k < ch.size() && ch[k].doc < target) ++k;
        if (k == ch.size()) return out;
        if (ch[k].doc > target) {
          target = ch[k].doc;
          all = false;
          break;
        }
        cur[i] = &ch[k];
      }
      if (!all) continue;
      bool ok = true;
      if (check) {
        lists.clear();
        for (const Hit* h : cur) {
          if (h->has_offsets) lists.push_back(&h->positions);
        }
        if (lists.size() > 1) {
          ok = inorder ? WithinRangeInOrder(lists, max_slop) : WithinRangeUnordered(lists, max_slop);
        }
      }
      if (ok) out.push_back(Combine(c, cur, weight, /*is_union=*/false, &offs));
      if (target == kNoDoc) break;
      ++target;
    }
    return out;
  }

  // Dictionary terms (no stems) accepted by `pred`, at most max_expansions.
  template <typename Pred>
  std::vector<const Dict::value_type*> Expand(const Ctx& c, Pred pred) const {
    std::vector<const Dict::value_type*> out;
    for (const auto& kv : dict) {
      if (out.size() >= c.max_expansions) break;
      if (!kv.first.empty() && kv.first[0] == kStemPrefix) continue;
      if (pred(kv.first)) out.push_back(&kv);
    }
    return out;
  }

  // Terms (with their weights) as one result: the term itself when alone, else a union.
  Hits FromTerms(const Ctx& c, const std::vector<const Dict::value_type*>& terms,
                 const std::vector<double>& weights, double union_weight) const {
    if (terms.size() == 1) return TermResults(c, terms[0]->second, weights[0] * union_weight);
    std::vector<Hits> children;
    for (size_t i = 0; i < terms.size(); ++i) children.push_back(TermResults(c, terms[i]->second, weights[i]));
    return Union(c, std::move(children), union_weight);
  }

  Hits FromTerms(const Ctx& c, const std::vector<const Dict::value_type*>& terms, double weight) const {
    return FromTerms(c, terms, std::vector<double>(terms.size(), 1.0), weight);
  }

  // A word with its stem expansions (RediSearch's stemmer query expander: the word, "+stem"
  // and the stem when it differs). The node's weight goes to the word itself only, as in
  // RediSearch (the expansions are new nodes of weight 1).
  Hits Word(const Ctx& c, const std::string& word, bool verbatim, double weight) const {
    std::vector<const Dict::value_type*> terms;
    std::vector<double> weights;
    auto add = [&](const std::string& t, double w) {
      auto it = dict.find(t);
      if (it != dict.end()) {
        for (const auto* e : terms) {
          if (e == &*it) return;
        }
        terms.push_back(&*it);
        weights.push_back(w);
      }
    };
    add(word, weight);
    if (!verbatim && analyzer->HasStemmer() && !word.empty()) {
      const std::string stem = analyzer->Stem(word);
      add(std::string(1, kStemPrefix) + stem, 1.0);
      if (stem != word) add(stem, 1.0);
    }
    if (terms.empty()) return {};
    return FromTerms(c, terms, weights, 1.0);
  }

  uint64_t NodeMask(const QueryNode& node, uint64_t mask) const {
    if (node.fields.empty() || field_names.empty()) return mask;
    uint64_t m = 0;
    for (const auto& f : node.fields) {
      for (size_t bit = 0; bit < field_names.size() && bit < 64; ++bit) {
        if (field_names[bit] == f) m |= uint64_t{1} << bit;
      }
    }
    return mask & m;
  }

  Hits Eval(const QueryNode& node, const Ctx& parent) const {
    Ctx c = parent;
    c.mask = NodeMask(node, parent.mask);
    if (c.mask == 0) return {};
    const bool verbatim = c.verbatim || node.verbatim;
    switch (node.kind) {
      case NodeKind::kTerm:
        return Word(c, analyzer->Normalize(node.term), verbatim, node.weight);
      case NodeKind::kPrefix: {
        const std::string p = analyzer->Normalize(node.term);
        std::vector<const Dict::value_type*> terms;
        for (auto it = dict.lower_bound(p); it != dict.end() && terms.size() < c.max_expansions; ++it) {
          if (it->first.compare(0, p.size(), p) != 0) break;
          terms.push_back(&*it);
        }
        if (terms.empty()) return {};
        return FromTerms(c, terms, node.weight);
      }
      case NodeKind::kSuffix: {
        const std::string s = analyzer->Normalize(node.term);
        auto terms = Expand(c, [&](const std::string& t) {
          return t.size() >= s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0;
        });
        if (terms.empty()) return {};
        return FromTerms(c, terms, node.weight);
      }
      case NodeKind::kInfix: {
        const std::string s = analyzer->Normalize(node.term);
        auto terms = Expand(c, [&](const std::string& t) { return t.find(s) != std::string::npos; });
        if (terms.empty()) return {};
        return FromTerms(c, terms, node.weight);
      }
      case NodeKind::kWildcard: {
        const std::u32string pat = ToCodePoints(analyzer->Fold(node.term));
        auto terms = Expand(c, [&](const std::string& t) { return WildcardMatch(pat, ToCodePoints(t)); });
        if (terms.empty()) return {};
        return FromTerms(c, terms, node.weight);
      }
      case NodeKind::kFuzzy: {
        const std::u32string w = ToCodePoints(analyzer->Normalize(node.term));
        const size_t d = static_cast<size_t>(std::clamp(node.fuzzy_distance, 1, 3));
        auto terms = Expand(c, [&](const std::string& t) { return Levenshtein(w, ToCodePoints(t), d) <= d; });
        if (terms.empty()) return {};
        return FromTerms(c, terms, node.weight);
      }
      case NodeKind::kPhrase: {
        std::vector<Hits> children;
        for (const auto& raw : node.phrase_terms) {
          const std::string w = analyzer->Normalize(raw);
          if (w.empty() || analyzer->IsStopWord(w)) continue;
          // RediSearch does not expand the words of a quoted phrase to their stems.
          children.push_back(Word(c, w, /*verbatim=*/true, 1.0));
          if (children.back().empty()) return {};
        }
        if (children.empty()) return {};
        if (children.size() == 1 && node.weight == 1.0) return std::move(children[0]);
        const int slop = node.slop >= 0 ? node.slop : 0;
        const bool inorder = node.slop >= 0 ? node.inorder : true;
        return Intersect(c, std::move(children), node.weight, slop, inorder);
      }
      case NodeKind::kIntersect: {
        std::vector<Hits> children;
        for (const auto& ch : node.children) {
          children.push_back(Eval(*ch, c));
          if (children.back().empty()) return {};
        }
        if (children.size() == 1 && node.weight == 1.0 && node.slop < 0 && !node.inorder) {
          return std::move(children[0]);
        }
        return Intersect(c, std::move(children), node.weight, node.slop, node.inorder);
      }
      case NodeKind::kUnion: {
        std::vector<Hits> children;
        for (const auto& ch : node.children) {
          Hits h = Eval(*ch, c);
          if (!h.empty()) children.push_back(std::move(h));
        }
        return Union(c, std::move(children), node.weight);
      }
      default:
        return {};
    }
  }

  double Finish(const Ctx& c, const Hit& h) const {
    const DocInfo& d = docs[h.doc];
    auto sit = doc_scores.find(h.doc);
    const double score = sit == doc_scores.end() ? 1.0 : sit->second;
    switch (c.scorer) {
      case Scorer::kTfIdf:
      case Scorer::kTfIdfDocNorm: {
        if (score == 0) return 0;
        const uint32_t norm = c.scorer == Scorer::kTfIdf ? d.max_freq : d.len;
        double tfidf = score * h.value / norm;
        tfidf /= h.slop_div;
        return tfidf;
      }
      case Scorer::kBm25:
        return score * h.value / h.slop_div;
      case Scorer::kBm25Std:
        return score * h.value;
      case Scorer::kDisMax:
        return h.value;
      case Scorer::kDocScore:
        return score;
      default:
        return 0;
    }
  }
};

TextIndex::TextIndex(const Analyzer* analyzer, bool store_offsets) : impl_(std::make_unique<Impl>()) {
  impl_->analyzer = analyzer;
  impl_->store_offsets = store_offsets;
}

TextIndex::~TextIndex() = default;

void TextIndex::Add(DocId doc, const std::vector<TextFieldValue>& fields) {
  Remove(doc);
  Impl& m = *impl_;
  struct Entry {
    uint32_t freq = 0;
    uint64_t mask = 0;
    std::vector<uint32_t> positions;
  };
  std::unordered_map<std::string, Entry> fwd;
  uint32_t len = 0;
  uint32_t max_freq = 0;
  uint32_t position_base = 0;
  std::vector<Analyzer::Token> tokens;
  const bool can_stem = m.analyzer->HasStemmer();
  for (const auto& f : fields) {
    tokens.clear();
    m.analyzer->Tokenize(f.text, &tokens);
    const uint64_t bit = uint64_t{1} << (f.field_bit & 63);
    const float score = static_cast<float>(f.weight);
    const uint32_t raw_freq = std::max(1u, static_cast<uint32_t>(score));
    const uint32_t stem_freq = std::max(1u, static_cast<uint32_t>(score * kStemTokenFactor));
    uint32_t last = position_base;
    for (auto& tok : tokens) {
      const uint32_t pos = position_base + tok.position;
      last = pos;
      auto handle = [&](const std::string& term, uint32_t inc) {
        Entry& e = fwd[term];
        e.mask |= bit;
        e.freq += inc;
        max_freq = std::max(max_freq, e.freq);
        if (m.store_offsets) e.positions.push_back(pos);
      };
      handle(tok.text, raw_freq);
      len += raw_freq;
      if (can_stem && !f.nostem && tok.text.size() >= kMinStemLen) {
        std::string stem = m.analyzer->Stem(tok.text);
        if (!stem.empty() && stem != tok.text) {
          handle(std::string(1, kStemPrefix) + stem, stem_freq);
        }
      }
    }
    position_base = last;
  }
  if (doc >= m.docs.size()) m.docs.resize(static_cast<size_t>(doc) + 1);
  DocInfo& d = m.docs[doc];
  d.present = true;
  d.len = len;
  d.max_freq = max_freq;
  d.terms.reserve(fwd.size());
  for (auto& [term, e] : fwd) {
    auto it = m.dict.try_emplace(term).first;
    std::sort(e.positions.begin(), e.positions.end());
    m.InsertPosting(it->second, Posting{doc, e.freq, e.mask, std::move(e.positions)});
    d.terms.push_back(it);
  }
  d.terms.shrink_to_fit();
  ++m.num_docs;
  m.total_len += len;
}

void TextIndex::Remove(DocId doc) {
  Impl& m = *impl_;
  m.doc_scores.erase(doc);
  if (doc >= m.docs.size() || !m.docs[doc].present) return;
  DocInfo& d = m.docs[doc];
  for (auto it : d.terms) {
    m.ErasePosting(it->second, doc);
    if (it->second.num_docs == 0) m.dict.erase(it);
  }
  m.total_len -= d.len;
  --m.num_docs;
  d = DocInfo{};
}

void TextIndex::SetDocScore(DocId doc, double score) {
  if (score == 1.0) {
    impl_->doc_scores.erase(doc);
  } else {
    impl_->doc_scores[doc] = score;
  }
}

void TextIndex::SetFieldNames(std::vector<std::string> names_by_bit) {
  impl_->field_names = std::move(names_by_bit);
}

bool TextIndex::CanMatch(const QueryNode& node) {
  if (IsTextKind(node.kind)) return true;
  if (node.kind == NodeKind::kIntersect || node.kind == NodeKind::kUnion) {
    if (node.children.empty()) return false;
    for (const auto& ch : node.children) {
      if (!CanMatch(*ch)) return false;
    }
    return true;
  }
  return false;
}

ScoredDocs TextIndex::Match(const QueryNode& node, uint64_t field_mask, Scorer scorer, bool verbatim,
                            size_t max_expansions, size_t num_docs) const {
  const Impl& m = *impl_;
  Impl::Ctx c;
  c.mask = field_mask;
  c.scorer = scorer;
  c.verbatim = verbatim;
  c.max_expansions = max_expansions == 0 ? 1 : max_expansions;
  c.n = num_docs ? num_docs : m.num_docs;
  c.avg_len = c.n ? static_cast<double>(m.total_len) / static_cast<double>(c.n) : 0;
  if (!CanMatch(node)) return {};
  Hits hits = m.Eval(node, c);
  ScoredDocs out;
  out.reserve(hits.size());
  for (const Hit& h : hits) out.push_back(ScoredDoc{h.doc, m.Finish(c, h)});
  return out;
}

std::vector<std::string> TextIndex::TermsWithPrefix(std::string_view prefix, size_t limit) const {
  std::vector<std::string> out;
  for (auto it = impl_->dict.lower_bound(prefix); it != impl_->dict.end() && out.size() < limit; ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (!it->first.empty() && it->first[0] == kStemPrefix) continue;
    out.push_back(it->first);
  }
  return out;
}

TextIndexStats TextIndex::Stats() const {
  const Impl& m = *impl_;
  TextIndexStats s;
  s.num_terms = m.dict.size();
  s.num_records = m.num_records;
  s.inverted_bytes = m.inverted_bytes;
  s.offsets_count = m.offsets_count;
  s.offset_vectors_bytes = m.offsets_count;  // about one varint byte per offset delta
  s.total_doc_tokens = m.total_len;
  return s;
}

size_t TextIndex::MemoryBytes() const {
  const Impl& m = *impl_;
  size_t bytes = sizeof(Impl) + m.inverted_bytes;
  for (const auto& [term, t] : m.dict) {
    bytes += 64 + term.capacity() + t.blocks.capacity() * sizeof(Block);
  }
  bytes += m.docs.capacity() * sizeof(DocInfo);
  for (const auto& d : m.docs) bytes += d.terms.capacity() * sizeof(Dict::iterator);
  return bytes;
}

}  // namespace hotkv::search

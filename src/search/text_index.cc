// The inverted index of full-text search: postings maintenance (Add, Remove) and
// statistics. Matching and RediSearch's scorers are in text_query.cc.
//
// Terms live in a sorted dictionary (std::map). A document remembers its terms, so
// Remove really removes its postings (documents are re-indexed on every write).
//
// As in RediSearch 2.10: frequencies are integers weighted by the field's WEIGHT (a stem
// counts WEIGHT * 0.2, at least 1), a document's length is the weighted count of its
// words (stems excluded), positions continue from one TEXT field to the next.
#include <algorithm>
#include <unordered_map>

#include "search/text_index.h"
#include "search/text_index_internal.h"

namespace hotkv::search {

namespace text_internal {

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

}  // namespace text_internal

using namespace text_internal;

namespace {

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

struct TextIndex::Impl : TextIndexData {
  void InsertPosting(TermData& t, Posting post) {
    const uint64_t noff = post.positions.size();
    auto it = std::lower_bound(t.blocks.begin(), t.blocks.end(), post.doc,
                               [](const Block& b, DocId d) { return b.last < d; });
    if (it == t.blocks.end()) {
      if (t.blocks.empty() || t.blocks.back().count >= kBlockEntries) t.blocks.emplace_back();
      it = t.blocks.end() - 1;
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
    --num_records;
    offsets_count -= noff;
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
  if (!CanMatch(node)) return {};
  MatchOptions options{field_mask, scorer, verbatim, max_expansions == 0 ? 1 : max_expansions,
                       num_docs ? num_docs : static_cast<size_t>(impl_->num_docs)};
  return MatchText(*impl_, node, options);
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

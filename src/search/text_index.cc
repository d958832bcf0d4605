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

void DecodeBlock(const Block& b, FlatBlock* out) {
  out->docs.clear();
  out->freqs.clear();
  out->masks.clear();
  out->pos_begin.clear();
  out->positions.clear();
  const char* p = b.data.data();
  DocId doc = 0;
  out->pos_begin.push_back(0);
  for (uint32_t i = 0; i < b.count; ++i) {
    doc += static_cast<DocId>(GetVarint(p));
    out->docs.push_back(doc);
    out->freqs.push_back(static_cast<uint32_t>(GetVarint(p)));
    out->masks.push_back(GetVarint(p));
    const auto n = static_cast<size_t>(GetVarint(p));
    uint32_t pos = 0;
    for (size_t k = 0; k < n; ++k) {
      pos += static_cast<uint32_t>(GetVarint(p));
      out->positions.push_back(pos);
    }
    out->pos_begin.push_back(static_cast<uint32_t>(out->positions.size()));
  }
}

}  // namespace text_internal

namespace {

using text_internal::Block;

size_t SkipVarint(const std::string& d, size_t i) {
  while (static_cast<unsigned char>(d[i]) & 0x80) ++i;
  return i + 1;
}

uint64_t ReadVarint(const std::string& d, size_t* i) {
  const char* p = d.data() + *i;
  const char* start = p;
  const uint64_t v = text_internal::GetVarint(p);
  *i += static_cast<size_t>(p - start);
  return v;
}

// One entry's place in a block's bytes.
struct EntryAt {
  size_t begin = 0;      // the doc delta
  size_t delta_end = 0;  // the rest of the entry (freq, mask, offsets)
  size_t end = 0;
  DocId doc = 0;
  uint64_t offsets = 0;
};

// Reads the entry at `i` whose predecessor is `prev`.
EntryAt ReadEntry(const std::string& d, size_t i, DocId prev) {
  EntryAt e;
  e.begin = i;
  e.doc = prev + static_cast<DocId>(ReadVarint(d, &i));
  e.delta_end = i;
  i = SkipVarint(d, i);  // freq
  i = SkipVarint(d, i);  // mask
  e.offsets = ReadVarint(d, &i);
  for (uint64_t k = 0; k < e.offsets; ++k) i = SkipVarint(d, i);
  e.end = i;
  return e;
}

std::string Varint(uint64_t v) {
  std::string s;
  text_internal::PutVarint(v, &s);
  return s;
}

}  // namespace

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
  // Adds `doc`'s entry (`body`: freq, mask, offsets encoded) to a term's postings by
  // splicing bytes: only the following entry's delta is re-encoded. Appending (rising
  // doc ids, the initial scan) touches nothing else.
  void InsertPosting(TermData& t, DocId doc, const std::string& body, uint64_t noff) {
    ++t.num_docs;
    ++num_records;
    offsets_count += noff;
    auto it = std::lower_bound(t.blocks.begin(), t.blocks.end(), doc,
                               [](const Block& b, DocId d) { return b.last < d; });
    if (it == t.blocks.end()) {
      if (t.blocks.empty() || t.blocks.back().count >= kBlockEntries) {
        Block b;
        b.data = Varint(doc) + body;
        b.last = doc;
        b.count = 1;
        inverted_bytes += b.data.size();
        t.blocks.push_back(std::move(b));
        return;
      }
      Block& b = t.blocks.back();
      const size_t before = b.data.size();
      PutVarint(doc - b.last, &b.data);
      b.data += body;
      b.last = doc;
      ++b.count;
      inverted_bytes += b.data.size() - before;
      return;
    }
    Block& b = *it;
    const size_t before = b.data.size();
    // Find the first entry above doc (one exists: b.last >= doc, and doc is not there).
    size_t i = 0;
    DocId prev = 0;
    EntryAt e;
    while (true) {
      e = ReadEntry(b.data, i, prev);
      if (e.doc > doc) break;
      prev = e.doc;
      i = e.end;
    }
    std::string data;
    data.reserve(b.data.size() + body.size() + 10);
    data.append(b.data, 0, e.begin);
    PutVarint(doc - prev, &data);
    data += body;
    PutVarint(e.doc - doc, &data);
    data.append(b.data, e.delta_end, std::string::npos);
    b.data = std::move(data);
    ++b.count;
    if (b.count > kBlockEntries) {
      // Split in two halves; the second block's first delta becomes absolute.
      const uint32_t half = b.count / 2;
      size_t j = 0;
      DocId p = 0;
      EntryAt m;
      for (uint32_t k = 0; k <= half; ++k) {
        m = ReadEntry(b.data, j, p);
        if (k == half) break;
        p = m.doc;
        j = m.end;
      }
      Block second;
      second.data = Varint(m.doc);
      second.data.append(b.data, m.delta_end, std::string::npos);
      second.last = b.last;
      second.count = b.count - half;
      b.data.resize(m.begin);
      b.data.shrink_to_fit();
      b.last = p;
      b.count = half;
      inverted_bytes += b.data.size() + second.data.size() - before;
      t.blocks.insert(it + 1, std::move(second));
      return;
    }
    inverted_bytes += b.data.size() - before;
  }

  void ErasePosting(TermData& t, DocId doc) {
    auto it = std::lower_bound(t.blocks.begin(), t.blocks.end(), doc,
                               [](const Block& b, DocId d) { return b.last < d; });
    if (it == t.blocks.end()) return;
    Block& b = *it;
    const size_t before = b.data.size();
    size_t i = 0;
    DocId prev = 0;
    EntryAt e;
    uint32_t k = 0;
    for (; k < b.count; ++k) {
      e = ReadEntry(b.data, i, prev);
      if (e.doc >= doc) break;
      prev = e.doc;
      i = e.end;
    }
    if (k == b.count || e.doc != doc) return;
    --t.num_docs;
    --num_records;
    offsets_count -= e.offsets;
    if (b.count == 1) {
      inverted_bytes -= before;
      t.blocks.erase(it);
      return;
    }
    std::string data;
    data.reserve(b.data.size());
    data.append(b.data, 0, e.begin);
    if (k + 1 < b.count) {
      const EntryAt next = ReadEntry(b.data, e.end, e.doc);
      PutVarint(next.doc - prev, &data);
      data.append(b.data, next.delta_end, std::string::npos);
    } else {
      b.last = prev;
    }
    b.data = std::move(data);
    --b.count;
    inverted_bytes += b.data.size();
    inverted_bytes -= before;
  }
};

TextIndex::TextIndex(const Analyzer* analyzer, bool store_offsets) : impl_(std::make_unique<Impl>()) {
  impl_->analyzer = analyzer;
  impl_->store_offsets = store_offsets;
}

TextIndex::~TextIndex() = default;

void TextIndex::Add(DocId doc, const std::vector<TextFieldValue>& fields, const Analyzer* stemmer) {
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
  const Analyzer* st = stemmer != nullptr ? stemmer : m.analyzer;
  const bool can_stem = st->HasStemmer();
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
        std::string stem = st->Stem(tok.text);
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
  std::string body;
  for (auto& [term, e] : fwd) {
    auto lit = m.lookup.find(term);
    Dict::iterator it;
    if (lit != m.lookup.end()) {
      it = lit->second;
    } else {
      it = m.dict.try_emplace(term).first;
      m.lookup.emplace(std::string_view(it->first), it);
      if (!m.ghost_terms.empty()) m.ghost_terms.erase(it->first);
      if (!m.free_ids.empty()) {
        it->second.id = m.free_ids.back();
        m.free_ids.pop_back();
        m.by_id[it->second.id] = it;
      } else {
        it->second.id = static_cast<uint32_t>(m.by_id.size());
        m.by_id.push_back(it);
      }
    }
    body.clear();
    PutVarint(e.freq, &body);
    PutVarint(e.mask, &body);
    PutVarint(e.positions.size(), &body);
    uint32_t last = 0;
    for (const uint32_t pos : e.positions) {  // ascending: tokens come in order
      PutVarint(pos - last, &body);
      last = pos;
    }
    m.InsertPosting(it->second, doc, body, e.positions.size());
    d.terms.push_back(it->second.id);
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
  for (const uint32_t id : d.terms) {
    const Dict::iterator it = m.by_id[id];
    m.ErasePosting(it->second, doc);
    if (it->second.num_docs == 0) {
      m.ghost_terms.insert(it->first);
      m.lookup.erase(std::string_view(it->first));
      m.dict.erase(it);
      m.free_ids.push_back(id);
    }
  }
  m.total_len -= d.len;
  --m.num_docs;
  d = DocInfo{};
}

size_t TextIndex::DocRecords(DocId doc) const {
  const Impl& m = *impl_;
  return doc < m.docs.size() && m.docs[doc].present ? m.docs[doc].terms.size() : 0;
}

void TextIndex::ForgetRemovedTerms() { impl_->ghost_terms.clear(); }

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

void TextIndex::SetStemmedFields(uint64_t mask) { impl_->stemmed_mask = mask; }

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
                            size_t max_expansions, size_t num_docs, const Deadline* deadline,
                            const Analyzer* stemmer) const {
  if (!CanMatch(node)) return {};
  MatchOptions options{field_mask, scorer, verbatim, max_expansions == 0 ? 1 : max_expansions,
                       num_docs ? num_docs : static_cast<size_t>(impl_->num_docs), deadline,
                       stemmer};
  return MatchText(*impl_, node, options);
}

void TextIndex::MatchedTerms(const QueryNode& node, uint64_t field_mask, bool verbatim,
                             size_t max_expansions, size_t num_docs, const std::vector<DocId>& docs,
                             std::vector<std::vector<MatchedTerm>>* out,
                             const Analyzer* stemmer) const {
  out->resize(docs.size());
  if (!CanMatch(node) || docs.empty()) return;
  MatchOptions options{field_mask, Scorer::kTfIdf, verbatim, max_expansions == 0 ? 1 : max_expansions,
                       num_docs ? num_docs : static_cast<size_t>(impl_->num_docs), nullptr,
                       stemmer};
  MatchedTermsOf(*impl_, node, options, docs, out);
}

uint64_t TextIndex::TermDocs(std::string_view term) const {
  const TermData* t = impl_->Find(term);
  return t == nullptr ? 0 : t->num_docs;
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
  s.removed_terms = m.ghost_terms.size();
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
  bytes += m.lookup.bucket_count() * sizeof(void*) + m.lookup.size() * 48;  // hash nodes
  bytes += m.docs.capacity() * sizeof(DocInfo);
  for (const auto& d : m.docs) bytes += d.terms.capacity() * sizeof(uint32_t);
  bytes += m.by_id.capacity() * sizeof(Dict::iterator) + m.free_ids.capacity() * sizeof(uint32_t);
  return bytes;
}

}  // namespace hotkv::search

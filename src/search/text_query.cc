// Full-text matching and scoring, shaped like RediSearch 2.10's query evaluation so that
// scores agree with it: a tree of iterators (term readers, unions, intersections) with
// Read / SkipTo, whose results (term records and aggregates of them) feed the scorers of
// src/ext/default.c. RediSearch's observable details are kept on purpose:
// - the words of a term expand to [word, "+stem", stem] (stem only when it differs),
//   the node's weight on the word only; a union of one live term is that term;
// - prefix / suffix / infix / wildcard / fuzzy expansions are unions that keep only the
//   first matching term per document ("quick exit"), terms in dictionary order;
// - a union reached by SkipTo past the requested document reports only its first
//   lowest child (so an intersection may score one term of an expansion);
// - intersections visit children by ascending estimated size (unless in order);
// - TFIDF / BM25 divide by the truncated square root of the summed squared distances
//   between consecutive children (IndexResult_MinOffsetDelta).
// Numeric types follow the C code (float k1/b, float IDF quotient) so values match to the
// last bits on simple queries.
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>

#include "search/text_index_internal.h"

namespace hotkv::search::text_internal {

namespace {

// Internal document ids are DocId + 1: RediSearch's iterators use 0 as "nothing read".
using IterId = uint64_t;
constexpr uint32_t kOffsetEof = 0xffffffffu;

enum class Rc { kOk, kNotFound, kEof };

struct Result {
  enum class Type : uint8_t { kTerm, kUnion, kIntersect };
  Type type = Type::kTerm;
  IterId id = 0;
  uint32_t freq = 0;
  uint64_t mask = 0;
  double weight = 1;
  // kTerm
  double idf = 0;
  double bm25_idf = 0;
  const uint32_t* pos = nullptr;  // the term's positions in the document
  uint32_t npos = 0;
  const TermData* term = nullptr;  // kTerm: the dictionary term (highlighting)
  // aggregates
  std::vector<const Result*> children;

  void ResetAggregate() {
    children.clear();
    freq = 0;
    mask = 0;
    id = 0;
  }
  void AddChild(const Result* r) {
    children.push_back(r);
    freq += r->freq;
    id = r->id;
    mask |= r->mask;
  }
  bool HasOffsets() const { return type != Type::kTerm || npos > 0; }
};

class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual Rc Read(const Result** hit) = 0;
  virtual Rc SkipTo(IterId id, const Result** hit) = 0;
  virtual size_t NumEstimated() const = 0;
  virtual const Result* Current() const = 0;
  bool valid = true;
  IterId min_id = 0;  // maintained by a parent union (RediSearch's it->minId)
};

using IteratorPtr = std::unique_ptr<Iterator>;

// Reads one term's postings (restricted to a field mask), block by block.
class TermIterator final : public Iterator {
 public:
  TermIterator(const TermData* term, uint64_t mask, double weight, double idf, double bm25_idf)
      : term_(term), mask_(mask) {
    rec_.type = Result::Type::kTerm;
    rec_.term = term;
    rec_.weight = weight;
    rec_.idf = idf;
    rec_.bm25_idf = bm25_idf;
  }

  Rc Read(const Result** hit) override {
    while (valid) {
      if (pos_ >= buf_.size()) {
        if (block_ >= term_->blocks.size()) {
          valid = false;
          break;
        }
        pos_ = 0;
        DecodeBlock(term_->blocks[block_++], &buf_);
        continue;
      }
      const size_t k = pos_++;
      if ((buf_.masks[k] & mask_) == 0) continue;
      rec_.id = static_cast<IterId>(buf_.docs[k]) + 1;
      rec_.freq = buf_.freqs[k];
      rec_.mask = buf_.masks[k];
      rec_.pos = buf_.positions.data() + buf_.pos_begin[k];
      rec_.npos = buf_.pos_begin[k + 1] - buf_.pos_begin[k];
      if (hit) *hit = &rec_;
      return Rc::kOk;
    }
    rec_.pos = nullptr;  // never read after EOF; keep it harmless
    rec_.npos = 0;
    return Rc::kEof;
  }

  Rc SkipTo(IterId id, const Result** hit) override {
    if (id == 0) return Read(hit);
    if (!valid) return Rc::kEof;
    if (rec_.id >= id) {  // already there (callers avoid this; keep it harmless)
      if (hit) *hit = &rec_;
      return rec_.id == id ? Rc::kOk : Rc::kNotFound;
    }
    // Jump over whole blocks that end before the target.
    const DocId target = static_cast<DocId>(id - 1);
    if (pos_ >= buf_.size() || buf_.docs.back() < target) {
      // Binary search over the blocks not read yet.
      auto first = term_->blocks.begin() + static_cast<long>(block_);
      auto b = std::lower_bound(first, term_->blocks.end(), target,
                                [](const Block& blk, DocId d) { return blk.last < d; });
      if (b != first) {
        block_ = static_cast<size_t>(b - term_->blocks.begin());
        pos_ = buf_.size();  // the buffer is spent
      }
    }
    while (true) {
      if (Read(hit) == Rc::kEof) return Rc::kEof;
      if (rec_.id >= id) return rec_.id == id ? Rc::kOk : Rc::kNotFound;
    }
  }

  size_t NumEstimated() const override { return term_->num_docs; }
  const Result* Current() const override { return &rec_; }

 private:
  const TermData* term_;
  uint64_t mask_;
  size_t block_ = 0;
  FlatBlock buf_;
  size_t pos_ = 0;
  Result rec_;
};

// RediSearch's binary heap (src/util/heap.c) ordered by the children's min_id, the
// lowest first; equal keys still swap on the way up, as there.
class MinIdHeap {
 public:
  void Clear() { items_.clear(); }
  size_t Count() const { return items_.size(); }
  Iterator* Peek() const { return items_.empty() ? nullptr : items_[0]; }
  void Offer(Iterator* it) {
    items_.push_back(it);
    size_t idx = items_.size() - 1;
    while (idx != 0) {
      const size_t parent = (idx - 1) / 2;
      if (Cmp(items_[idx], items_[parent]) < 0) return;
      std::swap(items_[idx], items_[parent]);
      idx = parent;
    }
  }
  void Poll() {
    if (items_.empty()) return;
    items_[0] = items_.back();
    items_.pop_back();
    if (items_.size() > 1) PushDown(0);
  }
  void Replace(Iterator* it) {
    items_[0] = it;
    PushDown(0);
  }
  // The root, then (pre-order) every node equal to it below it.
  template <typename F>
  void ForEachRootEqual(F f) const {
    if (items_.empty()) return;
    f(items_[0]);
    Child(1, f);
    Child(2, f);
  }

 private:
  static int Cmp(const Iterator* a, const Iterator* b) {
    if (a->min_id < b->min_id) return 1;
    if (a->min_id > b->min_id) return -1;
    return 0;
  }
  void PushDown(size_t idx) {
    while (true) {
      const size_t l = idx * 2 + 1, r = idx * 2 + 2;
      size_t child;
      if (r >= items_.size()) {
        if (l >= items_.size()) return;
        child = l;
      } else if (Cmp(items_[l], items_[r]) < 0) {
        child = r;
      } else {
        child = l;
      }
      if (Cmp(items_[idx], items_[child]) < 0) {
        std::swap(items_[idx], items_[child]);
        idx = child;
      } else {
        return;
      }
    }
  }
  template <typename F>
  void Child(size_t idx, F& f) const {
    if (idx >= items_.size()) return;
    if (Cmp(items_[0], items_[idx]) == 0) {
      f(items_[idx]);
      Child(idx * 2 + 1, f);
      Child(idx * 2 + 2, f);
    }
  }
  std::vector<Iterator*> items_;
};

// RediSearch's sorted union iterator (UI_ReadSorted / UI_SkipTo, and the heap variants
// UI_ReadSortedHigh / UI_SkipToHigh above kMinUnionIterHeap children).
constexpr size_t kMinUnionIterHeap = 20;

class UnionIterator final : public Iterator {
 public:
  UnionIterator(std::vector<IteratorPtr> its, bool quick_exit, double weight)
      : owned_(std::move(its)), quick_exit_(quick_exit) {
    for (auto& it : owned_) {
      its_.push_back(it.get());
      expected_ += it->NumEstimated();
    }
    cur_.type = Result::Type::kUnion;
    cur_.weight = weight;
    use_heap_ = owned_.size() > kMinUnionIterHeap;
    if (use_heap_) {
      for (Iterator* it : its_) heap_.Offer(it);
    }
  }

  Rc Read(const Result** hit) override { return use_heap_ ? ReadHigh(hit) : ReadSorted(hit); }
  Rc SkipTo(IterId id, const Result** hit) override {
    if (id == 0) return Read(hit);
    return use_heap_ ? SkipToHigh(id, hit) : SkipToLow(id, hit);
  }
  size_t NumEstimated() const override { return expected_; }
  const Result* Current() const override { return &cur_; }

 private:
  Rc ReadSorted(const Result** hit) {
    if (its_.empty() || !valid) {
      valid = false;
      return Rc::kEof;
    }
    cur_.ResetAggregate();
    int num_active = 0;
    do {
      IterId min_doc = UINT64_MAX;
      Iterator* min_it = nullptr;
      num_active = 0;
      for (int i = 0; i < static_cast<int>(its_.size()); ++i) {
        Iterator* it = its_[i];
        const Result* res = it->Current();
        Rc rc = Rc::kOk;
        while (it->min_id <= min_doc_id_ && rc != Rc::kEof) {
          rc = Rc::kNotFound;
          while (rc == Rc::kNotFound) {
            rc = it->Read(&res);
            if (rc != Rc::kEof) it->min_id = res->id;
          }
        }
        if (rc != Rc::kEof) {
          ++num_active;
        } else {
          its_.erase(its_.begin() + i);
          --i;
          continue;
        }
        if (rc == Rc::kOk && res->id <= min_doc) {
          min_doc = res->id;
          min_it = it;
        }
      }
      if (min_it) {
        const Result* h = nullptr;
        SkipToLow(min_it->min_id, &h);
        min_doc_id_ = min_it->min_id;
        if (hit) *hit = &cur_;
        return Rc::kOk;
      }
    } while (num_active > 0);
    valid = false;
    return Rc::kEof;
  }

  Rc SkipToLow(IterId id, const Result** hit) {
    if (!valid) return Rc::kEof;
    cur_.ResetAggregate();
    int num_active = 0;
    int found = 0;
    IterId min_doc = UINT32_MAX;
    const Result* min_result = nullptr;
    for (int i = 0; i < static_cast<int>(its_.size()); ++i) {
      Iterator* it = its_[i];
      const Result* res = nullptr;
      Rc rc;
      if (it->min_id < id) {
        rc = it->SkipTo(id, &res);
        if (rc == Rc::kEof) {
          its_.erase(its_.begin() + i);
          --i;
          continue;
        }
        if (res) it->min_id = res->id;
      } else {
        rc = it->min_id == id ? Rc::kOk : Rc::kNotFound;
        res = it->Current();
      }
      if (it->min_id) {
        if (it->min_id < min_doc || !min_result) {
          min_result = res;
          min_doc = it->min_id;
        }
      }
      if (rc == Rc::kOk) {
        cur_.AddChild(res ? res : it->Current());
        min_doc_id_ = it->min_id;
        ++found;
      }
      ++num_active;
      if (found && quick_exit_) break;
    }
    if (num_active == 0) {
      valid = false;
      return Rc::kEof;
    }
    if (hit) *hit = &cur_;
    if (found > 0) return Rc::kOk;
    if (min_result) cur_.AddChild(min_result);
    min_doc_id_ = min_doc;
    return Rc::kNotFound;
  }

  Rc ReadHigh(const Result** hit) {
    if (!valid) return Rc::kEof;
    cur_.ResetAggregate();
    const IterId next_valid = min_doc_id_ + 1;
    Iterator* it = nullptr;
    const Result* res = nullptr;
    while (heap_.Count()) {
      it = heap_.Peek();
      res = it->Current();
      if (it->min_id >= next_valid && it->min_id != 0) break;
      const Rc rc = it->SkipTo(next_valid, &res);
      if (rc == Rc::kEof) {
        heap_.Poll();
      } else {
        it->min_id = res->id;
        heap_.Replace(it);
        if (quick_exit_ && it->min_id == next_valid) break;
      }
    }
    if (!heap_.Count()) {
      valid = false;
      return Rc::kEof;
    }
    min_doc_id_ = it->min_id;
    if (quick_exit_) {
      cur_.AddChild(res);
    } else {
      heap_.ForEachRootEqual([&](Iterator* c) { cur_.AddChild(c->Current()); });
    }
    if (hit) *hit = &cur_;
    return Rc::kOk;
  }

  Rc SkipToHigh(IterId id, const Result** hit) {
    if (!valid) return Rc::kEof;
    cur_.ResetAggregate();
    Iterator* it = nullptr;
    while (heap_.Count()) {
      it = heap_.Peek();
      if (it->min_id >= id) break;
      const Result* res = nullptr;
      const Rc rc = it->SkipTo(id, &res);
      if (rc == Rc::kEof) {
        heap_.Poll();
        continue;
      }
      it->min_id = res->id;
      heap_.Replace(it);
      if (quick_exit_ && it->min_id == id) break;
    }
    if (heap_.Count() == 0) {
      valid = false;
      return Rc::kEof;
    }
    const Rc rc = it->min_id == id ? Rc::kOk : Rc::kNotFound;
    if (quick_exit_) {
      cur_.AddChild(it->Current());
    } else {
      heap_.ForEachRootEqual([&](Iterator* c) { cur_.AddChild(c->Current()); });
    }
    min_doc_id_ = it->min_id;
    if (hit) *hit = &cur_;
    return rc;
  }

  std::vector<IteratorPtr> owned_;
  std::vector<Iterator*> its_;  // active, in the original order
  bool quick_exit_;
  bool use_heap_ = false;
  MinIdHeap heap_;
  size_t expected_ = 0;
  IterId min_doc_id_ = 0;
  Result cur_;
};

bool IsWithinRange(const Result& r, int max_slop, bool inorder);

// RediSearch's intersection iterator (II_ReadSorted / II_SkipTo).
class IntersectIterator final : public Iterator {
 public:
  IntersectIterator(std::vector<IteratorPtr> its, int max_slop, bool inorder, double weight)
      : its_(std::move(its)), max_slop_(max_slop), inorder_(inorder) {
    if (!inorder_) {
      std::stable_sort(its_.begin(), its_.end(), [](const IteratorPtr& a, const IteratorPtr& b) {
        return a->NumEstimated() < b->NumEstimated();
      });
    }
    for (auto& it : its_) expected_ = std::min(expected_, it->NumEstimated());
    doc_ids_.assign(its_.size(), 0);
    cur_.type = Result::Type::kIntersect;
    cur_.weight = weight;
  }

  Rc Read(const Result** hit) override {
    const int num = static_cast<int>(its_.size());
    if (num == 0 || !valid) return Rc::kEof;
    while (true) {
      int nh = 0;
      cur_.ResetAggregate();
      for (int i = 0; i < num; ++i) {
        Iterator* it = its_[i].get();
        const Result* h = it->Current();
        Rc rc = Rc::kOk;
        if (doc_ids_[i] != last_doc_id_ || last_doc_id_ == 0) {
          if (i == 0 && doc_ids_[i] >= last_doc_id_) {
            rc = it->Read(&h);
          } else {
            rc = it->SkipTo(last_doc_id_, &h);
          }
          if (rc == Rc::kEof) {
            valid = false;
            return Rc::kEof;
          }
          doc_ids_[i] = h->id;
        }
        if (doc_ids_[i] > last_doc_id_) {
          last_doc_id_ = doc_ids_[i];
          break;
        }
        if (rc == Rc::kOk) {
          ++nh;
          cur_.AddChild(h);
        } else {
          ++last_doc_id_;
        }
      }
      if (nh == num) {
        ++last_doc_id_;
        if (max_slop_ >= 0 && !IsWithinRange(cur_, max_slop_, inorder_)) continue;
        if (hit) *hit = &cur_;
        return Rc::kOk;
      }
    }
  }

  Rc SkipTo(IterId id, const Result** hit) override {
    if (id == 0) return Read(hit);
    if (!valid) return Rc::kEof;
    cur_.ResetAggregate();
    int nfound = 0;
    const int num = static_cast<int>(its_.size());
    for (int i = 0; i < num; ++i) {
      Iterator* it = its_[i].get();
      if (!it->valid) {
        valid = false;
        return Rc::kEof;
      }
      const Result* res = it->Current();
      Rc rc = Rc::kOk;
      if (doc_ids_[i] != id) {
        rc = it->SkipTo(id, &res);
        if (rc != Rc::kEof && res) doc_ids_[i] = res->id;
      }
      if (rc == Rc::kEof) {
        valid = false;
        return rc;
      } else if (rc == Rc::kOk) {
        cur_.AddChild(res);
        last_doc_id_ = id;
        ++nfound;
      } else if (doc_ids_[i] > last_doc_id_) {
        last_doc_id_ = doc_ids_[i];
        break;
      }
    }
    if (nfound == num && (max_slop_ == -1 || IsWithinRange(cur_, max_slop_, inorder_))) {
      if (hit) *hit = &cur_;
      return Rc::kOk;
    }
    if (Read(hit) == Rc::kEof) return Rc::kEof;
    return Rc::kNotFound;
  }

  size_t NumEstimated() const override { return expected_; }
  const Result* Current() const override { return &cur_; }

 private:
  std::vector<IteratorPtr> its_;
  int max_slop_;
  bool inorder_;
  size_t expected_ = UINT32_MAX;
  std::vector<IterId> doc_ids_;
  IterId last_doc_id_ = 0;
  Result cur_;
};

// ---- offsets: RediSearch's offset iterators over results ----

// All positions of a result's terms, merged (duplicates kept, as the aggregate offset
// iterator yields them).
void CollectPositions(const Result& r, std::vector<uint32_t>* out) {
  if (r.type == Result::Type::kTerm) {
    if (r.npos) {
      const size_t mid = out->size();
      out->insert(out->end(), r.pos, r.pos + r.npos);
      if (mid) std::inplace_merge(out->begin(), out->begin() + static_cast<long>(mid), out->end());
    }
    return;
  }
  for (const Result* c : r.children) CollectPositions(*c, out);
}

uint32_t At(const std::vector<uint32_t>& v, size_t i) { return i < v.size() ? v[i] : kOffsetEof; }

// IndexResult_MinOffsetDelta.
int MinOffsetDelta(const Result& r) {
  if (r.type == Result::Type::kTerm || r.children.size() <= 1) return 1;
  const int num = static_cast<int>(r.children.size());
  int dist = 0;
  int i = 0;
  std::vector<uint32_t> v1, v2;
  auto absdelta = [](uint32_t x, uint32_t y) { return static_cast<int>(x > y ? x - y : y - x); };
  while (i < num) {
    while (i < num && !r.children[i]->HasOffsets()) ++i;
    if (i == num) break;
    v1.clear();
    CollectPositions(*r.children[i], &v1);
    ++i;
    while (i < num && !r.children[i]->HasOffsets()) ++i;
    if (i == num) break;
    v2.clear();
    CollectPositions(*r.children[i], &v2);
    size_t i1 = 0, i2 = 0;
    uint32_t p1 = At(v1, i1++);
    uint32_t p2 = At(v2, i2++);
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

bool WithinRangeInOrder(const std::vector<std::vector<uint32_t>>& lists, int max_slop) {
  const size_t num = lists.size();
  std::vector<uint32_t> positions(num, 0);
  std::vector<size_t> next(num, 0);
  auto advance = [&](size_t i) { return At(lists[i], next[i]++); };
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

bool WithinRangeUnordered(const std::vector<std::vector<uint32_t>>& lists, int max_slop) {
  const size_t num = lists.size();
  std::vector<uint32_t> positions(num);
  std::vector<size_t> next(num, 0);
  for (size_t i = 0; i < num; ++i) positions[i] = At(lists[i], next[i]++);
  uint32_t max = positions[0];
  for (size_t i = 1; i < num; ++i) max = std::max(max, positions[i]);
  while (true) {
    size_t min_at = 0;
    for (size_t i = 1; i < num; ++i) {
      if (positions[i] < positions[min_at]) min_at = i;
    }
    const uint32_t min = positions[min_at];
    if (min != max) {
      const long span = static_cast<long>(max) - static_cast<long>(min) - static_cast<long>(num - 1);
      if (span <= max_slop) return true;
    }
    positions[min_at] = At(lists[min_at], next[min_at]++);
    if (positions[min_at] == kOffsetEof) return false;
    if (positions[min_at] > max) max = positions[min_at];
  }
}

// IndexResult_IsWithinRange.
bool IsWithinRange(const Result& r, int max_slop, bool inorder) {
  if (r.type == Result::Type::kTerm || r.children.size() <= 1) return true;
  std::vector<std::vector<uint32_t>> lists;
  for (const Result* c : r.children) {
    if (!c->HasOffsets()) continue;
    lists.emplace_back();
    CollectPositions(*c, &lists.back());
  }
  if (lists.empty()) return true;
  return inorder ? WithinRangeInOrder(lists, max_slop) : WithinRangeUnordered(lists, max_slop);
}

// ---- expansions ----

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

// Levenshtein distance between code-point strings, or limit + 1 when above it.
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

// Glob over code points: '?' one, '*' any run.
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

// RediSearch's term trie (a radix tree over code points, children in order) and its
// contains / suffix walk (TrieNode_IterateContains): the terms come out in its order,
// and a term holding the pattern twice comes out twice (each is one more union child).
struct TrieNode {
  std::u32string str;
  bool terminal = false;
  std::vector<TrieNode> children;
};

// Builds the node for sorted, distinct terms [b, e) that share their first `depth` code
// points and differ (or end) after that node's string.
void BuildChildren(const std::vector<std::u32string>& terms, size_t b, size_t e, size_t depth,
                   TrieNode* parent) {
  size_t i = b;
  if (i < e && terms[i].size() == depth) {
    parent->terminal = true;
    ++i;
  }
  while (i < e) {
    const char32_t c = terms[i][depth];
    size_t j = i + 1;
    while (j < e && terms[j][depth] == c) ++j;
    // common prefix of terms[i..j) beyond depth: first and last suffice (sorted)
    size_t lcp = depth + 1;
    const auto& first = terms[i];
    const auto& last = terms[j - 1];
    while (lcp < first.size() && lcp < last.size() && first[lcp] == last[lcp]) ++lcp;
    TrieNode child;
    child.str = first.substr(depth, lcp - depth);
    BuildChildren(terms, i, j, lcp, &child);
    parent->children.push_back(std::move(child));
    i = j;
  }
}

class ContainsWalk {
 public:
  ContainsWalk(const std::u32string& pattern, bool suffix_only, size_t limit,
               std::vector<std::u32string>* out)
      : pat_(pattern), contains_(!suffix_only), limit_(limit), out_(out) {}

  void Run(const TrieNode& root) { Iterate(root, 0, 0); }

 private:
  bool Emit(const std::u32string& term) {
    if (out_->size() >= limit_) {
      stop_ = true;
      return false;
    }
    out_->push_back(term);
    return true;
  }
  void SubTree(const TrieNode& n) {
    if (stop_) return;
    buf_ += n.str;
    if (n.terminal && !Emit(buf_)) return;
    for (const auto& c : n.children) {
      SubTree(c);
      if (stop_) return;
    }
    buf_.resize(buf_.size() - n.str.size());
  }
  void Next(const TrieNode& n, size_t local, size_t global) {
    if (n.str.size() == local || n.str.empty()) {
      for (size_t i = 0; i < n.children.size() && !stop_; ++i) Iterate(n.children[i], 0, global);
    } else {
      Iterate(n, local, global);
    }
  }
  void TrimOne(const TrieNode& n) {
    if (!n.str.empty() && !buf_.empty()) buf_.pop_back();
  }
  void Iterate(const TrieNode& n, size_t local, size_t global) {
    if ((n.children.empty() && pat_.size() - global > n.str.size()) || stop_) return;
    if (!n.str.empty()) buf_.push_back(n.str[local]);
    if (!n.str.empty() && n.str[local] == pat_[global]) {
      if (global + 1 == pat_.size()) {
        if (contains_) {
          buf_.resize(buf_.size() - (local + 1));
          SubTree(n);
          if (stop_) return;
          buf_.append(n.str, 0, local);
          return;
        }
        if (n.terminal && local + 1 == n.str.size()) Emit(buf_);
        Next(n, local + 1, 0);
        TrimOne(n);
        return;
      }
      Next(n, local + 1, global + 1);
    }
    if (!global) Next(n, local + 1, 0);
    TrimOne(n);
  }

  const std::u32string pat_;
  bool contains_;
  size_t limit_;
  std::vector<std::u32string>* out_;
  std::u32string buf_;
  bool stop_ = false;
};

std::string ToUtf8(const std::u32string& s) {
  std::string out;
  for (const char32_t cp : s) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

// ---- building the iterator tree ----

class Builder {
 public:
  Builder(const TextIndexData& data, const MatchOptions& o) : data_(data), o_(o) {}

  IteratorPtr Build(const QueryNode& node, uint64_t parent_mask) const {
    const uint64_t mask = NodeMask(node, parent_mask);
    if (mask == 0) return nullptr;
    const bool verbatim = o_.verbatim || node.verbatim;
    switch (node.kind) {
      case NodeKind::kTerm:
        // The parser copies a group's @field restriction onto its terms.
        return Word(data_.analyzer->Normalize(node.term), mask, verbatim, node.weight,
                    /*restricted=*/!node.fields.empty());
      case NodeKind::kPrefix: {
        const std::string p = data_.analyzer->Normalize(node.term);
        std::vector<const TermData*> terms;
        for (auto it = data_.dict.lower_bound(p); it != data_.dict.end() && terms.size() < o_.max_expansions;
             ++it) {
          if (it->first.compare(0, p.size(), p) != 0) break;
          terms.push_back(&it->second);
        }
        return Expansion(terms, mask, node.weight);
      }
      case NodeKind::kSuffix:
      case NodeKind::kInfix: {
        const std::string s = data_.analyzer->Normalize(node.term);
        if (s.empty()) return nullptr;
        return Expansion(Contains(s, node.kind == NodeKind::kSuffix), mask, node.weight);
      }
      case NodeKind::kWildcard: {
        const std::u32string pat = ToCodePoints(data_.analyzer->Fold(node.term));
        return Expansion(Scan([&](const std::string& t) { return WildcardMatch(pat, ToCodePoints(t)); }), mask,
                         node.weight);
      }
      case NodeKind::kFuzzy: {
        const std::string w8 = data_.analyzer->Normalize(node.term);
        const std::u32string w = ToCodePoints(w8);
        const size_t d = static_cast<size_t>(std::clamp(node.fuzzy_distance, 1, 3));
        return Expansion(Scan([&](const std::string& t) {
                           // a code point is 1..4 bytes: cheap length filter first
                           if (t.size() + 4 * d < w8.size() || w8.size() + 4 * d < t.size()) return false;
                           std::u32string t32 = ToCodePoints(t);
                           if (Levenshtein(w, t32, d) <= d) return true;
                           // RediSearch's trie walk also accepts a term whose last two
                           // letters are swapped at the cost of one edit ("bda" ~ "bad").
                           if (t32.size() < 2) return false;
                           std::swap(t32[t32.size() - 1], t32[t32.size() - 2]);
                           return Levenshtein(w, t32, d - 1) <= d - 1;
                         }),
                         mask, node.weight);
      }
      case NodeKind::kPhrase: {
        std::vector<IteratorPtr> its;
        for (const auto& raw : node.phrase_terms) {
          const std::string w = data_.analyzer->Normalize(raw);
          if (w.empty() || data_.analyzer->IsStopWord(w)) continue;
          // The words of a quoted phrase are not expanded (RediSearch: exact match).
          IteratorPtr it = Word(w, mask, /*verbatim=*/true, 1.0, /*restricted=*/false);
          if (!it) return nullptr;
          its.push_back(std::move(it));
        }
        if (its.empty()) return nullptr;
        if (its.size() == 1) return std::move(its[0]);
        int slop = 0;
        bool inorder = true;
        if (node.slop >= 0) {
          slop = node.slop;
          inorder = node.inorder;
        }
        return std::make_unique<IntersectIterator>(std::move(its), slop, inorder, node.weight);
      }
      case NodeKind::kIntersect: {
        std::vector<IteratorPtr> its;
        for (const auto& ch : node.children) {
          IteratorPtr it = Build(*ch, mask);
          if (!it) return nullptr;
          its.push_back(std::move(it));
        }
        if (its.empty()) return nullptr;
        if (its.size() == 1) return std::move(its[0]);
        int slop = node.slop;
        if (node.inorder && slop < 0) slop = INT_MAX;
        return std::make_unique<IntersectIterator>(std::move(its), slop, node.inorder, node.weight);
      }
      case NodeKind::kUnion: {
        if (node.children.size() == 1) return Build(*node.children[0], mask);
        std::vector<IteratorPtr> its;
        for (const auto& ch : node.children) {
          IteratorPtr it = Build(*ch, mask);
          if (it) its.push_back(std::move(it));
        }
        if (its.empty()) return nullptr;
        if (its.size() == 1) return std::move(its[0]);
        return std::make_unique<UnionIterator>(std::move(its), /*quick_exit=*/false, node.weight);
      }
      default:
        return nullptr;
    }
  }

 private:
  uint64_t NodeMask(const QueryNode& node, uint64_t mask) const {
    if (node.fields.empty() || data_.field_names.empty()) return mask;
    uint64_t m = 0;
    for (const auto& f : node.fields) {
      for (size_t bit = 0; bit < data_.field_names.size() && bit < 64; ++bit) {
        if (data_.field_names[bit] == f) m |= uint64_t{1} << bit;
      }
    }
    return mask & m;
  }

  IteratorPtr Term(const TermData& t, uint64_t mask, double weight) const {
    const size_t total = o_.num_docs;
    const size_t df = t.num_docs;
    // TFIDF's: the doc table's size is N + 1 in RediSearch.
    const double idf = std::logb(1.0F + static_cast<double>(total + 1) / static_cast<double>(df ? df : 1));
    // BM25STD's, with the C expression's float quotient.
    const double bm25_idf = std::log(static_cast<double>(1.0F + (total - df + 0.5F) / (df + 0.5F)));
    return std::make_unique<TermIterator>(&t, mask, weight, idf, bm25_idf);
  }

  // A word and its stem expansions: [word, "+stem", stem]; the node's weight on the word.
  IteratorPtr Word(const std::string& word, uint64_t mask, bool verbatim, double weight,
                   bool restricted) const {
    if (word.empty()) return nullptr;
    std::vector<std::pair<const TermData*, double>> terms;
    auto add = [&](const std::string& t, double w) {
      const TermData* td = data_.Find(t);
      if (td == nullptr) return;
      for (const auto& e : terms) {
        if (e.first == td) return;
      }
      terms.emplace_back(td, w);
    };
    add(word, weight);
    // The expansions of a term restricted to fields look only in its stemmed fields
    // (RediSearch 2.10: "@title|body:runs" with body NOSTEM expands in @title only, and
    // "@body:runs" not at all); an unrestricted term expands in every field.
    const uint64_t stem_mask = restricted ? (mask & data_.stemmed_mask) : mask;
    const Analyzer* stemmer = o_.stemmer != nullptr ? o_.stemmer : data_.analyzer;
    if (!verbatim && stem_mask != 0 && stemmer->HasStemmer()) {
      const std::string stem = stemmer->Stem(word);
      add(std::string(1, kStemPrefix) + stem, 1.0);
      if (stem != word) add(stem, 1.0);
    }
    if (terms.empty()) return nullptr;
    auto mask_of = [&](size_t i) { return i == 0 && terms[0].first == data_.Find(word) ? mask : stem_mask; };
    if (terms.size() == 1) return Term(*terms[0].first, mask_of(0), terms[0].second);
    std::vector<IteratorPtr> its;
    for (size_t i = 0; i < terms.size(); ++i) its.push_back(Term(*terms[i].first, mask_of(i), terms[i].second));
    return std::make_unique<UnionIterator>(std::move(its), /*quick_exit=*/false, 1.0);
  }

  // Dictionary terms (stems included, as RediSearch's trie holds them) accepted by pred,
  // in order, at most max_expansions.
  template <typename Pred>
  std::vector<const TermData*> Scan(Pred pred) const {
    std::vector<const TermData*> out;
    for (const auto& [term, data] : data_.dict) {
      if (out.size() >= o_.max_expansions) break;
      if (pred(term)) out.push_back(&data);
    }
    return out;
  }

  // Terms holding `pattern` (suffix_only: ending with it) in RediSearch's trie-walk order.
  std::vector<const TermData*> Contains(const std::string& pattern, bool suffix_only) const {
    // Candidates first (cheap byte test), then the trie of just those: the walk's order
    // and repetitions depend only on the matching terms and their shared prefixes...
    // except for pruning, which never drops a match, so the result is the same.
    std::vector<std::u32string> cands;
    for (const auto& [term, data] : data_.dict) {
      if (suffix_only ? (term.size() >= pattern.size() &&
                         term.compare(term.size() - pattern.size(), pattern.size(), pattern) == 0)
                      : term.find(pattern) != std::string::npos) {
        cands.push_back(ToCodePoints(term));
      }
    }
    std::vector<const TermData*> out;
    if (cands.empty()) return out;
    TrieNode root;
    BuildChildren(cands, 0, cands.size(), 0, &root);
    std::vector<std::u32string> found;
    ContainsWalk walk(ToCodePoints(pattern), suffix_only, o_.max_expansions, &found);
    walk.Run(root);
    for (const auto& t : found) {
      if (const TermData* td = data_.Find(ToUtf8(t))) out.push_back(td);
    }
    return out;
  }

  IteratorPtr Expansion(const std::vector<const TermData*>& terms, uint64_t mask, double weight) const {
    if (terms.empty()) return nullptr;
    std::vector<IteratorPtr> its;
    for (const TermData* t : terms) its.push_back(Term(*t, mask, 1.0));
    return std::make_unique<UnionIterator>(std::move(its), /*quick_exit=*/true, weight);
  }

  const TextIndexData& data_;
  const MatchOptions& o_;
};

// ---- scorers (src/ext/default.c) ----

double TfIdfRecursive(const Result& r) {
  if (r.type == Result::Type::kTerm) return r.weight * static_cast<double>(r.freq) * r.idf;
  double ret = 0;
  for (const Result* c : r.children) ret += TfIdfRecursive(*c);
  return r.weight * ret;
}

double Bm25Recursive(const Result& r, double avg_len) {
  static const float b = 0.5;
  static const float k1 = 1.2;
  if (r.type == Result::Type::kTerm) {
    const double f = static_cast<double>(r.freq);
    return r.weight * r.idf * f / (f + k1 * (1.0f - b + b * avg_len));
  }
  double ret = 0;
  for (const Result* c : r.children) ret += Bm25Recursive(*c, avg_len);
  return ret * r.weight;
}

double Bm25StdRecursive(const Result& r, uint32_t doc_len, double avg_len) {
  static const float b = 0.5;
  static const float k1 = 1.2;
  if (r.type == Result::Type::kTerm) {
    const double f = static_cast<double>(r.freq);
    const int len = static_cast<int>(doc_len);
    return r.weight * r.bm25_idf * f * (k1 + 1) / (f + k1 * (1.0f - b + b * len / avg_len));
  }
  double ret = 0;
  for (const Result* c : r.children) ret += Bm25StdRecursive(*c, doc_len, avg_len);
  return ret * r.weight;
}

double DisMaxRecursive(const Result& r) {
  if (r.type == Result::Type::kTerm) return r.weight * static_cast<double>(r.freq);
  double ret = 0;
  for (const Result* c : r.children) {
    const double v = DisMaxRecursive(*c);
    ret = r.type == Result::Type::kUnion ? std::max(ret, v) : ret + v;
  }
  return r.weight * ret;
}

double Score(const TextIndexData& data, const MatchOptions& o, double avg_len, const Result& r) {
  const DocId doc = static_cast<DocId>(r.id - 1);
  const DocInfo& d = data.docs[doc];
  const double score = data.DocScore(doc);
  switch (o.scorer) {
    case Scorer::kTfIdf:
    case Scorer::kTfIdfDocNorm: {
      if (score == 0) return 0;
      const uint32_t norm = o.scorer == Scorer::kTfIdf ? d.max_freq : d.len;
      double tfidf = score * TfIdfRecursive(r) / norm;
      tfidf /= MinOffsetDelta(r);
      return tfidf;
    }
    case Scorer::kBm25:
      return score * Bm25Recursive(r, avg_len) / MinOffsetDelta(r);
    case Scorer::kBm25Std:
      return score * Bm25StdRecursive(r, d.len, avg_len);
    case Scorer::kDisMax:
      return DisMaxRecursive(r);
    case Scorer::kDocScore:
      return score;
    default:
      return 0;
  }
}

}  // namespace

namespace {
void CollectTerms(const TextIndexData& data, const Result& r, std::vector<MatchedTerm>* out) {
  if (r.type == Result::Type::kTerm) {
    if (r.term == nullptr) return;
    for (const MatchedTerm& m : *out) {
      if (m.id == r.term->id) return;
    }
    out->push_back(MatchedTerm{data.by_id[r.term->id]->first, r.term->id, r.idf});
    return;
  }
  for (const Result* c : r.children) CollectTerms(data, *c, out);
}
}  // namespace

void MatchedTermsOf(const TextIndexData& data, const QueryNode& node, const MatchOptions& options,
                    const std::vector<DocId>& docs, std::vector<std::vector<MatchedTerm>>* out) {
  Builder builder(data, options);
  IteratorPtr root = builder.Build(node, options.field_mask);
  if (!root) return;
  std::unordered_map<DocId, size_t> where;
  for (size_t i = 0; i < docs.size(); ++i) where.emplace(docs[i], i);
  const Result* hit = nullptr;
  while (root->Read(&hit) == Rc::kOk) {
    auto it = where.find(static_cast<DocId>(hit->id - 1));
    if (it != where.end()) CollectTerms(data, *hit, &(*out)[it->second]);
  }
}

ScoredDocs MatchText(const TextIndexData& data, const QueryNode& node, const MatchOptions& options) {
  Builder builder(data, options);
  IteratorPtr root = builder.Build(node, options.field_mask);
  ScoredDocs out;
  if (!root) return out;
  const double avg_len =
      options.num_docs ? static_cast<double>(data.total_len) / static_cast<double>(options.num_docs) : 0;
  const Result* hit = nullptr;
  while (root->Read(&hit) == Rc::kOk) {
    if (options.deadline != nullptr && options.deadline->Tick()) break;
    const auto doc = static_cast<DocId>(hit->id - 1);
    if (!out.empty() && out.back().doc >= doc) continue;  // never expected; keeps the contract
    out.push_back(ScoredDoc{doc, Score(data, options, avg_len, *hit)});
  }
  return out;
}

}  // namespace hotkv::search::text_internal

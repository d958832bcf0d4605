#include "search/query_exec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>

#include "types/geohash.h"

namespace hotkv::search {

namespace {

ScoredDocs FromIds(const DocIds& ids, double score) {
  ScoredDocs out;
  out.reserve(ids.size());
  for (DocId d : ids) {
    out.push_back({d, score});
  }
  return out;
}

ScoredDocs Intersect(const ScoredDocs& a, const ScoredDocs& b) {
  ScoredDocs out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].doc < b[j].doc) {
      i++;
    } else if (b[j].doc < a[i].doc) {
      j++;
    } else {
      out.push_back({a[i].doc, a[i].score + b[j].score});
      i++;
      j++;
    }
  }
  return out;
}

ScoredDocs Unite(const ScoredDocs& a, const ScoredDocs& b) {
  ScoredDocs out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].doc < b[j].doc)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].doc < a[i].doc) {
      out.push_back(b[j++]);
    } else {
      out.push_back({a[i].doc, a[i].score + b[j].score});
      i++;
      j++;
    }
  }
  return out;
}

ScoredDocs Subtract(const ScoredDocs& a, const ScoredDocs& b) {
  ScoredDocs out;
  size_t j = 0;
  for (const ScoredDoc& d : a) {
    while (j < b.size() && b[j].doc < d.doc) {
      j++;
    }
    if (j < b.size() && b[j].doc == d.doc) {
      continue;
    }
    out.push_back(d);
  }
  return out;
}

// Adds b's scores to the documents of a that b holds (optional terms).
ScoredDocs Boost(ScoredDocs a, const ScoredDocs& b) {
  size_t j = 0;
  for (ScoredDoc& d : a) {
    while (j < b.size() && b[j].doc < d.doc) {
      j++;
    }
    if (j < b.size() && b[j].doc == d.doc) {
      d.score += b[j].score;
    }
  }
  return a;
}

class Executor {
 public:
  Executor(const SearchIndex& idx, const SearchOptions& opt) : idx_(idx), opt_(opt) {
    default_mask_ = idx.all_text_mask();
    if (!opt.infields.empty()) {
      default_mask_ = 0;
      for (const std::string& f : opt.infields) {
        int fi = idx.FieldIndexOf(f);
        if (fi >= 0 && idx.fields()[fi].text_bit >= 0) {
          default_mask_ |= uint64_t{1} << idx.fields()[fi].text_bit;
        }
      }
    }
  }

  Status error;
  // VECTOR_RANGE distances by document (for $YIELD_DISTANCE_AS) and their names.
  std::vector<std::pair<std::string, std::unordered_map<DocId, float>>> yields;

  ScoredDocs Eval(const QueryNode& n, int depth = 0) {
    if (opt_.deadline.Expired()) {
      return {};
    }
    if (!error.ok() || depth > kMaxQueryDepth + 8) {
      if (error.ok()) {
        error = Status::InvalidArgument("Query is too deeply nested");
      }
      return {};
    }
    const int64_t t0 = opt_.profile != nullptr ? MonotonicNs() : 0;
    ScoredDocs r = EvalInner(n, depth);
    if (opt_.profile != nullptr) {
      QueryProfile::Node& p = opt_.profile->nodes[&n];
      p.matches = r.size();
      p.ms = static_cast<double>(MonotonicNs() - t0) / 1e6;
    }
    if (n.weight != 1.0) {
      for (ScoredDoc& d : r) {
        d.score *= n.weight;
      }
    }
    return r;
  }

  const ScoredDocs& All() {
    if (!all_ready_) {
      all_ = FromIds(idx_.AllDocs(), 0);
      all_ready_ = true;
    }
    return all_;
  }

 private:
  // The field a tag/numeric/geo/vector node names, if it has type `t`.
  const FieldIndex* TypedField(const QueryNode& n, FieldType t) {
    if (n.fields.empty()) {
      return nullptr;
    }
    int fi = idx_.FieldIndexOf(n.fields[0]);
    if (fi < 0) {
      return nullptr;
    }
    const FieldIndex& f = idx_.fields()[fi];
    if (f.spec->type != t && !(t == FieldType::kGeo && f.spec->type == FieldType::kGeoShape)) {
      return nullptr;
    }
    return &f;
  }

  uint64_t TextMask(const QueryNode& n) {
    if (n.fields.empty()) {
      return default_mask_;
    }
    uint64_t m = 0;
    for (const std::string& name : n.fields) {
      int fi = idx_.FieldIndexOf(name);
      if (fi >= 0 && idx_.fields()[fi].text_bit >= 0) {
        m |= uint64_t{1} << idx_.fields()[fi].text_bit;
      }
    }
    return m;
  }

 public:
  // The text terms of `n` (outside negations) that matched each of `docs`.
  void MatchedTerms(const QueryNode& n, const std::vector<DocId>& docs,
                    std::vector<std::vector<MatchedTerm>>* out, int depth = 0) {
    if (depth > kMaxQueryDepth + 8) {
      return;
    }
    switch (n.kind) {
      case NodeKind::kNot:
        return;
      case NodeKind::kTerm:
      case NodeKind::kPrefix:
      case NodeKind::kSuffix:
      case NodeKind::kInfix:
      case NodeKind::kWildcard:
      case NodeKind::kFuzzy:
      case NodeKind::kPhrase:
      case NodeKind::kIntersect:
      case NodeKind::kUnion:
        if (TextIndex::CanMatch(n)) {
          const uint64_t mask = TextMask(n);
          if (mask != 0) {
            idx_.text().MatchedTerms(n, mask, opt_.verbatim || n.verbatim, opt_.max_expansions,
                                     idx_.num_docs(), docs, out, opt_.stemmer);
          }
          return;
        }
        break;
      default:
        break;
    }
    for (const auto& c : n.children) {
      MatchedTerms(*c, docs, out, depth + 1);
    }
  }

 private:
  ScoredDocs Text(const QueryNode& n) {
    uint64_t mask = TextMask(n);
    if (mask == 0) {
      return {};
    }
    return idx_.text().Match(n, mask, opt_.scorer, opt_.verbatim || n.verbatim,
                             opt_.max_expansions, idx_.num_docs(), &opt_.deadline, opt_.stemmer);
  }

  ScoredDocs EvalInner(const QueryNode& n, int depth) {
    switch (n.kind) {
      case NodeKind::kMatchAll: {
        ScoredDocs r = All();
        for (ScoredDoc& d : r) {
          d.score = 1.0;
        }
        return r;
      }
      case NodeKind::kEmpty:
        return {};
      case NodeKind::kTerm:
      case NodeKind::kPrefix:
      case NodeKind::kSuffix:
      case NodeKind::kInfix:
      case NodeKind::kWildcard:
      case NodeKind::kFuzzy:
      case NodeKind::kPhrase:
        return Text(n);
      case NodeKind::kIntersect: {
        if (TextIndex::CanMatch(n)) {
          return Text(n);  // scores with RediSearch's term-distance penalty
        }
        // Proximity (slop / inorder) over plain terms: the text index answers it whole.
        if (n.slop >= 0 || n.inorder) {
          bool all_text = !n.children.empty();
          for (const auto& c : n.children) {
            all_text = all_text && (c->kind == NodeKind::kTerm);
          }
          if (all_text) {
            return Text(n);
          }
        }
        std::vector<const QueryNode*> nots, optionals, plain;
        for (const auto& c : n.children) {
          if (c->kind == NodeKind::kNot) {
            nots.push_back(c.get());
          } else if (c->kind == NodeKind::kOptional) {
            optionals.push_back(c.get());
          } else {
            plain.push_back(c.get());
          }
        }
        ScoredDocs r;
        if (plain.empty()) {
          r = All();
        } else {
          // Most selective first would need counts; evaluate in order and stop early.
          r = Eval(*plain[0], depth + 1);
          for (size_t i = 1; i < plain.size() && !r.empty(); i++) {
            r = Intersect(r, Eval(*plain[i], depth + 1));
          }
        }
        for (const QueryNode* c : nots) {
          if (r.empty()) {
            break;
          }
          if (!c->children.empty()) {
            r = Subtract(r, Eval(*c->children[0], depth + 2));
          }
        }
        for (const QueryNode* c : optionals) {
          if (!c->children.empty()) {
            r = Boost(std::move(r), Eval(*c->children[0], depth + 2));
          }
        }
        return r;
      }
      case NodeKind::kUnion: {
        if (TextIndex::CanMatch(n)) {
          return Text(n);
        }
        ScoredDocs r;
        for (const auto& c : n.children) {
          ScoredDocs x = Eval(*c, depth + 1);
          r = r.empty() ? std::move(x) : Unite(r, x);
        }
        return r;
      }
      case NodeKind::kNot: {
        if (n.children.empty()) {
          return All();
        }
        return Subtract(All(), Eval(*n.children[0], depth + 1));
      }
      case NodeKind::kOptional: {
        if (n.children.empty()) {
          return All();
        }
        return Boost(All(), Eval(*n.children[0], depth + 1));
      }
      case NodeKind::kTag: {
        const FieldIndex* f = TypedField(n, FieldType::kTag);
        if (f == nullptr || !f->tag) {
          return {};
        }
        return FromIds(f->tag->Match(n.tags), 1.0);
      }
      case NodeKind::kNumeric: {
        const FieldIndex* f = TypedField(n, FieldType::kNumeric);
        if (f == nullptr || !f->numeric) {
          return {};
        }
        return FromIds(f->numeric->Range(n.num_min, n.num_max, n.min_exclusive, n.max_exclusive),
                       1.0);
      }
      case NodeKind::kGeo: {
        const FieldIndex* f = TypedField(n, FieldType::kGeo);
        if (f == nullptr) {
          return {};
        }
        ScoredDocs r;
        for (DocId d = 0; d < f->geo_points.size(); d++) {
          for (const auto& [lon, lat] : f->geo_points[d]) {
            if (idx_.IsLive(d) && types::GeoDistance(lon, lat, n.lon, n.lat) <= n.radius_m) {
              r.push_back({d, 1.0});
              break;
            }
          }
        }
        return r;
      }
      case NodeKind::kVectorRange: {
        const FieldIndex* f = TypedField(n, FieldType::kVector);
        if (f == nullptr || !f->vector) {
          return {};
        }
        if (Status st = f->vector->CheckQueryBlob(n.vector_blob); !st.ok()) {
          error = st;
          return {};
        }
        std::vector<VectorMatch> m =
            f->vector->Range(n.vector_blob, n.vector_radius, n.vector_epsilon, nullptr,
                             &opt_.deadline);
        if (opt_.deadline.Expired()) {
          // RediSearch 2.10 fails a range search that ran out of time whatever ON_TIMEOUT
          // says (VecSim's timeout is an error of the vector iterator).
          error = Status::InvalidArgument("Timeout limit was reached");
          return {};
        }
        ScoredDocs r;
        r.reserve(m.size());
        std::unordered_map<DocId, float>* y = nullptr;
        if (!n.yield_distance_as.empty()) {
          yields.emplace_back(n.yield_distance_as, std::unordered_map<DocId, float>{});
          y = &yields.back().second;
        }
        for (const VectorMatch& v : m) {
          r.push_back({v.doc, 1.0});
          if (y != nullptr) {
            (*y)[v.doc] = v.distance;
          }
        }
        std::sort(r.begin(), r.end(), [](const ScoredDoc& a, const ScoredDoc& b) {
          return a.doc < b.doc;
        });
        return r;
      }
      case NodeKind::kIsMissing: {
        if (n.fields.empty()) {
          return {};
        }
        int fi = idx_.FieldIndexOf(n.fields[0]);
        if (fi < 0 || !idx_.fields()[fi].spec->index_missing) {
          error = Status::InvalidArgument(
              "'ismissing' requires field to be defined with 'INDEXMISSING', field: '" +
              n.fields[0] + "'");
          return {};
        }
        const auto& miss = idx_.fields()[fi].missing;
        ScoredDocs r;
        r.reserve(miss.size());
        for (DocId d : miss) {
          r.push_back({d, 1.0});
        }
        return r;
      }
    }
    return {};
  }

  const SearchIndex& idx_;
  const SearchOptions& opt_;
  uint64_t default_mask_ = 0;
  ScoredDocs all_;
  bool all_ready_ = false;
};

int CompareSort(const SortValue& a, const SortValue& b) {
  // Missing values last, numbers before strings.
  if (a.kind != b.kind) {
    if (a.kind == SortValue::Kind::kNone) {
      return 1;
    }
    if (b.kind == SortValue::Kind::kNone) {
      return -1;
    }
    return a.kind == SortValue::Kind::kNumber ? -1 : 1;
  }
  switch (a.kind) {
    case SortValue::Kind::kNone:
      return 0;
    case SortValue::Kind::kNumber:
      return a.num < b.num ? -1 : (a.num > b.num ? 1 : 0);
    case SortValue::Kind::kString:
      return a.str.compare(b.str) < 0 ? -1 : (a.str == b.str ? 0 : 1);
  }
  return 0;
}

}  // namespace

namespace {

constexpr uint64_t kPow10[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                               10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                               100000000000ull, 1000000000000ull, 10000000000000ull,
                               100000000000000ull, 1000000000000000ull,
                               10000000000000000ull};

// printf's %.12g for 1e-4 <= |d| < 1e12 (the fixed-point style), from d's exact binary
// value m * 2^e: the 12 significant digits are floor(m * 10^s / 2^-e) rounded half to
// even on the exact remainder, as glibc and to_chars round. ~150 instructions against
// to_chars' ~700 (10 per KNN reply). False where it does not apply (the caller falls
// back to to_chars): zero, not finite, outside the range.
bool FormatG12Fixed(double d, char* out, size_t* len) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  const bool neg = (bits >> 63) != 0;
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  const double a = neg ? -d : d;
  if (!(a >= 1e-4 && a < 1e12)) {  // NaN fails too
    return false;
  }
  // a = m * 2^-k exactly, 2^52 <= m < 2^53; k in [13, 67] over the range.
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int k = 1075 - exp;
  // X = floor(log10(a)): (exp - 1023) * log10(2) rounded down, then corrected so that
  // 10^11 <= floor(a * 10^(11 - X)) < 10^12.
  int x = static_cast<int>(std::floor((exp - 1023) * 0.30102999566398120));
  unsigned __int128 num = 0;
  uint64_t q = 0;
  for (int tries = 0; tries < 3; tries++) {
    const int s = 11 - x;
    if (s < 0 || s > 16) {
      return false;
    }
    num = static_cast<unsigned __int128>(m) * kPow10[s];
    q = static_cast<uint64_t>(num >> k);
    if (q < kPow10[11]) {
      x--;
    } else if (q >= kPow10[12]) {
      x++;
    } else {
      break;
    }
  }
  if (q < kPow10[11] || q >= kPow10[12]) {
    return false;
  }
  const unsigned __int128 rem = num - (static_cast<unsigned __int128>(q) << k);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (k - 1);
  if (rem > half || (rem == half && (q & 1) != 0)) {
    q++;
    if (q == kPow10[12]) {
      q = kPow10[11];
      x++;
    }
  }
  if (x < -4 || x > 11) {
    return false;  // the exponent style (below 1e-4, or 1e+12)
  }
  char digits[12];
  for (int i = 11; i >= 0; i--) {
    digits[i] = static_cast<char>('0' + q % 10);
    q /= 10;
  }
  int nd = 12;
  while (nd > 1 && digits[nd - 1] == '0') {
    nd--;
  }
  char* p = out;
  if (neg) {
    *p++ = '-';
  }
  if (x >= 0) {
    const int int_digits = x + 1;
    for (int i = 0; i < int_digits; i++) {
      *p++ = digits[i];
    }
    if (nd > int_digits) {
      *p++ = '.';
      for (int i = int_digits; i < nd; i++) {
        *p++ = digits[i];
      }
    }
  } else {
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -x - 1; i++) {
      *p++ = '0';
    }
    for (int i = 0; i < nd; i++) {
      *p++ = digits[i];
    }
  }
  *len = static_cast<size_t>(p - out);
  return true;
}

}  // namespace

std::string FormatDistance(double d) {
  // %.12g: the fixed-point range by integer arithmetic, the rest by to_chars with a
  // precision (printf's %.12g, without printf's cost).
  char buf[64];
  size_t n;
  if (FormatG12Fixed(d, buf, &n)) {
    return std::string(buf, n);
  }
  const std::to_chars_result r =
      std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::general, 12);
  return std::string(buf, r.ptr);
}

Result<SearchOutput> ExecuteSearch(const SearchIndex& index, const Query& query,
                                   const SearchOptions& options) {
  std::shared_lock lock(index.mutex());
  Executor ex(index, options);
  // A pure KNN query ("*=>[KNN ...]"): no filter set to build (every document would be
  // listed only to be dropped).
  const bool pure_knn = query.knn && query.root->kind == NodeKind::kMatchAll &&
                        options.inkeys.empty() && query.root->weight == 1.0;
  ScoredDocs docs = pure_knn ? ScoredDocs{} : ex.Eval(*query.root);
  if (!ex.error.ok()) {
    return ex.error;
  }
  const bool timed_out = options.deadline.Expired();
  if (timed_out && options.timeout_fail) {
    return Status::InvalidArgument("Timeout limit was reached");
  }
  if (!options.inkeys.empty()) {
    DocIds keep;
    for (const std::string& k : options.inkeys) {
      DocId d = index.DocOf(k);
      if (d != kNoDoc) {
        keep.push_back(d);
      }
    }
    std::sort(keep.begin(), keep.end());
    docs = Intersect(docs, FromIds(keep, 0));
  }
  // KNN: the k nearest among the filter's documents.
  std::string knn_name;
  // KNN distances by position in `docs` (both ordered by document id).
  std::vector<float> knn_dist;
  if (query.knn) {
    const KnnClause& k = *query.knn;
    int fi = index.FieldIndexOf(k.field);
    knn_name = k.score_alias.empty() ? "__" + k.field + "_score" : k.score_alias;
    if (fi < 0 || !index.fields()[fi].vector) {
      docs.clear();
    } else {
      const VectorField& vf = *index.fields()[fi].vector;
      if (Status st = vf.CheckQueryBlob(k.vector_blob); !st.ok()) {
        return st;
      }
      DocIds allowed;
      const bool filtered = !pure_knn && (k.has_filter || !options.inkeys.empty());
      if (filtered) {
        allowed.reserve(docs.size());
        for (const ScoredDoc& d : docs) {
          allowed.push_back(d.doc);
        }
      }
      std::vector<VectorMatch> m;
      if (!filtered || !allowed.empty()) {
        m = vf.Knn(k.vector_blob, k.k,
                   k.ef_runtime ? std::optional<uint32_t>(static_cast<uint32_t>(*k.ef_runtime))
                                : std::nullopt,
                   filtered ? &allowed : nullptr);
      }
      std::erase_if(m, [&](const VectorMatch& v) { return !index.IsLive(v.doc); });
      std::sort(m.begin(), m.end(),
                [](const VectorMatch& a, const VectorMatch& b) { return a.doc < b.doc; });
      docs.clear();
      docs.reserve(m.size());
      knn_dist.reserve(m.size());
      for (const VectorMatch& v : m) {
        docs.push_back({v.doc, 0.0});
        knn_dist.push_back(v.distance);
      }
    }
  }
  SearchOutput out;
  out.timed_out = timed_out;
  out.total = docs.size();
  // Order: SORTBY's field, else score (descending) then document id.
  int sort_field = -1;
  const std::unordered_map<DocId, float>* sort_dist = nullptr;
  bool sort_knn = false;
  if (!options.sortby.empty()) {
    if (query.knn && options.sortby == knn_name) {
      sort_knn = true;
    } else {
      for (const auto& [name, m] : ex.yields) {
        if (name == options.sortby) {
          sort_dist = &m;
        }
      }
      if (sort_dist == nullptr) {
        sort_field = index.FieldIndexOf(options.sortby);
        if (sort_field < 0) {
          return Status::InvalidArgument("Property `" + options.sortby +
                                         "` not loaded nor in schema");
        }
      }
    }
  }
  std::vector<size_t> order(docs.size());
  for (size_t i = 0; i < order.size(); i++) {
    order[i] = i;
  }
  const uint64_t want = options.limit > UINT64_MAX - options.offset
                            ? UINT64_MAX
                            : options.offset + options.limit;
  auto cmp = [&](size_t x, size_t y) {
    const ScoredDoc& a = docs[x];
    const ScoredDoc& b = docs[y];
    if (sort_knn) {
      const float da = knn_dist[x];
      const float db = knn_dist[y];
      if (da != db) {
        return options.sort_ascending ? da < db : da > db;
      }
      return a.doc < b.doc;
    }
    if (sort_dist != nullptr) {
      auto ia = sort_dist->find(a.doc), ib = sort_dist->find(b.doc);
      float da = ia == sort_dist->end() ? INFINITY : ia->second;
      float db = ib == sort_dist->end() ? INFINITY : ib->second;
      if (da != db) {
        return options.sort_ascending ? da < db : da > db;
      }
      return a.doc < b.doc;
    }
    if (sort_field >= 0) {
      int c = CompareSort(index.SortValueOf(a.doc, sort_field), index.SortValueOf(b.doc, sort_field));
      if (c != 0) {
        // Missing values stay last either way.
        const bool a_none = index.SortValueOf(a.doc, sort_field).kind == SortValue::Kind::kNone;
        const bool b_none = index.SortValueOf(b.doc, sort_field).kind == SortValue::Kind::kNone;
        if (a_none != b_none) {
          return b_none;
        }
        return options.sort_ascending ? c < 0 : c > 0;
      }
      return a.doc < b.doc;
    }
    if (a.score != b.score) {
      return a.score > b.score;
    }
    return a.doc < b.doc;
  };
  if (want < order.size()) {
    std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(want), order.end(), cmp);
    order.resize(want);
  } else {
    std::sort(order.begin(), order.end(), cmp);
  }
  if (order.size() > options.offset) {
    out.hits.reserve(order.size() - options.offset);
  }
  for (size_t i = options.offset; i < order.size(); i++) {
    const ScoredDoc& d = docs[order[i]];
    out.hits.emplace_back();
    SearchHit& h = out.hits.back();
    h.doc = d.doc;
    h.key = index.KeyOf(d.doc);
    h.score = d.score;
    if (options.want_yields) {
      h.yields.reserve((query.knn ? 1 : 0) + ex.yields.size());
      if (query.knn) {
        h.yields.emplace_back(knn_name, FormatDistance(knn_dist[order[i]]));
      }
      for (const auto& [name, m] : ex.yields) {
        auto it = m.find(d.doc);
        if (it != m.end()) {
          h.yields.emplace_back(name, FormatDistance(it->second));
        }
      }
    }
    if (options.want_sort_keys && sort_field >= 0) {
      h.sort_key = index.SortValueOf(d.doc, sort_field);
    }
  }
  if (options.want_matched_terms && !out.hits.empty()) {
    std::vector<DocId> page;
    for (const SearchHit& h : out.hits) {
      page.push_back(h.doc);
    }
    std::vector<std::vector<MatchedTerm>> terms(page.size());
    ex.MatchedTerms(*query.root, page, &terms);
    for (size_t i = 0; i < page.size(); i++) {
      out.hits[i].terms = std::move(terms[i]);
    }
  }
  return out;
}

}  // namespace hotkv::search

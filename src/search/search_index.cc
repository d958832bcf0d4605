#include "search/search_index.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>

#include "common/string_util.h"
#include "engine/entry.h"
#include "json/json_node.h"
#include "json/json_path.h"
#include "search/aggregate_expr.h"
#include "types/hash_value.h"

namespace hotkv::search {

namespace {

const SortValue kNoSortValue;

bool ParseGeo(std::string_view s, double* lon, double* lat) {
  size_t comma = s.find(',');
  if (comma == std::string_view::npos) {
    return false;
  }
  std::string_view a = s.substr(0, comma), b = s.substr(comma + 1);
  while (!a.empty() && a.back() == ' ') {
    a.remove_suffix(1);
  }
  while (!b.empty() && b.front() == ' ') {
    b.remove_prefix(1);
  }
  auto x = ParseDouble(a);
  auto y = ParseDouble(b);
  if (!x || !y || *x < -180 || *x > 180 || *y < -85.05112878 || *y > 85.05112878) {
    return false;
  }
  *lon = *x;
  *lat = *y;
  return true;
}

// Numbers in documents: what strtod accepts for RediSearch (no trailing garbage).
std::optional<double> ParseNumber(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  if (s.empty()) {
    return std::nullopt;
  }
  auto v = ParseDouble(s);
  if (!v || std::isnan(*v)) {
    return std::nullopt;
  }
  return v;
}

// A JSON scalar as text (strings unquoted).
std::string ScalarText(const json::Node& n) {
  if (n.is_string()) {
    return std::string(n.str());
  }
  return json::ToJson(n);
}

}  // namespace

SearchIndex::SearchIndex(IndexSpec spec) : spec_(std::move(spec)) {}
SearchIndex::~SearchIndex() = default;

Result<std::shared_ptr<SearchIndex>> SearchIndex::Create(IndexSpec spec) {
  std::shared_ptr<SearchIndex> idx(new SearchIndex(std::move(spec)));
  std::vector<std::string> stop = idx->spec_.stopwords ? *idx->spec_.stopwords : DefaultStopWords();
  idx->analyzer_ = std::make_unique<Analyzer>(idx->spec_.language, std::move(stop));
  idx->text_ = std::make_unique<TextIndex>(idx->analyzer_.get(), !idx->spec_.no_offsets);
  if (Status st = idx->Build(0); !st.ok()) {
    return st;
  }
  if (!idx->spec_.filter.empty()) {
    Result<std::unique_ptr<Expr>> e = ParseExpr(idx->spec_.filter);
    if (!e.ok()) {
      return e.status();
    }
    idx->filter_ = std::move(*e);
    idx->filter_->CollectProperties(&idx->filter_props_);
    std::vector<std::string>& props = idx->filter_props_;
    idx->filter_->ResolveProperties([&props](const std::string& n) {
      for (size_t i = 0; i < props.size(); i++) {
        if (props[i] == n) {
          return static_cast<int>(i);
        }
      }
      return -1;
    });
  }
  return idx;
}

Status SearchIndex::Build(size_t first) {
  int text_bits = 0;
  for (size_t i = 0; i < first; i++) {
    if (fields_[i].text_bit >= 0) {
      text_bits = fields_[i].text_bit + 1;
    }
  }
  // fields_ holds pointers into spec_.fields: re-point all of them (the vector may have
  // been reallocated by AlterSchema).
  fields_.resize(spec_.fields.size());
  for (size_t i = 0; i < spec_.fields.size(); i++) {
    fields_[i].spec = &spec_.fields[i];
  }
  for (size_t i = first; i < spec_.fields.size(); i++) {
    const FieldSpec& f = spec_.fields[i];
    FieldIndex& fi = fields_[i];
    switch (f.type) {
      case FieldType::kText:
        if (text_bits >= 64) {
          return Status::InvalidArgument("Too many TEXT fields in schema");
        }
        fi.text_bit = text_bits++;
        all_text_mask_ |= uint64_t{1} << fi.text_bit;
        break;
      case FieldType::kTag:
        fi.tag = std::make_unique<TagIndex>(f.separator, f.case_sensitive);
        break;
      case FieldType::kNumeric:
        fi.numeric = std::make_unique<NumericIndex>();
        break;
      case FieldType::kVector:
        fi.vector = std::make_unique<VectorField>(f.vector);
        break;
      case FieldType::kGeo:
      case FieldType::kGeoShape:
        break;
    }
    if (spec_.on == SourceType::kJson) {
      Result<json::Path> p = json::Path::Compile(f.path);
      if (!p.ok()) {
        return Status::InvalidArgument("Invalid JSONPath '" + f.path + "'");
      }
      fi.json_path = std::make_shared<json::Path>(std::move(*p));
    }
  }
  std::vector<std::string> names_by_bit(static_cast<size_t>(text_bits));
  uint64_t stemmed_mask = 0;
  for (const FieldIndex& fi : fields_) {
    if (fi.text_bit >= 0) {
      names_by_bit[fi.text_bit] = fi.spec->name;
      if (!fi.spec->nostem) stemmed_mask |= uint64_t{1} << fi.text_bit;
    }
  }
  text_->SetFieldNames(std::move(names_by_bit));
  text_->SetStemmedFields(stemmed_mask);
  for (DocInfo& d : docs_) {
    d.sort.resize(fields_.size());
  }
  return Status::Ok();
}

Status SearchIndex::AlterSchema(IndexSpec spec) {
  std::unique_lock lock(mu_);
  size_t first = spec_.fields.size();
  spec_ = std::move(spec);
  return Build(first);
}

bool SearchIndex::MatchesPrefix(std::string_view key) const {
  if (spec_.prefixes.empty()) {
    return true;
  }
  for (const std::string& p : spec_.prefixes) {
    if (key.substr(0, p.size()) == p) {
      return true;
    }
  }
  return false;
}

DocId SearchIndex::DocOf(std::string_view key) const {
  auto it = by_key_.find(std::string(key));
  return it == by_key_.end() ? kNoDoc : it->second;
}

DocIds SearchIndex::AllDocs() const {
  DocIds out;
  out.reserve(num_docs_);
  for (DocId d = 0; d < docs_.size(); d++) {
    if (docs_[d].live) {
      out.push_back(d);
    }
  }
  return out;
}

int SearchIndex::FieldIndexOf(std::string_view name) const {
  for (size_t i = 0; i < spec_.fields.size(); i++) {
    if (spec_.fields[i].name == name) {
      return static_cast<int>(i);
    }
  }
  if (spec_.on == SourceType::kJson) {
    for (size_t i = 0; i < spec_.fields.size(); i++) {
      if (spec_.fields[i].path == name) {
        return static_cast<int>(i);
      }
    }
  }
  return -1;
}

const SortValue& SearchIndex::SortValueOf(DocId d, int field) const {
  if (d >= docs_.size() || field < 0 || static_cast<size_t>(field) >= docs_[d].sort.size()) {
    return kNoSortValue;
  }
  return docs_[d].sort[field];
}

DocId SearchIndex::Allocate(std::string_view key) {
  DocId d;
  if (!free_ids_.empty()) {
    d = free_ids_.back();
    free_ids_.pop_back();
  } else {
    d = static_cast<DocId>(docs_.size());
    docs_.emplace_back();
  }
  DocInfo& info = docs_[d];
  info.key.assign(key);
  info.live = true;
  info.score = spec_.score;
  info.sort.assign(fields_.size(), SortValue{});
  by_key_.emplace(info.key, d);
  num_docs_++;
  return d;
}

size_t SearchIndex::RecordsOf(DocId d) const {
  size_t n = text_->DocRecords(d);
  for (const FieldIndex& fi : fields_) {
    if (fi.tag) {
      n += fi.tag->ValuesOf(d).size();
    }
    if (fi.numeric) {
      n += fi.numeric->ValuesOf(d).size();
    }
    if (d < fi.geo_points.size()) {
      n += fi.geo_points[d].size();
    }
  }
  return n;
}

void SearchIndex::NoteRemoved(DocId d) {
  const size_t n = RecordsOf(d);
  live_records_ -= std::min<uint64_t>(live_records_, n);
  stale_records_ += n;
  removed_since_gc_++;
}

void SearchIndex::MaybeCollect() {
  if (removed_since_gc_ >= kGcCleanThreshold) {
    stale_records_ = 0;
    removed_since_gc_ = 0;
    text_->ForgetRemovedTerms();
  }
}

void SearchIndex::ClearFieldsLocked(DocId d, bool keep_vectors) {
  text_->Remove(d);
  for (FieldIndex& fi : fields_) {
    if (fi.tag) {
      fi.tag->Remove(d);
    }
    if (fi.numeric) {
      fi.numeric->Remove(d);
    }
    if (fi.vector && !keep_vectors) {
      fi.vector->Remove(d);
    }
    if (d < fi.geo_points.size()) {
      fi.geo_points[d].clear();
    }
    fi.missing.erase(d);
  }
}

void SearchIndex::RemoveLocked(DocId d, bool counted) {
  DocInfo& info = docs_[d];
  if (!info.live) {
    return;
  }
  if (counted) {
    NoteRemoved(d);
  }
  ClearFieldsLocked(d, /*keep_vectors=*/false);
  by_key_.erase(info.key);
  info.live = false;
  info.key.clear();
  info.key.shrink_to_fit();
  info.sort.clear();
  free_ids_.push_back(d);
  num_docs_--;
}

void SearchIndex::Remove(std::string_view key) {
  std::unique_lock lock(mu_);
  auto it = by_key_.find(std::string(key));
  if (it != by_key_.end()) {
    RemoveLocked(it->second);
    MaybeCollect();
  }
}

void SearchIndex::Clear() {
  std::unique_lock lock(mu_);
  for (DocId d = 0; d < docs_.size(); d++) {
    RemoveLocked(d);
  }
  // FLUSHALL empties the index as a new one (RediSearch recreates it).
  max_doc_id_ = 0;
  live_records_ = 0;
  stale_records_ = 0;
  removed_since_gc_ = 0;
  text_->ForgetRemovedTerms();
}

void SearchIndex::Sync(std::string_view key, const Entry* e, int64_t now_ms) {
  const ValueType want = spec_.on == SourceType::kHash ? ValueType::kHash : ValueType::kJson;
  const bool wanted = e != nullptr && e->type() == want && MatchesPrefix(key);
  std::vector<PendingVector> vectors;
  std::vector<VectorField*> dropped;  // vector fields the updated document no longer has
  DocId d;
  bool update;
  const bool passes = wanted && (filter_ == nullptr || PassesFilter(key, e, now_ms));
  {
    std::unique_lock lock(mu_);
    auto it = by_key_.find(std::string(key));
    update = it != by_key_.end();
    if (!wanted || !passes) {
      if (update) {
        RemoveLocked(it->second);
        MaybeCollect();
      }
      return;
    }
    if (update) {
      // Re-indexed under the same DocId: its text, tag, numeric and geo entries are
      // rebuilt (cheap), its vectors stay in place and are stored again below only when
      // they changed (an HNSW re-insertion costs a graph search). RediSearch gives the
      // document a new id and leaves the old records until its GC runs: the counters
      // below follow that.
      d = it->second;
      NoteRemoved(d);
      ClearFieldsLocked(d, /*keep_vectors=*/true);
      DocInfo& info = docs_[d];
      info.score = spec_.score;
      info.sort.assign(fields_.size(), SortValue{});
    } else {
      d = Allocate(key);
    }
    if (!IndexEntry(d, e, now_ms, &vectors)) {
      RemoveLocked(d, /*counted=*/false);
      failures_++;
      MaybeCollect();
      return;
    }
    max_doc_id_++;
    live_records_ += RecordsOf(d);
    total_indexed_++;
    MaybeCollect();
    if (update) {
      for (FieldIndex& fi : fields_) {
        if (fi.vector && std::none_of(vectors.begin(), vectors.end(), [&](const PendingVector& pv) {
              return pv.field == fi.vector.get();
            })) {
          dropped.push_back(fi.vector.get());
        }
      }
    }
    if (vectors.empty() && dropped.empty()) {
      return;
    }
  }
  // Vectors (sizes checked above) are stored with only the key's shard locked, so
  // searches and other keys' indexing go on meanwhile (an unchanged vector costs a
  // comparison: the engines skip it). The key cannot change under us (its shard is
  // locked); a FLUSHALL's Clear (which may run without shard locks) can: then the
  // vector is taken out again.
  for (VectorField* f : dropped) {
    f->Remove(d);
  }
  for (PendingVector& pv : vectors) {
    if (update && (pv.from_floats ? pv.field->HoldsFloats(d, pv.floats) : pv.field->Holds(d, pv.blob.view()))) {
      continue;  // Unchanged.
    }
    Status st = pv.from_floats ? pv.field->SetFromFloats(d, pv.floats) : pv.field->Set(d, pv.blob.view());
    if (!st.ok() && update) {
      pv.field->Remove(d);  // Not storable (a NaN): the old vector must not stay.
    }
  }
  std::shared_lock lock(mu_);
  if (!(d < docs_.size() && docs_[d].live && docs_[d].key == key)) {
    for (PendingVector& pv : vectors) {
      pv.field->Remove(d);
    }
  }
}

bool SearchIndex::PassesFilter(std::string_view key, const Entry* e, int64_t now_ms) const {
  RowValues row(filter_props_.size());
  const bool is_json = spec_.on == SourceType::kJson;
  for (size_t i = 0; i < filter_props_.size(); i++) {
    const std::string& name = filter_props_[i];
    if (name == "__key") {
      row[i] = Value::String(std::string(key));
      continue;
    }
    if (!is_json) {
      const auto* hash = e->As<types::HashValue>();
      int fi = FieldIndexOf(name);
      std::string_view field = fi >= 0 ? std::string_view(spec_.fields[fi].path) : name;
      auto v = hash->Get(field);
      if (v && !(hash->HasFieldTtls() && hash->IsExpired(field, now_ms))) {
        row[i] = Value::String(v->ToString());
      }
    } else {
      int fi = FieldIndexOf(name);
      if (fi < 0 || !fields_[fi].json_path) {
        continue;
      }
      json::Node* root = e->As<json::Node>();
      root->EnsureTree();
      std::vector<json::Match> m = json::Select(*fields_[fi].json_path, *root);
      if (!m.empty()) {
        const json::Node& n = *m[0].node;
        if (n.is_number()) {
          row[i] = Value::Number(n.number());
        } else if (!n.is_null()) {
          row[i] = Value::String(ScalarText(n));
        }
      }
    }
  }
  Result<Value> v = filter_->Eval(row);
  return v.ok() && v->Truthy();
}

bool SearchIndex::IndexEntry(DocId d, const Entry* e, int64_t now_ms,
                             std::vector<PendingVector>* vectors) {
  DocInfo& info = docs_[d];
  std::vector<TextFieldValue> texts;
  std::vector<std::string> text_storage;  // JSON: joined strings the views point into
  text_storage.reserve(fields_.size());
  const bool is_json = spec_.on == SourceType::kJson;
  const types::HashValue* hash = is_json ? nullptr : e->As<types::HashValue>();
  json::Node* root = is_json ? e->As<json::Node>() : nullptr;
  if (root != nullptr) {
    root->EnsureTree();
  }
  std::vector<std::optional<types::Element>> hash_values;
  for (size_t i = 0; i < fields_.size(); i++) {
    FieldIndex& fi = fields_[i];
    const FieldSpec& f = *fi.spec;
    SortValue& sv = info.sort[i];
    // The field's values: for a hash one string; for JSON the matched nodes.
    std::optional<std::string_view> hv;
    std::optional<types::Element> elem;
    std::vector<const json::Node*> nodes;
    bool present = false;
    if (hash != nullptr) {
      elem = hash->Get(f.path);
      if (elem && hash->HasFieldTtls() && hash->IsExpired(f.path, now_ms)) {
        elem.reset();
      }
      if (elem) {
        hv = elem->view();
        present = true;
      }
    } else {
      for (const json::Match& m : json::Select(*fi.json_path, *root)) {
        if (!m.node->is_null()) {
          nodes.push_back(m.node);
        }
      }
      present = !nodes.empty();
    }
    if (!present) {
      if (f.index_missing) {
        fi.missing.insert(d);
      }
      continue;
    }
    if (f.noindex && f.type != FieldType::kVector) {
      // Sortable only: keep the sort value.
    }
    switch (f.type) {
      case FieldType::kText: {
        std::string_view text;
        if (hv) {
          text = *hv;
        } else {
          std::string joined;
          for (const json::Node* n : nodes) {
            if (n->is_array()) {
              for (const json::Node& c : n->array()) {
                if (c.is_string()) {
                  joined += c.str();
                  joined += ' ';
                }
              }
            } else if (n->is_string()) {
              joined += n->str();
              joined += ' ';
            } else {
              return false;
            }
          }
          text_storage.push_back(std::move(joined));
          text = text_storage.back();
        }
        sv.kind = SortValue::Kind::kString;
        sv.str = f.unf ? std::string(text) : FoldTag(text);
        if (!f.noindex) {
          texts.push_back(TextFieldValue{fi.text_bit, f.weight, f.nostem, text});
        }
        break;
      }
      case FieldType::kTag: {
        std::vector<std::string> values;
        if (hv) {
          values = fi.tag->Split(*hv, f.index_empty);
          sv.kind = SortValue::Kind::kString;
          sv.str = f.unf ? std::string(*hv) : FoldTag(*hv);
        } else {
          for (const json::Node* n : nodes) {
            if (n->is_array()) {
              for (const json::Node& c : n->array()) {
                if (c.is_string() || c.is_bool() || c.is_number()) {
                  std::string v = fi.tag->Normalize(ScalarText(c));
                  if (!v.empty() || f.index_empty) {
                    values.push_back(std::move(v));
                  }
                } else if (!c.is_null()) {
                  return false;
                }
              }
            } else if (n->is_string()) {
              for (std::string& v : fi.tag->Split(n->str(), f.index_empty)) {
                values.push_back(std::move(v));
              }
            } else if (n->is_bool() || n->is_number()) {
              values.push_back(fi.tag->Normalize(ScalarText(*n)));
            } else {
              return false;
            }
          }
          if (!nodes.empty() && nodes[0]->is_string()) {
            sv.kind = SortValue::Kind::kString;
            sv.str = FoldTag(nodes[0]->str());
          }
        }
        if (!f.noindex) {
          fi.tag->Set(d, std::move(values));
        }
        break;
      }
      case FieldType::kNumeric: {
        std::vector<double> nums;
        if (hv) {
          auto v = ParseNumber(*hv);
          if (!v) {
            return false;
          }
          nums.push_back(*v);
        } else {
          for (const json::Node* n : nodes) {
            if (n->is_number()) {
              nums.push_back(n->number());
            } else if (n->is_array()) {
              for (const json::Node& c : n->array()) {
                if (c.is_number()) {
                  nums.push_back(c.number());
                } else if (!c.is_null()) {
                  return false;
                }
              }
            } else {
              return false;
            }
          }
        }
        if (!nums.empty()) {
          sv.kind = SortValue::Kind::kNumber;
          sv.num = nums[0];
        }
        if (!f.noindex) {
          fi.numeric->Set(d, std::move(nums));
        }
        break;
      }
      case FieldType::kGeo:
      case FieldType::kGeoShape: {
        std::vector<std::pair<double, double>> pts;
        auto add = [&](std::string_view s) {
          double lon, lat;
          if (!ParseGeo(s, &lon, &lat)) {
            return false;
          }
          pts.emplace_back(lon, lat);
          return true;
        };
        if (hv) {
          if (!add(*hv)) {
            return false;
          }
        } else {
          for (const json::Node* n : nodes) {
            if (n->is_string()) {
              if (!add(n->str())) {
                return false;
              }
            } else if (n->is_array()) {
              for (const json::Node& c : n->array()) {
                if (!c.is_string() || !add(c.str())) {
                  return false;
                }
              }
            } else {
              return false;
            }
          }
        }
        if (fi.geo_points.size() <= d) {
          fi.geo_points.resize(d + 1);
        }
        fi.geo_points[d] = std::move(pts);
        break;
      }
      case FieldType::kVector: {
        if (hv) {
          if (!fi.vector->CheckQueryBlob(*hv).ok()) {
            return false;
          }
          vectors->push_back(PendingVector{fi.vector.get(), *elem, {}, false});
        } else {
          std::vector<float> vals;
          for (const json::Node* n : nodes) {
            if (n->is_array()) {
              for (const json::Node& c : n->array()) {
                if (!c.is_number()) {
                  return false;
                }
                vals.push_back(static_cast<float>(c.number()));
              }
            } else if (n->is_number()) {
              vals.push_back(static_cast<float>(n->number()));
            } else {
              return false;
            }
          }
          if (vals.size() != f.vector.dim) {
            return false;
          }
          vectors->push_back(
              PendingVector{fi.vector.get(), types::Element(std::string_view()), std::move(vals), true});
        }
        break;
      }
    }
  }
  if (!spec_.score_field.empty() && hash != nullptr) {
    // RediSearch 2.10 takes any number (no 0..1 check for the field); a negative score
    // ranks as 0; anything else is the default.
    if (auto s = hash->Get(spec_.score_field); s && !s->view().empty() &&
                                               !std::isspace(static_cast<unsigned char>(s->view()[0]))) {
      if (auto v = ParseNumber(s->view())) {
        info.score = std::max(*v, 0.0);
      }
    }
  }
  const Analyzer* stemmer = nullptr;
  if (!spec_.language_field.empty() && hash != nullptr && !texts.empty()) {
    // A known language stems the document's words; an unknown one is the index's.
    if (auto s = hash->Get(spec_.language_field)) {
      std::string lang = ToLower(std::string(s->view()));
      if (lang != spec_.language && IsLanguage(lang)) {
        auto it = lang_analyzers_.find(lang);
        if (it == lang_analyzers_.end()) {
          std::vector<std::string> stop =
              spec_.stopwords ? *spec_.stopwords : DefaultStopWords();
          it = lang_analyzers_.emplace(lang, std::make_unique<Analyzer>(lang, std::move(stop))).first;
        }
        stemmer = it->second.get();
      }
    }
  }
  if (!texts.empty()) {
    text_->Add(d, texts, stemmer);
    if (info.score != 1.0) {
      text_->SetDocScore(d, info.score);
    }
  }
  return true;
}

IndexStats SearchIndex::Stats() const {
  IndexStats s;
  s.num_docs = num_docs_;
  s.max_doc_id = max_doc_id_;
  TextIndexStats ts = text_->Stats();
  s.num_terms = ts.num_terms + ts.removed_terms;
  s.num_records = live_records_ + stale_records_;
  s.indexing_failures = failures_;
  s.total_indexed = total_indexed_;
  s.text_bytes = text_->MemoryBytes();
  for (const FieldIndex& fi : fields_) {
    if (fi.tag) {
      s.tag_values += fi.tag->num_values();
      s.memory_bytes += fi.tag->MemoryBytes();
    }
    if (fi.numeric) {
      s.memory_bytes += fi.numeric->MemoryBytes();
    }
    if (fi.vector) {
      s.vector_bytes += fi.vector->Info().memory_bytes;
    }
  }
  s.memory_bytes += s.text_bytes + s.vector_bytes + docs_.size() * sizeof(DocInfo);
  return s;
}

}  // namespace hotkv::search

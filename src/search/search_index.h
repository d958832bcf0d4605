// SearchIndex: one FT.CREATE index at run time — its spec, the table of documents it
// holds (DocId <-> key, ids of removed documents reused), and one structure per schema
// field: TAG -> TagIndex, NUMERIC -> NumericIndex, GEO -> points per document, TEXT ->
// the index's TextIndex (one per index, a field bit per TEXT field), VECTOR ->
// VectorField; INDEXMISSING fields keep the documents lacking them; every field keeps a
// sort value per document (SORTBY).
//
// Documents come from hashes (ON HASH: field values as strings) or JSON documents (ON
// JSON: each field's JSONPath; arrays give several tags / numbers, a numeric array a
// vector). A document that fails to index (a NUMERIC value that is no number, a vector of
// the wrong size) is left out of the index, as RediSearch does, and counted.
//
// Only database 0 is indexed (as RediSearch). Sync() is called with the key's shard
// locked (the keyspace observer, the initial scan), so a write is searchable when it
// returns.
//
// Thread safety: mutex() is exclusive for Sync/Remove/Clear (they take it) and shared for
// queries (the caller takes it: ExecuteSearch does). Lock order: shard lock -> index
// lock; never take a shard lock while holding an index lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "search/index_spec.h"
#include "search/numeric_index.h"
#include "search/search_types.h"
#include "search/tag_index.h"
#include "search/text_index.h"
#include "search/vector_field.h"
#include "types/element.h"

namespace hotkv {
class Entry;
namespace json {
class Path;
}
}  // namespace hotkv

namespace hotkv::search {

struct Expr;

// A document's value of one field for SORTBY (numbers sort before strings, missing last).
struct SortValue {
  enum class Kind : uint8_t { kNone, kNumber, kString } kind = Kind::kNone;
  double num = 0;
  std::string str;
};

// One schema field's index structures (only those of its type are set).
struct FieldIndex {
  const FieldSpec* spec = nullptr;  // into SearchIndex::spec().fields
  int text_bit = -1;                // TEXT: its bit in TextIndex field masks
  std::unique_ptr<TagIndex> tag;
  std::unique_ptr<NumericIndex> numeric;
  std::vector<std::vector<std::pair<double, double>>> geo_points;  // GEO: (lon, lat) by DocId
  std::unique_ptr<VectorField> vector;
  std::set<DocId> missing;  // INDEXMISSING: documents without the field
  std::shared_ptr<json::Path> json_path;  // ON JSON
};

struct IndexStats {
  uint64_t num_docs = 0;
  uint64_t max_doc_id = 0;
  uint64_t num_terms = 0;
  uint64_t num_records = 0;
  uint64_t indexing_failures = 0;
  uint64_t total_indexed = 0;  // Sync calls that indexed a document
  uint64_t memory_bytes = 0;
  uint64_t tag_values = 0;
  uint64_t vector_bytes = 0;
  uint64_t text_bytes = 0;
};

class SearchIndex {
 public:
  // Builds the field structures (compiles JSON paths: an invalid path is an error).
  static Result<std::shared_ptr<SearchIndex>> Create(IndexSpec spec);
  ~SearchIndex();

  const IndexSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  // TEMPORARY s: the index drops itself s seconds after its creation or its last use
  // (a search, an aggregation, FT.INFO: what finds it by name; writes do not count).
  bool temporary() const { return spec_.temporary_seconds.has_value(); }
  void Touch() const { last_use_ms_.store(MonotonicUs() / 1000, std::memory_order_relaxed); }
  bool TemporaryExpired(int64_t now_ms) const {
    return temporary() &&
           now_ms - last_use_ms_.load(std::memory_order_relaxed) > *spec_.temporary_seconds * 1000;
  }
  // Whether `key` falls under the PREFIX list (no prefix: every key).
  bool MatchesPrefix(std::string_view key) const;

  // ---- Indexing (the key's shard locked; takes the exclusive lock) ----
  // (Re)indexes `key` from its value `e` (a live entry of database 0, or null when the key
  // is gone: removed). An entry of the wrong type, or outside the prefixes, is removed.
  void Sync(std::string_view key, const Entry* e, int64_t now_ms);
  void Remove(std::string_view key);
  void Clear();
  // FT.ALTER ... SCHEMA ADD: `spec` with the new fields appended (the caller then scans
  // the keyspace again). The structures of the existing fields are kept.
  Status AlterSchema(IndexSpec spec);

  // ---- Queries (the caller holds mutex() shared) ----
  std::shared_mutex& mutex() const { return mu_; }
  size_t num_docs() const { return num_docs_; }
  DocId doc_limit() const { return static_cast<DocId>(docs_.size()); }  // ids are < this
  bool IsLive(DocId d) const { return d < docs_.size() && docs_[d].live; }
  const std::string& KeyOf(DocId d) const { return docs_[d].key; }
  DocId DocOf(std::string_view key) const;  // kNoDoc when not indexed
  DocIds AllDocs() const;
  double DocScore(DocId d) const { return docs_[d].score; }
  // The schema field named `name` (its AS name; for ON JSON also its path): its position
  // in fields(), or -1.
  int FieldIndexOf(std::string_view name) const;
  const std::vector<FieldIndex>& fields() const { return fields_; }
  const SortValue& SortValueOf(DocId d, int field) const;
  const TextIndex& text() const { return *text_; }
  const Analyzer& analyzer() const { return *analyzer_; }
  uint64_t all_text_mask() const { return all_text_mask_; }
  IndexStats Stats() const;

  // Initial scan progress (FT.INFO indexing / percent_indexed).
  std::atomic<bool> indexing{false};
  std::atomic<double> percent_indexed{1.0};

 private:
  explicit SearchIndex(IndexSpec spec);
  Status Build(size_t first_field);
  struct DocInfo {
    std::string key;
    bool live = false;
    double score = 1.0;
    std::vector<SortValue> sort;  // by field position
  };
  // Takes the document out of every structure (`counted`: its records were counted in
  // live_records_, i.e. it was indexed successfully).
  void RemoveLocked(DocId d, bool counted = true);
  // Takes the document out of the field structures (not the doc table); vectors stay
  // when `keep_vectors` (an update stores them again only if they changed).
  void ClearFieldsLocked(DocId d, bool keep_vectors);
  // The document's index records as RediSearch counts them (num_records): text
  // postings, tag values, numbers and geo points (vectors are not records).
  size_t RecordsOf(DocId d) const;
  // RediSearch's doc table and GC, for FT.INFO: a removed or re-indexed document's
  // records (and terms) stay counted until its fork GC has seen FORK_GC_CLEAN_THRESHOLD
  // (100) removed documents; here that happens at once when the threshold is reached.
  void NoteRemoved(DocId d);
  void MaybeCollect();
  static constexpr uint64_t kGcCleanThreshold = 100;
  DocId Allocate(std::string_view key);
  // A vector to store after the exclusive lock is released (an HNSW insert takes long;
  // VectorField is thread-safe). A hash field's blob is the hash's own element (a view
  // into the entry, which cannot change while Sync runs: the key's shard is locked), not
  // a copy; a JSON document's numbers are converted to floats.
  struct PendingVector {
    VectorField* field;
    types::Element blob;
    std::vector<float> floats;
    bool from_floats = false;
  };
  // Indexes doc `d` from the entry; false: an indexing failure (nothing indexed).
  bool IndexEntry(DocId d, const Entry* e, int64_t now_ms, std::vector<PendingVector>* vectors);

  // FT.CREATE ... FILTER: documents for which it is false are not indexed.
  bool PassesFilter(std::string_view key, const Entry* e, int64_t now_ms) const;
  std::unique_ptr<Expr> filter_;
  std::vector<std::string> filter_props_;

  IndexSpec spec_;
  mutable std::shared_mutex mu_;
  std::unique_ptr<Analyzer> analyzer_;
  mutable std::atomic<int64_t> last_use_ms_{0};  // TEMPORARY: monotonic ms
  // LANGUAGE_FIELD: analyzers of the documents' own languages (under the exclusive lock).
  std::unordered_map<std::string, std::unique_ptr<Analyzer>> lang_analyzers_;
  std::unique_ptr<TextIndex> text_;
  uint64_t all_text_mask_ = 0;
  std::vector<FieldIndex> fields_;
  std::vector<DocInfo> docs_;
  std::vector<DocId> free_ids_;
  std::unordered_map<std::string, DocId> by_key_;
  size_t num_docs_ = 0;
  uint64_t failures_ = 0;
  uint64_t total_indexed_ = 0;
  // FT.INFO as RediSearch 2.10: every (re-)indexing takes a new doc id (max_doc_id);
  // records of live documents, and of removed ones not yet collected.
  uint64_t max_doc_id_ = 0;
  uint64_t live_records_ = 0;
  uint64_t stale_records_ = 0;
  uint64_t removed_since_gc_ = 0;
};

}  // namespace hotkv::search

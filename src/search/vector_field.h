// A VECTOR field of a search index: FLAT (exact) or HNSW (vector/'s HnswIndex) storage of
// one vector per document, KNN with an optional pre-filter, and range queries.
//
// Distances are reported as RediSearch does: L2 -> squared Euclidean distance, IP ->
// 1 - dot product, COSINE -> 1 - cosine similarity.
//
// Thread safety: every method may be called from any thread concurrently (searches
// run under the search index's shared lock; Set/Remove may run outside it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "search/index_spec.h"
#include "search/search_types.h"

namespace hotkv::search {

struct VectorMatch {
  DocId doc;
  float distance;
};

struct VectorFieldInfo {
  uint64_t num_vectors = 0;
  uint64_t memory_bytes = 0;
  // FT.INFO's per-field attribute list ("algorithm", "data_type", "dim",
  // "distance_metric", "M", "ef_construction", ...), as name/value strings.
  std::vector<std::pair<std::string, std::string>> attributes;
  // Whether FT.INFO replies the attribute's value as an integer ("dim", "M",
  // "ef_construction"); the others are simple strings.
  static bool IsIntegerAttribute(std::string_view name);
};

class VectorField {
 public:
  explicit VectorField(const VectorFieldOptions& options);
  ~VectorField();
  // Stores the document's vector: `blob` holds dim values of the field's TYPE. A blob of
  // the wrong size is an error (the document is then not indexed in this field).
  Status Set(DocId doc, std::string_view blob);
  // From a JSON array of numbers (ON JSON documents).
  Status SetFromFloats(DocId doc, const std::vector<float>& values);
  void Remove(DocId doc);
  // Whether the document's stored vector is what Set(doc, blob) / SetFromFloats(doc,
  // values) would store (then an update need not store it again: an HNSW re-insertion
  // costs a graph search).
  bool Holds(DocId doc, std::string_view blob) const;
  bool HoldsFloats(DocId doc, const std::vector<float>& values) const;
  // Vectors stored so far (Set / SetFromFloats calls that reached the storage).
  uint64_t writes() const;
  // Validates a query blob (size = dim * sizeof(TYPE)).
  Status CheckQueryBlob(std::string_view blob) const;
  // The k nearest documents, closest first. `allowed`, when given, is the sorted set of
  // documents the pre-filter matched: only those are returned, and recall stays high
  // however selective the filter is (small sets are searched exactly).
  std::vector<VectorMatch> Knn(std::string_view query_blob, size_t k,
                               std::optional<uint32_t> ef_runtime, const DocIds* allowed) const;
  // Every document within `radius` (a distance as above), closest first. `deadline`
  // (TIMEOUT), when it passes, stops the search: the documents found so far come back.
  std::vector<VectorMatch> Range(std::string_view query_blob, double radius,
                                 std::optional<double> epsilon, const DocIds* allowed,
                                 const Deadline* deadline = nullptr) const;
  VectorFieldInfo Info() const;
  const VectorFieldOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hotkv::search

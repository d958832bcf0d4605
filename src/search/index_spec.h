// The definition of a search index: what FT.CREATE (and FT.ALTER ... SCHEMA ADD) parse
// into, what FT.INFO reports, and what the AOF / RDB keep to rebuild the index.
//
// Pure data; ParseCreateArgs (index_spec_parser.cc) builds it from the FT.CREATE
// arguments with RediSearch's error texts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hotkv::search {

enum class SourceType { kHash, kJson };
enum class FieldType { kText, kTag, kNumeric, kGeo, kVector, kGeoShape };

enum class VectorAlgo { kFlat, kHnsw };
enum class VectorType { kFloat32, kFloat64, kFloat16, kBFloat16 };
enum class VectorMetric { kL2, kIp, kCosine };

struct VectorFieldOptions {
  VectorAlgo algo = VectorAlgo::kHnsw;
  VectorType type = VectorType::kFloat32;
  uint32_t dim = 0;
  VectorMetric metric = VectorMetric::kL2;
  uint32_t m = 16;
  uint32_t ef_construction = 200;
  uint32_t ef_runtime = 10;
  double epsilon = 0.01;
  uint64_t initial_cap = 0;
  uint64_t block_size = 1024;
  // Bytes of one vector in the documents: dim * sizeof(type).
  size_t blob_bytes() const;
};

struct FieldSpec {
  std::string path;        // hash field name, or JSONPath ("$.a.b") for ON JSON
  std::string name;        // AS alias, else = path
  FieldType type = FieldType::kText;
  bool sortable = false;
  bool unf = false;        // SORTABLE UNF
  bool noindex = false;
  bool index_missing = false;  // INDEXMISSING
  bool index_empty = false;    // INDEXEMPTY
  // TEXT
  double weight = 1.0;
  bool nostem = false;
  bool with_suffix_trie = false;
  std::string phonetic;    // PHONETIC matcher, accepted and reported
  // TAG
  char separator = ',';
  bool case_sensitive = false;
  // VECTOR
  VectorFieldOptions vector;
};

struct IndexSpec {
  std::string name;
  SourceType on = SourceType::kHash;
  std::vector<std::string> prefixes;   // empty: every key
  std::string filter;                  // FILTER expression (aggregate-expression syntax)
  std::string language = "english";
  std::string language_field;          // LANGUAGE_FIELD
  double score = 1.0;                  // SCORE default
  std::string score_field;             // SCORE_FIELD
  std::string payload_field;           // PAYLOAD_FIELD
  bool max_text_fields = false;
  bool no_offsets = false;
  bool no_hl = false;
  bool no_fields = false;
  bool no_freqs = false;
  bool skip_initial_scan = false;
  std::optional<int64_t> temporary_seconds;  // TEMPORARY s
  std::optional<std::vector<std::string>> stopwords;  // STOPWORDS n ...; nullopt: default list
  std::vector<FieldSpec> fields;
  // The FT.CREATE arguments after the index name, as given: what the AOF and the RDB
  // store to re-create the index (FT.ALTER appends its SCHEMA ADD arguments).
  std::vector<std::string> create_args;

  const FieldSpec* FindField(std::string_view name) const;
};

// Parses FT.CREATE's arguments after the index name (args[0] = first option) into a
// spec named `name`. Errors carry RediSearch's texts (e.g. "Unknown argument `X`",
// "Duplicate field in schema - f", "Bad arguments for vector similarity HNSW index
// type", "Fields arguments are missing").
// Whether RediSearch knows the language (FT.CREATE LANGUAGE, LANGUAGE_FIELD values).
bool IsLanguage(std::string_view language);
Result<IndexSpec> ParseCreateArgs(std::string_view name, const std::vector<std::string_view>& args);
// FT.ALTER idx [SKIPINITIALSCAN] SCHEMA ADD field ...: appends the fields to `spec`.
Status ParseAlterSchemaAdd(IndexSpec& spec, const std::vector<std::string_view>& args);

}  // namespace hotkv::search

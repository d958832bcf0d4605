// ParseCreateArgs / ParseAlterSchemaAdd / FindField / blob_bytes. Error texts as
// RediSearch 2.10's (checked with FT.CREATE on Redis 8.8 + RediSearch 2.10).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "search/index_spec.h"

namespace hotkv::search {
namespace {

std::vector<std::string> Split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

Result<IndexSpec> Create(const std::string& args) {
  static std::vector<std::string> storage;
  storage = Split(args);
  std::vector<std::string_view> views(storage.begin(), storage.end());
  return ParseCreateArgs("idx", views);
}

std::string Error(const std::string& args) {
  auto r = Create(args);
  return r.ok() ? std::string("(no error)") : r.status().message();
}

TEST(IndexSpecParser, EveryIndexOption) {
  auto r = Create(
      "ON HASH PREFIX 2 a: b: FILTER @x>1 LANGUAGE French SCORE 0.5 LANGUAGE_FIELD lf SCORE_FIELD sf "
      "PAYLOAD_FIELD pf MAXTEXTFIELDS TEMPORARY 100 NOOFFSETS NOHL NOFREQS SKIPINITIALSCAN "
      "STOPWORDS 2 Foo bar SCHEMA t TEXT");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const IndexSpec& s = *r;
  EXPECT_EQ(s.name, "idx");
  EXPECT_EQ(s.on, SourceType::kHash);
  EXPECT_EQ(s.prefixes, (std::vector<std::string>{"a:", "b:"}));
  EXPECT_EQ(s.filter, "@x>1");
  EXPECT_EQ(s.language, "french");
  EXPECT_EQ(s.score, 0.5);
  EXPECT_EQ(s.language_field, "lf");
  EXPECT_EQ(s.score_field, "sf");
  EXPECT_EQ(s.payload_field, "pf");
  EXPECT_TRUE(s.max_text_fields);
  ASSERT_TRUE(s.temporary_seconds.has_value());
  EXPECT_EQ(*s.temporary_seconds, 100);
  EXPECT_TRUE(s.no_offsets);
  EXPECT_TRUE(s.no_hl);
  EXPECT_TRUE(s.no_freqs);
  EXPECT_FALSE(s.no_fields);
  EXPECT_TRUE(s.skip_initial_scan);
  ASSERT_TRUE(s.stopwords.has_value());
  EXPECT_EQ(*s.stopwords, (std::vector<std::string>{"foo", "bar"}));
  ASSERT_EQ(s.fields.size(), 1u);
  EXPECT_EQ(s.create_args.size(), Split("ON HASH PREFIX 2 a: b: FILTER @x>1 LANGUAGE French SCORE 0.5 "
                                        "LANGUAGE_FIELD lf SCORE_FIELD sf PAYLOAD_FIELD pf MAXTEXTFIELDS "
                                        "TEMPORARY 100 NOOFFSETS NOHL NOFREQS SKIPINITIALSCAN STOPWORDS 2 "
                                        "Foo bar SCHEMA t TEXT")
                                      .size());
  EXPECT_EQ(s.create_args.front(), "ON");
  EXPECT_EQ(s.create_args.back(), "TEXT");
}

TEST(IndexSpecParser, DefaultsAndCaseInsensitiveKeywords) {
  auto r = Create("on hash prefix 1 doc: schema title text sortable v vector hnsw 6 type float32 dim 2 "
                  "distance_metric cosine");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->language, "english");
  EXPECT_EQ(r->score, 1.0);
  EXPECT_FALSE(r->stopwords.has_value());
  ASSERT_EQ(r->fields.size(), 2u);
  EXPECT_TRUE(r->fields[0].sortable);
  EXPECT_EQ(r->fields[1].type, FieldType::kVector);
  EXPECT_EQ(r->fields[1].vector.metric, VectorMetric::kCosine);
  r = Create("STOPWORDS 0 SCHEMA t TEXT");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->stopwords.has_value());
  EXPECT_TRUE(r->stopwords->empty());
  r = Create("SCHEMA t TEXT");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->prefixes.empty());
}

TEST(IndexSpecParser, TextTagNumericGeoFields) {
  auto r = Create(
      "SCHEMA t TEXT INDEXMISSING INDEXEMPTY NOSTEM WITHSUFFIXTRIE WEIGHT 2 PHONETIC dm:en SORTABLE UNF "
      "g TAG SEPARATOR ; CASESENSITIVE WITHSUFFIXTRIE INDEXEMPTY INDEXMISSING SORTABLE UNF "
      "n NUMERIC INDEXMISSING SORTABLE NOINDEX2 TEXT x GEO SORTABLE gs GEOSHAPE SPHERICAL INDEXMISSING "
      "ni TEXT NOINDEX SORTABLE");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& f = r->fields;
  ASSERT_EQ(f.size(), 7u);
  EXPECT_EQ(f[0].type, FieldType::kText);
  EXPECT_TRUE(f[0].index_missing && f[0].index_empty && f[0].nostem && f[0].with_suffix_trie);
  EXPECT_EQ(f[0].weight, 2);
  EXPECT_EQ(f[0].phonetic, "dm:en");
  EXPECT_TRUE(f[0].sortable && f[0].unf);
  EXPECT_EQ(f[1].type, FieldType::kTag);
  EXPECT_EQ(f[1].separator, ';');
  EXPECT_TRUE(f[1].case_sensitive && f[1].with_suffix_trie && f[1].index_empty && f[1].index_missing);
  EXPECT_EQ(f[2].type, FieldType::kNumeric);
  EXPECT_TRUE(f[2].sortable && f[2].unf);  // numeric sortables are always UNF
  EXPECT_TRUE(f[2].index_missing);
  EXPECT_EQ(f[3].name, "NOINDEX2");
  EXPECT_EQ(f[4].type, FieldType::kGeo);
  EXPECT_EQ(f[5].type, FieldType::kGeoShape);
  EXPECT_TRUE(f[5].index_missing);
  EXPECT_TRUE(f[6].noindex && f[6].sortable);
  EXPECT_EQ(r->FindField("g"), &f[1]);
  EXPECT_EQ(r->FindField("nope"), nullptr);
}

TEST(IndexSpecParser, JsonPathsAndAliases) {
  auto r = Create("ON JSON PREFIX 1 j: SCHEMA $.title AS title TEXT $.tags[*] AS tags TAG $.v AS vec VECTOR "
                  "FLAT 6 TYPE FLOAT64 DIM 3 DISTANCE_METRIC IP $.n NUMERIC");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->on, SourceType::kJson);
  ASSERT_EQ(r->fields.size(), 4u);
  EXPECT_EQ(r->fields[0].path, "$.title");
  EXPECT_EQ(r->fields[0].name, "title");
  EXPECT_EQ(r->fields[1].path, "$.tags[*]");
  EXPECT_EQ(r->fields[3].name, "$.n");
  EXPECT_NE(r->FindField("vec"), nullptr);
  EXPECT_EQ(r->FindField("$.v"), nullptr);
  EXPECT_EQ(r->FindField("vec")->vector.blob_bytes(), 24u);
}

TEST(IndexSpecParser, VectorFields) {
  auto r = Create(
      "SCHEMA v VECTOR HNSW 16 TYPE FLOAT64 DIM 4 DISTANCE_METRIC IP M 8 EF_CONSTRUCTION 100 EF_RUNTIME 20 "
      "EPSILON 0.5 INITIAL_CAP 100 INDEXMISSING f VECTOR FLAT 10 TYPE FLOAT16 DIM 5 DISTANCE_METRIC L2 "
      "INITIAL_CAP 7 BLOCK_SIZE 10 b VECTOR HNSW 6 TYPE BFLOAT16 DIM 3 DISTANCE_METRIC COSINE");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const VectorFieldOptions& h = r->fields[0].vector;
  EXPECT_EQ(h.algo, VectorAlgo::kHnsw);
  EXPECT_EQ(h.type, VectorType::kFloat64);
  EXPECT_EQ(h.dim, 4u);
  EXPECT_EQ(h.metric, VectorMetric::kIp);
  EXPECT_EQ(h.m, 8u);
  EXPECT_EQ(h.ef_construction, 100u);
  EXPECT_EQ(h.ef_runtime, 20u);
  EXPECT_EQ(h.epsilon, 0.5);
  EXPECT_EQ(h.initial_cap, 100u);
  EXPECT_EQ(h.blob_bytes(), 32u);
  EXPECT_TRUE(r->fields[0].index_missing);
  const VectorFieldOptions& f = r->fields[1].vector;
  EXPECT_EQ(f.algo, VectorAlgo::kFlat);
  EXPECT_EQ(f.type, VectorType::kFloat16);
  EXPECT_EQ(f.block_size, 10u);
  EXPECT_EQ(f.blob_bytes(), 10u);
  EXPECT_EQ(r->fields[2].vector.type, VectorType::kBFloat16);
  EXPECT_EQ(r->fields[2].vector.blob_bytes(), 6u);
  // Defaults.
  r = Create("SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->fields[0].vector.m, 16u);
  EXPECT_EQ(r->fields[0].vector.ef_construction, 200u);
  EXPECT_EQ(r->fields[0].vector.ef_runtime, 10u);
  EXPECT_EQ(r->fields[0].vector.blob_bytes(), 16u);
}

TEST(IndexSpecParser, ErrorTexts) {
  struct Case {
    const char* args;
    const char* error;
  } cases[] = {
      {"SCHEMA t", "ERR wrong number of arguments for 'FT.CREATE' command"},
      {"ON FOO SCHEMA t TEXT", "Invalid rule type: FOO"},
      {"PREFIX SCHEMA t TEXT", "Bad arguments for PREFIX: Could not convert argument to expected type"},
      {"PREFIX -1 SCHEMA t TEXT", "Bad arguments for PREFIX: Value is outside acceptable bounds"},
      {"PREFIX 2 a: SCHEMA t TEXT", "Unknown argument `t`"},
      {"PREFIX 3 a SCHEMA t TEXT", "Unknown argument `TEXT`"},
      {"FOO SCHEMA t TEXT", "Unknown argument `FOO`"},
      {"SCHEMA t FOO", "Invalid field type for field `t`"},
      {"SCHEMA t TEXT t TAG", "Duplicate field in schema - t"},
      {"ON HASH SCHEMA a AS b TEXT c AS b TAG", "Duplicate field in schema - b"},
      {"SCHEMA t TEXT WEIGHT", "Bad arguments for weight: Could not convert argument to expected type"},
      {"SCHEMA t TEXT WEIGHT abc", "Bad arguments for weight: Could not convert argument to expected type"},
      {"SCHEMA t TEXT BADOPT", "Field `BADOPT` does not have a type"},
      {"SCHEMA t TEXT SORTABLE UNF NOSTEM NOINDEX", "Invalid field type for field `NOSTEM`"},
      {"SCHEMA t TAG SORTABLE CASESENSITIVE", "Field `CASESENSITIVE` does not have a type"},
      {"SCHEMA t NUMERIC INDEXEMPTY", "Field `INDEXEMPTY` does not have a type"},
      {"SCHEMA t TEXT UNF", "Field `UNF` does not have a type"},
      {"SCHEMA a AS TEXT", "Field `TEXT` does not have a type"},
      {"SCHEMA a AS", "AS requires an argument"},
      {"SCHEMA t TEXT t2 TEXT t3 TAG AS x", "Invalid field type for field `AS`"},
      {"SCHEMA t TAG SEPARATOR", "SEPARATOR requires an argument"},
      {"SCHEMA t TAG SEPARATOR ab", "Tag separator must be a single character. Got `%s`ab"},
      {"SCHEMA t TEXT PHONETIC", "PHONETIC requires an argument"},
      {"SCHEMA t TEXT PHONETIC xx",
       "Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone (dm). "
       "Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)"},
      {"SCHEMA t TEXT INDEXMISSING SORTABLE NOINDEX",
       "'Field cannot be defined with both `NOINDEX` and `INDEXMISSING` `t` '"},
      {"LANGUAGE klingon SCHEMA t TEXT", "Invalid language"},
      {"SCORE 2 SCHEMA t TEXT", "Invalid score"},
      {"SCORE abc SCHEMA t TEXT", "Invalid score"},
      {"STOPWORDS x SCHEMA t TEXT", "Bad arguments for STOPWORDS: Could not convert argument to expected type"},
      {"STOPWORDS 2 a SCHEMA t TEXT", "Unknown argument `t`"},
      {"TEMPORARY abc SCHEMA t TEXT", "Bad arguments for TEMPORARY: Could not convert argument to expected type"},
      {"NOFIELDS MAXTEXTFIELDS SCHEMA t TEXT", "MAXTEXTFIELDS cannot be used with NOFIELDS"},
      {"NOHL NOFREQS SCORE_FIELD", "Bad arguments for SCORE_FIELD: Expected an argument, but none provided"},
      {"ON HASH PREFIX 1 a:", "No schema found"},
      {"ON HASH NOOFFSETS SCHEMA", "Fields arguments are missing"},
      {"SCHEMA v VECTOR", "Bad arguments for vector similarity algorithm: Expected an argument, but none provided"},
      {"SCHEMA v VECTOR HNSW",
       "Bad arguments for vector similarity number of parameters: Expected an argument, but none provided"},
      {"SCHEMA v VECTOR HNSW abc TYPE FLOAT32",
       "Bad arguments for vector similarity number of parameters: Could not convert argument to expected type"},
      {"SCHEMA v VECTOR HNSW -2 TYPE FLOAT32",
       "Bad arguments for vector similarity number of parameters: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4", "Expected 6 parameters but got 4"},
      {"SCHEMA v VECTOR HNSW 5 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2",
       "Bad number of arguments for vector similarity index: got 5 but expected even number (as algorithm "
       "parameters should be submitted as named arguments)"},
      {"SCHEMA v VECTOR FOO 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2",
       "Bad arguments for vector similarity algorithm: Unknown argument"},
      {"SCHEMA v VECTOR HNSW 6 TYPE INT8 DIM 4 DISTANCE_METRIC L2",
       "Bad arguments for vector similarity HNSW index `TYPE`: Unknown argument"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 0 DISTANCE_METRIC L2",
       "Bad arguments for vector similarity HNSW index `DIM`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4.5 DISTANCE_METRIC L2",
       "Bad arguments for vector similarity HNSW index `DIM`: Could not convert argument to expected type"},
      {"SCHEMA v VECTOR FLAT 6 TYPE FLOAT32 DIM -1 DISTANCE_METRIC L2",
       "Bad arguments for vector similarity FLAT index `DIM`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC XX",
       "Bad arguments for vector similarity HNSW index `DISTANCE_METRIC`: Unknown argument"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4 FOO L2", "Bad arguments for algorithm HNSW: FOO"},
      {"SCHEMA v VECTOR FLAT 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 M 16", "Bad arguments for algorithm FLAT: M"},
      {"SCHEMA v VECTOR HNSW 10 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 BLOCK_SIZE 5",
       "Bad arguments for algorithm HNSW: BLOCK_SIZE"},
      {"SCHEMA v VECTOR FLAT 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 BLOCK_SIZE 0",
       "Bad arguments for vector similarity FLAT index `BLOCK_SIZE`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 M abc",
       "Bad arguments for vector similarity HNSW index `M`: Could not convert argument to expected type"},
      {"SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 M 0",
       "Bad arguments for vector similarity HNSW index `M`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 EF_RUNTIME 0",
       "Bad arguments for vector similarity HNSW index `EF_RUNTIME`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 EPSILON -1",
       "Bad arguments for vector similarity HNSW index `EPSILON`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 INITIAL_CAP -1",
       "Bad arguments for vector similarity HNSW index `INITIAL_CAP`: Value is outside acceptable bounds"},
      {"SCHEMA v VECTOR HNSW 4 TYPE FLOAT32 DIM 4",
       "Missing mandatory parameter: cannot create HNSW index without specifying DISTANCE_METRIC argument"},
      {"SCHEMA v VECTOR HNSW 2 TYPE FLOAT32",
       "Missing mandatory parameter: cannot create HNSW index without specifying DIM argument"},
      {"SCHEMA v VECTOR HNSW 0", "Missing mandatory parameter: cannot create HNSW index without specifying TYPE argument"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 SORTABLE", "Field `SORTABLE` does not have a type"},
      {"SCHEMA v VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 extra", "Field `extra` does not have a type"},
  };
  for (const auto& c : cases) EXPECT_EQ(Error(c.args), c.error) << c.args;
  // Accepted as RediSearch accepts them.
  for (const char* ok : {"TEMPORARY -5 SCHEMA t TEXT", "PREFIX 0 SCHEMA t TEXT", "SCHEMA t TEXT WEIGHT 0",
                         "SCHEMA t TEXT NOSTEM NOSTEM", "SCHEMA t TAG SEPARATOR ; SEPARATOR ,",
                         "SCHEMA t TEXT SORTABLE SORTABLE", "SCHEMA t GEOSHAPE FLAT",
                         "SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 EPSILON 0",
                         "SCHEMA v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 TYPE FLOAT64",
                         "PREFIX 1 a: PREFIX 1 b: SCHEMA t TEXT"}) {
    EXPECT_EQ(Error(ok), "(no error)") << ok;
  }
}

TEST(IndexSpecParser, AlterSchemaAdd) {
  auto r = Create("ON HASH SCHEMA t TEXT");
  ASSERT_TRUE(r.ok());
  IndexSpec spec = std::move(*r);
  std::vector<std::string> a1 = Split("SCHEMA ADD x TAG y NUMERIC SORTABLE");
  std::vector<std::string_view> v1(a1.begin(), a1.end());
  ASSERT_TRUE(ParseAlterSchemaAdd(spec, v1).ok());
  ASSERT_EQ(spec.fields.size(), 3u);
  EXPECT_EQ(spec.fields[2].name, "y");
  EXPECT_EQ(spec.create_args, Split("ON HASH SCHEMA t TEXT x TAG y NUMERIC SORTABLE"));
  // The create arguments re-create the altered index.
  std::vector<std::string_view> again(spec.create_args.begin(), spec.create_args.end());
  auto re = ParseCreateArgs("idx", again);
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(re->fields.size(), 3u);

  struct Case {
    const char* args;
    const char* error;
  } cases[] = {
      {"SCHEMA ADD t TAG", "Duplicate field in schema - t"},
      {"SCHEMA x TAG", "Unknown action passed to ALTER SCHEMA"},
      {"SCHEMA ADD z FOO", "Invalid field type for field `z`"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> a = Split(c.args);
    std::vector<std::string_view> v(a.begin(), a.end());
    Status st = ParseAlterSchemaAdd(spec, v);
    EXPECT_EQ(st.message(), c.error) << c.args;
  }
  EXPECT_EQ(spec.fields.size(), 3u);  // failed alters change nothing
  std::vector<std::string> a2 = Split("SKIPINITIALSCAN SCHEMA ADD w GEO");
  std::vector<std::string_view> v2(a2.begin(), a2.end());
  ASSERT_TRUE(ParseAlterSchemaAdd(spec, v2).ok());
  EXPECT_EQ(spec.fields.back().type, FieldType::kGeo);
}

}  // namespace
}  // namespace hotkv::search

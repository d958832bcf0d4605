// FT.INFO, FT.ALTER, FT.ALIASADD / ALIASUPDATE / ALIASDEL, FT.TAGVALS, FT.CONFIG,
// FT.EXPLAIN and FT.EXPLAINCLI, with RediSearch 2.10's replies and errors.
//
// FT.INFO lists its fields in RediSearch's order (clients read it by position): numbers
// that are doubles are bulk strings in RESP2 and doubles in RESP3, counters integers;
// each attribute's flags follow its options in RESP2 and form a "flags" array in RESP3.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <strings.h>

#include "common/string_util.h"
#include "protocol/reply_builder.h"
#include "search/aggregate_cursor.h"
#include "search/aggregate_family.h"
#include "search/index_registry.h"
#include "search/search_config.h"
#include "search/search_family.h"
#include "search/text_index.h"
#include "server/command_context.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv::search {
namespace {

bool Eq(std::string_view a, const char* b) {
  return a.size() == strlen(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

void WrongArgs(CommandContext& ctx, const char* name) {
  ctx.rb().Error(std::string("ERR wrong number of arguments for '") + name + "' command");
}

void MarkDirty(CommandContext& ctx) { WorkerStats::Inc(ctx.worker().stats().dirty); }

const char* TypeName(FieldType t) {
  switch (t) {
    case FieldType::kText: return "TEXT";
    case FieldType::kTag: return "TAG";
    case FieldType::kNumeric: return "NUMERIC";
    case FieldType::kGeo: return "GEO";
    case FieldType::kVector: return "VECTOR";
    default: return "GEOSHAPE";
  }
}

std::vector<const char*> FlagsOf(const FieldSpec& f) {
  std::vector<const char*> out;
  if (f.type == FieldType::kTag && f.case_sensitive) {
    out.push_back("CASESENSITIVE");
  }
  if (f.sortable) {
    out.push_back("SORTABLE");
    if (f.unf || f.type == FieldType::kNumeric || f.type == FieldType::kGeo ||
        (f.type == FieldType::kTag && f.case_sensitive)) {
      out.push_back("UNF");
    }
  }
  if (f.type == FieldType::kText && f.nostem) {
    out.push_back("NOSTEM");
  }
  if (f.noindex) {
    out.push_back("NOINDEX");
  }
  if (f.with_suffix_trie && (f.type == FieldType::kText || f.type == FieldType::kTag)) {
    out.push_back("WITHSUFFIXTRIE");
  }
  if (f.index_empty) {
    out.push_back("INDEXEMPTY");
  }
  if (f.index_missing) {
    out.push_back("INDEXMISSING");
  }
  return out;
}

const char* VectorTypeName(VectorType t) {
  switch (t) {
    case VectorType::kFloat32: return "FLOAT32";
    case VectorType::kFloat64: return "FLOAT64";
    case VectorType::kFloat16: return "FLOAT16";
    default: return "BFLOAT16";
  }
}

const char* MetricName(VectorMetric m) {
  switch (m) {
    case VectorMetric::kL2: return "L2";
    case VectorMetric::kIp: return "IP";
    default: return "COSINE";
  }
}

void WriteAttribute(ReplyBuilder& rb, const FieldSpec& f) {
  const bool resp3 = rb.resp3();
  std::vector<const char*> flags = FlagsOf(f);
  size_t opts = 0;
  if (f.type == FieldType::kText || f.type == FieldType::kTag) {
    opts = 1;
  } else if (f.type == FieldType::kVector) {
    opts = f.vector.algo == VectorAlgo::kHnsw ? 6 : 4;
  }
  if (resp3) {
    rb.Map(3 + opts + 1);
  } else {
    rb.Array(6 + opts * 2 + flags.size());
  }
  rb.SimpleString("identifier");
  rb.SimpleString(f.path);
  rb.SimpleString("attribute");
  rb.SimpleString(f.name);
  rb.SimpleString("type");
  rb.SimpleString(TypeName(f.type));
  if (f.type == FieldType::kText) {
    rb.SimpleString("WEIGHT");
    rb.Double(f.weight);
  } else if (f.type == FieldType::kTag) {
    rb.SimpleString("SEPARATOR");
    rb.SimpleString(std::string(1, f.separator));
  } else if (f.type == FieldType::kVector) {
    rb.SimpleString("algorithm");
    rb.SimpleString(f.vector.algo == VectorAlgo::kHnsw ? "HNSW" : "FLAT");
    rb.SimpleString("data_type");
    rb.SimpleString(VectorTypeName(f.vector.type));
    rb.SimpleString("dim");
    rb.Integer(f.vector.dim);
    rb.SimpleString("distance_metric");
    rb.SimpleString(MetricName(f.vector.metric));
    if (f.vector.algo == VectorAlgo::kHnsw) {
      rb.SimpleString("M");
      rb.Integer(f.vector.m);
      rb.SimpleString("ef_construction");
      rb.Integer(f.vector.ef_construction);
    }
  }
  if (resp3) {
    rb.SimpleString("flags");
    rb.Array(flags.size());
  }
  for (const char* fl : flags) {
    rb.SimpleString(fl);
  }
}

// A double as RediSearch writes it ("nan" included: RESP2 bulk, RESP3 ',').
void InfoDouble(ReplyBuilder& rb, double v) {
  if (std::isnan(v)) {
    if (rb.resp3()) {
      rb.Raw(",nan\r\n");
    } else {
      rb.Bulk("nan");
    }
    return;
  }
  rb.Double(v);
}

// A nested list of pairs: a map in RESP3, a flat array in RESP2.
void Pairs(ReplyBuilder& rb, size_t n) { rb.Map(n); }

void WriteErrorsBlock(ReplyBuilder& rb, uint64_t failures, bool with_status) {
  Pairs(rb, with_status ? 4 : 3);
  rb.SimpleString("indexing failures");
  rb.Integer(static_cast<int64_t>(failures));
  rb.SimpleString("last indexing error");
  rb.SimpleString("N/A");
  rb.SimpleString("last indexing error key");
  rb.Bulk("N/A");
  if (with_status) {
    rb.SimpleString("background indexing status");
    rb.SimpleString("OK");
  }
}

void FtInfoCommand(CommandContext& ctx) {
  if (ctx.argc() < 2) {
    return WrongArgs(ctx, "FT.INFO");
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("Unknown index name");
  }
  const IndexSpec& spec = idx->spec();
  IndexStats st;
  {
    std::shared_lock lock(idx->mutex());
    st = idx->Stats();
  }
  ReplyBuilder& rb = ctx.rb();
  const bool has_stopwords = spec.stopwords.has_value();
  Pairs(rb, 34 + (has_stopwords ? 1 : 0));
  rb.SimpleString("index_name");
  rb.SimpleString(spec.name);
  rb.SimpleString("index_options");
  {
    std::vector<const char*> opts;
    if (spec.max_text_fields) opts.push_back("MAXTEXTFIELDS");
    if (spec.no_freqs) opts.push_back("NOFREQS");
    if (spec.no_fields) opts.push_back("NOFIELDS");
    if (spec.no_offsets) opts.push_back("NOOFFSETS");
    if (spec.no_hl || spec.no_offsets) opts.push_back("NOHL");
    rb.Array(opts.size());
    for (const char* o : opts) {
      rb.SimpleString(o);
    }
  }
  rb.SimpleString("index_definition");
  {
    const bool lang = !spec.language.empty() && !EqualsIgnoreCase(spec.language, "english");
    size_t n = 3 + (spec.filter.empty() ? 0 : 1) + (lang ? 1 : 0) +
               (spec.language_field.empty() ? 0 : 1) + (spec.score_field.empty() ? 0 : 1) +
               (spec.payload_field.empty() ? 0 : 1);
    Pairs(rb, n);
    rb.SimpleString("key_type");
    rb.SimpleString(spec.on == SourceType::kJson ? "JSON" : "HASH");
    rb.SimpleString("prefixes");
    if (spec.prefixes.empty()) {
      rb.Array(1);
      rb.SimpleString("");
    } else {
      rb.Array(spec.prefixes.size());
      for (const std::string& p : spec.prefixes) {
        rb.SimpleString(p);
      }
    }
    if (!spec.filter.empty()) {
      rb.SimpleString("filter");
      rb.SimpleString(spec.filter);
    }
    if (lang) {
      rb.SimpleString("default_language");
      rb.SimpleString(spec.language);
    }
    if (!spec.language_field.empty()) {
      rb.SimpleString("language_field");
      rb.SimpleString(spec.language_field);
    }
    rb.SimpleString("default_score");
    rb.Double(spec.score);
    if (!spec.score_field.empty()) {
      rb.SimpleString("score_field");
      rb.SimpleString(spec.score_field);
    }
    if (!spec.payload_field.empty()) {
      rb.SimpleString("payload_field");
      rb.SimpleString(spec.payload_field);
    }
  }
  rb.SimpleString("attributes");
  rb.Array(spec.fields.size());
  for (const FieldSpec& f : spec.fields) {
    WriteAttribute(rb, f);
  }
  constexpr double kMb = 1024.0 * 1024.0;
  auto integer = [&](const char* k, uint64_t v) {
    rb.SimpleString(k);
    rb.Integer(static_cast<int64_t>(v));
  };
  auto dbl = [&](const char* k, double v) {
    rb.SimpleString(k);
    InfoDouble(rb, v);
  };
  integer("num_docs", st.num_docs);
  integer("max_doc_id", st.max_doc_id);
  integer("num_terms", st.num_terms);
  integer("num_records", st.num_records);
  dbl("inverted_sz_mb", static_cast<double>(st.text_bytes) / kMb);
  dbl("vector_index_sz_mb", static_cast<double>(st.vector_bytes) / kMb);
  integer("total_inverted_index_blocks", st.num_terms + st.tag_values);
  dbl("offset_vectors_sz_mb", 0);
  dbl("doc_table_size_mb", static_cast<double>(st.max_doc_id) * 64 / kMb);
  dbl("sortable_values_size_mb", 0);
  dbl("key_table_size_mb", 0);
  dbl("tag_overhead_sz_mb", 0);
  dbl("text_overhead_sz_mb", 0);
  dbl("total_index_memory_sz_mb", static_cast<double>(st.memory_bytes) / kMb);
  dbl("geoshapes_sz_mb", 0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  dbl("records_per_doc_avg",
      st.num_docs == 0
          ? (st.num_records == 0 ? nan : std::numeric_limits<double>::infinity())
          : static_cast<double>(st.num_records) / static_cast<double>(st.num_docs));
  dbl("bytes_per_record_avg",
      st.num_records == 0
          ? nan
          : static_cast<double>(st.text_bytes) / static_cast<double>(st.num_records));
  dbl("offsets_per_term_avg", st.num_records == 0 ? nan : 0);
  dbl("offset_bits_per_record_avg", st.num_records == 0 ? nan : 0);
  integer("hash_indexing_failures", st.indexing_failures);
  dbl("total_indexing_time", 0);
  integer("indexing", idx->indexing.load() ? 1 : 0);
  dbl("percent_indexed", idx->percent_indexed.load());
  integer("number_of_uses", 0);
  integer("cleaning", 0);
  rb.SimpleString("gc_stats");
  Pairs(rb, 7);
  dbl("bytes_collected", 0);
  dbl("total_ms_run", 0);
  dbl("total_cycles", 0);
  dbl("average_cycle_time_ms", nan);
  dbl("last_run_time_ms", 0);
  dbl("gc_numeric_trees_missed", 0);
  dbl("gc_blocks_denied", 0);
  rb.SimpleString("cursor_stats");
  CursorStats cs = Cursors().Stats(spec.name);
  Pairs(rb, 4);
  integer("global_idle", cs.global_idle);
  integer("global_total", cs.global_total);
  integer("index_capacity", CursorStore::kIndexCapacity);
  integer("index_total", cs.index_total);
  if (has_stopwords) {
    rb.SimpleString("stopwords_list");
    rb.Array(spec.stopwords->size());
    for (const std::string& w : *spec.stopwords) {
      rb.Bulk(w);
    }
  }
  rb.SimpleString("dialect_stats");
  Pairs(rb, 4);
  integer("dialect_1", 0);
  integer("dialect_2", 0);
  integer("dialect_3", 0);
  integer("dialect_4", 0);
  rb.SimpleString("Index Errors");
  WriteErrorsBlock(rb, st.indexing_failures, true);
  rb.SimpleString("field statistics");
  rb.Array(spec.fields.size());
  for (const FieldSpec& f : spec.fields) {
    Pairs(rb, 3);
    rb.SimpleString("identifier");
    rb.SimpleString(f.path);
    rb.SimpleString("attribute");
    rb.SimpleString(f.name);
    rb.SimpleString("Index Errors");
    WriteErrorsBlock(rb, 0, false);
  }
}

// FT.ALTER idx [SKIPINITIALSCAN] SCHEMA ADD field ...
void FtAlterCommand(CommandContext& ctx) {
  if (ctx.argc() < 3) {
    return WrongArgs(ctx, "FT.ALTER");
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("Unknown index name");
  }
  size_t i = 2;
  bool skip_scan = false;
  if (Eq(ctx.arg(i), "SKIPINITIALSCAN")) {
    skip_scan = true;
    ++i;
  }
  if (i >= ctx.argc() || !Eq(ctx.arg(i), "SCHEMA")) {
    return ctx.rb().Error("ALTER must be followed by SCHEMA");
  }
  std::vector<std::string_view> args(ctx.args().begin() + 2, ctx.args().end());
  IndexSpec spec = idx->spec();
  Status st = ParseAlterSchemaAdd(spec, args);
  if (!st.ok()) {
    return ctx.rb().Error(st.message());
  }
  st = idx->AlterSchema(std::move(spec));
  if (!st.ok()) {
    return ctx.rb().Error(st.message());
  }
  if (!skip_scan) {
    ScanExisting(ctx.keyspace(), *idx, ctx.now_ms());
  }
  MarkDirty(ctx);
  ctx.rb().Ok();
}

void AliasReply(CommandContext& ctx, const Status& st) {
  if (st.ok()) {
    MarkDirty(ctx);
    return ctx.rb().Ok();
  }
  if (st.code() == StatusCode::kNotFound && st.message() == "Unknown index name") {
    return ctx.rb().Error("Unknown index name (or name is an alias itself)");
  }
  ctx.rb().Error(st.message());
}

void FtAliasAddCommand(CommandContext& ctx) {
  if (ctx.argc() != 3) {
    return WrongArgs(ctx, "FT.ALIASADD");
  }
  AliasReply(ctx, Indexes().AddAlias(ctx.arg(1), ctx.arg(2)));
}

void FtAliasUpdateCommand(CommandContext& ctx) {
  if (ctx.argc() != 3) {
    return WrongArgs(ctx, "FT.ALIASUPDATE");
  }
  AliasReply(ctx, Indexes().UpdateAlias(ctx.arg(1), ctx.arg(2)));
}

void FtAliasDelCommand(CommandContext& ctx) {
  if (ctx.argc() != 2) {
    return WrongArgs(ctx, "FT.ALIASDEL");
  }
  AliasReply(ctx, Indexes().DeleteAlias(ctx.arg(1)));
}

void FtTagValsCommand(CommandContext& ctx) {
  if (ctx.argc() != 3) {
    return WrongArgs(ctx, "FT.TAGVALS");
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("Unknown Index name");
  }
  int fi = idx->FieldIndexOf(ctx.arg(2));
  if (fi < 0) {
    return ctx.rb().Error("No such field");
  }
  std::vector<std::string> values;
  {
    std::shared_lock lock(idx->mutex());
    const FieldIndex& f = idx->fields()[fi];
    if (f.tag == nullptr) {
      return ctx.rb().Error("Not a tag field");
    }
    values = f.tag->Values();
  }
  std::sort(values.begin(), values.end());
  ctx.rb().Set(values.size());
  for (const std::string& v : values) {
    ctx.rb().Bulk(v);
  }
}

// ---- FT.CONFIG ----

struct ConfigOption {
  const char* name;
  const char* value;  // null: nil
  const char* help;
};

// RediSearch 2.10's options in FT.CONFIG GET *'s order, with their defaults.
const ConfigOption kConfigOptions[] = {
    {"EXTLOAD", nullptr, "Load extension scoring/expansion module"},
    {"NOGC", "false", "Disable garbage collection (for this process)"},
    {"MINPREFIX", "2", "Set the minimum prefix for expansions (`*`)"},
    {"MINSTEMLEN", "4", "Set the minimum word length to stem (default 4)"},
    {"FORKGC_SLEEP_BEFORE_EXIT", "0", "set the amount of seconds for the fork GC to sleep"},
    {"MAXDOCTABLESIZE", "1000000", "Maximum document table size"},
    {"MAXSEARCHRESULTS", "1000000", "Maximum number of results from ft.search command"},
    {"MAXAGGREGATERESULTS", "unlimited", "Maximum number of results from ft.aggregate command"},
    {"MAXEXPANSIONS", "200", "Maximum prefix expansions to be used in a query"},
    {"MAXPREFIXEXPANSIONS", "200", "Maximum prefix expansions to be used in a query"},
    {"TIMEOUT", "500", "Query (search) timeout"},
    {"FRISOINI", nullptr, "Path to Chinese dictionary configuration file (for Chinese tokenization)"},
    {"DEFAULT_SCORER", "TFIDF", "Default scorer"},
    {"ON_TIMEOUT", "return", "Action to perform when search timeout is exceeded"},
    {"GCSCANSIZE", "100", "Scan this many documents at a time during every GC iteration"},
    {"MIN_PHONETIC_TERM_LEN", "3", "Minimum length of term to be considered for phonetic matching"},
    {"GC_POLICY", "fork", "gc policy to use (fork/legacy)"},
    {"FORK_GC_RUN_INTERVAL", "30", "interval (in seconds) in which to run the fork gc"},
    {"FORK_GC_CLEAN_THRESHOLD", "100", "number of entries to clean before running the fork gc"},
    {"FORK_GC_RETRY_INTERVAL", "5", "interval (in seconds) to retry the fork gc"},
    {"FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "true", "clean empty nodes from numeric tree"},
    {"_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "true", "clean empty nodes from numeric tree"},
    {"UNION_ITERATOR_HEAP", "20", "minimum number of iterators in a union to use a heap"},
    {"CURSOR_MAX_IDLE", "300000", "max idle time allowed to be set for cursor"},
    {"INDEX_CURSOR_LIMIT", "128", "max number of cursors for an index"},
    {"NO_MEM_POOLS", "false", "Do not use memory pools"},
    {"PARTIAL_INDEXED_DOCS", "false", "Enable/disable partial indexed documents"},
    {"UPGRADE_INDEX", "Upgrade config for upgrading", "Relevant only when loading an v1.x rdb"},
    {"_NUMERIC_COMPRESS", "false", "Enable legacy compression of double to float"},
    {"_FREE_RESOURCE_ON_THREAD", "true", "Determine whether resources are freed on a thread"},
    {"_PRINT_PROFILE_CLOCK", "true", "Print the clock in FT.PROFILE"},
    {"RAW_DOCID_ENCODING", "false", "Disable compression for DocID inverted index"},
    {"_NUMERIC_RANGES_PARENTS", "0", "Keep numeric ranges in numeric tree parent nodes"},
    {"DEFAULT_DIALECT", "1", "Set the default dialect for the query engine"},
    {"VSS_MAX_RESIZE", "0", "Maximum size to resize vector index"},
    {"MULTI_TEXT_SLOP", "100", "Set the slop of multi-value text fields"},
    {"BG_INDEX_SLEEP_GAP", "100", "The number of iterations to run while scanning in the background"},
    {"_PRIORITIZE_INTERSECT_UNION_CHILDREN", "false", "Intersection iterator orders children"},
    {"ENABLE_UNSTABLE_FEATURES", "false", "Enable unstable features"},
    {"BM25STD_TANH_FACTOR", "4", "Factor for the BM25STD.TANH scorer"},
    {"INDEXER_YIELD_EVERY_OPS", "1000", "Yield during indexing every this many operations"},
    {"_BG_INDEX_MEM_PCT_THR", "100", "Memory threshold for background indexing"},
    {"_BG_INDEX_OOM_PAUSE_TIME", "0", "Pause time for background indexing on OOM"},
};

const std::pair<const char*, Scorer> kScorerNames[] = {
    {"TFIDF", Scorer::kTfIdf},       {"BM25STD", Scorer::kBm25Std},
    {"BM25", Scorer::kBm25},         {"TFIDF.DOCNORM", Scorer::kTfIdfDocNorm},
    {"DISMAX", Scorer::kDisMax},     {"DOCSCORE", Scorer::kDocScore},
    {"HAMMING", Scorer::kHamming}};

std::mutex g_config_mu;
std::map<std::string, std::string>& ConfigOverrides() {
  static auto* m = new std::map<std::string, std::string>();
  return *m;
}

std::optional<std::string> ConfigValue(const ConfigOption& o) {
  SearchSettings& s = Settings();
  std::string n = o.name;
  if (n == "DEFAULT_DIALECT") return std::to_string(s.default_dialect.load());
  if (n == "MAXEXPANSIONS" || n == "MAXPREFIXEXPANSIONS") {
    return std::to_string(s.max_expansions.load());
  }
  if (n == "TIMEOUT") return std::to_string(s.timeout_ms.load());
  if (n == "ON_TIMEOUT") return std::string(s.on_timeout_fail.load() ? "fail" : "return");
  if (n == "MAXSEARCHRESULTS") return std::to_string(s.max_search_results.load());
  if (n == "MINPREFIX") return std::to_string(s.min_prefix.load());
  if (n == "DEFAULT_SCORER") {
    for (const auto& [name, scorer] : kScorerNames) {
      if (scorer == s.default_scorer.load()) {
        return std::string(name);
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_config_mu);
  auto it = ConfigOverrides().find(n);
  if (it != ConfigOverrides().end()) {
    return it->second;
  }
  if (o.value == nullptr) {
    return std::nullopt;
  }
  return std::string(o.value);
}

// Applies FT.CONFIG SET; the error text or empty.
std::string ConfigSet(const ConfigOption& o, std::string_view value) {
  SearchSettings& s = Settings();
  std::string n = o.name;
  const char* kBad = "Could not convert argument to expected type";
  auto num = ParseInt64(value);
  if (n == "DEFAULT_DIALECT") {
    if (!num || *num < 1 || *num > 4) return "DEFAULT_DIALECT requires a non negative integer >=1 and <= 4";
    s.default_dialect = static_cast<int>(*num);
  } else if (n == "MAXEXPANSIONS" || n == "MAXPREFIXEXPANSIONS") {
    if (!num || *num < 0) return kBad;
    s.max_expansions = static_cast<uint64_t>(*num);
  } else if (n == "TIMEOUT") {
    if (!num) return kBad;
    if (*num < 0) return "Value is outside acceptable bounds";
    s.timeout_ms = *num;
  } else if (n == "ON_TIMEOUT") {
    if (EqualsIgnoreCase(value, "return")) {
      s.on_timeout_fail = false;
    } else if (EqualsIgnoreCase(value, "fail")) {
      s.on_timeout_fail = true;
    } else {
      return "Invalid ON_TIMEOUT value";
    }
  } else if (n == "MAXSEARCHRESULTS") {
    if (!num || *num < 0) return kBad;
    s.max_search_results = static_cast<uint64_t>(*num);
  } else if (n == "MINPREFIX") {
    if (!num || *num < 1) return kBad;
    s.min_prefix = *num;
  } else if (n == "DEFAULT_SCORER") {
    for (const auto& [name, scorer] : kScorerNames) {
      if (EqualsIgnoreCase(value, name)) {
        s.default_scorer = scorer;
        return std::string();
      }
    }
    return "Invalid scorer name";
  } else {
    std::string v(value);
    if (n == "MAXAGGREGATERESULTS") {
      if (!num || *num < 0) return kBad;
      s.max_aggregate_results = static_cast<uint64_t>(*num);
    } else if (o.value != nullptr && (std::string(o.value) == "true" ||
                                      std::string(o.value) == "false")) {
      v = ToLower(v);
      if (v != "true" && v != "false") return kBad;
    } else if (o.value != nullptr && ParseInt64(o.value) && !num) {
      return kBad;
    }
    std::lock_guard<std::mutex> lock(g_config_mu);
    ConfigOverrides()[n] = v;
  }
  return std::string();
}

void FtConfigCommand(CommandContext& ctx) {
  if (ctx.argc() < 3) {
    return WrongArgs(ctx, "FT.CONFIG");
  }
  ReplyBuilder& rb = ctx.rb();
  std::string_view action = ctx.arg(1);
  if (Eq(action, "SET")) {
    if (ctx.argc() < 4) {
      return WrongArgs(ctx, "FT.CONFIG");
    }
    for (const ConfigOption& o : kConfigOptions) {
      if (Eq(ctx.arg(2), o.name)) {
        std::string err = ConfigSet(o, ctx.arg(3));
        return err.empty() ? rb.Ok() : rb.Error(err);
      }
    }
    return rb.Error("Invalid option");
  }
  const bool get = Eq(action, "GET");
  if (!get && !Eq(action, "HELP")) {
    return rb.Error("No such configuration action");
  }
  std::string_view pattern = ctx.arg(2);
  std::vector<const ConfigOption*> match;
  for (const ConfigOption& o : kConfigOptions) {
    if (pattern == "*" || Eq(pattern, o.name)) {
      match.push_back(&o);
    }
  }
  if (rb.resp3()) {
    rb.Map(match.size());
  } else {
    rb.Array(match.size());
  }
  for (const ConfigOption* o : match) {
    std::optional<std::string> v = ConfigValue(*o);
    if (get) {
      if (!rb.resp3()) {
        rb.Array(2);
      }
      rb.SimpleString(o->name);
      if (v) {
        rb.Bulk(*v);
      } else {
        rb.Null();
      }
      continue;
    }
    if (rb.resp3()) {  // {name: {Description: ..., Value: ...}}
      rb.SimpleString(o->name);
      rb.Map(2);
    } else {
      rb.Array(5);
      rb.SimpleString(o->name);
    }
    rb.SimpleString("Description");
    rb.SimpleString(o->help);
    rb.SimpleString("Value");
    if (v) {
      rb.Bulk(*v);
    } else {
      rb.Null();
    }
  }
}

// ---- FT.EXPLAIN / FT.EXPLAINCLI ----

void SortFieldsBySchema(QueryNode& n, const IndexSpec& spec) {
  if (n.fields.size() > 1) {
    auto pos = [&spec](const std::string& name) {
      for (size_t i = 0; i < spec.fields.size(); ++i) {
        if (spec.fields[i].name == name) return i;
      }
      return spec.fields.size();
    };
    std::stable_sort(n.fields.begin(), n.fields.end(),
                     [&](const std::string& a, const std::string& b) { return pos(a) < pos(b); });
  }
  for (auto& ch : n.children) SortFieldsBySchema(*ch, spec);
}

void Explain(CommandContext& ctx, bool cli) {
  if (ctx.argc() < 3) {
    return WrongArgs(ctx, cli ? "FT.EXPLAINCLI" : "FT.EXPLAIN");
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("No such index " + std::string(ctx.arg(1)));
  }
  ParseOptions popts;
  popts.dialect = Settings().default_dialect.load(std::memory_order_relaxed);
  QueryParams params;
  const Analyzer* query_stemmer = nullptr;  // LANGUAGE
  for (size_t i = 3; i < ctx.argc(); ++i) {
    if (Eq(ctx.arg(i), "DIALECT") && i + 1 < ctx.argc()) {
      auto d = ParseInt64(ctx.arg(i + 1));
      if (!d || *d < 1 || *d > 4) {
        return ctx.rb().Error("DIALECT requires a non negative integer >=1 and <= 4");
      }
      popts.dialect = static_cast<int>(*d);
      ++i;
    } else if (Eq(ctx.arg(i), "PARAMS") && i + 1 < ctx.argc()) {
      auto n = ParseInt64(ctx.arg(i + 1));
      if (!n || *n < 0 || *n % 2 != 0 || i + 1 + static_cast<size_t>(*n) >= ctx.argc() + 0) {
        return ctx.rb().Error("Parameters must be specified in PARAM VALUE pairs");
      }
      for (int64_t k = 0; k < *n; k += 2) {
        params[std::string(ctx.arg(i + 2 + k))] = std::string(ctx.arg(i + 3 + k));
      }
      i += 1 + static_cast<size_t>(*n);
    } else if (Eq(ctx.arg(i), "VERBATIM")) {
      popts.verbatim = true;
    } else if (Eq(ctx.arg(i), "LANGUAGE") && i + 1 < ctx.argc()) {
      if (!IsLanguage(ctx.arg(i + 1))) {
        return ctx.rb().Error("No such language");
      }
      query_stemmer = Analyzer::ForLanguage(ctx.arg(i + 1));
      ++i;
    }
  }
  // Stop words leave the query in the parser, as in FT.SEARCH (a query of only stop
  // words explains as "<empty>").
  const Analyzer* stop_an = &idx->analyzer();
  popts.is_stopword = [stop_an](std::string_view t) {
    return stop_an->IsStopWord(stop_an->Normalize(t));
  };
  Result<Query> q = ParseQuery(ctx.arg(2), params, popts);
  if (!q.ok()) {
    return ctx.rb().Error(q.status().message());
  }
  // RediSearch holds a field restriction as a bit mask, so "@body|title:x" explains as
  // "@title|body:x" (schema order).
  SortFieldsBySchema(*q->root, idx->spec());
  // The index's analyzer: case folding as documents are folded, and the stem expansion
  // the executor runs (RediSearch prints it as "UNION { term +stem(expanded) ... }").
  const Analyzer& analyzer = idx->analyzer();
  ExplainOptions eopts;
  eopts.fold = [&analyzer](std::string_view term) { return analyzer.Normalize(term); };
  const IndexSpec& spec = idx->spec();
  // A term restricted to fields expands only in those that are stemmed TEXT fields (the
  // executor's rule, text_query.cc).
  auto stemmed_fields = [&spec](const QueryNode& n) {
    std::vector<std::string> out;
    for (const std::string& name : n.fields) {
      const FieldSpec* f = spec.FindField(name);
      if (f != nullptr && f->type == FieldType::kText && !f->nostem) out.push_back(name);
    }
    return out;
  };
  const Analyzer& stemmer = query_stemmer != nullptr ? *query_stemmer : analyzer;
  eopts.stem = [&stemmer, stemmed_fields](const QueryNode& n, std::string_view folded) {
    if (!stemmer.HasStemmer()) return std::string();
    if (!n.fields.empty() && stemmed_fields(n).empty()) return std::string();
    return stemmer.Stem(folded);
  };
  eopts.stem_fields = stemmed_fields;
  std::string text = ExplainQuery(*q, eopts);
  if (!cli) {
    return ctx.rb().Bulk(text);
  }
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(std::string_view(text).substr(start));
      break;
    }
    lines.push_back(std::string_view(text).substr(start, nl - start));
    start = nl + 1;
  }
  ctx.rb().Array(lines.size());
  for (std::string_view l : lines) {
    if (l.find('\r') == std::string_view::npos) {
      ctx.rb().SimpleString(l);
    } else {
      ctx.rb().Bulk(l);  // a simple string cannot hold it
    }
  }
}

// FT.DROP idx [KEEPDOCS]: the legacy drop (redis-py's drop_index); without KEEPDOCS the
// documents go too. Runs FT.DROPINDEX [DD].
void FtDropCommand(CommandContext& ctx) {
  if (ctx.argc() < 2) {
    return WrongArgs(ctx, "FT.DROP");
  }
  const CommandSpec* spec = ctx.server().commands().Find("ft.dropindex");
  if (spec == nullptr || spec->handler == nullptr) {
    return ctx.rb().Error("ERR unknown command 'FT.DROPINDEX'");
  }
  bool keep = ctx.argc() >= 3 && Eq(ctx.arg(2), "KEEPDOCS");
  std::vector<std::string_view> args{"FT.DROPINDEX", ctx.arg(1)};
  if (!keep) {
    args.push_back("DD");
  }
  CommandContext inner(ctx.server(), ctx.worker(), ctx.client(), ctx.rb(), args, spec,
                       ctx.now_ms());
  spec->handler(inner);
}

void FtExplainCommand(CommandContext& ctx) { Explain(ctx, false); }
void FtExplainCliCommand(CommandContext& ctx) { Explain(ctx, true); }

}  // namespace

void RegisterSearchAdminCommands(CommandTable& t) {
  const char* kRo = "readonly self_locking";
  const char* kRw = "write self_locking";
  t.Add({.name = "ft.info", .arity = -1, .flags = kRo, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtInfoCommand,
         .doc = {"search", "1.0.0", "O(1)", "Returns information and statistics on the index.",
                 "index"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.alter", .arity = -1, .flags = kRw, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtAlterCommand,
         .doc = {"search", "1.0.0", "O(N) where N is the number of keys in the keyspace",
                 "Adds a new field to the index.",
                 "index [SKIPINITIALSCAN] SCHEMA ADD field options"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.aliasadd", .arity = -1, .flags = kRw, .acl = "@search",
         .handler = FtAliasAddCommand,
         .doc = {"search", "1.0.0", "O(1)", "Adds an alias to the index.", "alias index"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.aliasupdate", .arity = -1, .flags = kRw, .acl = "@search",
         .handler = FtAliasUpdateCommand,
         .doc = {"search", "1.0.0", "O(1)",
                 "Adds or updates an alias to the index.", "alias index"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.aliasdel", .arity = -1, .flags = kRw, .acl = "@search",
         .handler = FtAliasDelCommand,
         .doc = {"search", "1.0.0", "O(1)", "Deletes an alias from the index.", "alias"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.tagvals", .arity = -1, .flags = kRo, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtTagValsCommand,
         .doc = {"search", "1.0.0", "O(N)",
                 "Returns the distinct tags indexed in a Tag field.", "index field_name"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.config", .arity = -1, .flags = "readonly self_locking", .acl = "@search",
         .handler = FtConfigCommand,
         .doc = {"search", "1.0.0", "O(1)", "Gets or sets the query engine's configuration.",
                 "GET | SET | HELP option [value]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.drop", .arity = -1, .flags = kRw, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtDropCommand,
         .doc = {"search", "1.0.0", "O(1) or O(N) if documents are deleted",
                 "Deletes the index and, without KEEPDOCS, its documents (deprecated).",
                 "index [KEEPDOCS]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.explain", .arity = -1, .flags = kRo, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtExplainCommand,
         .doc = {"search", "1.0.0", "O(1)", "Returns the execution plan for a complex query.",
                 "index query [DIALECT dialect]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.explaincli", .arity = -1, .flags = kRo, .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtExplainCliCommand,
         .doc = {"search", "1.0.0", "O(1)", "Returns the execution plan for a complex query.",
                 "index query [DIALECT dialect]"},
         .all_shards_in_exec = FtAllShardsInExec});
}

}  // namespace hotkv::search

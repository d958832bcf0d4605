// FT.AGGREGATE, FT.CURSOR and FT.PROFILE.
//
// Replies as Redis 8 + RediSearch 2.10: RESP2 [total, [k, v, ...], ...] (values as bulk
// strings, TOLIST/split arrays as arrays, null as nil); RESP3 a map {attributes, format,
// results: [{extra_attributes: {...}, values: []}], total_results, warning}. WITHCURSOR
// wraps either in [reply, cursor id] (0 when the pipeline is exhausted).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <shared_mutex>
#include <cstring>
#include <strings.h>

#include "common/clock.h"
#include "common/string_util.h"
#include "search/aggregate_cursor.h"
#include "search/aggregate_family.h"
#include "search/aggregate_plan.h"
#include "search/index_registry.h"
#include "search/query_exec.h"
#include "search/search_config.h"
#include "search/search_family.h"
#include "protocol/reply_builder.h"
#include "server/command_context.h"
#include "server/server.h"

namespace hotkv::search {
namespace {

bool Eq(std::string_view a, const char* b) {
  return a.size() == strlen(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

void WrongArgs(CommandContext& ctx, const char* name) {
  ctx.rb().Error(std::string("ERR wrong number of arguments for '") + name + "' command");
}

std::vector<AggregateField> SchemaOf(const IndexSpec& spec) {
  std::vector<AggregateField> out;
  out.reserve(spec.fields.size());
  for (const FieldSpec& f : spec.fields) {
    AggregateField a;
    a.name = f.name;
    a.path = f.path;
    a.numeric = f.type == FieldType::kNumeric;
    a.sortable = f.sortable;
    a.normalized = f.sortable && !f.unf &&
                   (f.type == FieldType::kText || (f.type == FieldType::kTag && !f.case_sensitive));
    out.push_back(std::move(a));
  }
  return out;
}

// The matched documents, read from the keyspace as the pipeline asks (hashes: every
// field of a document once, cached while the pipeline is on it).
class KeyspaceSource : public AggregateSource {
 public:
  KeyspaceSource(CommandContext& ctx, const SearchIndex& index, std::vector<SearchHit> hits,
                 std::vector<std::string> yields, std::vector<AggregateField> schema)
      : ctx_(ctx), index_(index), hits_(std::move(hits)), yields_(std::move(yields)),
        schema_(std::move(schema)), is_json_(index.spec().on == SourceType::kJson) {}

  Value Yield(size_t i, size_t which) const override {
    for (const auto& [name, text] : hits_[i].yields) {
      if (name == yields_[which]) {
        auto d = ParseDouble(text);
        return d ? Value::Number(*d) : Value::String(text);
      }
    }
    return Value::Null();
  }

  size_t size() const override { return hits_.size(); }
  std::string Key(size_t i) const override { return hits_[i].key; }
  double Score(size_t i) const override { return hits_[i].score; }

  Value SortValue(size_t i, size_t field) const override {
    const AggregateField& f = schema_[field];  // the request's copy (FT.ALTER may run)
    std::optional<std::string> raw;
    if (is_json_) {
      std::vector<std::string> one{f.path};
      LoadedDoc d = LoadDocument(ctx_.keyspace(), index_, hits_[i].key, &one, ctx_.now_ms());
      if (!d.fields.empty()) {
        raw = std::move(d.fields[0].second);
      }
    } else {
      const auto& fields = Cached(i);
      for (const auto& [k, v] : fields) {
        if (k == f.path) {
          raw = v;
          break;
        }
      }
    }
    if (!raw) {
      return Value::Null();
    }
    if (f.numeric) {
      if (auto d = ParseDouble(*raw)) {
        return Value::Number(*d);
      }
    }
    return Value::String(std::move(*raw));
  }

  std::vector<std::pair<std::string, std::string>> Load(
      size_t i, const std::vector<std::string>* paths) override {
    if (is_json_) {
      return LoadDocument(ctx_.keyspace(), index_, hits_[i].key, paths, ctx_.now_ms()).fields;
    }
    const auto& fields = Cached(i);
    if (paths == nullptr) {
      return fields;
    }
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : fields) {
      if (std::find(paths->begin(), paths->end(), kv.first) != paths->end()) {
        out.push_back(kv);
      }
    }
    return out;
  }

 private:
  const std::vector<std::pair<std::string, std::string>>& Cached(size_t i) const {
    if (cached_ != i) {
      cached_ = i;
      cache_ = LoadDocument(ctx_.keyspace(), index_, hits_[i].key, nullptr, ctx_.now_ms()).fields;
    }
    return cache_;
  }

  CommandContext& ctx_;
  const SearchIndex& index_;
  std::vector<SearchHit> hits_;
  std::vector<std::string> yields_;
  std::vector<AggregateField> schema_;
  bool is_json_;
  mutable size_t cached_ = SIZE_MAX;
  mutable std::vector<std::pair<std::string, std::string>> cache_;
};

// The names a query yields into its rows: VECTOR_RANGE's $YIELD_DISTANCE_AS, KNN's score.
void CollectRangeYields(const QueryNode& n, std::vector<std::string>* out) {
  if (n.kind == NodeKind::kVectorRange && !n.yield_distance_as.empty()) {
    out->push_back(n.yield_distance_as);
  }
  for (const auto& c : n.children) {
    CollectRangeYields(*c, out);
  }
}

std::vector<std::string> QueryYields(const Query& q) {
  std::vector<std::string> out;
  if (q.knn) {
    out.push_back(q.knn->score_alias.empty() ? "__" + q.knn->field + "_score"
                                             : q.knn->score_alias);
  }
  if (q.root) {
    CollectRangeYields(*q.root, &out);
  }
  return out;
}

void WriteValue(ReplyBuilder& rb, const Value& v) {
  switch (v.type) {
    case Value::Type::kNull:
      return rb.Null();
    case Value::Type::kNumber:
      return rb.Bulk(FormatNumber(v.num));
    case Value::Type::kString:
      return rb.Bulk(v.str);
    case Value::Type::kArray:
      rb.Array(v.arr ? v.arr->size() : 0);
      if (v.arr) {
        for (const Value& x : *v.arr) {
          WriteValue(rb, x);
        }
      }
      return;
  }
}

// `extra`: more map entries the caller appends (FT.PROFILE's "profile").
void WriteChunk(ReplyBuilder& rb, const AggregateChunk& c, size_t extra = 0) {
  if (!rb.resp3()) {
    rb.Array(1 + c.rows.size());
    rb.Integer(static_cast<int64_t>(c.total_resp2));
    for (const auto& row : c.rows) {
      rb.Array(row.size() * 2);
      for (const auto& [k, v] : row) {
        rb.Bulk(k);
        WriteValue(rb, v);
      }
    }
    return;
  }
  rb.Map(5 + extra);
  rb.SimpleString("attributes");
  rb.Array(0);
  rb.SimpleString("format");
  rb.SimpleString("STRING");
  rb.SimpleString("results");
  rb.Array(c.rows.size());
  for (const auto& row : c.rows) {
    rb.Map(2);
    rb.SimpleString("extra_attributes");
    rb.Map(row.size());
    for (const auto& [k, v] : row) {
      rb.Bulk(k);
      WriteValue(rb, v);
    }
    rb.SimpleString("values");
    rb.Array(0);
  }
  rb.SimpleString("total_results");
  rb.Integer(static_cast<int64_t>(c.total_resp3));
  rb.SimpleString("warning");
  if (c.warning.empty()) {
    rb.Array(0);
  } else {
    rb.Array(1);
    rb.SimpleString(c.warning);
  }
}

struct AggregateRun {
  bool timed_out = false;  // the query hit TIMEOUT (ON_TIMEOUT RETURN): partial results
  std::shared_ptr<SearchIndex> index;  // alive while the source reads from it
  AggregateRequest request;
  std::unique_ptr<AggregatePipeline> pipeline;
  std::unique_ptr<KeyspaceSource> source;
  std::string index_name;
};

// Parses, runs the query and builds the pipeline; replies with the error and returns
// null on failure. args: FT.AGGREGATE's arguments after the index name.
std::unique_ptr<AggregateRun> Prepare(CommandContext& ctx, std::string_view index_name,
                                      const std::vector<std::string_view>& args) {
  auto run = std::make_unique<AggregateRun>();
  Result<AggregateRequest> req = ParseAggregateArgs(args);
  if (!req.ok()) {
    ctx.rb().Error(req.status().message());
    return nullptr;
  }
  run->request = std::move(*req);
  std::shared_ptr<SearchIndex> idx = Indexes().Find(index_name);
  if (idx == nullptr) {
    ctx.rb().Error("No such index " + std::string(index_name));
    return nullptr;
  }
  run->index = idx;
  run->index_name = idx->name();
  QueryParams params;
  for (const auto& [k, v] : run->request.params) {
    params[k] = v;
  }
  ParseOptions popts;
  popts.dialect = run->request.dialect.value_or(
      Settings().default_dialect.load(std::memory_order_relaxed));
  popts.verbatim = run->request.verbatim;
  Result<Query> query = ParseQuery(run->request.query, params, popts);
  if (!query.ok()) {
    ctx.rb().Error(query.status().message());
    return nullptr;
  }
  std::vector<std::string> yields = QueryYields(*query);
  std::vector<AggregateField> schema = SchemaOf(idx->spec());
  auto pipeline = AggregatePipeline::Build(run->request, schema, yields);
  if (!pipeline.ok()) {
    ctx.rb().Error(pipeline.status().message());
    return nullptr;
  }
  run->pipeline = std::move(*pipeline);
  SearchOptions sopts;
  sopts.verbatim = run->request.verbatim;
  if (!run->request.language.empty()) {
    sopts.stemmer = Analyzer::ForLanguage(run->request.language);
  }
  sopts.offset = 0;
  sopts.limit = UINT64_MAX;
  sopts.max_expansions = Settings().max_expansions.load(std::memory_order_relaxed);
  sopts.deadline = Deadline::AfterMs(run->request.timeout_ms.value_or(
      Settings().timeout_ms.load(std::memory_order_relaxed)));
  sopts.timeout_fail = Settings().on_timeout_fail.load(std::memory_order_relaxed);
  Result<SearchOutput> out = ExecuteSearch(*idx, *query, sopts);
  if (!out.ok()) {
    ctx.rb().Error(out.status().message());
    return nullptr;
  }
  run->timed_out = out->timed_out;
  // RediSearch reads the matches in document order.
  std::sort(out->hits.begin(), out->hits.end(),
            [](const SearchHit& a, const SearchHit& b) { return a.doc < b.doc; });
  run->source = std::make_unique<KeyspaceSource>(ctx, *idx, std::move(out->hits), yields,
                                                 std::move(schema));
  run->pipeline->SetSource(run->source.get());
  return run;
}

// Runs an aggregation and writes its reply; `extra` as WriteChunk's. False: an error was
// written.
bool RunAggregate(CommandContext& ctx, std::string_view index_name,
                  const std::vector<std::string_view>& args, size_t extra) {
  std::unique_ptr<AggregateRun> run = Prepare(ctx, index_name, args);
  if (run == nullptr) {
    return false;
  }
  ReplyBuilder& rb = ctx.rb();
  if (!run->request.with_cursor) {
    Result<AggregateChunk> c = run->pipeline->Read(SIZE_MAX);
    if (!c.ok()) {
      rb.Error(c.status().message());
      return false;
    }
    if (run->timed_out && c->warning.empty()) {
      c->warning = "Timeout limit was reached";
    }
    WriteChunk(rb, *c, extra);
    return true;
  }
  run->pipeline->Materialize();
  run->source.reset();
  auto cursor = std::make_unique<Cursor>();
  cursor->index = run->index_name;
  cursor->count = run->request.cursor_count != 0 ? run->request.cursor_count
                                                 : CursorStore::kDefaultCount;
  cursor->max_idle_ms = run->request.cursor_max_idle_ms != 0 ? run->request.cursor_max_idle_ms
                                                             : CursorStore::kDefaultMaxIdleMs;
  Result<AggregateChunk> c = run->pipeline->Read(cursor->count);
  if (!c.ok()) {
    rb.Error(c.status().message());
    return false;
  }
  uint64_t id = 0;
  if (!c->done) {
    cursor->pipeline = std::move(run->pipeline);
    Cursors().Expire(ctx.now_ms());
    id = Cursors().Add(std::move(cursor), ctx.now_ms());
  }
  rb.Array(2);
  WriteChunk(rb, *c);
  rb.Integer(static_cast<int64_t>(id));
  return true;
}

void FtAggregateCommand(CommandContext& ctx) {
  if (ctx.argc() < 2) {
    return WrongArgs(ctx, "FT.AGGREGATE");
  }
  if (ctx.argc() < 3) {
    return ctx.rb().Error("No query string provided");
  }
  std::vector<std::string_view> args(ctx.args().begin() + 2, ctx.args().end());
  RunAggregate(ctx, ctx.arg(1), args, 0);
}

// FT.CURSOR READ idx id [COUNT n] | DEL idx id | GC idx id.
void FtCursorCommand(CommandContext& ctx) {
  if (ctx.argc() < 4) {
    return WrongArgs(ctx, "FT.CURSOR");
  }
  std::string_view sub = ctx.arg(1);
  if (!Eq(sub, "READ") && !Eq(sub, "DEL") && !Eq(sub, "GC")) {
    return ctx.rb().Error("Unknown subcommand");
  }
  auto id = ParseUint64(ctx.arg(3));
  if (!id) {
    return ctx.rb().Error("Bad cursor ID");
  }
  std::string_view index = ctx.arg(2);
  if (std::shared_ptr<SearchIndex> idx = Indexes().Find(index)) {
    index = idx->name();
  }
  if (Eq(sub, "GC")) {
    Cursors().Expire(ctx.now_ms());
    return ctx.rb().Integer(-1);
  }
  if (Eq(sub, "DEL")) {
    if (!Cursors().Delete(*id, index)) {
      return ctx.rb().Error("Cursor does not exist");
    }
    return ctx.rb().Ok();
  }
  std::optional<uint64_t> count;
  if (ctx.argc() >= 5 && Eq(ctx.arg(4), "COUNT")) {
    auto n = ctx.argc() >= 6 ? ParseInt64(ctx.arg(5)) : std::nullopt;
    if (!n || *n < 0) {
      return ctx.rb().Error("Bad value for COUNT");
    }
    count = static_cast<uint64_t>(*n);
  }
  std::unique_ptr<Cursor> c = Cursors().Take(*id, index, ctx.now_ms());
  if (c == nullptr) {
    return ctx.rb().Error("Cursor not found");
  }
  uint64_t n = count && *count > 0 ? *count : c->count;
  Result<AggregateChunk> chunk = c->pipeline->Read(n);
  if (!chunk.ok()) {
    Cursors().Delete(*id, index);
    return ctx.rb().Error(chunk.status().message());
  }
  ReplyBuilder& rb = ctx.rb();
  rb.Array(2);
  WriteChunk(rb, *chunk);
  if (chunk->done) {
    Cursors().Delete(*id, index);
    rb.Integer(0);
  } else {
    Cursors().Put(*id, std::move(c), ctx.now_ms());
    rb.Integer(static_cast<int64_t>(*id));
  }
}

// ---- FT.PROFILE's iterator tree ----

// One iterator of RediSearch's profile tree, as FT.PROFILE prints it.
struct ProfileNode {
  std::string type;        // TEXT, TAG, NUMERIC, UNION, INTERSECT, NOT, ...
  std::string term;        // leaves: "Term"
  std::string query_type;  // UNION: "Query type" ("UNION", "PREFIX - hel", ...)
  double ms = 0;
  uint64_t reads = 0;
  bool leaf = false;       // has "Estimated number of matches"
  bool single = false;     // "Child iterator" (NOT, OPTIONAL, VECTOR filter)
  bool has_children = false;
  std::vector<ProfileNode> children;
};

std::string ProfileNumber(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

ProfileNode BuildProfile(const QueryNode& n, const QueryProfile& prof, const SearchIndex& idx,
                         size_t max_expansions, uint64_t matches, double ms, int depth) {
  ProfileNode p;
  if (auto it = prof.nodes.find(&n); it != prof.nodes.end()) {
    matches = it->second.matches;
    ms = it->second.ms;
  }
  p.ms = ms;
  p.reads = matches;
  auto leaf = [&](const char* type, std::string term) {
    p.type = type;
    p.term = std::move(term);
    p.leaf = true;
  };
  // A term evaluated inside a text subtree has no count of its own: its documents.
  auto term_docs = [&](const std::string& term) {
    std::shared_lock lock(idx.mutex());
    return idx.text().TermDocs(term);
  };
  const bool own = prof.nodes.count(&n) != 0;
  auto text_leaf = [&](std::string term) {
    ProfileNode c;
    c.type = "TEXT";
    c.reads = term_docs(term);
    c.term = std::move(term);
    c.leaf = true;
    c.ms = ms;
    return c;
  };
  auto kids = [&]() {
    p.has_children = true;
    if (depth > 64) return;  // FT.PROFILE prints the first levels of deep trees only
    for (const auto& c : n.children) {
      p.children.push_back(BuildProfile(*c, prof, idx, max_expansions, matches, ms, depth + 1));
    }
  };
  const Analyzer& an = idx.analyzer();
  switch (n.kind) {
    case NodeKind::kMatchAll:
      p.type = "WILDCARD";
      break;
    case NodeKind::kEmpty:
    case NodeKind::kIsMissing:
      p.type = "EMPTY";
      break;
    case NodeKind::kTerm:
      leaf("TEXT", an.Normalize(n.term));
      if (!own) {
        p.reads = term_docs(p.term);
      }
      break;
    case NodeKind::kPrefix: {
      p.type = "UNION";
      const std::string t = an.Normalize(n.term);
      p.query_type = "PREFIX - " + t;
      p.has_children = true;
      std::vector<std::string> terms;
      {
        std::shared_lock lock(idx.mutex());
        terms = idx.text().TermsWithPrefix(t, max_expansions);
      }
      for (std::string& term : terms) {
        p.children.push_back(text_leaf(std::move(term)));
      }
      break;
    }
    case NodeKind::kSuffix:
    case NodeKind::kInfix:
    case NodeKind::kWildcard:
    case NodeKind::kFuzzy:
      p.type = "UNION";
      p.query_type = std::string(n.kind == NodeKind::kSuffix   ? "SUFFIX"
                                 : n.kind == NodeKind::kInfix  ? "INFIX"
                                 : n.kind == NodeKind::kFuzzy  ? "FUZZY"
                                                               : "WILDCARD") +
                     " - " + an.Normalize(n.term);
      p.has_children = true;
      break;
    case NodeKind::kPhrase:
      p.type = "INTERSECT";
      p.has_children = true;
      for (const std::string& w : n.phrase_terms) {
        p.children.push_back(text_leaf(an.Normalize(w)));
      }
      break;
    case NodeKind::kIntersect: {
      p.type = "INTERSECT";
      kids();
      // RediSearch reads the smallest child first (negations and "*" count as every
      // document).
      auto est = [](const ProfileNode& c) {
        return c.type == "NOT" || c.type == "OPTIONAL" || c.type == "WILDCARD" ? UINT64_MAX
                                                                                 : c.reads;
      };
      std::stable_sort(p.children.begin(), p.children.end(),
                       [&](const ProfileNode& a, const ProfileNode& b) { return est(a) < est(b); });
      break;
    }
    case NodeKind::kUnion:
      p.type = "UNION";
      p.query_type = "UNION";
      kids();
      break;
    case NodeKind::kNot:
    case NodeKind::kOptional:
      p.type = n.kind == NodeKind::kNot ? "NOT" : "OPTIONAL";
      p.single = true;
      kids();
      if (p.children.empty()) {
        p.children.push_back(ProfileNode{"EMPTY"});
      }
      p.children.resize(1);
      break;
    case NodeKind::kTag:
      if (n.tags.size() == 1) {
        leaf("TAG", n.tags[0].value);
      } else {
        p.type = "UNION";
        p.query_type = "TAG";
        p.has_children = true;
        for (const TagValue& v : n.tags) {
          ProfileNode c;
          c.type = "TAG";
          c.term = v.value;
          c.leaf = true;
          c.ms = ms;
          c.reads = matches;
          p.children.push_back(std::move(c));
        }
      }
      break;
    case NodeKind::kNumeric:
      leaf("NUMERIC", ProfileNumber(n.num_min) + " - " + ProfileNumber(n.num_max));
      break;
    case NodeKind::kGeo:
      leaf("GEO", ProfileNumber(n.lon) + "," + ProfileNumber(n.lat) + " - " +
                      ProfileNumber(n.radius_m));
      break;
    case NodeKind::kVectorRange:
      p.type = "VECTOR";
      break;
  }
  return p;
}

// RESP2: a flat array of pairs, the children spliced after their key; RESP3: a map.
// `limited` (FT.PROFILE ... LIMITED): a union's children are summed up in one line.
void WriteProfileNode(ReplyBuilder& rb, const ProfileNode& p, bool limited) {
  const bool summed = limited && p.type == "UNION" && p.has_children && !p.single;
  const size_t pairs = 3 + (!p.term.empty() || p.leaf ? 1 : 0) + (!p.query_type.empty() ? 1 : 0) +
                       (p.leaf ? 1 : 0);
  const bool kids = p.has_children || p.single;
  if (rb.resp3()) {
    rb.Map(pairs + (kids ? 1 : 0));
  } else {
    rb.Array(pairs * 2 + (kids ? 1 + (p.single || summed ? 1 : p.children.size()) : 0));
  }
  rb.SimpleString("Type");
  rb.SimpleString(p.type);
  if (!p.query_type.empty()) {
    rb.SimpleString("Query type");
    rb.SimpleString(p.query_type);
  }
  if (!p.term.empty() || p.leaf) {
    rb.SimpleString("Term");
    rb.SimpleString(p.term);
  }
  rb.SimpleString("Time");
  rb.Double(p.ms);
  rb.SimpleString("Number of reading operations");
  rb.Integer(static_cast<int64_t>(p.reads));
  if (p.leaf) {
    rb.SimpleString("Estimated number of matches");
    rb.Integer(static_cast<int64_t>(p.reads));
  }
  if (p.single) {
    rb.SimpleString("Child iterator");
    WriteProfileNode(rb, p.children[0], limited);
  } else if (summed) {
    rb.SimpleString("Child iterators");
    rb.SimpleString("The number of iterators in the union is " +
                    std::to_string(p.children.size()));
  } else if (p.has_children) {
    rb.SimpleString("Child iterators");
    if (rb.resp3()) {
      rb.Array(p.children.size());
    }
    for (const ProfileNode& c : p.children) {
      WriteProfileNode(rb, c, limited);
    }
  }
}

// The iterator tree and the result processors of a profiled query (run once more, with
// per-node counts and times; parse errors were the command's reply already).
struct ProfileData {
  bool ok = false;
  ProfileNode root;
  uint64_t total = 0;
  std::vector<const char*> processors;
};

ProfileData ProfileQuery(const SearchIndex& idx, bool search, std::string_view query_text,
                         const std::vector<std::string_view>& rest) {
  ProfileData out;
  QueryParams params;
  ParseOptions popts;
  popts.dialect = Settings().default_dialect.load(std::memory_order_relaxed);
  bool nocontent = false;
  for (size_t k = 0; k < rest.size(); ++k) {
    std::string_view a = rest[k];
    if (Eq(a, "NOCONTENT")) {
      nocontent = true;
    } else if (Eq(a, "VERBATIM")) {
      popts.verbatim = true;
    } else if (Eq(a, "DIALECT") && k + 1 < rest.size()) {
      if (auto d = ParseInt64(rest[k + 1]); d && *d >= 1 && *d <= 4) {
        popts.dialect = static_cast<int>(*d);
      }
    } else if (Eq(a, "PARAMS") && k + 1 < rest.size()) {
      auto n = ParseInt64(rest[k + 1]);
      if (n && *n >= 0 && k + 2 + static_cast<size_t>(*n) <= rest.size()) {
        for (size_t j = 0; j + 1 < static_cast<size_t>(*n); j += 2) {
          params[std::string(rest[k + 2 + j])] = std::string(rest[k + 3 + j]);
        }
        k += 1 + static_cast<size_t>(*n);
      }
    }
  }
  if (search) {
    out.processors = {"Index", "Scorer", "Sorter"};
    if (!nocontent) {
      out.processors.push_back("Loader");
    }
  } else {
    out.processors = {"Index"};
    for (std::string_view a : rest) {
      if (Eq(a, "LOAD")) out.processors.push_back("Loader");
      else if (Eq(a, "GROUPBY")) out.processors.push_back("Grouper");
      else if (Eq(a, "APPLY")) out.processors.push_back("Projector");
      else if (Eq(a, "FILTER")) out.processors.push_back("Filter");
      else if (Eq(a, "SORTBY")) out.processors.push_back("Sorter");
      else if (Eq(a, "LIMIT")) out.processors.push_back("Pager/Limiter");
    }
  }
  Result<Query> q = ParseQuery(query_text, params, popts);
  if (!q.ok()) {
    return out;
  }
  QueryProfile prof;
  SearchOptions so;
  so.limit = 0;
  so.max_expansions = Settings().max_expansions.load(std::memory_order_relaxed);
  so.verbatim = popts.verbatim;
  so.profile = &prof;
  const int64_t t0 = MonotonicNs();
  Result<SearchOutput> r = ExecuteSearch(idx, *q, so);
  const double ms = static_cast<double>(MonotonicNs() - t0) / 1e6;
  out.total = r.ok() ? r->total : 0;
  out.root = BuildProfile(*q->root, prof, idx, so.max_expansions, out.total, ms, 0);
  if (q->knn) {
    ProfileNode v;
    v.type = "VECTOR";
    v.ms = ms;
    v.reads = out.total;
    if (q->knn->has_filter) {
      v.single = true;
      v.children.push_back(std::move(out.root));
    }
    out.root = std::move(v);
  }
  out.ok = true;
  return out;
}

// FT.PROFILE idx SEARCH|AGGREGATE [LIMITED] QUERY query [args...]: the command's reply and
// RediSearch's profile (RESP2 [reply, profile]; RESP3 the reply's map + "profile"): times,
// the iterators tree (from the query, with each node's matches and time), the result
// processors.
void FtProfileCommand(CommandContext& ctx) {
  if (ctx.argc() < 5) {
    return WrongArgs(ctx, "FT.PROFILE");
  }
  std::string_view kind = ctx.arg(2);
  bool search = Eq(kind, "SEARCH");
  if (!search && !Eq(kind, "AGGREGATE")) {
    return ctx.rb().Error("No `SEARCH` or `AGGREGATE` provided");
  }
  size_t i = 3;
  const bool limited = Eq(ctx.arg(i), "LIMITED");
  if (limited) {
    ++i;
  }
  if (i >= ctx.argc() || !Eq(ctx.arg(i), "QUERY")) {
    return ctx.rb().Error("The QUERY keyword is expected");
  }
  ++i;
  if (i >= ctx.argc()) {
    return ctx.rb().Error("No query string provided");
  }
  if (Indexes().Find(ctx.arg(1)) == nullptr) {
    return ctx.rb().Error("No such index " + std::string(ctx.arg(1)));
  }
  auto start = std::chrono::steady_clock::now();
  ReplyBuilder& rb = ctx.rb();
  ByteBuffer* out = rb.buffer();
  size_t pos = rb.BeginDeferred();
  if (search) {
    const CommandSpec* spec = ctx.server().commands().Find("ft.search");
    if (spec == nullptr || spec->handler == nullptr) {
      return rb.Error("ERR unknown command 'FT.SEARCH'");
    }
    std::vector<std::string_view> args{"FT.SEARCH", ctx.arg(1)};
    args.insert(args.end(), ctx.args().begin() + static_cast<ptrdiff_t>(i), ctx.args().end());
    CommandContext inner(ctx.server(), ctx.worker(), ctx.client(), rb, args, spec,
                         ctx.now_ms());
    spec->handler(inner);
  } else {
    std::vector<std::string_view> args(ctx.args().begin() + static_cast<ptrdiff_t>(i),
                                       ctx.args().end());
    RunAggregate(ctx, ctx.arg(1), args, rb.resp3() ? 1 : 0);
  }
  if (out->size() > pos && out->data()[pos] == '-') {
    return;  // the command's error is the reply
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  if (rb.resp3()) {
    if (search && out->size() > pos + 1 && out->data()[pos] == '%') {
      // FT.SEARCH wrote a map of 5: make room for "profile" (same width, "%5" -> "%6").
      char* p = out->data() + pos + 1;
      if (p[0] >= '0' && p[0] <= '8' && p[1] == '\r') {
        ++p[0];
      }
    }
    rb.SimpleString("profile");
    rb.Map(7);
  } else {
    rb.EndDeferredArray(pos, 2);
    rb.Array(7);
  }
  auto pair = [&](const char* k, double v) {
    if (!rb.resp3()) {
      rb.Array(2);
    }
    rb.SimpleString(k);
    rb.Double(v);
  };
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  ProfileData prof;
  if (idx != nullptr) {
    std::vector<std::string_view> rest(ctx.args().begin() + static_cast<ptrdiff_t>(i) + 1,
                                       ctx.args().end());
    prof = ProfileQuery(*idx, search, ctx.arg(i), rest);
  }
  pair("Total profile time", ms);
  pair("Parsing time", 0);
  pair("Pipeline creation time", 0);
  pair("Total GIL time", ms);
  auto processors = [&]() {
    for (const char* name : prof.processors) {
      if (rb.resp3()) {
        rb.Map(3);
      } else {
        rb.Array(6);
      }
      rb.SimpleString("Type");
      rb.SimpleString(name);
      rb.SimpleString("Time");
      rb.Double(0);
      rb.SimpleString("Results processed");
      rb.Integer(static_cast<int64_t>(prof.total));
    }
  };
  if (!rb.resp3()) {
    rb.Array(1);
    rb.SimpleString("Warning");
    rb.Array(prof.ok ? 2 : 1);
    rb.SimpleString("Iterators profile");
    if (prof.ok) {
      WriteProfileNode(rb, prof.root, limited);
    }
    rb.Array(1 + prof.processors.size());
    rb.SimpleString("Result processors profile");
    processors();
  } else {
    rb.SimpleString("Warning");
    rb.SimpleString("None");
    rb.SimpleString("Iterators profile");
    rb.Array(prof.ok ? 1 : 0);
    if (prof.ok) {
      WriteProfileNode(rb, prof.root, limited);
    }
    rb.SimpleString("Result processors profile");
    rb.Array(prof.processors.size());
    processors();
  }
}

}  // namespace

void RegisterAggregateCommands(CommandTable& t) {
  t.Add({.name = "ft.aggregate", .arity = -1, .flags = "readonly self_locking",
         .acl = "@search", .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtAggregateCommand,
         .doc = {"search", "1.1.0", "O(1)",
                 "Runs a search query on an index and performs aggregate transformations on "
                 "the results.",
                 "index query [VERBATIM] [LOAD count field [field ...]] [TIMEOUT timeout] "
                 "[GROUPBY nargs property [property ...] [REDUCE function nargs arg [arg ...] "
                 "[AS name] ...]] [SORTBY nargs [property ASC | DESC ...] [MAX num]] "
                 "[APPLY expression AS name ...] [LIMIT offset num] [FILTER filter] "
                 "[WITHCURSOR [COUNT read_size] [MAXIDLE idle_time]] [PARAMS nargs name value "
                 "[name value ...]] [DIALECT dialect]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.cursor", .arity = -1, .flags = "readonly self_locking", .acl = "@search",
         .handler = FtCursorCommand,
         .doc = {"search", "1.1.0", "O(1)",
                 "Reads from or deletes a cursor of FT.AGGREGATE ... WITHCURSOR.",
                 "READ | DEL | GC index cursor_id [COUNT read_size]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.profile", .arity = -1, .flags = "readonly self_locking", .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtProfileCommand,
         .doc = {"search", "2.2.0", "O(N)",
                 "Runs FT.SEARCH or FT.AGGREGATE and reports how long it took.",
                 "index SEARCH | AGGREGATE [LIMITED] QUERY query [args ...]"},
         .all_shards_in_exec = FtAllShardsInExec});
}

}  // namespace hotkv::search

// FT.CREATE, FT.SEARCH, FT.DROPINDEX, FT._LIST and the module's registration.
//
// FT.SEARCH runs on the worker that received it with no shard lock held: it parses,
// runs the query under the index's shared lock (query_exec.cc), releases it, then locks
// each result document's shard briefly to read its fields (index_registry.cc,
// LoadDocument). A document deleted in between is left out of the page.
#include "search/search_family.h"

#include <algorithm>
#include <cstring>
#include <strings.h>

#include "common/clock.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/keyspace.h"
#include "search/aggregate_family.h"
#include "search/highlight.h"
#include "search/index_registry.h"
#include "search/query_exec.h"
#include "search/search_config.h"
#include "server/command_context.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv::search {

SearchSettings& Settings() {
  static SearchSettings s;
  return s;
}

bool FtAllShardsInExec(const std::vector<std::string_view>&) { return true; }

namespace {

// A keyword test: the literal's length is known at compile time (no strlen per test;
// ParseSearchArgs runs dozens per query).
template <size_t N>
inline bool Eq(std::string_view a, const char (&b)[N]) {
  return a.size() == N - 1 && strncasecmp(a.data(), b, N - 1) == 0;
}

void WrongArgs(CommandContext& ctx, const char* name) {
  ctx.rb().Error(std::string("ERR wrong number of arguments for '") + name + "' command");
}

void MarkDirty(CommandContext& ctx) { WorkerStats::Inc(ctx.worker().stats().dirty); }

// ---- FT.CREATE ----

void FtCreateCommand(CommandContext& ctx) {
  if (ctx.argc() < 2) {
    return WrongArgs(ctx, "FT.CREATE");
  }
  std::string_view name = ctx.arg(1);
  std::vector<std::string_view> args(ctx.args().begin() + 2, ctx.args().end());
  Result<IndexSpec> spec = ParseCreateArgs(name, args);
  if (!spec.ok()) {
    return ctx.rb().Error(spec.status().message());
  }
  if (Indexes().FindByName(name) != nullptr) {
    return ctx.rb().Error("Index already exists");
  }
  const bool skip_scan = spec->skip_initial_scan;
  Result<std::shared_ptr<SearchIndex>> idx = SearchIndex::Create(std::move(*spec));
  if (!idx.ok()) {
    return ctx.rb().Error(idx.status().message());
  }
  if (!Indexes().Add(*idx)) {
    return ctx.rb().Error("Index already exists");
  }
  if (!skip_scan) {
    ScanExisting(ctx.keyspace(), **idx, ctx.now_ms());
  }
  MarkDirty(ctx);  // the write stream (AOF) keeps the definition as the command ran
  ctx.rb().Ok();
}

// ---- FT.DROPINDEX ----

// FT.DROPINDEX idx [DD]; `legacy`: FT.DROP idx [KEEPDOCS] semantics (deletes by default;
// FT.DROP itself is registered by search_admin_family.cc).
void DropIndex(CommandContext& ctx, bool legacy) {
  const char* name = legacy ? "FT.DROP" : "FT.DROPINDEX";
  if (ctx.argc() < 2 || ctx.argc() > 3) {
    return WrongArgs(ctx, name);
  }
  // A third argument other than DD (KEEPDOCS) is ignored, as RediSearch does (redis-py
  // sends "" for delete_documents=False).
  bool dd = legacy;
  if (ctx.argc() == 3) {
    dd = legacy ? !Eq(ctx.arg(2), "KEEPDOCS") : Eq(ctx.arg(2), "DD");
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Remove(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("Unknown Index name");
  }
  if (dd) {
    std::vector<std::string> keys;
    {
      std::shared_lock lock(idx->mutex());
      keys.reserve(idx->num_docs());
      for (DocId d : idx->AllDocs()) {
        keys.push_back(idx->KeyOf(d));
      }
    }
    Keyspace& ks = ctx.keyspace();
    for (const std::string& key : keys) {
      const uint32_t shard = Keyspace::ShardOf(key);
      const bool held = ThisThreadHoldsShard(shard);
      if (!held) {
        ks.shard(shard).lock.lock();
      }
      Database db(&ks, 0, ctx.now_ms());
      KeyRef ref = db.Lookup(key);
      if (ref) {
        db.Erase(ref);
        ctx.KeyModified(key, notify::kGeneric, "del", 0);
      }
      if (!held) {
        ks.shard(shard).lock.unlock();
      }
    }
  }
  MarkDirty(ctx);
  ctx.rb().Ok();
}

void FtDropIndexCommand(CommandContext& ctx) { DropIndex(ctx, false); }

// ---- FT._LIST ----

void FtListCommand(CommandContext& ctx) {
  std::vector<std::string> names = Indexes().Names();
  ctx.rb().Array(names.size());
  for (const std::string& n : names) {
    ctx.rb().SimpleString(n);
  }
}

// ---- FT.SEARCH ----

struct ReturnField {
  std::string name;
  std::string as;
};

// HIGHLIGHT / SUMMARIZE: the settings for every field (`def`) and for named fields.
struct HighlightRequest {
  bool any = false;
  HighlightSettings def;
  std::vector<std::pair<std::string, HighlightSettings>> fields;  // in first-named order

  HighlightSettings* Field(std::string_view name) {
    for (auto& f : fields) {
      if (f.first == name) return &f.second;
    }
    HighlightSettings hs;
    hs.highlight = hs.summarize = false;
    fields.emplace_back(std::string(name), hs);
    return &fields.back().second;
  }
  const HighlightSettings* Find(std::string_view name) const {
    for (const auto& f : fields) {
      if (f.first == name) return &f.second;
    }
    return nullptr;
  }
  // RediSearch's normalizeSettings: a field's own settings over the defaults.
  HighlightSettings Merged(const HighlightSettings* f) const {
    if (f == nullptr) return def;
    HighlightSettings out = *f;
    if (!f->highlight && def.highlight) {
      out.open = def.open;
      out.close = def.close;
    }
    if (!f->summarize && def.summarize) {
      out.frags = def.frags;
      out.len = def.len;
      out.separator = def.separator;
    }
    out.highlight = f->highlight || def.highlight;
    out.summarize = f->summarize || def.summarize;
    return out;
  }
};

struct SearchRequest {
  bool nocontent = false;
  bool withpayloads = false;  // WITHPAYLOADS: the PAYLOAD_FIELD's value (or nil) per result
  int64_t timeout_ms = -1;  // TIMEOUT; -1: FT.CONFIG's
  HighlightRequest hl;
  bool withscores = false;
  bool has_return = false;
  std::vector<ReturnField> returns;
  SearchOptions opts;
  ParseOptions parse;
  QueryParams params;
  // Legacy FILTER / GEOFILTER arguments.
  std::vector<std::unique_ptr<QueryNode>> filters;
};

// Reads `n` then n arguments starting at args[*i] (the count). Errors as RediSearch's.
bool ReadCounted(CommandContext& ctx, size_t* i, const char* what,
                 std::vector<std::string_view>* out) {
  if (*i + 1 >= ctx.argc()) {
    ctx.rb().Error(std::string("Bad arguments for ") + what +
                   ": Expected an argument, but none provided");
    return false;
  }
  auto n = ParseInt64(ctx.arg(*i + 1));
  if (!n || *n < 0) {
    ctx.rb().Error(std::string("Bad arguments for ") + what + ": Value is not a valid number");
    return false;
  }
  if (*i + 2 + static_cast<size_t>(*n) > ctx.argc()) {
    ctx.rb().Error(std::string("Bad arguments for ") + what +
                   ": Expected an argument, but none provided");
    return false;
  }
  for (int64_t k = 0; k < *n; k++) {
    out->push_back(ctx.arg(*i + 2 + k));
  }
  *i += 2 + static_cast<size_t>(*n);
  return true;
}

bool ParseScorer(std::string_view s, Scorer* out) {
  if (Eq(s, "BM25STD")) {
    *out = Scorer::kBm25Std;
  } else if (Eq(s, "BM25")) {
    *out = Scorer::kBm25;
  } else if (Eq(s, "TFIDF")) {
    *out = Scorer::kTfIdf;
  } else if (Eq(s, "TFIDF.DOCNORM")) {
    *out = Scorer::kTfIdfDocNorm;
  } else if (Eq(s, "DISMAX")) {
    *out = Scorer::kDisMax;
  } else if (Eq(s, "DOCSCORE")) {
    *out = Scorer::kDocScore;
  } else if (Eq(s, "HAMMING")) {
    *out = Scorer::kHamming;
  } else {
    return false;
  }
  return true;
}

// Parses FT.SEARCH's options (args[3..]); replies with the error and returns false.
bool ParseSearchArgs(CommandContext& ctx, SearchRequest* req) {
  req->parse.dialect = Settings().default_dialect.load(std::memory_order_relaxed);
  req->opts.max_expansions = Settings().max_expansions.load(std::memory_order_relaxed);
  req->opts.scorer = Settings().default_scorer.load(std::memory_order_relaxed);
  size_t i = 3;
  while (i < ctx.argc()) {
    std::string_view a = ctx.arg(i);
    if (Eq(a, "NOCONTENT")) {
      req->nocontent = true;
      i++;
    } else if (Eq(a, "VERBATIM")) {
      req->opts.verbatim = true;
      req->parse.verbatim = true;
      i++;
    } else if (Eq(a, "NOSTOPWORDS")) {
      req->parse.no_stopwords = true;
      i++;
    } else if (Eq(a, "WITHSCORES")) {
      req->withscores = true;
      i++;
    } else if (Eq(a, "WITHPAYLOADS")) {
      req->withpayloads = true;
      i++;
    } else if (Eq(a, "WITHSORTKEYS") || Eq(a, "EXPLAINSCORE") ||
               Eq(a, "INORDER")) {
      i++;
    } else if (Eq(a, "INKEYS") || Eq(a, "INFIELDS")) {
      std::vector<std::string_view> v;
      const bool keys = Eq(a, "INKEYS");
      if (!ReadCounted(ctx, &i, keys ? "INKEYS" : "INFIELDS", &v)) {
        return false;
      }
      for (std::string_view s : v) {
        (keys ? req->opts.inkeys : req->opts.infields).emplace_back(s);
      }
    } else if (Eq(a, "RETURN")) {
      std::vector<std::string_view> v;
      if (!ReadCounted(ctx, &i, "RETURN", &v)) {
        return false;
      }
      req->has_return = true;
      for (size_t k = 0; k < v.size(); k++) {
        ReturnField f{std::string(v[k]), std::string(v[k])};
        if (k + 2 < v.size() + 0 && Eq(v[k + 1], "AS")) {
          f.as = std::string(v[k + 2]);
          k += 2;
        } else if (k + 1 < v.size() && Eq(v[k + 1], "AS")) {
          ctx.rb().Error("Bad arguments for RETURN: Expected an argument, but none provided");
          return false;
        }
        req->returns.push_back(std::move(f));
      }
    } else if (Eq(a, "SORTBY")) {
      if (i + 1 >= ctx.argc()) {
        ctx.rb().Error("Bad SORTBY arguments");
        return false;
      }
      std::string_view f = ctx.arg(i + 1);
      if (!f.empty() && f[0] == '@') {
        f.remove_prefix(1);
      }
      req->opts.sortby = std::string(f);
      i += 2;
      if (i < ctx.argc() && (Eq(ctx.arg(i), "ASC") || Eq(ctx.arg(i), "DESC"))) {
        req->opts.sort_ascending = Eq(ctx.arg(i), "ASC");
        i++;
      }
    } else if (Eq(a, "LIMIT")) {
      if (i + 2 >= ctx.argc()) {
        ctx.rb().Error("LIMIT requires two arguments");
        return false;
      }
      auto off = ParseInt64(ctx.arg(i + 1));
      auto num = ParseInt64(ctx.arg(i + 2));
      if (!off || !num || *off < 0 || *num < 0) {
        ctx.rb().Error("LIMIT needs two numeric arguments");
        return false;
      }
      const uint64_t max = Settings().max_search_results.load(std::memory_order_relaxed);
      if (static_cast<uint64_t>(*off) + static_cast<uint64_t>(*num) > max) {
        ctx.rb().Error("OFFSET exceeds maximum of " + std::to_string(max));
        return false;
      }
      req->opts.offset = static_cast<uint64_t>(*off);
      req->opts.limit = static_cast<uint64_t>(*num);
      i += 3;
    } else if (Eq(a, "PARAMS")) {
      std::vector<std::string_view> v;
      if (i + 1 >= ctx.argc()) {
        ctx.rb().Error("Bad arguments for PARAMS: Expected an argument, but none provided");
        return false;
      }
      auto n = ParseInt64(ctx.arg(i + 1));
      if (n && *n % 2 != 0) {
        ctx.rb().Error("Parameters must be specified in PARAM VALUE pairs");
        return false;
      }
      if (!ReadCounted(ctx, &i, "PARAMS", &v)) {
        return false;
      }
      for (size_t k = 0; k + 1 < v.size(); k += 2) {
        req->params[std::string(v[k])] = std::string(v[k + 1]);
      }
    } else if (Eq(a, "DIALECT")) {
      auto d = i + 1 < ctx.argc() ? ParseInt64(ctx.arg(i + 1)) : std::nullopt;
      if (!d || *d < 1 || *d > 4) {
        ctx.rb().Error("DIALECT requires a non negative integer >=1 and <= 4");
        return false;
      }
      req->parse.dialect = static_cast<int>(*d);
      i += 2;
    } else if (Eq(a, "TIMEOUT")) {
      auto t = i + 1 < ctx.argc() ? ParseInt64(ctx.arg(i + 1)) : std::nullopt;
      if (!t || *t < 0) {
        ctx.rb().Error("TIMEOUT requires a non negative integer");
        return false;
      }
      req->timeout_ms = *t;
      i += 2;
    } else if (Eq(a, "SCORER")) {
      if (i + 1 >= ctx.argc()) {
        ctx.rb().Error("Bad arguments for SCORER: Expected an argument, but none provided");
        return false;
      }
      if (!ParseScorer(ctx.arg(i + 1), &req->opts.scorer)) {
        ctx.rb().Error("No such scorer " + std::string(ctx.arg(i + 1)));
        return false;
      }
      i += 2;
    } else if (Eq(a, "SLOP")) {
      if (i + 1 >= ctx.argc() || !ParseInt64(ctx.arg(i + 1))) {
        ctx.rb().Error("Bad arguments for SLOP: Value is not a valid number");
        return false;
      }
      i += 2;
    } else if (Eq(a, "LANGUAGE") || Eq(a, "EXPANDER") || Eq(a, "PAYLOAD")) {
      if (i + 1 >= ctx.argc()) {
        ctx.rb().Error(std::string("Bad arguments for ") + std::string(a) +
                       ": Expected an argument, but none provided");
        return false;
      }
      if (Eq(a, "LANGUAGE")) {
        // The query's terms expand to their stems in this language.
        if (!IsLanguage(ctx.arg(i + 1))) {
          ctx.rb().Error("No such language");
          return false;
        }
        req->opts.stemmer = Analyzer::ForLanguage(ctx.arg(i + 1));
      }
      i += 2;
    } else if (Eq(a, "FILTER")) {
      // Legacy numeric filter: FILTER field min max ("(" exclusive, -inf/+inf).
      if (i + 3 >= ctx.argc()) {
        ctx.rb().Error("Bad arguments for FILTER: Expected an argument, but none provided");
        return false;
      }
      auto node = std::make_unique<QueryNode>();
      node->kind = NodeKind::kNumeric;
      std::string_view f = ctx.arg(i + 1);
      if (!f.empty() && f[0] == '@') {
        f.remove_prefix(1);
      }
      node->fields.emplace_back(f);
      auto bound = [&](std::string_view s, double* v, bool* excl) {
        if (!s.empty() && s[0] == '(') {
          *excl = true;
          s.remove_prefix(1);
        }
        auto d = ParseDouble(s);
        if (!d) {
          return false;
        }
        *v = *d;
        return true;
      };
      if (!bound(ctx.arg(i + 2), &node->num_min, &node->min_exclusive) ||
          !bound(ctx.arg(i + 3), &node->num_max, &node->max_exclusive)) {
        ctx.rb().Error("Bad upper range: " + std::string(ctx.arg(i + 3)));
        return false;
      }
      req->filters.push_back(std::move(node));
      i += 4;
    } else if (Eq(a, "GEOFILTER")) {
      if (i + 5 >= ctx.argc()) {
        ctx.rb().Error("Bad arguments for GEOFILTER: Expected an argument, but none provided");
        return false;
      }
      auto node = std::make_unique<QueryNode>();
      node->kind = NodeKind::kGeo;
      node->fields.emplace_back(ctx.arg(i + 1));
      auto lon = ParseDouble(ctx.arg(i + 2));
      auto lat = ParseDouble(ctx.arg(i + 3));
      auto r = ParseDouble(ctx.arg(i + 4));
      std::string_view unit = ctx.arg(i + 5);
      double mult = Eq(unit, "m") ? 1 : Eq(unit, "km") ? 1000 : Eq(unit, "mi") ? 1609.34
                  : Eq(unit, "ft") ? 0.3048 : 0;
      if (!lon || !lat || !r || mult == 0) {
        ctx.rb().Error("Invalid GeoFilter unit");
        return false;
      }
      node->lon = *lon;
      node->lat = *lat;
      node->radius_m = *r * mult;
      node->unit = std::string(unit);
      req->filters.push_back(std::move(node));
      i += 6;
    } else if (Eq(a, "HIGHLIGHT") || Eq(a, "SUMMARIZE")) {
      const bool summarize = Eq(a, "SUMMARIZE");
      const std::string bad = summarize ? "Bad arguments for SUMMARIZE" : "Bad arguments for HIGHLIGHT";
      i++;
      std::vector<std::string_view> names;
      if (i < ctx.argc() && Eq(ctx.arg(i), "FIELDS")) {
        auto n = i + 1 < ctx.argc() ? ParseInt64(ctx.arg(i + 1)) : std::nullopt;
        if (!n || *n < 0 || static_cast<uint64_t>(*n) > ctx.argc() - i - 2) {
          ctx.rb().Error(bad);
          return false;
        }
        for (int64_t k = 0; k < *n; k++) {
          names.push_back(ctx.arg(i + 2 + static_cast<size_t>(k)));
        }
        i += 2 + static_cast<size_t>(*n);
      }
      HighlightSettings hs;
      while (i < ctx.argc()) {
        std::string_view o = ctx.arg(i);
        if (!summarize && Eq(o, "TAGS")) {
          if (i + 2 >= ctx.argc()) {
            ctx.rb().Error(bad);
            return false;
          }
          hs.open = std::string(ctx.arg(i + 1));
          hs.close = std::string(ctx.arg(i + 2));
          i += 3;
        } else if (summarize && (Eq(o, "LEN") || Eq(o, "FRAGS"))) {
          auto v = i + 1 < ctx.argc() ? ParseInt64(ctx.arg(i + 1)) : std::nullopt;
          if (!v || *v < 0) {
            ctx.rb().Error(bad);
            return false;
          }
          (Eq(o, "LEN") ? hs.len : hs.frags) = static_cast<uint64_t>(*v);
          i += 2;
        } else if (summarize && Eq(o, "SEPARATOR")) {
          if (i + 1 >= ctx.argc()) {
            ctx.rb().Error(bad);
            return false;
          }
          hs.separator = std::string(ctx.arg(i + 1));
          i += 2;
        } else {
          break;
        }
      }
      auto apply = [&](HighlightSettings* t) {
        if (summarize) {
          t->summarize = true;
          t->frags = hs.frags;
          t->len = hs.len;
          t->separator = hs.separator;
        } else {
          t->highlight = true;
          t->open = hs.open;
          t->close = hs.close;
        }
      };
      if (names.empty()) {
        apply(&req->hl.def);
      } else {
        for (std::string_view n : names) {
          apply(req->hl.Field(n));
        }
      }
      req->hl.any = true;
    } else {
      ctx.rb().Error("Unknown argument `" + std::string(a) + "` at position " +
                     std::to_string(i - 2) + " for <main>");
      return false;
    }
  }
  return true;
}

// One result ready to reply: id, score, fields.
struct Row {
  const SearchHit* hit;
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<std::string> payload;
};

// HIGHLIGHT / SUMMARIZE on one result's fields (RediSearch's highlighter processor):
// without RETURN the named fields move first (after the yields and SORTBY's field);
// with named fields (RETURN or FIELDS) only those are processed, else every field.
void ApplyHighlight(const SearchIndex& idx, const SearchRequest& req, const SearchHit& h,
                    std::vector<std::pair<std::string, std::string>>* fields) {
  if (idx.spec().on != SourceType::kHash) {
    return;
  }
  size_t fixed = h.yields.size();
  if (!req.has_return) {
    if (!req.opts.sortby.empty() && fixed < fields->size() &&
        (*fields)[fixed].first == req.opts.sortby) {
      fixed++;
    }
    size_t at = fixed;
    for (const auto& nf : req.hl.fields) {
      for (size_t k = at; k < fields->size(); k++) {
        if ((*fields)[k].first == nf.first) {
          std::rotate(fields->begin() + static_cast<ptrdiff_t>(at),
                      fields->begin() + static_cast<ptrdiff_t>(k),
                      fields->begin() + static_cast<ptrdiff_t>(k) + 1);
          at++;
          break;
        }
      }
    }
  }
  const bool listed = req.has_return || !req.hl.fields.empty();
  for (size_t k = 0; k < fields->size(); k++) {
    auto& [name_as, value] = (*fields)[k];
    bool yielded = false;
    for (const auto& y : h.yields) {
      yielded = yielded || y.first == name_as;
    }
    if (yielded) {
      continue;
    }
    std::string name = name_as;
    bool returned = false;
    if (req.has_return) {
      for (const ReturnField& r : req.returns) {
        if (r.as == name_as) {
          name = r.name;
          returned = true;
          break;
        }
      }
    }
    const HighlightSettings* own = req.hl.Find(name);
    if (listed && own == nullptr && !returned) {
      continue;
    }
    const HighlightSettings s = req.hl.Merged(own);
    if (!s.highlight && !s.summarize) {
      continue;
    }
    const FieldSpec* fs = idx.spec().FindField(name);
    const bool text = fs != nullptr && fs->type == FieldType::kText;
    std::optional<std::string> v =
        HighlightText(idx.analyzer(), text, text && !fs->nostem, value, h.terms, s);
    if (v) {
      value = std::move(*v);
    }
  }
}

void FtSearchCommand(CommandContext& ctx) {
  if (ctx.argc() < 2) {
    return WrongArgs(ctx, "FT.SEARCH");
  }
  if (ctx.argc() < 3) {
    return ctx.rb().Error("No query string provided");
  }
  SearchRequest req;
  req.hl.def.highlight = req.hl.def.summarize = false;
  if (!ParseSearchArgs(ctx, &req)) {
    return;
  }
  std::shared_ptr<SearchIndex> idx = Indexes().Find(ctx.arg(1));
  if (idx == nullptr) {
    return ctx.rb().Error("No such index " + std::string(ctx.arg(1)));
  }
  for (const auto& f : req.hl.fields) {
    if (idx->spec().FindField(f.first) == nullptr) {
      return ctx.rb().Error("No such property `" + f.first + "`");
    }
  }
  req.opts.want_matched_terms = req.hl.any && !req.nocontent;
  req.opts.deadline = Deadline::AfterMs(
      req.timeout_ms >= 0 ? req.timeout_ms : Settings().timeout_ms.load(std::memory_order_relaxed));
  req.opts.timeout_fail = Settings().on_timeout_fail.load(std::memory_order_relaxed);
  if (!req.parse.no_stopwords) {
    // RediSearch drops the index's stop words from queries in the parser.
    const Analyzer* an = &idx->analyzer();
    req.parse.is_stopword = [an](std::string_view t) { return an->IsStopWord(an->Normalize(t)); };
  }
  Result<Query> query = ParseQuery(ctx.arg(2), req.params, req.parse);
  if (!query.ok()) {
    return ctx.rb().Error(query.status().message());
  }
  if (!req.filters.empty()) {
    auto all = std::make_unique<QueryNode>();
    all->kind = NodeKind::kIntersect;
    all->children.push_back(std::move(query->root));
    for (auto& f : req.filters) {
      all->children.push_back(std::move(f));
    }
    query->root = std::move(all);
  }
  if (req.has_return && req.returns.empty()) {
    req.nocontent = true;
  }
  req.opts.want_yields = !req.nocontent;  // ids only: no distances to format
  Result<SearchOutput> out = ExecuteSearch(*idx, *query, req.opts);
  if (!out.ok()) {
    return ctx.rb().Error(out.status().message());
  }
  // Documents' fields, read with no index lock held.
  std::vector<Row> rows;
  rows.reserve(out->hits.size());
  const bool is_json = idx->spec().on == SourceType::kJson;
  // RETURN: the fields to load — names the query yields (KNN score, range distance) are
  // not document fields. Hits mostly yield the same names: decided again only when a
  // hit's names differ from the last hit's (a VECTOR_RANGE inside an OR).
  std::vector<std::string> load_only;
  const std::vector<std::pair<std::string, std::string>>* load_for = nullptr;
  auto same_names = [](const std::vector<std::pair<std::string, std::string>>& a,
                       const std::vector<std::pair<std::string, std::string>>& b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (size_t k = 0; k < a.size(); k++) {
      if (a[k].first != b[k].first) {
        return false;
      }
    }
    return true;
  };
  auto plan_load = [&](const std::vector<std::pair<std::string, std::string>>& yields) {
    if (load_for != nullptr && same_names(*load_for, yields)) {
      return;
    }
    load_for = &yields;
    load_only.clear();
    for (const ReturnField& f : req.returns) {
      bool yielded = false;
      for (const auto& y : yields) {
        yielded = yielded || y.first == f.name;
      }
      if (!yielded) {
        load_only.push_back(f.name);
      }
    }
  };
  // Whether every RETURN name is one of `yields` and each yield is named exactly once
  // (then the reply's fields are the yields themselves, in order).
  auto yields_one_to_one = [&](const std::vector<std::pair<std::string, std::string>>& yields) {
    if (yields.size() != req.returns.size()) {
      return false;
    }
    for (const auto& y : yields) {
      size_t named = 0;
      for (const ReturnField& r : req.returns) {
        named += r.name == y.first ? 1 : 0;
      }
      if (named != 1) {
        return false;
      }
    }
    return true;
  };
  const std::string& payload_field = idx->spec().payload_field;
  const bool hidden_fields = !payload_field.empty() || !idx->spec().score_field.empty() ||
                             !idx->spec().language_field.empty();
  for (SearchHit& h : out->hits) {
    Row row{&h, {}, std::nullopt};
    if (req.withpayloads && !payload_field.empty() && !is_json) {
      std::vector<std::string> one{payload_field};
      LoadedDoc p = LoadDocument(ctx.keyspace(), *idx, h.key, &one, ctx.now_ms());
      if (!p.fields.empty()) {
        row.payload = std::move(p.fields[0].second);
      }
    }
    if (!req.nocontent) {
      if (req.has_return) {
        plan_load(h.yields);
      }
      LoadedDoc doc = LoadDocument(ctx.keyspace(), *idx, h.key,
                                   req.has_return ? &load_only : nullptr, ctx.now_ms());
      if (!doc.found) {
        continue;
      }
      // Yields first, then SORTBY's field, then the rest (RediSearch's order).
      if (!req.has_return) {
        row.fields.reserve(h.yields.size() + doc.fields.size() + 1);
        if (req.hl.any) {
          row.fields.insert(row.fields.end(), h.yields.begin(), h.yields.end());
        } else {
          for (auto& y : h.yields) {
            row.fields.push_back(std::move(y));  // h.yields is not read again
          }
        }
        if (!req.opts.sortby.empty()) {
          bool placed = false;
          for (auto& f : doc.fields) {
            if (!placed && f.first == req.opts.sortby) {
              row.fields.push_back(f);
              placed = true;
            }
          }
          if (!placed && is_json) {
            std::vector<std::string> one{req.opts.sortby};
            LoadedDoc s = LoadDocument(ctx.keyspace(), *idx, h.key, &one, ctx.now_ms());
            for (auto& f : s.fields) {
              row.fields.push_back(std::move(f));
            }
          }
        }
        for (auto& f : doc.fields) {
          if (!req.opts.sortby.empty() && f.first == req.opts.sortby && !is_json) {
            continue;
          }
          row.fields.push_back(std::move(f));
        }
      } else if (!req.hl.any && load_only.empty() && yields_one_to_one(h.yields)) {
        // Only yields returned, each once (RETURN 1 __v_score): the hit's pairs become
        // the row's, renamed to their AS names in place (no copies).
        row.fields = std::move(h.yields);
        for (auto& f : row.fields) {
          for (const ReturnField& r : req.returns) {
            if (r.name == f.first) {
              if (r.as != r.name) {
                f.first = r.as;
              }
              break;
            }
          }
        }
      } else {
        row.fields.reserve(req.returns.size());
        for (auto& y : h.yields) {
          for (const ReturnField& r : req.returns) {
            if (r.name == y.first) {
              row.fields.emplace_back(r.as, y.second);
            }
          }
        }
        for (auto& f : doc.fields) {
          for (const ReturnField& r : req.returns) {
            if (r.name == f.first) {
              row.fields.emplace_back(r.as, f.second);
              break;
            }
          }
        }
      }
    }
    if (hidden_fields && !is_json) {
      // RediSearch never returns the PAYLOAD_FIELD, SCORE_FIELD and LANGUAGE_FIELD as
      // document fields (RETURN included).
      auto hidden = [&](const std::string& n) {
        return n == payload_field || n == idx->spec().score_field ||
               n == idx->spec().language_field;
      };
      std::erase_if(row.fields, [&](const std::pair<std::string, std::string>& f) {
        if (!req.has_return) {
          return hidden(f.first);
        }
        for (const ReturnField& r : req.returns) {
          if (r.as == f.first) {
            return hidden(r.name);
          }
        }
        return false;
      });
    }
    if (req.hl.any && !req.nocontent) {
      ApplyHighlight(*idx, req, h, &row.fields);
    }
    rows.push_back(std::move(row));
  }
  ReplyBuilder& rb = ctx.rb();
  if (!rb.resp3()) {
    size_t per = 1 + (req.withscores ? 1 : 0) + (req.withpayloads ? 1 : 0) + (req.nocontent ? 0 : 1);
    rb.Array(1 + rows.size() * per);
    rb.Integer(static_cast<int64_t>(out->total));
    for (const Row& r : rows) {
      rb.Bulk(r.hit->key);
      if (req.withscores) {
        rb.Double(r.hit->score);
      }
      if (req.withpayloads) {
        if (r.payload) {
          rb.Bulk(*r.payload);
        } else {
          rb.Null();
        }
      }
      if (!req.nocontent) {
        rb.Array(r.fields.size() * 2);
        for (const auto& [k, v] : r.fields) {
          rb.Bulk(k);
          rb.Bulk(v);
        }
      }
    }
    return;
  }
  rb.Map(5);
  rb.SimpleString("attributes");
  rb.Array(0);
  rb.SimpleString("format");
  rb.SimpleString("STRING");
  rb.SimpleString("results");
  rb.Array(rows.size());
  for (const Row& r : rows) {
    rb.Map(2 + (req.withscores ? 1 : 0) + (req.withpayloads ? 1 : 0) + (req.nocontent ? 0 : 1));
    rb.SimpleString("id");
    rb.Bulk(r.hit->key);
    if (req.withscores) {
      rb.SimpleString("score");
      rb.Double(r.hit->score);
    }
    if (req.withpayloads) {
      rb.SimpleString("payload");
      if (r.payload) {
        rb.Bulk(*r.payload);
      } else {
        rb.Null();
      }
    }
    if (!req.nocontent) {
      rb.SimpleString("extra_attributes");
      rb.Map(r.fields.size());
      for (const auto& [k, v] : r.fields) {
        rb.Bulk(k);
        rb.Bulk(v);
      }
    }
    rb.SimpleString("values");
    rb.Array(0);
  }
  rb.SimpleString("total_results");
  rb.Integer(static_cast<int64_t>(out->total));
  rb.SimpleString("warning");
  if (out->timed_out) {
    rb.Array(1);
    rb.SimpleString("Timeout limit was reached");
  } else {
    rb.Array(0);
  }
}

}  // namespace

void RegisterSearchCommands(CommandTable& t) {
  t.Add({.name = "ft.create", .arity = -1, .flags = "write denyoom self_locking",
         .acl = "@search", .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtCreateCommand,
         .doc = {"search", "1.0.0", "O(K) at creation where K is the number of fields, O(N) "
                 "if scanning the keyspace is triggered, where N is the number of keys in the "
                 "keyspace",
                 "Creates an index with the given spec.",
                 "index [ON HASH | JSON] [PREFIX count prefix [prefix ...]] [FILTER filter] "
                 "[LANGUAGE default_lang] [SCORE default_score] [STOPWORDS count "
                 "[stopword ...]] [SKIPINITIALSCAN] SCHEMA field_name [AS alias] TEXT | TAG | "
                 "NUMERIC | GEO | VECTOR [SORTABLE] [NOINDEX] [field_name ...]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.search", .arity = -1, .flags = "readonly self_locking", .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtSearchCommand,
         .doc = {"search", "1.0.0", "O(N)",
                 "Searches the index with a textual query, returning either documents or just "
                 "ids.",
                 "index query [NOCONTENT] [VERBATIM] [NOSTOPWORDS] [WITHSCORES] [INKEYS count "
                 "key [key ...]] [INFIELDS count field [field ...]] [RETURN count identifier "
                 "[AS property] [identifier [AS property] ...]] [SORTBY sortby [ASC | DESC]] "
                 "[LIMIT offset num] [PARAMS nargs name value [name value ...]] [DIALECT "
                 "dialect] [TIMEOUT timeout] [SCORER scorer]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft.dropindex", .arity = -1, .flags = "write self_locking", .acl = "@search",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = FtDropIndexCommand,
         .doc = {"search", "2.0.0", "O(1) or O(N) if documents are deleted, where N is the "
                 "number of keys in the keyspace",
                 "Deletes the index.", "index [DD]"},
         .all_shards_in_exec = FtAllShardsInExec});
  t.Add({.name = "ft._list", .arity = -1, .flags = "readonly self_locking", .acl = "@search",
         .handler = FtListCommand,
         .doc = {"search", "2.0.0", "O(1)", "Returns a list of all existing indexes.", ""}});
  RegisterAggregateCommands(t);  // ftagg: FT.AGGREGATE, FT.CURSOR, FT.PROFILE
  RegisterSearchAdminCommands(t);  // ftagg: FT.INFO, FT.ALTER, FT.ALIAS*, FT.TAGVALS, ...
}

void InstallSearch(Server& server) { InstallSearchObserver(server); }

}  // namespace hotkv::search

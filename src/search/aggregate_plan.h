// FT.AGGREGATE's request and pipeline: the argument parser (ParseAggregateArgs), and the
// pipeline built from it over the documents a query matched (AggregatePipeline).
//
//   Result<AggregateRequest> req = ParseAggregateArgs(args);   // args after the index
//   Result<std::unique_ptr<AggregatePipeline>> p = AggregatePipeline::Build(*req, schema);
//   (*p)->SetSource(&docs);                 // the matched documents (AggregateSource)
//   Result<AggregateChunk> c = (*p)->Read(SIZE_MAX);  // rows, totals; again for cursors
//
// The pipeline pulls rows through its stages as RediSearch 2.10 does: the documents
// (with LOAD's fields and the sort values of SORTABLE fields the steps name), then each
// step in order — APPLY, FILTER, GROUPBY + REDUCE (a new row shape: the keys and the
// reducers), SORTBY [MAX] and LIMIT (one "arrange" step; SORTBY without LIMIT or MAX
// keeps 10 rows). A row shows the properties of its shape in the order the steps first
// named them; a property a row lacks is left out, a null one is shown as nil.
//
// Totals follow RediSearch's counter: each document read counts one, a GROUPBY sets it to
// its number of groups; RESP2 replies show its value when the first row came out (all of
// the input when a SORTBY/GROUPBY had to read everything first), RESP3 at the end of the
// read; each cursor read starts it from zero.
//
// Thread safety: a pipeline is used by one thread at a time (a cursor is taken out of the
// store while it is read).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "search/aggregate_expr.h"

namespace hotkv::search {

struct ReducerSpec {
  std::string name;               // upper-case: COUNT, SUM, ...
  std::vector<std::string> args;  // as given
  std::string alias;              // AS name, else "__generated_alias<name><args>"
};

struct AggregateStep {
  enum class Kind : uint8_t { kLoad, kGroup, kApply, kFilter, kArrange };
  Kind kind = Kind::kLoad;
  // kLoad: (name without '@', AS name); load_all for LOAD *.
  std::vector<std::pair<std::string, std::string>> load;
  bool load_all = false;
  // kGroup: the keys (without '@') and reducers.
  std::vector<std::string> group_keys;
  std::vector<ReducerSpec> reducers;
  // kApply / kFilter: the expression text and APPLY's AS name.
  std::string expr_text;
  std::string alias;
  // kArrange: SORTBY keys (name, ascending), MAX, LIMIT.
  std::vector<std::pair<std::string, bool>> sort_keys;
  std::optional<uint64_t> max;
  bool has_limit = false;
  uint64_t offset = 0;
  uint64_t limit = 0;
};

struct AggregateRequest {
  std::string query;
  std::vector<AggregateStep> steps;
  std::vector<std::pair<std::string, std::string>> params;
  std::optional<int> dialect;
  std::optional<int64_t> timeout_ms;
  bool verbatim = false;
  std::string language;  // LANGUAGE (checked): the query's stemming; empty: the index's
  bool add_scores = false;
  std::string scorer;  // empty: the default
  bool with_cursor = false;
  uint64_t cursor_count = 0;   // 0: the default read size
  uint64_t cursor_max_idle_ms = 0;  // 0: the default
};

// Parses FT.AGGREGATE's arguments after the index name (args[0] is the query). Errors are
// RediSearch's texts ("Unknown argument `X` at position N for <main>", "Bad arguments for
// GROUPBY: ...", "No such reducer: X", "LIMIT needs two numeric arguments", ...).
Result<AggregateRequest> ParseAggregateArgs(const std::vector<std::string_view>& args);

// A schema field as the pipeline sees it.
struct AggregateField {
  std::string name;         // the name queries use (AS name)
  std::string path;         // the hash field
  bool numeric = false;     // NUMERIC: loaded values become numbers
  bool sortable = false;    // has a sort value (read without LOAD)
  bool normalized = false;  // TEXT/TAG SORTABLE without UNF: the sort value is lower-cased
};

// The documents the query matched, in the order the pipeline reads them.
class AggregateSource {
 public:
  virtual ~AggregateSource() = default;
  virtual size_t size() const = 0;
  virtual std::string Key(size_t i) const = 0;
  virtual double Score(size_t i) const = 0;
  // Document i's sort value of schema field `field` (position in the schema list given
  // to Build): a number, a string, or null when the document lacks it.
  virtual Value SortValue(size_t i, size_t field) const = 0;
  // Document i's hash fields named in `paths` (all fields when null), those it has.
  virtual std::vector<std::pair<std::string, std::string>> Load(
      size_t i, const std::vector<std::string>* paths) = 0;
  // Document i's value of the query's yield `which` (position in Build's `yields`: KNN's
  // score, VECTOR_RANGE's distance); null when it has none.
  virtual Value Yield(size_t i, size_t which) const {
    (void)i;
    (void)which;
    return Value::Null();
  }
};

struct AggregateChunk {
  std::vector<std::vector<std::pair<std::string, Value>>> rows;
  uint64_t total_resp2 = 0;  // the counter when the first row came out
  uint64_t total_resp3 = 0;  // the counter at the end of the read
  bool done = false;         // the pipeline is exhausted
  // An evaluation error after rows came out: the read stops there (done) and RESP3
  // reports it in "warning" (an error before any row is the command's error).
  std::string warning;
};

class AggregatePipeline {
 public:
  ~AggregatePipeline();
  // Checks the steps against the schema (property errors: "Property `x` not loaded nor
  // in pipeline", "No such property `x`", ...) and compiles the expressions.
  // `yields`: the names the query yields (KNN's AS name or __<field>_score, VECTOR_RANGE's
  // $YIELD_DISTANCE_AS), first in every row as RediSearch puts them.
  static Result<std::unique_ptr<AggregatePipeline>> Build(
      const AggregateRequest& request, const std::vector<AggregateField>& schema,
      const std::vector<std::string>& yields = {});
  // The documents to read (not owned; must outlive Read unless Materialize ran).
  void SetSource(AggregateSource* source);
  // Reads every document now (LOAD and sort values), so later reads need no source: for
  // cursors, read after the command returned.
  void Materialize();
  // Up to max_rows rows.
  Result<AggregateChunk> Read(size_t max_rows);

  struct Impl;  // aggregate_pipeline.cc's

 private:
  explicit AggregatePipeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hotkv::search

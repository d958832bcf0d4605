// FT.AGGREGATE's argument parser and pipeline over an in-memory source; the expected
// rows, names and totals are those Redis 8.8 + RediSearch 2.10 gave for the same data.
#include "search/aggregate_plan.h"

#include <gtest/gtest.h>

#include <map>

namespace hotkv::search {
namespace {

struct Doc {
  std::string key;
  std::vector<std::pair<std::string, std::string>> fields;
};

// Schema: name TEXT SORTABLE, age NUMERIC SORTABLE, city TAG, score NUMERIC, tags TAG.
class FakeSource : public AggregateSource {
 public:
  FakeSource() {
    docs_ = {
        {"d:1", {{"name", "alice"}, {"age", "30"}, {"city", "paris"}, {"score", "1.5"},
                 {"tags", "a,b"}}},
        {"d:2", {{"name", "bob"}, {"age", "25"}, {"city", "london"}, {"score", "2.25"},
                 {"tags", "b"}}},
        {"d:3", {{"name", "carol"}, {"age", "35"}, {"city", "paris"}, {"score", "3"},
                 {"tags", "c"}}},
        {"d:4", {{"name", "dave"}, {"age", "40"}, {"city", "berlin"}}},
        {"d:5", {{"name", "Eve Q"}, {"age", "1.50"}, {"city", "rome"}, {"score", "07"},
                 {"extra", "zz"}}},
    };
  }
  static std::vector<AggregateField> Schema() {
    return {{"name", "name", false, true, true},
            {"age", "age", true, true, false},
            {"city", "city", false, false, false},
            {"score", "score", true, false, false},
            {"tags", "tags", false, false, false}};
  }
  size_t size() const override { return docs_.size(); }
  std::string Key(size_t i) const override { return docs_[i].key; }
  double Score(size_t) const override { return 1; }
  Value SortValue(size_t i, size_t field) const override {
    const std::string name = Schema()[field].name;
    for (const auto& [f, v] : docs_[i].fields) {
      if (f == name) {
        return field == 1 ? Value::Number(std::stod(v)) : Value::String(v);
      }
    }
    return Value::Null();
  }
  std::vector<std::pair<std::string, std::string>> Load(
      size_t i, const std::vector<std::string>* paths) override {
    ++loads;
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& fv : docs_[i].fields) {
      if (paths == nullptr ||
          std::find(paths->begin(), paths->end(), fv.first) != paths->end()) {
        out.push_back(fv);
      }
    }
    return out;
  }
  int loads = 0;

 private:
  std::vector<Doc> docs_;
};

std::vector<std::string_view> Args(const std::vector<std::string>& v) {
  return std::vector<std::string_view>(v.begin(), v.end());
}

std::string Show(const Value& v) {
  if (v.is_null()) {
    return "nil";
  }
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.arr->size(); ++i) {
      s += (i ? "," : "") + (*v.arr)[i].ToString();
    }
    return s + "]";
  }
  return v.ToString();
}

// Runs FT.AGGREGATE idx <args> and renders "total|k=v k=v|k=v..." (RESP2's total), or
// "ERR message".
std::string Agg(const std::vector<std::string>& args, size_t max_rows = SIZE_MAX,
                bool resp3 = false) {
  auto req = ParseAggregateArgs(Args(args));
  if (!req.ok()) {
    return "ERR " + req.status().message();
  }
  auto p = AggregatePipeline::Build(*req, FakeSource::Schema());
  if (!p.ok()) {
    return "ERR " + p.status().message();
  }
  FakeSource src;
  (*p)->SetSource(&src);
  auto c = (*p)->Read(max_rows);
  if (!c.ok()) {
    return "ERR " + c.status().message();
  }
  std::string out = std::to_string(resp3 ? c->total_resp3 : c->total_resp2);
  for (const auto& row : c->rows) {
    out += "|";
    for (size_t i = 0; i < row.size(); ++i) {
      out += (i ? " " : "") + row[i].first + "=" + Show(row[i].second);
    }
  }
  return out;
}

TEST(AggregatePlanTest, LoadAndApply) {
  // NUMERIC fields load as numbers ("1.50" -> 1.5, "07" -> 7), others as strings.
  EXPECT_EQ(Agg({"*", "LOAD", "3", "@age", "@score", "@extra", "LIMIT", "4", "1"}),
            "5|age=1.5 score=7 extra=zz");
  // LOAD * keeps the hash's strings.
  std::string all = Agg({"*", "LOAD", "*", "LIMIT", "4", "1"});
  EXPECT_EQ(all, "5|name=Eve Q age=1.50 city=rome score=07 extra=zz");
  EXPECT_EQ(Agg({"*", "LOAD", "3", "@name", "AS", "nm", "LIMIT", "0", "1"}), "1|nm=alice");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@__key", "APPLY", "@__key", "AS", "k", "LIMIT", "0", "1"}),
            "1|__key=d:1 k=d:1");
  // A SORTABLE field is read without LOAD (TEXT lower-cased), and shows in the row.
  EXPECT_EQ(Agg({"*", "APPLY", "@age*2", "AS", "x", "LIMIT", "4", "1"}), "5|age=1.5 x=3");
  EXPECT_EQ(Agg({"*", "APPLY", "@name", "AS", "x", "LIMIT", "4", "1"}), "5|name=eve q x=eve q");
  EXPECT_EQ(Agg({"*", "APPLY", "1", "LIMIT", "0", "1"}), "1|1=1");
  EXPECT_EQ(Agg({"*", "APPLY", "@score*2", "AS", "x"}),
            "ERR Property `score` not loaded nor in pipeline");
  EXPECT_EQ(Agg({"*", "APPLY", "@__key", "AS", "x"}),
            "ERR Property `__key` not loaded nor in pipeline");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@score", "APPLY", "@score*2", "AS", "x"}),
            "1|score=1.5 x=3|score=2.25 x=4.5|score=3 x=6");  // stops at d:4 (no score)
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@score", "APPLY", "exists(@score)", "AS", "e", "SORTBY",
                 "2", "@age", "DESC"}),
            "5|e=0 age=40|score=3 e=1 age=35|score=1.5 e=1 age=30|score=2.25 e=1 age=25|"
                "score=7 e=1 age=1.5");
}

TEST(AggregatePlanTest, GroupByReducers) {
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@city", "REDUCE", "COUNT", "0", "SORTBY", "2", "@city",
                 "ASC"}),
            "4|city=berlin __generated_aliascount=1|city=london __generated_aliascount=1|"
            "city=paris __generated_aliascount=2|city=rome __generated_aliascount=1");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@city", "REDUCE", "SUM", "1", "@age", "REDUCE", "MIN",
                 "1", "@age", "REDUCE", "MAX", "1", "@age", "REDUCE", "AVG", "1", "@age",
                 "REDUCE", "COUNT_DISTINCT", "1", "@name", "REDUCE", "TOLIST", "1", "@name",
                 "REDUCE", "FIRST_VALUE", "1", "@name", "REDUCE", "STDDEV", "1", "@age",
                 "REDUCE", "QUANTILE", "2", "@age", "0.5", "SORTBY", "2", "@city", "ASC",
                 "LIMIT", "2", "1"}),
            "4|city=paris __generated_aliassumage=65 __generated_aliasminage=30 "
            "__generated_aliasmaxage=35 __generated_aliasavgage=32.5 "
            "__generated_aliascount_distinctname=2 __generated_aliastolistname=[alice,carol] "
            "__generated_aliasfirst_valuename=alice __generated_aliasstddevage=3.53553390593 "
            "__generated_aliasquantileage,0.5=30");
  // AVG divides by every row (dave has no score); a missing group key is nil.
  EXPECT_EQ(Agg({"@x", "GROUPBY", "0", "REDUCE", "AVG", "1", "@score", "AS", "s", "REDUCE",
                 "FIRST_VALUE", "4", "@name", "BY", "@age", "DESC", "AS", "oldest", "REDUCE",
                 "COUNT_DISTINCT", "1", "@score"}),
            "1|s=2.75 oldest=dave __generated_aliascount_distinctscore=4");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@score", "REDUCE", "COUNT", "0", "AS", "n", "SORTBY",
                 "2", "@score", "DESC"}),
            "5|score=7 n=1|score=3 n=1|score=2.25 n=1|score=1.5 n=1|score=nil n=1");
  EXPECT_EQ(Agg({"*", "GROUPBY", "0", "REDUCE", "FIRST_VALUE", "4", "@name", "BY", "@age",
                 "ASC"}),
            "1|__generated_aliasfirst_valuename,by,age,asc=eve q");
  EXPECT_EQ(Agg({"@city:{rome}", "GROUPBY", "1", "@city", "REDUCE", "TOLIST", "1", "@name",
                 "LIMIT", "3", "1"}),
            "4|city=rome __generated_aliastolistname=[eve q]");
  // GROUPBY on split() values puts a row in a group per element.
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@tags", "FILTER", "exists(@tags)", "APPLY", "split(@tags)",
                 "AS", "t", "GROUPBY", "1", "@t", "REDUCE", "COUNT", "0", "AS", "n", "SORTBY", "2",
                 "@t", "ASC"}),
            "3|t=a n=1|t=b n=2|t=c n=1");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@tags", "APPLY", "split(@tags)", "AS", "t"}),
            "1|tags=a,b t=[a,b]|tags=b t=[b]|tags=c t=[c]");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@city", "APPLY", "@age", "AS", "x"}),
            "ERR Property `age` not loaded nor in pipeline");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@city", "SORTBY", "2", "@age", "ASC"}),
            "ERR Property `age` not loaded nor in schema");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@nosuch"}), "ERR No such property `nosuch`");
  EXPECT_EQ(Agg({"*", "GROUPBY", "1", "@city", "REDUCE", "SUM", "1", "@extra"}),
            "ERR Property is not present in document or pipeline: `extra`");
}

TEST(AggregatePlanTest, SortFilterLimitTotals) {
  // SORTBY without LIMIT/MAX keeps 10 rows; MAX caps; missing values sort last.
  EXPECT_EQ(Agg({"*", "SORTBY", "2", "@age", "ASC", "MAX", "2"}), "5|age=1.5|age=25");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@score", "SORTBY", "2", "@score", "DESC"}),
            "5|score=7|score=3|score=2.25|score=1.5|");
  EXPECT_EQ(Agg({"*", "SORTBY", "1", "@age", "LIMIT", "1", "1"}), "5|age=25");
  // Streaming (no SORTBY/GROUPBY): RESP2's total is the documents read up to the first row.
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@age", "FILTER", "@age > 36"}), "4|age=40");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@age", "FILTER", "@age > 36"}, SIZE_MAX, true),
            "5|age=40");
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@age", "FILTER", "@age > 100"}), "5");
  EXPECT_EQ(Agg({"*", "LIMIT", "0", "0"}), "5");
  EXPECT_EQ(Agg({"*", "LIMIT", "0", "2"}), "1||");
  EXPECT_EQ(Agg({"*", "SORTBY", "2", "@nosuch", "ASC"}),
            "ERR Property `nosuch` not loaded nor in schema");
  EXPECT_EQ(Agg({"*", "LOAD", "2", "@name", "@age", "SORTBY", "4", "@city", "ASC", "@age",
                 "DESC", "LIMIT", "0", "3"}),
            "5|name=dave age=40 city=berlin|name=bob age=25 city=london|"
            "name=carol age=35 city=paris");
}

TEST(AggregatePlanTest, ErrorAfterRowsEndsTheRead) {
  // d:4 has no score: rows before it come out, the read stops there with a warning.
  auto req = ParseAggregateArgs(Args({"*", "LOAD", "1", "@score", "APPLY", "@score*2", "AS", "x"}));
  ASSERT_TRUE(req.ok());
  auto p = AggregatePipeline::Build(*req, FakeSource::Schema());
  ASSERT_TRUE(p.ok());
  FakeSource src;
  (*p)->SetSource(&src);
  auto c = (*p)->Read(SIZE_MAX);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rows.size(), 3u);
  EXPECT_TRUE(c->done);
  EXPECT_EQ(c->warning,
            "Could not find the value for a parameter name, consider using EXISTS if applicable "
            "for score");
  // An error before any row is the command's error.
  EXPECT_EQ(Agg({"*", "LOAD", "1", "@score", "APPLY", "@score*2", "AS", "x", "LIMIT", "3", "1"}),
            "ERR Could not find the value for a parameter name, consider using EXISTS if "
            "applicable for score");
}

TEST(AggregatePlanTest, CursorReadsInChunks) {
  auto req = ParseAggregateArgs(Args({"*", "LOAD", "1", "@name", "SORTBY", "2", "@name", "ASC",
                                      "WITHCURSOR", "COUNT", "2"}));
  ASSERT_TRUE(req.ok());
  EXPECT_TRUE(req->with_cursor);
  EXPECT_EQ(req->cursor_count, 2u);
  auto p = AggregatePipeline::Build(*req, FakeSource::Schema());
  ASSERT_TRUE(p.ok());
  {
    FakeSource src;
    (*p)->SetSource(&src);
    (*p)->Materialize();
    EXPECT_EQ(src.loads, 5);
  }  // the source is gone: reads use the materialized rows
  std::vector<std::string> names;
  std::vector<uint64_t> totals;
  bool done = false;
  for (int i = 0; i < 10 && !done; ++i) {
    auto c = (*p)->Read(2);
    ASSERT_TRUE(c.ok());
    totals.push_back(c->total_resp2);
    for (const auto& row : c->rows) {
      names.push_back(row[0].second.str);
    }
    done = c->done;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Eve Q", "alice", "bob", "carol", "dave"}));
  EXPECT_EQ(totals, (std::vector<uint64_t>{5, 0, 0}));
}

TEST(AggregatePlanTest, ArgumentErrors) {
  auto err = [](const std::vector<std::string>& a) {
    auto r = ParseAggregateArgs(Args(a));
    return r.ok() ? std::string("OK") : r.status().message();
  };
  EXPECT_EQ(err({"*", "FOO"}), "Unknown argument `FOO` at position 1 for <main>");
  EXPECT_EQ(err({"*", "APPLY"}),
            "Bad arguments for APPLY/FILTER: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "APPLY", "1", "AS"}), "AS needs argument");
  EXPECT_EQ(err({"*", "GROUPBY", "2", "@city"}),
            "Bad arguments for GROUPBY: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "city"}),
            "Bad arguments for GROUPBY: Unknown property `city`. Did you mean `@city`?");
  EXPECT_EQ(err({"*", "GROUPBY", "x"}),
            "Bad arguments for GROUPBY: Could not convert argument to expected type");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "FOO", "0"}), "No such reducer: FOO");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "SUM", "0"}), "Missing arguments for SUM");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "COUNT", "1", "@age"}),
            "Count accepts 0 values only");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "COUNT"}),
            "Bad arguments for COUNT: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "QUANTILE", "2", "@age", "2"}),
            "Percentage must be between 0.0 and 1.0");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "SUM", "1", "@age", "AS"}),
            "Bad arguments for AS: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "GROUPBY", "1", "@city", "REDUCE", "FIRST_VALUE", "3", "@age", "FOO",
                 "@name"}),
            "Unknown argument `FOO` at position 1 for FIRST_VALUE");
  EXPECT_EQ(err({"*", "SORTBY", "3", "@age", "ASC"}),
            "Bad arguments for SORTBY: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "SORTBY", "2", "@age", "FOO"}), "MISSING ASC or DESC after sort field (FOO)");
  EXPECT_EQ(err({"*", "SORTBY", "1", "@age", "MAX", "-1"}),
            "Bad arguments for MAX: Could not convert argument to expected type");
  EXPECT_EQ(err({"*", "LIMIT", "0"}), "LIMIT requires two arguments");
  EXPECT_EQ(err({"*", "LIMIT", "-1", "2"}), "LIMIT needs two numeric arguments");
  EXPECT_EQ(err({"*", "LOAD", "2", "@name"}),
            "Bad arguments for LOAD: Expected an argument, but none provided");
  EXPECT_EQ(err({"*", "LOAD", "x"}), "Bad arguments for LOAD: Expected number of fields or `*`");
  EXPECT_EQ(err({"*", "LOAD", "1", "@name", "AS"}),
            "Unknown argument `AS` at position 4 for <main>");
  EXPECT_EQ(err({"*", "WITHCURSOR", "COUNT", "0"}),
            "Bad arguments for COUNT: Value is outside acceptable bounds");
  EXPECT_EQ(err({"*", "WITHCURSOR", "MAXIDLE", "0"}),
            "Bad arguments for MAXIDLE: Value is outside acceptable bounds");
  EXPECT_EQ(err({"*", "DIALECT", "5"}), "DIALECT requires a non negative integer >=1 and <= 4");
  EXPECT_EQ(err({"*", "TIMEOUT", "x"}), "TIMEOUT requires a non negative integer");
  EXPECT_EQ(err({"*", "PARAMS", "1", "a"}), "Parameters must be specified in PARAM VALUE pairs");
  EXPECT_EQ(err({"*", "PARAMS", "2", "a", "b", "PARAMS", "2", "c", "d"}),
            "Multiple PARAMS are not allowed. Parameters can be defined only once");
  EXPECT_EQ(err({"*", "SCORER", "NOPE"}), "No such scorer NOPE");
  EXPECT_EQ(err({"*", "VERBATIM", "ADDSCORES", "SCORER", "TFIDF", "TIMEOUT", "100", "DIALECT",
                 "2", "params", "2", "a", "b", "LIMIT", "0", "1"}),
            "OK");
  EXPECT_EQ(err({}), "No query string provided");
}

}  // namespace
}  // namespace hotkv::search

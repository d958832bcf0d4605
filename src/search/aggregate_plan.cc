// FT.AGGREGATE's argument parser, with RediSearch 2.10's error texts.
#include "search/aggregate_plan.h"

#include "common/string_util.h"
#include "search/index_spec.h"

namespace hotkv::search {
namespace {

constexpr const char* kExpectedArg = "Expected an argument, but none provided";
constexpr const char* kBadType = "Could not convert argument to expected type";
constexpr const char* kOutOfBounds = "Value is outside acceptable bounds";

Status BadArgs(std::string_view what, std::string_view why) {
  return Status::InvalidArgument("Bad arguments for " + std::string(what) + ": " +
                                 std::string(why));
}

std::string StripAt(std::string_view s) {
  if (!s.empty() && s[0] == '@') {
    s.remove_prefix(1);
  }
  return std::string(s);
}

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string_view>& args) : args_(args) {}
  bool done() const { return pos_ >= args_.size(); }
  size_t pos() const { return pos_; }
  size_t left() const { return args_.size() - pos_; }
  std::string_view Peek() const { return args_[pos_]; }
  std::string_view Take() { return args_[pos_++]; }
  bool TakeIf(std::string_view word) {
    if (!done() && EqualsIgnoreCase(args_[pos_], word)) {
      ++pos_;
      return true;
    }
    return false;
  }
  // A count argument of `what`: errors as RediSearch's AC_GetU64.
  Result<uint64_t> TakeCount(std::string_view what) {
    if (done()) {
      return BadArgs(what, kExpectedArg);
    }
    auto v = ParseInt64(Take());
    if (!v || *v < 0) {
      return BadArgs(what, kBadType);
    }
    return static_cast<uint64_t>(*v);
  }

 private:
  const std::vector<std::string_view>& args_;
  size_t pos_ = 0;
};

Status ParseLoad(ArgReader& r, AggregateStep& step) {
  if (r.done()) {
    return BadArgs("LOAD", kExpectedArg);
  }
  if (r.Peek() == "*") {
    r.Take();
    step.load_all = true;
    return Status::Ok();
  }
  auto n = ParseInt64(r.Take());
  if (!n || *n < 0) {
    return BadArgs("LOAD", "Expected number of fields or `*`");
  }
  if (static_cast<uint64_t>(*n) > r.left()) {
    return BadArgs("LOAD", kExpectedArg);
  }
  size_t end = r.pos() + *n;
  while (r.pos() < end) {
    std::string name = StripAt(r.Take());
    std::string as = name;
    if (r.pos() < end && EqualsIgnoreCase(r.Peek(), "AS")) {
      r.Take();
      if (r.pos() >= end) {
        return BadArgs("LOAD", kExpectedArg);
      }
      as = std::string(r.Take());
    }
    step.load.emplace_back(std::move(name), std::move(as));
  }
  return Status::Ok();
}

bool IsKnownReducer(std::string_view n) {
  static const char* kNames[] = {"COUNT", "COUNT_DISTINCT", "COUNT_DISTINCTISH", "SUM",
                                 "MIN", "MAX", "AVG", "TOLIST", "FIRST_VALUE", "STDDEV",
                                 "QUANTILE", "RANDOM_SAMPLE"};
  for (const char* k : kNames) {
    if (EqualsIgnoreCase(n, k)) {
      return true;
    }
  }
  return false;
}

Status ParseReducer(ArgReader& r, AggregateStep& step) {
  if (r.done()) {
    return BadArgs("REDUCE", "SUCCESS");
  }
  std::string name = ToUpper(r.Take());
  if (!IsKnownReducer(name)) {
    return Status::InvalidArgument("No such reducer: " + name);
  }
  auto n = r.TakeCount(name);
  if (!n.ok()) {
    return n.status();
  }
  if (*n > r.left()) {
    return BadArgs(name, kExpectedArg);
  }
  ReducerSpec red;
  red.name = name;
  for (uint64_t i = 0; i < *n; ++i) {
    red.args.emplace_back(r.Take());
  }
  if (name == "COUNT") {
    if (!red.args.empty()) {
      return Status::InvalidArgument("Count accepts 0 values only");
    }
  } else if (red.args.empty()) {
    return Status::InvalidArgument("Missing arguments for " + name);
  }
  if (name == "QUANTILE") {
    if (red.args.size() < 2) {
      return Status::InvalidArgument("Missing arguments for " + name);
    }
    auto q = ParseDouble(red.args[1]);
    if (!q) {
      return BadArgs(name, kBadType);
    }
    if (*q < 0 || *q > 1) {
      return Status::InvalidArgument("Percentage must be between 0.0 and 1.0");
    }
  }
  if (name == "RANDOM_SAMPLE") {
    if (red.args.size() < 2) {
      return Status::InvalidArgument("Missing arguments for " + name);
    }
    auto k = ParseInt64(red.args[1]);
    if (!k || *k < 0 || *k > 1000) {
      return BadArgs(name, kBadType);
    }
  }
  if (name == "FIRST_VALUE" && red.args.size() > 1) {
    size_t i = 1;
    if (!EqualsIgnoreCase(red.args[i], "BY")) {
      return Status::InvalidArgument("Unknown argument `" + red.args[i] +
                                     "` at position 1 for FIRST_VALUE");
    }
    if (red.args.size() < 3) {
      return Status::InvalidArgument("Missing arguments for FIRST_VALUE");
    }
    if (red.args.size() > 3 && !EqualsIgnoreCase(red.args[3], "ASC") &&
        !EqualsIgnoreCase(red.args[3], "DESC")) {
      return Status::InvalidArgument("Unknown argument `" + red.args[3] +
                                     "` at position 3 for FIRST_VALUE");
    }
  }
  if (r.TakeIf("AS")) {
    if (r.done()) {
      return BadArgs("AS", kExpectedArg);
    }
    red.alias = std::string(r.Take());
  } else {
    std::string alias = "__generated_alias" + name;
    for (size_t i = 0; i < red.args.size(); ++i) {
      if (i > 0) {
        alias += ",";
      }
      alias += StripAt(red.args[i]);
    }
    red.alias = ToLower(alias);
  }
  step.reducers.push_back(std::move(red));
  return Status::Ok();
}

Status ParseGroupBy(ArgReader& r, AggregateStep& step) {
  auto n = r.TakeCount("GROUPBY");
  if (!n.ok()) {
    return n.status();
  }
  if (*n > r.left()) {
    return BadArgs("GROUPBY", kExpectedArg);
  }
  for (uint64_t i = 0; i < *n; ++i) {
    std::string_view k = r.Take();
    if (k.empty() || k[0] != '@') {
      return BadArgs("GROUPBY", "Unknown property `" + std::string(k) + "`. Did you mean `@" +
                                    std::string(k) + "`?");
    }
    step.group_keys.push_back(StripAt(k));
  }
  while (r.TakeIf("REDUCE")) {
    Status st = ParseReducer(r, step);
    if (!st.ok()) {
      return st;
    }
  }
  return Status::Ok();
}

Status ParseSortBy(ArgReader& r, AggregateStep& step) {
  auto n = r.TakeCount("SORTBY");
  if (!n.ok()) {
    return n.status();
  }
  if (*n > r.left()) {
    return BadArgs("SORTBY", kExpectedArg);
  }
  size_t end = r.pos() + *n;
  step.sort_keys.clear();
  while (r.pos() < end) {
    std::string_view k = r.Take();
    if (k.empty() || k[0] != '@') {
      return Status::InvalidArgument("MISSING ASC or DESC after sort field (" + std::string(k) +
                                     ")");
    }
    bool asc = true;
    if (r.pos() < end) {
      if (EqualsIgnoreCase(r.Peek(), "ASC")) {
        r.Take();
      } else if (EqualsIgnoreCase(r.Peek(), "DESC")) {
        r.Take();
        asc = false;
      }
    }
    step.sort_keys.emplace_back(StripAt(k), asc);
  }
  if (r.TakeIf("MAX")) {
    auto m = r.TakeCount("MAX");
    if (!m.ok()) {
      return m.status();
    }
    step.max = *m;
  }
  return Status::Ok();
}

// The arrange step SORTBY / LIMIT add to: the last step when it is one, else a new one.
AggregateStep& ArrangeStep(AggregateRequest& req) {
  if (req.steps.empty() || req.steps.back().kind != AggregateStep::Kind::kArrange) {
    req.steps.emplace_back();
    req.steps.back().kind = AggregateStep::Kind::kArrange;
  }
  return req.steps.back();
}

}  // namespace

Result<AggregateRequest> ParseAggregateArgs(const std::vector<std::string_view>& args) {
  if (args.empty()) {
    return Status::InvalidArgument("No query string provided");
  }
  AggregateRequest req;
  req.query = std::string(args[0]);
  ArgReader r(args);
  r.Take();
  bool have_params = false;
  while (!r.done()) {
    size_t at = r.pos();
    std::string_view word = r.Take();
    if (EqualsIgnoreCase(word, "LOAD")) {
      AggregateStep step;
      step.kind = AggregateStep::Kind::kLoad;
      Status st = ParseLoad(r, step);
      if (!st.ok()) {
        return st;
      }
      req.steps.push_back(std::move(step));
    } else if (EqualsIgnoreCase(word, "GROUPBY")) {
      AggregateStep step;
      step.kind = AggregateStep::Kind::kGroup;
      Status st = ParseGroupBy(r, step);
      if (!st.ok()) {
        return st;
      }
      req.steps.push_back(std::move(step));
    } else if (EqualsIgnoreCase(word, "SORTBY")) {
      Status st = ParseSortBy(r, ArrangeStep(req));
      if (!st.ok()) {
        return st;
      }
    } else if (EqualsIgnoreCase(word, "LIMIT")) {
      if (r.left() < 2) {
        return Status::InvalidArgument("LIMIT requires two arguments");
      }
      auto off = ParseInt64(r.Take());
      auto num = ParseInt64(r.Take());
      if (!off || !num || *off < 0 || *num < 0) {
        return Status::InvalidArgument("LIMIT needs two numeric arguments");
      }
      AggregateStep& step = ArrangeStep(req);
      step.has_limit = true;
      step.offset = static_cast<uint64_t>(*off);
      step.limit = static_cast<uint64_t>(*num);
    } else if (EqualsIgnoreCase(word, "APPLY") || EqualsIgnoreCase(word, "FILTER")) {
      bool apply = EqualsIgnoreCase(word, "APPLY");
      if (r.done()) {
        return BadArgs("APPLY/FILTER", kExpectedArg);
      }
      AggregateStep step;
      step.kind = apply ? AggregateStep::Kind::kApply : AggregateStep::Kind::kFilter;
      step.expr_text = std::string(r.Take());
      if (apply) {
        step.alias = step.expr_text;
        if (r.TakeIf("AS")) {
          if (r.done()) {
            return Status::InvalidArgument("AS needs argument");
          }
          step.alias = std::string(r.Take());
        }
      }
      req.steps.push_back(std::move(step));
    } else if (EqualsIgnoreCase(word, "WITHCURSOR")) {
      req.with_cursor = true;
      while (true) {
        if (r.TakeIf("COUNT")) {
          auto c = r.TakeCount("COUNT");
          if (!c.ok()) {
            return c.status();
          }
          if (*c == 0) {
            return BadArgs("COUNT", kOutOfBounds);
          }
          req.cursor_count = *c;
        } else if (r.TakeIf("MAXIDLE")) {
          auto c = r.TakeCount("MAXIDLE");
          if (!c.ok()) {
            return c.status();
          }
          if (*c == 0) {
            return BadArgs("MAXIDLE", kOutOfBounds);
          }
          req.cursor_max_idle_ms = *c;
        } else {
          break;
        }
      }
    } else if (EqualsIgnoreCase(word, "PARAMS")) {
      if (have_params) {
        return Status::InvalidArgument(
            "Multiple PARAMS are not allowed. Parameters can be defined only once");
      }
      have_params = true;
      auto n = r.TakeCount("PARAMS");
      if (!n.ok()) {
        return n.status();
      }
      if (*n == 0 || *n % 2 != 0) {
        return Status::InvalidArgument("Parameters must be specified in PARAM VALUE pairs");
      }
      if (*n > r.left()) {
        return BadArgs("PARAMS", kExpectedArg);
      }
      for (uint64_t i = 0; i < *n; i += 2) {
        std::string k(r.Take());
        std::string v(r.Take());
        req.params.emplace_back(std::move(k), std::move(v));
      }
    } else if (EqualsIgnoreCase(word, "DIALECT")) {
      std::optional<int64_t> d;
      if (!r.done()) {
        d = ParseInt64(r.Take());
      }
      if (!d || *d < 1 || *d > 4) {
        return Status::InvalidArgument("DIALECT requires a non negative integer >=1 and <= 4");
      }
      req.dialect = static_cast<int>(*d);
    } else if (EqualsIgnoreCase(word, "TIMEOUT")) {
      std::optional<int64_t> t;
      if (!r.done()) {
        t = ParseInt64(r.Take());
      }
      if (!t || *t < 0) {
        return Status::InvalidArgument("TIMEOUT requires a non negative integer");
      }
      req.timeout_ms = *t;
    } else if (EqualsIgnoreCase(word, "VERBATIM")) {
      req.verbatim = true;
    } else if (EqualsIgnoreCase(word, "LANGUAGE")) {
      if (r.done()) {
        return BadArgs("LANGUAGE", kExpectedArg);
      }
      req.language = std::string(r.Take());
      if (!IsLanguage(req.language)) {
        return Status::InvalidArgument("No such language");
      }
    } else if (EqualsIgnoreCase(word, "ADDSCORES")) {
      req.add_scores = true;
    } else if (EqualsIgnoreCase(word, "SCORER")) {
      if (r.done()) {
        return BadArgs("SCORER", kExpectedArg);
      }
      std::string s = ToUpper(r.Take());
      static const char* kScorers[] = {"BM25", "BM25STD", "TFIDF", "TFIDF.DOCNORM", "DISMAX",
                                       "DOCSCORE", "HAMMING", "BM25STD.NORM", "BM25STD.TANH"};
      bool known = false;
      for (const char* k : kScorers) {
        known = known || s == k;
      }
      if (!known) {
        return Status::InvalidArgument("No such scorer " + std::string(args[r.pos() - 1]));
      }
      req.scorer = s;
    } else if (EqualsIgnoreCase(word, "NOSTOPWORDS") || EqualsIgnoreCase(word, "WITHRAWIDS")) {
      // accepted, no effect here
    } else {
      return Status::InvalidArgument("Unknown argument `" + std::string(word) +
                                     "` at position " + std::to_string(at) + " for <main>");
    }
  }
  return req;
}

}  // namespace hotkv::search

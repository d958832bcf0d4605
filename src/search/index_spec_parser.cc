// ParseCreateArgs / ParseAlterSchemaAdd: FT.CREATE's and FT.ALTER's arguments into an
// IndexSpec, with RediSearch 2.10's error texts (checked against it one by one).
//
// Field grammar, as RediSearch reads it:
//   name [AS alias] TYPE <type options, any order> [SORTABLE [UNF] | NOINDEX]...
// after which the next argument is the next field's name (so "t TEXT SORTABLE NOSTEM"
// reads NOSTEM as a field name). VECTOR takes "ALGO count k v ..." and INDEXMISSING only.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "search/index_spec.h"

namespace hotkv::search {
namespace {

bool Is(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// RediSearch's argument conversions (AC_GetLongLong / AC_GetDouble).
enum class Conv { kOk, kBadType, kBounds };

Conv ToInt(std::string_view s, int64_t min, int64_t* out) {
  if (s.empty() || s.size() > 20) return Conv::kBadType;
  std::string tmp(s);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(tmp.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || std::isspace(static_cast<unsigned char>(tmp[0]))) {
    return Conv::kBadType;
  }
  if (v < min) return Conv::kBounds;
  *out = v;
  return Conv::kOk;
}

bool ToDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() > 400) return false;
  std::string tmp(s);
  if (std::isspace(static_cast<unsigned char>(tmp[0]))) return false;
  char* end = nullptr;
  double v = std::strtod(tmp.c_str(), &end);
  if (*end != '\0' || std::isnan(v)) return false;
  *out = v;
  return true;
}

const char* ConvText(Conv c) {
  return c == Conv::kBounds ? "Value is outside acceptable bounds"
                            : "Could not convert argument to expected type";
}


class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string_view>& args) : args_(args) {}
  bool Done() const { return i_ >= args_.size(); }
  size_t Left() const { return args_.size() - i_; }
  std::string_view Peek() const { return args_[i_]; }
  std::string_view Next() { return args_[i_++]; }
  bool Match(std::string_view kw) {
    if (!Done() && Is(args_[i_], kw)) {
      i_++;
      return true;
    }
    return false;
  }

 private:
  const std::vector<std::string_view>& args_;
  size_t i_ = 0;
};

Status Err(std::string msg) { return Status::InvalidArgument(std::move(msg)); }

Status ParseVector(ArgReader& r, FieldSpec* f) {
  VectorFieldOptions& v = f->vector;
  if (r.Done()) return Err("Bad arguments for vector similarity algorithm: Expected an argument, but none provided");
  std::string_view algo = r.Next();
  const char* algo_name;
  if (Is(algo, "HNSW")) {
    v.algo = VectorAlgo::kHnsw;
    algo_name = "HNSW";
  } else if (Is(algo, "FLAT")) {
    v.algo = VectorAlgo::kFlat;
    algo_name = "FLAT";
  } else {
    return Err("Bad arguments for vector similarity algorithm: Unknown argument");
  }
  if (r.Done()) {
    return Err("Bad arguments for vector similarity number of parameters: Expected an argument, but none provided");
  }
  int64_t count = 0;
  Conv c = ToInt(r.Next(), 0, &count);
  if (c != Conv::kOk) {
    return Err(std::string("Bad arguments for vector similarity number of parameters: ") + ConvText(c));
  }
  if (count % 2 != 0) {
    return Err("Bad number of arguments for vector similarity index: got " + std::to_string(count) +
               " but expected even number (as algorithm parameters should be submitted as named arguments)");
  }
  // Pairs are read while there are arguments; a short list fails after them.
  const size_t available = r.Left();
  bool has_type = false, has_dim = false, has_metric = false;
  const std::string prefix = std::string("Bad arguments for vector similarity ") + algo_name + " index `";
  for (int64_t k = 0; k < count; k += 2) {
    if (r.Left() < 2) {
      return Err("Expected " + std::to_string(count) + " parameters but got " + std::to_string(available));
    }
    std::string_view name = r.Next();
    std::string_view value = r.Next();
    std::string uname = Upper(name);
    auto bad = [&](Conv conv) { return Err(prefix + uname + "`: " + ConvText(conv)); };
    auto unknown = [&] { return Err(prefix + uname + "`: Unknown argument"); };
    int64_t n = 0;
    if (uname == "TYPE") {
      std::string t = Upper(value);
      if (t == "FLOAT32") v.type = VectorType::kFloat32;
      else if (t == "FLOAT64") v.type = VectorType::kFloat64;
      else if (t == "FLOAT16") v.type = VectorType::kFloat16;
      else if (t == "BFLOAT16") v.type = VectorType::kBFloat16;
      else return unknown();
      has_type = true;
    } else if (uname == "DIM") {
      if ((c = ToInt(value, 1, &n)) != Conv::kOk) return bad(c);
      if (n > 0xffffffffLL) return bad(Conv::kBounds);
      v.dim = static_cast<uint32_t>(n);
      has_dim = true;
    } else if (uname == "DISTANCE_METRIC") {
      std::string m = Upper(value);
      if (m == "L2") v.metric = VectorMetric::kL2;
      else if (m == "IP") v.metric = VectorMetric::kIp;
      else if (m == "COSINE") v.metric = VectorMetric::kCosine;
      else return unknown();
      has_metric = true;
    } else if (uname == "INITIAL_CAP") {
      if ((c = ToInt(value, 0, &n)) != Conv::kOk) return bad(c);
      v.initial_cap = static_cast<uint64_t>(n);
    } else if (uname == "BLOCK_SIZE" && v.algo == VectorAlgo::kFlat) {
      if ((c = ToInt(value, 1, &n)) != Conv::kOk) return bad(c);
      v.block_size = static_cast<uint64_t>(n);
    } else if (v.algo == VectorAlgo::kHnsw && (uname == "M" || uname == "EF_CONSTRUCTION" || uname == "EF_RUNTIME")) {
      if ((c = ToInt(value, 1, &n)) != Conv::kOk) return bad(c);
      if (n > 0xffffffffLL) return bad(Conv::kBounds);
      uint32_t u = static_cast<uint32_t>(n);
      if (uname == "M") v.m = u;
      else if (uname == "EF_CONSTRUCTION") v.ef_construction = u;
      else v.ef_runtime = u;
    } else if (v.algo == VectorAlgo::kHnsw && uname == "EPSILON") {
      double e;
      if (!ToDouble(value, &e)) return bad(Conv::kBadType);
      if (e < 0 || std::isinf(e)) return bad(Conv::kBounds);
      v.epsilon = e;
    } else {
      return Err(std::string("Bad arguments for algorithm ") + algo_name + ": " + std::string(name));
    }
  }
  const char* missing = !has_type ? "TYPE" : !has_dim ? "DIM" : !has_metric ? "DISTANCE_METRIC" : nullptr;
  if (missing) {
    return Err(std::string("Missing mandatory parameter: cannot create ") + algo_name +
               " index without specifying " + missing + " argument");
  }
  // Only INDEXMISSING may follow (no SORTABLE / NOINDEX for vectors).
  while (r.Match("INDEXMISSING")) f->index_missing = true;
  return Status::Ok();
}

// One field at the reader's position.
Status ParseField(ArgReader& r, SourceType on, FieldSpec* f) {
  std::string_view name = r.Next();
  f->path = std::string(name);
  f->name = f->path;
  if (r.Done()) return Err("Field `" + std::string(name) + "` does not have a type");
  if (Is(r.Peek(), "AS")) {
    r.Next();
    if (r.Done()) return Err("AS requires an argument");
    f->name = std::string(r.Next());
    if (r.Done()) return Err("Field `" + f->name + "` does not have a type");
  }
  (void)on;
  std::string_view type = r.Next();
  if (Is(type, "TEXT")) {
    f->type = FieldType::kText;
    while (!r.Done()) {
      if (r.Match("NOSTEM")) {
        f->nostem = true;
      } else if (r.Match("WEIGHT")) {
        double w;
        if (r.Done() || !ToDouble(r.Peek(), &w)) {
          return Err("Bad arguments for weight: Could not convert argument to expected type");
        }
        r.Next();
        f->weight = w;
      } else if (r.Match("PHONETIC")) {
        if (r.Done()) return Err("PHONETIC requires an argument");
        std::string_view m = r.Next();
        if (!(m == "dm:en" || m == "dm:fr" || m == "dm:pt" || m == "dm:es")) {
          return Err(
              "Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone "
              "(dm). Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)");
        }
        f->phonetic = std::string(m);
      } else if (r.Match("WITHSUFFIXTRIE")) {
        f->with_suffix_trie = true;
      } else if (r.Match("INDEXEMPTY")) {
        f->index_empty = true;
      } else if (r.Match("INDEXMISSING")) {
        f->index_missing = true;
      } else {
        break;
      }
    }
  } else if (Is(type, "TAG")) {
    f->type = FieldType::kTag;
    while (!r.Done()) {
      if (r.Match("SEPARATOR")) {
        if (r.Done()) return Err("SEPARATOR requires an argument");
        std::string_view sep = r.Next();
        if (sep.size() != 1) {
          return Err("Tag separator must be a single character. Got `%s`" + std::string(sep));
        }
        f->separator = sep[0];
      } else if (r.Match("CASESENSITIVE")) {
        f->case_sensitive = true;
      } else if (r.Match("WITHSUFFIXTRIE")) {
        f->with_suffix_trie = true;
      } else if (r.Match("INDEXEMPTY")) {
        f->index_empty = true;
      } else if (r.Match("INDEXMISSING")) {
        f->index_missing = true;
      } else {
        break;
      }
    }
  } else if (Is(type, "NUMERIC") || Is(type, "GEO")) {
    f->type = Is(type, "GEO") ? FieldType::kGeo : FieldType::kNumeric;
    while (r.Match("INDEXMISSING")) f->index_missing = true;
  } else if (Is(type, "GEOSHAPE")) {
    f->type = FieldType::kGeoShape;
    while (!r.Done()) {
      if (r.Match("FLAT") || r.Match("SPHERICAL")) continue;
      if (r.Match("INDEXMISSING")) {
        f->index_missing = true;
        continue;
      }
      break;
    }
  } else if (Is(type, "VECTOR")) {
    f->type = FieldType::kVector;
    return ParseVector(r, f);
  } else {
    return Err("Invalid field type for field `" + std::string(name) + "`");
  }
  // The options every non-vector field takes, after its own.
  while (!r.Done()) {
    if (r.Match("SORTABLE")) {
      f->sortable = true;
      if (r.Match("UNF") || f->type == FieldType::kNumeric) f->unf = true;
    } else if (r.Match("NOINDEX")) {
      f->noindex = true;
    } else {
      break;
    }
  }
  if (f->noindex && f->index_missing) {
    return Err("'Field cannot be defined with both `NOINDEX` and `INDEXMISSING` `" + f->name + "` '");
  }
  return Status::Ok();
}

Status ParseFields(ArgReader& r, IndexSpec* spec) {
  while (!r.Done()) {
    FieldSpec f;
    Status st = ParseField(r, spec->on, &f);
    if (!st.ok()) return st;
    if (spec->FindField(f.name) != nullptr) return Err("Duplicate field in schema - " + f.name);
    spec->fields.push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace

bool IsLanguage(std::string_view l) {
  static const char* const kLanguages[] = {
      "arabic",   "armenian", "basque",     "catalan",  "chinese",  "danish",     "dutch",
      "english",  "finnish",  "french",     "german",   "greek",    "hindi",      "hungarian",
      "indonesian", "irish",  "italian",    "lithuanian", "nepali", "norwegian",  "portuguese",
      "romanian", "russian",  "serbian",    "spanish",  "swedish",  "tamil",      "turkish",
      "yiddish"};
  for (const char* name : kLanguages) {
    if (Is(l, name)) return true;
  }
  return false;
}

size_t VectorFieldOptions::blob_bytes() const {
  size_t width = 4;
  switch (type) {
    case VectorType::kFloat32: width = 4; break;
    case VectorType::kFloat64: width = 8; break;
    case VectorType::kFloat16:
    case VectorType::kBFloat16: width = 2; break;
  }
  return static_cast<size_t>(dim) * width;
}

const FieldSpec* IndexSpec::FindField(std::string_view field_name) const {
  for (const auto& f : fields) {
    if (f.name == field_name) return &f;
  }
  return nullptr;
}

Result<IndexSpec> ParseCreateArgs(std::string_view name, const std::vector<std::string_view>& args) {
  if (args.size() < 3) return Err("ERR wrong number of arguments for 'FT.CREATE' command");
  IndexSpec spec;
  spec.name = std::string(name);
  for (auto a : args) spec.create_args.emplace_back(a);
  ArgReader r(args);
  bool schema = false;
  while (!r.Done()) {
    std::string_view kw = r.Next();
    auto need = [&](const char* what) -> Status {
      if (r.Done()) {
        return Err(std::string("Bad arguments for ") + what + ": Expected an argument, but none provided");
      }
      return Status::Ok();
    };
    if (Is(kw, "SCHEMA")) {
      schema = true;
      break;
    } else if (Is(kw, "ON")) {
      if (r.Done()) return Err("Invalid rule type: ");
      std::string_view t = r.Next();
      if (Is(t, "HASH")) spec.on = SourceType::kHash;
      else if (Is(t, "JSON")) spec.on = SourceType::kJson;
      else return Err("Invalid rule type: " + std::string(t));
    } else if (Is(kw, "PREFIX") || Is(kw, "STOPWORDS")) {
      const bool prefix = Is(kw, "PREFIX");
      const char* what = prefix ? "PREFIX" : "STOPWORDS";
      if (Status st = need(what); !st.ok()) return st;
      int64_t n = 0;
      Conv c = ToInt(r.Next(), 0, &n);
      if (c != Conv::kOk) return Err(std::string("Bad arguments for ") + what + ": " + ConvText(c));
      if (static_cast<uint64_t>(n) > r.Left()) {
        return Err(std::string("Bad arguments for ") + what + ": Expected an argument, but none provided");
      }
      std::vector<std::string> words;
      for (int64_t i = 0; i < n; i++) words.emplace_back(r.Next());
      if (prefix) {
        for (auto& w : words) spec.prefixes.push_back(std::move(w));
      } else {
        for (auto& w : words) w = Lower(w);
        spec.stopwords = std::move(words);
      }
    } else if (Is(kw, "FILTER")) {
      if (Status st = need("FILTER"); !st.ok()) return st;
      spec.filter = std::string(r.Next());
    } else if (Is(kw, "LANGUAGE")) {
      if (r.Done() || !IsLanguage(r.Peek())) return Err("Invalid language");
      spec.language = Lower(r.Next());
    } else if (Is(kw, "LANGUAGE_FIELD") || Is(kw, "SCORE_FIELD") || Is(kw, "PAYLOAD_FIELD")) {
      std::string what = Upper(kw);
      if (Status st = need(what.c_str()); !st.ok()) return st;
      std::string v(r.Next());
      if (what == "LANGUAGE_FIELD") spec.language_field = std::move(v);
      else if (what == "SCORE_FIELD") spec.score_field = std::move(v);
      else spec.payload_field = std::move(v);
    } else if (Is(kw, "SCORE")) {
      double s;
      if (r.Done() || !ToDouble(r.Peek(), &s) || s < 0 || s > 1) return Err("Invalid score");
      r.Next();
      spec.score = s;
    } else if (Is(kw, "TEMPORARY")) {
      int64_t t = 0;
      if (r.Done() || ToInt(r.Peek(), INT64_MIN, &t) != Conv::kOk) {
        return Err("Bad arguments for TEMPORARY: Could not convert argument to expected type");
      }
      r.Next();
      spec.temporary_seconds = t;
    } else if (Is(kw, "MAXTEXTFIELDS")) {
      spec.max_text_fields = true;
    } else if (Is(kw, "NOOFFSETS")) {
      spec.no_offsets = true;
    } else if (Is(kw, "NOHL")) {
      spec.no_hl = true;
    } else if (Is(kw, "NOFIELDS")) {
      spec.no_fields = true;
    } else if (Is(kw, "NOFREQS")) {
      spec.no_freqs = true;
    } else if (Is(kw, "SKIPINITIALSCAN")) {
      spec.skip_initial_scan = true;
    } else if (Is(kw, "ASYNC")) {
      // Accepted, as RediSearch does (indexing is synchronous here anyway).
    } else {
      return Err("Unknown argument `" + std::string(kw) + "`");
    }
  }
  if (spec.max_text_fields && spec.no_fields) return Err("MAXTEXTFIELDS cannot be used with NOFIELDS");
  if (!schema) return Err("No schema found");
  if (r.Done()) return Err("Fields arguments are missing");
  Status st = ParseFields(r, &spec);
  if (!st.ok()) return st;
  return spec;
}

Status ParseAlterSchemaAdd(IndexSpec& spec, const std::vector<std::string_view>& args) {
  ArgReader r(args);
  r.Match("SKIPINITIALSCAN");
  if (!r.Match("SCHEMA")) {
    if (r.Done()) return Err("ERR wrong number of arguments for 'FT.ALTER' command");
    return Err("Unknown argument `" + std::string(r.Peek()) + "`");
  }
  if (!r.Match("ADD")) {
    if (r.Done()) return Err("ERR wrong number of arguments for 'FT.ALTER' command");
    return Err("Unknown action passed to ALTER SCHEMA");
  }
  if (r.Done()) return Err("ERR wrong number of arguments for 'FT.ALTER' command");
  IndexSpec copy = spec;
  Status st = ParseFields(r, &copy);
  if (!st.ok()) return st;
  // FT.ALTER's fields join the create arguments (after SCHEMA's fields), so the AOF /
  // RDB re-create the altered index.
  bool after_schema = false;
  for (auto a : args) {
    if (after_schema) copy.create_args.emplace_back(a);
    if (Is(a, "ADD")) after_schema = true;
  }
  spec = std::move(copy);
  return Status::Ok();
}

}  // namespace hotkv::search

// APPLY / FILTER functions with RediSearch 2.10's argument checks and results.
#include "search/aggregate_functions.h"

#include <cmath>
#include <cstring>
#include <ctime>

#include "common/string_util.h"

namespace hotkv::search {
namespace {

// RediSearch's value type numbers, as its argument errors show them.
int TypeCode(const Value& v) {
  switch (v.type) {
    case Value::Type::kNumber: return 1;
    case Value::Type::kString: return 3;
    case Value::Type::kNull: return 4;
    default: return 6;
  }
}

Status NotString(const char* fn, const std::vector<Value>& args, size_t i) {
  return Status::InvalidArgument("Invalid type (" + std::to_string(TypeCode(args[i])) +
                                 ") for argument " + std::to_string(i) + " in function '" +
                                 fn + "'. VALIDATE_ARG__STRING(v, 0) was false.");
}

Status WrongType(const char* fn, const std::vector<Value>& args, size_t i, const char* want) {
  return Status::InvalidArgument("Invalid type (" + std::to_string(TypeCode(args[i])) +
                                 ") for argument " + std::to_string(i) + " in function '" +
                                 fn + "'. VALIDATE_ARG__TYPE(v, " + want + ") was false.");
}

// ---- Math ----

template <double (*F)(double)>
Result<Value> MathFn(const std::vector<Value>& args) {
  double d;
  if (!args[0].ToNumber(&d)) {
    return Value::Number(NAN);
  }
  return Value::Number(F(d));
}
double Abs(double d) { return std::fabs(d); }
double Ceil(double d) { return std::ceil(d); }
double Floor(double d) { return std::floor(d); }
double Log(double d) { return std::log(d); }
double Log2(double d) { return std::log2(d); }
double Exp(double d) { return std::exp(d); }
double Sqrt(double d) { return std::sqrt(d); }

// pow(x, y), max(a, ...), min(a, ...): numbers (later RediSearch versions; 2.10 lacks
// them, HotKV takes them as agent-memory-server and the clients send them).
Result<Value> Pow(const std::vector<Value>& args) {
  double x, y;
  if (!args[0].ToNumber(&x) || !args[1].ToNumber(&y)) {
    return Status::InvalidArgument("Could not convert value to a number");
  }
  return Value::Number(std::pow(x, y));
}

template <bool kMax>
Result<Value> Extreme(const std::vector<Value>& args) {
  double best = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    double d;
    if (!args[i].ToNumber(&d)) {
      return Status::InvalidArgument("Could not convert value to a number");
    }
    if (i == 0 || (kMax ? d > best : d < best)) {
      best = d;
    }
  }
  return Value::Number(best);
}

// ---- Strings ----

Result<Value> Lower(const std::vector<Value>& args) {
  if (!args[0].is_string()) {
    return Value::Null();
  }
  std::string s = args[0].str;
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return Value::String(std::move(s));
}

Result<Value> Upper(const std::vector<Value>& args) {
  if (!args[0].is_string()) {
    return Value::Null();
  }
  std::string s = args[0].str;
  for (char& c : s) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return Value::String(std::move(s));
}

Result<Value> Substr(const std::vector<Value>& args) {
  for (size_t i = 1; i < 3; ++i) {
    if (!args[i].is_number()) {
      return WrongType("substr", args, i, "RSValue_Number");
    }
  }
  if (!args[0].is_string()) {
    return Status::InvalidArgument("Invalid type for substr. Expected string");
  }
  const std::string& s = args[0].str;
  auto clamp_int = [](double d) {
    if (!(d > -2147483648.0)) {
      return static_cast<int64_t>(-2147483648LL);
    }
    if (!(d < 2147483647.0)) {
      return static_cast<int64_t>(2147483647LL);
    }
    return static_cast<int64_t>(d);
  };
  int64_t size = static_cast<int64_t>(s.size());
  int64_t offset = clamp_int(args[1].num);
  int64_t len = clamp_int(args[2].num);
  if (offset < 0) {
    offset += size;
  }
  offset = std::max<int64_t>(0, std::min(offset, size));
  if (len < 0) {
    len = std::max<int64_t>(0, size - offset + len);
  }
  if (offset + len > size) {
    len = size - offset;
  }
  return Value::String(s.substr(offset, len));
}

Result<Value> Format(const std::vector<Value>& args) {
  if (!args[0].is_string()) {
    return NotString("format", args, 0);
  }
  const std::string& fmt = args[0].str;
  std::string out;
  size_t argi = 1;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 == fmt.size()) {
      return Status::InvalidArgument("Bad format string!");
    }
    char type = fmt[++i];
    if (type == '%') {
      out.push_back('%');
      continue;
    }
    if (argi == args.size()) {
      return Status::InvalidArgument("Not enough arguments for format");
    }
    const Value& a = args[argi++];
    if (type != 's') {
      return Status::InvalidArgument("Unknown format specifier passed");
    }
    out += a.is_null() ? std::string("(null)") : a.ToString();
  }
  return Value::String(std::move(out));
}

Result<Value> Split(const std::vector<Value>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_string()) {
      return NotString("split", args, i);
    }
  }
  std::string sep = args.size() >= 2 ? args[1].str : ",";
  std::string strip = args.size() >= 3 ? args[2].str : " ";
  const std::string& s = args[0].str;
  std::vector<Value> parts;
  size_t start = 0;
  while (parts.size() < 1024 && start <= s.size()) {
    size_t next = s.find_first_of(sep, start);
    size_t end = next == std::string::npos ? s.size() : next;
    size_t a = start, b = end;
    while (a < b && strip.find(s[a]) != std::string::npos) {
      ++a;
    }
    while (b > a && strip.find(s[b - 1]) != std::string::npos) {
      --b;
    }
    if (b > a) {
      parts.push_back(Value::String(s.substr(a, b - a)));
    }
    if (next == std::string::npos) {
      break;
    }
    start = next + 1;
  }
  return Value::Array(std::move(parts));
}

Result<Value> MatchedTerms(const std::vector<Value>&) { return Value::Null(); }

Result<Value> ToNumberFn(const std::vector<Value>& args) {
  double d;
  if (!args[0].ToNumber(&d)) {
    return Status::InvalidArgument("to_number: cannot convert string '" +
                                   (args[0].is_null() ? "(null)" : args[0].ToString()) + "'");
  }
  return Value::Number(d);
}

Result<Value> ToStr(const std::vector<Value>& args) { return Value::String(args[0].ToString()); }

Result<Value> StartsWith(const std::vector<Value>& args) {
  for (size_t i = 0; i < 2; ++i) {
    if (!args[i].is_string()) {
      return NotString("startswith", args, i);
    }
  }
  return Value::Number(args[0].str.compare(0, args[1].str.size(), args[1].str) == 0 &&
                               args[0].str.size() >= args[1].str.size()
                           ? 1
                           : 0);
}

Result<Value> Contains(const std::vector<Value>& args) {
  for (size_t i = 0; i < 2; ++i) {
    if (!args[i].is_string()) {
      return NotString("contains", args, i);
    }
  }
  const std::string& s = args[0].str;
  const std::string& sub = args[1].str;
  if (sub.empty()) {
    return Value::Number(static_cast<double>(s.size() + 1));
  }
  size_t n = 0;
  for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + 1)) {
    ++n;
  }
  return Value::Number(static_cast<double>(n));
}

Result<Value> Strlen(const std::vector<Value>& args) {
  if (!args[0].is_string()) {
    return NotString("strlen", args, 0);
  }
  return Value::Number(static_cast<double>(args[0].str.size()));
}

// ---- Time (UTC) ----

// The parts functions (hour, day, ...) give null before 1970, as RediSearch's.
bool ToTime(const Value& v, time_t* t, struct tm* tm, bool allow_negative = false) {
  double d;
  if (!v.ToNumber(&d) || !std::isfinite(d) || std::fabs(d) > 1e17 ||
      (d < 0 && !allow_negative)) {
    return false;
  }
  *t = static_cast<time_t>(d);
  return gmtime_r(t, tm) != nullptr;
}

Result<Value> TimeFmt(const std::vector<Value>& args) {
  std::string fmt = "%FT%TZ";
  if (args.size() == 2) {
    if (!args[1].is_string()) {
      return WrongType("time", args, 1, "RSValue_String");
    }
    fmt = args[1].str;
  }
  time_t t;
  struct tm tm;
  if (!ToTime(args[0], &t, &tm, true)) {
    return Value::Null();
  }
  char buf[1024];
  size_t n = strftime(buf, sizeof(buf), fmt.c_str(), &tm);
  if (n == 0) {
    return Value::Null();
  }
  return Value::String(std::string(buf, n));
}

Result<Value> ParseTime(const std::vector<Value>& args) {
  for (size_t i = 0; i < 2; ++i) {
    if (!args[i].is_string()) {
      return NotString("parsetime", args, i);
    }
  }
  struct tm tm;
  std::memset(&tm, 0, sizeof(tm));
  if (strptime(args[0].str.c_str(), args[1].str.c_str(), &tm) == nullptr) {
    return Value::Null();
  }
  return Value::Number(static_cast<double>(timegm(&tm)));
}

template <int kWhat>
Result<Value> TimePart(const std::vector<Value>& args) {
  time_t t;
  struct tm tm;
  if (!ToTime(args[0], &t, &tm)) {
    return Value::Null();
  }
  switch (kWhat) {
    case 0:  // minute
      return Value::Number(static_cast<double>(t - tm.tm_sec));
    case 1:  // hour
      return Value::Number(static_cast<double>(t - tm.tm_sec - tm.tm_min * 60));
    case 2:  // day
      return Value::Number(
          static_cast<double>(t - tm.tm_sec - tm.tm_min * 60 - tm.tm_hour * 3600));
    case 3: {  // month: its first day
      tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
      tm.tm_mday = 1;
      return Value::Number(static_cast<double>(timegm(&tm)));
    }
    case 4:
      return Value::Number(tm.tm_wday);
    case 5:
      return Value::Number(tm.tm_mday);
    case 6:
      return Value::Number(tm.tm_yday);
    case 7:
      return Value::Number(tm.tm_year + 1900);
    default:
      return Value::Number(tm.tm_mon);
  }
}

// ---- Geo ----

bool ParseLonLat(const Value& v, double* lon, double* lat) {
  if (!v.is_string()) {
    return false;
  }
  size_t comma = v.str.find(',');
  if (comma == std::string::npos) {
    return false;
  }
  auto a = ParseDouble(std::string_view(v.str).substr(0, comma));
  auto b = ParseDouble(std::string_view(v.str).substr(comma + 1));
  if (!a || !b) {
    return false;
  }
  *lon = *a;
  *lat = *b;
  return true;
}

Result<Value> GeoDistance(const std::vector<Value>& args) {
  double lon1, lat1, lon2, lat2;
  if (args.size() == 2) {
    if (!ParseLonLat(args[0], &lon1, &lat1) || !ParseLonLat(args[1], &lon2, &lat2)) {
      return Status::InvalidArgument("Invalid geo string");
    }
  } else if (args.size() == 4) {
    if (!args[0].ToNumber(&lon1) || !args[1].ToNumber(&lat1) || !args[2].ToNumber(&lon2) ||
        !args[3].ToNumber(&lat2)) {
      return Value::Number(NAN);
    }
  } else {
    return Value::Number(NAN);
  }
  // Redis's haversine (GEODIST's earth radius).
  constexpr double kEarthRadius = 6372797.560856;
  constexpr double kDegToRad = M_PI / 180.0;
  double lat1r = lat1 * kDegToRad, lat2r = lat2 * kDegToRad;
  double u = std::sin((lat2r - lat1r) / 2);
  double v = std::sin((lon2 - lon1) * kDegToRad / 2);
  double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  double d = 2.0 * kEarthRadius * std::asin(std::sqrt(a));
  return Value::Number(std::round(d * 100) / 100);
}

const FunctionDef kFunctions[] = {
    {"abs", 1, 1, MathFn<Abs>},
    {"ceil", 1, 1, MathFn<Ceil>},
    {"floor", 1, 1, MathFn<Floor>},
    {"log", 1, 1, MathFn<Log>},
    {"log2", 1, 1, MathFn<Log2>},
    {"exp", 1, 1, MathFn<Exp>},
    {"sqrt", 1, 1, MathFn<Sqrt>},
    {"pow", 2, 2, Pow},
    {"max", 1, -1, Extreme<true>},
    {"min", 1, -1, Extreme<false>},
    {"lower", 1, 1, Lower},
    {"upper", 1, 1, Upper},
    {"substr", 3, 3, Substr},
    {"format", 1, -1, Format},
    {"split", 1, 3, Split},
    {"matched_terms", 0, 1, MatchedTerms},
    {"to_number", 1, 1, ToNumberFn},
    {"to_str", 1, 1, ToStr},
    {"exists", 1, 1, nullptr},  // evaluated by Expr::Eval (catches a missing property)
    {"startswith", 2, 2, StartsWith},
    {"contains", 2, 2, Contains},
    {"strlen", 1, 1, Strlen},
    {"timefmt", 1, 2, TimeFmt},
    {"parsetime", 2, 2, ParseTime},
    {"minute", 1, 1, TimePart<0>},
    {"hour", 1, 1, TimePart<1>},
    {"day", 1, 1, TimePart<2>},
    {"month", 1, 1, TimePart<3>},
    {"dayofweek", 1, 1, TimePart<4>},
    {"dayofmonth", 1, 1, TimePart<5>},
    {"dayofyear", 1, 1, TimePart<6>},
    {"year", 1, 1, TimePart<7>},
    {"monthofyear", 1, 1, TimePart<8>},
    {"geodistance", 2, 4, GeoDistance},
};

}  // namespace

const FunctionDef* FindFunction(std::string_view name) {
  for (const auto& f : kFunctions) {
    if (EqualsIgnoreCase(name, f.name)) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace hotkv::search

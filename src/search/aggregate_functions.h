// The functions APPLY and FILTER expressions may call (RediSearch 2.10's set): math
// (abs, ceil, floor, log, log2, exp, sqrt; and pow, max, min, which 2.10 lacks), strings (lower, upper, substr, format,
// split, strlen, contains, startswith, to_number, to_str, exists, matched_terms), time
// (timefmt, parsetime, day, hour, minute, month, dayofweek, dayofmonth, dayofyear,
// year, monthofyear) and geodistance. Names match case-insensitively.
//
// Thread safety: the table is immutable; the functions are pure.
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "search/aggregate_expr.h"

namespace hotkv::search {

struct FunctionDef {
  const char* name;
  int min_args;
  int max_args;  // -1: any number
  Result<Value> (*call)(const std::vector<Value>& args);
};

// The function called `name`, or null.
const FunctionDef* FindFunction(std::string_view name);

}  // namespace hotkv::search

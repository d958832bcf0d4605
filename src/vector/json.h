// A small JSON parser for element attributes (the JSON objects given to VADD SETATTR
// and VSETATTR, and read by FILTER expressions).
//
// Full JSON syntax is accepted (RFC 8259: objects, arrays, strings with escapes,
// numbers, true/false/null); nesting is limited to kMaxJsonDepth levels so hostile
// input cannot exhaust the stack. Filters only look at top-level fields, so
// ExtractTopLevelField() scans an object and builds only the value asked for.
//
//   std::optional<JsonValue> year = ExtractTopLevelField(R"({"year": 1984})", "year");
//   // year->type == JsonValue::Type::kNumber, year->number == 1984
//
// Thread safety: all functions are pure and thread-safe.
#ifndef HOTKV_VECTOR_JSON_H_
#define HOTKV_VECTOR_JSON_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hotkv::vector {

inline constexpr int kMaxJsonDepth = 64;

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type = Type::kNull;
  bool boolean = false;
  double number = 0.0;
  std::string string;  // Unescaped UTF-8.
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // In document order.
};

// Parses a complete document (surrounding whitespace allowed).
Result<JsonValue> ParseJson(std::string_view text);

// Ok if `text` is a JSON object.
Status ValidateJsonObject(std::string_view text);

// The value of top-level field `name` of the object in `json`; nullopt if `json` is
// not a well-formed object (up to and including that field) or has no such field.
// With duplicate keys the first one wins.
std::optional<JsonValue> ExtractTopLevelField(std::string_view json, std::string_view name);

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_JSON_H_

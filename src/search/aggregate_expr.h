// FT.AGGREGATE's expression language (APPLY, FILTER): values, the parser and the
// evaluator, with RediSearch 2.10's semantics.
//
//   Result<std::unique_ptr<Expr>> e = ParseExpr("upper(@name) + 1");   // parsed once
//   e->ResolveProperties([&](const std::string& n) { return slot_of(n); });
//   Result<Value> v = e->Eval(row);                                     // per row
//
// Values are null, numbers, strings or arrays (split, TOLIST...). Numbers print as
// RediSearch does (FormatNumber): integers below 2^63 in full, others with 12 significant
// digits, "nan"/"-nan"/"inf". Arithmetic converts strings to numbers ("Could not convert
// value to a number"); comparisons compare numbers, strings bytewise, and a string with a
// number after converting the string. Precedence, loosest first: `|| &&` (one level, left
// to right), `!`, comparisons, `+ -`, `* / % ^` (one level, left to right) — as RediSearch
// 2.10 parses them. A `-` directly before a digit belongs to the number ("2-1" is an
// error, "2 - 1" is 1); before anything else it negates its operand (beyond 2.10, as
// pow/max/min: clients of later versions send them).
//
// Thread safety: an Expr is immutable after ResolveProperties; Eval may run on any
// thread (time functions use the reentrant libc calls).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hotkv::search {

struct Value {
  enum class Type : uint8_t { kNull, kNumber, kString, kArray };
  Type type = Type::kNull;
  double num = 0;
  std::string str;
  std::shared_ptr<const std::vector<Value>> arr;

  static Value Null() { return Value(); }
  static Value Number(double d) {
    Value v;
    v.type = Type::kNumber;
    v.num = d;
    return v;
  }
  static Value String(std::string s) {
    Value v;
    v.type = Type::kString;
    v.str = std::move(s);
    return v;
  }
  static Value Array(std::vector<Value> items) {
    Value v;
    v.type = Type::kArray;
    v.arr = std::make_shared<const std::vector<Value>>(std::move(items));
    return v;
  }
  bool is_null() const { return type == Type::kNull; }
  bool is_number() const { return type == Type::kNumber; }
  bool is_string() const { return type == Type::kString; }
  bool is_array() const { return type == Type::kArray; }
  // Numbers as themselves, strings that parse fully as a number; else false.
  bool ToNumber(double* out) const;
  // Strings as themselves, numbers formatted (FormatNumber), null "", arrays joined.
  std::string ToString() const;
  // Non-zero numbers, non-empty strings and arrays.
  bool Truthy() const;
};

// RediSearch's number text: "5", "0.333333333333", "1e+20", "nan", "-inf".
std::string FormatNumber(double d);

// Compares two values as SORTBY and the comparison operators do (numbers numerically,
// strings bytewise, a string against a number converted when it parses, else as text).
// <0, 0, >0.
int CompareValues(const Value& a, const Value& b);

// A row being evaluated: the values by property slot (nullopt: the row lacks it).
using RowValues = std::vector<std::optional<Value>>;

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod, kPow, kEq, kNe, kLt, kLe, kGt,
                                kGe, kAnd, kOr };

struct FunctionDef;

// One node of a parsed expression.
struct Expr {
  enum class Kind : uint8_t { kLiteral, kProperty, kFunction, kBinary, kNot };
  Kind kind = Kind::kLiteral;
  Value literal;                 // kLiteral
  std::string name;              // kProperty: the name without '@'; kFunction: as written
  int slot = -1;                 // kProperty, after ResolveProperties
  BinaryOp op = BinaryOp::kAdd;  // kBinary
  const FunctionDef* function = nullptr;
  std::vector<std::unique_ptr<Expr>> args;  // kFunction's arguments; kBinary: 2; kNot: 1

  // Every @property named, in order of appearance, each once.
  void CollectProperties(std::vector<std::string>* out) const;
  // Binds each property to its slot in RowValues (slot_of returns -1 for none: then the
  // property evaluates as missing).
  void ResolveProperties(const std::function<int(const std::string&)>& slot_of);
  // Errors are RediSearch's texts ("Could not convert value to a number", "Could not find
  // the value for a parameter name, consider using EXISTS if applicable for x", ...).
  Result<Value> Eval(const RowValues& row) const;
};

// Parses `text`. Errors: "Syntax error at offset N near 'x'", "Unknown function name
// 'f'", "Invalid arguments for function 'f'". Nesting deeper than 1000 is an error.
Result<std::unique_ptr<Expr>> ParseExpr(std::string_view text);

}  // namespace hotkv::search

// The APPLY / FILTER expression language against RediSearch 2.10's answers (peer-checked).
#include "search/aggregate_expr.h"

#include <gtest/gtest.h>

namespace hotkv::search {
namespace {

// Evaluates `text` with @a = 2, @s = "Hello", @n = "30", @m missing; the result as the
// reply would show it, or "ERR <message>".
std::string Eval(const std::string& text) {
  auto e = ParseExpr(text);
  if (!e.ok()) {
    return "ERR " + e.status().message();
  }
  std::vector<std::string> names = {"a", "s", "n", "m"};
  (*e)->ResolveProperties([&](const std::string& n) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == n) {
        return static_cast<int>(i);
      }
    }
    return -1;
  });
  RowValues row = {Value::Number(2), Value::String("Hello"), Value::String("30"), std::nullopt};
  auto v = (*e)->Eval(row);
  if (!v.ok()) {
    return "ERR " + v.status().message();
  }
  if (v->is_null()) {
    return "(nil)";
  }
  if (v->is_array()) {
    std::string out = "[";
    for (const Value& x : *v->arr) {
      out += x.ToString() + ";";
    }
    return out + "]";
  }
  return v->ToString();
}

TEST(AggregateExprTest, NumbersPrintAsRediSearch) {
  EXPECT_EQ(FormatNumber(5), "5");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.333333333333");
  EXPECT_EQ(FormatNumber(1e20), "1e+20");
  EXPECT_EQ(FormatNumber(1e15), "1000000000000000");
  EXPECT_EQ(FormatNumber(-0.0), "0");
  EXPECT_EQ(FormatNumber(9223372036854775808.0), "9.22337203685e+18");
  EXPECT_EQ(Eval("1/0"), "nan");
  EXPECT_EQ(Eval("1e308*10"), "inf");
  EXPECT_EQ(Eval("log(0)"), "-inf");
  EXPECT_EQ(Eval("0.1+0.2"), "0.3");
}

TEST(AggregateExprTest, PrecedenceAsRediSearch210) {
  EXPECT_EQ(Eval("1 + 2 * 3 ^ 2"), "37");  // * and ^ share a level, left to right
  EXPECT_EQ(Eval("2^2*3"), "12");
  EXPECT_EQ(Eval("1+2^2"), "5");
  EXPECT_EQ(Eval("2^3^2"), "64");
  EXPECT_EQ(Eval("10 - 2 - 3"), "5");
  EXPECT_EQ(Eval("8/2*2"), "8");
  EXPECT_EQ(Eval("!0 + 1"), "0");  // ! takes the whole sum
  EXPECT_EQ(Eval("1 || 0 && 0"), "0");  // one level, left to right
  EXPECT_EQ(Eval("0 && 0 || 1"), "1");
  EXPECT_EQ(Eval("1 == 1 + 1"), "0");
  EXPECT_EQ(Eval("2 > 1 == 1"), "1");
  EXPECT_EQ(Eval("(1+2)*3"), "9");
  EXPECT_EQ(Eval("-2^2"), "4");
  EXPECT_EQ(Eval("!!-3"), "1");
  EXPECT_EQ(Eval("3 - -1"), "4");
  EXPECT_EQ(Eval("2-1"), "ERR Syntax error at offset 1 near '-1'");
}

TEST(AggregateExprTest, Arithmetic) {
  EXPECT_EQ(Eval("5 % 3"), "2");
  EXPECT_EQ(Eval("-5 % 3"), "-2");
  EXPECT_EQ(Eval("5.5 % 2"), "1");
  EXPECT_EQ(Eval("5 % 0"), "nan");
  EXPECT_EQ(Eval("@a * 1.5"), "3");
  EXPECT_EQ(Eval("@n + \"3\""), "33");
  EXPECT_EQ(Eval("@s + 1"), "ERR Could not convert value to a number");
  EXPECT_EQ(Eval("NULL + 1"), "ERR Could not convert value to a number");
  EXPECT_EQ(Eval("@m + 1"),
            "ERR Could not find the value for a parameter name, consider using EXISTS if "
            "applicable for m");
}

TEST(AggregateExprTest, Comparisons) {
  EXPECT_EQ(Eval("\"a\" < \"b\""), "1");
  EXPECT_EQ(Eval("\"b\" > \"abc\""), "1");
  EXPECT_EQ(Eval("1 < \"2\""), "1");
  EXPECT_EQ(Eval("\"10\" == 10"), "1");
  EXPECT_EQ(Eval("\"1.50\" == 1.5"), "1");
  EXPECT_EQ(Eval("\"abc\" < 1"), "ERR Error converting string 'abc' to number");
  EXPECT_EQ(Eval("NULL == NULL"), "1");
  EXPECT_EQ(Eval("\"abc\" == 1"), "0");  // == and != do not need a number
  EXPECT_EQ(Eval("\"abc\" != 1"), "1");
  EXPECT_EQ(Eval("\"abc\" >= NULL"), "1");  // null is below everything
  EXPECT_EQ(Eval("NULL < 1"), "1");
  EXPECT_EQ(Eval("NULL == 0"), "0");
  EXPECT_EQ(Eval("\"\" + 1"), "1");  // strtod's conversions: "" is 0, space and hex pass
  EXPECT_EQ(Eval("\" 5\" + 1"), "6");
  EXPECT_EQ(Eval("\"0x10\" + 1"), "17");
  EXPECT_EQ(Eval("\"5 \" + 1"), "ERR Could not convert value to a number");
  EXPECT_EQ(Eval("(0/0) == (0/0)"), "1");
  EXPECT_EQ(Eval("@s != \"Hello\""), "0");
  EXPECT_EQ(Eval("!\"\""), "1");
  EXPECT_EQ(Eval("1 && \"x\""), "1");
  EXPECT_EQ(Eval("\"\" || 0"), "0");
  EXPECT_EQ(Eval("'sq' == \"sq\""), "1");
  EXPECT_EQ(Eval("\"a\\\"b\""), "a\"b");
}

TEST(AggregateExprTest, Functions) {
  EXPECT_EQ(Eval("abs(-3)"), "3");
  EXPECT_EQ(Eval("ceil(1.2)"), "2");
  EXPECT_EQ(Eval("floor(-1.2)"), "-2");
  EXPECT_EQ(Eval("ceil(-0.5)"), "0");
  EXPECT_EQ(Eval("log(10)"), "2.30258509299");
  EXPECT_EQ(Eval("log2(8)"), "3");
  EXPECT_EQ(Eval("exp(1)"), "2.71828182846");
  EXPECT_EQ(Eval("sqrt(2)"), "1.41421356237");
  EXPECT_EQ(Eval("sqrt(-1)"), "-nan");
  EXPECT_EQ(Eval("abs(\"x\")"), "nan");
  EXPECT_EQ(Eval("floor(\"2.5\")"), "2");
  EXPECT_EQ(Eval("upper(@s)"), "HELLO");
  EXPECT_EQ(Eval("LOWER(@s)"), "hello");
  EXPECT_EQ(Eval("upper(123)"), "(nil)");
  EXPECT_EQ(Eval("substr(\"hello\",1,3)"), "ell");
  EXPECT_EQ(Eval("substr(\"hello\", -2, 5)"), "lo");
  EXPECT_EQ(Eval("substr(\"hello\", 1, -1)"), "ell");
  EXPECT_EQ(Eval("substr(123, 1, 2)"), "ERR Invalid type for substr. Expected string");
  EXPECT_EQ(Eval("substr(\"abc\",\"1\",2)"),
            "ERR Invalid type (3) for argument 1 in function 'substr'. "
            "VALIDATE_ARG__TYPE(v, RSValue_Number) was false.");
  EXPECT_EQ(Eval("format(\"%s-%s\",1,\"x\")"), "1-x");
  EXPECT_EQ(Eval("format(\"%s%%\", 1.5)"), "1.5%");
  EXPECT_EQ(Eval("format(\"%d\", 1)"), "ERR Unknown format specifier passed");
  EXPECT_EQ(Eval("format(\"x%\")"), "ERR Bad format string!");
  EXPECT_EQ(Eval("format(\"%s\")"), "ERR Not enough arguments for format");
  EXPECT_EQ(Eval("strlen(\"hello\")"), "5");
  EXPECT_EQ(Eval("strlen(NULL)"),
            "ERR Invalid type (4) for argument 0 in function 'strlen'. "
            "VALIDATE_ARG__STRING(v, 0) was false.");
  EXPECT_EQ(Eval("startswith(\"\", -3)"),
            "ERR Invalid type (1) for argument 1 in function 'startswith'. "
            "VALIDATE_ARG__STRING(v, 0) was false.");
  EXPECT_EQ(Eval("contains(\"banana\",\"an\")"), "2");
  EXPECT_EQ(Eval("contains(\"aaa\",\"\")"), "4");
  EXPECT_EQ(Eval("startswith(\"hello\",\"he\")"), "1");
  EXPECT_EQ(Eval("startswith(\"he\",\"hello\")"), "0");
  EXPECT_EQ(Eval("split(\"a, b,c\")"), "[a;b;c;]");
  EXPECT_EQ(Eval("split(\"a|b;c\", \"|;\")"), "[a;b;c;]");
  EXPECT_EQ(Eval("split(\"  a , ,b \")"), "[a;b;]");
  EXPECT_EQ(Eval("to_number(\"3\")"), "3");
  EXPECT_EQ(Eval("to_number(\"x\")"), "ERR to_number: cannot convert string 'x'");
  EXPECT_EQ(Eval("to_number(NULL)"), "ERR to_number: cannot convert string '(null)'");
  EXPECT_EQ(Eval("to_str(3)"), "3");
  EXPECT_EQ(Eval("exists(@m)"), "0");
  EXPECT_EQ(Eval("exists(@s)"), "1");
  EXPECT_EQ(Eval("exists(NULL)"), "1");
  EXPECT_EQ(Eval("exists(1 + \"x\")"), "ERR Could not convert value to a number");
  EXPECT_EQ(Eval("geodistance(\"1,2\",\"3,4\")"), "314371.93");
  EXPECT_EQ(Eval("geodistance(1,2,3,4)"), "314371.93");
  EXPECT_EQ(Eval("geodistance(\"a\",\"b\")"), "ERR Invalid geo string");
}

TEST(AggregateExprTest, BeyondRediSearch210) {
  // pow, max, min and a unary minus before a non-number: later RediSearch versions have
  // them and agent-memory-server sends them.
  EXPECT_EQ(Eval("pow(2, 10)"), "1024");
  EXPECT_EQ(Eval("pow(2, -@a/7.0)"), "0.820335356008");
  EXPECT_EQ(Eval("max(0, (1 - 5)/2)"), "0");
  EXPECT_EQ(Eval("max(1, @a, 0.5)"), "2");
  EXPECT_EQ(Eval("min(1, @a, 0.5)"), "0.5");
  EXPECT_EQ(Eval("max(@s, 1)"), "ERR Could not convert value to a number");
  EXPECT_EQ(Eval("-@a"), "-2");
  EXPECT_EQ(Eval("-(1+2)*2"), "-6");
  EXPECT_EQ(Eval("1 - -@a"), "3");
}

TEST(AggregateExprTest, TimeFunctions) {
  EXPECT_EQ(Eval("timefmt(0)"), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Eval("timefmt(-1)"), "1969-12-31T23:59:59Z");
  EXPECT_EQ(Eval("timefmt(86400, \"%Y\")"), "1970");
  EXPECT_EQ(Eval("timefmt(1.7e9, \"%Y-%m-%d %H:%M\")"), "2023-11-14 22:13");
  EXPECT_EQ(Eval("timefmt(\"x\")"), "(nil)");
  EXPECT_EQ(Eval("timefmt(1, \"\")"), "(nil)");
  EXPECT_EQ(Eval("parsetime(\"2020-01-02\", \"%Y-%m-%d\")"), "1577923200");
  EXPECT_EQ(Eval("parsetime(\"bad\", \"%Y\")"), "(nil)");
  EXPECT_EQ(Eval("day(100000)"), "86400");
  EXPECT_EQ(Eval("hour(100000)"), "97200");
  EXPECT_EQ(Eval("hour(3600.7)"), "3600");
  EXPECT_EQ(Eval("minute(100000)"), "99960");
  EXPECT_EQ(Eval("month(100000000)"), "99792000");
  EXPECT_EQ(Eval("dayofweek(100000000)"), "6");
  EXPECT_EQ(Eval("dayofmonth(100000000)"), "3");
  EXPECT_EQ(Eval("dayofyear(100000000)"), "61");
  EXPECT_EQ(Eval("year(100000000)"), "1973");
  EXPECT_EQ(Eval("monthofyear(100000000)"), "2");
  EXPECT_EQ(Eval("dayofmonth(-12)"), "(nil)");  // before 1970: null (timefmt still formats)
  EXPECT_EQ(Eval("hour(-5)"), "(nil)");
}

TEST(AggregateExprTest, ParseErrors) {
  EXPECT_EQ(Eval("foo(1)"), "ERR Unknown function name 'foo'");
  EXPECT_EQ(Eval("upper(1,2)"), "ERR Invalid arguments for function 'upper'");
  EXPECT_EQ(Eval("upper()"), "ERR Invalid arguments for function 'upper'");
  EXPECT_EQ(Eval("1+"), "ERR Syntax error at offset 1 near '+'");
  EXPECT_EQ(Eval("@@").substr(0, 16), "ERR Syntax error");
  EXPECT_EQ(Eval("bogus").substr(0, 18), "ERR Unknown symbol");
  EXPECT_EQ(Eval("(1").substr(0, 16), "ERR Syntax error");
  EXPECT_EQ(Eval("\"open").substr(0, 16), "ERR Syntax error");
  // Deep nesting is an error, not a crash.
  EXPECT_EQ(Eval(std::string(5000, '(') + "1" + std::string(5000, ')')).substr(0, 4), "ERR ");
  EXPECT_EQ(Eval(std::string(5000, '!') + "1").substr(0, 4), "ERR ");
}

TEST(AggregateExprTest, CollectsProperties) {
  auto e = ParseExpr("@a + upper(@b) * @a");
  ASSERT_TRUE(e.ok());
  std::vector<std::string> props;
  (*e)->CollectProperties(&props);
  EXPECT_EQ(props, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace hotkv::search

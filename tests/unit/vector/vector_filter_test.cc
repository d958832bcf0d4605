// FILTER expressions and how they read attribute JSON: syntax, semantics (Redis's),
// error messages, and seeded fuzzing of the expression parser and the attribute reader.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "json/json_node.h"
#include "vector/filter_expr.h"

namespace hotkv::vector {
namespace {

// ------------------------------------------------------------------- filters

bool Eval(const std::string& expr, const std::string& json) {
  auto f = FilterExpression::Compile(expr);
  EXPECT_TRUE(f.ok()) << expr << ": " << f.status().message();
  if (!f.ok()) {
    return false;
  }
  return (*f)->Matches(json);
}

const char* kMovie =
    R"({"year": 1984, "rating": 8.5, "genre": "action", "title": "The Terminator",
        "tags": ["scifi", "robots", 3], "seen": true, "sequel": false, "budget": null,
        "studio": {"name": "Orion"}, "mixed": [1, {"x": 2}], "num_str": "42"})";

// ------------------------------------------------------------- attributes

// Attributes are read as Redis 8.8's FILTER reads them (each case checked against its
// server): json/'s parser up to the field, the first of repeated keys winning.
TEST(FilterAttributesTest, ReadLikeRedis) {
  struct Case {
    const char* expr;
    const char* attributes;
    bool match;
  };
  const Case cases[] = {
      // Repeated keys: the first wins, even when it is unusable or null.
      {".a == 1", R"({"a":1,"a":2})", true},
      {".a == 2", R"({"a":1,"a":2})", false},
      {".b == 'x'", R"({"a":2,"b":"x","b":"y"})", true},
      {".b == 'y'", R"({"a":2,"b":"x","b":"y"})", false},
      {".a == 1", R"({"a":{"z":1},"a":1})", false},
      {".a == 1", R"({"a":[1,2],"a":1})", false},
      {".a == 1", R"({"a":null,"a":1})", false},
      {".a == 1", R"({"a":"1","a":2})", true},  // "1" == 1 as numbers
      // Nothing after the field is read; what comes before it must be well formed.
      {".a == 1", R"({"a":1, "b":})", true},
      {".a == 1", R"({"a":1} trailing)", true},
      {".a == 1", R"({"a":1,})", true},
      {".a == 1", R"({"b":, "a":1})", false},
      {".a == 1", R"({"b":01, "a":1})", false},  // (Redis's scanner skips this one)
      {".a == 1", R"(  {"a" : 1 } )", true},
      {".a == 1", R"({"x":{"a":2},"a":1})", true},  // top level only
      {".a == 1", R"({"\u0061":1})", false},        // keys compare as written
      {".a == 1", R"(["a",1])", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Eval(c.expr, c.attributes), c.match) << c.expr << " on " << c.attributes;
  }
}

TEST(FilterAttributesTest, ValuesOfEveryType) {
  const char* doc = R"({"i": 9007199254740993, "d": -12.5e1, "s": "a\"b\u00e9", "t": true,
                        "f": false, "z": null, "arr": [1, "x"]})";
  EXPECT_TRUE(Eval(".i > 9007199254740991 and .d == -125 and .z == null", doc));
  EXPECT_TRUE(Eval(".s == \"a\\\"b\xc3\xa9\"", doc));
  EXPECT_TRUE(Eval(".t == 1 and .f == 0 and .t and not .f", doc));
  EXPECT_TRUE(Eval("\"x\" in .arr and 1 in .arr and not (2 in .arr)", doc));
}

TEST(FilterTest, ComparisonsAndLogic) {
  EXPECT_TRUE(Eval(".year >= 1980 and .rating > 7", kMovie));
  EXPECT_FALSE(Eval(".year >= 1990 and .rating > 7", kMovie));
  EXPECT_TRUE(Eval(".year < 1980 or .genre == \"action\"", kMovie));
  EXPECT_TRUE(Eval(".year > 1980 && .year <= 1984", kMovie));
  EXPECT_TRUE(Eval(".year == 1983 || .year != 1983", kMovie));
  EXPECT_TRUE(Eval("not (.year == 1983)", kMovie));
  EXPECT_TRUE(Eval("!(.year == 1983)", kMovie));
  EXPECT_FALSE(Eval("!!(.year == 1983)", kMovie));
  EXPECT_TRUE(Eval(".genre == 'action'", kMovie));
  EXPECT_TRUE(Eval(".genre != 'drama'", kMovie));
}

TEST(FilterTest, ArithmeticAndPrecedence) {
  EXPECT_TRUE(Eval("(.year - 2000) ** 2 < 300 and .rating / 2 > 4", kMovie));
  EXPECT_TRUE(Eval("1 + 2 * 3 == 7", "{}"));
  EXPECT_TRUE(Eval("(1 + 2) * 3 == 9", "{}"));
  EXPECT_TRUE(Eval("2 ** 3 ** 2 == 512", "{}"));  // Right-associative.
  EXPECT_TRUE(Eval("10 % 4 == 2", "{}"));
  EXPECT_TRUE(Eval("7 / 2 == 3.5", "{}"));
  EXPECT_TRUE(Eval("-3 + 5 == 2", "{}"));
  EXPECT_TRUE(Eval("5 - -3 == 8", "{}"));
  EXPECT_TRUE(Eval("-.year == -1984", kMovie));
  EXPECT_TRUE(Eval("1 < 2 == 1", "{}"));  // Comparisons are left-associative, same level.
  EXPECT_TRUE(Eval("1e3 == 1000 and .5e1 == 5", R"({"5e1": 5})"));
  EXPECT_TRUE(Eval("1 or 0 and 0", "{}"));  // and binds tighter than or.
}

TEST(FilterTest, InOperator) {
  EXPECT_TRUE(Eval(".genre in [\"drama\", \"action\"]", kMovie));
  EXPECT_FALSE(Eval(".genre in [\"drama\", \"comedy\"]", kMovie));
  EXPECT_TRUE(Eval(".year in [1983, 1984, -1]", kMovie));
  EXPECT_TRUE(Eval("\"robots\" in .tags", kMovie));
  EXPECT_TRUE(Eval("3 in .tags", kMovie));
  EXPECT_TRUE(Eval("\"Term\" in .title", kMovie));  // Substring.
  EXPECT_FALSE(Eval("\"term\" in .title", kMovie));
  EXPECT_FALSE(Eval("5 in []", kMovie));
  EXPECT_TRUE(Eval("not (5 in [1, 2])", kMovie));
}

TEST(FilterTest, TypesAndConversions) {
  EXPECT_TRUE(Eval(".seen == 1 and .sequel == 0", kMovie));  // Booleans are 1/0.
  EXPECT_TRUE(Eval(".seen", kMovie));
  EXPECT_FALSE(Eval(".sequel", kMovie));
  EXPECT_TRUE(Eval(".seen == true and .sequel == false", kMovie));
  EXPECT_TRUE(Eval(".budget == null", kMovie));
  EXPECT_FALSE(Eval(".budget", kMovie));
  EXPECT_FALSE(Eval(".budget == 0", kMovie));  // null only equals null.
  EXPECT_TRUE(Eval(".num_str == 42", kMovie));  // Mixed: compared as numbers.
  EXPECT_TRUE(Eval(".num_str + 1 == 43", kMovie));
  EXPECT_TRUE(Eval("\"abc\" < \"abd\"", "{}"));  // Strings order lexicographically.
  EXPECT_TRUE(Eval("\"\" == \"\"", "{}"));
  EXPECT_FALSE(Eval("\"\"", "{}"));  // Empty string is false.
  EXPECT_TRUE(Eval("'it\\'s' == \"it's\"", "{}"));
  EXPECT_TRUE(Eval("1 / 0 > 1000", "{}"));  // inf, no error.
}

TEST(FilterTest, MissingOrUnusableFieldsNeverMatch) {
  EXPECT_FALSE(Eval(".missing == 1", kMovie));
  EXPECT_FALSE(Eval(".missing != 1", kMovie));
  EXPECT_FALSE(Eval("not (.missing == 1)", kMovie));
  // Like Redis, a missing field fails the whole element, even on an or branch.
  EXPECT_FALSE(Eval(".year == 1984 or .missing == 1", kMovie));
  EXPECT_FALSE(Eval(".studio == 1", kMovie));         // Nested object: unsupported.
  EXPECT_FALSE(Eval("1 in .mixed", kMovie));          // Array with an object.
  EXPECT_FALSE(Eval(".year > 0", ""));                // No attributes.
  EXPECT_FALSE(Eval(".year > 0", "not json"));
  EXPECT_FALSE(Eval(".year > 0", "[1, 2]"));
  EXPECT_TRUE(Eval("1 == 1", ""));                    // No fields needed.
}

TEST(FilterTest, SelectorCharacters) {
  EXPECT_TRUE(Eval(".first_name == \"x\" and .a-b == 2 and .n2 == 3",
                   R"({"first_name": "x", "a-b": 2, "n2": 3})"));
  auto f = FilterExpression::Compile(".a > 1 and .b < 2 and .a != 5");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->fields(), (std::vector<std::string>{"a", "b"}));
}

TEST(FilterTest, SyntaxErrorsAreReported) {
  for (const char* bad :
       {"", "   ", ".year >", "(.year > 1", ".year > 1)", ".year = 1", "year > 1", ".year >> 1",
        "[1, 2", "[1, .x]", "\"abc", "1 2", ".a and", "and .a", "()", "1 +* 2", ".", "..a",
        "1.2.3", "1e", "$", "[1,]", "not", ".a in", "* 2", "1 ** ", "#", "nul", "truex"}) {
    auto f = FilterExpression::Compile(bad);
    EXPECT_FALSE(f.ok()) << "accepted: " << bad;
    if (!f.ok()) {
      EXPECT_NE(f.status().message().find("offset"), std::string::npos) << bad;
    }
  }
  auto f = FilterExpression::Compile(".year = 1");
  EXPECT_NE(f.status().message().find("=="), std::string::npos);
  // Only top-level fields are addressable (as in Redis).
  f = FilterExpression::Compile(".studio.name == \"Orion\"");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("top-level"), std::string::npos);
}

TEST(FilterTest, NestingLimits) {
  std::string deep = std::string(1000, '(') + "1" + std::string(1000, ')');
  EXPECT_FALSE(FilterExpression::Compile(deep).ok());
  std::string nots(1000, '!');
  EXPECT_FALSE(FilterExpression::Compile(nots + "1").ok());
  std::string chain = "1";
  for (int i = 0; i < 2000; ++i) {
    chain += " + 1";
  }
  EXPECT_FALSE(FilterExpression::Compile(chain).ok());
  std::string fine = std::string(30, '(') + "1" + std::string(30, ')');
  EXPECT_TRUE(FilterExpression::Compile(fine).ok());
  EXPECT_FALSE(FilterExpression::Compile(std::string(20000, ' ')).ok());
}

// ---------------------------------------------------------------------- fuzzing

TEST(FilterFuzzTest, RandomBytesNeverCrash) {
  std::mt19937 rng(12345);
  const std::string alphabet = ".()[]\"'!=<>+-*/%&|,0123456789eE abcdefinortuls_\\\t\n\x01\xff";
  size_t compiled = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string expr;
    const size_t len = rng() % 40;
    for (size_t j = 0; j < len; ++j) {
      // Mostly expression-like characters, some raw bytes.
      expr.push_back(rng() % 8 == 0 ? static_cast<char>(rng() & 0xff)
                                    : alphabet[rng() % alphabet.size()]);
    }
    auto f = FilterExpression::Compile(expr);
    if (f.ok()) {
      ++compiled;
      (*f)->Matches(R"({"a": 1, "b": "x", "c": [1, "y"], "d": null, "e": true})");
      (*f)->Matches("garbage");
    } else {
      EXPECT_FALSE(f.status().message().empty());
    }
  }
  RecordProperty("compiled", static_cast<int>(compiled));
  EXPECT_GT(compiled, 100u);  // The generator does reach valid expressions.
}

TEST(FilterFuzzTest, MutatedValidExpressions) {
  const std::vector<std::string> seeds = {
      ".year >= 1980 and .rating > 7", "(.a - 2000) ** 2 < 100 or not .b",
      ".g in [\"x\", 'y', 3, -4.5e2]", "!(.a == null) && \"s\" in .t"};
  std::mt19937 rng(777);
  for (int i = 0; i < 20000; ++i) {
    std::string expr = seeds[rng() % seeds.size()];
    for (int m = 0; m < 3; ++m) {
      const size_t pos = expr.empty() ? 0 : rng() % expr.size();
      switch (rng() % 3) {
        case 0:
          if (!expr.empty()) {
            expr.erase(pos, 1);
          }
          break;
        case 1:
          expr.insert(pos, 1, static_cast<char>(rng() & 0xff));
          break;
        default:
          if (!expr.empty()) {
            expr[pos] = static_cast<char>(rng() & 0xff);
          }
      }
    }
    auto f = FilterExpression::Compile(expr);
    if (f.ok()) {
      (*f)->Matches(R"({"year": 1990, "rating": 9, "a": 1, "b": 0, "g": "x", "t": "xsx"})");
    }
  }
}

TEST(JsonFuzzTest, RandomAndMutatedDocumentsNeverCrash) {
  std::mt19937 rng(4242);
  const std::string kJsonChars = "{}[]\",:\\0123456789-.eEtrufalsn ";
  const std::string seed =
      R"({"a": [1, 2.5e-3, "x\u00e9\n", true, null, {"b": [false]}], "c": -0.0, "d": ""})";
  auto filter = FilterExpression::Compile(".a == 1 or .d == \"\"");
  ASSERT_TRUE(filter.ok());
  size_t valid = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string doc = seed;
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      const size_t pos = rng() % doc.size();
      switch (rng() % 3) {
        case 0:
          doc.erase(pos, 1 + rng() % 3);
          break;
        case 1:
          doc.insert(pos, 1, kJsonChars[rng() % kJsonChars.size()]);
          break;
        default:
          doc[pos] = static_cast<char>(rng() & 0xff);
      }
      if (doc.empty()) {
        doc = "{";
      }
    }
    Result<json::Node> v = json::Parse(doc);
    valid += v.ok();
    std::optional<json::Node> a = json::ParseTopLevelMember(doc, "a");
    std::optional<json::Node> d = json::ParseTopLevelMember(doc, "d");
    if (v.ok() && v->is_object()) {
      // On a well-formed object the reader finds exactly the members the parser does.
      EXPECT_EQ(a.has_value(), v->Find("a") != nullptr) << doc;
      EXPECT_EQ(d.has_value(), v->Find("d") != nullptr) << doc;
    }
    (void)(*filter)->Matches(doc);
  }
  RecordProperty("valid", static_cast<int>(valid));
  // Pure random bytes.
  for (int i = 0; i < 10000; ++i) {
    std::string doc(rng() % 64, '\0');
    for (char& c : doc) {
      c = static_cast<char>(rng() & 0xff);
    }
    (void)json::Parse(doc);
    (void)json::ParseTopLevelMember(doc, "a");
  }
}

}  // namespace
}  // namespace hotkv::vector

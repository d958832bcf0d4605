// Attribute JSON parsing and FILTER expressions: syntax, semantics (Redis's), error
// messages, and seeded fuzzing of both parsers.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "vector/filter_expr.h"
#include "vector/json.h"

namespace hotkv::vector {
namespace {

// ------------------------------------------------------------------------ JSON

TEST(JsonTest, ParsesAllTypes) {
  auto v = ParseJson(R"( {"n": -12.5e1, "s": "a\"b\u00e9\n", "t": true, "f": false,
                          "z": null, "a": [1, "x", [2]], "o": {"k": 1}} )");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->type, JsonValue::Type::kObject);
  ASSERT_EQ(v->object.size(), 7u);
  EXPECT_EQ(v->object[0].second.number, -125.0);
  EXPECT_EQ(v->object[1].second.string, "a\"b\xc3\xa9\n");
  EXPECT_TRUE(v->object[2].second.boolean);
  EXPECT_EQ(v->object[3].second.type, JsonValue::Type::kBool);
  EXPECT_EQ(v->object[4].second.type, JsonValue::Type::kNull);
  EXPECT_EQ(v->object[5].second.array.size(), 3u);
  EXPECT_EQ(v->object[6].second.type, JsonValue::Type::kObject);
}

TEST(JsonTest, SurrogatePairs) {
  auto v = ParseJson(R"("\ud83d\ude00")");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->string, "\xf0\x9f\x98\x80");
  EXPECT_FALSE(ParseJson(R"("\ud83d")").ok());
  EXPECT_FALSE(ParseJson(R"("\ude00")").ok());
}

TEST(JsonTest, RejectsMalformed) {
  for (const char* bad : {"", "{", "}", "{\"a\"}", "{\"a\":}", "{a:1}", "[1,]", "[1 2]", "01",
                          "1.", "-", "tru", "\"abc", "{\"a\":1}x", "\"\\x\"", "nul", "[",
                          "{\"a\":1,}", "1e", "\"\x01\""}) {
    EXPECT_FALSE(ParseJson(bad).ok()) << bad;
  }
  auto r = ParseJson("{\"a\": [1, 2");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offset"), std::string::npos);
}

TEST(JsonTest, DepthLimit) {
  std::string deep(10000, '[');
  EXPECT_FALSE(ParseJson(deep).ok());
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
}

TEST(JsonTest, ValidateObject) {
  EXPECT_TRUE(ValidateJsonObject(R"({"year": 1950})").ok());
  EXPECT_TRUE(ValidateJsonObject(" {} ").ok());
  EXPECT_FALSE(ValidateJsonObject("[1]").ok());
  EXPECT_FALSE(ValidateJsonObject("{\"a\":").ok());
  EXPECT_FALSE(ValidateJsonObject("{} {}").ok());
}

TEST(JsonTest, ExtractTopLevelField) {
  const std::string doc = R"({"a": {"year": 1}, "year": 1984, "s": "x", "year": 2000})";
  auto y = ExtractTopLevelField(doc, "year");
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->number, 1984);  // Top level only, first wins.
  EXPECT_FALSE(ExtractTopLevelField(doc, "missing").has_value());
  EXPECT_FALSE(ExtractTopLevelField("[1]", "a").has_value());
  EXPECT_FALSE(ExtractTopLevelField("", "a").has_value());
  EXPECT_FALSE(ExtractTopLevelField(R"({"a": [1, )", "a").has_value());
  EXPECT_TRUE(ExtractTopLevelField(R"({"k\"ey": 5})", "k\"ey").has_value());
}

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
    auto v = ParseJson(doc);
    valid += v.ok();
    ExtractTopLevelField(doc, "a");
    ExtractTopLevelField(doc, "d");
    ValidateJsonObject(doc);
  }
  RecordProperty("valid", static_cast<int>(valid));
  // Pure random bytes.
  for (int i = 0; i < 10000; ++i) {
    std::string doc(rng() % 64, '\0');
    for (char& c : doc) {
      c = static_cast<char>(rng() & 0xff);
    }
    ParseJson(doc);
    ExtractTopLevelField(doc, "a");
  }
}

}  // namespace
}  // namespace hotkv::vector

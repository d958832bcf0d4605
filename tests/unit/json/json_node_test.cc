// json::Node, the parser and the serializer: round trips, Redis's number printing,
// error texts, the depth limit.
#include "json/json_node.h"

#include <gtest/gtest.h>

#include "json/json_path.h"

namespace hotkv::json {
namespace {

std::string RoundTrip(std::string_view text) {
  Result<Node> n = Parse(text);
  EXPECT_TRUE(n.ok()) << text << ": " << n.status().message();
  return n.ok() ? ToJson(*n) : "";
}

std::string ParseError(std::string_view text) {
  Result<Node> n = Parse(text);
  EXPECT_FALSE(n.ok()) << text;
  return n.ok() ? "" : n.status().message();
}

TEST(JsonNode, RoundTripsCompactText) {
  EXPECT_EQ(RoundTrip(R"( {"a" : [1, 2.5, "x", null, true, false], "b": {}} )"),
            R"({"a":[1,2.5,"x",null,true,false],"b":{}})");
  EXPECT_EQ(RoundTrip(R"("a\"b\\c\n\u0001\u00e9/")"), "\"a\\\"b\\\\c\\n\\u0001\xC3\xA9/\"");
  EXPECT_EQ(RoundTrip(R"("\ud83d\ude00")"), "\"\xF0\x9F\x98\x80\"");
  EXPECT_EQ(RoundTrip("[]"), "[]");
  EXPECT_EQ(RoundTrip(R"({"k":1,"k":2})"), R"({"k":2})");
}

TEST(JsonNode, PrintsNumbersAsRedis) {
  EXPECT_EQ(RoundTrip("1.0"), "1.0");
  EXPECT_EQ(RoundTrip("-0"), "0");
  EXPECT_EQ(RoundTrip("-0.0"), "-0.0");
  EXPECT_EQ(RoundTrip("0.1"), "0.1");
  EXPECT_EQ(RoundTrip("3.5e10"), "35000000000.0");
  EXPECT_EQ(RoundTrip("1e15"), "1000000000000000.0");
  EXPECT_EQ(RoundTrip("1e16"), "1e16");
  EXPECT_EQ(RoundTrip("1.25e17"), "1.25e17");
  EXPECT_EQ(RoundTrip("1e300"), "1e300");
  EXPECT_EQ(RoundTrip("1.5E-7"), "1.5e-7");
  EXPECT_EQ(RoundTrip("0.00001"), "0.00001");
  EXPECT_EQ(RoundTrip("0.000001"), "1e-6");
  EXPECT_EQ(RoundTrip("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(RoundTrip("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(RoundTrip("3.14159"), "3.14159");
}

TEST(JsonNode, ReportsErrorsAsRedis) {
  EXPECT_EQ(ParseError("x"), "expected value at line 1 column 1");
  EXPECT_EQ(ParseError(""), "EOF while parsing a value at line 1 column 0");
  EXPECT_EQ(ParseError("[1,2"), "EOF while parsing a list at line 1 column 4");
  EXPECT_EQ(ParseError(R"({"a":1}x)"), "trailing characters at line 1 column 8");
  EXPECT_EQ(ParseError("{1:2}"), "key must be a string at line 1 column 2");
  EXPECT_EQ(ParseError("[1 2]"), "expected `,` or `]` at line 1 column 4");
  EXPECT_EQ(ParseError("[1,]"), "trailing comma at line 1 column 4");
  EXPECT_EQ(ParseError("01"), "invalid number at line 1 column 2");
  EXPECT_EQ(ParseError("1e400"), "number out of range at line 1 column 1");
  EXPECT_EQ(ParseError("tru"), "EOF while parsing a value at line 1 column 3");
  EXPECT_EQ(ParseError("[\n  nul]"), "expected ident at line 2 column 6");
}

TEST(JsonNode, LimitsDepth) {
  std::string ok(127, '[');
  ok.append(127, ']');
  EXPECT_TRUE(Parse(ok).ok());
  std::string deep(128, '[');
  deep.append(128, ']');
  EXPECT_EQ(ParseError(deep), "ERR recursion limit exceeded");
}

TEST(JsonNode, FormatsWithIndentNewlineSpace) {
  Result<Node> n = Parse(R"({"a":[1,{}],"b":"x"})");
  std::string out;
  Serialize(*n, Format{"  ", "\n", " "}, &out);
  EXPECT_EQ(out, "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"x\"\n}");
}

TEST(JsonNode, InlineAndHeapStrings) {
  Node a = Node::String("fourteen bytes");
  Node b = Node::String("fifteen bytes!!");
  EXPECT_EQ(a.str(), "fourteen bytes");
  EXPECT_EQ(b.str(), "fifteen bytes!!");
  EXPECT_EQ(a.MemoryUsage(), 0u);
  EXPECT_GT(b.MemoryUsage(), 0u);
  Node c = b.Clone();
  EXPECT_EQ(c.str(), b.str());
}

TEST(JsonNode, LargeObjectsKeepFirstPositionOfRepeatedKeys) {
  std::string text = "{";
  for (int i = 0; i < 50000; i++) {
    text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  }
  text += R"("k3":-3,"k40000":-4})";
  Result<Node> n = Parse(text);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(n->members().size(), 50000u);
  EXPECT_EQ(n->members()[3].value.int_value(), -3);
  EXPECT_EQ(n->members()[40000].value.int_value(), -4);
  EXPECT_EQ(n->Find("k49999")->int_value(), 49999);
}

// The vector-set FILTER's reader (Redis 8.8's rules): the first of repeated keys, keys as
// written, nothing read past the member. Parse, for JSON.SET, keeps the last value.
TEST(JsonNode, ParseTopLevelMemberTakesTheFirstOfRepeatedKeys) {
  const std::string doc = R"({"a": {"year": 1}, "year": 1984, "s": "x", "year": 2000.5})";
  std::optional<Node> year = ParseTopLevelMember(doc, "year");
  ASSERT_TRUE(year.has_value());
  EXPECT_EQ(year->kind(), Kind::kInt);
  EXPECT_EQ(year->int_value(), 1984);
  EXPECT_EQ(Parse(doc)->Find("year")->double_value(), 2000.5);
  std::optional<Node> a = ParseTopLevelMember(doc, "a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(ToJson(*a), R"({"year":1})");
  EXPECT_EQ(ParseTopLevelMember(doc, "s")->str(), "x");
  EXPECT_FALSE(ParseTopLevelMember(doc, "missing").has_value());
  EXPECT_FALSE(ParseTopLevelMember(doc, "").has_value());
}

TEST(JsonNode, ParseTopLevelMemberReadsUpToTheMember) {
  EXPECT_EQ(ParseTopLevelMember(R"({"a":[1, "x"], "b":})", "a").value().array().size(), 2u);
  EXPECT_TRUE(ParseTopLevelMember(R"( {"a" : 1 } junk)", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"({"b":, "a":1})", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"({"a": [1, )", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"({"a" 1})", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"({"b":1 "a":1})", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"(["a", 1])", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember("", "a").has_value());
  EXPECT_FALSE(ParseTopLevelMember("{}", "a").has_value());
  EXPECT_TRUE(ParseTopLevelMember(R"({"k\"ey": 5})", "k\\\"ey").has_value());  // as written
  EXPECT_FALSE(ParseTopLevelMember(R"({"k\"ey": 5})", "k\"ey").has_value());
  EXPECT_FALSE(ParseTopLevelMember(R"({"\u0061": 5})", "a").has_value());
  // The depth limit is Parse's.
  std::string deep = R"({"a":)" + std::string(200, '[') + std::string(200, ']') + "}";
  EXPECT_FALSE(ParseTopLevelMember(deep, "a").has_value());
}

TEST(JsonNode, ValidatesUtf8) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("d\xC3\xA9j\xC3\xA0 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC3"));              // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

TEST(JsonNode, EqualComparesNumbersByValue) {
  EXPECT_TRUE(Equal(*Parse("[1,{\"a\":2}]"), *Parse("[1.0,{\"a\":2}]")));
  EXPECT_FALSE(Equal(*Parse("[1]"), *Parse("[\"1\"]")));
  EXPECT_TRUE(Equal(*Parse(R"({"a":1,"b":2})"), *Parse(R"({"b":2,"a":1})")));
}

}  // namespace
}  // namespace hotkv::json

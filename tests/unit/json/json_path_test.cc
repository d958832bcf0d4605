// JSONPath: every selector form, filters, legacy paths, removal of matches.
#include "json/json_path.h"

#include <gtest/gtest.h>

#include "json/json_node.h"

namespace hotkv::json {
namespace {

const char* kStore = R"({"store":{"book":[
  {"category":"reference","author":"Nigel Rees","title":"Sayings","price":8.95},
  {"category":"fiction","author":"Evelyn Waugh","title":"Sword","price":12.99},
  {"category":"fiction","author":"Herman Melville","title":"Moby Dick","isbn":"0-553","price":8.99},
  {"category":"fiction","author":"Tolkien","title":"The Lord","isbn":"0-395","price":22.99}],
  "bicycle":{"color":"red","price":19.95}}})";

// The matches of `path` in `doc`, as one JSON array.
std::string Eval(std::string_view doc, std::string_view path) {
  Result<Node> n = Parse(doc);
  EXPECT_TRUE(n.ok());
  Result<Path> p = Path::Compile(path);
  EXPECT_TRUE(p.ok()) << path << ": " << (p.ok() ? "" : p.status().message());
  if (!p.ok()) {
    return "error";
  }
  std::string out = "[";
  bool first = true;
  for (const Match& m : Select(*p, *n)) {
    if (!first) {
      out.push_back(',');
    }
    first = false;
    out += ToJson(*m.node);
  }
  return out + "]";
}

TEST(JsonPath, MembersIndexesUnionsSlices) {
  const char* doc = R"({"a":{"b":[10,20,30,40,50]},"c d":1,"e":"x"})";
  EXPECT_EQ(Eval(doc, "$"), R"([{"a":{"b":[10,20,30,40,50]},"c d":1,"e":"x"}])");
  EXPECT_EQ(Eval(doc, "$.a.b[0]"), "[10]");
  EXPECT_EQ(Eval(doc, "$.a.b[-1]"), "[50]");
  EXPECT_EQ(Eval(doc, "$.a.b[9]"), "[]");
  EXPECT_EQ(Eval(doc, "$['a'][\"b\"][1]"), "[20]");
  EXPECT_EQ(Eval(doc, "$['c d']"), "[1]");
  EXPECT_EQ(Eval(doc, "$.a.b[0,2,-1]"), "[10,30,50]");
  EXPECT_EQ(Eval(doc, "$['e','c d']"), R"(["x",1])");
  EXPECT_EQ(Eval(doc, "$.a.b[1:3]"), "[20,30]");
  EXPECT_EQ(Eval(doc, "$.a.b[:2]"), "[10,20]");
  EXPECT_EQ(Eval(doc, "$.a.b[-2:]"), "[40,50]");
  EXPECT_EQ(Eval(doc, "$.a.b[::2]"), "[10,30,50]");
  EXPECT_EQ(Eval(doc, "$.a.b[*]"), "[10,20,30,40,50]");
  EXPECT_EQ(Eval(doc, "$.*"), R"([{"b":[10,20,30,40,50]},1,"x"])");
  EXPECT_EQ(Eval(doc, "$.nope"), "[]");
}

TEST(JsonPath, RecursiveDescent) {
  EXPECT_EQ(Eval(R"({"a":1,"b":{"a":2,"c":[{"a":3}]}})", "$..a"), "[1,2,3]");
  EXPECT_EQ(Eval(kStore, "$..author"),
            R"(["Nigel Rees","Evelyn Waugh","Herman Melville","Tolkien"])");
  EXPECT_EQ(Eval(kStore, "$.store..price"), "[8.95,12.99,8.99,22.99,19.95]");
  EXPECT_EQ(Eval(kStore, "$..book[2].title"), R"(["Moby Dick"])");
  EXPECT_EQ(Eval(kStore, "$..book[-1:].title"), R"(["The Lord"])");
  EXPECT_EQ(Eval(R"({"a":[1,[2]]})", "$..[0]"), "[1,2]");
}

TEST(JsonPath, Filters) {
  EXPECT_EQ(Eval(kStore, "$..book[?(@.isbn)].title"), R"(["Moby Dick","The Lord"])");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.price < 10)].title"), R"(["Sayings","Moby Dick"])");
  EXPECT_EQ(Eval(kStore, R"($..book[?(@.price < 10 && @.category == "fiction")].title)"),
            R"(["Moby Dick"])");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.price > 20 || @.category == 'reference')].title"),
            R"(["Sayings","The Lord"])");
  EXPECT_EQ(Eval(kStore, "$..book[?(!(@.price < 10))].title"), R"(["Sword","The Lord"])");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.author =~ \"^[HT]\")].title"), R"(["Moby Dick","The Lord"])");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.price >= 12.99 && @.price <= 22.99)].price"),
            "[12.99,22.99]");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.price != 8.95)].price"), "[12.99,8.99,22.99]");
  EXPECT_EQ(Eval(kStore, "$..book[?(@.price > $.store.bicycle.price)].title"), R"(["The Lord"])");
  EXPECT_EQ(Eval(R"([1,2,3,"a",true])", "$[?(@ > 1)]"), "[2,3]");
  EXPECT_EQ(Eval(R"([1,2,3,"a",true])", "$[?(@ == true)]"), "[true]");
}

TEST(JsonPath, LegacyPaths) {
  const char* doc = R"({"a":{"b":[1,2]},"c":3})";
  EXPECT_EQ(Eval(doc, "."), R"([{"a":{"b":[1,2]},"c":3}])");
  EXPECT_EQ(Eval(doc, ".a.b"), "[[1,2]]");
  EXPECT_EQ(Eval(doc, "a.b[1]"), "[2]");
  EXPECT_EQ(Eval(doc, "c"), "[3]");
  EXPECT_EQ(Eval(doc, "[\"c\"]"), "[3]");
  Result<Path> p = Path::Compile("a.b");
  EXPECT_TRUE(p->legacy());
  EXPECT_EQ(p->ErrorForm(), "$.a.b");
  EXPECT_FALSE(Path::Compile("$.a")->legacy());
}

TEST(JsonPath, RejectsBadPaths) {
  for (std::string_view bad : {"$.", "$[", "$.a[1", "$[?(@.a <)]", "$a", "$.a]", "$['a"}) {
    Result<Path> p = Path::Compile(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_EQ(p.status().message().rfind("Error occurred on position", 0), 0u)
          << p.status().message();
    }
  }
}

TEST(JsonPath, StaticPaths) {
  EXPECT_TRUE(Path::Compile("$.a[0].b")->is_static());
  EXPECT_FALSE(Path::Compile("$..a")->is_static());
  EXPECT_FALSE(Path::Compile("$.a[*]")->is_static());
}

TEST(JsonPath, RemovesNestedMatchesSafely) {
  Result<Node> n = Parse(R"({"a":{"a":{"a":1}},"b":[{"a":2},{"a":3},{"c":4}]})");
  Result<Path> p = Path::Compile("$..a");
  EXPECT_EQ(RemoveMatches(Select(*p, *n)), 5u);
  EXPECT_EQ(ToJson(*n), R"({"b":[{},{},{"c":4}]})");
  Result<Node> arr = Parse("[0,1,2,3,4,5]");
  EXPECT_EQ(RemoveMatches(Select(*Path::Compile("$[0,2,2,-1]"), *arr)), 3u);
  EXPECT_EQ(ToJson(*arr), "[1,3,4]");
}

}  // namespace
}  // namespace hotkv::json

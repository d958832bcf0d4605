// The packed form of small documents (json_packed.cc): what packs, that the packed bytes
// print and unpack to the same document, and the scope that restores or re-packs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "json/json_node.h"
#include "json/json_path.h"

namespace hotkv::json {
namespace {

Node MustParse(std::string_view text) {
  Result<Node> n = Parse(text);
  EXPECT_TRUE(n.ok()) << text;
  return n.ok() ? std::move(n).value() : Node();
}

// Packs `text`'s document and checks the packed text and the unpacked tree against it.
void CheckRoundTrip(std::string_view text) {
  Node tree = MustParse(text);
  std::string want = ToJson(tree);
  Node n = MustParse(text);
  ASSERT_TRUE(n.Pack()) << text;
  EXPECT_TRUE(n.packed());
  EXPECT_EQ(ToJson(n), want);  // read from the packed bytes
  std::string indented;
  Format f{"  ", "\n", " "};
  Node n2 = n.Clone();
  Serialize(n2, f, &indented);
  std::string want_indented;
  Serialize(tree, f, &want_indented);
  EXPECT_EQ(indented, want_indented);
  EXPECT_EQ(n.size(), tree.is_array() ? tree.array().size() : tree.members().size());
  Node copy = n.Clone();
  EXPECT_TRUE(copy.packed());
  EXPECT_EQ(ToJson(copy), want);
  n.EnsureTree();
  EXPECT_FALSE(n.packed());
  EXPECT_TRUE(Equal(n, tree)) << text;
  EXPECT_EQ(ToJson(n), want);
}

TEST(JsonPacked, RoundTripsEveryKind) {
  CheckRoundTrip(R"({"a":[1,2.5,"x",null,true,false],"b":{},"c":[]})");
  CheckRoundTrip(R"([0,239,240,-1,9223372036854775807,-9223372036854775808])");
  CheckRoundTrip(
      R"([0.0,-0.0,1.0,0.1,-0.1234,19.99,1e300,1.5e-7,123456789.123,3.141592653589793])");
  CheckRoundTrip(R"({"s":"a string longer than fourteen bytes","e":"","q":"\"\\\n\u0001"})");
  CheckRoundTrip(R"([{"id":1,"sku":"a"},{"id":2,"sku":"b"},{"sku":"c","id":3,"new":{"id":4}}])");
  CheckRoundTrip(R"([[[[[[[[[[1]]]]]]]]]])");
}

TEST(JsonPacked, RoundTripsRandomDoubles) {
  std::mt19937_64 rng(17);
  std::string text = "[";
  for (int i = 0; i < 500; i++) {
    double d;
    switch (i % 4) {
      case 0:
        d = std::uniform_real_distribution<double>(-1, 1)(rng);
        break;
      case 1:
        d = std::round(std::uniform_real_distribution<double>(-1e6, 1e6)(rng)) / 100;
        break;
      case 2:
        d = std::round(std::uniform_real_distribution<double>(-1, 1)(rng) * 1e4) / 1e4;
        break;
      default:
        d = std::uniform_real_distribution<double>(-1e12, 1e12)(rng);
        break;
    }
    std::string s;
    AppendDouble(d, &s);
    text += (i ? "," : "") + s;
  }
  text += "]";
  CheckRoundTrip(text);
}

TEST(JsonPacked, ManyDistinctKeysPassTheDictionary) {
  std::string text = "[";
  for (int i = 0; i < 3; i++) {
    text += i ? ",{" : "{";
    for (int k = 0; k < 100; k++) {
      text +=
          (k ? ",\"" : "\"") + std::string("key") + std::to_string(k) + "\":" + std::to_string(k);
    }
    text += "}";
  }
  text += "]";
  CheckRoundTrip(text);
}

TEST(JsonPacked, ScalarsAndLargeDocumentsStayTrees) {
  Node s = Node::String("x");
  EXPECT_FALSE(s.Pack());
  std::string big = "[\"" + std::string(kPackMax, 'x') + "\"]";
  Node n = MustParse(big);
  EXPECT_FALSE(n.Pack());
  EXPECT_FALSE(n.packed());
  n.array().clear();
  EXPECT_FALSE(n.Pack());  // a root found too large is not tried again
}

TEST(JsonPacked, PackedBytesAreSmallerThanTheText) {
  std::string text =
      R"({"id":"user:1","age":34,"tags":["a","b","c"],"scores":[1,2,3,4,5,6,7,8],)"
      R"("orders":[{"id":1,"price":19.99},{"id":2,"price":5.5},{"id":3,"price":0.25}]})";
  Node n = MustParse(text);
  ASSERT_TRUE(n.Pack());
  EXPECT_LT(n.packed_bytes().size(), text.size() * 3 / 4);
  EXPECT_LT(n.MemoryUsage(), text.size());
}

TEST(JsonPacked, ScopeRestoresAfterReadsAndRepacksAfterWrites) {
  Node n = MustParse(R"({"a":[1,2],"b":"x"})");
  ASSERT_TRUE(n.Pack());
  std::string before(n.packed_bytes());

  ASSERT_TRUE(BeginPackScope());
  EXPECT_FALSE(BeginPackScope());  // nested: not the owner
  EXPECT_EQ(n.Find("b")->str(), "x");
  EXPECT_FALSE(n.packed());
  FinishPacked(&n, false);
  EndPackScope();
  EXPECT_TRUE(n.packed());
  EXPECT_EQ(n.packed_bytes(), before);

  ASSERT_TRUE(BeginPackScope());
  n.Find("a")->array().push_back(Node::Int(3));
  FinishPacked(&n, true);
  EndPackScope();
  EXPECT_TRUE(n.packed());
  EXPECT_EQ(ToJson(n), R"({"a":[1,2,3],"b":"x"})");

  // A document replaced (or freed) inside the scope: its old bytes are freed at the end.
  ASSERT_TRUE(BeginPackScope());
  n.Find("a");
  n = MustParse("[1]");
  FinishPacked(&n, true);
  EndPackScope();
  EXPECT_TRUE(n.packed());
  EXPECT_EQ(ToJson(n), "[1]");

  // Outside a scope an unpacked document stays a tree.
  n.array().push_back(Node::Int(2));
  EXPECT_FALSE(n.packed());
  EXPECT_EQ(ToJson(n), "[1,2]");
}

// AppendPackedAt reads a static path's value from the packed bytes, exactly as Select
// and the serializer would, and declines what it does not cover.
TEST(JsonPacked, ReadsStaticPathsFromThePackedBytes) {
  std::string text =
      R"({"a":{"x":1,"y":[10,{"x":"deep"},-2.5]},"k":[{"id":1,"n":"p"},{"id":2,"n":"q"}],)"
      R"("s":"str","e":{},"z":null})";
  Node n = MustParse(text);
  ASSERT_TRUE(n.Pack());
  Node tree = MustParse(text);
  for (const char* path : {"$.a", "$.a.x", "$.a.y", "$.a.y[1].x", "$.a.y[-1]", "$.k[1].n",
                           "$.k[-2].id", "$['s']", "$.e", "$.z", ".a.y[2]", "k[0]", "$"}) {
    Result<Path> p = Path::Compile(path);
    ASSERT_TRUE(p.ok()) << path;
    std::string got;
    ASSERT_TRUE(AppendPackedAt(n, *p, &got)) << path;
    std::vector<Match> ms = Select(*p, tree);
    ASSERT_EQ(ms.size(), 1u) << path;
    EXPECT_EQ(got, ToJson(*ms[0].node)) << path;
  }
  for (const char* path : {"$.nope", "$.a.y[3]", "$.a.y[-4]", "$.a.x.y", "$.s[0]", "$.k.id", "$..x",
                           "$.k[*]", "$.a['x','y']"}) {
    Result<Path> p = Path::Compile(path);
    ASSERT_TRUE(p.ok()) << path;
    std::string got;
    EXPECT_FALSE(AppendPackedAt(n, *p, &got)) << path;
    EXPECT_EQ(got, "") << path;
  }
  EXPECT_TRUE(n.packed());  // nothing unpacked it
  std::string got;
  EXPECT_FALSE(AppendPackedAt(tree, *Path::Compile("$.a"), &got));  // a tree: not for it
}

}  // namespace
}  // namespace hotkv::json

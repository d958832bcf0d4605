// ParseQuery / ExplainQuery. Expected FT.EXPLAIN texts were taken from Redis 8.8 +
// RediSearch 2.10 (FT.EXPLAIN on an index "title TEXT body TEXT tag TAG price NUMERIC
// loc GEO v VECTOR"), with English stemming imitated by TestStem below.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "search/query_ast.h"

namespace hotkv::search {
namespace {

const QueryParams kParams = {{"vec", "aaaaaaaa"}, {"lo", "1"},  {"hi", "2"}, {"t", "foo"},
                             {"w", "bar"},        {"K", "3"},   {"EF", "7"}, {"k", "abc"}};

bool TestStopword(std::string_view w) { return w == "a" || w == "the" || w == "is" || w == "A"; }

// "running" -> "run" (as Snowball), every other word stems to itself.
std::string TestStem(const QueryNode&, std::string_view folded) {
  if (folded == "running") return "run";
  return std::string(folded);
}

ParseOptions Opts(int dialect) {
  ParseOptions o;
  o.dialect = dialect;
  o.is_stopword = TestStopword;
  return o;
}

Result<Query> Parse(std::string_view q, int dialect = 2, const QueryParams& params = kParams) {
  return ParseQuery(q, params, Opts(dialect));
}

std::string Explain(std::string_view q, int dialect = 2) {
  auto r = Parse(q, dialect);
  if (!r.ok()) return "ERROR: " + r.status().message();
  ExplainOptions eo;
  eo.stem = TestStem;
  return ExplainQuery(*r, eo);
}

std::string Error(std::string_view q, int dialect = 2, const QueryParams& params = kParams) {
  auto r = Parse(q, dialect, params);
  return r.ok() ? std::string("(no error)") : r.status().message();
}

// ---------------------------------------------------------------------------------
// AST shapes

TEST(QueryParser, TermsIntersectionUnionPrecedence) {
  auto q = Parse("hello world|foo");
  ASSERT_TRUE(q.ok());
  const QueryNode& root = *q->root;
  ASSERT_EQ(root.kind, NodeKind::kUnion);
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0]->kind, NodeKind::kIntersect);
  EXPECT_EQ(root.children[1]->kind, NodeKind::kTerm);
  EXPECT_EQ(root.children[1]->term, "foo");
  EXPECT_FALSE(q->knn.has_value());
}

TEST(QueryParser, TermKeepsCaseForTheAnalyzer) {
  auto q = Parse("Hello");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->kind, NodeKind::kTerm);
  EXPECT_EQ(q->root->term, "Hello");
  EXPECT_FALSE(q->root->verbatim);
}

TEST(QueryParser, AffixesWildcardFuzzy) {
  struct Case {
    const char* q;
    NodeKind kind;
    const char* term;
    int fuzzy;
  } cases[] = {
      {"lap*", NodeKind::kPrefix, "lap", 1},       {"*top", NodeKind::kSuffix, "top", 1},
      {"*pto*", NodeKind::kInfix, "pto", 1},       {"w'h?l*o'", NodeKind::kWildcard, "h?l*o", 1},
      {"%word%", NodeKind::kFuzzy, "word", 1},     {"%%word%%", NodeKind::kFuzzy, "word", 2},
      {"%%%word%%%", NodeKind::kFuzzy, "word", 3},
  };
  for (const auto& c : cases) {
    auto q = Parse(c.q);
    ASSERT_TRUE(q.ok()) << c.q << ": " << q.status().message();
    EXPECT_EQ(q->root->kind, c.kind) << c.q;
    EXPECT_EQ(q->root->term, c.term) << c.q;
    if (c.kind == NodeKind::kFuzzy) {
      EXPECT_EQ(q->root->fuzzy_distance, c.fuzzy) << c.q;
    }
  }
}

TEST(QueryParser, PhraseNegationOptional) {
  auto q = Parse("\"hello a world\" -foo ~bar");
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->root->kind, NodeKind::kIntersect);
  ASSERT_EQ(q->root->children.size(), 3u);
  const QueryNode& ph = *q->root->children[0];
  EXPECT_EQ(ph.kind, NodeKind::kPhrase);
  EXPECT_EQ(ph.phrase_terms, (std::vector<std::string>{"hello", "a", "world"}));  // stop words kept
  EXPECT_EQ(q->root->children[1]->kind, NodeKind::kNot);
  EXPECT_EQ(q->root->children[2]->kind, NodeKind::kOptional);
}

TEST(QueryParser, FieldModifiers) {
  auto q = Parse("@title|body:(hello world)");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->kind, NodeKind::kIntersect);
  EXPECT_EQ(q->root->fields, (std::vector<std::string>{"title", "body"}));
  for (const auto& c : q->root->children) {
    EXPECT_EQ(c->fields, (std::vector<std::string>{"title", "body"}));
  }
  // Dialect 2: the modifier covers only the next atom.
  q = Parse("@title:hello world");
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->root->kind, NodeKind::kIntersect);
  EXPECT_EQ(q->root->children[0]->fields, std::vector<std::string>{"title"});
  EXPECT_TRUE(q->root->children[1]->fields.empty());
  // Dialect 1: it covers the rest.
  q = Parse("@title:hello world", 1);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->fields, std::vector<std::string>{"title"});
  EXPECT_EQ(q->root->children[1]->fields, std::vector<std::string>{"title"});
}

TEST(QueryParser, Tags) {
  auto q = Parse(R"(@tag:{a|b\ c|pre*|*suf|*in*|$t|user\@example\.com|"x y"})");
  ASSERT_TRUE(q.ok()) << q.status().message();
  const QueryNode& n = *q->root;
  ASSERT_EQ(n.kind, NodeKind::kTag);
  EXPECT_EQ(n.fields, std::vector<std::string>{"tag"});
  ASSERT_EQ(n.tags.size(), 8u);
  EXPECT_EQ(n.tags[0].value, "a");
  EXPECT_EQ(n.tags[1].value, "b c");
  EXPECT_EQ(n.tags[1].raw, "b\\ c");
  EXPECT_EQ(n.tags[2].value, "pre");
  EXPECT_EQ(n.tags[2].match, TagValue::Match::kPrefix);
  EXPECT_EQ(n.tags[3].match, TagValue::Match::kSuffix);
  EXPECT_EQ(n.tags[4].match, TagValue::Match::kInfix);
  EXPECT_EQ(n.tags[4].value, "in");
  EXPECT_EQ(n.tags[5].value, "foo");
  EXPECT_EQ(n.tags[6].value, "user@example.com");
  EXPECT_EQ(n.tags[7].value, "x y");
  // Unescaped words are RediSearch's phrase of tokens, matched joined by one space.
  q = Parse("@tag:{hello world|a.b}");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->tags[0].value, "hello world");
  EXPECT_TRUE(q->root->tags[0].phrase);
  EXPECT_EQ(q->root->tags[1].value, "a b");
  // Tag values are not stop words.
  q = Parse("@tag:{a}");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->tags[0].value, "a");
}

TEST(QueryParser, NumericRanges) {
  struct Case {
    const char* q;
    double lo, hi;
    bool lx, hx;
  } cases[] = {
      {"@price:[1 2]", 1, 2, false, false},
      {"@price:[(1 +inf]", 1, INFINITY, true, false},
      {"@price:[-inf (5]", -INFINITY, 5, false, true},
      {"@price:[(1 (2]", 1, 2, true, true},
      {"@price:[$lo $hi]", 1, 2, false, false},
      {"@price:[1.5 2e3]", 1.5, 2000, false, false},
      {"@price:[-1 inf]", -1, INFINITY, false, false},
      {"@price:[1e400 -1e400]", INFINITY, -INFINITY, false, false},
  };
  for (const auto& c : cases) {
    auto q = Parse(c.q);
    ASSERT_TRUE(q.ok()) << c.q << ": " << q.status().message();
    const QueryNode& n = *q->root;
    ASSERT_EQ(n.kind, NodeKind::kNumeric) << c.q;
    EXPECT_EQ(n.fields, std::vector<std::string>{"price"});
    EXPECT_EQ(n.num_min, c.lo) << c.q;
    EXPECT_EQ(n.num_max, c.hi) << c.q;
    EXPECT_EQ(n.min_exclusive, c.lx) << c.q;
    EXPECT_EQ(n.max_exclusive, c.hx) << c.q;
  }
  // Exclusive through a parameter.
  auto q = Parse("@price:[$a $b]", 2, {{"a", "(3"}, {"b", "+inf"}});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->root->min_exclusive);
  EXPECT_EQ(q->root->num_min, 3);
  EXPECT_EQ(q->root->num_max, INFINITY);
}

TEST(QueryParser, Geo) {
  struct Case {
    const char* q;
    double radius_m;
  } cases[] = {{"@loc:[-122.4 37.7 10 km]", 10000}, {"@loc:[1 2 3 m]", 3},
               {"@loc:[1 2 1 mi]", 1609.34},        {"@loc:[1 2 10 ft]", 3.048},
               {"@loc:[1 2 5 KM]", 5000}};
  for (const auto& c : cases) {
    auto q = Parse(c.q);
    ASSERT_TRUE(q.ok()) << c.q << ": " << q.status().message();
    EXPECT_EQ(q->root->kind, NodeKind::kGeo);
    EXPECT_NEAR(q->root->radius_m, c.radius_m, 1e-9) << c.q;
  }
  auto q = Parse("@loc:[$lon $lat $r $u]", 2, {{"lon", "1.5"}, {"lat", "2.5"}, {"r", "7"}, {"u", "km"}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->root->lon, 1.5);
  EXPECT_EQ(q->root->lat, 2.5);
  EXPECT_EQ(q->root->radius_m, 7000);
}

TEST(QueryParser, MatchAllAndEmpty) {
  for (const char* s : {"*", "(*)", "((*))", " * "}) {
    auto q = Parse(s);
    ASSERT_TRUE(q.ok()) << s;
    EXPECT_EQ(q->root->kind, NodeKind::kMatchAll) << s;
  }
  for (const char* s : {"", "   ", "a", "a the", "@title:a", "@", "!!"}) {
    auto q = Parse(s);
    ASSERT_TRUE(q.ok()) << s;
    EXPECT_EQ(q->root->kind, NodeKind::kEmpty) << s;
  }
  // NOSTOPWORDS: nothing dropped.
  ParseOptions o = Opts(2);
  o.no_stopwords = true;
  auto q = ParseQuery("a", {}, o);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->kind, NodeKind::kTerm);
  EXPECT_EQ(q->root->term, "a");
}

TEST(QueryParser, Attributes) {
  auto q = Parse("(hello world)=>{$weight: 2.5; $slop: 1; $inorder: true;}");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->root->weight, 2.5);
  EXPECT_EQ(q->root->slop, 1);
  EXPECT_TRUE(q->root->inorder);
  q = Parse("\"a b\"=>{$slop:$s}", 2, {{"s", "3"}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->root->slop, 3);
  q = Parse("hello=>{}");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->weight, 1.0);
}

TEST(QueryParser, IsMissing) {
  auto q = Parse("ismissing(@tag) -ismissing(@price)");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->root->kind, NodeKind::kIntersect);
  EXPECT_EQ(q->root->children[0]->kind, NodeKind::kIsMissing);
  EXPECT_EQ(q->root->children[0]->fields, std::vector<std::string>{"tag"});
  // Dialect 1 has no ismissing(): a term, then a syntax error at ')'.
  EXPECT_EQ(Error("ismissing(@tag)", 1), "Syntax error at offset 14 near tag");
}

TEST(QueryParser, Params) {
  auto q = Parse("$w @title:$t");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->children[0]->term, "bar");
  EXPECT_EQ(q->root->children[1]->term, "foo");
  q = Parse("@tag:{$w*}");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->root->tags[0].value, "bar");
  EXPECT_EQ(q->root->tags[0].match, TagValue::Match::kPrefix);
  EXPECT_EQ(Error("$nope"), "No such parameter `nope`");
  EXPECT_EQ(Error("@price:[$nope 2]"), "No such parameter `nope`");
  EXPECT_EQ(Error("@tag:{$nope}"), "No such parameter `nope`");
  EXPECT_EQ(Error("@price:[$t 2]"), "Invalid numeric value (foo) for parameter `t`");
  // Dialect 1 has no parameters.
  EXPECT_EQ(Error("$w", 1), "Syntax error at offset 0 near w");
  EXPECT_EQ(Error("@price:[$lo $hi]", 1), "Syntax error at offset 8 near lo");
}

TEST(QueryParser, Knn) {
  auto q = Parse("*=>[KNN 10 @v $vec]");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_TRUE(q->knn.has_value());
  EXPECT_EQ(q->root->kind, NodeKind::kMatchAll);
  EXPECT_EQ(q->knn->k, 10u);
  EXPECT_EQ(q->knn->field, "v");
  EXPECT_EQ(q->knn->vector_blob, "aaaaaaaa");
  EXPECT_EQ(q->knn->blob_param, "vec");
  EXPECT_FALSE(q->knn->has_filter);
  EXPECT_TRUE(q->knn->score_alias.empty());

  for (const char* s : {"* => [KNN $K @v $vec EF_RUNTIME $EF AS dist]", "*=> [knn $K @v $vec ef_runtime 7 as dist]",
                        "*  =>[KNN 3 @v $vec EF_RUNTIME 7]=>{$YIELD_DISTANCE_AS: dist}"}) {
    q = Parse(s);
    ASSERT_TRUE(q.ok()) << s << ": " << q.status().message();
    EXPECT_EQ(q->knn->k, 3u) << s;
    ASSERT_TRUE(q->knn->ef_runtime.has_value()) << s;
    EXPECT_EQ(*q->knn->ef_runtime, 7u) << s;
    EXPECT_EQ(q->knn->score_alias, "dist") << s;
  }
  q = Parse("*=>[KNN 5 @v $vec EPSILON 0.1]");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->knn->epsilon.has_value());
  EXPECT_DOUBLE_EQ(*q->knn->epsilon, 0.1);

  // Hybrid: the filter is the root.
  q = Parse("(@tag:{drama} @price:[1 2])=>[KNN 10 @v $vec AS score]");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_TRUE(q->knn->has_filter);
  EXPECT_EQ(q->root->kind, NodeKind::kIntersect);
  EXPECT_EQ(q->knn->score_alias, "score");
  q = Parse("@tag:{x} => [KNN 10 @v $vec]");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_TRUE(q->knn->has_filter);
  EXPECT_EQ(q->root->kind, NodeKind::kTag);

  EXPECT_EQ(Error("*=>[KNN 10 @v $vec]", 2, {}), "No such parameter `vec`");
  EXPECT_EQ(Error("*=>[KNN x @v $vec]"), "Syntax error at offset 8 near x");
  EXPECT_EQ(Error("*=>[KNN -1 @v $vec]"), "Syntax error at offset 8 near -1");
  EXPECT_EQ(Error("*=>[KNN $k @v $vec]"), "Invalid numeric value (abc) for parameter `k`");
  EXPECT_EQ(Error("*=>[KNN 10 @v $vec AS]"), "Syntax error at offset 21 near AS");
  EXPECT_EQ(Error("*=>[KNN 10 @v $vec] hello"), "Syntax error at offset 20 near hello");
  EXPECT_EQ(Error("hello *=>[KNN 10 @v $vec]"), "Syntax error at offset 6 near hello");
  EXPECT_EQ(Error("(*=>[KNN 10 @v $vec])"), "Syntax error at offset 2 near >[");
  EXPECT_EQ(Error("*=>[KNN 10 @v $vec]", 1), "Syntax error at offset 1 near >[");
  EXPECT_EQ(Error("*=>[KNN 10 @v $vec]=>{$foo: 1}"), "Invalid attribute foo");
}

TEST(QueryParser, VectorRange) {
  auto q = Parse("@v:[VECTOR_RANGE 0.5 $vec]=>{$YIELD_DISTANCE_AS: d; $EPSILON: 0.2}");
  ASSERT_TRUE(q.ok()) << q.status().message();
  const QueryNode& n = *q->root;
  EXPECT_EQ(n.kind, NodeKind::kVectorRange);
  EXPECT_EQ(n.fields, std::vector<std::string>{"v"});
  EXPECT_EQ(n.vector_radius, 0.5);
  EXPECT_EQ(n.vector_blob, "aaaaaaaa");
  EXPECT_EQ(n.yield_distance_as, "d");
  ASSERT_TRUE(n.vector_epsilon.has_value());
  EXPECT_EQ(*n.vector_epsilon, 0.2);
  q = Parse("@v:[VECTOR_RANGE $r $vec] @tag:{x}", 2, {{"r", "0.3"}, {"vec", "b"}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->root->children[0]->vector_radius, 0.3);
  EXPECT_EQ(Error("@v:[VECTOR_RANGE abc $vec]"), "Syntax error at offset 17 near abc");
  EXPECT_EQ(Error("@v:[VECTOR_RANGE 0.1 $nope]"), "No such parameter `nope`");
}

// ---------------------------------------------------------------------------------
// Errors (texts as RediSearch 2.10's)

TEST(QueryParser, SyntaxErrors) {
  EXPECT_EQ(Error("(hello"), "Syntax error at offset 1 near hello");
  EXPECT_EQ(Error("hello)"), "Syntax error at offset 5 near hello");
  EXPECT_EQ(Error("@price:[1"), "Syntax error at offset 8 near 1");
  EXPECT_EQ(Error("@price:[1 2 3]"), "Syntax error at offset 13 near 3");
  EXPECT_EQ(Error("@tag:{a"), "Syntax error at offset 6 near a");
  EXPECT_EQ(Error("@tag:{a-b}"), "Syntax error at offset 7 near a");
  EXPECT_EQ(Error("@tag:{}"), "Syntax error at offset 6 near tag");
  EXPECT_EQ(Error("@tag:{a:b}"), "Syntax error at offset 7 near a");
  EXPECT_EQ(Error("\"hello"), "Syntax error at offset 1 near hello");
  EXPECT_EQ(Error("@title"), "Syntax error at offset 0 near title");
  EXPECT_EQ(Error("@:hello"), "Syntax error at offset 1 near ");
  EXPECT_EQ(Error("-*"), "Syntax error at offset 1 near ");
  EXPECT_EQ(Error("hello -*"), "Syntax error at offset 7 near hello");
  EXPECT_EQ(Error("()"), "Syntax error at offset 1 near ");
  EXPECT_EQ(Error("%%%%hello%%%%"), "Syntax error at offset 3 near ");
  EXPECT_EQ(Error("@tag:{a b}", 1), "Syntax error at offset 9 near b");
  EXPECT_EQ(Error("\"hello"), "Syntax error at offset 1 near hello");
  EXPECT_EQ(Error("x \"y"), "Syntax error at offset 3 near y");
  EXPECT_EQ(Error("@tag:{\"a b\"}", 1), "Syntax error at offset 6 near tag");
  EXPECT_EQ(Error("@loc:[1 2 3 parsec]"), "Invalid GeoFilter unit");
  EXPECT_EQ(Error("@loc:[1 2 -3 km]"), "Invalid GeoFilter radius");
  EXPECT_EQ(Error("@loc:[200 2 3 km]"), "Invalid GeoFilter lat/lon");
  EXPECT_EQ(Error("x=>{$foo:1}"), "Invalid attribute foo");
  EXPECT_EQ(Error("x=>{$weight:abc}"), "Invalid value (abc) for `weight`");
  EXPECT_EQ(Error("x=>{$slop:-2}"), "Invalid value (-2) for `slop`");
  // A syntax error wins over a missing parameter (RediSearch resolves them after parsing).
  EXPECT_EQ(Error("$nope["), "Syntax error at offset 5 near nope");
  EXPECT_EQ(Error("$nope (x"), "Syntax error at offset 7 near x");
  // "=>" must be followed by "{" or "[".
  EXPECT_EQ(Error("-1 => -"), "Syntax error at offset 6 near > ");
  EXPECT_EQ(Error("hello", 5), "DIALECT requires a non negative integer >=1 and <= 4");
  EXPECT_EQ(Error("hello", 0), "DIALECT requires a non negative integer >=1 and <= 4");
}

// ---------------------------------------------------------------------------------
// FT.EXPLAIN

TEST(QueryExplain, CommonForms) {
  EXPECT_EQ(Explain("hello"), "UNION {\n  hello\n  +hello(expanded)\n}\n");
  EXPECT_EQ(Explain("running"), "UNION {\n  running\n  +run(expanded)\n  run(expanded)\n}\n");
  EXPECT_EQ(Explain("a"), "<empty>\n");
  EXPECT_EQ(Explain("*"), "<WILDCARD>\n");
  EXPECT_EQ(Explain("hello world"),
            "INTERSECT {\n  UNION {\n    hello\n    +hello(expanded)\n  }\n  UNION {\n    world\n"
            "    +world(expanded)\n  }\n}\n");
  EXPECT_EQ(Explain("-hello"), "NOT{\n  UNION {\n    hello\n    +hello(expanded)\n  }\n}\n");
  EXPECT_EQ(Explain("~hello"), "OPTIONAL{\n  UNION {\n    hello\n    +hello(expanded)\n  }\n}\n");
  EXPECT_EQ(Explain("\"hello a world\""), "EXACT {\n  hello\n  a\n  world\n}\n");
  EXPECT_EQ(Explain("\"hello\""), "EXACT {\n  hello\n}\n");
  EXPECT_EQ(Explain("lap*"), "PREFIX{lap*}\n");
  EXPECT_EQ(Explain("*top"), "SUFFIX{*top}\n");
  EXPECT_EQ(Explain("*pto*"), "INFIX{*pto*}\n");
  EXPECT_EQ(Explain("w'h?l*'"), "WILDCARD{h?l*}\n");
  EXPECT_EQ(Explain("%%hello%%"), "FUZZY{hello}\n");
  EXPECT_EQ(Explain("1.5"), "1.5\n");
  EXPECT_EQ(Explain("@title:hello"),
            "@title:UNION {\n  @title:hello\n  @title:+hello(expanded)\n}\n");
  EXPECT_EQ(Explain("@title|body:foo"),
            "@title|body:UNION {\n  @title|body:foo\n  @title|body:+foo(expanded)\n}\n");
  EXPECT_EQ(Explain("@title:\"hello world\""), "@title:EXACT {\n  @title:hello\n  @title:world\n}\n");
  EXPECT_EQ(Explain("@title:lap*"), "@title:PREFIX{lap*}\n");
  EXPECT_EQ(Explain("@title:%%foo%%"), "@title:FUZZY{foo}\n");
  EXPECT_EQ(Explain("@title:w'f?o'"), "@title:WILDCARD{f?o}\n");
}

TEST(QueryExplain, FieldsTagsRanges) {
  EXPECT_EQ(Explain("@tag:{a|b|pre*}"), "TAG:@tag {\n  a\n  b\n  PREFIX{pre*}\n}\n");
  EXPECT_EQ(Explain("@tag:{*suf}"), "TAG:@tag {\n  SUFFIX{*suf}\n}\n");
  EXPECT_EQ(Explain("@tag:{*in*}"), "TAG:@tag {\n  INFIX{*in*}\n}\n");
  EXPECT_EQ(Explain("@tag:{hello\\ world}"), "TAG:@tag {\n  hello\\ world\n}\n");
  EXPECT_EQ(Explain("@tag:{a\\-b|c\\.d|e\\,f}"), "TAG:@tag {\n  a\\-b\n  c\\.d\n  e\\,f\n}\n");
  EXPECT_EQ(Explain("@tag:{ a b }"), "TAG:@tag {\n  INTERSECT {\n    a\n    b\n  }\n}\n");
  EXPECT_EQ(Explain("@tag:{a b|c}"), "TAG:@tag {\n  INTERSECT {\n    a\n    b\n  }\n  c\n}\n");
  EXPECT_EQ(Explain("@tag:{\"a b\"}"), "TAG:@tag {\n  a b\n}\n");
  EXPECT_EQ(Explain("@tag:{$t}"), "TAG:@tag {\n  foo\n}\n");
  EXPECT_EQ(Explain("@tag:{-1}"), "TAG:@tag {\n  -1\n}\n");
  EXPECT_EQ(Explain("@price:[1 2]"), "NUMERIC {1.000000 <= @price <= 2.000000}\n");
  EXPECT_EQ(Explain("@price:[(1 +inf]"), "NUMERIC {1.000000 < @price <= inf}\n");
  EXPECT_EQ(Explain("@price:[-inf 5]"), "NUMERIC {-inf <= @price <= 5.000000}\n");
  EXPECT_EQ(Explain("@price:[1.5 (2e3]"), "NUMERIC {1.500000 <= @price < 2000.000000}\n");
  EXPECT_EQ(Explain("@price:[$lo $hi]"), "NUMERIC {1.000000 <= @price <= 2.000000}\n");
  EXPECT_EQ(Explain("@price:[-1 -2]"), "NUMERIC {-1.000000 <= @price <= -2.000000}\n");
  EXPECT_EQ(Explain("@loc:[1 2 3 km]"), "GEO loc:{1.000000,2.000000 --> 3.000000 km}\n");
  EXPECT_EQ(Explain("@loc:[-122.4 37.7 10 mi]"), "GEO loc:{-122.400000,37.700000 --> 10.000000 mi}\n");
  EXPECT_EQ(Explain("@loc:[1 2 3 ft]"), "GEO loc:{1.000000,2.000000 --> 3.000000 ft}\n");
  EXPECT_EQ(Explain("ismissing(@tag) -ismissing(@price)"),
            "INTERSECT {\n  ISMISSING{tag}\n  NOT{\n    ISMISSING{price}\n  }\n}\n");
  EXPECT_EQ(Explain("hello @price:[1 2]"),
            "INTERSECT {\n  UNION {\n    hello\n    +hello(expanded)\n  }\n"
            "  NUMERIC {1.000000 <= @price <= 2.000000}\n}\n");
}

TEST(QueryExplain, AttributesLayout) {
  EXPECT_EQ(Explain("hello=>{$weight: 2}"), "UNION {\n  hello => {$weight: 2;}\n  +hello(expanded)\n}\n");
  EXPECT_EQ(Explain("x=>{$weight:2.5}"), "UNION {\n  x => {$weight: 2.5;}\n  +x(expanded)\n}\n");
  EXPECT_EQ(Explain("(hello world)=>{$slop:1; $inorder:true}"),
            "INTERSECT {\n  UNION {\n    hello\n    +hello(expanded)\n  }\n  UNION {\n    world\n"
            "    +world(expanded)\n  }\n} => { $slop: 1; $inorder: true; }\n");
  EXPECT_EQ(Explain("\"hello world\"=>{$slop:1}"),
            "EXACT {\n  hello\n  world\n} => { $slop: 1; $inorder: false; }\n");
  EXPECT_EQ(Explain("\"hello world\"=>{$inorder:true}", 1), "EXACT {\n  hello\n  world\n} => { $inorder: true; }\n");
  EXPECT_EQ(Explain("@price:[1 2]=>{$weight: 3}"),
            "NUMERIC {1.000000 <= @price <= 2.000000} => { $weight: 3; }\n");
  EXPECT_EQ(Explain("@tag:{a}=>{$weight:2}"), "TAG:@tag {\n  a\n} => { $weight: 2; }\n");
  EXPECT_EQ(Explain("-x=>{$weight:2}"), "NOT{\n  UNION {\n    x => {$weight: 2;}\n    +x(expanded)\n  }\n}\n");
  EXPECT_EQ(Explain("@title:\"a b\"=>{$slop:2;$inorder:true}"),
            "@title:EXACT {\n  @title:a\n  @title:b\n} => { $slop: 2; $inorder: true; }\n");
}

TEST(QueryExplain, Vectors) {
  EXPECT_EQ(Explain("*=>[KNN 10 @v $vec]"),
            "VECTOR {K=10 nearest vectors to `$vec` in vector index associated with field @v, yields "
            "distance as `__v_score`}\n");
  EXPECT_EQ(Explain("* => [KNN 10 @v $vec]"),
            "VECTOR {K=10 nearest vectors to `$vec` in vector index associated with field @v, yields "
            "distance as `__v_score`}\n");
  EXPECT_EQ(Explain("*=>[KNN 5 @v $vec EF_RUNTIME 100 AS s]"),
            "VECTOR {K=5 nearest vectors to `$vec` in vector index associated with field @v, EF_RUNTIME = "
            "100, yields distance as `s`}\n");
  EXPECT_EQ(Explain("*=>[KNN $K @v $vec EF_RUNTIME $EF]"),
            "VECTOR {K=3 nearest vectors to `$vec` in vector index associated with field @v, EF_RUNTIME = 7, "
            "yields distance as `__v_score`}\n");
  EXPECT_EQ(Explain("*=>[KNN 5 @v $vec EPSILON 0.1]"),
            "VECTOR {K=5 nearest vectors to `$vec` in vector index associated with field @v, EPSILON = 0.1, "
            "yields distance as `__v_score`}\n");
  EXPECT_EQ(Explain("*=>[KNN 10 @v $vec FOO 3]"),
            "VECTOR {K=10 nearest vectors to `$vec` in vector index associated with field @v, FOO = 3, "
            "yields distance as `__v_score`}\n");
  EXPECT_EQ(Explain("*=>[KNN 10 @v $vec]=>{$yield_distance_as: dd}"),
            "VECTOR {K=10 nearest vectors to `$vec` in vector index associated with field @v, yields "
            "distance as `dd`}\n");
  EXPECT_EQ(Explain("@tag:{a}=>[KNN 10 @v $vec AS d]"),
            "VECTOR {\n  TAG:@tag {\n    a\n  }\n} => {K=10 nearest vectors to `$vec` in vector index "
            "associated with field @v, yields distance as `d`}\n");
  EXPECT_EQ(Explain("(@price:[1 2] @tag:{x})=>[KNN 5 @v $vec]"),
            "VECTOR {\n  INTERSECT {\n    NUMERIC {1.000000 <= @price <= 2.000000}\n    TAG:@tag {\n      x\n"
            "    }\n  }\n} => {K=5 nearest vectors to `$vec` in vector index associated with field @v, yields "
            "distance as `__v_score`}\n");
  EXPECT_EQ(Explain("@v:[VECTOR_RANGE 0.5 $vec]=>{$YIELD_DISTANCE_AS: d}"),
            "VECTOR {Vectors that are within 0.5 distance radius from `$vec` in vector index associated with "
            "field @v, yields distance as `d`}\n");
  EXPECT_EQ(Explain("@v:[VECTOR_RANGE 0.5 $vec]=>{$YIELD_DISTANCE_AS: d; $EPSILON: 0.2}"),
            "VECTOR {Vectors that are within 0.5 distance radius from `$vec` in vector index associated with "
            "field @v, EPSILON = 0.2, yields distance as `d`}\n");
  EXPECT_EQ(Explain("@v:[VECTOR_RANGE 0.5 $vec] @tag:{x}"),
            "INTERSECT {\n  VECTOR {Vectors that are within 0.5 distance radius from `$vec` in vector index "
            "associated with field @v}\n  TAG:@tag {\n    x\n  }\n}\n");
}

// Operator precedence and modifier scope, dialect 2 vs 1 (structure only: the
// expansions are dropped from these strings by Shape()).
std::string Shape(std::string_view q, int dialect) {
  auto r = Parse(q, dialect);
  if (!r.ok()) return "ERROR: " + r.status().message();
  std::string s = ExplainQuery(*r);  // no stemmer: terms print bare
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

TEST(QueryExplain, DialectPrecedence) {
  // Dialect 2: -, ~ and @f: bind to the next atom; | is loosest.
  EXPECT_EQ(Shape("hello -world", 2), "INTERSECT { hello NOT{ world } }");
  EXPECT_EQ(Shape("-hello world", 2), "INTERSECT { NOT{ hello } world }");
  EXPECT_EQ(Shape("a b | c d", 2), "UNION { b INTERSECT { c d } }");
  EXPECT_EQ(Shape("@title:hello world", 2), "INTERSECT { @title:hello world }");
  EXPECT_EQ(Shape("@title:hello|world", 2), "UNION { @title:hello world }");
  EXPECT_EQ(Shape("-@title:hello world", 2), "INTERSECT { NOT{ @title:hello } world }");
  EXPECT_EQ(Shape("~x y", 2), "INTERSECT { OPTIONAL{ x } y }");
  EXPECT_EQ(Shape("-x|y", 2), "UNION { NOT{ x } y }");
  EXPECT_EQ(Shape("(hello|world) (foo|bar)", 2), "INTERSECT { UNION { hello world } UNION { foo bar } }");
  // RediSearch's LALR quirks: numbers, affixes and fuzzy terms extend a negation / field.
  EXPECT_EQ(Shape("-x 5", 2), "NOT{ INTERSECT { x 5 } }");
  EXPECT_EQ(Shape("-x lap*", 2), "NOT{ INTERSECT { x PREFIX{lap*} } }");
  EXPECT_EQ(Shape("@title:x lap*", 2), "@title:INTERSECT { @title:x @title:PREFIX{lap*} }");
  EXPECT_EQ(Shape("@title:x %fuz%", 2), "@title:INTERSECT { @title:x @title:FUZZY{fuz} }");
  EXPECT_EQ(Shape("-x $w", 2), "NOT{ INTERSECT { x bar } }");
  EXPECT_EQ(Shape("@title:(x y)=>{$weight:2} z", 2),
            "INTERSECT { @title:INTERSECT { @title:x @title:y } => { $weight: 2; } z }");
  // Dialect 1: they take the rest of the expression.
  EXPECT_EQ(Shape("@title:hello world", 1), "@title:INTERSECT { @title:hello @title:world }");
  EXPECT_EQ(Shape("@title:hello|world", 1), "@title:UNION { @title:hello @title:world }");
  EXPECT_EQ(Shape("-hello world", 1), "NOT{ INTERSECT { hello world } }");
  EXPECT_EQ(Shape("-hello world|foo", 1), "NOT{ UNION { INTERSECT { hello world } foo } }");
  EXPECT_EQ(Shape("hello -world foo", 1), "INTERSECT { hello NOT{ INTERSECT { world foo } } }");
  EXPECT_EQ(Shape("foo @title:hello world|bar", 1),
            "INTERSECT { foo @title:UNION { @title:INTERSECT { @title:hello @title:world } @title:bar } }");
  EXPECT_EQ(Shape("foo|@title:hello world", 1), "UNION { foo @title:INTERSECT { @title:hello @title:world } }");
  EXPECT_EQ(Shape("~hello world", 1), "OPTIONAL{ INTERSECT { hello world } }");
  EXPECT_EQ(Shape("@title:hello -world", 1), "INTERSECT { @title:hello NOT{ world } }");
  EXPECT_EQ(Shape("x -y|z", 1), "INTERSECT { x NOT{ UNION { y z } } }");
  EXPECT_EQ(Shape("x|-y z", 1), "UNION { x NOT{ INTERSECT { y z } } }");
  EXPECT_EQ(Shape("(x y)|z w", 1), "UNION { INTERSECT { x y } INTERSECT { z w } }");
  EXPECT_EQ(Shape("x -@title:y z", 1), "INTERSECT { x NOT{ @title:INTERSECT { @title:y @title:z } } }");
  EXPECT_EQ(Shape("hello|world foo", 1), "UNION { hello INTERSECT { world foo } }");
  EXPECT_EQ(Shape("@title:(a b)|c d", 1), "@title:UNION { @title:b @title:INTERSECT { @title:c @title:d } }");
  EXPECT_EQ(Shape("w'foo*'", 1), "INTERSECT { w PREFIX{foo*} }");
  EXPECT_EQ(Shape("@tag:{a|b}", 1), "TAG:@tag { a b }");
  EXPECT_EQ(Shape("@price:[(1 +inf]", 1), "NUMERIC {1.000000 < @price <= inf}");
  // Dialect 2 reuses an intersection / union on the right too (the left joins its end).
  EXPECT_EQ(Shape("x|(y|z)", 2), "UNION { y z x }");
  EXPECT_EQ(Shape("1 2 3", 2), "INTERSECT { 2 3 1 }");
  EXPECT_EQ(Shape("x|(y|z)", 1), "UNION { x UNION { y z } }");
  // Dialect 2: a text field's operand holds text only.
  EXPECT_EQ(Shape("@title:(@body:x)", 2), "ERROR: Syntax error at offset 8 near body");
  EXPECT_EQ(Shape("@title:(x @tag:{y})", 2), "ERROR: Syntax error at offset 10 near tag");
  EXPECT_EQ(Shape("@title:(x -y)", 2), "@title:INTERSECT { @title:x @title:NOT{ @title:y } }");
  EXPECT_EQ(Shape("@title:(@body:x)", 1), "@NULL:x");
  // Dialect 1 term lists: two words start one, stop words and numbers end it.
  EXPECT_EQ(Shape("@title:zz the hello", 1), "INTERSECT { @title:zz hello }");
  EXPECT_EQ(Shape("w x -2.5|y", 1), "INTERSECT { w x UNION { -2.5 y } }");
  // Dialect 1 keeps a tag list open after '}'.
  EXPECT_EQ(Shape("x @tag:{y}|z", 1), "INTERSECT { x TAG:@tag { y z } }");
  EXPECT_EQ(Shape("@tag:{a}|-~hello", 1), "ERROR: Syntax error at offset 9 near a");
  // Dialect 2 lexes quoted text on its own: punctuation separates words there.
  EXPECT_EQ(Shape("\"x-y @z a|b\"", 2), "EXACT { x y z a b }");
  EXPECT_EQ(Shape("\"x $t\" y", 2), "INTERSECT { EXACT { x $t } y }");
  // Dialect 1 tag lists: '}' optional, a first value may end the list.
  EXPECT_EQ(Shape("@tag:{a", 1), "TAG:@tag { a }");
  EXPECT_EQ(Shape("@tag:{a x", 1), "INTERSECT { TAG:@tag { a } x }");
  EXPECT_EQ(Shape("@tag:{a|b x", 1), "TAG:@tag { a INTERSECT { b x } }");
  // Dialects 3 and 4 parse as 2.
  EXPECT_EQ(Shape("@title:hello world", 3), Shape("@title:hello world", 2));
  EXPECT_EQ(Shape("*=>[KNN 10 @v $vec]", 4), Shape("*=>[KNN 10 @v $vec]", 2));
}

// ---------------------------------------------------------------------------------
// Robustness: never crashes, never recurses without bound.

TEST(QueryParserFuzz, DeepNestingIsAnError) {
  for (const char* open : {"(", "-", "~", "@title:(", "-(", "@title:"}) {
    std::string q;
    for (int i = 0; i < 10000; i++) q += open;
    q += "x";
    for (int i = 0; i < 10000; i++) q += ")";
    for (int dialect = 1; dialect <= 2; dialect++) {
      auto r = Parse(q, dialect);
      EXPECT_FALSE(r.ok()) << open;
    }
  }
  // Within the limit: fine.
  std::string q(100, '(');
  q += "x";
  q += std::string(100, ')');
  auto r = Parse(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->root->kind, NodeKind::kTerm);
  // Long flat inputs are not nesting.
  std::string flat;
  for (int i = 0; i < 20000; i++) flat += "a" + std::to_string(i) + (i % 2 ? " " : "|");
  r = Parse(flat);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(ExplainQuery(*r).empty());
}

TEST(QueryParserFuzz, RandomBytesAndFragments) {
  std::mt19937 rng(12345);
  const char* fragments[] = {"(",    ")",   "{",      "}",   "[",    "]",    "|",   "-",     "~",    "@f:",
                             "@v:",  "$vec", "$nope", "*",   "=>",   "KNN",  "10",  "\"",    "%",    "w'",
                             "'",    ":",   ";",      "$weight", "1e999", "-inf", "(5", "VECTOR_RANGE", "AS", "\\",
                             "hello", " ",  "ismissing(", "@tag:{", "inf", "99999999999999999999999999",
                             "\xff", "\x00", ".",      ","};
  const size_t nfrag = sizeof(fragments) / sizeof(fragments[0]);
  size_t ok = 0;
  for (int iter = 0; iter < 20000; iter++) {
    std::string q;
    if (iter % 2 == 0) {
      size_t len = rng() % 64;
      for (size_t i = 0; i < len; i++) q.push_back(static_cast<char>(rng() & 0xff));
    } else {
      size_t n = rng() % 16;
      for (size_t i = 0; i < n; i++) {
        const char* f = fragments[rng() % nfrag];
        q.append(f, f[0] == '\0' ? 1 : std::strlen(f));
      }
    }
    int dialect = 1 + static_cast<int>(rng() % 4);
    auto r = Parse(q, dialect);
    if (r.ok()) {
      ok++;
      ASSERT_NE(r->root, nullptr);
      ExplainOptions eo;
      eo.stem = TestStem;
      EXPECT_FALSE(ExplainQuery(*r, eo).empty());
    } else {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  EXPECT_GT(ok, 0u);
}

}  // namespace
}  // namespace hotkv::search

namespace hotkv::search {
namespace {

// ---------------------------------------------------------------------------------
// The one-pass reader of "*=>[KNN ...]" gives exactly what the full parser gives.

std::string DumpQuery(const Result<Query>& r) {
  if (!r.ok()) return "ERROR: " + r.status().message();
  std::string out = "root " + std::to_string(static_cast<int>(r->root->kind)) + " w " +
                    std::to_string(r->root->weight) + " children " +
                    std::to_string(r->root->children.size()) + "\n";
  if (r->knn) {
    const KnnClause& k = *r->knn;
    out += "knn k=" + std::to_string(k.k) + " field=" + k.field + " blob=" + k.vector_blob +
           " ef=" + (k.ef_runtime ? std::to_string(*k.ef_runtime) : "-") +
           " eps=" + (k.epsilon ? std::to_string(*k.epsilon) : "-") + " as=" + k.score_alias +
           " filter=" + (k.has_filter ? "1" : "0") + " param=" + k.blob_param + " attrs=";
    for (const auto& [n, v] : k.attributes) out += n + ":" + v + ",";
  }
  out += ExplainQuery(*r);
  return out;
}

std::string ParseBoth(std::string_view q, int dialect, bool* same) {
  ParseOptions fast = Opts(dialect);
  ParseOptions full = Opts(dialect);
  full.no_fast_path = true;
  const std::string a = DumpQuery(ParseQuery(q, kParams, fast));
  const std::string b = DumpQuery(ParseQuery(q, kParams, full));
  *same = a == b;
  return a + "\n--- full parser ---\n" + b;
}

TEST(QueryParserFastKnn, SameAsTheFullParser) {
  const char* fixed[] = {
      "*=>[KNN 10 @v $vec]",
      "*=>[KNN 10 @v $vec EF_RUNTIME 40]",
      " * => [ KNN 10 @v $vec EF_RUNTIME 40 ] ",
      "*=>[knn $K @v $vec ef_runtime $EF as dist]",
      "*=>[KNN $K @v $vec EF_RUNTIME $EF AS dist]",
      "*=>[KNN 3 @v $vec EF_RUNTIME 7 EF_RUNTIME 9]",
      "*=>[KNN 3 @v $vec AS 1e5]",
      "*=>[KNN 3 @v $vec AS inf]",
      "*=>[KNN 3 @v $vec AS $t]",
      "*=>[KNN 3 @v $vec AS]",
      "*=>[KNN 3 @v $vec AS dist EF_RUNTIME 4]",
      "*=>[KNN 3 @v $vec EPSILON 0.5]",
      "*=>[KNN 3 @v $vec EF_RUNTIME $k]",
      "*=>[KNN $k @v $vec]",
      "*=>[KNN $nope @v $vec]",
      "*=>[KNN 3 @v $nope]",
      "*=>[KNN 3 @v $vec EF_RUNTIME $nope]",
      "*=>[KNN 3 @v $vec]=>{$YIELD_DISTANCE_AS: d}",
      "*=>[KNN 3 @v $vec] x",
      "*=>[KNN 3 @v $vec,]",
      "*=>[KNN 3 @v $vec*]",
      "*=>[KNN 3 @v:x $vec]",
      "*=>[KNN 3 @v $vec EF_RUNTIME 4x]",
      "*=>[KNN 3.5 @v $vec]",
      "*=>[KNN 99999999999999999999 @v $vec]",
      "*=>[KNN 9999999999999999999 @v $vec]",
      "*=>[KNN 0 @v $vec]",
      "*=>[KNN -1 @v $vec]",
      "*=>[KNN 3 @v\\x $vec]",
      "*=>[KNN 3 @v\xc3\xa9 $vec]",
      "*=>[KNN10 @v $vec]",
      "*=>[KNN 10@v $vec]",
      "*=>[KNN 10 @v$vec]",
      "*=>[KNN 10 @v $vec]]",
      "*=>[KNN 10 @v $vec",
      "*=>KNN 10 @v $vec]",
      "(*)=>[KNN 10 @v $vec]",
      "@tag:{a}=>[KNN 10 @v $vec]",
      "*=>[KNN\t10\n@v\r$vec\fEF_RUNTIME\v4]",
      "*=>[RANGE 10 @v $vec]",
      "*=>[KNN 10 @v $vec AS a b]",
      "*=>[KNN 10 @v $vec FOO 3]",
      "*=>[KNN 10 @v $vec EF_RUNTIME]",
      "**=>[KNN 10 @v $vec]",
      "*=[KNN 10 @v $vec]",
      "",
      "*",
  };
  for (int dialect = 1; dialect <= 4; dialect++) {
    for (const char* q : fixed) {
      bool same = false;
      std::string both = ParseBoth(q, dialect, &same);
      EXPECT_TRUE(same) << "dialect " << dialect << " query [" << q << "]\n" << both;
    }
  }
  // Random spellings built from the pieces of the form.
  const char* pieces[] = {"*", "=>", "[", "]", "KNN", "knn", "10", "$K", "$k", "@v", "$vec",
                          "EF_RUNTIME", "ef_runtime", "7", "$EF", "AS", "as", "dist", "$t",
                          " ", " ", " ", "  ", "\t", "(", ")", ",", "$nope", "1e5", "x"};
  std::mt19937 rng(18);
  size_t fast_ok = 0;
  for (int iter = 0; iter < 10000; iter++) {
    std::string q;
    if (iter % 4 != 0) {
      // Mostly well-formed: the form with random spacing and optional parts.
      auto sp = [&]() { return std::string(rng() % 3, ' '); };
      auto sp1 = [&]() { return std::string(1 + rng() % 2, rng() % 5 == 0 ? '\t' : ' '); };
      q = sp() + "*" + sp() + "=>" + sp() + "[" + sp() + (rng() % 2 ? "KNN" : "knn") + sp1() +
          (rng() % 3 == 0 ? "$K" : std::to_string(rng() % 100)) + sp1() + "@v" + sp1() + "$vec";
      for (unsigned a = rng() % 3; a > 0; a--) {
        q += sp1() + (rng() % 2 ? "EF_RUNTIME" : "ef_runtime") + sp1() +
             (rng() % 3 == 0 ? "$EF" : std::to_string(rng() % 500));
      }
      if (rng() % 2) q += sp1() + (rng() % 2 ? "AS" : "as") + sp1() + (rng() % 4 ? "dist" : "$t");
      q += sp() + "]" + sp();
      if (rng() % 8 == 0) {  // one piece changed
        size_t at = rng() % q.size();
        q.insert(at, pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))]);
      }
    } else {
      for (unsigned n = rng() % 14; n > 0; n--) q += pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
    }
    const int dialect = 1 + static_cast<int>(rng() % 4);
    bool same = false;
    std::string both = ParseBoth(q, dialect, &same);
    ASSERT_TRUE(same) << "dialect " << dialect << " query [" << q << "]\n" << both;
    fast_ok += both.rfind("ERROR", 0) == 0 ? 0 : 1;
  }
  EXPECT_GT(fast_ok, 2500u);
}

}  // namespace
}  // namespace hotkv::search

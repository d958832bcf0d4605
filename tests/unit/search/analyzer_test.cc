// The full-text analyzer: RediSearch's tokenising rules (checked on Redis 8.8 +
// RediSearch 2.10), Unicode case folding, stop words and Snowball stemming.
#include <gtest/gtest.h>

#include <thread>

#include "search/text_index.h"

namespace hotkv::search {
namespace {

std::vector<std::string> Words(const Analyzer& a, std::string_view text) {
  std::vector<Analyzer::Token> toks;
  a.Tokenize(text, &toks);
  std::vector<std::string> out;
  for (auto& t : toks) out.push_back(t.text);
  return out;
}

using V = std::vector<std::string>;

TEST(AnalyzerTest, SplitsOnRediSearchSeparators) {
  Analyzer a("english", DefaultStopWords());
  EXPECT_EQ(Words(a, "Hello, World! foo.bar<baz>{q}[r]\"s\"'t':u;v@w#x$y%z^1&2*3(4)5-6+7=8~9"),
            (V{"hello", "world", "foo", "bar", "baz", "q", "r", "s", "t", "u", "v", "w", "x", "y",
               "z", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  // '/', '|', '`' and '?' separate too; '_' does not.
  EXPECT_EQ(Words(a, "x/b c|d e`f g?h hello_world"),
            (V{"x", "b", "c", "d", "e", "f", "g", "h", "hello_world"}));
  // Tabs separate; a newline is not a separator but is dropped (RediSearch: "helloworld").
  EXPECT_EQ(Words(a, "tab\there hello\nworld"), (V{"tab", "here", "helloworld"}));
  EXPECT_EQ(Words(a, "4.5 x123"), (V{"4", "5", "x123"}));
  EXPECT_TRUE(Words(a, " ,.;  ").empty());
}

TEST(AnalyzerTest, BackslashEscapesASeparator) {
  Analyzer a("english", DefaultStopWords());
  EXPECT_EQ(Words(a, "foo\\,bar baz-qux"), (V{"foo,bar", "baz", "qux"}));
  EXPECT_EQ(Words(a, "hello\\ world"), (V{"hello world"}));
  EXPECT_EQ(Words(a, "a\\-b"), (V{"a-b"}));
}

TEST(AnalyzerTest, PositionsSkipStopWords) {
  Analyzer a("english", DefaultStopWords());
  std::vector<Analyzer::Token> toks;
  a.Tokenize("The quick brown fox is a fox", &toks);
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].text, "quick");
  EXPECT_EQ(toks[0].position, 1u);
  EXPECT_EQ(toks[1].position, 2u);
  EXPECT_EQ(toks[2].position, 3u);
  EXPECT_EQ(toks[3].text, "fox");
  EXPECT_EQ(toks[3].position, 4u);
}

TEST(AnalyzerTest, UnicodeCaseFolding) {
  Analyzer a("english", DefaultStopWords());
  EXPECT_EQ(a.Fold("Ünïcödé"), "ünïcödé");
  EXPECT_EQ(a.Fold("ÜNÏCÖDÉ"), "ünïcödé");
  EXPECT_EQ(a.Fold("ПРИВЕТ Мир"), "привет мир");
  // Folding (not just lower-casing): final sigma folds to sigma, so both spellings match.
  EXPECT_EQ(a.Fold("ΣΊΣΥΦΟΣ"), a.Fold("σίσυφος"));
  EXPECT_EQ(Words(a, "Ünïcödé ΣΊΣΥΦΟΣ Привет"), (V{"ünïcödé", "σίσυφοσ", "привет"}));
  // Full folding: dotted capital I as RediSearch lower-cases it, sharp s as "ss".
  EXPECT_EQ(a.Fold("İstanbul"), "i̇stanbul");
  EXPECT_EQ(a.Fold("Straße"), "strasse");
  EXPECT_EQ(a.Fold("STRAẞE"), "strasse");
  // Invalid UTF-8 passes through unchanged.
  EXPECT_EQ(a.Fold(std::string("A\xff" "B")), std::string("a\xff" "b"));
}

TEST(AnalyzerTest, StopWords) {
  Analyzer a("english", DefaultStopWords());
  EXPECT_EQ(DefaultStopWords().size(), 33u);
  EXPECT_TRUE(a.IsStopWord("the"));
  EXPECT_TRUE(a.IsStopWord("with"));
  EXPECT_FALSE(a.IsStopWord("hello"));
  EXPECT_EQ(Words(a, "The cat AND the hat"), (V{"cat", "hat"}));
  Analyzer custom("english", {"Foo", "bar"});
  EXPECT_EQ(Words(custom, "foo the bar baz"), (V{"the", "baz"}));
  Analyzer none("english", {});
  EXPECT_EQ(Words(none, "a the"), (V{"a", "the"}));
}

TEST(AnalyzerTest, Stemming) {
  Analyzer en("english", DefaultStopWords());
  EXPECT_TRUE(en.HasStemmer());
  EXPECT_EQ(en.Stem("running"), "run");
  EXPECT_EQ(en.Stem("runs"), "run");
  EXPECT_EQ(en.Stem("dogs"), "dog");
  EXPECT_EQ(en.Stem("hello"), "hello");
  Analyzer fr("french", {});
  EXPECT_EQ(fr.Stem("chevaux"), "cheval");
  Analyzer de("German", {});
  EXPECT_TRUE(de.HasStemmer());
  Analyzer zh("chinese", {});
  EXPECT_FALSE(zh.HasStemmer());
  EXPECT_EQ(zh.Stem("running"), "running");
  Analyzer unknown("klingon", {});
  EXPECT_FALSE(unknown.HasStemmer());
  EXPECT_EQ(unknown.Stem("running"), "running");
}

TEST(AnalyzerTest, StemmersArePerThread) {
  Analyzer en("english", DefaultStopWords());
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      int good = 0;
      for (int i = 0; i < 2000; ++i) good += en.Stem(i % 2 ? "running" : "connections") == (i % 2 ? "run" : "connect");
      ok[t] = good;
    });
  }
  for (auto& th : threads) th.join();
  for (int v : ok) EXPECT_EQ(v, 2000);
}

TEST(AnalyzerTest, NormalizeQueryWords) {
  Analyzer a("english", DefaultStopWords());
  EXPECT_EQ(a.Normalize("Foo\\,Bar"), "foo,bar");
  EXPECT_EQ(a.Normalize("HeLLo"), "hello");
}

}  // namespace
}  // namespace hotkv::search

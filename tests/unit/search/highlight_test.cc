// search/highlight: RediSearch 2.10's fragments and context cuts (expected strings read
// from the reference on the same text).
#include "search/highlight.h"

#include <gtest/gtest.h>

namespace hotkv::search {
namespace {

const char* kLong =
    "The quick brown fox jumps over the lazy dog. Foxes are clever animals and they hunt at "
    "night. The dog sleeps all day long while the fox runs around the farm looking for "
    "chickens to eat.";

std::vector<MatchedTerm> FoxTerms() {
  return {MatchedTerm{"fox", 1, 1.0}, MatchedTerm{"+fox", 2, 1.0}};
}

TEST(HighlightTest, HighlightWholeField) {
  Analyzer an("english", DefaultStopWords());
  HighlightSettings s;
  s.highlight = true;
  auto v = HighlightText(an, true, true, "hello fox world", FoxTerms(), s);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, "hello <b>fox</b> world");
  // No match: left as it is.
  EXPECT_FALSE(HighlightText(an, true, true, "nothing here", FoxTerms(), s).has_value());
  // Not a TEXT field: never highlighted.
  EXPECT_FALSE(HighlightText(an, false, true, "fox", FoxTerms(), s).has_value());
}

TEST(HighlightTest, SummarizeFragmentsAndContext) {
  Analyzer an("english", DefaultStopWords());
  HighlightSettings s;
  s.summarize = true;
  EXPECT_EQ(*HighlightText(an, true, true, kLong, FoxTerms(), s),
            "quick brown fox jumps over the lazy dog. Foxes are clever animals and they hunt "
            "at night. The... they hunt at night. The dog sleeps all day long while the fox "
            "runs around the farm looking for chickens to eat... ");
  EXPECT_EQ(*HighlightText(an, true, true, "foxy fox", FoxTerms(), s), "fox... ");
  EXPECT_EQ(*HighlightText(an, true, true, "hello fox world", FoxTerms(), s), "fox ... ");
  s.frags = 1;
  s.len = 5;
  EXPECT_EQ(*HighlightText(an, true, true, kLong, FoxTerms(), s),
            "fox jumps over the lazy dog. Foxes ... ");
}

TEST(HighlightTest, SummarizeWithoutMatchTrims) {
  Analyzer an("english", DefaultStopWords());
  HighlightSettings s;
  s.summarize = true;
  EXPECT_EQ(*HighlightText(an, true, true, "Nothing relevant here at all", FoxTerms(), s),
            "Nothing relevant here at");
  EXPECT_EQ(*HighlightText(an, false, true, "35", FoxTerms(), s), "3");
  s.frags = 0;
  EXPECT_EQ(*HighlightText(an, false, true, "fox here too", {}, s), "fox");
  // Huge settings never overflow into a short cut.
  s.frags = UINT64_MAX;
  s.len = UINT64_MAX;
  EXPECT_EQ(*HighlightText(an, false, true, "a b c", {}, s), "a b");
  EXPECT_FALSE(HighlightText(an, true, true, "", FoxTerms(), HighlightSettings{}).has_value());
}

}  // namespace
}  // namespace hotkv::search

// The inverted index: every match kind, phrases and slop from positions, stemming,
// removal, expansion limits, and the scorers' values against Redis 8.8 + RediSearch 2.10
// (the expected numbers are the peer's FT.SEARCH ... WITHSCORES SCORER x replies).
#include <gtest/gtest.h>

#include <map>

#include "search/text_index.h"

namespace hotkv::search {
namespace {

std::unique_ptr<QueryNode> Node(NodeKind kind, std::string term = "") {
  auto n = std::make_unique<QueryNode>();
  n->kind = kind;
  n->term = std::move(term);
  return n;
}
std::unique_ptr<QueryNode> Term(std::string t) { return Node(NodeKind::kTerm, std::move(t)); }
std::unique_ptr<QueryNode> Phrase(std::vector<std::string> words) {
  auto n = Node(NodeKind::kPhrase);
  n->phrase_terms = std::move(words);
  return n;
}
template <typename... T>
std::unique_ptr<QueryNode> Agg(NodeKind kind, T... children) {
  auto n = Node(kind);
  (n->children.push_back(std::move(children)), ...);
  return n;
}

class TextIndexTest : public ::testing::Test {
 protected:
  TextIndexTest() : analyzer_("english", DefaultStopWords()), index_(&analyzer_, true) {}

  // field bit 0: t (weight 1), bit 1: u (weight 2).
  void AddDoc(DocId id, std::string_view t, std::string_view u = {}) {
    std::vector<TextFieldValue> f;
    if (!t.empty()) f.push_back(TextFieldValue{0, 1.0, false, t});
    if (!u.empty()) f.push_back(TextFieldValue{1, 2.0, false, u});
    index_.Add(id, f);
  }

  std::map<DocId, double> Run(const QueryNode& n, Scorer s = Scorer::kTfIdf, uint64_t mask = ~0ull,
                              bool verbatim = false, size_t max_exp = 200, size_t num_docs = 0) {
    std::map<DocId, double> out;
    ScoredDocs docs = index_.Match(n, mask, s, verbatim, max_exp, num_docs);
    for (size_t i = 1; i < docs.size(); ++i) EXPECT_LT(docs[i - 1].doc, docs[i].doc);
    for (auto& d : docs) out[d.doc] = d.score;
    return out;
  }
  std::vector<DocId> Ids(const QueryNode& n, bool verbatim = false, size_t max_exp = 200) {
    std::vector<DocId> ids;
    for (auto& [d, s] : Run(n, Scorer::kTfIdf, ~0ull, verbatim, max_exp)) ids.push_back(d);
    return ids;
  }

  Analyzer analyzer_;
  TextIndex index_;
};

using DocList = std::vector<DocId>;


class PeerScoresTest : public TextIndexTest {
 protected:
  void SetUp() override {
    AddDoc(1, "hello world");
    AddDoc(2, "hello hello foo");
    AddDoc(3, "bar baz qux quux");
    AddDoc(4, "running dogs", "hello kitty");
    AddDoc(5, "run run run fast");
  }
  void Expect(const QueryNode& n, Scorer s, std::map<DocId, double> want) {
    auto got = Run(n, s);
    ASSERT_EQ(got.size(), want.size());
    for (auto& [d, v] : want) {
      ASSERT_TRUE(got.count(d)) << d;
      EXPECT_NEAR(got[d], v, 1e-9) << "doc " << d;
    }
  }
};

TEST_F(PeerScoresTest, SingleTerm) {
  auto q = Term("hello");
  Expect(*q, Scorer::kTfIdf, {{1, 1}, {2, 1}, {4, 1}});
  Expect(*q, Scorer::kTfIdfDocNorm, {{1, 0.5}, {2, 0.6666666666666666}, {4, 0.3333333333333333}});
  Expect(*q, Scorer::kBm25, {{1, 0.25773195116106157}, {2, 0.40983605596270195}, {4, 0.40983605596270195}});
  Expect(*q, Scorer::kBm25Std, {{1, 0.6189575331385152}, {2, 0.7715772027900205}, {4, 0.6685476036700909}});
  Expect(*q, Scorer::kDisMax, {{1, 1}, {2, 2}, {4, 2}});
  Expect(*q, Scorer::kDocScore, {{1, 1}, {2, 1}, {4, 1}});
  auto w = Term("World");
  Expect(*w, Scorer::kTfIdf, {{1, 2}});
  Expect(*w, Scorer::kBm25, {{1, 0.5154639023221231}});
  Expect(*w, Scorer::kBm25Std, {{1, 1.5919534189583076}});
}

TEST_F(PeerScoresTest, StemExpansions) {
  auto running = Term("running");
  Expect(*running, Scorer::kTfIdf, {{4, 2}, {5, 2}});
  Expect(*running, Scorer::kTfIdfDocNorm, {{4, 0.6666666666666666}, {5, 1.5}});
  Expect(*running, Scorer::kBm25, {{4, 1.0309278046442463}, {5, 1.0204081434053665}});
  Expect(*running, Scorer::kBm25Std, {{4, 2.3945084360366775}, {5, 2.1622054059932148}});
  Expect(*running, Scorer::kDisMax, {{4, 1}, {5, 3}});
  auto run = Term("run");
  Expect(*run, Scorer::kTfIdf, {{4, 1}, {5, 2}});
  Expect(*run, Scorer::kTfIdfDocNorm, {{4, 0.3333333333333333}, {5, 1.5}});
  Expect(*run, Scorer::kBm25, {{4, 0.5154639023221231}, {5, 1.0204081434053665}});
  Expect(*run, Scorer::kBm25Std, {{4, 1.1972542180183388}, {5, 2.1622054059932148}});
  Expect(*run, Scorer::kDisMax, {{4, 1}, {5, 3}});
}

TEST_F(PeerScoresTest, IntersectionsPhrasesUnionsPrefixes) {
  auto hw = Agg(NodeKind::kIntersect, Term("hello"), Term("world"));
  Expect(*hw, Scorer::kTfIdf, {{1, 3}});
  Expect(*hw, Scorer::kTfIdfDocNorm, {{1, 1.5}});
  Expect(*hw, Scorer::kBm25, {{1, 0.7731958534831846}});
  Expect(*hw, Scorer::kBm25Std, {{1, 2.210910952096823}});
  Expect(*hw, Scorer::kDisMax, {{1, 2}});
  auto phrase = Phrase({"hello", "world"});
  Expect(*phrase, Scorer::kTfIdf, {{1, 3}});
  Expect(*phrase, Scorer::kBm25Std, {{1, 2.210910952096823}});
  // Two words 3 apart: TFIDF and BM25 divide by the distance.
  auto bq = Agg(NodeKind::kIntersect, Term("bar"), Term("quux"));
  Expect(*bq, Scorer::kTfIdf, {{3, 1.3333333333333333}});
  Expect(*bq, Scorer::kTfIdfDocNorm, {{3, 0.3333333333333333}});
  Expect(*bq, Scorer::kBm25, {{3, 0.34364260154808207}});
  Expect(*bq, Scorer::kBm25Std, {{3, 2.73335397547172}});
  Expect(*bq, Scorer::kDisMax, {{3, 2}});
  auto hu = Agg(NodeKind::kUnion, Term("hello"), Term("world"));
  Expect(*hu, Scorer::kTfIdf, {{1, 3}, {2, 1}, {4, 1}});
  Expect(*hu, Scorer::kBm25, {{1, 0.7731958534831846}, {2, 0.40983605596270195}, {4, 0.40983605596270195}});
  Expect(*hu, Scorer::kBm25Std, {{1, 2.210910952096823}, {2, 0.7715772027900205}, {4, 0.6685476036700909}});
  Expect(*hu, Scorer::kDisMax, {{1, 1}, {2, 2}, {4, 2}});
  auto hel = Node(NodeKind::kPrefix, "hel");
  Expect(*hel, Scorer::kTfIdf, {{1, 1}, {2, 1}, {4, 1}});
  Expect(*hel, Scorer::kBm25Std, {{1, 0.6189575331385152}, {2, 0.7715772027900205}, {4, 0.6685476036700909}});
}

// Peer: t "running dogs quickly", "quick brown fox", "the dogs run and the dog runs", and
// "Straße STRASSE İstanbul". Unions inside intersections and expansion unions keep
// RediSearch's iterator behaviour (see text_query.cc).
class PeerIteratorScoresTest : public PeerScoresTest {
 protected:
  void SetUp() override {
    AddDoc(1, "running dogs quickly");
    AddDoc(2, "quick brown fox");
    AddDoc(3, "the dogs run and the dog runs");
    AddDoc(4, "Straße STRASSE İstanbul");
  }
};

TEST_F(PeerIteratorScoresTest, ExpansionsInsideIntersections) {
  auto rd = Agg(NodeKind::kIntersect, Term("running"), Term("dogs"));
  Expect(*rd, Scorer::kTfIdf, {{1, 5}, {3, 5}});
  Expect(*rd, Scorer::kTfIdfDocNorm, {{1, 1.6666666666666667}, {3, 1.25}});
  Expect(*rd, Scorer::kBm25, {{1, 1.4084506640238472}, {3, 1.4084506640238472}});
  Expect(*rd, Scorer::kBm25Std, {{1, 3.353773201794052}, {3, 3.0890016287322197}});
  Expect(*rd, Scorer::kDisMax, {{1, 2}, {3, 2}});
  auto dr = Agg(NodeKind::kIntersect, Term("dogs"), Term("run"));
  Expect(*dr, Scorer::kTfIdf, {{1, 3}, {3, 6}});
  Expect(*dr, Scorer::kTfIdfDocNorm, {{1, 1}, {3, 1.5}});
  Expect(*dr, Scorer::kBm25, {{1, 0.8450703984143084}, {3, 1.6901407968286168}});
  Expect(*dr, Scorer::kBm25Std, {{1, 2.1240010041093407}, {3, 3.5695809755153043}});
  Expect(*dr, Scorer::kDisMax, {{1, 2}, {3, 2}});
}

TEST_F(PeerIteratorScoresTest, ExpansionUnionsKeepTheFirstTerm) {
  auto dog = Node(NodeKind::kPrefix, "dog");
  Expect(*dog, Scorer::kTfIdf, {{1, 1}, {3, 2}});
  Expect(*dog, Scorer::kTfIdfDocNorm, {{1, 0.3333333333333333}, {3, 0.5}});
  Expect(*dog, Scorer::kBm25, {{1, 0.28169013280476946}, {3, 0.5633802656095389}});
  Expect(*dog, Scorer::kBm25Std, {{1, 0.7080003347031135}, {3, 1.1326849172703684}});
  Expect(*dog, Scorer::kDisMax, {{1, 1}, {3, 1}});
  auto fz = Node(NodeKind::kFuzzy, "dog");
  Expect(*fz, Scorer::kTfIdf, {{1, 1}, {3, 1}});
  Expect(*fz, Scorer::kTfIdfDocNorm, {{1, 0.3333333333333333}, {3, 0.25}});
  Expect(*fz, Scorer::kBm25, {{1, 0.28169013280476946}, {3, 0.28169013280476946}});
  Expect(*fz, Scorer::kBm25Std, {{1, 0.7080003347031135}, {3, 0.6521055704872837}});
  EXPECT_EQ(Ids(*Node(NodeKind::kSuffix, "un")), (DocList{1, 3}));  // "+run"
  EXPECT_EQ(Ids(*Node(NodeKind::kFuzzy, "run")), (DocList{1, 3}));
}

TEST_F(PeerIteratorScoresTest, UnicodeFolding) {
  EXPECT_EQ(Ids(*Term("İstanbul")), (DocList{4}));
  EXPECT_EQ(Ids(*Term("i̇stanbul")), (DocList{4}));  // i + combining dot: İ's folding
  EXPECT_EQ(Ids(*Term("straße")), (DocList{4}));
  EXPECT_EQ(Ids(*Term("STRAẞE")), (DocList{4}));
}

TEST_F(TextIndexTest, WeightGoesToTheWordNotItsExpansions) {
  // Peer: HSET d:1 t "hello running fast", d:2 t zzz u yyy, d:3 t alpha u beta (weights 1).
  std::vector<TextFieldValue> f1{{0, 1.0, false, "hello running fast"}};
  std::vector<TextFieldValue> f2{{0, 1.0, false, "zzz"}, {1, 1.0, false, "yyy"}};
  std::vector<TextFieldValue> f3{{0, 1.0, false, "alpha"}, {1, 1.0, false, "beta"}};
  index_.Add(1, f1);
  index_.Add(2, f2);
  index_.Add(3, f3);
  auto hello = Term("hello");
  hello->weight = 2;
  EXPECT_NEAR(Run(*hello, Scorer::kBm25)[1], 1.3333332980120631, 1e-9);
  EXPECT_NEAR(Run(*hello, Scorer::kTfIdf)[1], 4, 1e-9);
  auto running = Term("running");
  EXPECT_NEAR(Run(*running, Scorer::kBm25)[1], 1.3333332980120631, 1e-9);
  running->weight = 2;
  EXPECT_NEAR(Run(*running, Scorer::kBm25)[1], 1.9999999470180947, 1e-9);
  // Positions continue across fields: the phrase spans t and u.
  EXPECT_EQ(Ids(*Phrase({"alpha", "beta"})), DocList{3});
  EXPECT_NEAR(Run(*Agg(NodeKind::kIntersect, Term("alpha"), Term("beta")))[3], 4, 1e-9);
}

TEST_F(TextIndexTest, TfIdfCountsTheDocTableLikeRediSearch) {
  // Peer: 2 docs -> TFIDF("hello") = 2 (idf = logb(1 + (N + 1) / df)); 6 docs -> 3.
  AddDoc(1, "hello");
  AddDoc(2, "world");
  EXPECT_NEAR(Run(*Term("hello"))[1], 2, 1e-12);
  for (DocId d = 3; d <= 6; ++d) AddDoc(d, "filler" + std::to_string(d));
  EXPECT_NEAR(Run(*Term("hello"))[1], 3, 1e-12);
  index_.Remove(6);
  EXPECT_NEAR(Run(*Term("hello"))[1], 2, 1e-12);
  // num_docs from the caller (documents without text count).
  EXPECT_NEAR(Run(*Term("hello"), Scorer::kTfIdf, ~0ull, false, 200, 6)[1], 3, 1e-12);
}

TEST_F(TextIndexTest, StemmingBothWays) {
  AddDoc(1, "I was running home");
  AddDoc(2, "we run");
  AddDoc(3, "runs and ran");
  EXPECT_EQ(Ids(*Term("running")), (DocList{1, 2, 3}));
  EXPECT_EQ(Ids(*Term("run")), (DocList{1, 2, 3}));
  EXPECT_EQ(Ids(*Term("ran")), (DocList{3}));
  EXPECT_EQ(Ids(*Term("running"), /*verbatim=*/true), (DocList{1}));
  auto v = Term("run");
  v->verbatim = true;
  EXPECT_EQ(Ids(*v), (DocList{2}));
  // NOSTEM fields index the word only.
  index_.Add(4, {TextFieldValue{0, 1.0, true, "jumping"}});
  index_.Add(5, {TextFieldValue{0, 1.0, false, "jumping"}});
  EXPECT_EQ(Ids(*Term("jump")), (DocList{5}));
  EXPECT_EQ(Ids(*Term("jumping")), (DocList{4, 5}));
}

TEST_F(TextIndexTest, EveryExpansionKind) {
  AddDoc(1, "hello help");
  AddDoc(2, "yellow fellow");
  AddDoc(3, "shell");
  AddDoc(4, "Ünïcödé");
  EXPECT_EQ(Ids(*Node(NodeKind::kPrefix, "HEL")), (DocList{1}));
  EXPECT_EQ(Ids(*Node(NodeKind::kPrefix, "ünï")), (DocList{4}));
  EXPECT_EQ(Ids(*Node(NodeKind::kSuffix, "llow")), (DocList{2}));
  EXPECT_EQ(Ids(*Node(NodeKind::kSuffix, "ell")), (DocList{3}));
  EXPECT_EQ(Ids(*Node(NodeKind::kInfix, "ell")), (DocList{1, 2, 3}));
  EXPECT_EQ(Ids(*Node(NodeKind::kWildcard, "h?l*")), (DocList{1}));
  EXPECT_EQ(Ids(*Node(NodeKind::kWildcard, "*ll?w")), (DocList{2}));
  EXPECT_EQ(Ids(*Node(NodeKind::kWildcard, "?n?c?d?")), (DocList{4}));
  auto fz = Node(NodeKind::kFuzzy, "helo");
  EXPECT_EQ(Ids(*fz), (DocList{1}));  // hello (insert), help (substitute)
  fz->term = "jello";
  EXPECT_EQ(Ids(*fz), (DocList{1}));
  fz->term = "shelf";
  EXPECT_EQ(Ids(*fz), (DocList{3}));
  fz->term = "yelp";
  EXPECT_EQ(Ids(*fz), (DocList{1}));  // help
  fz->fuzzy_distance = 3;
  EXPECT_EQ(Ids(*fz), (DocList{1, 2, 3}));  // yellow is 3 edits from yelp, shell 3
  fz->term = "ünicode";
  fz->fuzzy_distance = 3;
  EXPECT_EQ(Ids(*fz), (DocList{4}));  // 3 code points differ (6 bytes)
  fz->term = "unicode";
  EXPECT_EQ(Ids(*fz), DocList{});
  // As RediSearch: swapping the last two letters costs one edit, other swaps two.
  AddDoc(6, "bda");
  AddDoc(7, "abd");
  fz->term = "bad";
  fz->fuzzy_distance = 1;
  EXPECT_EQ(Ids(*fz), (DocList{6}));
  // Stems ("+dog") are expansion candidates, as in RediSearch's trie ("*og" finds "dogs").
  AddDoc(5, "dogs");
  EXPECT_EQ(Ids(*Node(NodeKind::kSuffix, "og")), (DocList{5}));
  EXPECT_EQ(index_.TermsWithPrefix("", 100).size(), 9u);  // but not listed: no "+dog"
}

TEST_F(TextIndexTest, ExpansionsStopAtTheLimit) {
  for (DocId d = 0; d < 50; ++d) AddDoc(d, "term" + std::to_string(100 + d));
  EXPECT_EQ(Ids(*Node(NodeKind::kPrefix, "term"), false, 10).size(), 10u);
  EXPECT_EQ(Ids(*Node(NodeKind::kPrefix, "term"), false, 200).size(), 50u);
  EXPECT_EQ(Ids(*Node(NodeKind::kInfix, "erm"), false, 7).size(), 7u);
  EXPECT_EQ(Ids(*Node(NodeKind::kFuzzy, "term100"), false, 3).size(), 3u);
  EXPECT_EQ(index_.TermsWithPrefix("term1", 5).size(), 5u);
}

TEST_F(TextIndexTest, PhrasesSlopAndOrder) {
  AddDoc(1, "the quick brown fox");
  AddDoc(2, "brown quick fox");
  AddDoc(3, "quick red brown fox");
  AddDoc(4, "quick, brown");
  EXPECT_EQ(Ids(*Phrase({"quick", "brown"})), (DocList{1, 4}));
  EXPECT_EQ(Ids(*Phrase({"Quick", "the", "Brown"})), (DocList{1, 4}));  // stop words dropped
  EXPECT_EQ(Ids(*Phrase({"brown", "quick"})), (DocList{2}));
  EXPECT_EQ(Ids(*Phrase({"quick", "brown", "fox"})), (DocList{1}));
  auto slop1 = Phrase({"quick", "brown"});
  slop1->slop = 1;
  slop1->inorder = true;
  EXPECT_EQ(Ids(*slop1), (DocList{1, 3, 4}));
  auto unordered = Agg(NodeKind::kIntersect, Term("quick"), Term("brown"));
  unordered->slop = 0;
  EXPECT_EQ(Ids(*unordered), (DocList{1, 2, 4}));
  unordered->inorder = true;
  EXPECT_EQ(Ids(*unordered), (DocList{1, 4}));
  unordered->slop = -1;
  unordered->inorder = false;
  EXPECT_EQ(Ids(*unordered), (DocList{1, 2, 3, 4}));
  // Phrase words are not stem-expanded (RediSearch: "run fast" misses "running fast").
  AddDoc(5, "running fast");
  EXPECT_EQ(Ids(*Phrase({"run", "fast"})), DocList{});
  EXPECT_EQ(Ids(*Phrase({"running", "fast"})), (DocList{5}));
}

TEST_F(TextIndexTest, FieldMasks) {
  index_.SetFieldNames({"t", "u"});
  AddDoc(1, "apple", "banana");
  AddDoc(2, "banana", "apple");
  auto q = Term("apple");
  EXPECT_EQ(Run(*q, Scorer::kTfIdf, 1).size(), 1u);
  EXPECT_EQ(Run(*q, Scorer::kTfIdf, 1).begin()->first, 1u);
  EXPECT_EQ(Run(*q, Scorer::kTfIdf, 2).begin()->first, 2u);
  EXPECT_EQ(Run(*q, Scorer::kTfIdf, 3).size(), 2u);
  // A nested @u restriction narrows the mask.
  auto inner = Term("apple");
  inner->fields = {"u"};
  auto both = Agg(NodeKind::kIntersect, std::move(inner), Term("banana"));
  EXPECT_EQ(Ids(*both), (DocList{2}));
  auto unknown = Term("apple");
  unknown->fields = {"nope"};
  EXPECT_EQ(Ids(*unknown), DocList{});
}

TEST_F(TextIndexTest, RemoveAndReAdd) {
  AddDoc(1, "alpha beta gamma");
  AddDoc(2, "beta delta");
  EXPECT_EQ(Ids(*Term("beta")), (DocList{1, 2}));
  // Re-indexing replaces the old postings.
  AddDoc(1, "omega");
  EXPECT_EQ(Ids(*Term("beta")), (DocList{2}));
  EXPECT_EQ(Ids(*Term("alpha")), DocList{});
  EXPECT_EQ(Ids(*Term("omega")), (DocList{1}));
  index_.Remove(2);
  index_.Remove(2);  // twice is harmless
  EXPECT_EQ(Ids(*Term("beta")), DocList{});
  EXPECT_EQ(index_.Stats().num_terms, 1u);
  index_.Remove(1);
  TextIndexStats s = index_.Stats();
  EXPECT_EQ(s.num_terms, 0u);
  EXPECT_EQ(s.num_records, 0u);
  EXPECT_EQ(s.offsets_count, 0u);
  EXPECT_EQ(s.inverted_bytes, 0u);
  EXPECT_EQ(s.total_doc_tokens, 0u);
  EXPECT_TRUE(index_.TermsWithPrefix("", 10).empty());
}

TEST_F(TextIndexTest, ManyDocumentsAndBlockSplits) {
  // Insert out of order, remove every third, check each term's postings.
  const DocId n = 3000;
  for (DocId i = 0; i < n; ++i) {
    const DocId d = (i * 7919) % n;
    AddDoc(d, "common w" + std::to_string(d % 10) + (d % 2 ? " odd" : " even"));
  }
  for (DocId d = 0; d < n; d += 3) index_.Remove(d);
  auto common = Ids(*Term("common"));
  EXPECT_EQ(common.size(), n - (n + 2) / 3);
  for (DocId d : common) EXPECT_NE(d % 3, 0u);
  auto odd = Ids(*Term("odd"));
  for (DocId d : odd) EXPECT_EQ(d % 2, 1u);
  EXPECT_EQ(Ids(*Agg(NodeKind::kIntersect, Term("w5"), Term("odd"))).size(), Ids(*Term("w5")).size());
  EXPECT_EQ(index_.Stats().num_records, 3u * common.size());
  EXPECT_GT(index_.MemoryBytes(), index_.Stats().inverted_bytes);
}

TEST_F(TextIndexTest, NoOffsets) {
  TextIndex idx(&analyzer_, false);
  idx.Add(1, {TextFieldValue{0, 1.0, false, "quick brown"}});
  idx.Add(2, {TextFieldValue{0, 1.0, false, "brown quick"}});
  EXPECT_EQ(idx.Stats().offsets_count, 0u);
  // Without positions a phrase cannot be checked: it matches like an intersection.
  EXPECT_EQ(idx.Match(*Phrase({"quick", "brown"}), ~0ull, Scorer::kTfIdf, false, 200, 0).size(), 2u);
}

TEST_F(TextIndexTest, DocScoreAndCanMatch) {
  AddDoc(1, "hello");
  index_.SetDocScore(1, 0.5);
  EXPECT_NEAR(Run(*Term("hello"), Scorer::kDocScore)[1], 0.5, 1e-12);
  EXPECT_NEAR(Run(*Term("hello"), Scorer::kTfIdf)[1], 0.5, 1e-12);
  EXPECT_TRUE(TextIndex::CanMatch(*Agg(NodeKind::kUnion, Term("a"), Phrase({"b", "c"}))));
  EXPECT_FALSE(TextIndex::CanMatch(*Agg(NodeKind::kIntersect, Term("a"), Node(NodeKind::kTag))));
  EXPECT_FALSE(TextIndex::CanMatch(*Node(NodeKind::kNot)));
}

}  // namespace
}  // namespace hotkv::search

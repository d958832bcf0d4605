// SemanticCache (ai/semantic_cache.h) without a server: normalisation, exact before
// semantic, thresholds, filters, TTL refresh and expiry, LRU eviction, the change reports
// the write stream records, FLUSH, clone, snapshot/restore, and the scache RDB form
// through the extension registry.
#include "ai/semantic_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

#include "ai/scache_value.h"
#include "engine/extension_value.h"
#include "rdb/rdb.h"
#include "vector/filter_expr.h"

namespace hotkv::ai {
namespace {

using Change = SemanticCache::Change;

std::shared_ptr<SemanticCache> Make(SemanticCacheOptions o) {
  auto c = SemanticCache::Create(o);
  EXPECT_TRUE(c.ok());
  return c.value();
}

SemanticCacheOptions Opts(uint32_t dim = 2) {
  SemanticCacheOptions o;
  o.dim = dim;
  o.threshold = 0.9;
  return o;
}

// A unit vector at `deg` degrees in the plane: cosine similarity between two of them is
// 1 - (1 - cos(delta)) / 2.
std::vector<float> At(double deg) {
  const double r = deg * M_PI / 180.0;
  return {static_cast<float>(std::cos(r)), static_cast<float>(std::sin(r))};
}

uint64_t Put(SemanticCache& c, std::vector<float> v, std::string_view resp, int64_t now,
             std::optional<std::string_view> prompt = std::nullopt,
             std::optional<std::string_view> attrs = std::nullopt,
             std::optional<int64_t> ttl_ms = std::nullopt) {
  SemanticCache::SetRequest r;
  r.vec = v;
  r.response = resp;
  r.prompt = prompt;
  r.attrs = attrs;
  r.ttl_ms = ttl_ms;
  auto id = c.Set(r, now, {});
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : 0;
}

std::optional<SemanticCache::Hit> Lookup(SemanticCache& c, std::vector<float> v, int64_t now,
                                         std::optional<std::string_view> prompt = std::nullopt,
                                         std::optional<double> threshold = std::nullopt,
                                         const vector::AttributePredicate* filter = nullptr) {
  SemanticCache::GetRequest r;
  r.vec = v;
  r.prompt = prompt;
  r.threshold = threshold;
  r.filter = filter;
  auto h = c.Get(r, now, {});
  EXPECT_TRUE(h.ok());
  return h.ok() ? *h : std::nullopt;
}

TEST(SemanticCache, NormalizePrompt) {
  EXPECT_EQ(NormalizePrompt("  What IS\tthe   capital\nof France?  "), "what is the capital of france?");
  EXPECT_EQ(NormalizePrompt(""), "");
  EXPECT_EQ(NormalizePrompt(" \t "), "");
  EXPECT_EQ(NormalizePrompt("Ünïcode STAYS"), "Ünïcode stays");  // ASCII letters only
}

TEST(SemanticCache, CreateValidates) {
  SemanticCacheOptions o = Opts();
  o.dim = 0;
  EXPECT_FALSE(SemanticCache::Create(o).ok());
  o = Opts();
  o.threshold = 1.5;
  EXPECT_FALSE(SemanticCache::Create(o).ok());
  o.threshold = std::nan("");
  EXPECT_FALSE(SemanticCache::Create(o).ok());
}

TEST(SemanticCache, ThresholdDecidesSemanticHits) {
  auto c = Make(Opts());
  const uint64_t id = Put(*c, At(0), "paris", 1000);
  // 10 degrees: similarity 1 - (1 - cos 10°)/2 = 0.9924; 60 degrees: 0.75.
  auto h = Lookup(*c, At(10), 1000);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, id);
  EXPECT_EQ(h->response, "paris");
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kSemantic);
  EXPECT_NEAR(h->similarity, 1 - (1 - std::cos(10 * M_PI / 180)) / 2, 1e-5);
  EXPECT_FALSE(Lookup(*c, At(60), 1000).has_value());
  EXPECT_TRUE(Lookup(*c, At(60), 1000, std::nullopt, 0.74).has_value());
  EXPECT_FALSE(Lookup(*c, At(60), 1000, std::nullopt, 0.76).has_value());
  auto st = c->GetStats();
  EXPECT_EQ(st.hits_semantic, 2u);
  EXPECT_EQ(st.misses, 2u);
}

// Lookups search with a narrower beam than inserts (min(EF, 40)): every entry of a
// 1,500-entry cache of random 64-dim vectors is still found from a near-duplicate.
TEST(SemanticCache, NarrowLookupBeamFindsEveryNearDuplicate) {
  SemanticCacheOptions o = Opts(64);
  o.threshold = 0.95;
  auto c = Make(o);
  std::mt19937 rng(19);
  std::normal_distribution<float> g(0.0f, 1.0f);
  auto unit = [](std::vector<float> v) {
    double n = 0;
    for (float f : v) n += double(f) * f;
    for (float& f : v) f = static_cast<float>(f / std::sqrt(n));
    return v;
  };
  constexpr int kN = 1500;
  std::vector<std::vector<float>> vecs;
  for (int i = 0; i < kN; i++) {
    std::vector<float> v(64);
    for (float& f : v) f = g(rng);
    vecs.push_back(unit(v));
    ASSERT_EQ(Put(*c, vecs.back(), "r" + std::to_string(i), 0), uint64_t(i + 1));
  }
  int found = 0;
  for (int i = 0; i < kN; i++) {
    std::vector<float> q = vecs[i];
    for (float& f : q) f += 0.02f * g(rng);  // cosine ~0.99 with entry i
    auto h = Lookup(*c, unit(q), 0);
    found += h.has_value() && h->id == uint64_t(i + 1);
  }
  EXPECT_EQ(found, kN);
}

// A semantic lookup walks the ball of the threshold's radius first: with several
// entries in it, the nearest one (that passes the filter) is the hit.
TEST(SemanticCache, SemanticHitIsTheNearestEntryWithinTheThreshold) {
  auto c = Make(Opts());
  const uint64_t a = Put(*c, At(0), "a", 0, std::nullopt, R"({"k":"a"})");
  Put(*c, At(6), "b", 0, std::nullopt, R"({"k":"b"})");
  const uint64_t d = Put(*c, At(12), "d", 0, std::nullopt, R"({"k":"d"})");
  Put(*c, At(40), "far", 0, std::nullopt, R"({"k":"far"})");
  // 0.99 similarity: within 11.5 degrees. From 10 degrees: d at 2, b at 4, a at 10.
  auto h = Lookup(*c, At(10), 0, std::nullopt, 0.99);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, d);
  auto only_a = vector::FilterExpression::Compile(".k == \"a\"");
  ASSERT_TRUE(only_a.ok());
  h = Lookup(*c, At(10), 0, std::nullopt, 0.99, only_a.value().get());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, a);
  auto only_far = vector::FilterExpression::Compile(".k == \"far\"");
  EXPECT_FALSE(Lookup(*c, At(10), 0, std::nullopt, 0.99, only_far.value().get()).has_value());
  // A threshold so low that every entry is within it: still the nearest.
  h = Lookup(*c, At(38), 0, std::nullopt, 0.0001);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "far");
  const auto st = c->GetStats();
  EXPECT_EQ(st.hits_semantic, 3u);
  EXPECT_EQ(st.misses, 1u);
}

// A low threshold makes the radius walk's ball most of the graph; the walk is cut short
// and its nearest entry met is the hit: checked against brute force on random data.
TEST(SemanticCache, WideThresholdHitIsStillTheNearest) {
  constexpr int kDim = 8, kN = 3000, kQueries = 60;
  SemanticCacheOptions o = Opts(kDim);
  o.threshold = 0.001;
  auto c = Make(o);
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0.0f, 1.0f);
  auto unit = [](std::vector<float> v) {
    double n = 0;
    for (float f : v) n += double(f) * f;
    for (float& f : v) f = static_cast<float>(f / std::sqrt(n));
    return v;
  };
  std::vector<std::vector<float>> vecs;
  for (int i = 0; i < kN; i++) {
    std::vector<float> v(kDim);
    for (float& f : v) f = g(rng);
    vecs.push_back(unit(v));
    ASSERT_EQ(Put(*c, vecs.back(), "r", 0), uint64_t(i + 1));
  }
  int nearest = 0;
  for (int q = 0; q < kQueries; q++) {
    std::vector<float> v(kDim);
    for (float& f : v) f = g(rng);
    v = unit(v);
    double best = -2;
    uint64_t best_id = 0;
    for (int i = 0; i < kN; i++) {
      double dot = 0;
      for (int j = 0; j < kDim; j++) dot += double(v[j]) * vecs[i][j];
      if (dot > best) {
        best = dot;
        best_id = uint64_t(i + 1);
      }
    }
    auto h = Lookup(*c, v, 0);
    ASSERT_TRUE(h.has_value());
    nearest += h->id == best_id;
  }
  EXPECT_GE(nearest, kQueries * 9 / 10);
}

// In 256 dimensions (a lookup's first walk measures the entries' Q8 sketches, then the
// few nearest exactly): a threshold exactly at an entry's similarity hits it, one just
// above misses it, with and without FILTER; an expired entry is never the hit, however
// near.
TEST(SemanticCache, SketchWalkThresholdEdgesWithFilterAndExpiry) {
  constexpr int kDim = 256;
  auto c = Make(Opts(kDim));
  std::mt19937 rng(31);
  std::normal_distribution<float> g(0.0f, 1.0f);
  auto unit = [](std::vector<float> v) {
    double n = 0;
    for (float f : v) n += double(f) * f;
    for (float& f : v) f = static_cast<float>(f / std::sqrt(n));
    return v;
  };
  auto noisy = [&](const std::vector<float>& v, float s) {
    std::vector<float> o = v;
    for (float& f : o) f += s * g(rng);
    return unit(o);
  };
  std::vector<float> base(kDim);
  for (float& f : base) f = g(rng);
  base = unit(base);
  // alice's entry is the query's near-duplicate, bob's a farther one, carol's expires.
  const std::vector<float> query = noisy(base, 0.02f);
  const uint64_t alice = Put(*c, noisy(base, 0.01f), "alice", 0, std::nullopt, R"({"user":"alice"})");
  const uint64_t bob = Put(*c, noisy(base, 0.03f), "bob", 0, std::nullopt, R"({"user":"bob"})");
  for (int i = 0; i < 500; i++) {
    std::vector<float> v(kDim);
    for (float& f : v) f = g(rng);
    Put(*c, unit(v), "other", 0, std::nullopt, R"({"user":"zed"})");
  }
  auto a = Lookup(*c, query, 0, std::nullopt, 0.0001);
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->id, alice);
  auto only_bob = vector::FilterExpression::Compile(".user == \"bob\"");
  ASSERT_TRUE(only_bob.ok());
  auto b = Lookup(*c, query, 0, std::nullopt, 0.0001, only_bob.value().get());
  ASSERT_TRUE(b.has_value());
  ASSERT_EQ(b->id, bob);
  const double sa = a->similarity, sb = b->similarity;
  ASSERT_GT(sa, sb);
  ASSERT_GT(sb, 0.8);  // far above the other entries (~0.5)
  // Exactly at alice's similarity: alice; just above: nothing (bob is farther).
  auto h = Lookup(*c, query, 0, std::nullopt, sa);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, alice);
  EXPECT_EQ(h->similarity, sa);
  EXPECT_FALSE(Lookup(*c, query, 0, std::nullopt, sa + 1e-5).has_value());
  // Between the two: alice, and with the filter nothing.
  const double mid = (sa + sb) / 2;
  h = Lookup(*c, query, 0, std::nullopt, mid);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, alice);
  EXPECT_FALSE(Lookup(*c, query, 0, std::nullopt, mid, only_bob.value().get()).has_value());
  // At bob's similarity with the filter: bob; just above: nothing.
  h = Lookup(*c, query, 0, std::nullopt, sb, only_bob.value().get());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, bob);
  EXPECT_FALSE(Lookup(*c, query, 0, std::nullopt, sb + 1e-5, only_bob.value().get()).has_value());
  // carol: nearer than alice, with a TTL; once expired, alice is the hit again.
  const uint64_t carol =
      Put(*c, noisy(query, 0.002f), "carol", 0, std::nullopt, R"({"user":"carol"})", 1000);
  h = Lookup(*c, query, 10, std::nullopt, mid);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, carol);
  for (int64_t now : {1010 + 1000, 5000}) {
    h = Lookup(*c, query, now, std::nullopt, mid);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->id, alice);
  }
  EXPECT_FALSE(c->Delete(carol, 6000, {}));
}

// Lookups on two threads while a third adds and deletes other entries: every lookup of a
// near-duplicate of a stable entry hits that entry, with its own response.
TEST(SemanticCache, ConcurrentLookupsWhileEntriesChurn) {
  constexpr int kDim = 32, kStable = 400, kLookups = 400, kChurn = 400;
  SemanticCacheOptions o = Opts(kDim);
  o.threshold = 0.95;
  auto c = Make(o);
  std::mt19937 rng(23);
  std::normal_distribution<float> g(0.0f, 1.0f);
  auto unit = [](std::vector<float> v) {
    double n = 0;
    for (float f : v) n += double(f) * f;
    for (float& f : v) f = static_cast<float>(f / std::sqrt(n));
    return v;
  };
  auto random_unit = [&](std::mt19937& r) {
    std::vector<float> v(kDim);
    for (float& f : v) f = g(r);
    return unit(v);
  };
  std::vector<std::vector<float>> stable;
  for (int i = 0; i < kStable; i++) {
    stable.push_back(random_unit(rng));
    ASSERT_EQ(Put(*c, stable.back(), "s" + std::to_string(i), 0), uint64_t(i + 1));
  }
  std::atomic<int> wrong{0}, missed{0};
  auto reader = [&](uint32_t seed) {
    std::mt19937 r(seed);
    std::normal_distribution<float> n(0.0f, 1.0f);
    for (int k = 0; k < kLookups; k++) {
      const int i = static_cast<int>(r() % kStable);
      std::vector<float> q = stable[i];
      for (float& f : q) f += 0.02f * n(r);
      SemanticCache::GetRequest req;
      std::vector<float> qu = unit(q);
      req.vec = qu;
      auto h = c->Get(req, 0, {});
      if (!h.ok() || !h->has_value()) {
        missed++;
      } else if ((*h)->id != uint64_t(i + 1) || (*h)->response != "s" + std::to_string(i)) {
        wrong++;
      }
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  std::thread writer([&] {
    std::mt19937 r(3);
    std::vector<uint64_t> added;
    for (int k = 0; k < kChurn; k++) {
      if (k % 3 == 2 && !added.empty()) {
        c->Delete(added.back(), 0, {});
        added.pop_back();
        continue;
      }
      SemanticCache::SetRequest s;
      std::vector<float> v = random_unit(r);
      s.vec = v;
      s.response = "churn";
      auto id = c->Set(s, 0, {});
      if (id.ok()) added.push_back(*id);
    }
  });
  r1.join();
  r2.join();
  writer.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(missed.load(), 0);
  const auto st = c->GetStats();
  EXPECT_EQ(st.hits_semantic, uint64_t(2 * kLookups));
}

TEST(SemanticCache, ExactPromptWinsWithoutSearch) {
  auto c = Make(Opts());
  Put(*c, At(0), "near", 1000, "other prompt");
  const uint64_t far = Put(*c, At(120), "exact", 1000, "What is  HotKV?");
  // The vector is nearest "near", but the normalised prompt matches "exact".
  auto h = Lookup(*c, At(0), 1000, std::string_view("what is hotkv?"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->id, far);
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kExact);
  EXPECT_EQ(h->similarity, 1.0);
  ASSERT_TRUE(h->prompt.has_value());
  EXPECT_EQ(*h->prompt, "What is  HotKV?");
  // An unknown prompt falls back to the semantic strategy.
  h = Lookup(*c, At(0), 1000, std::string_view("something else"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "near");
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kSemantic);
  EXPECT_EQ(c->GetStats().hits_exact, 1u);
}

TEST(SemanticCache, SamePromptAndAttrsReplaces) {
  auto c = Make(Opts());
  const uint64_t a = Put(*c, At(0), "v1", 1000, "q", R"({"user":"a"})");
  const uint64_t b = Put(*c, At(0), "v1-b", 1000, "q", R"({"user":"b"})");
  const uint64_t a2 = Put(*c, At(0), "v2", 1000, "q", R"({"user":"a"})");
  EXPECT_NE(a, a2);
  EXPECT_EQ(c->size(), 2u);
  EXPECT_FALSE(c->Delete(a, 1000, {}));
  EXPECT_TRUE(c->Delete(b, 1000, {}));
}

TEST(SemanticCache, FilterAppliesToBothStrategies) {
  auto c = Make(Opts());
  Put(*c, At(0), "for alice", 1000, "hi", R"({"user":"alice"})");
  Put(*c, At(1), "for bob", 1000, "hi", R"({"user":"bob"})");
  Put(*c, At(2), "no attrs", 1000);
  auto bob = vector::FilterExpression::Compile(".user == \"bob\"");
  ASSERT_TRUE(bob.ok());
  auto h = Lookup(*c, At(0), 1000, std::string_view("hi"), std::nullopt, bob.value().get());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "for bob");
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kExact);
  h = Lookup(*c, At(0), 1000, std::nullopt, std::nullopt, bob.value().get());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "for bob");
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kSemantic);
  auto carol = vector::FilterExpression::Compile(".user == \"carol\"");
  EXPECT_FALSE(Lookup(*c, At(0), 1000, std::string_view("hi"), std::nullopt, carol.value().get()));
}

TEST(SemanticCache, TtlRefreshOnHitAndExpiry) {
  SemanticCacheOptions o = Opts();
  o.ttl_ms = 10000;
  auto c = Make(o);
  const uint64_t id = Put(*c, At(0), "r", 0);
  Put(*c, At(90), "no ttl", 0, std::nullopt, std::nullopt, 0);
  // A hit at 9 s pushes the expiry to 19 s.
  ASSERT_TRUE(Lookup(*c, At(0), 9000).has_value());
  ASSERT_TRUE(Lookup(*c, At(0), 18999).has_value());  // now to 28999
  EXPECT_FALSE(Lookup(*c, At(0), 29000).has_value());
  EXPECT_EQ(c->size(), 1u);  // left the maps (and the index)
  EXPECT_EQ(c->GetStats().expirations, 1u);
  EXPECT_FALSE(c->Delete(id, 29000, {}));
  ASSERT_TRUE(Lookup(*c, At(90), 1000000000).has_value());
}

TEST(SemanticCache, ExpiredEntryNeverReturnedEvenIfNearest) {
  SemanticCacheOptions o = Opts();
  auto c = Make(o);
  Put(*c, At(0), "short", 0, "p", std::nullopt, 1000);
  Put(*c, At(5), "long", 0, std::nullopt, std::nullopt, 100000);
  auto h = Lookup(*c, At(0), 5000, std::string_view("p"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "long");
  EXPECT_EQ(c->size(), 1u);
}

TEST(SemanticCache, EvictsLeastRecentlyHit) {
  SemanticCacheOptions o = Opts();
  o.max_entries = 3;
  auto c = Make(o);
  std::vector<Change> changes;
  auto rec = [&](const Change& ch) { changes.push_back(ch); };
  const uint64_t a = Put(*c, At(0), "a", 0);
  const uint64_t b = Put(*c, At(90), "b", 0);
  const uint64_t d = Put(*c, At(180), "d", 0);
  ASSERT_TRUE(Lookup(*c, At(0), 1).has_value());  // a is now the most recent
  SemanticCache::SetRequest r;
  std::vector<float> v = At(270);
  r.vec = v;
  r.response = "e";
  auto e = c->Set(r, 2, rec);
  ASSERT_TRUE(e.ok());
  // b was the least recently hit or set.
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].kind, Change::Kind::kDel);
  EXPECT_EQ(changes[0].id, b);
  EXPECT_EQ(changes[1].kind, Change::Kind::kSet);
  EXPECT_EQ(changes[1].id, *e);
  EXPECT_EQ(c->size(), 3u);
  EXPECT_EQ(c->GetStats().evictions, 1u);
  EXPECT_FALSE(Lookup(*c, At(90), 3, std::nullopt, 0.99).has_value());
  EXPECT_TRUE(c->Delete(a, 3, {}));
  EXPECT_TRUE(c->Delete(d, 3, {}));
}

TEST(SemanticCache, ReportsTouchOnHitAndReplayIds) {
  SemanticCacheOptions o = Opts();
  o.ttl_ms = 1000;
  auto c = Make(o);
  std::vector<Change> changes;
  auto rec = [&](const Change& ch) { changes.push_back(ch); };
  SemanticCache::SetRequest r;
  std::vector<float> v = At(0);
  r.vec = v;
  r.response = "x";
  r.id = 42;
  r.expire_at_ms = 5000;
  ASSERT_EQ(*c->Set(r, 100, rec), 42u);
  ASSERT_EQ(changes.back().expire_at_ms, 5000);
  r.id = 42;
  EXPECT_FALSE(c->Set(r, 100, rec).ok());  // id in use
  r.id.reset();
  r.expire_at_ms.reset();
  EXPECT_EQ(*c->Set(r, 100, rec), 43u);  // ids continue after the largest
  SemanticCache::GetRequest g;
  g.vec = v;
  changes.clear();
  ASSERT_TRUE(c->Get(g, 200, rec).ok());
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, Change::Kind::kTouch);
  EXPECT_EQ(changes[0].expire_at_ms, 1200);
  // A replayed entry already past its expiry is never added.
  r.id = 50;
  r.expire_at_ms = 150;
  ASSERT_TRUE(c->Set(r, 200, {}).ok());
  EXPECT_EQ(c->size(), 2u);
}

TEST(SemanticCache, BadInputChangesNothing) {
  auto c = Make(Opts());
  SemanticCache::SetRequest r;
  std::vector<float> three = {1, 2, 3};
  r.vec = three;
  r.response = "x";
  EXPECT_FALSE(c->Set(r, 0, {}).ok());
  std::vector<float> nan = {1, std::nanf("")};
  r.vec = nan;
  EXPECT_FALSE(c->Set(r, 0, {}).ok());
  EXPECT_EQ(c->size(), 0u);
  SemanticCache::GetRequest g;
  g.vec = three;
  EXPECT_FALSE(c->Get(g, 0, {}).ok());
}

TEST(SemanticCache, FlushCloneSnapshot) {
  SemanticCacheOptions o = Opts();
  o.ttl_ms = 60000;
  auto c = Make(o);
  Put(*c, At(0), "a", 0, "pa", R"({"k":1})");
  Put(*c, At(90), "b", 0);
  ASSERT_TRUE(Lookup(*c, At(0), 10).has_value());  // a most recent, expiry 60010
  auto copy = c->Clone();
  EXPECT_EQ(copy->size(), 2u);
  auto snap = c->TakeSnapshot();
  ASSERT_EQ(snap.entries.size(), 2u);
  EXPECT_EQ(snap.entries[0].response, "b");  // oldest first
  EXPECT_EQ(snap.entries[1].expire_at_ms, 60010);
  EXPECT_EQ(c->Flush(), 2u);
  EXPECT_EQ(c->size(), 0u);
  EXPECT_FALSE(Lookup(*c, At(0), 20).has_value());
  EXPECT_TRUE(Lookup(*copy, At(90), 20).has_value());
  auto restored = Make(o);
  ASSERT_TRUE(restored->Restore(snap).ok());
  auto h = Lookup(*restored, At(0), 20, std::string_view("PA"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->strategy, SemanticCache::Strategy::kExact);
  EXPECT_EQ(*h->attrs, R"({"k":1})");
}

struct EntryDeleter {
  void operator()(Entry* e) const { Entry::Free(e); }
};

TEST(ScacheValue, DumpPayloadRoundTrip) {
  RegisterExtensionType(&ScacheType());
  SemanticCacheOptions o = Opts();
  o.max_entries = 10;
  o.metric = vector::Metric::kL2;
  auto c = Make(o);
  Put(*c, At(0), "a", 0, "pa", R"({"k":1})", 5000);
  Put(*c, At(90), std::string(1000, 'z'), 0);
  std::unique_ptr<Entry, EntryDeleter> e(NewExtensionEntry("k", std::make_unique<ScacheValue>(c), false));
  EXPECT_EQ(TypeName(*e), "scache");
  std::string p = rdb::DumpPayload(*e, true);
  ASSERT_TRUE(rdb::VerifyDumpPayload(p));
  auto back = rdb::LoadDumpPayload(p, "k", {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  std::unique_ptr<Entry, EntryDeleter> b(*back);
  auto* v = static_cast<ScacheValue*>(AsExtension(*b));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shared()->options().metric, vector::Metric::kL2);
  EXPECT_EQ(v->shared()->options().max_entries, 10u);
  EXPECT_EQ(v->shared()->size(), 2u);
  auto h = Lookup(*v->shared(), At(0), 100, std::string_view("pa"));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->response, "a");
  // Corrupt payloads are refused, never crash.
  for (size_t cut = 1; cut < p.size() - 10; cut += 7) {
    std::string q = p.substr(0, p.size() - 10 - cut) + p.substr(p.size() - 10, 2);
    const uint64_t crc = rdb::Crc64(0, q.data(), q.size());
    for (int i = 0; i < 8; i++) q.push_back(static_cast<char>(crc >> (8 * i)));
    auto r = rdb::LoadDumpPayload(q, "k", {});
    if (r.ok()) Entry::Free(*r);
    EXPECT_FALSE(r.ok());
  }
  // The rewrite emits CREATE then one SET per entry, oldest first.
  std::vector<std::vector<std::string>> cmds;
  v->Rewrite("k", [&](const std::vector<std::string>& a) { cmds.push_back(a); });
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0][0], "SCACHE.CREATE");
  EXPECT_EQ(cmds[1][0], "SCACHE.SET");
  EXPECT_EQ(cmds[2][4], "a");
}

}  // namespace
}  // namespace hotkv::ai

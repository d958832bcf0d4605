// Vector sets through the RDB library: Redis 8's "vectorset" module encoding written
// and read back for every quantisation, with attributes and REDUCE projections; the
// sets Redis's format cannot hold (non-cosine metrics, VSIM.CREATEINDEX sets) refused
// without a byte written; Redis 8.8's own file (fixtures/redis88_vset.*) loaded element
// by element with the vectors VEMB reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "engine/vector_set_value.h"
#include "rdb/rdb.h"
#include "vector/hnsw_index.h"

namespace hotkv::rdb {
namespace {

struct EntryDeleter {
  void operator()(Entry* e) const { Entry::Free(e); }
};
using EntryPtr = std::unique_ptr<Entry, EntryDeleter>;

Entry* MakeVectorSet(std::string_view key, vector::Quantization quant, uint32_t dim, int n,
                     uint32_t projection_input_dim = 0, bool attributes = true,
                     vector::Metric metric = vector::Metric::kCosine, bool persistent = false) {
  vector::IndexOptions opts;
  opts.dim = dim;
  opts.quant = quant;
  opts.metric = metric;
  opts.m = 8;
  auto index = vector::HnswIndex::Create(opts);
  EXPECT_TRUE(index.ok());
  VectorSetFlags flags;
  flags.projection_input_dim = projection_input_dim;
  flags.persistent = persistent;
  auto set = std::make_shared<VectorSet>(std::move(*index), flags);
  std::mt19937 rng(n * 7 + dim);
  std::normal_distribution<float> g;
  int64_t with_attrs = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<float> v(projection_input_dim ? projection_input_dim : dim);
    for (float& x : v) x = g(rng) * 3;
    if (projection_input_dim) v = set->Project(v);
    std::optional<std::string_view> attrs;
    std::string json = "{\"i\":" + std::to_string(i) + "}";
    if (attributes && i % 3 == 0) {
      attrs = json;
      ++with_attrs;
    }
    EXPECT_TRUE(set->index().Add("elem:" + std::to_string(i), v, attrs).ok());
  }
  set->AddAttributeCount(with_attrs);
  return Entry::NewObject(key, ValueType::kVectorSet, new VectorSetValue{std::move(set)}, false);
}

const VectorSet& SetOf(const Entry& e) { return *e.As<VectorSetValue>()->set; }

// Labels -> (attributes, raw bytes, vector) of a set.
struct Element {
  std::string attributes;
  std::string raw;
  std::vector<float> vec;
};
std::map<std::string, Element> Elements(const Entry& e) {
  std::map<std::string, Element> out;
  const auto& index = SetOf(e).index();
  index.ForEachElement([&](const vector::ElementView& v) {
    Element el;
    el.attributes.assign(v.attributes);
    el.raw = index.GetRawVector(v.label)->data;
    el.vec.assign(v.vector.begin(), v.vector.end());
    out.emplace(std::string(v.label), std::move(el));
  });
  return out;
}

void ExpectSameSet(const Entry& a, const Entry& b) {
  const VectorSet& sa = SetOf(a);
  const VectorSet& sb = SetOf(b);
  EXPECT_EQ(sa.dim(), sb.dim());
  EXPECT_EQ(sa.options().quant, sb.options().quant);
  EXPECT_EQ(sa.options().m, sb.options().m);
  EXPECT_EQ(sa.projection_input_dim(), sb.projection_input_dim());
  EXPECT_EQ(sa.attribute_count(), sb.attribute_count());
  auto ea = Elements(a), eb = Elements(b);
  ASSERT_EQ(ea.size(), eb.size());
  for (const auto& [label, el] : ea) {
    auto it = eb.find(label);
    ASSERT_NE(it, eb.end()) << label;
    EXPECT_EQ(el.attributes, it->second.attributes) << label;
    if (sa.options().quant == vector::Quantization::kFloat32) {
      // Normalised floats: re-normalising on insert may move the last bit.
      ASSERT_EQ(el.raw.size(), it->second.raw.size());
      for (size_t j = 0; j + 4 <= el.raw.size(); j += 4) {
        float x, y;
        memcpy(&x, el.raw.data() + j, 4);
        memcpy(&y, it->second.raw.data() + j, 4);
        EXPECT_NEAR(x, y, 1e-6) << label;
      }
    } else {
      EXPECT_EQ(el.raw, it->second.raw) << label;  // int8 codes / sign bits, exactly
    }
    ASSERT_EQ(el.vec.size(), it->second.vec.size());
    for (size_t j = 0; j < el.vec.size(); ++j) {
      EXPECT_NEAR(el.vec[j], it->second.vec[j], 1e-5 * (1 + std::fabs(el.vec[j]))) << label;
    }
  }
}

TEST(RdbVectorSet, PayloadRoundTripEveryQuantisation) {
  for (auto quant : {vector::Quantization::kFloat32, vector::Quantization::kQ8,
                     vector::Quantization::kBinary}) {
    for (uint32_t proj : {0u, 24u}) {
      EntryPtr e(MakeVectorSet("vs", quant, 16, 300, proj));
      std::string p = DumpPayload(*e, true);
      ASSERT_FALSE(p.empty());
      ASSERT_TRUE(VerifyDumpPayload(p));
      Result<Entry*> back = LoadDumpPayload(p, "vs", {});
      ASSERT_TRUE(back.ok()) << back.status().message();
      EntryPtr holder(*back);
      ASSERT_EQ(holder->type(), ValueType::kVectorSet);
      ExpectSameSet(*e, *holder);
      // The rebuilt graph answers searches: each element finds itself first.
      const auto& index = SetOf(*holder).index();
      auto hits = index.SearchByLabel("elem:5", {});
      ASSERT_TRUE(hits.ok());
      ASSERT_FALSE(hits->empty());
      EXPECT_EQ((*hits)[0].label, "elem:5");
    }
  }
}

TEST(RdbVectorSet, FileRoundTripWithoutAttributes) {
  EntryPtr e(MakeVectorSet("vs", vector::Quantization::kQ8, 5, 40, 0, /*attributes=*/false));
  char tmpl[] = "/tmp/rdb_vset_XXXXXX";
  int fd = mkstemp(tmpl);
  {
    FileWriter w(fd, {});
    ASSERT_TRUE(w.Begin({}).ok());
    ASSERT_TRUE(w.SelectDb(0, 1, 0).ok());
    ASSERT_TRUE(w.WriteKey(*e, -1).ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  close(fd);
  std::vector<Entry*> keys;
  Result<LoadStats> st = LoadFile(tmpl, {}, [&](LoadedKey&& k) {
    keys.push_back(k.entry);
    return Status();
  });
  unlink(tmpl);
  ASSERT_TRUE(st.ok()) << st.status().message();
  ASSERT_EQ(keys.size(), 1u);
  ExpectSameSet(*e, *keys[0]);
  for (Entry* k : keys) Entry::Free(k);
}

TEST(RdbVectorSet, SetsRedisCannotHoldAreRefused) {
  EntryPtr l2(MakeVectorSet("l2", vector::Quantization::kFloat32, 4, 5, 0, true, vector::Metric::kL2));
  EntryPtr idx(MakeVectorSet("idx", vector::Quantization::kQ8, 4, 5, 0, true,
                             vector::Metric::kCosine, /*persistent=*/true));
  EXPECT_EQ(DumpPayload(*l2, true), "");
  EXPECT_EQ(DumpPayload(*idx, true), "");
  char tmpl[] = "/tmp/rdb_vset_XXXXXX";
  int fd = mkstemp(tmpl);
  FileWriter w(fd, {});
  ASSERT_TRUE(w.Begin({}).ok());
  const uint64_t before = w.bytes_written();
  Status st = w.WriteKey(*l2, 12345, 7);
  EXPECT_NE(st.message().find("metric cannot be written"), std::string::npos) << st.message();
  st = w.WriteKey(*idx, -1);
  EXPECT_NE(st.message().find("VSIM.CREATEINDEX"), std::string::npos) << st.message();
  EXPECT_EQ(w.bytes_written(), before);  // nothing of either key
  close(fd);
  unlink(tmpl);
}

TEST(RdbVectorSet, CorruptPayloadsAreErrors) {
  EntryPtr e(MakeVectorSet("vs", vector::Quantization::kQ8, 8, 20));
  const std::string p = DumpPayload(*e, false);
  std::mt19937_64 rng(99);
  size_t refused = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string q = p;
    if (i % 2) {
      q.resize(rng() % (p.size() - 10));
      q += p.substr(p.size() - 10);
    } else {
      q[rng() % (q.size() - 10)] ^= static_cast<char>(1 << (rng() % 8));
    }
    uint64_t crc = Crc64(0, q.data(), q.size() - 8);
    for (int b = 0; b < 8; ++b) q[q.size() - 8 + b] = static_cast<char>(crc >> (8 * b));
    Result<Entry*> back = LoadDumpPayload(q, "vs", {});
    if (back.ok()) {
      Entry::Free(*back);
    } else {
      EXPECT_FALSE(back.status().message().empty());
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000u);
}

std::string Fixture(const std::string& name) { return std::string(RDB_FIXTURE_DIR) + "/" + name; }

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// What Redis 8.8 reported for its vector sets (fixtures/redis88_vset.expected).
struct ExpectedSet {
  std::string quant;  // VINFO quant-type: "int8", "f32", "bin"
  uint32_t dim = 0;
  size_t card = 0;
  std::map<std::string, std::pair<std::string, std::vector<float>>> elements;  // label -> attrs, VEMB
};

std::map<std::string, ExpectedSet> ReadExpected() {
  std::map<std::string, ExpectedSet> out;
  std::ifstream in(Fixture("redis88_vset.expected"));
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string kind, key;
    ls >> kind >> key;
    ExpectedSet& set = out[Unhex(key)];
    if (kind == "K") {
      ls >> set.quant >> set.dim >> set.card;
      continue;
    }
    std::string label, attrs, emb;
    ls >> label >> attrs >> emb;
    std::vector<float> v;
    std::istringstream es(emb);
    for (std::string x; std::getline(es, x, ',');) v.push_back(std::stof(x));
    set.elements[Unhex(label)] = {attrs == "-" ? "" : Unhex(attrs), v};
  }
  return out;
}

void ExpectAsRedisReported(const Entry& e, const ExpectedSet& want) {
  const VectorSet& set = SetOf(e);
  const char* quant = set.options().quant == vector::Quantization::kQ8       ? "int8"
                      : set.options().quant == vector::Quantization::kBinary ? "bin"
                                                                             : "f32";
  EXPECT_EQ(quant, want.quant) << e.key();
  EXPECT_EQ(set.dim(), want.dim) << e.key();
  auto got = Elements(e);
  ASSERT_EQ(got.size(), want.card) << e.key();
  for (const auto& [label, el] : want.elements) {
    auto it = got.find(label);
    ASSERT_NE(it, got.end()) << label;
    EXPECT_EQ(it->second.attributes, el.first) << label;
    ASSERT_EQ(it->second.vec.size(), el.second.size());
    for (size_t j = 0; j < el.second.size(); ++j) {
      if (want.quant == "bin") {
        EXPECT_EQ(it->second.vec[j] > 0, el.second[j] > 0) << label << "[" << j << "]";
      } else {
        EXPECT_NEAR(it->second.vec[j], el.second[j], 1e-5 * (1 + std::fabs(el.second[j])))
            << e.key() << " " << label << "[" << j << "]";
      }
    }
  }
}

TEST(RdbVectorSetFixture, Redis88FileLoadsAsVembReported) {
  std::map<std::string, ExpectedSet> expected = ReadExpected();
  ASSERT_EQ(expected.size(), 5u);
  std::vector<Entry*> keys;
  Result<LoadStats> st = LoadFile(Fixture("redis88_vset.rdb"), {}, [&](LoadedKey&& k) {
    keys.push_back(k.entry);
    return Status();
  });
  ASSERT_TRUE(st.ok()) << st.status().message();
  ASSERT_EQ(keys.size(), expected.size());
  for (Entry* e : keys) {
    ASSERT_EQ(e->type(), ValueType::kVectorSet);
    ExpectAsRedisReported(*e, expected[std::string(e->key())]);
    if (e->key() == "vs:reduce") {
      EXPECT_EQ(SetOf(*e).projection_input_dim(), 10u);
    }
    if (e->key() == "vs:m8") {
      EXPECT_EQ(SetOf(*e).options().m, 8u);
    }
    // Written back by HotKV, the set reads back the same.
    std::string p = DumpPayload(*e, true);
    Result<Entry*> again = LoadDumpPayload(p, e->key(), {});
    ASSERT_TRUE(again.ok()) << again.status().message();
    ExpectAsRedisReported(**again, expected[std::string(e->key())]);
    Entry::Free(*again);
  }
  for (Entry* e : keys) Entry::Free(e);
}

TEST(RdbVectorSetFixture, Redis88DumpPayloadsRestore) {
  std::map<std::string, ExpectedSet> expected = ReadExpected();
  std::ifstream in(Fixture("redis88_vset.dumps"));
  size_t n = 0;
  for (std::string key, payload; in >> key >> payload; ++n) {
    const std::string p = Unhex(payload);
    ASSERT_TRUE(VerifyDumpPayload(p));
    Result<Entry*> e = LoadDumpPayload(p, Unhex(key), {});
    ASSERT_TRUE(e.ok()) << e.status().message();
    ExpectAsRedisReported(**e, expected[Unhex(key)]);
    Entry::Free(*e);
  }
  EXPECT_EQ(n, 5u);
}

}  // namespace
}  // namespace hotkv::rdb

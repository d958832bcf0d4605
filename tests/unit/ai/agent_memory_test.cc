// AgentMemory (ai/agent_memory.h) without a server: the filter document, exact and
// semantic dedup, recency ranking, the touch interval, the per-user exact path, LIST
// paging, FORGET, sessions, the change reports, and the "memory" RDB form (DUMP payload
// round trip, corrupt payloads refused) through the extension registry.
#include "ai/agent_memory.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ai/memory_value.h"
#include "engine/extension_value.h"
#include "rdb/rdb.h"
#include "vector/filter_expr.h"

namespace hotkv::ai {
namespace {

constexpr int64_t kDay = int64_t{86400} * 1000;

std::vector<float> At(double deg) {
  const double r = deg * M_PI / 180.0;
  return {static_cast<float>(std::cos(r)), static_cast<float>(std::sin(r))};
}

std::shared_ptr<AgentMemory> Make(AgentMemoryOptions o = {}) {
  auto m = AgentMemory::Create(o);
  EXPECT_TRUE(m.ok());
  return m.value();
}

std::string Add(AgentMemory& mem, const std::vector<float>& v, std::string text, int64_t now,
                std::string user = "", std::optional<double> dedup = std::nullopt) {
  AgentMemory::AddRequest req;
  req.vec = v;
  req.fields.text = std::move(text);
  req.fields.user = std::move(user);
  req.dedup = dedup;
  auto r = mem.Add(req, now, nullptr);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->id : "";
}

std::vector<std::string> Texts(const std::vector<AgentMemory::Found>& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.memory.text);
  return out;
}

TEST(AgentMemory, DocumentLayout) {
  Memory m;
  m.type = "episodic";
  m.user = "u\"1";
  m.topics = {"a", "b"};
  m.attrs = R"({"k": 1})";
  EXPECT_EQ(MemoryDocument(m),
            R"({"type":"episodic","user":"u\"1","topics":["a","b"],"entities":[],"k": 1})");
  auto f = vector::FilterExpression::Compile(R"(.k == 1 and "b" in .topics and .user == "u\"1")");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE((*f)->Matches(MemoryDocument(m)));
}

TEST(AgentMemory, ExactAndSemanticDedup) {
  auto mem = Make();
  const std::string a = Add(*mem, At(0), "x", 1000, "u");
  EXPECT_EQ(Add(*mem, At(50), "x", 2000, "u"), a);          // exact
  EXPECT_NE(Add(*mem, At(0), "x", 2000, "v"), a);           // other user
  EXPECT_EQ(Add(*mem, At(52), "y", 3000, "u", 0.99), a);    // semantic (2 degrees)
  EXPECT_NE(Add(*mem, At(90), "z", 3000, "u", 0.99), a);
  auto m = mem->Get(a);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->text, "y");
  EXPECT_EQ(m->created_ms, 1000);
  EXPECT_EQ(m->updated_ms, 3000);
  EXPECT_EQ(mem->size(), 3u);
  EXPECT_EQ(mem->dim(), 2u);
}

TEST(AgentMemory, RecencyRankingAndTouchInterval) {
  auto mem = Make();
  const std::string old_id = Add(*mem, At(10), "old", 0);
  Add(*mem, At(30), "new", 60 * kDay);
  AgentMemory::SearchRequest req;
  auto q = At(0);
  req.vec = q;
  int touches = 0;
  auto count = [&](const AgentMemory::Change& c) {
    if (c.kind == AgentMemory::Change::Kind::kTouch) touches++;
  };
  auto f = mem->Search(req, 60 * kDay, count);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(Texts(*f), (std::vector<std::string>{"new", "old"}));
  const double rec_old = 0.6 * std::exp2(-60.0 / 7) + 0.4 * std::exp2(-2.0);
  EXPECT_NEAR((*f)[1].score, 0.8 * (1 + std::cos(M_PI / 18)) / 2 + 0.2 * rec_old, 1e-5);
  EXPECT_EQ(touches, 1);  // "old"; "new" is within the interval
  f = mem->Search(req, 60 * kDay + 1000, count);
  EXPECT_EQ(touches, 1);
  EXPECT_EQ(mem->Get(old_id)->accesses, 1u);
  req.recency_weight = 0.0;
  req.freshness_halflife_ms = req.novelty_halflife_ms = 1000;
  f = mem->Search(req, 60 * kDay, nullptr);
  EXPECT_EQ(Texts(*f), (std::vector<std::string>{"old", "new"}));
}

TEST(AgentMemory, ReconfigureKeepsCreationOptions) {
  AgentMemoryOptions o;
  o.dim = 2;
  o.metric = vector::Metric::kL2;
  auto mem = Make(o);
  Add(*mem, At(10), "old", 0);
  Add(*mem, At(30), "new", 60 * kDay);
  AgentMemory::SearchRequest req;
  auto q = At(0);
  req.vec = q;
  EXPECT_EQ(Texts(*mem->Search(req, 60 * kDay, nullptr)), (std::vector<std::string>{"new", "old"}));
  AgentMemoryOptions next = mem->options();
  next.similarity_weight = 1.0;
  next.recency_weight = 0.0;
  next.ef = 50;
  next.dim = 7;                              // ignored: fixed at creation
  next.metric = vector::Metric::kCosine;     // ignored
  next.m = 4;                                // ignored
  ASSERT_TRUE(mem->Reconfigure(next).ok());
  EXPECT_EQ(Texts(*mem->Search(req, 60 * kDay, nullptr)), (std::vector<std::string>{"old", "new"}));
  const AgentMemoryOptions now = mem->options();
  EXPECT_EQ(now.dim, 2u);
  EXPECT_EQ(now.metric, vector::Metric::kL2);
  EXPECT_EQ(now.m, 16u);
  EXPECT_EQ(now.ef, 50u);
  next.recency_weight = -1;
  EXPECT_FALSE(mem->Reconfigure(next).ok());
  EXPECT_EQ(mem->options().recency_weight, 0.0);
}

TEST(AgentMemory, UserPathEqualsFilteredWalk) {
  auto mem = Make();
  for (int i = 0; i < 200; i++) Add(*mem, At(i * 1.7), "m" + std::to_string(i), 0, "u" + std::to_string(i % 4));
  auto filt = vector::FilterExpression::Compile(R"(.user == "u1")");
  ASSERT_TRUE(filt.ok());
  AgentMemory::SearchRequest req;
  auto q = At(33);
  req.vec = q;
  req.k = 5;
  req.recency_weight = 0.0;
  req.filter = filt->get();
  auto walk = mem->Search(req, 0, nullptr);
  req.user = "u1";
  auto among = mem->Search(req, 0, nullptr);
  ASSERT_TRUE(walk.ok() && among.ok());
  EXPECT_EQ(Texts(*walk), Texts(*among));
  for (const auto& x : *among) EXPECT_EQ(x.memory.user, "u1");
  req.user = "nobody";
  EXPECT_TRUE(mem->Search(req, 0, nullptr)->empty());
}

TEST(AgentMemory, ListPagingForgetAndBadInput) {
  auto mem = Make();
  for (int i = 0; i < 25; i++) Add(*mem, At(i), "m" + std::to_string(i), i * kDay);
  std::vector<std::string> seen;
  uint64_t cursor = 0;
  int pages = 0;
  do {
    for (const Memory& m : mem->List(cursor, 10, nullptr, &cursor)) seen.push_back(m.text);
    ASSERT_LT(++pages, 10);
  } while (cursor != 0);
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(seen.front(), "m0");
  EXPECT_EQ(mem->Forget(10 * kDay, std::nullopt, nullptr, nullptr), 10u);
  EXPECT_EQ(mem->size(), 15u);
  AgentMemory::AddRequest bad;
  std::vector<float> v3 = {1, 0, 0}, nan = {NAN, 0};
  bad.vec = v3;
  EXPECT_FALSE(mem->Add(bad, 0, nullptr).ok());
  bad.vec = nan;
  EXPECT_FALSE(mem->Add(bad, 0, nullptr).ok());
  EXPECT_EQ(mem->size(), 15u);
}

TEST(AgentMemory, SessionsExpireAndSlide) {
  AgentMemoryOptions o;
  o.session_ttl_ms = 1000;
  auto mem = Make(o);
  EXPECT_EQ(mem->Append("s", "user", "a", std::nullopt, 0, std::nullopt, std::nullopt, nullptr), 1u);
  EXPECT_EQ(mem->Append("s", "user", "b", std::nullopt, 900, std::nullopt, std::nullopt, nullptr), 2u);
  int64_t ttl;
  EXPECT_EQ(mem->SessionMessages("s", 1, 1500, &ttl).size(), 1u);
  EXPECT_EQ(ttl, 400);
  EXPECT_TRUE(mem->SessionMessages("s", 0, 1900, &ttl).empty());
  EXPECT_EQ(ttl, -2);
  EXPECT_EQ(mem->Append("s", "user", "c", 0, 2000, std::nullopt, std::nullopt, nullptr), 1u);
  EXPECT_EQ(mem->SessionMessages("s", 0, 1000000, &ttl).size(), 1u);
  EXPECT_EQ(ttl, -1);
  EXPECT_TRUE(mem->ClearSession("s", 0, nullptr));
  EXPECT_FALSE(mem->ClearSession("s", 0, nullptr));
}

struct EntryDeleter {
  void operator()(Entry* e) const { Entry::Free(e); }
};

TEST(MemoryValue, DumpPayloadRoundTrip) {
  RegisterExtensionType(&MemoryType());
  AgentMemoryOptions o;
  o.recency_weight = 0.5;
  auto mem = Make(o);
  Add(*mem, At(0), "a", 5, "u");
  Add(*mem, At(90), std::string(1000, 'z'), 6);
  mem->Append("s", "user", "hi", 5000, 7, std::nullopt, std::nullopt, nullptr);
  std::unique_ptr<Entry, EntryDeleter> e(NewExtensionEntry("k", std::make_unique<MemoryValue>(mem), false));
  EXPECT_EQ(TypeName(*e), "memory");
  std::string p = rdb::DumpPayload(*e, true);
  ASSERT_TRUE(rdb::VerifyDumpPayload(p));
  auto back = rdb::LoadDumpPayload(p, "k", {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  std::unique_ptr<Entry, EntryDeleter> b(*back);
  auto* v = static_cast<MemoryValue*>(AsExtension(*b));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shared()->size(), 2u);
  EXPECT_EQ(v->shared()->options().recency_weight, 0.5);
  EXPECT_EQ(v->shared()->Get("1")->user, "u");
  int64_t ttl;
  EXPECT_EQ(v->shared()->SessionMessages("s", 0, 10, &ttl).size(), 1u);
  EXPECT_EQ(rdb::DumpPayload(*b, true), p);
  for (size_t cut = 1; cut < p.size() - 10; cut += 7) {
    std::string q = p.substr(0, p.size() - 10 - cut) + p.substr(p.size() - 10, 2);
    const uint64_t crc = rdb::Crc64(0, q.data(), q.size());
    for (int i = 0; i < 8; i++) q.push_back(static_cast<char>(crc >> (8 * i)));
    auto r = rdb::LoadDumpPayload(q, "k", {});
    if (r.ok()) Entry::Free(*r);
    EXPECT_FALSE(r.ok());
  }
  std::vector<std::vector<std::string>> cmds;
  v->Rewrite("k", [&](const std::vector<std::string>& a) { cmds.push_back(a); });
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[0][0], "MEM.CREATE");
  EXPECT_EQ(cmds[1][0], "MEM.ADD");
  EXPECT_EQ(cmds[3][0], "MEM.SESSION.APPEND");
}

}  // namespace
}  // namespace hotkv::ai

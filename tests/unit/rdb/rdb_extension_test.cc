// Extension key types (engine/extension_value.h) through rdb/: the module id Redis's
// moduleTypeEncodeId makes, a DUMP payload round trip of a toy type through the
// registry, every opcode kind, versions, refusals (unknown id, newer encver, bad data).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "engine/extension_value.h"
#include "rdb/rdb.h"

namespace hotkv::rdb {
namespace {

struct EntryDeleter {
  void operator()(Entry* e) const { Entry::Free(e); }
};
using EntryPtr = std::unique_ptr<Entry, EntryDeleter>;

// A toy value: a list of (u64, i64, double, string) records.
struct Record {
  uint64_t u;
  int64_t s;
  double d;
  std::string str;
};

std::unique_ptr<ExtensionValue> LoadToy(ExtensionReader& r, int encver);

const ExtensionType kToyType{"toytype", "hotkv-toy", 2, &LoadToy};

class ToyValue final : public ExtensionValue {
 public:
  std::vector<Record> records;
  const ExtensionType& type() const override { return kToyType; }
  size_t MemoryUsage() const override { return sizeof(*this) + records.size() * sizeof(Record); }
  std::unique_ptr<ExtensionValue> Clone() const override { return std::make_unique<ToyValue>(*this); }
  void Save(ExtensionWriter& w) const override {
    w.Unsigned(records.size());
    for (const Record& r : records) {
      w.Unsigned(r.u);
      w.Signed(r.s);
      w.Double(r.d);
      w.String(r.str);
    }
  }
  void Rewrite(std::string_view key, const EmitCommand& emit) const override {
    for (const Record& r : records) emit({"TOY.ADD", std::string(key), r.str});
  }
};

std::unique_ptr<ExtensionValue> LoadToy(ExtensionReader& r, int encver) {
  auto v = std::make_unique<ToyValue>();
  uint64_t n;
  if (!r.Unsigned(&n)) return nullptr;
  if (n > r.remaining()) {
    r.Fail("toy: count too large");
    return nullptr;
  }
  for (uint64_t i = 0; i < n; i++) {
    Record rec;
    if (!r.Unsigned(&rec.u) || !r.Signed(&rec.s) || !r.Double(&rec.d) || !r.String(&rec.str)) {
      return nullptr;
    }
    if (encver < 2) rec.str = "v1:" + rec.str;
    v->records.push_back(std::move(rec));
  }
  return v;
}

TEST(RdbExtension, ModuleIdIsRedisEncoding) {
  // Redis's moduleTypeEncodeId("vectorset", 0): the same charset and bit layout as the
  // ids rdb/ already reads for vector sets and JSON.
  const uint64_t id = ExtensionModuleId("hotkv-toy", 2);
  EXPECT_EQ(id & 1023, 2u);
  EXPECT_EQ(ExtensionModuleId("hotkv-toy", 5) >> 10, id >> 10);
  EXPECT_NE(ExtensionModuleId("hotkv-toz", 2), id);
}

TEST(RdbExtension, DumpPayloadRoundTripThroughRegistry) {
  RegisterExtensionType(&kToyType);
  RegisterExtensionType(&kToyType);  // idempotent
  auto v = std::make_unique<ToyValue>();
  v->records.push_back({1, -5, 2.5, "hello"});
  v->records.push_back({UINT64_MAX, INT64_MIN, -0.0, std::string(100, 'x')});
  v->records.push_back({0, INT64_MAX, 1e300, ""});
  EntryPtr e(NewExtensionEntry("k", std::move(v), false));
  EXPECT_EQ(TypeName(*e), "toytype");
  EXPECT_EQ(TypeName(e->type()), "extension");
  EXPECT_EQ(e->EncodingName(), "raw");
  EXPECT_GT(e->MemoryUsage(), sizeof(ToyValue));

  std::string p = DumpPayload(*e, /*compress=*/true);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(static_cast<uint8_t>(p[0]), 7);  // RDB_TYPE_MODULE_2
  ASSERT_TRUE(VerifyDumpPayload(p));
  Result<Entry*> back = LoadDumpPayload(p, "k2", {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EntryPtr b(*back);
  ASSERT_EQ(b->type(), kValueTypeExtension);
  const auto* t = static_cast<const ToyValue*>(AsExtension(*b));
  ASSERT_EQ(t->records.size(), 3u);
  EXPECT_EQ(t->records[1].u, UINT64_MAX);
  EXPECT_EQ(t->records[1].s, INT64_MIN);
  EXPECT_TRUE(std::signbit(t->records[1].d));
  EXPECT_EQ(t->records[1].str, std::string(100, 'x'));
  EXPECT_EQ(t->records[2].d, 1e300);
  EXPECT_EQ(t->records[0].str, "hello");

  // COPY's clone is deep.
  EntryPtr c(Entry::Clone(b.get(), "k3"));
  EXPECT_EQ(static_cast<const ToyValue*>(AsExtension(*c))->records.size(), 3u);
}

TEST(RdbExtension, RefusesUnknownIdNewerVersionAndTruncation) {
  RegisterExtensionType(&kToyType);
  auto v = std::make_unique<ToyValue>();
  v->records.push_back({1, 2, 3, "abc"});
  EntryPtr e(NewExtensionEntry("k", std::move(v), false));
  std::string p = DumpPayload(*e, false);

  int encver = -1;
  EXPECT_EQ(FindExtensionType(ExtensionModuleId("hotkv-toy", 1), &encver), &kToyType);
  EXPECT_EQ(encver, 1);
  EXPECT_EQ(FindExtensionType(ExtensionModuleId("hotkv-toy", 3), &encver), nullptr);
  EXPECT_EQ(FindExtensionType(ExtensionModuleId("hotkv-xyz", 1), &encver), nullptr);

  // Not a payload of a registered type: "module type ... not supported".
  {
    auto other = std::make_unique<ToyValue>();
    EntryPtr o(NewExtensionEntry("k", std::move(other), false));
    std::string q = DumpPayload(*o, false);
    // Overwrite the module id (a 64-bit length after the type byte: 0x81 + 8 bytes BE).
    ASSERT_EQ(static_cast<uint8_t>(q[1]), 0x81);
    const uint64_t bad = ExtensionModuleId("hotkv-xyz", 1);
    for (int i = 0; i < 8; i++) q[2 + i] = static_cast<char>(bad >> (56 - 8 * i));
    // Fix the CRC so only the id is wrong.
    const size_t body = q.size() - 8;
    const uint64_t crc = Crc64(0, q.data(), body);
    for (int i = 0; i < 8; i++) q[body + i] = static_cast<char>(crc >> (8 * i));
    ASSERT_TRUE(VerifyDumpPayload(q));
    Result<Entry*> r = LoadDumpPayload(q, "k", {});
    EXPECT_FALSE(r.ok());
  }
  // Truncated opcode stream.
  {
    std::string body = p.substr(0, p.size() - 10 - 3);
    std::string q = body + p.substr(p.size() - 10, 2);
    const uint64_t crc = Crc64(0, q.data(), q.size());
    for (int i = 0; i < 8; i++) q.push_back(static_cast<char>(crc >> (8 * i)));
    ASSERT_TRUE(VerifyDumpPayload(q));
    EXPECT_FALSE(LoadDumpPayload(q, "k", {}).ok());
  }
}

}  // namespace
}  // namespace hotkv::rdb

// JSON documents as Redis 8 stores them (see json_codec.h).
#include "rdb/json_codec.h"

#include <cstring>
#include <string>

#include "json/json_node.h"

namespace hotkv::rdb {

uint64_t JsonModuleId(int encver) {
  static constexpr char kCharset[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint64_t id = 0;
  for (char c : std::string_view("ReJSON-RL")) {
    id = (id << 6) | static_cast<uint64_t>(strchr(kCharset, c) - kCharset);
  }
  return (id << 10) | static_cast<uint64_t>(encver);
}

bool IsJsonModuleId(uint64_t id) { return id == JsonModuleId(3) || id == JsonModuleId(2); }

void WriteJson(Encoder& enc, const Entry& e) {
  enc.Len(JsonModuleId());
  enc.Len(kModuleOpString);
  enc.String(json::ToJson(*e.As<json::Node>()));
  enc.Len(kModuleOpEof);
}

Entry* LoadJson(Reader& r, std::string_view key, bool expire_block) {
  uint64_t op;
  if (!r.Len(&op)) {
    return nullptr;
  }
  if (op != kModuleOpString) {
    r.Fail("JSON module value: expected a string");
    return nullptr;
  }
  std::string scratch;
  std::string_view text;
  if (!r.String(&scratch, &text)) {
    return nullptr;
  }
  Result<json::Node> doc = json::Parse(text);
  if (!doc.ok()) {
    r.Fail("JSON module value: " + doc.status().message());
    return nullptr;
  }
  uint64_t eof;
  if (!r.Len(&eof)) {
    return nullptr;
  }
  if (eof != kModuleOpEof) {
    r.Fail("Module value not terminated by EOF");
    return nullptr;
  }
  auto* node = new json::Node(std::move(doc).value());
  node->Pack();  // small documents are kept packed (json_node.h)
  return Entry::NewObject(key, ValueType::kJson, node, expire_block);
}

}  // namespace hotkv::rdb

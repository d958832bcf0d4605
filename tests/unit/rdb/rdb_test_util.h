// Helpers of the rdb unit tests: building entries of every type and rendering an entry
// as canonical text ("list:a,b,c", "set:1,2,x" sorted, "zset:a=1,b=2.5", "hash:f=v")
// so tests compare values with one string comparison.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/entry.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace hotkv::rdb::testing {

inline Entry* MakeList(std::string_view key, const std::vector<std::string>& items,
                       const types::EncodingLimits& limits = {}) {
  auto* l = new types::ListValue();
  for (const auto& s : items) l->PushBack(s, limits);
  return Entry::NewObject(key, ValueType::kList, l, false);
}

inline Entry* MakeSet(std::string_view key, const std::vector<std::string>& items,
                      const types::EncodingLimits& limits = {}) {
  auto* s = new types::SetValue();
  for (const auto& m : items) s->Add(m, limits);
  return Entry::NewObject(key, ValueType::kSet, s, false);
}

inline Entry* MakeZSet(std::string_view key, const std::vector<std::pair<std::string, double>>& items) {
  auto* z = new types::ZSetValue();
  for (const auto& [m, sc] : items) z->Add(m, sc);
  return Entry::NewObject(key, ValueType::kZSet, z, false);
}

inline Entry* MakeHash(std::string_view key, const std::vector<std::pair<std::string, std::string>>& items,
                       const types::EncodingLimits& limits = {}) {
  auto* h = new types::HashValue();
  for (const auto& [f, v] : items) h->Set(f, v, limits);
  return Entry::NewObject(key, ValueType::kHash, h, false);
}

inline std::string FormatScore(double d) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.17g", d);
  return buf;
}

// Canonical text of an entry's value (sets and hashes sorted, zsets in order).
inline std::string Render(const Entry& e) {
  std::vector<std::string> parts;
  std::string prefix;
  switch (e.type()) {
    case ValueType::kString:
      return "string:" + std::string(e.str());
    case ValueType::kList: {
      prefix = "list:";
      e.As<types::ListValue>()->ForEach([&](std::string_view v) {
        parts.emplace_back(v);
        return true;
      });
      break;
    }
    case ValueType::kSet: {
      prefix = "set:";
      e.As<types::SetValue>()->ForEach([&](std::string_view v) {
        parts.emplace_back(v);
        return true;
      });
      std::sort(parts.begin(), parts.end());
      break;
    }
    case ValueType::kZSet: {
      prefix = "zset:";
      e.As<types::ZSetValue>()->ForEach([&](std::string_view m, double s) {
        parts.push_back(std::string(m) + "=" + FormatScore(s));
      });
      break;
    }
    case ValueType::kHash: {
      prefix = "hash:";
      e.As<types::HashValue>()->ForEach([&](std::string_view f, std::string_view v) {
        parts.push_back(std::string(f) + "=" + std::string(v));
        return true;
      });
      std::sort(parts.begin(), parts.end());
      break;
    }
    default:
      return "other";
  }
  std::string out = prefix;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ",";
    out += parts[i];
  }
  return out;
}

inline std::string HexQuoted(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out + "\"";
}

inline std::string JoinJson(std::vector<std::string> parts, bool sort) {
  if (sort) std::sort(parts.begin(), parts.end());
  std::string out = "[";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out + "]";
}

// One key as the JSON line of tests/unit/rdb/fixtures/*.expected (and hotkv-rdbtool):
// {"db":0,"key":"<hex>","type":"list","expire_ms":-1,"value":...}, strings hex, sets and
// hashes sorted, zset scores "%.17g".
inline std::string KeyJson(int db, const Entry& e, int64_t expire_ms) {
  std::vector<std::string> parts;
  std::string value;
  switch (e.type()) {
    case ValueType::kString:
      value = HexQuoted(e.str());
      break;
    case ValueType::kList:
      e.As<types::ListValue>()->ForEach([&](std::string_view v) {
        parts.push_back(HexQuoted(v));
        return true;
      });
      value = JoinJson(parts, false);
      break;
    case ValueType::kSet:
      e.As<types::SetValue>()->ForEach([&](std::string_view v) {
        parts.push_back(HexQuoted(v));
        return true;
      });
      value = JoinJson(parts, true);
      break;
    case ValueType::kZSet:
      e.As<types::ZSetValue>()->ForEach([&](std::string_view m, double s) {
        parts.push_back("[" + HexQuoted(m) + ",\"" + FormatScore(s) + "\"]");
      });
      value = JoinJson(parts, false);
      break;
    case ValueType::kHash:
      e.As<types::HashValue>()->ForEach([&](std::string_view f, std::string_view v) {
        parts.push_back("[" + HexQuoted(f) + "," + HexQuoted(v) + "]");
        return true;
      });
      value = JoinJson(parts, true);
      break;
    default:
      value = "null";
  }
  return "{\"db\":" + std::to_string(db) + ",\"key\":" + HexQuoted(e.key()) + ",\"type\":\"" +
         std::string(TypeName(e.type())) + "\",\"expire_ms\":" + std::to_string(expire_ms) +
         ",\"value\":" + value + "}";
}

}  // namespace hotkv::rdb::testing

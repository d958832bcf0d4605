// hotkv-rdbtool: a command-line front end of the RDB library (src/rdb), for interop
// tests against Redis and for looking into dump files.
//
//   hotkv-rdbtool sample-file PATH [--no-compress]   write a sample RDB of every type;
//                                                   print its content as JSON lines
//   hotkv-rdbtool sample-dumps [--no-compress]      print {"key","payload",...} lines with
//                                                   the DUMP payload (hex) of each sample key
//   hotkv-rdbtool load PATH                         print every key of an RDB file
//   hotkv-rdbtool restore KEY HEX                   decode a DUMP payload, print the key
//   hotkv-rdbtool bench PATH                        decode a file, print keys/s
//   hotkv-rdbtool sample-vset-file PATH             write sample vector sets (Redis 8 only);
//                                                   print "K key quant dim card", "E key
//                                                   label attrs vector" and "D key payload"
// Vector sets print as K/E lines (load, restore) instead of JSON.
//
// Content lines: {"db":0,"key":"<hex>","type":"list","expire_ms":-1,"value":...}; strings
// and members are hex; sets and hashes sorted; zset scores are "%.17g" text.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/vector_set_value.h"
#include "rdb/rdb.h"
#include "vector/hnsw_index.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/zset.h"

namespace {

using hotkv::Entry;
using hotkv::ValueType;

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out + "\"";
}

std::string Join(std::vector<std::string> parts, bool sort) {
  if (sort) std::sort(parts.begin(), parts.end());
  std::string out = "[";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out + "]";
}

std::string ValueJson(const Entry& e) {
  std::vector<std::string> parts;
  switch (e.type()) {
    case ValueType::kString:
      return Hex(e.str());
    case ValueType::kList:
      e.As<hotkv::types::ListValue>()->ForEach([&](std::string_view v) {
        parts.push_back(Hex(v));
        return true;
      });
      return Join(parts, false);
    case ValueType::kSet:
      e.As<hotkv::types::SetValue>()->ForEach([&](std::string_view v) {
        parts.push_back(Hex(v));
        return true;
      });
      return Join(parts, true);
    case ValueType::kZSet:
      e.As<hotkv::types::ZSetValue>()->ForEach([&](std::string_view m, double s) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.17g", s);
        parts.push_back("[" + Hex(m) + ",\"" + buf + "\"]");
      });
      return Join(parts, false);
    case ValueType::kHash:
      e.As<hotkv::types::HashValue>()->ForEach([&](std::string_view f, std::string_view v) {
        parts.push_back("[" + Hex(f) + "," + Hex(v) + "]");
        return true;
      });
      return Join(parts, true);
    default:
      return "null";
  }
}

std::string KeyJson(int db, const Entry& e, int64_t expire_ms) {
  return "{\"db\":" + std::to_string(db) + ",\"key\":" + Hex(e.key()) + ",\"type\":\"" +
         std::string(hotkv::TypeName(e.type())) + "\",\"expire_ms\":" + std::to_string(expire_ms) +
         ",\"value\":" + ValueJson(e) + "}";
}

void PrintVectorSet(const Entry& e);

struct Sample {
  int db;
  Entry* entry;
  int64_t expire_ms;
};

std::vector<Sample> MakeSamples() {
  hotkv::types::EncodingLimits limits;
  std::vector<Sample> out;
  auto str = [&](int db, const std::string& k, const std::string& v, int64_t exp = -1) {
    out.push_back({db, Entry::NewString(k, v, exp >= 0), exp});
  };
  auto list = [&](const std::string& k, const std::vector<std::string>& items) {
    auto* l = new hotkv::types::ListValue();
    for (const auto& s : items) l->PushBack(s, limits);
    out.push_back({0, Entry::NewObject(k, ValueType::kList, l, false), -1});
  };
  auto set = [&](const std::string& k, const std::vector<std::string>& items) {
    auto* s = new hotkv::types::SetValue();
    for (const auto& m : items) s->Add(m, limits);
    out.push_back({0, Entry::NewObject(k, ValueType::kSet, s, false), -1});
  };
  auto zset = [&](const std::string& k, const std::vector<std::pair<std::string, double>>& items) {
    auto* z = new hotkv::types::ZSetValue();
    for (const auto& [m, sc] : items) z->Add(m, sc);
    out.push_back({0, Entry::NewObject(k, ValueType::kZSet, z, false), -1});
  };
  auto hash = [&](const std::string& k, const std::vector<std::pair<std::string, std::string>>& items) {
    auto* h = new hotkv::types::HashValue();
    for (const auto& [f, v] : items) h->Set(f, v, limits);
    out.push_back({0, Entry::NewObject(k, ValueType::kHash, h, false), -1});
  };
  std::string bin;
  for (int i = 0; i < 256; ++i) bin.push_back(static_cast<char>(i));
  std::string longtext;
  for (int i = 0; i < 1000; ++i) longtext += "abc";
  str(0, "str:plain", "hello world");
  str(0, "str:int", "12345");
  str(0, "str:negint", "-42");
  str(0, "str:int64", "9223372036854775807");
  str(0, "str:leadzero", "007");
  str(0, "str:bin", bin);
  str(0, "str:long", longtext);
  str(0, "str:empty", "");
  str(0, "str:ttl", "expiring", 4102444800000);  // 2100-01-01
  std::vector<std::string> small = {"a", "1", "-7", "bb", std::string(300, 'x')};
  std::vector<std::string> large, ints, many_ints;
  for (int i = 0; i < 5000; ++i) large.push_back("element:" + std::to_string(i));
  for (int i = 0; i < 100; ++i) ints.push_back(std::to_string(i * 1000 - 50000));
  for (int i = 0; i < 2000; ++i) many_ints.push_back(std::to_string(i * 7919LL * 100003));
  list("list:small", small);
  list("list:large", large);
  list("list:bigelem", {"a", std::string(20000, 'y'), "b"});
  set("set:ints", ints);
  set("set:manyints", many_ints);
  set("set:small", small);
  set("set:large", large);
  std::vector<std::pair<std::string, double>> zsmall = {
      {"a", 1}, {"b", -INFINITY}, {"c", INFINITY}, {"d", 0.1}, {"e", -2.5e-300}, {"f", 42}};
  std::vector<std::pair<std::string, double>> zlarge;
  for (int i = 0; i < 1000; ++i) zlarge.emplace_back("member:" + std::to_string(i), i / 3.0);
  zset("zset:small", zsmall);
  zset("zset:large", zlarge);
  std::vector<std::pair<std::string, std::string>> hlarge;
  for (int i = 0; i < 1000; ++i) hlarge.emplace_back("field:" + std::to_string(i), std::to_string(i));
  hash("hash:small", {{"name", "hotkv"}, {"n", "1"}});
  hash("hash:large", hlarge);
  hash("hash:bigvalue", {{"f", std::string(1000, 'v')}});
  str(1, "db1:key", "one");
  str(15, "db15:key", "fifteen", 4102444800123);
  return out;
}

int SampleFile(const char* path, bool compress) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    perror("open");
    return 1;
  }
  std::vector<Sample> samples = MakeSamples();
  hotkv::rdb::FileWriter w(fd, {.compress = compress, .checksum = true});
  hotkv::Status st = w.Begin({{"redis-ver", "7.0.15"}, {"redis-bits", "64"}, {"ctime", "1700000000"},
                              {"used-mem", "1000000"}, {"aof-base", "0"}});
  int db = -1;
  for (size_t i = 0; i < samples.size() && st.ok(); ++i) {
    const Sample& s = samples[i];
    if (s.db != db) {
      db = s.db;
      uint64_t n = 0, t = 0;
      for (const Sample& o : samples) {
        if (o.db == db) {
          ++n;
          t += o.expire_ms >= 0;
        }
      }
      st = w.SelectDb(db, n, t);
      if (!st.ok()) break;
    }
    st = w.WriteKey(*s.entry, s.expire_ms);
  }
  if (st.ok()) st = w.Finish();
  close(fd);
  if (!st.ok()) {
    fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  for (const Sample& s : samples) {
    printf("%s\n", KeyJson(s.db, *s.entry, s.expire_ms).c_str());
    Entry::Free(s.entry);
  }
  return 0;
}

int SampleDumps(bool compress) {
  for (const Sample& s : MakeSamples()) {
    std::string p = hotkv::rdb::DumpPayload(*s.entry, compress);
    std::string line = KeyJson(s.db, *s.entry, -1);
    line.insert(line.size() - 1, ",\"payload\":" + Hex(p));
    printf("%s\n", line.c_str());
    Entry::Free(s.entry);
  }
  return 0;
}

int Load(const char* path) {
  hotkv::rdb::LoadOptions opts;
  auto stats = hotkv::rdb::LoadFile(path, opts, [](hotkv::rdb::LoadedKey&& k) {
    if (k.entry->type() == ValueType::kVectorSet) {
      PrintVectorSet(*k.entry);
    } else {
      printf("%s\n", KeyJson(k.db, *k.entry, k.expire_ms).c_str());
    }
    Entry::Free(k.entry);
    return hotkv::Status();
  });
  if (!stats.ok()) {
    fprintf(stderr, "%s\n", stats.status().message().c_str());
    return 1;
  }
  return 0;
}

// Decodes a file into entries (freed at once) and prints keys/s: the format's share of
// a load, for comparing with Redis's "DB loaded from disk" time.
// Vector sets of every quantisation (and REDUCE, attributes), for Redis 8 interop.
std::vector<Sample> MakeVectorSamples() {
  std::vector<Sample> out;
  uint32_t seed = 1;
  auto rnd = [&seed] {  // deterministic, no <random> distribution differences
    seed = seed * 1103515245u + 12345u;
    return static_cast<float>((seed >> 8) % 20001) / 2500.0f - 4.0f;
  };
  auto make = [&](const std::string& key, hotkv::vector::Quantization q, uint32_t dim, int n,
                  uint32_t reduce_from, uint32_t m) {
    hotkv::vector::IndexOptions opts;
    opts.dim = dim;
    opts.quant = q;
    opts.m = m;
    auto index = hotkv::vector::HnswIndex::Create(opts);
    hotkv::VectorSetFlags flags;
    flags.projection_input_dim = reduce_from;
    auto set = std::make_shared<hotkv::VectorSet>(std::move(*index), flags);
    int64_t attrs = 0;
    for (int i = 0; i < n; ++i) {
      std::vector<float> v(reduce_from ? reduce_from : dim);
      for (float& x : v) x = rnd();
      if (reduce_from) v = set->Project(v);
      std::string json = "{\"i\":" + std::to_string(i) + "}";
      std::optional<std::string_view> a;
      if (i % 4 == 0) {
        a = json;
        ++attrs;
      }
      (void)set->index().Add(key.substr(3) + std::to_string(i), v, a);
    }
    set->AddAttributeCount(attrs);
    out.push_back({0, Entry::NewObject(key, ValueType::kVectorSet, new hotkv::VectorSetValue{set}, false), -1});
  };
  make("vs:q8", hotkv::vector::Quantization::kQ8, 8, 200, 0, 16);
  make("vs:f32", hotkv::vector::Quantization::kFloat32, 5, 60, 0, 16);
  make("vs:bin", hotkv::vector::Quantization::kBinary, 70, 60, 0, 16);
  make("vs:reduce", hotkv::vector::Quantization::kQ8, 4, 30, 12, 16);
  make("vs:m6", hotkv::vector::Quantization::kQ8, 3, 50, 0, 6);
  return out;
}

// "K key quant dim card" and "E key label attributes vector" lines (hex but the vector).
void PrintVectorSet(const Entry& e) {
  const hotkv::VectorSet& set = *e.As<hotkv::VectorSetValue>()->set;
  const char* quant = set.options().quant == hotkv::vector::Quantization::kQ8       ? "int8"
                      : set.options().quant == hotkv::vector::Quantization::kBinary ? "bin"
                                                                                    : "f32";
  std::string key = Hex(e.key());
  key = key.substr(1, key.size() - 2);
  printf("K %s %s %u %zu\n", key.c_str(), quant, set.dim(), set.index().size());
  std::vector<std::string> lines;
  set.index().ForEachElement([&](const hotkv::vector::ElementView& v) {
    std::string label = Hex(v.label), attrs = v.attributes.empty() ? "-" : Hex(v.attributes);
    std::string line = "E " + key + " " + label.substr(1, label.size() - 2) + " " +
                       (attrs == "-" ? attrs : attrs.substr(1, attrs.size() - 2)) + " ";
    for (size_t j = 0; j < v.vector.size(); ++j) {
      char buf[32];
      snprintf(buf, sizeof(buf), "%s%.9g", j ? "," : "", v.vector[j]);
      line += buf;
    }
    lines.push_back(line);
  });
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) printf("%s\n", l.c_str());
}

int VectorSampleFile(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    perror("open");
    return 1;
  }
  std::vector<Sample> samples = MakeVectorSamples();
  hotkv::rdb::FileWriter w(fd, {.compress = true, .checksum = true});
  hotkv::Status st = w.Begin({{"redis-ver", "8.8.0"}});
  if (st.ok()) st = w.SelectDb(0, samples.size(), 0);
  for (const Sample& s : samples) {
    if (st.ok()) st = w.WriteKey(*s.entry, -1);
  }
  if (st.ok()) st = w.Finish();
  close(fd);
  if (!st.ok()) {
    fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  for (const Sample& s : samples) {
    PrintVectorSet(*s.entry);
    std::string p = hotkv::rdb::DumpPayload(*s.entry, true);
    std::string k = Hex(s.entry->key()), ph = Hex(p);
    printf("D %s %s\n", k.substr(1, k.size() - 2).c_str(), ph.substr(1, ph.size() - 2).c_str());
    Entry::Free(s.entry);
  }
  return 0;
}

int Bench(const char* path) {
  auto start = std::chrono::steady_clock::now();
  auto stats = hotkv::rdb::LoadFile(path, {}, [](hotkv::rdb::LoadedKey&& k) {
    Entry::Free(k.entry);
    return hotkv::Status();
  });
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!stats.ok()) {
    fprintf(stderr, "%s\n", stats.status().message().c_str());
    return 1;
  }
  printf("%llu keys, %llu bytes in %.3f s: %.0f keys/s\n", static_cast<unsigned long long>(stats->keys),
         static_cast<unsigned long long>(stats->bytes), secs, stats->keys / secs);
  return 0;
}

int Restore(const char* key, const char* hex) {
  std::string payload;
  for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
    payload.push_back(static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
  }
  if (!hotkv::rdb::VerifyDumpPayload(payload)) {
    fprintf(stderr, "ERR DUMP payload version or checksum are wrong\n");
    return 1;
  }
  auto e = hotkv::rdb::LoadDumpPayload(payload, key, {});
  if (!e.ok()) {
    fprintf(stderr, "ERR Bad data format (%s)\n", e.status().message().c_str());
    return 1;
  }
  if ((*e)->type() == ValueType::kVectorSet) {
    PrintVectorSet(**e);
  } else {
    printf("%s\n", KeyJson(0, **e, -1).c_str());
  }
  Entry::Free(*e);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  bool compress = !(argc > 2 && strcmp(argv[argc - 1], "--no-compress") == 0);
  if (cmd == "sample-file" && argc >= 3) return SampleFile(argv[2], compress);
  if (cmd == "sample-dumps") return SampleDumps(compress);
  if (cmd == "load" && argc == 3) return Load(argv[2]);
  if (cmd == "sample-vset-file" && argc == 3) return VectorSampleFile(argv[2]);
  if (cmd == "bench" && argc == 3) return Bench(argv[2]);
  if (cmd == "restore" && argc == 4) return Restore(argv[2], argv[3]);
  fprintf(stderr,
          "usage: hotkv-rdbtool sample-file PATH [--no-compress] | sample-dumps [--no-compress] |"
          " load PATH | restore KEY HEX | bench PATH | sample-vset-file PATH\n");
  return 2;
}

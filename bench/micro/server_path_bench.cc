// Micro-benchmarks of the request path's three building blocks (issue 5): the RESP
// request parser, the key table, and the reply writer. Each reports ns per command (or
// per lookup) in isolation, without sockets, so a change to one of them can be measured
// before it is measured through the server (bench/run.sh).
//
//   cmake -S . -B build/release -DHOTKV_BUILD_BENCH=ON && ninja -C build/release server_path_bench
//   build/release/bench/server_path_bench
//   build/release/bench/server_path_bench --benchmark_filter=Parse
//
// Inputs mirror the harness's reference workload: pipelines of 30 commands, 256-byte
// values, keys "key:<12 digits>".

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/key_hash.h"
#include "engine/entry.h"
#include "engine/key_table.h"
#include "protocol/byte_buffer.h"
#include "protocol/reply_builder.h"
#include "protocol/resp_parser.h"

namespace hotkv {
namespace {

std::string KeyName(uint64_t i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "key:%012llu", static_cast<unsigned long long>(i));
  return buf;
}

std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return out;
}

// A pipeline of 30 commands of one shape, parsed command by command as the worker does.
void ParsePipeline(benchmark::State& state, const std::vector<std::string>& shape) {
  std::mt19937_64 rng(1);
  std::string data;
  for (int i = 0; i < 30; i++) {
    std::vector<std::string> args = shape;
    args[1] = KeyName(rng() % 1000000);
    data += Resp(args);
  }
  RequestParser parser;
  ParseLimits limits;
  size_t commands = 0;
  for (auto _ : state) {
    std::string_view rest(data);
    while (!rest.empty()) {
      size_t consumed = 0;
      if (parser.Parse(rest, limits, &consumed) != RequestParser::kDone) {
        state.SkipWithError("parse failed");
        return;
      }
      benchmark::DoNotOptimize(parser.args().data());
      rest.remove_prefix(consumed);
      commands++;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(commands));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

void BM_ParseGet(benchmark::State& state) { ParsePipeline(state, {"GET", ""}); }
void BM_ParseSet256(benchmark::State& state) {
  ParsePipeline(state, {"SET", "", std::string(256, 'x')});
}
void BM_ParseLpush256(benchmark::State& state) {
  ParsePipeline(state, {"LPUSH", "", std::string(256, 'x')});
}
BENCHMARK(BM_ParseGet);
BENCHMARK(BM_ParseSet256);
BENCHMARK(BM_ParseLpush256);

// Key table of N string entries (256-byte values); lookups of present keys in random
// order. Larger tables show the cache misses pipeline-prefetch overlaps.
struct Table {
  KeyTable table;
  std::vector<std::string> keys;
  std::vector<uint64_t> hashes;

  explicit Table(size_t n) {
    const std::string value(256, 'v');
    for (size_t i = 0; i < n; i++) {
      keys.push_back(KeyName(i));
      hashes.push_back(HashKey(keys.back()));
      table.Insert(hashes.back(), Entry::NewString(keys.back(), value, false));
    }
  }
  ~Table() {
    table.Clear([](Entry* e) { Entry::Free(e); });
  }
};

// 65536 random key indexes below n, the same sequence every run.
std::vector<uint32_t> RandomOrder(size_t n) {
  std::mt19937_64 rng(2);
  std::vector<uint32_t> order(1 << 16);
  for (uint32_t& o : order) {
    o = static_cast<uint32_t>(rng() % n);
  }
  return order;
}

void BM_KeyTableFind(benchmark::State& state) {
  Table t(static_cast<size_t>(state.range(0)));
  const std::vector<uint32_t> order = RandomOrder(t.keys.size());
  size_t i = 0;
  for (auto _ : state) {
    const uint32_t k = order[i++ & (order.size() - 1)];
    const size_t pos = t.table.Find(t.keys[k], t.hashes[k]);
    benchmark::DoNotOptimize(t.table.At(pos)->str().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_KeyTableFind)->Arg(1000)->Arg(1000000);

// A GET's table work: find the key, copy its 256-byte value out (as the reply does).
// The next key depends on the bytes copied, so lookups do not overlap each other, as in
// the server, where a whole command's code runs between two of them.
void BM_KeyTableGetValue(benchmark::State& state) {
  Table t(static_cast<size_t>(state.range(0)));
  const std::vector<uint32_t> order = RandomOrder(t.keys.size());
  char out[512];
  size_t i = 0;
  size_t carry = 0;
  for (auto _ : state) {
    const uint32_t k = order[(i++ + carry) & (order.size() - 1)];
    const std::string_view v = t.table.At(t.table.Find(t.keys[k], t.hashes[k]))->str();
    memcpy(out, v.data(), v.size());
    benchmark::DoNotOptimize(out);
    carry = static_cast<unsigned char>(out[v.size() - 1]) - static_cast<unsigned char>(v.back());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_KeyTableGetValue)->Arg(1000)->Arg(1000000);

void BM_KeyTableInsertErase(benchmark::State& state) {
  Table t(static_cast<size_t>(state.range(0)));
  const std::string key = "key:extra";
  const uint64_t hash = HashKey(key);
  const std::string value(256, 'v');
  for (auto _ : state) {
    t.table.Insert(hash, Entry::NewString(key, value, false));
    const size_t pos = t.table.Find(key, hash);
    Entry* e = t.table.At(pos);
    t.table.EraseAt(pos);
    Entry::Free(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_KeyTableInsertErase)->Arg(1000)->Arg(1000000);

// Filling empty tables with new keys, as SETNX/LPUSH on fresh keys do: 1024 tables
// (the keyspace's shards), N keys spread over them by hash, every growth included.
// Entries exist beforehand and are spread over the heap like the server's.
void BM_KeyTableFill(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  constexpr size_t kTables = 1024;
  const std::string value(256, 'v');
  std::vector<Entry*> entries;
  std::vector<uint64_t> hashes;
  for (size_t i = 0; i < n; i++) {
    const std::string key = KeyName(i);
    hashes.push_back(HashKey(key));
    entries.push_back(Entry::NewString(key, value, false));
  }
  std::vector<uint32_t> order(n);
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < n; i++) {
    order[i] = static_cast<uint32_t>(i);
  }
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<KeyTable> tables(kTables);
  for (auto _ : state) {
    for (uint32_t k : order) {
      tables[(hashes[k] * 0x9E3779B97F4A7C15ull) >> 54].Insert(hashes[k], entries[k]);
    }
    state.PauseTiming();
    for (KeyTable& t : tables) {
      t.Clear([](Entry*) {});
    }
    state.ResumeTiming();
  }
  for (Entry* e : entries) {
    Entry::Free(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_KeyTableFill)->Arg(1000000)->Unit(benchmark::kMillisecond);

// Replies of a 30-command batch written into a reused buffer, as a connection does.
void BM_ReplyBulk256(benchmark::State& state) {
  ByteBuffer out;
  ReplyBuilder rb(&out);
  const std::string value(256, 'v');
  for (auto _ : state) {
    out.Clear();
    for (int i = 0; i < 30; i++) {
      rb.Bulk(value);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 30));
}
BENCHMARK(BM_ReplyBulk256);

void BM_ReplyInteger(benchmark::State& state) {
  ByteBuffer out;
  ReplyBuilder rb(&out);
  int64_t v = 1;
  for (auto _ : state) {
    out.Clear();
    for (int i = 0; i < 30; i++) {
      rb.Integer(v++);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 30));
}
BENCHMARK(BM_ReplyInteger);

}  // namespace
}  // namespace hotkv

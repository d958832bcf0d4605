// Micro-benchmarks of the collection types' hot operations, plus memory figures.
//
//   ninja -C build/dev types_bench && build/dev/bench/types_bench
//   build/dev/bench/types_bench --benchmark_filter=Memory   # memory figures only
//
// The Memory_* benchmarks build a million small values once and report, per value:
//   heap_bytes    the sum of MemoryUsage() (malloc_usable_size of every allocation)
//   object_bytes  sizeof the value object itself (the engine embeds or allocates it)
//   malloc_bytes  growth of the allocator's in-use bytes (glibc mallinfo2, so it includes
//                 glibc's 8-byte chunk headers; not meaningful under another allocator)
// Run under LD_PRELOAD=libmimalloc.so.2 to see mimalloc's size classes in heap_bytes.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"

namespace hotkv::types {
namespace {

const EncodingLimits kLimits;

std::vector<std::string> Keys(size_t n, const std::string& prefix) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    keys.push_back(prefix + std::to_string(i));
  }
  return keys;
}

// ---- lists ------------------------------------------------------------------------

// LPUSH + RPOP on a list holding `range(0)` elements (10: listpack, 10000: quicklist).
void BM_ListPushPop(benchmark::State& state) {
  ListValue list;
  for (int64_t i = 0; i < state.range(0); ++i) {
    list.PushBack("element-" + std::to_string(i), kLimits);
  }
  const std::string value = "a-value-of-24-bytes-long";
  for (auto _ : state) {
    list.PushFront(value, kLimits);
    benchmark::DoNotOptimize(list.PopBack());
  }
  state.SetLabel(list.EncodingName());
}
BENCHMARK(BM_ListPushPop)->Arg(10)->Arg(10000);

// RPOP through the zero-copy callback overload (no std::string per element).
void BM_ListPushPopCallback(benchmark::State& state) {
  ListValue list;
  for (int i = 0; i < 10000; ++i) {
    list.PushBack("element-" + std::to_string(i), kLimits);
  }
  const std::string value = "a-value-of-24-bytes-long";
  size_t bytes = 0;
  for (auto _ : state) {
    list.PushFront(value, kLimits);
    list.PopBack(1, [&](std::string_view v) { bytes += v.size(); });
  }
  benchmark::DoNotOptimize(bytes);
}
BENCHMARK(BM_ListPushPopCallback);

void BM_ListIndex(benchmark::State& state) {
  ListValue list;
  const int64_t n = state.range(0);
  for (int64_t i = 0; i < n; ++i) {
    list.PushBack("element-" + std::to_string(i), kLimits);
  }
  int64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(list.Index(i));
    i = (i + 7919) % n;
  }
  state.SetLabel(list.EncodingName());
}
BENCHMARK(BM_ListIndex)->Arg(100)->Arg(100000);

void BM_ListRange100(benchmark::State& state) {
  ListValue list;
  for (int i = 0; i < 100000; ++i) {
    list.PushBack("element-" + std::to_string(i), kLimits);
  }
  size_t bytes = 0;
  int64_t start = 0;
  for (auto _ : state) {
    list.Range(start, start + 99, [&](std::string_view v) { bytes += v.size(); });
    start = (start + 7919) % 99900;
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_ListRange100);

// ---- hashes -----------------------------------------------------------------------

HashValue MakeHash(const std::vector<std::string>& fields) {
  HashValue hash;
  for (const std::string& f : fields) {
    hash.Set(f, "value-" + f, kLimits);
  }
  return hash;
}

void BM_HashGet(benchmark::State& state) {
  const std::vector<std::string> fields = Keys(state.range(0), "field");
  const HashValue hash = MakeHash(fields);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash.Get(fields[i]));
    i = i + 1 == fields.size() ? 0 : i + 1;
  }
  state.SetLabel(hash.EncodingName());
}
BENCHMARK(BM_HashGet)->Arg(5)->Arg(100)->Arg(1000000);

// HSET on an existing field (same value length: rewritten in place).
void BM_HashSetExisting(benchmark::State& state) {
  const std::vector<std::string> fields = Keys(state.range(0), "field");
  HashValue hash = MakeHash(fields);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash.Set(fields[i], "new-value", kLimits));
    i = i + 1 == fields.size() ? 0 : i + 1;
  }
  state.SetLabel(hash.EncodingName());
}
BENCHMARK(BM_HashSetExisting)->Arg(5)->Arg(1000000);

// HSET of 5 new fields into a fresh hash (listpack): time per hash built.
void BM_HashBuild5(benchmark::State& state) {
  const std::vector<std::string> fields = Keys(5, "field");
  for (auto _ : state) {
    HashValue hash;
    for (const std::string& f : fields) {
      hash.Set(f, "value", kLimits);
    }
    benchmark::DoNotOptimize(hash);
  }
  state.SetItemsProcessed(state.iterations() * 5);
}
BENCHMARK(BM_HashBuild5);

// HSET of new fields into a hash growing to 1,000,000 fields (hashtable, with resizes),
// then starting over.
void BM_HashSetNewLarge(benchmark::State& state) {
  const std::vector<std::string> fields = Keys(1000000, "field");
  auto hash = std::make_unique<HashValue>();
  size_t i = 0;
  for (auto _ : state) {
    hash->Set(fields[i], "value", kLimits);
    if (++i == fields.size()) {
      state.PauseTiming();
      hash = std::make_unique<HashValue>();
      i = 0;
      state.ResumeTiming();
    }
  }
}
BENCHMARK(BM_HashSetNewLarge);

// ---- sets -------------------------------------------------------------------------

void BM_SetContains(benchmark::State& state) {
  // range(0): members; range(1): 1 = integer members.
  const bool integers = state.range(1) == 1;
  const std::vector<std::string> members = Keys(state.range(0), integers ? "" : "member:");
  SetValue set;
  for (const std::string& m : members) {
    set.Add(m, kLimits);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(set.Contains(members[i]));
    i = i + 1 == members.size() ? 0 : i + 1;
  }
  state.SetLabel(set.EncodingName());
}
BENCHMARK(BM_SetContains)->Args({500, 1})->Args({100, 0})->Args({1000000, 0});

// SADD of `range(0)` new members into a fresh set: time per member. 500 integers stay
// an intset, 100 words a listpack.
void BM_SetBuild(benchmark::State& state) {
  const bool integers = state.range(1) == 1;
  const std::vector<std::string> members = Keys(state.range(0), integers ? "" : "member:");
  for (auto _ : state) {
    SetValue set;
    for (const std::string& m : members) {
      set.Add(m, kLimits);
    }
    benchmark::DoNotOptimize(set);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SetBuild)->Args({500, 1})->Args({100, 0});

// SADD of new members into a set growing to 1,000,000 (hashtable), then starting over.
void BM_SetAddNewLarge(benchmark::State& state) {
  const std::vector<std::string> members = Keys(1000000, "member:");
  auto set = std::make_unique<SetValue>();
  size_t i = 0;
  for (auto _ : state) {
    set->Add(members[i], kLimits);
    if (++i == members.size()) {
      state.PauseTiming();
      set = std::make_unique<SetValue>();
      i = 0;
      state.ResumeTiming();
    }
  }
}
BENCHMARK(BM_SetAddNewLarge);

// ---- memory -----------------------------------------------------------------------

size_t MallocInUse() { return mallinfo2().uordblks; }

std::string RandomText(std::mt19937_64& rng, size_t len) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(len, ' ');
  for (char& c : s) {
    c = kChars[rng() % (sizeof(kChars) - 1)];
  }
  return s;
}

template <typename Value, typename Fill>
void MeasureMany(benchmark::State& state, Fill fill) {
  constexpr size_t kValues = 1000000;
  for (auto _ : state) {
    std::mt19937_64 rng(42);
    const size_t before = MallocInUse();
    std::vector<Value> values(kValues);
    const size_t vector_bytes = MallocInUse() - before;
    for (Value& v : values) {
      fill(v, rng);
    }
    size_t heap = 0;
    for (const Value& v : values) {
      heap += v.MemoryUsage();
    }
    const size_t malloc_bytes = MallocInUse() - before - vector_bytes;
    state.counters["heap_bytes"] = static_cast<double>(heap) / kValues;
    state.counters["object_bytes"] = sizeof(Value);
    state.counters["malloc_bytes"] = static_cast<double>(malloc_bytes) / kValues;
    state.SetLabel(values[0].EncodingName());
  }
}

// 1,000,000 hashes of 5 fields: 6-byte field names, 8-byte random alphanumeric values.
void BM_Memory_Hash5Fields(benchmark::State& state) {
  MeasureMany<HashValue>(state, [](HashValue& h, std::mt19937_64& rng) {
    for (int f = 1; f <= 5; ++f) {
      h.Set("field" + std::to_string(f), RandomText(rng, 8), kLimits);
    }
  });
}
BENCHMARK(BM_Memory_Hash5Fields)->Iterations(1)->Unit(benchmark::kMillisecond);

// The same with 8-digit numeric values (stored as 4-byte integers).
void BM_Memory_Hash5NumericFields(benchmark::State& state) {
  MeasureMany<HashValue>(state, [](HashValue& h, std::mt19937_64& rng) {
    for (int f = 1; f <= 5; ++f) {
      h.Set("field" + std::to_string(f), std::to_string(10000000 + rng() % 90000000), kLimits);
    }
  });
}
BENCHMARK(BM_Memory_Hash5NumericFields)->Iterations(1)->Unit(benchmark::kMillisecond);

// 1,000,000 sets of 5 small integers (intset) and of 5 8-byte words (listpack).
void BM_Memory_Set5Integers(benchmark::State& state) {
  MeasureMany<SetValue>(state, [](SetValue& s, std::mt19937_64& rng) {
    for (int i = 0; i < 5; ++i) {
      s.Add(std::to_string(rng() % 30000), kLimits);
    }
  });
}
BENCHMARK(BM_Memory_Set5Integers)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_Memory_Set5Words(benchmark::State& state) {
  MeasureMany<SetValue>(state, [](SetValue& s, std::mt19937_64& rng) {
    for (int i = 0; i < 5; ++i) {
      s.Add(RandomText(rng, 8), kLimits);
    }
  });
}
BENCHMARK(BM_Memory_Set5Words)->Iterations(1)->Unit(benchmark::kMillisecond);

// 1,000,000 lists of 5 8-byte elements (listpack).
void BM_Memory_List5Elements(benchmark::State& state) {
  MeasureMany<ListValue>(state, [](ListValue& l, std::mt19937_64& rng) {
    for (int i = 0; i < 5; ++i) {
      l.PushBack(RandomText(rng, 8), kLimits);
    }
  });
}
BENCHMARK(BM_Memory_List5Elements)->Iterations(1)->Unit(benchmark::kMillisecond);

// Per element of one big value: a 1,000,000-field hash (6..12-byte fields, 8-byte
// values), a 1,000,000-member set and a 1,000,000-element list.
template <typename Value, typename Fill>
void MeasureOne(benchmark::State& state, Fill fill) {
  constexpr size_t kElements = 1000000;
  for (auto _ : state) {
    std::mt19937_64 rng(42);
    const size_t before = MallocInUse();
    auto value = std::make_unique<Value>();
    for (size_t i = 0; i < kElements; ++i) {
      fill(*value, i, rng);
    }
    state.counters["heap_bytes_per_element"] =
        static_cast<double>(value->MemoryUsage()) / kElements;
    state.counters["malloc_bytes_per_element"] =
        static_cast<double>(MallocInUse() - before) / kElements;
    state.SetLabel(value->EncodingName());
  }
}

void BM_Memory_BigHash(benchmark::State& state) {
  MeasureOne<HashValue>(state, [](HashValue& h, size_t i, std::mt19937_64& rng) {
    h.Set("f" + std::to_string(i), RandomText(rng, 8), kLimits);
  });
}
BENCHMARK(BM_Memory_BigHash)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_Memory_BigSet(benchmark::State& state) {
  MeasureOne<SetValue>(state, [](SetValue& s, size_t i, std::mt19937_64&) {
    s.Add("member:" + std::to_string(i), kLimits);
  });
}
BENCHMARK(BM_Memory_BigSet)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_Memory_BigList(benchmark::State& state) {
  MeasureOne<ListValue>(state, [](ListValue& l, size_t, std::mt19937_64& rng) {
    l.PushBack(RandomText(rng, 8), kLimits);
  });
}
BENCHMARK(BM_Memory_BigList)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hotkv::types

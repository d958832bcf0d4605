// KeySizeHistogram: what INFO keysizes reports (Redis 8): per database, how many keys of
// each basic type fall in each power-of-two size bin — strings by length in bytes, lists,
// sets, sorted sets and hashes by element count. Streams and vector sets are not counted
// (Redis counts only its five basic types).
//
//   bin 0: size 0 (an empty string)     bin b >= 1: sizes [2^(b-1), 2^b)
//
// so the labels are 0, 1, 2, 4, ..., 512, 1K, 2K, ... as in Redis.
//
// Each DbTable (one database in one shard) owns a histogram, allocated per type on the
// first key of that type, and keeps it exact under the shard lock: a key is counted when
// it enters the table (Database::Insert, Replace), uncounted when it leaves (Detach: DEL,
// RENAME, MOVE, expiry, eviction), and moved between bins after a command changed its
// value (Database::UpdateKeySize, called by CommandContext::KeyModified). The entry
// remembers the bin it is counted in (Entry::size_bin), so a change needs no "before"
// snapshot. FLUSH drops the table's histogram with the table; SWAPDB swaps them with the
// tables. INFO sums the shards (Keyspace::KeySizes).
//
// Thread safety: a histogram is guarded by the lock of the shard that owns its table.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/entry.h"

namespace hotkv {

class KeySizeHistogram {
 public:
  static constexpr int kTypes = 5;  // string, list, set, zset, hash (ValueType 0..4)
  // 41 bins reach 2^40 elements; anything larger (over a terabyte in one key) is counted
  // in the last bin. Strings are at most 4 GB (bin 32).
  static constexpr int kBins = 41;

  static bool Counts(ValueType t) { return static_cast<uint8_t>(t) < kTypes; }
  static uint8_t BinOf(uint64_t size) {
    if (size == 0) {
      return 0;
    }
    int b = 64 - __builtin_clzll(size);
    return static_cast<uint8_t>(b < kBins ? b : kBins - 1);
  }

  void Add(ValueType t, uint8_t bin) {
    std::unique_ptr<uint64_t[]>& row = rows_[static_cast<uint8_t>(t)];
    if (row == nullptr) {
      row.reset(new uint64_t[kBins]());
    }
    row[bin]++;
  }
  // Requires a matching Add.
  void Remove(ValueType t, uint8_t bin) { rows_[static_cast<uint8_t>(t)][bin]--; }

  // Adds this histogram's counts into `sum` (kTypes x kBins, row-major).
  void AddTo(uint64_t* sum) const {
    for (int t = 0; t < kTypes; t++) {
      if (rows_[t] != nullptr) {
        for (int b = 0; b < kBins; b++) {
          sum[t * kBins + b] += rows_[t][b];
        }
      }
    }
  }

 private:
  std::unique_ptr<uint64_t[]> rows_[kTypes];
};

// The size INFO keysizes bins a key by: bytes of a string, elements of a collection.
inline uint64_t KeySizeOf(const Entry* e) {
  return e->is_string() ? e->str_size() : ObjectLength(e->type(), e->object());
}

// The label Redis prints for a bin: "0", "1", "2", ..., "512", "1K", ..., "512K", "1M" ...
const char* KeySizeBinLabel(int bin);

}  // namespace hotkv

// Writing the keyspace as an RDB file (dump.rdb) and reading one back into it: the
// pieces SAVE, BGSAVE's child, DEBUG RELOAD and start-up loading share.
//
//   Result<WriteStats> st = WriteSnapshotFile(keyspace, "dump.rdb", opts, now_ms);
//
// WriteSnapshotFile writes temp-<pid>.rdb in the working directory (`dir`: the server
// chdirs there), fsyncs it, renames it over the destination and fsyncs the directory, so
// the destination is always either the old file or the whole new one. It reads the
// shards without locking them: the caller holds every shard lock (SAVE) or is a forked
// child whose memory nobody else changes (BGSAVE).
//
// LoadSnapshotFile inserts the keys of a file through Database views (keys expired by
// now are skipped, as Redis's master does). `take_locks`: lock each key's shard around
// its insertion (start-up loading, while workers answer -LOADING); false when the caller
// holds every shard lock (DEBUG RELOAD).
//
// Thread safety: as described for each function; no state of its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "engine/keyspace.h"
#include "rdb/rdb.h"

namespace hotkv::persistence {

struct WriteStats {
  uint64_t keys = 0;
  uint64_t bytes = 0;
};

// Per-key options. What the file keeps of each key's access time, as Redis: with an LRU
// maxmemory-policy the idle seconds (IDLE), with an LFU one the decayed counter (FREQ); loading
// sets them back under the same policy (Redis's objectSetLRUOrLFU).
struct AccessStamp {
  enum class Mode { kNone, kLru, kLfu };
  Mode mode = Mode::kNone;
  uint32_t lru_clock = 0;      // LRU: the server's clock (seconds since start)
  uint32_t now_minutes = 0;    // LFU: minutes since the epoch
  int64_t lfu_decay_time = 1;  // LFU: lfu-decay-time
  // Testing aids (Redis's rdb-key-save-delay / key-load-delay): microseconds of sleep
  // after each key written / loaded; 0 or less: none.
  int64_t key_delay_us = 0;
};

// The aux fields at the head of every file HotKV writes (`aof_base`: an AOF's RDB base).
std::vector<std::pair<std::string, std::string>> SnapshotAux(int64_t now_ms, bool aof_base = false);
// After a load: has the search module (server/search_hooks.h) rebuild the indexes a file's
// aux fields define. `shards_locked`: the caller holds every shard lock.
void RestoreSearchIndexes(const std::vector<std::pair<std::string, std::string>>& aux,
                          bool shards_locked);
// The function libraries (server/function_hooks.h) as the file's function section, right
// after FileWriter::Begin, as Redis writes them before the keys.
Status WriteFunctionSection(rdb::FileWriter& w);
// Has `opts` hand the libraries of a file read to the function registry (a library of
// the same name is replaced), unless opts.on_function is set already.
void LoadFunctionsWith(rdb::LoadOptions* opts);
// What `access` says to write of `e`'s access time (IDLE or FREQ, or nothing).
void AccessFields(const AccessStamp& access, const Entry* e, std::optional<uint64_t>* idle,
                  std::optional<uint8_t>* freq);

// Writes every database of `ks` as one RDB file to `fd` (neither synced nor closed): keys
// expired at `now_ms` left out, IDLE/FREQ as `access` says. Used by dump.rdb saves and by
// the AOF's RDB base (`aof_base`).
Status WriteSnapshot(Keyspace& ks, int fd, const rdb::WriteOptions& opts, int64_t now_ms,
                     const AccessStamp& access, WriteStats* stats, bool aof_base = false);

Result<WriteStats> WriteSnapshotFile(Keyspace& ks, const std::string& dest,
                                     const rdb::WriteOptions& opts, int64_t now_ms,
                                     const AccessStamp& access = {});

struct LoadProgress {
  std::atomic<uint64_t> loaded_bytes{0};
  std::atomic<uint64_t> total_bytes{0};
  std::atomic<uint64_t> keys_loaded{0};
  std::atomic<uint64_t> keys_expired{0};
  std::atomic<bool> cancel{false};  // set by another thread: the load stops with an error
};

// Loads `path` into `ks` (which should be empty). An error names the file, the offset
// and the problem (rdb::LoadFile's message), or a duplicate key. With `take_locks` and
// lanes > 1 the values are decoded and inserted by `lanes` threads, each owning the
// shards ShardOf(key) % lanes (rdb::LoadFileParallel; start-up loading, while the
// workers only answer -LOADING).
Status LoadSnapshotFile(Keyspace& ks, const std::string& path, const rdb::LoadOptions& opts,
                        bool take_locks, LoadProgress* progress, const AccessStamp& access = {},
                        bool merge = false, int lanes = 1);

}  // namespace hotkv::persistence

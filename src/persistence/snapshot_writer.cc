// Writing the keyspace to an RDB file and loading one into it (see snapshot_writer.h).
#include "persistence/snapshot_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/memory_usage.h"
#include "engine/database.h"
#include "engine/eviction.h"
#include "server/function_hooks.h"
#include "server/search_hooks.h"

namespace hotkv::persistence {

namespace {

// The version HotKV reports to tools that read aux fields (redis-check-rdb prints it).
constexpr const char* kAuxRedisVer = "7.0.0";

Status Errno(const std::string& what) { return Status::IoError(what + ": " + strerror(errno)); }

}  // namespace

Status WriteFunctionSection(rdb::FileWriter& w) {
  FunctionHooks* hooks = GetFunctionHooks();
  if (hooks == nullptr) {
    return Status::Ok();
  }
  for (const std::string& code : hooks->LibraryCodes()) {
    if (Status st = w.WriteFunction(code); !st.ok()) {
      return st;
    }
  }
  return Status::Ok();
}

void LoadFunctionsWith(rdb::LoadOptions* opts) {
  FunctionHooks* hooks = GetFunctionHooks();
  if (hooks == nullptr || opts->on_function) {
    return;
  }
  opts->on_function = [hooks](std::string_view code) { return hooks->LoadLibraryFromFile(code); };
}

Status WriteSnapshot(Keyspace& ks, int fd, const rdb::WriteOptions& opts, int64_t now_ms,
                     const AccessStamp& access, WriteStats* stats, bool aof_base) {
  rdb::FileWriter w(fd, opts);
  if (Status st = w.Begin(SnapshotAux(now_ms, aof_base)); !st.ok()) {
    return st;
  }
  if (Status st = WriteFunctionSection(w); !st.ok()) {
    return st;
  }
  for (int db = 0; db < ks.num_dbs(); db++) {
    uint64_t keys = 0, with_ttl = 0;
    for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
      const DbTable& t = ks.shard(i).db(db);
      keys += t.keys.size();
      with_ttl += t.expires();
    }
    if (keys == 0) {
      continue;
    }
    // RESIZEDB is a sizing hint: keys already expired (and skipped below) count in it, as
    // they do in Redis's own files.
    if (Status st = w.SelectDb(db, keys, with_ttl); !st.ok()) {
      return st;
    }
    Status err;
    for (uint32_t i = 0; i < Keyspace::kShardCount && err.ok(); i++) {
      ks.shard(i).db(db).keys.ForEach([&](Entry* e) {
        if (!err.ok()) {
          return;
        }
        int64_t expire_ms = -1;
        if (e->has_ttl()) {
          expire_ms = e->expire_ms();
          if (expire_ms <= now_ms) {
            return;  // expired: not saved, as Redis's rdbSaveKeyValuePair
          }
        }
        std::optional<uint64_t> idle;
        std::optional<uint8_t> freq;
        AccessFields(access, e, &idle, &freq);
        err = w.WriteKey(*e, expire_ms, idle, freq);
        if (!err.ok()) {
          err = Status::IoError("Error saving key '" + std::string(e->key().substr(0, 128)) +
                                "' of DB " + std::to_string(db) + ": " + err.message());
          return;
        }
        stats->keys++;
        if (access.key_delay_us > 0) {
          usleep(static_cast<useconds_t>(access.key_delay_us));
        }
      });
    }
    if (!err.ok()) {
      return err;
    }
  }
  if (Status st = w.Finish(); !st.ok()) {
    return st;
  }
  stats->bytes = w.bytes_written();
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> SnapshotAux(int64_t now_ms, bool aof_base) {
  std::vector<std::pair<std::string, std::string>> aux = {
      {"redis-ver", kAuxRedisVer},
      {"redis-bits", "64"},
      {"ctime", std::to_string(now_ms / 1000)},
      {"used-mem", std::to_string(AllocatedBytes())},
      {"aof-base", aof_base ? "1" : "0"},
  };
  // Search index definitions (search/): an aux field other readers skip.
  if (SearchHooks* hooks = GetSearchHooks(); hooks != nullptr) {
    if (std::string defs = hooks->SavedDefinitions(); !defs.empty()) {
      aux.emplace_back(kSearchAuxField, std::move(defs));
    }
  }
  return aux;
}

void RestoreSearchIndexes(const std::vector<std::pair<std::string, std::string>>& aux,
                          bool shards_locked) {
  SearchHooks* hooks = GetSearchHooks();
  if (hooks == nullptr) {
    return;
  }
  for (const auto& [name, value] : aux) {
    if (name == kSearchAuxField) {
      hooks->RestoreDefinitions(value, shards_locked);
    }
  }
}

void AccessFields(const AccessStamp& access, const Entry* e, std::optional<uint64_t>* idle,
                  std::optional<uint8_t>* freq) {
  if (access.mode == AccessStamp::Mode::kLru) {
    *idle = access.lru_clock > e->access_clock() ? access.lru_clock - e->access_clock() : 0;
  } else if (access.mode == AccessStamp::Mode::kLfu) {
    *freq = LfuDecayedCounter(e, access.now_minutes, access.lfu_decay_time);
  }
}

Result<WriteStats> WriteSnapshotFile(Keyspace& ks, const std::string& dest,
                                     const rdb::WriteOptions& opts, int64_t now_ms,
                                     const AccessStamp& access) {
  const std::string tmp = "temp-" + std::to_string(getpid()) + ".rdb";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    char cwd[4096] = "unknown";
    if (getcwd(cwd, sizeof(cwd)) == nullptr) {
      strcpy(cwd, "unknown");
    }
    return Errno("Failed opening the temp RDB file " + tmp + " (in server root dir " + cwd +
                 ") for saving");
  }
  WriteStats stats;
  Status st = WriteSnapshot(ks, fd, opts, now_ms, access, &stats);
  if (st.ok() && fsync(fd) != 0) {
    st = Errno("fsync of " + tmp);
  }
  if (close(fd) != 0 && st.ok()) {
    st = Errno("close of " + tmp);
  }
  if (st.ok() && rename(tmp.c_str(), dest.c_str()) != 0) {
    st = Errno("Error moving temp DB file " + tmp + " on the final destination " + dest);
  }
  if (!st.ok()) {
    unlink(tmp.c_str());
    return st;
  }
  // The rename itself is durable once the directory is.
  std::string dir = ".";
  if (size_t slash = dest.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : dest.substr(0, slash);
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return stats;
}

Status LoadSnapshotFile(Keyspace& ks, const std::string& path, const rdb::LoadOptions& opts,
                        bool take_locks, LoadProgress* progress, const AccessStamp& access,
                        bool merge, int lanes) {
  const int64_t now_ms = WallClockMs();
  auto on_key = [&](rdb::LoadedKey&& k) -> Status {
    Entry* e = k.entry;
    if (progress->cancel.load(std::memory_order_relaxed)) {
      Entry::Free(e);
      return Status::FailedPrecondition("loading cancelled: the server is shutting down");
    }
    if (k.expire_ms >= 0 && k.expire_ms <= now_ms) {
      Entry::Free(e);
      progress->keys_expired.fetch_add(1, std::memory_order_relaxed);
      return Status::Ok();
    }
    std::string_view key = e->key();
    Shard& shard = ks.shard(Keyspace::ShardOf(key));
    if (take_locks) {
      shard.lock.lock();
    }
    Database db(&ks, k.db, now_ms);
    KeyRef ref = db.Lookup(key);
    Status st;
    if (ref && merge) {
      db.Erase(ref);  // DEBUG RELOAD MERGE: the file's key replaces it
      ref = db.Lookup(key);
    }
    if (ref) {
      st = Status::InvalidArgument("Duplicate key '" + std::string(key.substr(0, 128)) +
                                   "' in DB " + std::to_string(k.db) + " of " + path);
      Entry::Free(e);
    } else {
      db.Insert(ref, e);
      if (k.expire_ms >= 0) {
        db.SetTtl(ref, k.expire_ms);
      }
      Entry* in = ref.entry();  // SetTtl may have moved the block
      if (access.mode == AccessStamp::Mode::kLru && k.idle_seconds) {
        const uint64_t idle = std::min<uint64_t>(*k.idle_seconds, access.lru_clock);
        in->set_access_clock(access.lru_clock - static_cast<uint32_t>(idle));
      } else if (access.mode == AccessStamp::Mode::kLfu && k.lfu_freq) {
        in->set_lfu_counter(*k.lfu_freq);
        in->set_access_clock(access.now_minutes);
      }
      progress->keys_loaded.fetch_add(1, std::memory_order_relaxed);
    }
    if (take_locks) {
      shard.lock.unlock();
    }
    if (access.key_delay_us > 0) {
      usleep(static_cast<useconds_t>(access.key_delay_us));
    }
    return st;
  };
  auto on_progress = [progress](uint64_t done, uint64_t total) {
    progress->loaded_bytes.store(done, std::memory_order_relaxed);
    progress->total_bytes.store(total, std::memory_order_relaxed);
  };
  rdb::LoadOptions with_functions = opts;
  LoadFunctionsWith(&with_functions);
  // Several lanes only when each insertion takes its shard's lock (a caller that holds
  // every lock, DEBUG RELOAD, loads on its own thread).
  if (!take_locks) lanes = 1;
  auto lane_of = [lanes](std::string_view key) {
    return static_cast<int>(Keyspace::ShardOf(key) % static_cast<uint32_t>(lanes));
  };
  Result<rdb::LoadStats> r =
      rdb::LoadFileParallel(path, with_functions, lanes, lane_of, on_key, on_progress);
  if (!r.ok()) {
    return r.status();
  }
  RestoreSearchIndexes(r.value().aux, !take_locks);
  progress->loaded_bytes.store(progress->total_bytes.load(std::memory_order_relaxed),
                               std::memory_order_relaxed);
  return Status::Ok();
}

}  // namespace hotkv::persistence

// Loading an AOF directory: RDB base through rdb::LoadFile, command files through the
// dispatcher with a LocalClient. See aof_loader.h.
#include "persistence/aof_loader.h"

#include <unistd.h>

#include <cstdio>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/keyspace.h"
#include "persistence/aof_format.h"
#include "persistence/snapshot_writer.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/local_client.h"
#include "server/server.h"
#include "server/worker.h"

namespace hotkv::persistence {

namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Status LoadRdbBase(Server& server, const std::string& path, AofLoadReport* report,
                   uint64_t* rdb_bytes) {
  rdb::LoadOptions opts;
  opts.limits = server.config().encoding_limits();
  opts.num_dbs = server.keyspace().num_dbs();
  opts.zset_limits.max_listpack_entries =
      static_cast<size_t>(server.config().zset_max_listpack_entries());
  opts.zset_limits.max_listpack_value =
      static_cast<size_t>(server.config().zset_max_listpack_value());
  LoadFunctionsWith(&opts);
  Keyspace& ks = server.keyspace();
  const int64_t now = WallClockMs();
  Result<rdb::LoadStats> st = rdb::LoadFile(path, opts, [&](rdb::LoadedKey&& k) -> Status {
    if (k.expire_ms >= 0 && k.expire_ms <= now) {
      Entry::Free(k.entry);  // already expired: skipped, as Redis's primary does
      return Status::Ok();
    }
    const std::string key(k.entry->key());
    Shard& shard = ks.shard(Keyspace::ShardOf(key));
    shard.lock.lock();
    Database db(&ks, k.db, now);
    KeyRef ref = db.Lookup(key);
    if (ref) {
      Entry::Free(db.Replace(ref, k.entry));
    } else {
      db.Insert(ref, k.entry);
    }
    if (k.expire_ms >= 0) {
      db.SetTtl(ref, k.expire_ms);
    }
    shard.lock.unlock();
    report->keys_from_rdb++;
    return Status::Ok();
  });
  if (!st.ok()) {
    return st.status();
  }
  RestoreSearchIndexes(st.value().aux, false);
  if (rdb_bytes != nullptr) {
    *rdb_bytes = st.value().bytes;
  }
  return Status::Ok();
}

Status LoadAofCommands(Server& server, Worker& worker, const std::string& path, bool last,
                       bool load_truncated, AofLoadReport* report) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return text.status();
  }
  const std::string_view data = text.value();
  const std::string name = BaseName(path);
  // An RDB preamble (Redis < 7 with aof-use-rdb-preamble, or such a file migrated into
  // the multi-part layout): the RDB first, then the commands that follow its checksum.
  size_t pos = 0;
  if (data.substr(0, 5) == "REDIS") {
    uint64_t rdb_bytes = 0;
    if (Status st = LoadRdbBase(server, path, report, &rdb_bytes); !st.ok()) {
      return st;
    }
    pos = static_cast<size_t>(rdb_bytes);
  }
  LocalClient client(server.clients().NextId(), &worker);
  client.set_authenticated(true);
  worker.AddLocalClient(&client);
  std::vector<std::string_view> args;
  size_t multi_at = std::string::npos;  // offset of an open MULTI
  Status result = Status::Ok();
  size_t valid_end = pos;
  bool torn = false;
  std::string why;
  while (pos < data.size()) {
    if (data[pos] == '#') {  // annotations (aof-timestamp-enabled "#TS:...")
      const size_t eol = data.find('\n', pos);
      if (eol == std::string_view::npos) {
        torn = true;
        break;
      }
      pos = eol + 1;
      valid_end = pos;
      continue;
    }
    const size_t start = pos;
    ParseResult r = ParseCommand(data, &pos, &args, &why);
    if (r == ParseResult::kTorn) {
      torn = true;
      break;
    }
    if (r == ParseResult::kBad) {
      result = Status::InvalidArgument("Bad file format reading the append only file " + name +
                                       " at offset " + std::to_string(start) + ": " + why);
      break;
    }
    const CommandSpec* cmd = server.commands().Find(args[0]);
    if (cmd == nullptr) {
      result = Status::InvalidArgument("Unknown command '" + std::string(args[0].substr(0, 128)) +
                                       "' reading the append only file " + name + " at offset " +
                                       std::to_string(start));
      break;
    }
    if (EqualsIgnoreCase(args[0], "multi")) {
      multi_at = start;
    } else if (EqualsIgnoreCase(args[0], "exec")) {
      multi_at = std::string::npos;
    }
    if ((report->commands & 1023) == 0) {
      RefreshCachedClock();
      worker.RunPendingWork(CachedNowMs());
    }
    Dispatch(worker, client, client.reply, args, cmd);
    client.out.Clear();
    report->commands++;
    if (multi_at == std::string::npos) {
      valid_end = pos;
    }
  }
  if (result.ok() && (torn || multi_at != std::string::npos)) {
    // Drop the torn tail (and an unfinished MULTI with it).
    if (multi_at != std::string::npos) {
      std::vector<std::string_view> discard{"DISCARD"};
      Dispatch(worker, client, client.reply, discard);
      client.out.Clear();
    }
    const size_t dropped = data.size() - valid_end;
    if (!last || !load_truncated) {
      result = Status::InvalidArgument(
          "Unexpected end of file reading the append only file " + name + " at offset " +
          std::to_string(valid_end) + " (" + std::to_string(dropped) +
          " bytes of an incomplete command" +
          (last ? "; aof-load-truncated is no" : "; not the last file") + ")");
    } else {
      fprintf(stderr,
              "# !!! Warning: short read while loading the AOF file %s !!! %zu bytes of an "
              "incomplete command dropped at offset %zu; the file is truncated there "
              "(aof-load-truncated yes)\n",
              name.c_str(), dropped, valid_end);
      if (truncate(path.c_str(), static_cast<off_t>(valid_end)) != 0) {
        result = Status::IoError("truncate " + path + " failed");
      }
      report->truncated_bytes += dropped;
    }
  }
  worker.RemoveLocalClient(&client);
  RefreshCachedClock();
  worker.RunPendingWork(CachedNowMs());
  return result;
}

Result<AofLoadReport> LoadAofDirectory(Server& server, Worker& worker, const std::string& dir,
                                       const AofManifest& manifest, bool load_truncated) {
  AofLoadReport report;
  RefreshCachedClock();
  if (!manifest.base.name.empty()) {
    const std::string path = dir + "/" + manifest.base.name;
    const bool rdb = path.size() > 4 && path.compare(path.size() - 4, 4, ".rdb") == 0;
    Status st = rdb ? LoadRdbBase(server, path, &report)
                    : LoadAofCommands(server, worker, path, manifest.incrs.empty(), load_truncated,
                                      &report);
    if (!st.ok()) {
      return st;
    }
  }
  for (size_t i = 0; i < manifest.incrs.size(); i++) {
    const std::string path = dir + "/" + manifest.incrs[i].name;
    if (access(path.c_str(), F_OK) != 0) {
      // Redis tolerates a missing last incr file (created at the next write).
      if (i + 1 == manifest.incrs.size()) {
        continue;
      }
      return Status::NotFound("The AOF file " + manifest.incrs[i].name + " doesn't exist");
    }
    Status st = LoadAofCommands(server, worker, path, i + 1 == manifest.incrs.size(),
                                load_truncated, &report);
    if (!st.ok()) {
      return st;
    }
  }
  return report;
}

}  // namespace hotkv::persistence

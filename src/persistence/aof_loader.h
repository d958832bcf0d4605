// Loading an AOF directory at start-up: the base (an RDB through rdb::LoadFile, or
// commands) and then every incremental file, in the manifest's order. Commands run through
// the dispatcher with a LocalClient (no socket), exactly as a client's would.
//
// A .aof file that starts with an RDB preamble ("REDIS...") is loaded as that RDB and then
// the commands after it, as Redis does.
//
// A torn last command of the last file (a crash in the middle of a write) is dropped and
// the file truncated before it when aof-load-truncated is yes, with a log line saying how
// many bytes; otherwise, and for any other damage, the load stops with the file name, the
// offset and what was wrong. An unfinished MULTI at the end is dropped the same way.
//
// Thread safety: runs on the start-up thread, before the workers serve.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "persistence/aof_manifest.h"

namespace hotkv {
class Server;
class Worker;
}  // namespace hotkv

namespace hotkv::persistence {

struct AofLoadReport {
  uint64_t commands = 0;
  uint64_t keys_from_rdb = 0;
  uint64_t truncated_bytes = 0;  // dropped from the last file's tail
};

// `dir`: the AOF directory's path. `worker`: the worker the commands run on.
Result<AofLoadReport> LoadAofDirectory(Server& server, Worker& worker, const std::string& dir,
                                       const AofManifest& manifest, bool load_truncated);

// Loads one file of commands (exposed for tests and hotkv-check-aof-like tools): runs every
// complete command; `last` says whether a torn tail may be truncated.
Status LoadAofCommands(Server& server, Worker& worker, const std::string& path, bool last,
                       bool load_truncated, AofLoadReport* report);

// Loads an RDB base file into the keyspace (keys past their TTL are skipped). The RDB's
// length (up to its checksum) goes to `rdb_bytes` when given: an RDB-preamble AOF goes on
// with commands there.
Status LoadRdbBase(Server& server, const std::string& path, AofLoadReport* report,
                   uint64_t* rdb_bytes = nullptr);

}  // namespace hotkv::persistence

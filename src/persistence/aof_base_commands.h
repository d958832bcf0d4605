// The AOF base as commands (aof-use-rdb-preamble no): every key of every database as the
// commands that rebuild it, as Redis's rewriteAppendOnlyFileRio writes them — SELECT, SET,
// RPUSH / SADD / ZADD / HMSET in batches of 64 items, PEXPIREAT for a TTL.
//
// Thread safety: reads the keyspace without locks; for the forked rewrite child, which has
// a private copy-on-write image (or a caller holding every shard lock).
#pragma once

#include <string>

#include "common/status.h"

namespace hotkv {
class Keyspace;
}

namespace hotkv::persistence {

// Writes the base to `path` (created, fsynced). Keys past their TTL at `now_ms` are left
// out. Vector sets go as VADD commands (a REDUCE set as a RESTORE of its DUMP payload);
// those with another metric than cosine, or made by VSIM.CREATEINDEX, are refused.
Status WriteCommandBase(const std::string& path, Keyspace& ks, int64_t now_ms);

}  // namespace hotkv::persistence

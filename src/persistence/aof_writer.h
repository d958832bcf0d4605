// The append-only file: HotKV's AofService (server/aof_service.h), registered by main.cc.
//
//   server.set_aof(persistence::MakeAofService(server));
//
// What it does:
//   - Start(): with appendonly yes, loads <dir>/<appenddirname> (manifest, base, incr
//     files; aof_loader.h) or creates it, then consumes the server's write stream.
//   - A background thread drains the write stream every few milliseconds into the current
//     incr file (write(2)); appendfsync everysec fsyncs there once a second, `no` never.
//   - appendfsync always: the workers call WaitDurable() before sending replies; the first
//     one in drains every thread's records, writes and fsyncs them, and everyone whose
//     records that covered returns (group commit).
//   - A base (turning appendonly on at run time, BGREWRITEAOF, the automatic rewrite) is an
//     RDB (.base.rdb, rdb::FileWriter) of every shard, written while every shard lock is
//     held, so it is a consistent image and the new incr file starts exactly after it; the
//     manifest is then swapped atomically and the old files deleted. This stalls commands
//     for the time of the walk (about a second per GB): the forked writer of the snapshot
//     work (BGSAVE) is the way to lift that.
//
// Thread safety: all methods are thread-safe (see aof_service.h).
#pragma once

#include <memory>

#include "server/aof_service.h"

namespace hotkv {
class Server;
}

namespace hotkv::persistence {

std::unique_ptr<AofService> MakeAofService(Server& server);

}  // namespace hotkv::persistence

// The append-only file: HotKV's AofService (server/aof_service.h), registered by main.cc.
//
//   server.set_aof(persistence::MakeAofService(server));
//
// What it does:
//   - Start(): with appendonly yes, loads <dir>/<appenddirname> (manifest, base, incr
//     files; aof_loader.h) or creates it, then consumes the server's write stream.
//   - A background thread drains the write stream every few milliseconds into the current
//     incr file (write(2)); appendfsync everysec fsyncs there once a second, `no` never.
//   - appendfsync always: a worker holds a connection's replies until IsDurable() says the
//     connection's last record is fsynced, and asks NotifyWhenDurable() to be woken; while
//     anyone waits this thread drains, writes and fsyncs back to back, each fsync covering
//     every record committed meanwhile by every worker (group commit). WaitDurable() is
//     the blocking form (WAITAOF, replies of served blocked clients).
//   - A base (turning appendonly on, BGREWRITEAOF, the automatic rewrite) is an RDB
//     (.base.rdb, rdb::FileWriter) written by a forked child: every shard is locked only
//     to switch appends to the new incr file and fork, so the image is consistent and the
//     new incr file starts exactly after it; then the manifest is swapped atomically and
//     the old files deleted.
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

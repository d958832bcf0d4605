// AofService: what the runtime asks of the append-only file, which lives in persistence/
// (aof_*.cc) and is registered by main.cc; server/ never includes it.
//
//   server.set_aof(MakeAofService(server));   // main.cc, before Run()
//   Run(): aof->Start()  (loads the AOF when appendonly yes, opens it for appending)
//   worker, before it sends replies (appendfsync always): held until IsDurable(seq), woken
//   through NotifyWhenDurable
//   CONFIG SET appendonly/appendfsync: aof->Reconfigure()
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"

namespace hotkv {

class AofService {
 public:
  virtual ~AofService() = default;

  // Start-up, before the workers serve: with appendonly yes, loads the AOF directory (or
  // creates it) and starts appending. An error stops the server (its message names the
  // file and offset).
  virtual Status Start() = 0;
  // Shutdown: writes and fsyncs what is pending, closes the files.
  virtual void Stop() = 0;
  // After CONFIG SET of appendonly / appendfsync: turning appendonly on writes a base
  // first; off closes the files.
  virtual Status Reconfigure() = 0;
  // Group commit (appendfsync always): returns once every write-stream record numbered
  // up to `seq` is written and fsynced. One fsync covers every record drained with it.
  virtual void WaitDurable(uint64_t seq) = 0;
  // The same without blocking: whether records up to `seq` are durable now, and a call of
  // `done` (on the AOF's thread, once) when they are. Workers use these so that they go on
  // serving while the AOF thread fsyncs back to back.
  virtual bool IsDurable(uint64_t seq) const = 0;
  virtual void NotifyWhenDurable(uint64_t seq, std::function<void()> done) = 0;
  // BGREWRITEAOF: starts writing a new base from the current data and a fresh
  // incremental file, in the background (with appendonly off: a one-off base and a
  // manifest naming only it, as Redis). `*scheduled` is set when another child (BGSAVE)
  // runs: the rewrite starts once it is done. Error texts are Redis's replies.
  virtual Status Rewrite(bool* scheduled) = 0;
  // The errno of the last failed write to the AOF while it is on and that write has not
  // yet succeeded on a retry (PersistenceHooks::kGateAofWriteError is raised meanwhile);
  // 0 when the last write went well.
  virtual int write_errno() const = 0;
  virtual bool enabled() const = 0;
  // INFO persistence: the aof_* lines (with CRLF), as Redis 8.8 prints them.
  virtual std::string InfoFields() = 0;
};

}  // namespace hotkv

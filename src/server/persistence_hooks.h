// PersistenceHooks: what the runtime and the server commands ask of the persistence layer
// (src/persistence/: snapshots, loading). server/ declares the interface and never
// includes persistence/; main.cc creates the implementation and installs it with
// Server::set_persistence(). Without one installed (tests that build a bare Server) the
// runtime behaves as a server with no persistence: INFO shows Redis's idle fields,
// SHUTDOWN SAVE is refused.
//
// The dispatcher's only cost is one relaxed load of Server::dispatch_gate() per command:
// the hooks raise gate bits while commands must be refused (loading, a failed BGSAVE with
// stop-writes-on-bgsave-error) and the dispatcher asks RejectCommand() only then.
//
// Thread safety: every method may be called from any worker thread (and the server's
// main thread) concurrently; implementations lock what they share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace hotkv {

class CommandSpec;
class Server;

// SHUTDOWN's save selector (and the signals': SIGTERM/SIGINT act as a plain SHUTDOWN).
enum class ShutdownSave { kDefault, kSave, kNoSave };

class PersistenceHooks {
 public:
  // Dispatch gate bits (Server::dispatch_gate()).
  static constexpr uint32_t kGateLoading = 1u << 0;        // a dataset is being loaded
  static constexpr uint32_t kGateWriteError = 1u << 1;     // MISCONF: writes refused
  static constexpr uint32_t kGateAofWriteError = 1u << 2;  // MISCONF: the AOF write failed

  virtual ~PersistenceHooks() = default;

  // Called by the dispatcher when a gate bit is set: the error reply for `cmd` (with its
  // leading '-' left out), or nothing when it may run. `in_multi_write`: EXEC whose queue
  // holds a write command.
  virtual std::optional<std::string> RejectCommand(const CommandSpec* cmd, bool in_multi_write) = 0;

  // The fields of INFO persistence (without the "# Persistence" header).
  virtual std::string InfoFields() = 0;
  // LASTSAVE: unix time (seconds) of the last successful save (start-up time before one).
  virtual int64_t LastSaveUnix() = 0;

  // FLUSHALL has emptied every database (Redis's flushAllDataAndResetRDB): a running
  // BGSAVE is killed, and with save rules set a snapshot of the empty dataset is written
  // at once. `locks_held`: the caller holds every shard lock (inside EXEC).
  virtual void OnFlushAll(bool locks_held) = 0;

  // SHUTDOWN and the signals: saves as `mode` asks (kDefault: when save rules are set).
  // An error means the server keeps running (unless `force`); its text is logged.
  virtual Status PrepareShutdown(ShutdownSave mode, bool force) = 0;
  // After the workers stopped: writes that slipped in after PrepareShutdown's save are
  // saved too (no client runs any more). Kills a BGSAVE child that is still running.
  virtual void FinishShutdown() = 0;

  // DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save (unless !save), empty the keyspace
  // (unless !flush), load the file back (`merge`: a key of the file replaces a key of the
  // same name; without it a duplicate is an error). An error is the reply. The caller
  // holds no shard lock.
  virtual Status DebugReload(bool save, bool flush, bool merge) = 0;

  // Called once by Server::Run when the workers listen (starts loading and the
  // persistence thread).
  virtual void OnServerStarted() = 0;
};

}  // namespace hotkv

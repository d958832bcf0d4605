// CommandContext: what a command handler gets — its arguments, the reply builder, the
// client, the server — plus the database view for the client's selected database.
//
//   void GetCommand(CommandContext& ctx) {
//     Entry* e = ctx.db().Find(ctx.arg(1));
//     if (e == nullptr) { return ctx.rb().Null(); }
//     if (!e->is_string()) { return ctx.rb().Error(errors::kWrongType); }
//     ctx.rb().Bulk(e->str());
//   }
//
// The dispatcher has already checked arity and locked the shards of every key the key
// specs name, so a handler just uses db(). Commands flagged all_shards (KEYS, SCAN,
// FLUSHDB...) lock shard by shard themselves through ForEachShard(), which knows when
// EXEC already holds every lock.
//
// After changing a key a handler calls KeyModified(), which invalidates WATCHes, emits
// the keyspace notification and counts the change (Redis's signalModifiedKey +
// notifyKeyspaceEvent + dirty++), and re-bins the key for INFO keysizes (its length or
// element count may have changed; keys entering or leaving a table are counted by the
// engine itself).
//
// Thread safety: lives on the stack of the connection's worker for one command.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "common/notify_flags.h"
#include "engine/database.h"
#include "protocol/reply_builder.h"
#include "server/client.h"
#include "server/command_table.h"
#include "server/dispatcher.h"

namespace hotkv {

class Server;
class Worker;

class CommandContext {
 public:
  CommandContext(Server& server, Worker& worker, Client& client, ReplyBuilder& rb,
                 const std::vector<std::string_view>& args, const CommandSpec* cmd,
                 int64_t now_ms);
  ~CommandContext();
  CommandContext(const CommandContext&) = delete;
  CommandContext& operator=(const CommandContext&) = delete;

  const std::vector<std::string_view>& args() const { return args_; }
  std::string_view arg(size_t i) const { return args_[i]; }
  size_t argc() const { return args_.size(); }
  const CommandSpec* command() const { return cmd_; }

  ReplyBuilder& rb() { return rb_; }
  Client& client() { return client_; }
  Server& server() { return server_; }
  Worker& worker() { return worker_; }
  int64_t now_ms() const { return now_ms_; }

  // The client's selected database.
  Database& db() { return db_; }
  Database DbAt(int index) { return Database(db_.keyspace(), index, now_ms_); }
  Keyspace& keyspace() { return *db_.keyspace(); }

  // Inside EXEC: locks are held by EXEC and blocking commands must not block.
  bool in_exec() const { return in_exec_; }
  void set_in_exec(bool v) { in_exec_ = v; }
  bool all_shards_locked() const { return all_locked_; }
  void set_all_shards_locked(bool v) { all_locked_ = v; }

  // Calls fn(Shard&, shard_index) for every shard with its lock held.
  template <typename F>
  void ForEachShard(F fn) {
    Keyspace& ks = keyspace();
    for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
      Shard& s = ks.shard(i);
      if (!all_locked_) {
        s.lock.lock();
      }
      fn(s, i);
      if (!all_locked_) {
        s.lock.unlock();
      }
    }
  }

  // ForEachShard for the read-only walks other clients run (KEYS, SCAN, DBSIZE): a shard
  // held by a busy script (dispatcher.h AddBusyShards) stops the walk, which returns
  // false (the caller replies BusyScriptError(), as Redis refuses the command).
  template <typename F>
  bool ForEachShardUnlessBusy(F fn) {
    Keyspace& ks = keyspace();
    for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
      Shard& s = ks.shard(i);
      if (!all_locked_ && !s.lock.try_lock() && !LockContendedUnlessBusy(ks, i, false)) {
        return false;
      }
      const bool more = fn(s, i);
      if (!all_locked_) {
        s.lock.unlock();
      }
      if (!more) {
        break;
      }
    }
    return true;
  }

  // Keys named by data (SORT's BY/GET patterns) may live in shards the dispatcher did not
  // lock. HoldsShard tells whether this command holds `shard`'s lock; a handler that needs
  // one it does not hold calls RequestShard for each and returns before changing or
  // replying anything: the dispatcher then runs it again with those shards locked too
  // (never inside EXEC, which locks every shard for such a command: all_shards_in_exec).
  bool HoldsShard(uint32_t shard) const;
  void RequestShard(uint32_t shard) { requested_shards_.push_back(shard); }
  bool shards_requested() const { return !requested_shards_.empty(); }
  std::vector<uint32_t> TakeRequestedShards() {
    std::vector<uint32_t> v;
    v.swap(requested_shards_);
    return v;
  }

  // Records a change of `key` in database `db` (-1: the selected one): WATCH, keyspace
  // notification `event` of class `notify_class`, dirty counter, INFO keysizes. Call it
  // after the change, with the key's shard locked.
  void KeyModified(std::string_view key, int64_t notify_class, std::string_view event,
                   int db = -1);
  // Changes counted beyond KeyModified's one (rdb_changes_since_last_save, save rules),
  // where Redis counts elements: SADD of 3 new members is 3 changes (`n` = 2 more); or
  // fewer (n < 0, never more than this command's KeyModified calls): RENAME is one.
  void AddDirty(int64_t n);
  // A change Redis counts (dirty, notification, blocked clients woken) without touching
  // WATCH: consumer-group state (XGROUP, XACK, XCLAIM, XREADGROUP's PEL, XSETID), which
  // Redis changes without signalModifiedKey.
  void KeyChangedUnwatched(std::string_view key, int64_t notify_class, std::string_view event,
                           int db = -1);
  // A notification without a modification (e.g. "expired" is sent by the engine; this is
  // for events like keymiss). Cheap when notifications are off.
  void Notify(int64_t notify_class, std::string_view event, std::string_view key, int db = -1);
  // A command replaced the value of an existing key (SET, RENAME, COPY REPLACE ...):
  // "overwritten" and, when the type changed, "type_changed" notifications.
  void KeyOverwritten(std::string_view key, ValueType old_type, ValueType new_type, int db = -1) {
    Notify(notify::kOverwritten, "overwritten", key, db);
    if (old_type != new_type) {
      Notify(notify::kTypeChanged, "type_changed", key, db);
    }
  }
  // Counts a key lookup for INFO keyspace_hits/misses.
  void CountLookup(bool hit);
  // Records an access to `e` for OBJECT IDLETIME / FREQ (unless CLIENT NO-TOUCH).
  void TouchEntry(Entry* e);

  // The write stream (server/write_stream.h). A write command that changed the data
  // (KeyModified) goes into the stream as it ran; a handler whose command must be replayed
  // differently (relative TTL -> PXAT, SPOP -> SREM, a blocking pop -> the pop it did)
  // calls PropagateAs with the commands to record instead (in the selected database, or
  // `db`), or PreventPropagation for none. Guard argument building with propagating():
  // nothing is recorded while nobody consumes the stream.
  bool propagating() const;
  void PropagateAs(const std::vector<std::string_view>& args, int db = -1);
  void PropagateAs(std::initializer_list<std::string_view> args, int db = -1) {
    PropagateAs(std::vector<std::string_view>(args), db);
  }
  void PreventPropagation();

  // Parses helpers that reply with Redis's errors on failure.
  std::optional<int64_t> IntArg(size_t i, std::string_view err = errors::kNotInteger);
  std::optional<double> DoubleArg(size_t i, std::string_view err = errors::kNotFloat);

  // Shows argument i as "(redacted)" in the slow log (a password), as Redis's
  // redactClientCommandArgument.
  void RedactArg(size_t i) {
    if (i < 64) {
      redacted_ |= uint64_t{1} << i;
    }
  }
  uint64_t redacted_args() const { return redacted_; }

  // Marks the command as failed (for INFO commandstats failed_calls) without an error
  // reply of the usual kind.
  bool failed() const { return failed_; }
  void set_failed() { failed_ = true; }

 private:
  Server& server_;
  Worker& worker_;
  Client& client_;
  ReplyBuilder& rb_;
  const std::vector<std::string_view>& args_;
  const CommandSpec* cmd_;
  int64_t now_ms_;
  Database db_;
  bool in_exec_ = false;
  bool all_locked_ = false;
  bool failed_ = false;
  uint64_t redacted_ = 0;
  std::vector<uint32_t> requested_shards_;
};

}  // namespace hotkv

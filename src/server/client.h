// Client: the per-connection state that commands read and change (selected database,
// protocol version, name, transaction queue, flags), separate from the socket plumbing
// in Connection.
//
// A Client need not have a socket: a LocalClient (server/local_client.h) runs commands
// in-process (tests, and later AOF loading, replica apply and scripts) through the same
// dispatcher. What differs is behind two virtuals: output(), where replies produced
// after the command returned (a woken blocked command's) go, and AsConnection().
//
// Thread safety: owned by the connection's worker. Fields that CLIENT LIST / INFO read
// from other threads are atomics or sit behind info_mu_. The atomics are written by the
// owner only, with a relaxed load and store (OwnerAdd), never a locked read-modify-write,
// so keeping them costs the hot path next to nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

class CommandSpec;
class Connection;
class NetConnection;
class ReplyBuilder;
class Worker;
struct BlockState;
struct Waiter;
struct SubscriptionState;

// A command queued by MULTI (its arguments copied out of the read buffer).
struct QueuedCommand {
  const CommandSpec* cmd;
  std::vector<std::string> args;
};

// A key watched by WATCH: (db, key). The registration itself lives in the key's shard.
struct WatchedKey {
  int db;
  std::string key;
};

class Client {
 public:
  enum class ReplyMode : uint8_t { kOn, kOff, kSkipNext, kSkipThis };

  Client(uint64_t id, Worker* worker);
  virtual ~Client();

  // Where replies delivered later go (a blocked command served by another client's
  // write, CLIENT UNBLOCK, a timeout). Null for a stand-in client that only runs one
  // command (the proxy a blocked command is served with).
  virtual ReplyBuilder* output() { return nullptr; }
  // The connection behind this client, or null for an in-process client.
  virtual Connection* AsConnection() { return nullptr; }
  // Its socket half (traffic totals for CLIENT LIST), or null.
  virtual const NetConnection* net() const { return nullptr; }

  uint64_t id() const { return id_; }
  Worker* worker() const { return worker_; }
  int worker_index() const;

  // Selected database; written by the owner, read by CLIENT LIST.
  int db() const { return db_.load(std::memory_order_relaxed); }
  void set_db(int db) { db_.store(db, std::memory_order_relaxed); }

  int resp() const { return resp_; }
  void set_resp(int v) {
    resp_ = v;
    resp_flag.store(v, std::memory_order_relaxed);
  }

  bool authenticated() const { return authenticated_; }
  void set_authenticated(bool v) { authenticated_ = v; }

  std::string name() const;
  void set_name(std::string_view n);
  std::string lib_name() const;
  std::string lib_ver() const;
  void set_lib_name(std::string_view v);
  void set_lib_ver(std::string_view v);

  // Transaction state.
  bool in_multi() const { return in_multi_; }
  void BeginMulti() {
    in_multi_ = true;
    multi_error_ = false;
    multi_len.store(0, std::memory_order_relaxed);
    multi_mem.store(0, std::memory_order_relaxed);
  }
  void EndMulti() {
    in_multi_ = false;
    multi_error_ = false;
    multi_queue_.clear();
    multi_len.store(-1, std::memory_order_relaxed);
    multi_mem.store(0, std::memory_order_relaxed);
  }
  void FlagMultiError() { multi_error_ = true; }
  bool multi_error() const { return multi_error_; }
  std::vector<QueuedCommand>& multi_queue() { return multi_queue_; }
  std::vector<WatchedKey>& watched_keys() { return watched_keys_; }
  // Set (from any thread, under the watched key's shard lock) when a WATCHed key changed.
  std::atomic<bool>& watch_dirty() { return watch_dirty_; }
  bool watch_dirty_flag() const { return watch_dirty_.load(std::memory_order_relaxed); }

  ReplyMode reply_mode() const { return reply_mode_; }
  void set_reply_mode(ReplyMode m) { reply_mode_ = m; }

  // Where this client's pub/sub pushes go while one of its commands runs (set by
  // Dispatch, null otherwise). As in Redis >= 7.2, pushes ignore CLIENT REPLY:
  // - silenced_pushes(): the (un)subscribe confirmations of a command whose replies
  //   CLIENT REPLY OFF/SKIP silences (null when its replies are on: they go inline);
  // - pending_pushes(): messages raised by the client's own command (a PUBLISH it
  //   receives, a keyspace event of its own write), sent after the command's whole
  //   reply (after EXEC's array), never inside it.
  ReplyBuilder* silenced_pushes() const { return silenced_pushes_; }
  ReplyBuilder* pending_pushes() const { return pending_pushes_; }
  void set_push_outputs(ReplyBuilder* silenced, ReplyBuilder* pending) {
    silenced_pushes_ = silenced;
    pending_pushes_ = pending;
  }

  // Cluster mode: ASKING (one command, or one transaction) and READONLY.
  // asking_state(): 0 none, 1 armed for the next command, 2 set by the running ASKING.
  uint8_t asking_state() const { return asking_; }
  void set_asking_state(uint8_t v) { asking_ = v; }
  bool cluster_readonly() const { return cluster_readonly_; }
  void set_cluster_readonly(bool v) { cluster_readonly_ = v; }

  bool no_evict() const { return no_evict_; }
  void set_no_evict(bool v) {
    no_evict_ = v;
    no_evict_flag.store(v, std::memory_order_relaxed);
  }
  bool no_touch() const { return no_touch_; }
  void set_no_touch(bool v) {
    no_touch_ = v;
    no_touch_flag.store(v, std::memory_order_relaxed);
  }
  std::atomic<bool> no_evict_flag{false}, no_touch_flag{false};
  // MONITOR (server/monitor.h): set by MonitorFeed::Add, cleared by RESET.
  std::atomic<bool> monitor_flag{false};
  // How MONITOR shows an in-process client's commands ("lua" for a script's); null: the
  // address, and an in-process client (no address) is not shown at all.
  const char* monitor_origin = nullptr;
  std::atomic<int> resp_flag{2};

  // Client-side caching (server/tracking.h): TrackingFlag bits (written by the owner,
  // read by CLIENT LIST), the REDIRECT client's id (0: none), the BCAST prefixes, sorted
  // (owner only).
  uint32_t tracking_flags() const { return tracking_flags_.load(std::memory_order_relaxed); }
  void set_tracking_flags(uint32_t f) { tracking_flags_.store(f, std::memory_order_relaxed); }
  std::atomic<uint64_t> tracking_redirect{0};
  std::vector<std::string> tracking_prefixes;

  // Close after the pending replies are written (QUIT, protocol error, CLIENT KILL).
  bool close_after_reply() const { return close_after_reply_; }
  void set_close_after_reply() {
    close_after_reply_ = true;
    close_flag.store(true, std::memory_order_relaxed);
  }

  // Activity, for CLIENT LIST and idle timeouts.
  int64_t created_ms() const { return created_ms_; }
  int64_t last_interaction_ms() const { return last_interaction_ms_.load(std::memory_order_relaxed); }
  void set_last_interaction_ms(int64_t ms) { last_interaction_ms_.store(ms, std::memory_order_relaxed); }
  const CommandSpec* last_command() const { return last_cmd_.load(std::memory_order_relaxed); }
  void set_last_command(const CommandSpec* c) { last_cmd_.store(c, std::memory_order_relaxed); }

  // Blocking commands (BLPOP...): non-null while blocked.
  BlockState* block_state() const { return block_.get(); }
  std::unique_ptr<BlockState>& block_slot() { return block_; }
  bool blocked() const { return block_ != nullptr; }

  // The waiter of a blocked client, readable by other threads (CLIENT UNBLOCK).
  void SetUnblockHandle(std::shared_ptr<Waiter> w);
  std::shared_ptr<Waiter> UnblockHandle() const;

  // Pub/Sub subscriptions (created on first SUBSCRIBE).
  SubscriptionState* subscriptions() const { return subs_.get(); }
  std::unique_ptr<SubscriptionState>& subscriptions_slot() { return subs_; }
  // Number of channels + patterns + shard channels, kept by the pub/sub code.
  size_t subscription_count() const { return sub_count_.load(std::memory_order_relaxed); }
  void set_subscription_count(size_t n) { sub_count_.store(n, std::memory_order_relaxed); }
  // RESP2 clients with subscriptions are in "subscribed mode".
  bool in_subscribed_mode() const { return resp_ == 2 && subscription_count() > 0; }

  // SCRIPT DEBUG mode for this client's next EVAL (scripting/lua_debugger.h): 0 off,
  // 1 YES, 2 SYNC. Owner thread only.
  uint8_t lua_debug = 0;

  // Socket facts for CLIENT LIST / CLIENT KILL filters (set once at accept).
  std::string addr;   // "ip:port" of the peer
  std::string laddr;  // "ip:port" of our end
  int fd = -1;

  // Counters for CLIENT LIST / INFO, updated by the owner. Buffer figures are published
  // by the connection after each batch (Connection::PublishInfo); see FormatClientInfo.
  std::atomic<uint64_t> qbuf{0}, qbuf_free{0}, obl{0}, oll{0}, omem{0}, tot_mem{0};
  std::atomic<uint64_t> rbs{0}, rbp{0};  // reply buffer size, and its recent peak use
  std::atomic<uint8_t> events{kEventRead};  // kEventRead | kEventWrite
  std::atomic<int64_t> multi_len{-1};  // queued commands, -1 outside MULTI
  std::atomic<uint64_t> watch_len{0};
  std::atomic<bool> blocked_flag{false};  // mirrors blocked() for other threads
  std::atomic<bool> close_flag{false};    // mirrors close_after_reply()
  std::atomic<uint64_t> sub_channels{0}, sub_patterns{0}, sub_shard{0};
  std::atomic<bool> kill_requested{false};
  // Argument bytes of the command held: the running one while CLIENT INFO / LIST formats
  // its own caller, a blocked command's while it waits; 0 otherwise (argv-mem).
  std::atomic<uint64_t> argv_mem{0};
  std::atomic<uint64_t> multi_mem{0};  // argument bytes of the commands queued by MULTI
  std::atomic<uint64_t> tot_cmds{0};   // commands run (those rejected before running not)
  // Commands run from the socket, and the groups of up to 16 they came in (one turn's
  // commands 16 at a time, as Redis's lookahead parses them): avg-pipeline-len-sum / -cnt.
  std::atomic<uint64_t> pipeline_cmds{0}, pipeline_batches{0};

  static constexpr uint8_t kEventRead = 1, kEventWrite = 2;
  // The owner's increment of one of the counters above.
  static void OwnerAdd(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

 private:
  const uint64_t id_;
  Worker* const worker_;
  std::atomic<int> db_{0};
  int resp_ = 2;
  bool authenticated_ = true;
  bool in_multi_ = false;
  uint8_t asking_ = 0;
  bool cluster_readonly_ = false;
  bool multi_error_ = false;
  bool no_evict_ = false;
  bool no_touch_ = false;
  bool close_after_reply_ = false;
  ReplyMode reply_mode_ = ReplyMode::kOn;
  ReplyBuilder* silenced_pushes_ = nullptr;
  ReplyBuilder* pending_pushes_ = nullptr;
  std::vector<QueuedCommand> multi_queue_;
  std::vector<WatchedKey> watched_keys_;
  std::atomic<bool> watch_dirty_{false};
  std::atomic<uint32_t> tracking_flags_{0};
  std::unique_ptr<BlockState> block_;
  std::unique_ptr<SubscriptionState> subs_;
  std::atomic<size_t> sub_count_{0};
  int64_t created_ms_;
  std::atomic<int64_t> last_interaction_ms_;
  std::atomic<const CommandSpec*> last_cmd_{nullptr};

  mutable std::mutex info_mu_;
  std::string name_, lib_name_, lib_ver_;
  std::shared_ptr<Waiter> unblock_handle_;  // guarded by info_mu_
};

}  // namespace hotkv

namespace hotkv {
// One CLIENT LIST / CLIENT INFO line (without the trailing newline). Safe to call for a
// client of another worker while the client registry is locked.
std::string FormatClientInfo(const Client& c, int64_t now_ms);
}  // namespace hotkv

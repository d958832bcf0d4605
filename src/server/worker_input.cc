// The input half of a worker: what its I/O backend reports (accepted sockets, input,
// hang-ups, drained output), running the commands of a batch (with pipeline-prefetch),
// and handing the replies back to the backend.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "engine/database.h"
#include "net/socket.h"
#include "server/blocking.h"
#include "server/command_clock.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/pubsub_delivery.h"
#include "server/server.h"
#include "server/worker.h"
#include "server/write_stream.h"

namespace hotkv {

namespace {
// Stop reading from a client whose unsent replies pass this (it is not reading them);
// resume when they drain. Normal clients are never disconnected for it.
constexpr size_t kOutputPauseBytes = 64 * 1024 * 1024;
// Input one ProcessInput call runs for a connection before it lets the others (and the
// sends of everyone's replies) go first; the rest waits in the resume list. One read can
// bring a megabyte of pipelined commands; without a budget a flooding client delays
// everyone, and one that went away has its whole backlog executed before the failed
// send of its first reply is noticed (Redis reads 16 KB per client per turn).
constexpr size_t kInputBudgetBytes = 64 * 1024;
// Stop reading from a client while more than this of complete, unrun commands waits in
// its buffer: the rest stays in the kernel, and TCP slows the client down.
constexpr size_t kInputPauseBytes = 1024 * 1024;
// A command with more arguments than this (or an inline one) restarts the turn's command
// clock chain (server/command_clock.h), so that its parse is not in any
// command's time. Parsing takes ~20 instructions per argument: below this, well under
// the microsecond the timing figures are kept in.
constexpr size_t kClockChainMaxArgs = 32;
// A connection's buffers keep up to this much capacity when they empty; a larger one
// (a big pipeline or reply) is freed. It is used memory under maxmemory, per connection.
constexpr size_t kKeepBufferBytes = 64 * 1024;
// ...except the output buffers of a connection whose recent batches of replies filled
// more than a quarter of a larger buffer (CLIENT LIST's rbp, the peak of the last 5 s):
// they keep up to this while it is busy, so that a steady stream of big batches (30
// pipelined MGETs of 10 values: 81 KB) does not regrow its buffer from 1 KB by doubling
// on every batch (7 reallocs with copies) and have the allocator purge and fault the
// pages in again. Worker::Cron shrinks them to kKeepBufferBytes once the connection has
// sent no command for 5 s (kIdleShrinkMs).
constexpr size_t kKeepBusyOutputBytes = 1024 * 1024;
// The input buffer keeps more: a request of a few hundred KB (PCACHE.LONGEST or MGET of
// thousands of keys) arrives in 16 KB pieces, and a buffer regrown from 64 KB each time
// copies itself on every doubling (half the memcpy of a 4,000-key LONGEST).
constexpr size_t kKeepInputBytes = 256 * 1024;
}  // namespace

void Worker::OnAccepted(int fd) {
  if (stop_.load(std::memory_order_acquire)) {
    close(fd);
    return;
  }
  // Every worker listens on the port (SO_REUSEPORT), and the kernel picks the listener by
  // a hash of the connection's addresses: a handful of connections often land on one
  // worker while another idles (two clients share a worker half the time). So each new
  // connection goes to the worker serving the fewest, preferring this one on a tie and
  // skipping one held by a busy script (it adopts only after the script).
  Worker* target = this;
  int fewest = assigned_connections();
  for (int i = 0, n = server_->num_workers(); i < n; ++i) {
    Worker& w = server_->worker(i);
    const int count = w.assigned_connections();
    if (&w != this && count < fewest && !w.busy_flag_.load(std::memory_order_relaxed) &&
        !w.stopping()) {
      fewest = count;
      target = &w;
    }
  }
  target->assigned_connections_.fetch_add(1, std::memory_order_relaxed);
  if (target == this) {
    Adopt(fd);
  } else {
    target->Post([target, fd] { target->Adopt(fd); });
  }
}

void Worker::Adopt(int fd) {
  if (stop_.load(std::memory_order_acquire)) {
    assigned_connections_.fetch_sub(1, std::memory_order_relaxed);
    close(fd);
    return;
  }
  WorkerStats::Inc(stats_.connections);
  if (!server_->clients().TryReserve(server_->config().maxclients())) {
    assigned_connections_.fetch_sub(1, std::memory_order_relaxed);
    static const char kMsg[] = "-ERR max number of clients reached\r\n";
    ssize_t rc = write(fd, kMsg, sizeof(kMsg) - 1);
    (void)rc;
    close(fd);
    WorkerStats::Inc(stats_.rejected_connections);
    return;
  }
  ConfigureAccepted(fd, static_cast<int>(server_->config().tcp_keepalive()));
  auto* c = new Connection(server_->clients().NextId(), this, fd);
  c->reply.set_error_sink(&error_counts_);
  c->set_authenticated(!server_->config().requirepass_set());
  c->addr = PeerAddress(fd);
  c->laddr = LocalAddress(fd);
  conns_[c->id()] = c;
  server_->clients().Add(c);
  backend_->AddConnection(c);
}

void Worker::OnInput(NetConnection* nc) {
  Connection* c = Connection::From(nc);
  if (c->closed || stop_.load(std::memory_order_acquire)) {
    return;
  }
  if (busy_serving_ && (c == input_held_ || c->kill_requested.load(std::memory_order_relaxed)))
      [[unlikely]] {
    return;  // the busy script's caller (its input is held), or one closing after it
  }
  // Backends report input from inside their wait, so "now" is taken per batch here.
  RefreshCachedClock();
  // The limit holds whatever the client is doing (a blocked client that keeps sending
  // does not parse its input until it is unblocked).
  if (static_cast<int64_t>(c->in.size() - c->in_start) > server_->config().client_query_buffer_limit()) {
    c->reply.Error("ERR Protocol error: query buffer limit exceeded");
    WorkerStats::Inc(stats_.query_limit_disconnections);
    c->set_close_after_reply();
    Flush(c);
    return;
  }
  ProcessInput(c);
  if (!c->closed) {
    Flush(c);
  }
}

void Worker::OnHangup(NetConnection* nc) { CloseConnection(Connection::From(nc)); }

void Worker::OnWake() {
  if (busy_serving_) [[unlikely]] {
    // Mailbox jobs may lock shards the busy script holds: they run after it (Run).
    if (!backend_->ConsumesWakeFd()) {
      uint64_t v;
      ssize_t rc = read(event_fd_, &v, sizeof(v));  // epoll would report it again
      (void)rc;
    }
    deferred_wake_ = true;
    return;
  }
  RefreshCachedClock();  // mailbox jobs may run commands (retried blocked clients)
  DrainMailbox();
}

void Worker::OnOutputDrained(NetConnection* nc) {
  Connection* c = Connection::From(nc);
  if (c->closed) {
    return;
  }
  if (c->close_after_reply()) {
    CloseConnection(c);
    return;
  }
  // (rbp as last published: by the Flush that handed a batch to the backend while its
  // send was pending, else by an earlier drain. So the first big batch may still free its
  // buffer; the next ones within 5 s keep theirs.)
  const size_t peak = c->rbp.load(std::memory_order_relaxed);
  const size_t keep = std::clamp<size_t>(peak * 4, kKeepBufferBytes, kKeepBusyOutputBytes);
  c->out.ShrinkIfIdle(keep);
  c->sending.ShrinkIfIdle(keep);
  const bool was_paused = c->reading_paused;
  UpdateReading(c);
  if (was_paused && !c->reading_paused) {
    resume_.push_back(c);  // input may be waiting in the buffer
  }
  c->PublishInfo();
}

void Worker::UpdateReading(Connection* c) {
  const bool pause = c->pending_output() > kOutputPauseBytes ||
                     (c->input_backlog && c->in.size() - c->in_start > kInputPauseBytes);
  if (pause != c->reading_paused) {
    backend_->SetReading(c, !pause);
  }
}

void Worker::ProcessInput(Connection* c) {
  // The commands of this turn read the clock once each (server/command_clock.h): each starts when
  // the previous one ended. Not while a script is busy (its caller's command is open).
  const CommandClockTurn clock_turn(!busy_serving_);
  Config& cfg = server_->config();
  ParseLimits limits;
  limits.max_bulk_len = cfg.proto_max_bulk_len();
  limits.authenticated = c->authenticated();
  const size_t budget_end = c->in_start + kInputBudgetBytes;
  bool budget_spent = false;
  size_t ran = 0;  // commands run in this call
  while (c->in_start < c->in.size() && !c->close_after_reply() && !c->blocked() &&
         !c->pause_held) {
    if (c->in_start >= budget_end) {
      budget_spent = true;  // run the rest later (the resume list), after others
      break;
    }
    // Parse a batch: one command, or with pipeline-prefetch up to kBatch of them, so that
    // their keys' table memory can be fetched before they run. Unauthenticated clients
    // parse one at a time (AUTH changes the limits the next command is parsed with).
    // Serving while a script is busy (ServeWhileBusy): batch_ holds the script caller's
    // commands; one at a time in busy_batch_.
    const bool prefetch = cfg.pipeline_prefetch() && c->authenticated() && !busy_serving_;
    const size_t max = prefetch ? kBatch : 1;
    ParsedCommand* const batch = busy_serving_ ? busy_batch_ : batch_;
    size_t n = 0;
    size_t pos = c->in_start;
    const char* parse_error = nullptr;
    while (n < max && pos < c->in.size()) {
      size_t consumed = 0;
      std::string_view data(c->in.data() + pos, c->in.size() - pos);
      RequestParser::Status st = c->parser.Parse(data, limits, &consumed);
      if (st == RequestParser::kIncomplete) {
        size_t unparsed = data.size() + c->parser.PendingBytes();
        if (static_cast<int64_t>(unparsed) > cfg.client_query_buffer_limit()) {
          parse_error = "Protocol error: query buffer limit exceeded";
          WorkerStats::Inc(stats_.query_limit_disconnections);
        }
        break;
      }
      if (st == RequestParser::kError) {
        parse_error = c->parser.error();
        break;
      }
      const size_t start = pos;
      pos += consumed;
      if (c->parser.args().empty()) {
        if (n == 0) {
          c->in_start = pos;  // an empty command is consumed right away
        }
        continue;
      }
      ParsedCommand& pc = batch[n++];
      c->parser.TakeArgs(&pc.args);
      pc.start = start;
      pc.end = pos;
      pc.resp = !c->parser.inline_request();
      if (pc.args.size() > kClockChainMaxArgs || !pc.resp) [[unlikely]] {
        // Its parse (per argument, or an inline line's bytes) is no command's time: the
        // next command to run reads the clock at its start.
        RestartCommandClock();
      }
      pc.cmd = nullptr;
      pc.key = -1;
    }
    if (n > 1) {
      PrefetchBatch(n, c->db());
    }
    bool stopped = false;
    for (size_t i = 0; i < n; i++) {
      ParsedCommand& pc = batch[i];
      c->in_start = pc.end;
      if (pc.key >= 0) {
        // pc.shard holds the key's cluster slot (PrefetchBatch): the hint carries it, so
        // a command that inserts the key does not compute its CRC16 again.
        SetKeyHint(pc.args[pc.key], Keyspace::ShardOfSlot(pc.shard), pc.hash, pc.shard);
      }
      // CLIENT LIST's avg-pipeline-len figures: the commands of one turn in groups of
      // kBatch, as Redis parses a read's commands 16 at a time (lookahead), whether or
      // not pipeline-prefetch batches them here. Counted before the command runs, so
      // its CLIENT INFO sees itself, as in Redis.
      if (ran % kBatch == 0) {
        Client::OwnerAdd(c->pipeline_batches, 1);
      }
      Client::OwnerAdd(c->pipeline_cmds, 1);
      ran++;
      // The bytes the client sent, for the write stream to copy when the command goes in
      // as it ran (WriteStream::SetRawRequest).
      WriteStream::SetRawRequest(
          &pc.args, pc.resp ? std::string_view(c->in.data() + pc.start, pc.end - pc.start)
                            : std::string_view());
      Dispatch(*this, *c, pc.args, pc.cmd);
      WriteStream::SetRawRequest(nullptr, {});
      if (c->closed) {
        return;
      }
      if (c->pause_held) [[unlikely]] {
        c->in_start = pc.start;  // CLIENT PAUSE: run it again when the pause ends
        stopped = true;
        break;
      }
      if (c->close_after_reply() || c->blocked()) {
        stopped = i + 1 < n || parse_error != nullptr;
        break;
      }
    }
    limits.authenticated = c->authenticated();
    if (stopped || c->blocked() || c->close_after_reply() || c->pause_held) {
      c->parser.Reset();  // commands parsed ahead are parsed again when the client resumes
      break;
    }
    if (parse_error != nullptr) {
      c->reply.Error(std::string("ERR ") + parse_error);
      c->set_close_after_reply();
      break;
    }
    if (n == 0) {
      break;  // incomplete
    }
  }
  // Compact: keep only the unparsed tail at the front of the buffer.
  size_t rest = c->in.size() - c->in_start;
  if (rest == 0) {
    c->in.Clear();
    c->in_start = 0;
    c->in.ShrinkIfIdle(kKeepInputBytes);
  } else if (c->in_start > 0 && (rest <= 4096 || c->in_start >= rest)) {
    memmove(c->in.data(), c->in.data() + c->in_start, rest);
    c->in.Truncate(rest);
    c->in_start = 0;
  }
  c->expected_input = c->parser.PendingBytes();  // the next read asks for a large bulk at once
  c->qbuf.store(c->in.size(), std::memory_order_relaxed);
  c->qbuf_free.store(c->in.capacity() - c->in.size(), std::memory_order_relaxed);
  c->input_backlog = budget_spent;
  if (budget_spent) {
    resume_.push_back(c);
  }
  if (server_->aof_sync_always()) [[unlikely]] {
    // An upper bound of this connection's records: its replies wait for it.
    c->aof_seq = std::max(c->aof_seq, server_->write_stream().LastCommittedByThisThread());
  }
}

void Worker::WaitForAof(Connection* c) {
  if (!c->aof_wait_queued) {
    c->aof_wait_queued = true;
    aof_waiting_.push_back(c->id());
  }
  if (c->aof_seq > aof_requested_) {
    aof_requested_ = c->aof_seq;
    server_->aof()->NotifyWhenDurable(c->aof_seq, [this] {
      Post([this] { ReleaseAofWaiters(); });
    });
  }
}

void Worker::ReleaseAofWaiters() {
  std::vector<uint64_t> ids;
  ids.swap(aof_waiting_);
  for (uint64_t id : ids) {
    auto it = conns_.find(id);
    if (it == conns_.end()) {
      continue;
    }
    Connection* c = it->second;
    c->aof_wait_queued = false;
    if (!c->closed) {
      Flush(c);  // waits again (re-queued) if its newest records are not durable yet
    }
  }
}

void Worker::Flush(Connection* c) {
  if (c->closed) {
    return;
  }
  // appendfsync always: no reply leaves before the fsync covering the connection's writes.
  // The connection waits (the worker goes on serving others) while the AOF thread fsyncs;
  // one fsync covers every connection of every worker whose records it drained.
  if (server_->aof_sync_always()) [[unlikely]] {
    if (c->aof_seq != 0 && !server_->aof()->IsDurable(c->aof_seq)) {
      WaitForAof(c);
      return;
    }
  }
  c->NoteReplyBytes(CachedNowMs());
  if (!backend_->Send(c)) {
    CloseConnection(c);
    return;
  }
  const size_t pending = c->pending_output();
  if (pending == 0) {
    OnOutputDrained(c);
    return;
  }
  // A client that does not read its replies stops being read, instead of growing the
  // server's memory without bound; so does one whose commands pile up unrun.
  UpdateReading(c);
  c->PublishInfo();
}

// Staged prefetch over a parsed batch (Valkey's memory_prefetch idea): first the shard's
// table header of every command's first key, then the home slot, then the entry the slot
// points to, so the cache misses of all commands overlap instead of queueing one after
// the other. Reads here race with other workers and are only prefetch hints; the
// commands still run with their locks, so replies cannot change.
void Worker::PrefetchBatch(size_t n, int db) {
  Keyspace& ks = server_->keyspace();
  const CommandTable& table = server_->commands();
  // A pipeline often names one key over and over (XADD to a stream, PFADD to one HLL,
  // INCR of a counter): a key equal to the previous command's reuses its slot and hash
  // (no second CRC16 and hash) and is not prefetched again.
  std::string_view prev_key;
  uint32_t prev_slot = 0;
  uint64_t prev_hash = 0;
  bool have_prev = false;
  static_assert(kBatch <= 32);
  uint32_t repeats = 0;  // bit i: command i names the key of an earlier one
  for (size_t i = 0; i < n; i++) {
    ParsedCommand& pc = batch_[i];
    pc.cmd = table.Find(pc.args[0]);
    if (pc.cmd == nullptr) {
      continue;
    }
    if (pc.cmd->first_key > 0 && !pc.cmd->movable_keys &&
        static_cast<size_t>(pc.cmd->first_key) < pc.args.size()) {
      pc.key = pc.cmd->first_key;
    } else if (pc.cmd->getkeys == nullptr && !pc.cmd->key_specs.empty() &&
               pc.cmd->key_specs[0].begin == KeySpec::Begin::kIndex &&
               pc.cmd->key_specs[0].find == KeySpec::Find::kKeyNum &&
               pc.cmd->key_specs[0].firstkey > pc.cmd->key_specs[0].keynumidx &&
               !(pc.cmd->key_specs[0].flags & kKeyNotKey)) {
      // A counted first key (EVALSHA sha 1 key ..., FCALL, ZUNION, LMPOP): there when
      // the count is a plain number from 1 on (a bad count is the handler's to report).
      const KeySpec& k = pc.cmd->key_specs[0];
      const size_t count_pos = static_cast<size_t>(k.index + k.keynumidx);
      const size_t key_pos = static_cast<size_t>(k.index + k.firstkey);
      if (key_pos >= pc.args.size()) {
        continue;
      }
      const std::string_view count = pc.args[count_pos];
      const auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
      if (count.empty() || count.size() > 9 || count[0] == '0' ||
          !std::all_of(count.begin(), count.end(), digit)) {
        continue;
      }
      pc.key = static_cast<int>(key_pos);
    } else {
      continue;
    }
    const std::string_view key = pc.args[pc.key];
    if (have_prev && key == prev_key) {
      pc.hash = prev_hash;
      pc.shard = prev_slot;
      repeats |= uint32_t{1} << i;
      continue;
    }
    // pc.shard keeps the key's cluster slot (its shard is ShardOfSlot of it), for the
    // key hint: an insert's per-slot count then needs no second CRC16.
    uint32_t shard, slot;
    LocateKey(key, &shard, &pc.hash, &slot);
    pc.shard = slot != kNoSlot ? slot : KeySlot(key);
    __builtin_prefetch(&ks.shard(shard).db(db));
    prev_key = key;
    prev_slot = pc.shard;
    prev_hash = pc.hash;
    have_prev = true;
  }
  if (!have_prev) {
    return;  // keyless commands (PING): nothing to fetch
  }
  Database view(&ks, db, 0);  // only for its prefetch helpers: no lookups, no clock
  for (size_t i = 0; i < n; i++) {
    if (batch_[i].key >= 0 && ((repeats >> i) & 1) == 0) {
      view.PrefetchSlot(Keyspace::ShardOfSlot(batch_[i].shard), batch_[i].hash);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (batch_[i].key >= 0 && ((repeats >> i) & 1) == 0) {
      view.PrefetchEntry(Keyspace::ShardOfSlot(batch_[i].shard), batch_[i].hash);
    }
  }
}

}  // namespace hotkv

#include "server/blocking.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "common/string_util.h"
#include "server/command_context.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "server/shard_state.h"
#include "server/worker.h"

namespace hotkv {

std::atomic<int64_t> g_blocked_clients{0};

namespace {

// Keys created during the current command on this thread that have waiters.
thread_local std::vector<std::pair<int, std::string>> t_ready_keys;

// Removes `w` from the waiter queues of all its keys (takes each shard lock in turn).
void RemoveFromQueues(Keyspace& ks, const std::shared_ptr<Waiter>& w) {
  for (const std::string& key : w->keys) {
    Shard& s = ks.shard(Keyspace::ShardOf(key));
    s.lock.lock_read();  // waiter queues only: no key changes
    if (ShardState* st = StateIfAny(s)) {
      auto it = st->waiters.find(DbKey(w->db, key));
      if (it != st->waiters.end()) {
        auto& q = it->second;
        q.erase(std::remove(q.begin(), q.end(), w), q.end());
        if (q.empty()) {
          st->waiters.erase(it);
        }
      }
    }
    s.lock.unlock();
  }
}

// Clears the client's blocked state (its waiter must already be claimed) and lets its
// pipeline continue. `count_call`: the command ends here (served, timed out, unblocked),
// so it is counted in INFO commandstats and may enter the slow log, as Redis does;
// `failed`: it ended with an error reply.
void FinishUnblock(Worker& w, Client& c, bool count_call, bool failed = false) {
  std::shared_ptr<Waiter> waiter = c.block_state()->waiter;
  RemoveFromQueues(w.server().keyspace(), waiter);
  if (count_call && waiter->cmd != nullptr) {
    const BlockState& b = *c.block_state();
    uint64_t cycles = b.exec_cycles + waiter->serve_cycles;
    if (b.wait_counts) {
      cycles += CyclesNow() - b.blocked_at_cycles;
    }
    std::vector<std::string_view> args(waiter->args.begin(), waiter->args.end());
    AccountCommand(w, c, waiter->cmd, args, cycles, failed);
  }
  c.argv_mem.store(0, std::memory_order_relaxed);
  c.block_slot().reset();
  c.SetUnblockHandle(nullptr);
  c.blocked_flag.store(false, std::memory_order_relaxed);
  g_blocked_clients.fetch_sub(1, std::memory_order_relaxed);
  w.ResumeClient(&c);
  w.MarkForFlush(&c);
}

void WriteTimeoutReply(Client& c) {
  ReplyBuilder* rb = c.output();
  if (rb == nullptr || c.block_state()->reply_silenced) {
    return;
  }
  if (!c.block_state()->timeout_reply.empty()) {
    rb->Raw(c.block_state()->timeout_reply);
  } else if (c.block_state()->null_array_on_timeout) {
    rb->NullArray();
  } else {
    rb->Null();
  }
}

// The blocked client `id` on `w` if it is still blocked by `waiter` (it may have been
// closed, unblocked or re-blocked meanwhile).
Client* StillBlocked(Worker& w, uint64_t id, const std::shared_ptr<Waiter>& waiter) {
  Client* c = w.FindClient(id);
  if (c == nullptr || !c->blocked() || c->block_state()->waiter != waiter) {
    return nullptr;
  }
  return c;
}

// The waiter's own worker re-runs its command (used when serving it in place would have
// needed a lock another thread holds).
void RetryOnOwnWorker(const std::shared_ptr<Waiter>& waiter) {
  Worker* w = waiter->worker;
  w->Post([w, waiter] {
    Client* c = StillBlocked(*w, waiter->client_id, waiter);
    if (c == nullptr || c->output() == nullptr || !waiter->Claim()) {
      return;
    }
    // A command blocked under CLIENT REPLY SKIP stays silent when it runs again (OFF
    // silences it anyway).
    if (c->block_state()->reply_silenced && c->reply_mode() == Client::ReplyMode::kOn) {
      c->set_reply_mode(Client::ReplyMode::kSkipNext);
    }
    FinishUnblock(*w, *c, false);
    std::vector<std::string_view> args(waiter->args.begin(), waiter->args.end());
    Dispatch(*w, *c, *c->output(), args);
  });
}

}  // namespace

bool ParseBlockTimeout(CommandContext& ctx, std::string_view arg, int64_t* timeout_ms) {
  // Redis parses the timeout as a long double, so 1e400 is a number that is too large.
  auto v = ParseLongDouble(arg);
  if (!v || std::isnan(*v)) {
    ctx.rb().Error("ERR timeout is not a float or out of range");
    return false;
  }
  if (*v < 0) {
    ctx.rb().Error("ERR timeout is negative");
    return false;
  }
  long double ms = *v * 1000.0L;
  if (!std::isfinite(ms) || ms > 9.2e15L) {
    ctx.rb().Error("ERR timeout is out of range");
    return false;
  }
  *timeout_ms = static_cast<int64_t>(std::ceil(ms));
  return true;
}

void BlockClient(CommandContext& ctx, const std::vector<std::string_view>& keys,
                 int64_t timeout_ms, ServeFn serve, bool null_array_on_timeout) {
  Client& client = ctx.client();
  auto waiter = std::make_shared<Waiter>();
  waiter->client_id = client.id();
  waiter->worker = &ctx.worker();
  waiter->db = client.db();
  waiter->resp = client.resp();
  waiter->serve = serve;
  waiter->cmd = ctx.command();
  size_t arg_bytes = 0;
  for (auto a : ctx.args()) {
    waiter->args.emplace_back(a);
    arg_bytes += a.size();
  }
  client.argv_mem.store(arg_bytes, std::memory_order_relaxed);  // held while blocked
  for (auto k : keys) {
    if (std::find(waiter->keys.begin(), waiter->keys.end(), k) == waiter->keys.end()) {
      waiter->keys.emplace_back(k);
    }
  }
  Keyspace& ks = ctx.keyspace();
  for (const std::string& k : waiter->keys) {
    StateOf(ks.shard(Keyspace::ShardOf(k))).waiters[DbKey(waiter->db, k)].push_back(waiter);
  }
  auto state = std::make_unique<BlockState>();
  state->waiter = waiter;
  state->deadline_ms = timeout_ms > 0 ? ctx.now_ms() + timeout_ms : 0;
  state->null_array_on_timeout = null_array_on_timeout;
  // Dispatch has turned a pending SKIP into kSkipThis for this very command.
  state->reply_silenced = client.reply_mode() != Client::ReplyMode::kOn;
  if (state->deadline_ms > 0) {
    ctx.worker().AddBlockTimer(state->deadline_ms, client.id());
  }
  client.block_slot() = std::move(state);
  client.SetUnblockHandle(waiter);
  client.blocked_flag.store(true, std::memory_order_relaxed);
  g_blocked_clients.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<Waiter> BlockClientOnJob(CommandContext& ctx) {
  BlockClient(ctx, {}, 0, nullptr, true);
  BlockState* b = ctx.client().block_state();
  b->wait_counts = true;
  b->reply_silenced = ctx.client().reply_mode() != Client::ReplyMode::kOn;
  b->waiter->unblockable = false;
  return b->waiter;
}

void ResumeJobWaiter(const std::shared_ptr<Waiter>& waiter) {
  Worker* target = waiter->worker;
  target->Post([target, waiter] {
    Client* c = StillBlocked(*target, waiter->client_id, waiter);
    if (c == nullptr || !waiter->Claim()) {
      return;
    }
    if (c->output() != nullptr && !c->block_state()->reply_silenced) {
      c->output()->Ok();
    }
    FinishUnblock(*target, *c, true);
  });
}

void BlockClientUntilTimeout(CommandContext& ctx, int64_t timeout_ms, std::string timeout_reply) {
  BlockClient(ctx, {}, timeout_ms, nullptr, false);  // no key: no queue, no serve
  ctx.client().block_slot()->timeout_reply = std::move(timeout_reply);
}

void SignalKeyReady(Server& server, int db, std::string_view key) {
  if (g_blocked_clients.load(std::memory_order_relaxed) == 0) {
    return;
  }
  ShardState* st = StateIfAny(server.keyspace().shard(Keyspace::ShardOf(key)));
  if (st == nullptr || st->waiters.find(DbKey(db, key)) == st->waiters.end()) {
    return;
  }
  for (const auto& [d, k] : t_ready_keys) {
    if (d == db && k == key) {
      return;
    }
  }
  t_ready_keys.emplace_back(db, std::string(key));
}

void ServeReadyKeys(Server& server, Worker& worker, bool locks_held) {
  Keyspace& ks = server.keyspace();
  while (!t_ready_keys.empty()) {
    std::vector<std::pair<int, std::string>> ready;
    ready.swap(t_ready_keys);
    for (const auto& [db, key] : ready) {
      const uint32_t shard_index = Keyspace::ShardOf(key);
      Shard& shard = ks.shard(shard_index);
      // The key's shard is normally locked by the command that created the key. A key
      // created by a serve (BLMOVE's destination) is locked as an extra lock, kept until
      // the end. Commands that lock shard by shard themselves (locks_held == false) lock
      // each ready key here, after dropping extra locks (never wait while holding any).
      bool own_lock = false;
      if (!ThisThreadHoldsShard(shard_index)) {
        if (locks_held) {
          // Not reachable today (keys created here are locked by their creator), but
          // never touch a queue without its lock.
          if (!TryLockExtraShard(ks, shard_index)) {
            ClearServeRetry();
            continue;
          }
        } else {
          ReleaseServeLocks();
          shard.lock.lock();
          own_lock = true;
        }
      }
      ShardState* st = StateIfAny(shard);
      const std::string dbkey = DbKey(db, key);
      auto it = st == nullptr ? decltype(st->waiters)::iterator() : st->waiters.find(dbkey);
      if (st != nullptr && it != st->waiters.end()) {
        // One pass over the queue in FIFO order: serve every waiter the key can serve
        // now; skip (and keep) the others, e.g. a BZPOPMIN waiter when a list appeared.
        auto& q = it->second;
        for (size_t i = 0; i < q.size();) {
          std::shared_ptr<Waiter> w = q[i];
          if (w->state.load(std::memory_order_acquire) != Waiter::kWaiting) {
            q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
            continue;
          }
          // Run the waiter's command against the ready key, as that client.
          Client proxy(w->client_id, w->worker);
          proxy.set_db(w->db);
          proxy.set_resp(w->resp);
          ByteBuffer out;
          ReplyBuilder rb(&out);
          rb.set_resp3(w->resp == 3);
          rb.set_error_sink(&w->worker->error_counts());  // INFO errorstats (thread-safe)
          std::vector<std::string_view> args(w->args.begin(), w->args.end());
          CommandContext ctx(server, worker, proxy, rb, args, w->cmd, CachedNowMs());
          ctx.set_in_exec(true);  // never block again from here
          ClearServeRetry();
          if (w->serve(ctx, key, true) == ServeResult::kNotNow) {
            if (ServeRetryRequested()) {
              RetryOnOwnWorker(w);  // it needs a lock another thread holds
            }
            i++;
            continue;
          }
          if (!w->Claim()) {
            q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
            continue;
          }
          q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
          // kError writes the error and leaves the data alone: the next waiter in line
          // may still be served from the same key.
          const uint64_t serve_start = CyclesNow();
          w->serve(ctx, key, false);
          w->serve_cycles = CyclesNow() - serve_start;
          const bool failed = rb.errors_written() > 0;
          auto bytes = std::make_shared<std::string>(out.view());
          Worker* target = w->worker;
          // The pop goes into the write stream now (under the key's lock), so that with
          // appendfsync always the client's worker can wait for its fsync before replying.
          const uint64_t seq =
              server.write_stream().active() ? server.write_stream().Commit() : 0;
          target->Post([target, w, bytes, failed, seq] {
            Client* c = StillBlocked(*target, w->client_id, w);
            if (c == nullptr) {
              return;
            }
            if (seq != 0 && target->server().aof_sync_always()) {
              target->server().aof()->WaitDurable(seq);
            }
            if (c->output() != nullptr && !c->block_state()->reply_silenced) {
              c->output()->Raw(*bytes);
            }
            FinishUnblock(*target, *c, true, failed);
          });
        }
        if (q.empty()) {
          st->waiters.erase(it);
        }
      }
      if (own_lock) {
        if (server.write_stream().active()) {
          server.write_stream().Commit();  // the served pops, under their locks
        }
        ReleaseServeLocks();
        shard.lock.unlock();
      }
    }
  }
  if (server.write_stream().active()) {
    server.write_stream().Commit();
  }
  ReleaseServeLocks();
}

void ExpireBlockedClients(Worker& w, int64_t now_ms) {
  uint64_t id;
  int64_t deadline;
  while (w.PopDueBlockTimer(now_ms, &deadline, &id)) {
    Client* c = w.FindClient(id);
    if (c == nullptr || !c->blocked() || c->block_state()->deadline_ms != deadline) {
      continue;
    }
    if (!c->block_state()->waiter->Claim()) {
      continue;  // being served right now; the reply is on its way
    }
    WriteTimeoutReply(*c);
    FinishUnblock(w, *c, true);
  }
}

void UnblockOnClose(Worker& w, Client& c) {
  if (!c.blocked()) {
    return;
  }
  c.block_state()->waiter->Claim();
  RemoveFromQueues(w.server().keyspace(), c.block_state()->waiter);
  c.argv_mem.store(0, std::memory_order_relaxed);
  c.block_slot().reset();
  c.SetUnblockHandle(nullptr);
  c.blocked_flag.store(false, std::memory_order_relaxed);
  g_blocked_clients.fetch_sub(1, std::memory_order_relaxed);
}

bool UnblockClientById(Server& s, uint64_t id, bool with_error) {
  std::shared_ptr<Waiter> waiter;
  s.clients().ForEach([&](Client* c) {
    if (c->id() == id) {
      waiter = c->UnblockHandle();
    }
  });
  if (!waiter || !waiter->unblockable || !waiter->Claim()) {
    return false;
  }
  Worker* target = waiter->worker;
  target->Post([target, waiter, with_error] {
    Client* c = StillBlocked(*target, waiter->client_id, waiter);
    if (c == nullptr) {
      return;
    }
    if (with_error) {
      if (c->output() != nullptr && !c->block_state()->reply_silenced) {
        c->output()->Error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
      }
    } else {
      WriteTimeoutReply(*c);
    }
    FinishUnblock(*target, *c, true, with_error);
  });
  return true;
}

size_t RedirectBlockedClients(Worker& w) {
  ClusterHooks* cl = w.server().cluster();
  if (cl == nullptr) {
    return 0;
  }
  std::vector<Connection*> victims;
  std::vector<std::string> errors;
  std::string error;
  w.ForEachConnection([&](Connection* conn) {
    if (!conn->blocked()) {
      return;
    }
    const std::shared_ptr<Waiter>& waiter = conn->block_state()->waiter;
    // Blocked on keys only (not WAIT, not a FLUSHALL SYNC job); all keys of a blocked
    // command are in one slot, so the first one decides.
    if (waiter == nullptr || waiter->keys.empty()) {
      return;
    }
    if (!cl->BlockedKeyServed(waiter->keys.front(), &error)) {
      victims.push_back(conn);
      errors.push_back(error);
    }
  });
  size_t n = 0;
  for (size_t i = 0; i < victims.size(); ++i) {
    Client& c = *victims[i];
    if (!c.block_state()->waiter->Claim()) {
      continue;  // being served right now: its reply is on its way
    }
    if (c.output() != nullptr && !c.block_state()->reply_silenced) {
      c.output()->Error(errors[i]);
    }
    FinishUnblock(w, c, true, true);
    ++n;
  }
  return n;
}

}  // namespace hotkv

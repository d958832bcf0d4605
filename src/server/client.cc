#include "server/client.h"

#include "pubsub/subscriptions.h"
#include "server/blocking.h"
#include "server/worker.h"

#include "common/clock.h"

namespace hotkv {

Client::Client(uint64_t id, Worker* worker)
    : id_(id), worker_(worker), created_ms_(WallClockMs()), last_interaction_ms_(created_ms_) {}

Client::~Client() = default;

void Client::SetUnblockHandle(std::shared_ptr<Waiter> w) {
  std::lock_guard<std::mutex> g(info_mu_);
  unblock_handle_ = std::move(w);
}

std::shared_ptr<Waiter> Client::UnblockHandle() const {
  std::lock_guard<std::mutex> g(info_mu_);
  return unblock_handle_;
}

int Client::worker_index() const { return worker_ ? worker_->index() : 0; }

std::string Client::name() const {
  std::lock_guard<std::mutex> g(info_mu_);
  return name_;
}

void Client::set_name(std::string_view n) {
  std::lock_guard<std::mutex> g(info_mu_);
  name_.assign(n);
}

std::string Client::lib_name() const {
  std::lock_guard<std::mutex> g(info_mu_);
  return lib_name_;
}

std::string Client::lib_ver() const {
  std::lock_guard<std::mutex> g(info_mu_);
  return lib_ver_;
}

void Client::set_lib_name(std::string_view v) {
  std::lock_guard<std::mutex> g(info_mu_);
  lib_name_.assign(v);
}

void Client::set_lib_ver(std::string_view v) {
  std::lock_guard<std::mutex> g(info_mu_);
  lib_ver_.assign(v);
}

}  // namespace hotkv

#include "net/net_connection.h"
#include "server/command_table.h"
#include "server/tracking.h"

namespace hotkv {

std::string FormatClientInfo(const Client& c, int64_t now_ms) {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  // Flags in Redis's order (O P x b t R B d c u A U r e T I); HotKV has no replication,
  // unix sockets or cluster READONLY, so never U r I.
  std::string flags;
  if (c.monitor_flag.load(kRelaxed)) {
    flags += 'O';
  }
  if (c.subscription_count() > 0) {
    flags += 'P';
  }
  if (c.multi_len.load(kRelaxed) >= 0) {
    flags += 'x';
  }
  if (c.blocked_flag.load(kRelaxed)) {
    flags += 'b';
  }
  const uint32_t tracking = c.tracking_flags();
  if (tracking & kTrackOn) {
    flags += 't';
    if (tracking & kTrackBrokenRedir) {
      flags += 'R';
    }
    if (tracking & kTrackBcast) {
      flags += 'B';
    }
  }
  if (c.watch_dirty_flag()) {
    flags += 'd';
  }
  if (c.close_flag.load(kRelaxed)) {
    flags += 'c';
  }
  if (c.no_evict_flag.load(kRelaxed)) {
    flags += 'e';
  }
  if (c.no_touch_flag.load(kRelaxed)) {
    flags += 'T';
  }
  if (flags.empty()) {
    flags = "N";
  }
  const uint8_t ev = c.events.load(kRelaxed);
  std::string events;
  if (ev & Client::kEventRead) {
    events += 'r';
  }
  if (ev & Client::kEventWrite) {
    events += 'w';
  }
  const NetConnection* net = c.net();
  const uint64_t omem = c.omem.load(kRelaxed);
  const CommandSpec* cmd = c.last_command();

  std::string out;
  out.reserve(640);
  auto str = [&out](const char* name, std::string_view v) {
    if (!out.empty()) {
      out += ' ';
    }
    out += name;
    out += '=';
    out.append(v);
  };
  auto num = [&str](const char* name, int64_t v) { str(name, std::to_string(v)); };
  auto unum = [&str](const char* name, uint64_t v) { str(name, std::to_string(v)); };
  unum("id", c.id());
  str("addr", c.addr);
  str("laddr", c.laddr);
  num("fd", c.fd);
  str("name", c.name());
  // Whole seconds as Redis counts them: the difference of the two times in seconds.
  num("age", now_ms / 1000 - c.created_ms() / 1000);
  num("idle", now_ms / 1000 - c.last_interaction_ms() / 1000);
  str("flags", flags);
  num("db", c.db());
  unum("sub", c.sub_channels.load(kRelaxed));
  unum("psub", c.sub_patterns.load(kRelaxed));
  unum("ssub", c.sub_shard.load(kRelaxed));
  num("multi", c.multi_len.load(kRelaxed));
  unum("watch", c.watch_len.load(kRelaxed));
  unum("qbuf", c.qbuf.load(kRelaxed));
  unum("qbuf-free", c.qbuf_free.load(kRelaxed));
  unum("argv-mem", c.argv_mem.load(kRelaxed));
  unum("multi-mem", c.multi_mem.load(kRelaxed));
  unum("rbs", c.rbs.load(kRelaxed));
  unum("rbp", c.rbp.load(kRelaxed));
  unum("obl", c.obl.load(kRelaxed));
  unum("oll", c.oll.load(kRelaxed));
  unum("omem", omem);
  // Redis 8 can queue a reference to a large value instead of a copy (omem-shared);
  // HotKV always copies replies into the client's buffer.
  unum("omem-shared", 0);
  unum("omem-unshared", omem);
  unum("tot-mem", c.tot_mem.load(kRelaxed));
  str("events", events);
  str("cmd", cmd ? std::string_view(cmd->full_name) : std::string_view("NULL"));
  str("user", "default");
  num("redir", (tracking & kTrackOn) ? static_cast<int64_t>(c.tracking_redirect.load(kRelaxed)) : -1);
  num("resp", c.resp_flag.load(kRelaxed));
  str("lib-name", c.lib_name());
  str("lib-ver", c.lib_ver());
  num("io-thread", c.worker_index());
  unum("tot-net-in", net ? net->bytes_read.load(kRelaxed) : 0);
  unum("tot-net-out", net ? net->bytes_written.load(kRelaxed) : 0);
  unum("tot-cmds", c.tot_cmds.load(kRelaxed));
  unum("read-events", net ? net->reads.load(kRelaxed) : 0);
  unum("avg-pipeline-len-sum", c.pipeline_cmds.load(kRelaxed));
  unum("avg-pipeline-len-cnt", c.pipeline_batches.load(kRelaxed));
  return out;
}

}  // namespace hotkv

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

#include "server/command_table.h"

namespace hotkv {

std::string FormatClientInfo(const Client& c, int64_t now_ms) {
  std::string flags;
  if (c.multi_len.load(std::memory_order_relaxed) >= 0) {
    flags += 'x';
  }
  if (c.blocked_flag.load(std::memory_order_relaxed)) {
    flags += 'b';
  }
  if (c.subscription_count() > 0) {
    flags += 'P';
  }
  if (c.no_evict_flag.load(std::memory_order_relaxed)) {
    flags += 'e';
  }
  if (c.no_touch_flag.load(std::memory_order_relaxed)) {
    flags += 'T';
  }
  if (flags.empty()) {
    flags = "N";
  }
  const CommandSpec* cmd = c.last_command();
  int64_t age = (now_ms - c.created_ms()) / 1000;
  int64_t idle = (now_ms - c.last_interaction_ms()) / 1000;
  int64_t multi = c.multi_len.load(std::memory_order_relaxed);
  uint64_t qbuf = c.qbuf.load(std::memory_order_relaxed);
  uint64_t qfree = c.qbuf_free.load(std::memory_order_relaxed);
  uint64_t omem = c.omem.load(std::memory_order_relaxed);
  char buf[1024];
  snprintf(buf, sizeof(buf),
           "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
           "sub=%llu psub=%llu ssub=%llu multi=%lld watch=%llu qbuf=%llu qbuf-free=%llu "
           "argv-mem=0 multi-mem=0 rbs=%llu rbp=%llu obl=%llu oll=0 omem=%llu tot-mem=%llu "
           "events=r cmd=%s user=default redir=-1 resp=%d",
           static_cast<unsigned long long>(c.id()), c.addr.c_str(), c.laddr.c_str(), c.fd,
           c.name().c_str(), static_cast<long long>(age), static_cast<long long>(idle),
           flags.c_str(), c.db(),
           static_cast<unsigned long long>(c.sub_channels.load(std::memory_order_relaxed)),
           static_cast<unsigned long long>(c.sub_patterns.load(std::memory_order_relaxed)),
           static_cast<unsigned long long>(c.sub_shard.load(std::memory_order_relaxed)),
           static_cast<long long>(multi),
           static_cast<unsigned long long>(c.watch_len.load(std::memory_order_relaxed)),
           static_cast<unsigned long long>(qbuf), static_cast<unsigned long long>(qfree),
           static_cast<unsigned long long>(qbuf + qfree), static_cast<unsigned long long>(qbuf),
           static_cast<unsigned long long>(c.obl.load(std::memory_order_relaxed)),
           static_cast<unsigned long long>(omem),
           static_cast<unsigned long long>(qbuf + qfree + omem),
           cmd ? cmd->full_name.c_str() : "NULL", c.resp_flag.load(std::memory_order_relaxed));
  std::string out(buf);
  out += " lib-name=" + c.lib_name() + " lib-ver=" + c.lib_ver();
  out += " io-thread=" + std::to_string(c.worker_index());
  return out;
}

}  // namespace hotkv

// The append-only file service: start-up, turning it on and off, CONFIG SET, INFO. See
// aof_writer.h; the writer thread is in aof_fsync.cc, bases and rewrites in aof_rewrite.cc.
#include "persistence/aof_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/clock.h"
#include "engine/keyspace.h"
#include "persistence/aof_base_commands.h"
#include "persistence/aof_impl.h"
#include "persistence/aof_loader.h"
#include "rdb/rdb.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace hotkv::persistence {

void Aof::ReadConfig() {
  Config& c = server_.config();
  if (!enabled()) {
    // The directory is fixed while the files are open (a CONFIG SET dir applies to the
    // next time the AOF is turned on).
    std::string dir = c.GetString("dir");
    if (dir.empty()) {
      dir = ".";
    }
    dir_ = dir + "/" + c.GetString("appenddirname");
    prefix_ = c.GetString("appendfilename");
  }
  policy_.store(PolicyFrom(c.GetString("appendfsync")), std::memory_order_relaxed);
  timestamps_.store(c.GetString("aof-timestamp-enabled") == "yes", std::memory_order_relaxed);
  no_fsync_on_rewrite_.store(c.GetString("no-appendfsync-on-rewrite") == "yes",
                             std::memory_order_relaxed);
}

Status Aof::Start() {
  std::lock_guard<std::mutex> g(ctl_mu_);
  ReadConfig();
  if (server_.config().GetString("appendonly") != "yes") {
    return Status::Ok();
  }
  return Enable(true);
}

Status Aof::Enable(bool at_startup) {
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::IoError("Can't open or create append-only dir " + dir_ + ": " + strerror(errno));
  }
  const std::string manifest_path = dir_ + "/" + AofManifest::ManifestName(prefix_);
  if (at_startup && access(manifest_path.c_str(), F_OK) != 0) {
    if (Status st = UpgradeLegacyFile(manifest_path); !st.ok()) {
      return st;
    }
  }
  Result<std::string> text = ReadWholeFile(manifest_path);
  WriteStream& ws = server_.write_stream();
  if (at_startup && text.ok()) {
    Result<AofManifest> m = AofManifest::Parse(text.value(), manifest_path);
    if (!m.ok()) {
      return m.status();
    }
    manifest_ = std::move(m).value();
    const bool truncated_ok = server_.config().GetString("aof-load-truncated") == "yes";
    const int64_t t0 = WallClockMs();
    Result<AofLoadReport> r =
        LoadAofDirectory(server_, server_.worker(0), dir_, manifest_, truncated_ok);
    if (!r.ok()) {
      return r.status();
    }
    fprintf(stdout,
            "DB loaded from append only file: %.3f seconds (%llu keys from the base, "
            "%llu commands)\n",
            static_cast<double>(WallClockMs() - t0) / 1000.0,
            static_cast<unsigned long long>(r.value().keys_from_rdb),
            static_cast<unsigned long long>(r.value().commands));
    fflush(stdout);
    AofManifest next = manifest_;
    if (next.incrs.empty()) {
      next.cur_incr_seq++;
      next.incrs.push_back(
          {AofManifest::IncrName(prefix_, next.cur_incr_seq), next.cur_incr_seq, 'i'});
    }
    ws.AddConsumer();
    if (Status st = OpenIncr(next.incrs.back().name); !st.ok()) {
      ws.RemoveConsumer();
      return st;
    }
    if (Status st = InstallManifest(next); !st.ok()) {
      ws.RemoveConsumer();
      return st;
    }
  } else if (!text.ok() && text.status().code() != StatusCode::kNotFound) {
    return text.status();
  } else {
    // No AOF yet (or turned on at run time): a base of the data there is, then appends.
    if (text.ok()) {
      Result<AofManifest> m = AofManifest::Parse(text.value(), manifest_path);
      if (m.ok()) {
        manifest_ = std::move(m).value();  // its seqs go on; its files become history
      }
    }
    ws.AddConsumer();
    Status st = NewBase(/*fresh=*/true);
    if (!st.ok()) {
      ws.RemoveConsumer();
      std::lock_guard<std::mutex> io(io_mu_);
      if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
      }
      return st;
    }
  }
  base_size_.store(current_size_.load());
  enabled_.store(true, std::memory_order_release);
  server_.set_aof_sync_always(policy_.load() == kFsyncAlways);
  {
    std::lock_guard<std::mutex> b(bg_mu_);
    bg_stop_ = false;
  }
  writer_ = std::thread([this] { WriterLoop(); });
  return Status::Ok();
}

void Aof::Disable() {
  if (!enabled_.exchange(false)) {
    return;
  }
  server_.set_aof_sync_always(false);
  SetWriteError(0);  // as Redis: an AOF that is off refuses nothing
  {
    std::lock_guard<std::mutex> b(bg_mu_);
    bg_stop_ = true;
  }
  bg_cv_.notify_all();
  if (writer_.joinable()) {
    writer_.join();
  }
  std::lock_guard<std::mutex> io(io_mu_);
  MarkDurable(FlushLocked(true));
  server_.write_stream().RemoveConsumer();
  FireNotifications(true);  // waiting replies go (aof_sync_always() is off now)
  // Records committed between the flush and RemoveConsumer are dropped with the buffers
  // at the next enable (its base holds them).
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
}

void Aof::Stop() {
  stopping_.store(true);
  {
    std::lock_guard<std::mutex> r(rewriter_mu_);
    if (rewriter_.joinable()) {
      rewriter_.join();
    }
  }
  {
    std::lock_guard<std::mutex> g(ctl_mu_);
    Disable();
  }
  // The writer may have started one more rewrite before it stopped (it finds the AOF off).
  std::lock_guard<std::mutex> r(rewriter_mu_);
  if (rewriter_.joinable()) {
    rewriter_.join();
  }
  for (std::thread& t : enablers_) {
    t.join();
  }
  enablers_.clear();
}

Status Aof::Reconfigure() {
  std::lock_guard<std::mutex> g(ctl_mu_);
  const bool want = server_.config().GetString("appendonly") == "yes";
  if (enabled()) {
    // What was written before the change is written under the old settings.
    std::lock_guard<std::mutex> io(io_mu_);
    (void)FlushLocked(false);
  }
  ReadConfig();
  if (want && !enabled()) {
    if (server_.active_child() == Server::ChildKind::kRdb && !enable_pending_.load()) {
      // A BGSAVE child runs: as Redis (startAppendOnly), the base is a rewrite scheduled
      // for when it ends (INFO aof_rewrite_scheduled:1, aof_enabled:1 meanwhile) and
      // CONFIG SET answers at once. The thread waits outside ctl_mu_.
      enable_pending_.store(true);
      rewrite_scheduled_.store(true);
      std::lock_guard<std::mutex> r(rewriter_mu_);
      enablers_.emplace_back([this] {
        while (server_.active_child() == Server::ChildKind::kRdb && !stopping_.load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::lock_guard<std::mutex> c(ctl_mu_);
        if (!stopping_.load() && !enabled() && server_.config().GetString("appendonly") == "yes") {
          if (Status st = Enable(false); !st.ok()) {
            fprintf(stderr, "# %s\n", st.message().c_str());
          }
        }
        rewrite_scheduled_.store(false);
        enable_pending_.store(false);
      });
      return Status::Ok();
    }
    if (enable_pending_.load()) {
      return Status::Ok();  // already scheduled
    }
    if (HoldsAnyShard()) {
      // CONFIG SET inside EXEC: this thread holds shard locks the base's barrier needs,
      // so the AOF is turned on by the rewriter thread once EXEC has let them go.
      // (Never join a thread here: they take ctl_mu_, which this one holds.)
      std::lock_guard<std::mutex> r(rewriter_mu_);
      enablers_.emplace_back([this] {
        std::lock_guard<std::mutex> c(ctl_mu_);
        if (!enabled() && server_.config().GetString("appendonly") == "yes") {
          if (Status st = Enable(false); !st.ok()) {
            fprintf(stderr, "# %s\n", st.message().c_str());
          }
        }
      });
      return Status::Ok();
    }
    return Enable(false);
  }
  if (!want && enabled()) {
    Disable();
    return Status::Ok();
  }
  server_.set_aof_sync_always(enabled() && policy_.load() == kFsyncAlways);
  return Status::Ok();
}

bool Aof::HoldsAnyShard() {
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    if (ThisThreadHoldsShard(i)) {
      return true;
    }
  }
  return false;
}

std::string Aof::InfoFields() {
  std::string o;
  auto add = [&](const char* k, const std::string& v) { o += std::string(k) + ":" + v + "\r\n"; };
  auto num = [&](const char* k, int64_t v) { add(k, std::to_string(v)); };
  const bool on = enabled();
  num("aof_enabled", on || enable_pending_.load() ? 1 : 0);
  num("aof_rewrite_in_progress", rewrite_in_progress_.load() ? 1 : 0);
  num("aof_rewrite_scheduled", rewrite_scheduled_.load() ? 1 : 0);
  num("aof_last_rewrite_time_sec", last_rewrite_sec_.load());
  num("aof_current_rewrite_time_sec",
      rewrite_in_progress_.load() ? (WallClockMs() - rewrite_start_ms_.load()) / 1000 : -1);
  add("aof_last_bgrewrite_status", last_rewrite_ok_.load() ? "ok" : "err");
  num("aof_rewrites", rewrites_.load());
  num("aof_rewrites_consecutive_failures", rewrite_failures_.load());
  add("aof_last_write_status", last_write_ok_.load() ? "ok" : "err");
  // No copy-on-write figures (aof_last_cow_size, module_fork_last_cow_size): not measured,
  // and no constant stand-ins (as INFO's rdb_* side).
  num("module_fork_in_progress", 0);
  if (on) {
    num("aof_current_size", current_size_.load());
    num("aof_base_size", base_size_.load());
    num("aof_pending_rewrite", 0);
    num("aof_buffer_length", 0);
    num("aof_pending_bio_fsync", 0);
    num("aof_delayed_fsync", static_cast<int64_t>(delayed_fsync_.load()));
  }
  return o;
}

std::unique_ptr<AofService> MakeAofService(Server& server) { return std::make_unique<Aof>(server); }

}  // namespace hotkv::persistence

// Snapshotter's bgsave-mode walk side (see snapshot.h and snapshot_walk.h): synchronous
// saves by a thread per core, and BGSAVE as a SnapshotWalk started at the barrier and
// reaped when its threads are done.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/clock.h"
#include "common/string_util.h"
#include "persistence/snapshot.h"

namespace hotkv::persistence {

bool Snapshotter::WalkMode() { return server_->config().GetString("bgsave-mode") == "walk"; }

Result<WriteStats> Snapshotter::WriteLocked() {
  if (!WalkMode()) {
    return WriteSnapshotFile(server_->keyspace(), DbPath(), WriteOpts(), WallClockMs(),
                             Access("rdb-key-save-delay"));
  }
  SnapshotWalk::Options o;
  o.dest = DbPath();
  o.write = WriteOpts();
  o.access = Access("rdb-key-save-delay");
  o.now_ms = WallClockMs();
  o.locks_held = true;
  Result<std::unique_ptr<SnapshotWalk>> w = SnapshotWalk::Start(server_->keyspace(), o);
  if (!w.ok()) {
    return w.status();
  }
  (*w)->Join();
  return (*w)->result();
}

Status Snapshotter::StartWalkLocked(std::unique_lock<std::mutex>& lk) {
  SnapshotWalk::Options o;
  o.dest = DbPath();
  o.write = WriteOpts();
  o.access = Access("rdb-key-save-delay");
  o.nice = static_cast<int>(
      ParseInt64(server_->config().GetString("bgsave-walk-nice")).value_or(0));
  o.yield_us = static_cast<int>(
      ParseInt64(server_->config().GetString("bgsave-walk-yield-us")).value_or(0));
  Keyspace& ks = server_->keyspace();
  forking_ = true;
  last_try_s_ = WallClockMs() / 1000;
  // Earlier walks, freed below with every shard locked (no hook call of theirs can be
  // running then). A cancelled one may still be marking keys (snapshot_walk.h): it must
  // be done before this walk flips the marks, so it is joined first (its walkers need
  // shard locks, hence before the barrier).
  std::vector<std::unique_ptr<SnapshotWalk>> old = std::move(retired_walks_);
  retired_walks_.clear();
  lk.unlock();
  for (auto& w : old) {
    w->Join();
  }
  const int64_t t0 = MonotonicUs();
  ks.LockAll();
  const bool quiet = WaitVectorWrites(10000);
  const int64_t t_locked = MonotonicUs();
  const uint64_t dirty = server_->dirty();
  old.clear();
  Result<std::unique_ptr<SnapshotWalk>> w = Status::IoError("vector writes did not finish within 10 s");
  if (quiet) {
    o.now_ms = WallClockMs();
    w = SnapshotWalk::Start(ks, o);
  }
  ks.UnlockAll();
  const int64_t pause_us = MonotonicUs() - t0;
  lk.lock();
  forking_ = false;
  if (!w.ok()) {
    last_bgsave_ok_ = false;
    consecutive_failures_++;
    UpdateWriteGateLocked();
    Log("# Can't save in background: " + w.status().message());
    return w.status();
  }
  walk_ = std::move(*w);
  child_start_ms_ = WallClockMs();
  dirty_at_fork_ = dirty;
  last_fork_us_ = pause_us;
  char buf[200];
  snprintf(buf, sizeof(buf),
           "* Background saving started (walk; pause %lld us: %lld us to lock every shard)",
           static_cast<long long>(pause_us), static_cast<long long>(t_locked - t0));
  Log(buf);
  return Status::Ok();
}

void Snapshotter::ReapWalkLocked() {
  if (!walk_ || !walk_->finished()) {
    return;
  }
  walk_->Join();
  Result<WriteStats> r = walk_->result();
  last_walk_stats_ = walk_->stats();
  have_walk_stats_ = true;
  {
    const SnapshotWalk::Stats& w = last_walk_stats_;
    SnapshotWalk::Stats& t = walk_totals_;
    walks_total_++;
    t.chunks += w.chunks;
    t.hold_max_us = std::max(t.hold_max_us, w.hold_max_us);
    t.holds_over_100us += w.holds_over_100us;
    t.holds_over_1ms += w.holds_over_1ms;
    t.hook_keys += w.hook_keys;
    t.hook_shards += w.hook_shards;
    t.cpu_us += w.cpu_us;
    t.yields += w.yields;
    t.nivcsw += w.nivcsw;
  }
  {
    const SnapshotWalk::Stats& w = last_walk_stats_;
    char buf[400];
    snprintf(buf, sizeof(buf),
             "* Walk: %llu chunks, shard lock held p50 %llu us, p99 %llu us, max %llu us "
             "(%llu over 1 ms); %llu keys and %llu shards saved by client threads; "
             "walk threads' CPU %llu ms, %llu yields, %llu involuntary switches",
             static_cast<unsigned long long>(w.chunks), static_cast<unsigned long long>(w.hold_p50_us),
             static_cast<unsigned long long>(w.hold_p99_us),
             static_cast<unsigned long long>(w.hold_max_us),
             static_cast<unsigned long long>(w.holds_over_1ms),
             static_cast<unsigned long long>(w.hook_keys),
             static_cast<unsigned long long>(w.hook_shards),
             static_cast<unsigned long long>(w.cpu_us / 1000),
             static_cast<unsigned long long>(w.yields), static_cast<unsigned long long>(w.nivcsw));
    Log(buf);
  }
  const int64_t now_ms = WallClockMs();
  last_bgsave_duration_s_ = (now_ms - child_start_ms_) / 1000;
  if (r.ok()) {
    dirty_baseline_ = dirty_at_fork_;
    last_save_s_ = now_ms / 1000;
    last_bgsave_ok_ = true;
    consecutive_failures_ = 0;
    saves_++;
    char buf[200];
    snprintf(buf, sizeof(buf), "* DB saved on disk (%llu keys, %llu bytes, %.3f seconds)",
             static_cast<unsigned long long>(r->keys), static_cast<unsigned long long>(r->bytes),
             static_cast<double>(now_ms - child_start_ms_) / 1e3);
    Log(buf);
    Log("* Background saving terminated with success");
  } else {
    last_bgsave_ok_ = false;
    consecutive_failures_++;
    Log("# " + r.status().message());
    Log("# Background saving error");
  }
  retired_walks_.push_back(std::move(walk_));
  UpdateWriteGateLocked();
}

}  // namespace hotkv::persistence

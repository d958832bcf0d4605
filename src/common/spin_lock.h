// SpinLock: a tiny test-and-test-and-set lock for short critical sections (shard locks).
//
// Critical sections under a shard lock are a single command's work, usually well under a
// microsecond, so spinning beats a futex round trip. After a while of spinning the waiter
// yields the CPU, which matters on machines with fewer cores than threads.
//
// Thread safety: that is the point of it.
#pragma once

#include <atomic>
#include <sched.h>
#include <time.h>

namespace hotkv {

// One waiting step of a spin loop; `spins` counts the waiter's steps so far. Pause first
// (a holder usually releases within a microsecond or two), then yield the CPU, and once
// the holder has not released after kSpinWaitYields yields (it was most likely preempted:
// more runnable threads than cores) sleep 20 µs per step: a waiter that kept calling
// sched_yield made a system call per step for as long as the holder waited for a core
// (20-90 per 1,000 scripts with two workers on a loaded 2-CPU machine,
// bench/notes/2026-12-03-script-ro-scaling.md), and held its own core meanwhile.
inline constexpr int kSpinWaitPauses = 256;
inline constexpr int kSpinWaitYields = 16;
inline void SpinWait(int spins) {
  if (spins < kSpinWaitPauses) {
    __builtin_ia32_pause();
  } else if (spins < kSpinWaitPauses + kSpinWaitYields) {
    sched_yield();
  } else {
    const timespec ts{0, 20000};
    nanosleep(&ts, nullptr);
  }
}

class SpinLock {
 public:
  SpinLock() = default;
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

  void lock() {
    if (!locked_.exchange(true, std::memory_order_acquire)) {
      return;
    }
    LockSlow();
  }

  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }

  void unlock() { locked_.store(false, std::memory_order_release); }

  bool is_locked() const { return locked_.load(std::memory_order_relaxed); }

 private:
  void LockSlow() {
    int spins = 0;
    for (;;) {
      while (locked_.load(std::memory_order_relaxed)) {
        SpinWait(++spins);
      }
      if (!locked_.exchange(true, std::memory_order_acquire)) {
        return;
      }
    }
  }

  std::atomic<bool> locked_{false};
};

}  // namespace hotkv

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

namespace hotkv {

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
        if (++spins < 256) {
          __builtin_ia32_pause();
        } else {
          sched_yield();
        }
      }
      if (!locked_.exchange(true, std::memory_order_acquire)) {
        return;
      }
    }
  }

  std::atomic<bool> locked_{false};
};

}  // namespace hotkv

#include "common/page_prefault.h"

#if defined(HOTKV_MIMALLOC)

#include <mimalloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace hotkv {

namespace {

// Larger commits (huge allocations mimalloc maps on their own) are left to fault in:
// their pages may never all be written.
constexpr size_t kMaxRange = size_t{4} << 20;
// Populated per madvise call: bounds how long one call holds the mm's locks.
constexpr size_t kStep = size_t{64} << 10;
// Ranges waiting for the thread. Also the bound on what a thread that fell behind can
// page in for memory the allocator has meanwhile given back: 64 commits of 1 MiB. It
// populates a MiB in well under a millisecond, so the queue fills only when it gets no
// CPU at all, and then ranges are dropped (they fault in as usual).
constexpr unsigned kQueueSize = 64;

struct Range {
  uintptr_t start;
  size_t len;
};

struct Prefaulter {
  std::mutex mu;
  std::condition_variable cv;
  Range queue[kQueueSize];
  // Under mu. Both only grow: tail counts every range queued, head every range taken.
  uint64_t head = 0;
  uint64_t tail = 0;
  uint64_t dropped = 0;
  std::atomic<uint64_t> populated{0};  // written by the thread outside mu
};

std::atomic<Prefaulter*> g_prefaulter{nullptr};

void Enqueue(Prefaulter* p, uintptr_t start, size_t len) {
  {
    std::lock_guard<std::mutex> lock(p->mu);
    if (p->tail - p->head == kQueueSize) {
      p->dropped++;
      return;
    }
    p->queue[p->tail % kQueueSize] = Range{start, len};
    p->tail++;
  }
  p->cv.notify_one();
}

void Run(Prefaulter* p) {
  // Default priority, on purpose: at nice 19 it got no CPU next to a busy worker on the
  // same core and nothing was gained (RPUSH kernel time unchanged). At nice 0 it takes
  // its share, and since populating a page costs a fraction of the fault it replaces, the
  // worker comes out ahead; a worker that wakes up preempts it (it has used less CPU),
  // and fixed-rate SET latency was no worse (bench/notes/2026-11-30-page-faults-hugepages.md).
  pthread_setname_np(pthread_self(), "hotkv-prefault");
  for (;;) {
    Range r;
    {
      std::unique_lock<std::mutex> lock(p->mu);
      p->cv.wait(lock, [p] { return p->head != p->tail; });
      r = p->queue[p->head % kQueueSize];
      p->head++;
    }
    for (size_t off = 0; off < r.len; off += kStep) {
      const size_t n = std::min(kStep, r.len - off);
      // Fails harmlessly (ENOMEM/EINVAL) if the range was unmapped meanwhile or the
      // kernel predates MADV_POPULATE_WRITE.
      if (madvise(reinterpret_cast<void*>(r.start + off), n, MADV_POPULATE_WRITE) != 0) {
        break;
      }
      p->populated.fetch_add(n, std::memory_order_relaxed);
    }
  }
}

}  // namespace

bool StartPagePrefaulter() {
  if (g_prefaulter.load() != nullptr) {
    return true;
  }
  auto* p = new Prefaulter();
  try {
    std::thread(Run, p).detach();
  } catch (...) {
    delete p;
    return false;
  }
  mi_option_disable(mi_option_eager_commit);
  g_prefaulter.store(p, std::memory_order_release);
  return true;
}

PrefaultStats GetPrefaultStats() {
  PrefaultStats s;
  if (Prefaulter* p = g_prefaulter.load(std::memory_order_acquire)) {
    s.active = true;
    {
      std::lock_guard<std::mutex> lock(p->mu);
      s.ranges_queued = p->tail;
      s.ranges_dropped = p->dropped;
    }
    s.bytes_populated = p->populated.load(std::memory_order_relaxed);
  }
  return s;
}

void DetachPagePrefaulterInChild() { g_prefaulter.store(nullptr, std::memory_order_release); }

}  // namespace hotkv

// Interposes libc's mprotect for the shared libraries that import it (libmimalloc.so
// commits with it); glibc's own internal calls do not come here.
extern "C" int mprotect(void* addr, size_t len, int prot) {
  long rc = syscall(SYS_mprotect, addr, len, prot);
  if (rc == 0 && prot == (PROT_READ | PROT_WRITE) && len <= hotkv::kMaxRange) {
    if (hotkv::Prefaulter* p = hotkv::g_prefaulter.load(std::memory_order_acquire)) {
      hotkv::Enqueue(p, reinterpret_cast<uintptr_t>(addr), len);
    }
  }
  return static_cast<int>(rc);
}

#else  // not the mimalloc build

namespace hotkv {
bool StartPagePrefaulter() { return false; }
PrefaultStats GetPrefaultStats() { return {}; }
void DetachPagePrefaulterInChild() {}
}  // namespace hotkv

#endif

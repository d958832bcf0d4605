#include "common/memory_usage.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <new>

#if defined(HOTKV_MIMALLOC)
#include <mimalloc.h>
#elif defined(__SANITIZE_ADDRESS__)
// From the sanitizer runtime (its header, sanitizer/allocator_interface.h, is not
// always installed).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace hotkv {

namespace {

std::atomic<int64_t> g_mapped_bytes{0};

}  // namespace

void CountMappedBytes(int64_t delta) { g_mapped_bytes.fetch_add(delta, std::memory_order_relaxed); }

#if defined(HOTKV_MIMALLOC)

namespace {

// One counter per thread, each on its own cache line. A thread owns its slot and
// updates it with a relaxed load and store (no lock prefix); slot 0 is shared by the
// threads that come after the slots run out and is updated atomically.
struct alignas(64) Slot {
  std::atomic<int64_t> bytes{0};
};
constexpr int kSlots = 256;
Slot g_slots[kSlots];
std::atomic<int> g_slots_used{1};

__thread std::atomic<int64_t>* t_counter = nullptr;

[[gnu::noinline]] std::atomic<int64_t>* AssignSlot() {
  int i = g_slots_used.load(std::memory_order_relaxed);
  while (i < kSlots &&
         !g_slots_used.compare_exchange_weak(i, i + 1, std::memory_order_relaxed)) {
  }
  t_counter = &g_slots[i < kSlots ? i : 0].bytes;
  return t_counter;
}

inline void Count(int64_t delta) {
  std::atomic<int64_t>* c = t_counter;
  if (__builtin_expect(c == nullptr, 0)) {
    c = AssignSlot();
  }
  if (__builtin_expect(c == &g_slots[0].bytes, 0)) {
    c->fetch_add(delta, std::memory_order_relaxed);
  } else {
    c->store(c->load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
}

inline void* Counted(void* p) {
  if (p != nullptr) {
    Count(static_cast<int64_t>(mi_usable_size(p)));
  }
  return p;
}

inline void Release(void* p) {
  if (p != nullptr) {
    Count(-static_cast<int64_t>(mi_usable_size(p)));
    mi_free(p);
  }
}

}  // namespace

int64_t AllocatedBytes() {
  int n = g_slots_used.load(std::memory_order_relaxed);
  if (n > kSlots) {
    n = kSlots;
  }
  int64_t sum = g_mapped_bytes.load(std::memory_order_relaxed);
  for (int i = 0; i < n; i++) {
    sum += g_slots[i].bytes.load(std::memory_order_relaxed);
  }
  return sum < 0 ? 0 : sum;
}

int64_t ThreadAllocatedBytes() {
  std::atomic<int64_t>* c = t_counter;
  if (c == nullptr || c == &g_slots[0].bytes) {
    return AllocatedBytes();  // a shared slot does not tell this thread's share
  }
  return c->load(std::memory_order_relaxed);
}

bool CountingAllocatorActive() { return true; }

bool UseTransparentHugePages() {
  mi_option_enable(mi_option_large_os_pages);
  return true;
}

}  // namespace hotkv

// ---- the wrappers: the executable's definitions take precedence over libc's and
// libmimalloc's exported ones, so every allocation of the process passes here. ----

extern "C" {

void* malloc(size_t n) { return hotkv::Counted(mi_malloc(n)); }
void* calloc(size_t count, size_t n) { return hotkv::Counted(mi_calloc(count, n)); }
void free(void* p) { hotkv::Release(p); }
void cfree(void* p) { hotkv::Release(p); }

void* realloc(void* p, size_t n) {
  const int64_t old = p == nullptr ? 0 : static_cast<int64_t>(mi_usable_size(p));
  void* q = mi_realloc(p, n);
  if (q != nullptr) {
    hotkv::Count(static_cast<int64_t>(mi_usable_size(q)) - old);
  }
  return q;
}

void* reallocarray(void* p, size_t count, size_t n) {
  size_t total;
  if (__builtin_mul_overflow(count, n, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, total);
}

int posix_memalign(void** out, size_t alignment, size_t n) {
  int rc = mi_posix_memalign(out, alignment, n);
  if (rc == 0) {
    hotkv::Counted(*out);
  }
  return rc;
}

void* aligned_alloc(size_t alignment, size_t n) { return hotkv::Counted(mi_aligned_alloc(alignment, n)); }
void* memalign(size_t alignment, size_t n) { return hotkv::Counted(mi_memalign(alignment, n)); }
void* valloc(size_t n) { return hotkv::Counted(mi_valloc(n)); }
void* pvalloc(size_t n) { return hotkv::Counted(mi_pvalloc(n)); }

}  // extern "C"

void* operator new(size_t n) { return hotkv::Counted(mi_new(n)); }
void* operator new[](size_t n) { return hotkv::Counted(mi_new(n)); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return hotkv::Counted(mi_new_nothrow(n)); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return hotkv::Counted(mi_new_nothrow(n)); }
void* operator new(size_t n, std::align_val_t a) {
  return hotkv::Counted(mi_new_aligned(n, static_cast<size_t>(a)));
}
void* operator new[](size_t n, std::align_val_t a) {
  return hotkv::Counted(mi_new_aligned(n, static_cast<size_t>(a)));
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return hotkv::Counted(mi_new_aligned_nothrow(n, static_cast<size_t>(a)));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return hotkv::Counted(mi_new_aligned_nothrow(n, static_cast<size_t>(a)));
}
void operator delete(void* p) noexcept { hotkv::Release(p); }
void operator delete[](void* p) noexcept { hotkv::Release(p); }
void operator delete(void* p, size_t) noexcept { hotkv::Release(p); }
void operator delete[](void* p, size_t) noexcept { hotkv::Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { hotkv::Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { hotkv::Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { hotkv::Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { hotkv::Release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { hotkv::Release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { hotkv::Release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { hotkv::Release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { hotkv::Release(p); }

#else  // no counting allocator

int64_t AllocatedBytes() {
#if defined(__SANITIZE_ADDRESS__)
  int64_t heap = static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  struct mallinfo2 mi = mallinfo2();
  int64_t heap = static_cast<int64_t>(mi.uordblks + mi.hblkhd);
#endif
  return heap + g_mapped_bytes.load(std::memory_order_relaxed);
}

int64_t ThreadAllocatedBytes() { return AllocatedBytes(); }

bool CountingAllocatorActive() { return false; }

bool UseTransparentHugePages() { return false; }

}  // namespace hotkv

#endif

// Memory accounting: how many bytes the process has allocated right now, a figure that
// falls as soon as memory is freed (maxmemory eviction and INFO used_memory need that;
// the allocator's committed/RSS figures fall late, if at all).
//
//   int64_t used = AllocatedBytes();            // the whole process
//   int64_t mine = ThreadAllocatedBytes();      // net bytes this thread allocated
//   ... free something ...
//   int64_t freed = mine - ThreadAllocatedBytes();
//
// With mimalloc (the release build) malloc/free and operator new/delete are wrapped
// in memory_usage.cc: each adds or subtracts the block's usable size on a counter of
// the calling thread (a plain store, no atomic read-modify-write), and AllocatedBytes()
// sums the counters. A block freed by another thread than the one that allocated it
// makes one counter go up and another down; the sum stays exact. Under the sanitizers
// the sanitizer allocator's own figure is used, with glibc's malloc mallinfo2().
//
// Memory mapped outside malloc (vector node chunks) is reported with CountMappedBytes.
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include <cstdint>

namespace hotkv {

// Bytes allocated by the whole process (usable sizes) plus mapped bytes reported.
int64_t AllocatedBytes();

// Net bytes allocated by the calling thread since it started (may be negative: it
// freed blocks other threads allocated). Without the counting allocator, the same as
// AllocatedBytes(). Differences of it measure what one piece of work freed.
int64_t ThreadAllocatedBytes();

// Reports `delta` bytes mapped (+) or unmapped (-) by means other than malloc.
void CountMappedBytes(int64_t delta);

// Whether the counting allocator is linked in (mimalloc builds).
bool CountingAllocatorActive();

// Asks the allocator to back the memory it maps from now on with transparent huge pages
// (mimalloc's large_os_pages: madvise(MADV_HUGEPAGE), used when the kernel's THP mode
// is "always" or "madvise"). False when the allocator cannot (no mimalloc).
bool UseTransparentHugePages();

}  // namespace hotkv

// Page prefaulting: the memory the allocator commits is paged in by a background thread
// with MADV_POPULATE_WRITE instead of one page fault at a time by the worker that first
// writes to it.
//
// Why: a command that grows the data set (SET of a new key, LPUSH, SADD ...) touches
// fresh memory, and each first touch of a 4 KB page is a page fault: a trap into the
// kernel, a zeroed page, a page-table update. On the virtual machines HotKV is measured
// on, that trap is the expensive part (13 µs per page touched by hand against 7 µs for a
// page populated in bulk and then touched; bench/notes/2026-11-30-page-faults-hugepages.md).
// Populating in bulk pays the kernel's work without a trap per page, and doing it on another
// thread keeps it off the request path: unlike transparent huge pages (`hugepages yes`) it
// adds no millisecond stalls to the command that crosses into new memory, and memory freed
// later is still given back to the system page by page.
//
// How: with mimalloc's eager commit off, mimalloc commits segment memory in 1 MiB steps
// with mprotect(PROT_READ|PROT_WRITE) just before it hands it out. The executable's
// mprotect (page_prefault.cc) interposes the one libmimalloc.so imports: it makes the
// call, then queues the range for the prefault thread. The queue is a fixed ring under a
// mutex (a commit is rare: one per MiB of growth); when it is full a range is dropped
// and its pages fault in as before. Populating never changes memory contents (pages are
// zero-filled either way), so a range that was decommitted or unmapped again before the
// thread reached it costs at most the memory of a populated range, never correctness.
//
// Only in the mimalloc build (the release build); elsewhere Start returns false.
//
// Thread safety: StartPagePrefaulter once, before the workers start; the mprotect hook
// may run on any thread.
#pragma once

#include <cstdint>

namespace hotkv {

// Turns mimalloc's eager commit off and starts the prefault thread. False when the
// allocator is not mimalloc or the thread cannot start.
bool StartPagePrefaulter();

// Pages handed to the prefault thread and populated so far (INFO, tests).
struct PrefaultStats {
  bool active = false;
  uint64_t ranges_queued = 0;
  uint64_t ranges_dropped = 0;
  uint64_t bytes_populated = 0;
};
PrefaultStats GetPrefaultStats();

// In a forked child (BGSAVE): stops handing commits to the prefault thread, which does
// not exist in the child (its queue's mutex may have been held at the fork).
void DetachPagePrefaulterInChild();

}  // namespace hotkv

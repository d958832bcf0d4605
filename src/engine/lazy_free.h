// Lazy freeing (Redis's lazyfree.c): values and whole databases released by a background
// thread, so that the command that dropped them does not pay for freeing them.
//
//   UNLINK, DEL with lazyfree-lazy-user-del   FreeEntry(e, /*lazy=*/true): a value whose
//       free effort (FreeEffort, Redis's lazyfreeGetFreeEffort) is above
//       kLazyFreeThreshold goes to the thread; a smaller one is freed right here, since
//       handing it over would cost more than freeing it (Redis does the same).
//   FLUSHALL, FLUSHDB                         FreeTables(tables, done): the detached
//       tables of the flushed databases; `done` runs on the thread once they are freed
//       (FLUSHALL SYNC replies then, as Redis 8 does).
//
// INFO: lazyfree_pending_objects counts what is queued and not yet freed (a flushed
// table counts its keys, as Redis counts a flushed database's keys), lazyfreed_objects
// what the thread freed since start or CONFIG RESETSTAT.
//
// Thread safety: every function may be called from any thread. The queue and the two
// counters share one mutex, taken only to queue a job (never for a value freed inline)
// and by INFO.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/keyspace.h"

namespace hotkv {

// Redis's LAZYFREE_THRESHOLD: values with a free effort above it are freed lazily.
inline constexpr size_t kLazyFreeThreshold = 64;

// Redis's lazyfreeGetFreeEffort: the number of allocations freeing `e` walks — nodes of a
// quicklist, elements of a hashtable set or hash or of a skiplist zset — and 1 for
// everything kept in one block (strings, listpacks, intsets) and for vector sets (Redis
// 8.8's vectorset module frees its values synchronously).
size_t FreeEffort(const Entry* e);

// Frees a detached entry: on the background thread when `lazy` and its effort is above
// the threshold, else at once. Returns whether it was queued.
bool FreeEntry(Entry* e, bool lazy);

// Queues detached tables to be freed; `done` (may be empty) runs on the background thread
// after they are.
void FreeTables(std::vector<DbTable>&& tables, std::function<void()> done = {});

struct LazyFreeStats {
  uint64_t pending = 0;  // lazyfree_pending_objects
  uint64_t freed = 0;    // lazyfreed_objects
};
LazyFreeStats GetLazyFreeStats();
void ResetLazyFreedObjects();  // CONFIG RESETSTAT

// Blocks until every job queued so far has been freed and its `done` has run (a `done`
// posts to a worker, so whoever destroys workers waits here first: the server at exit,
// in-process tests).
void WaitForLazyFree();

// Tests only: while paused, the background thread frees nothing (jobs wait queued).
void PauseLazyFreeForTesting(bool paused);

}  // namespace hotkv

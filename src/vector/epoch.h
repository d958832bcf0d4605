// Epoch-based reclamation (EBR) for memory that lock-free readers may still hold.
//
// Readers (searches, lookups) run inside an EpochGuard. A writer that unlinks an
// object tags it with RetireEpoch() and frees (or reuses) it only once
// MinActiveEpoch() > tag, i.e. once every reader that could have seen the object has
// left its guard. Guards nest (the outermost one counts) and cost one thread_local
// access plus one seq_cst store.
//
//   {
//     EpochGuard guard;
//     ... read shared nodes ...
//   }
//   uint64_t tag = RetireEpoch();           // after unlinking X
//   ... later: if (MinActiveEpoch() > tag) free(X);
//
// The domain is process-wide: one slot per thread that ever entered a guard (reused
// after the thread exits); indexes keep their own retire lists.
//
// Thread safety: all functions are thread-safe. An EpochGuard must be destroyed on the
// thread that created it.
#ifndef HOTKV_VECTOR_EPOCH_H_
#define HOTKV_VECTOR_EPOCH_H_

#include <cstdint>

namespace hotkv::vector {

class EpochGuard {
 public:
  EpochGuard();
  ~EpochGuard();
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;
};

// Advances the global epoch and returns the epoch to tag an object unlinked before
// this call with.
uint64_t RetireEpoch();

// The smallest epoch announced by a thread currently inside a guard, or UINT64_MAX
// when no thread is. Objects tagged with an epoch < the returned value are safe to
// free.
uint64_t MinActiveEpoch();

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_EPOCH_H_

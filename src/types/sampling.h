// Random selection with the semantics of HRANDFIELD, SRANDMEMBER and SPOP's count:
// count > 0 picks min(count, n) distinct items, count < 0 picks -count items that may
// repeat, 0 picks none. Shared by every encoding; an encoding names its items by ids
// (indexes into a packed array or intset, slots of a hash table).
//
// Strategy (as Redis): repeats are independent uniform picks; a distinct count >= n
// returns every item in iteration order; a distinct count above n/3 shuffles the full id
// list partially; a smaller one draws uniform picks and drops duplicates.
//
// Thread safety: pure functions of their arguments.

#ifndef HOTKV_TYPES_SAMPLING_H_
#define HOTKV_TYPES_SAMPLING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "types/function_ref.h"
#include "common/random.h"

namespace hotkv::types {

struct SampleSource {
  size_t size;                                 // number of items (may be 0)
  FunctionRef<size_t()> random_id;             // a uniformly random item's id
  FunctionRef<std::vector<size_t>()> all_ids;  // every item's id, in iteration order
};

void SampleIds(int64_t count, Rng& rng, const SampleSource& source,
               FunctionRef<void(size_t id)> emit);

// SampleIds over items addressed by index 0..n-1 (packed arrays, intsets).
void SampleIndexes(size_t n, int64_t count, Rng& rng, FunctionRef<void(size_t index)> emit);

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_SAMPLING_H_

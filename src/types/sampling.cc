#include "types/sampling.h"

#include <unordered_set>
#include <utility>

namespace hotkv::types {

void SampleIds(int64_t count, Rng& rng, const SampleSource& source,
               FunctionRef<void(size_t id)> emit) {
  const size_t n = source.size;
  if (count == 0 || n == 0) {
    return;
  }
  if (count < 0) {
    // -count (as unsigned, so INT64_MIN is fine) independent picks.
    const uint64_t picks = 0 - static_cast<uint64_t>(count);
    for (uint64_t i = 0; i < picks; ++i) {
      emit(source.random_id());
    }
    return;
  }
  const size_t k = static_cast<uint64_t>(count) >= n ? n : static_cast<size_t>(count);
  if (k == n) {
    for (size_t id : source.all_ids()) {
      emit(id);
    }
    return;
  }
  if (k * 3 > n) {
    std::vector<size_t> ids = source.all_ids();
    for (size_t i = 0; i < k; ++i) {
      const size_t j = i + rng.Below(n - i);
      std::swap(ids[i], ids[j]);
      emit(ids[i]);
    }
    return;
  }
  std::unordered_set<size_t> seen;
  seen.reserve(k * 2);
  while (seen.size() < k) {
    const size_t id = source.random_id();
    if (seen.insert(id).second) {
      emit(id);
    }
  }
}

void SampleIndexes(size_t n, int64_t count, Rng& rng, FunctionRef<void(size_t index)> emit) {
  auto random_id = [&] { return static_cast<size_t>(rng.Below(n)); };
  auto all_ids = [&] {
    std::vector<size_t> ids(n);
    for (size_t i = 0; i < n; ++i) {
      ids[i] = i;
    }
    return ids;
  };
  SampleIds(count, rng, SampleSource{n, random_id, all_ids}, emit);
}

}  // namespace hotkv::types

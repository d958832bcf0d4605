// ZSetValue: ZSCAN and ZRANDMEMBER.

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "types/zset.h"
#include "types/zset_treeset.h"

namespace hotkv::types {

namespace {

size_t Uniform(Rng& rng, size_t n) {  // in [0, n)
  return static_cast<size_t>(rng.Below(n));
}

uint64_t Magnitude(int64_t count) {
  return count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
}

}  // namespace

uint64_t ZSetValue::Scan(uint64_t cursor, size_t count, ZVisitor visit) const {
  if (tree_) {
    return tree_->Scan(cursor, count, visit);
  }
  listpack_.ForEach(visit);
  return 0;
}

std::optional<ZMemberScore> ZSetValue::RandomMember(Rng& rng) const {
  const size_t size = Size();
  if (size == 0) {
    return std::nullopt;
  }
  return At(Uniform(rng, size));
}

size_t ZSetValue::RandomMembersLength(int64_t count) const {
  if (count < 0) {
    return static_cast<size_t>(Magnitude(count));
  }
  const size_t size = Size();
  return static_cast<uint64_t>(count) < size ? static_cast<size_t>(count) : size;
}

size_t ZSetValue::RandomMembers(int64_t count, Rng& rng, ZVisitor visit) const {
  const size_t size = Size();
  if (count == 0 || size == 0) {
    return 0;
  }
  if (count < 0) {  // with repetitions: independent uniform picks
    const uint64_t n = Magnitude(count);
    if (tree_) {
      for (uint64_t i = 0; i < n; ++i) {
        const ZMemberScore e = tree_->At(Uniform(rng, size));
        visit(e.member, e.score);
      }
      return static_cast<size_t>(n);
    }
    std::vector<ZMemberScore> all;  // index the listpack once: O(1) per pick
    all.reserve(size);
    listpack_.ForEach([&all](std::string_view m, double s) { all.push_back({m, s}); });
    for (uint64_t i = 0; i < n; ++i) {
      const ZMemberScore& e = all[Uniform(rng, size)];
      visit(e.member, e.score);
    }
    return static_cast<size_t>(n);
  }

  const size_t k = static_cast<uint64_t>(count) < size ? static_cast<size_t>(count) : size;
  if (k == size) {  // the whole set (Redis returns it in order, too)
    ForEach(visit);
    return k;
  }
  std::vector<ZMemberScore> picked;
  picked.reserve(k);
  if (k * 3 > size) {
    // Selection sampling in one ordered pass: each element is kept with probability
    // needed / remaining, which yields a uniform k-subset.
    size_t needed = k;
    size_t remaining = size;
    ForEach([&](std::string_view m, double s) {
      if (needed > 0 && Uniform(rng, remaining) < needed) {
        picked.push_back({m, s});
        --needed;
      }
      --remaining;
    });
  } else {
    // Floyd's algorithm: k distinct ranks with k random draws, then O(log n) each.
    std::unordered_set<size_t> ranks;
    ranks.reserve(k);
    for (size_t j = size - k; j < size; ++j) {
      const size_t t = Uniform(rng, j + 1);
      if (!ranks.insert(t).second) {
        ranks.insert(j);
      }
    }
    for (const size_t rank : ranks) {
      picked.push_back(At(rank));
    }
  }
  std::shuffle(picked.begin(), picked.end(), rng);
  for (const ZMemberScore& e : picked) {
    visit(e.member, e.score);
  }
  return k;
}

}  // namespace hotkv::types

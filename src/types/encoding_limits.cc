#include "types/encoding_limits.h"

#include <cstdint>

namespace hotkv::types {

ListNodeLimit ListNodeLimitFor(int64_t list_max_listpack_size) {
  // Redis's SIZE_SAFETY_LIMIT: a count-bounded node still stays under 8 KB.
  constexpr size_t kSafetyBytes = 8 * 1024;
  if (list_max_listpack_size >= 0) {
    const size_t entries =
        list_max_listpack_size == 0 ? 1 : static_cast<size_t>(list_max_listpack_size);
    return ListNodeLimit{kSafetyBytes, entries};
  }
  // -1 -> 4 KB, -2 -> 8 KB, ... -5 and below -> 64 KB.
  const int64_t level = list_max_listpack_size < -5 ? 5 : -list_max_listpack_size;
  return ListNodeLimit{size_t{4096} << (level - 1), SIZE_MAX};
}

}  // namespace hotkv::types

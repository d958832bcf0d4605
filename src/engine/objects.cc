// Type dispatch for collection objects held by entries. Each case forwards to the data
// structure in types/ (or vector/) that implements it.
#include <cstdlib>

#include "engine/entry.h"

namespace hotkv {

void DestroyObject(ValueType type, void* object) {
  switch (type) {
    default:
      abort();  // every collection type registers its case here
  }
}

void* CloneObject(ValueType type, const void* object) {
  switch (type) {
    default:
      abort();
  }
}

size_t ObjectMemoryUsage(ValueType type, const void* object) {
  switch (type) {
    default:
      return 0;
  }
}

std::string_view ObjectEncodingName(ValueType type, const void* object) {
  switch (type) {
    default:
      return "unknown";
  }
}

}  // namespace hotkv

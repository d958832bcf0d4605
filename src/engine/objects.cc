// Type dispatch for collection objects held by entries. Each case forwards to the data
// structure in types/ (or vector/) that implements it.
#include <cstdlib>

#include "engine/entry.h"
#include "types/hash_value.h"
#include "types/set_value.h"

namespace hotkv {

void DestroyObject(ValueType type, void* object) {
  switch (type) {
    case ValueType::kHash: delete static_cast<types::HashValue*>(object); return;
    case ValueType::kSet: delete static_cast<types::SetValue*>(object); return;
    default:
      abort();  // every collection type registers its case here
  }
}

void* CloneObject(ValueType type, const void* object) {
  switch (type) {
    case ValueType::kHash: return new types::HashValue(static_cast<const types::HashValue*>(object)->Clone());
    case ValueType::kSet: return new types::SetValue(static_cast<const types::SetValue*>(object)->Clone());
    default:
      abort();
  }
}

size_t ObjectMemoryUsage(ValueType type, const void* object) {
  switch (type) {
    case ValueType::kHash: return sizeof(types::HashValue) + static_cast<const types::HashValue*>(object)->MemoryUsage();
    case ValueType::kSet: return sizeof(types::SetValue) + static_cast<const types::SetValue*>(object)->MemoryUsage();
    default:
      return 0;
  }
}

std::string_view ObjectEncodingName(ValueType type, const void* object) {
  switch (type) {
    case ValueType::kHash: return static_cast<const types::HashValue*>(object)->EncodingName();
    case ValueType::kSet: return static_cast<const types::SetValue*>(object)->EncodingName();
    default:
      return "unknown";
  }
}

}  // namespace hotkv

// Type dispatch for collection objects held by entries. Each case forwards to the data
// structure in types/ (or vector/) that implements it.
#include <cstdlib>
#include <cstring>

#include "engine/entry.h"
#include "engine/extension_value.h"
#include "engine/vector_set_value.h"
#include "json/json_node.h"
#include "types/list_value.h"
#include "types/zset.h"
#include "types/hash_value.h"
#include "types/set_value.h"
#include "types/stream.h"

namespace hotkv {

void DestroyObject(ValueType type, void* object) {
  if (type == kValueTypeExtension) {
    delete static_cast<ExtensionValue*>(object);
    return;
  }
  switch (type) {
    case ValueType::kList: delete static_cast<types::ListValue*>(object); return;
    case ValueType::kZSet:
      delete static_cast<types::ZSetValue*>(object);
      return;
    case ValueType::kHash: delete static_cast<types::HashValue*>(object); return;
    case ValueType::kSet: delete static_cast<types::SetValue*>(object); return;
    case ValueType::kStream: delete static_cast<types::StreamValue*>(object); return;
    // Drops the key's reference; a search still running keeps the index alive.
    case ValueType::kVectorSet: {
      auto* v = static_cast<VectorSetValue*>(object);
      if (v->set != nullptr) {
        v->set->MarkDetached();  // a write still running on it is not recorded
      }
      delete v;
      return;
    }
    case ValueType::kJson: delete static_cast<json::Node*>(object); return;
    default:
      abort();  // every collection type registers its case here
  }
}

void* CloneObject(ValueType type, const void* object) {
  if (type == kValueTypeExtension) {
    return static_cast<const ExtensionValue*>(object)->Clone().release();
  }
  switch (type) {
    case ValueType::kList: return new types::ListValue(static_cast<const types::ListValue*>(object)->Clone());
    case ValueType::kZSet:
      return new types::ZSetValue(static_cast<const types::ZSetValue*>(object)->Clone());
    case ValueType::kHash: return new types::HashValue(static_cast<const types::HashValue*>(object)->Clone());
    case ValueType::kSet: return new types::SetValue(static_cast<const types::SetValue*>(object)->Clone());
    case ValueType::kStream:
      return new types::StreamValue(static_cast<const types::StreamValue*>(object)->Clone());
    case ValueType::kVectorSet: return new VectorSetValue{static_cast<const VectorSetValue*>(object)->set->Clone()};
    case ValueType::kJson: return new json::Node(static_cast<const json::Node*>(object)->Clone());
    default:
      abort();
  }
}

size_t ObjectMemoryUsage(ValueType type, const void* object) {
  if (type == kValueTypeExtension) {
    return static_cast<const ExtensionValue*>(object)->MemoryUsage();
  }
  switch (type) {
    case ValueType::kList: return sizeof(types::ListValue) + static_cast<const types::ListValue*>(object)->MemoryUsage();
    case ValueType::kZSet:
      return sizeof(types::ZSetValue) + static_cast<const types::ZSetValue*>(object)->MemoryUsage();
    case ValueType::kHash: return sizeof(types::HashValue) + static_cast<const types::HashValue*>(object)->MemoryUsage();
    case ValueType::kSet: return sizeof(types::SetValue) + static_cast<const types::SetValue*>(object)->MemoryUsage();
    case ValueType::kStream:
      return sizeof(types::StreamValue) + static_cast<const types::StreamValue*>(object)->MemoryUsage();
    case ValueType::kVectorSet: return sizeof(VectorSetValue) + static_cast<const VectorSetValue*>(object)->set->MemoryUsage();
    case ValueType::kJson: return sizeof(json::Node) + static_cast<const json::Node*>(object)->MemoryUsage();
    default:
      return 0;
  }
}

size_t ObjectLength(ValueType type, const void* object) {
  switch (type) {
    case ValueType::kList: return static_cast<const types::ListValue*>(object)->size();
    case ValueType::kZSet: return static_cast<const types::ZSetValue*>(object)->Size();
    case ValueType::kHash: return static_cast<const types::HashValue*>(object)->size();
    case ValueType::kSet: return static_cast<const types::SetValue*>(object)->size();
    case ValueType::kStream: return static_cast<const types::StreamValue*>(object)->length();
    default:
      return 0;  // not needed for vector sets (INFO keysizes does not count them)
  }
}

size_t ObjectFreeEffort(ValueType type, const void* object) {
  // Redis counts quicklist nodes, hashtable and skiplist elements; a listpack or an
  // intset is one allocation.
  auto hashtable = [](const char* encoding) { return std::strcmp(encoding, "hashtable") == 0; };
  if (type == kValueTypeExtension) {
    return static_cast<const ExtensionValue*>(object)->FreeEffort();
  }
  switch (type) {
    case ValueType::kList: return static_cast<const types::ListValue*>(object)->NodeCount();
    case ValueType::kZSet: {
      const auto* z = static_cast<const types::ZSetValue*>(object);
      return z->encoding() == types::ZSetValue::Encoding::kSkiplist ? z->Size() : 1;
    }
    case ValueType::kHash: {
      const auto* h = static_cast<const types::HashValue*>(object);
      return hashtable(h->EncodingName()) ? h->size() : 1;
    }
    case ValueType::kSet: {
      const auto* s = static_cast<const types::SetValue*>(object);
      return hashtable(s->EncodingName()) ? s->size() : 1;
    }
    case ValueType::kJson: {
      // The top level's children: a large document is freed in the background.
      const auto* n = static_cast<const json::Node*>(object);
      return n->is_container() ? n->size() + 1 : 1;
    }
    case ValueType::kStream: {
      // Redis counts the stream's nodes plus, per group, its PEL and consumers.
      const auto* st = static_cast<const types::StreamValue*>(object);
      size_t effort = st->BlockCount();
      for (const auto& [name, g] : st->groups()) {
        effort += 1 + g->pel.size() + g->consumers.size();
      }
      return effort;
    }
    default:
      return 1;  // vector sets: Redis 8.8 frees them synchronously
  }
}

std::string_view ObjectEncodingName(ValueType type, const void* object) {
  if (type == kValueTypeExtension) {
    return static_cast<const ExtensionValue*>(object)->EncodingName();
  }
  switch (type) {
    case ValueType::kList: return static_cast<const types::ListValue*>(object)->EncodingName();
    case ValueType::kZSet:
      return static_cast<const types::ZSetValue*>(object)->EncodingName();
    case ValueType::kHash: return static_cast<const types::HashValue*>(object)->EncodingName();
    case ValueType::kSet: return static_cast<const types::SetValue*>(object)->EncodingName();
    case ValueType::kStream: return "stream";
    // Redis 8 vector sets are module values, whose OBJECT ENCODING is "raw".
    case ValueType::kVectorSet: return "raw";
    case ValueType::kJson: return "raw";  // a module value, as in Redis
    default:
      return "unknown";
  }
}

}  // namespace hotkv

namespace hotkv {

bool HashHasFieldTtls(const Entry* e) { return e->As<types::HashValue>()->HasFieldTtls(); }

}  // namespace hotkv

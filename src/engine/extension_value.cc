// The extension type registry and extension entries (see extension_value.h).
#include "engine/extension_value.h"

#include <cstring>
#include <mutex>

namespace hotkv {
namespace {

constexpr char kModuleCharset[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr int kEncverBits = 10;

std::mutex g_registry_mu;
std::vector<const ExtensionType*>& Registry() {
  static std::vector<const ExtensionType*> types;
  return types;
}

}  // namespace

uint64_t ExtensionModuleId(std::string_view rdb_name, int encver) {
  uint64_t id = 0;
  for (char c : rdb_name) {
    const char* p = c == '\0' ? nullptr : strchr(kModuleCharset, c);
    id = (id << 6) | static_cast<uint64_t>(p != nullptr ? p - kModuleCharset : 0);
  }
  return (id << kEncverBits) | (static_cast<uint64_t>(encver) & ((1u << kEncverBits) - 1));
}

void RegisterExtensionType(const ExtensionType* t) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  for (const ExtensionType* r : Registry()) {
    if (r == t) {
      return;
    }
  }
  Registry().push_back(t);
}

const ExtensionType* FindExtensionType(uint64_t module_id, int* encver) {
  const int version = static_cast<int>(module_id & ((1u << kEncverBits) - 1));
  const uint64_t name_bits = module_id >> kEncverBits;
  std::lock_guard<std::mutex> lock(g_registry_mu);
  for (const ExtensionType* t : Registry()) {
    if ((ExtensionModuleId(t->rdb_name, 0) >> kEncverBits) == name_bits && version <= t->encver) {
      *encver = version;
      return t;
    }
  }
  return nullptr;
}

Entry* NewExtensionEntry(std::string_view key, std::unique_ptr<ExtensionValue> value,
                         bool expire_block) {
  return Entry::NewObject(key, kValueTypeExtension, value.release(), expire_block);
}

}  // namespace hotkv

// What SCACHE.*, PCACHE.* and MEM.* share to find their key: an extension value of one
// of ai/'s types (engine/extension_value.h), looked up under the key's shard lock.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "commands/helpers.h"
#include "commands/vector_common.h"
#include "engine/extension_value.h"
#include "server/command_context.h"

namespace hotkv::ai {

// The value of type `type` at `key` in `*out` (null when the key is missing). A key of
// another type gets WRONGTYPE replied and false. `read`: a read lookup (expiry, hit and
// miss statistics); otherwise a write's lookup that touches the entry.
template <typename ValueT>
bool FindAiValue(CommandContext& ctx, std::string_view key, bool read, const ExtensionType& type,
                 ValueT** out) {
  *out = nullptr;
  Entry* e = read ? LookupRead(ctx, key) : ctx.db().Find(key);
  if (e == nullptr) {
    return true;
  }
  if (!read) {
    ctx.TouchEntry(e);
  }
  if (e->type() != kValueTypeExtension || &AsExtension(*e)->type() != &type) {
    ctx.rb().Error(errors::kWrongType);
    return false;
  }
  *out = static_cast<ValueT*>(AsExtension(*e));
  return true;
}

// The namespace object a value of ai/'s types holds (ValueT::shared()), found like
// FindAiValue: `*out` null when the key is missing, false after a WRONGTYPE reply.
template <typename ValueT>
bool FindNamespace(CommandContext& ctx, std::string_view key, bool read, const ExtensionType& type,
                   std::shared_ptr<typename ValueT::Shared>* out) {
  out->reset();
  ValueT* v;
  if (!FindAiValue(ctx, key, read, type, &v)) {
    return false;
  }
  if (v != nullptr) {
    *out = v->shared();
  }
  return true;
}

// The namespace of a command that needs one, or null after replying (`missing` for a
// missing key, WRONGTYPE for another type).
template <typename ValueT>
std::shared_ptr<typename ValueT::Shared> NamespaceOrReply(CommandContext& ctx, std::string_view key,
                                                          bool read, const ExtensionType& type,
                                                          std::string_view missing) {
  std::shared_ptr<typename ValueT::Shared> out;
  if (!FindNamespace<ValueT>(ctx, key, read, type, &out)) {
    return nullptr;
  }
  if (out == nullptr) {
    ctx.rb().Error(missing);
  }
  return out;
}

// A vector given as "FP32 <blob>" or "VALUES <n> <v...>" at args[i] (ParseVectorArg);
// `*next` is the index after it. Replies the ai/ commands' error and returns nullopt
// when it is malformed.
inline std::optional<std::vector<float>> VectorArgOrReply(CommandContext& ctx, size_t i,
                                                          size_t* next) {
  std::optional<VectorArg> v = ParseVectorArg(ctx, i);
  if (!v) {
    ctx.rb().Error("ERR invalid vector specification");
    return std::nullopt;
  }
  *next = i + v->consumed;
  return std::move(v->values);
}

// A self_locking command's use of its value outside the shard lock (an HNSW insert or
// search, a large copy): counted so that a snapshot barrier waits for it, as for vector
// sets (commands/vector_common.h).
class OutsideLock {
 public:
  OutsideLock() { g_vector_writes_outside_lock.fetch_add(1, std::memory_order_acq_rel); }
  ~OutsideLock() { g_vector_writes_outside_lock.fetch_sub(1, std::memory_order_acq_rel); }
  OutsideLock(const OutsideLock&) = delete;
  OutsideLock& operator=(const OutsideLock&) = delete;
};

}  // namespace hotkv::ai

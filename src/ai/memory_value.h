// MemoryValue: what a "memory" key's entry owns — an ExtensionValue (engine/
// extension_value.h) holding the shared AgentMemory (MEM.*) — and its RDB / AOF forms.
//
// RDB (module type "hkvmemory", encoding version 1): options (dim, metric, weights,
// half-lives, touch interval, session TTL, m, ef), next id, then the memories in
// insertion order (id, text, user, session, type, topics, entities, attrs, created,
// updated, accessed, access count, the vector as float32 bytes), then the sessions (name,
// expiry, TTL, messages: role, content, time). The index is rebuilt on load.
// AOF rewrite: MEM.CREATE, one MEM.ADD per memory with ID and its times (MemoryAddArgs),
// one MEM.SESSION.APPEND per message with AT and PXAT.
//
// Thread safety: as any value, guarded by the key's shard lock; the AgentMemory it
// points to is thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ai/agent_memory.h"
#include "engine/extension_value.h"

namespace hotkv::ai {

const ExtensionType& MemoryType();

class MemoryValue final : public ExtensionValue {
 public:
  explicit MemoryValue(std::shared_ptr<AgentMemory> mem) : mem_(std::move(mem)) {}

  using Shared = AgentMemory;
  const std::shared_ptr<AgentMemory>& shared() const { return mem_; }

  const ExtensionType& type() const override { return MemoryType(); }
  size_t MemoryUsage() const override { return sizeof(*this) + mem_->MemoryUsage(); }
  size_t FreeEffort() const override { return 1 + mem_->size(); }
  std::unique_ptr<ExtensionValue> Clone() const override {
    return std::make_unique<MemoryValue>(mem_->Clone());
  }
  void Save(ExtensionWriter& w) const override;
  void Rewrite(std::string_view key, const EmitCommand& emit) const override;

 private:
  std::shared_ptr<AgentMemory> mem_;
};

// MEM.ADD key FP32 blob text USER .. SESSION .. TYPE .. TOPICS .. ENTITIES .. ATTRS ..
// ID id CREATED ms UPDATED ms ACCESSED ms ACCESSES n: replays `m` exactly.
std::vector<std::string> MemoryAddArgs(std::string_view key, const Memory& m,
                                       std::span<const float> vec);
// MEM.CREATE key with every option of `o`.
std::vector<std::string> MemoryCreateArgs(std::string_view key, const AgentMemoryOptions& o);
std::string JoinList(const std::vector<std::string>& v);  // "a,b"

}  // namespace hotkv::ai

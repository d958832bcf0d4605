// PcacheValue: what a "pcache" key's entry owns — an ExtensionValue (engine/
// extension_value.h) holding the shared PromptCache — and its RDB form.
//
// RDB (module type "hkvpcache", encoding version 1): budget, default TTL (ms), counters
// (hits, misses, evictions, expirations), the use clock, the block count, then per block,
// parents before children: key, flags (1: has a parent), parent key, absolute expiry (ms,
// 0 none), last use tick, value.
// AOF rewrite: PCACHE.CREATE with BUDGET and TTL, then one PCACHE.PUT per block, parents
// first, with PARENT and PXAT.
//
// Thread safety: as any value, guarded by the key's shard lock; the PromptCache it points
// to is thread-safe.
#pragma once

#include <memory>

#include "ai/prompt_cache.h"
#include "engine/extension_value.h"

namespace hotkv::ai {

// The registered type (TYPE "pcache").
const ExtensionType& PcacheType();

class PcacheValue final : public ExtensionValue {
 public:
  explicit PcacheValue(std::shared_ptr<PromptCache> cache) : cache_(std::move(cache)) {}

  using Shared = PromptCache;
  const std::shared_ptr<PromptCache>& shared() const { return cache_; }

  const ExtensionType& type() const override { return PcacheType(); }
  size_t MemoryUsage() const override { return sizeof(*this) + cache_->MemoryUsage(); }
  size_t FreeEffort() const override { return 1 + cache_->size(); }
  std::unique_ptr<ExtensionValue> Clone() const override {
    return std::make_unique<PcacheValue>(cache_->Clone());
  }
  void Save(ExtensionWriter& w) const override;
  void Rewrite(std::string_view key, const EmitCommand& emit) const override;

 private:
  std::shared_ptr<PromptCache> cache_;
};

}  // namespace hotkv::ai

// ScacheValue: what an "scache" key's entry owns — an ExtensionValue (engine/
// extension_value.h) holding the shared SemanticCache — and its RDB form.
//
// RDB (module type "hkvscache", encoding version 1): options (dim, metric, type,
// threshold, ttl, maxentries, m, ef), next id, counters, then per entry, oldest LRU
// position first: id, absolute expiry, TTL, flags (prompt? attrs?), response, prompt,
// attributes, the vector as float32 little-endian bytes. The index is rebuilt on load.
// AOF rewrite: SCACHE.CREATE, then one SCACHE.SET per entry with ID, TTL and PXAT.
//
// Thread safety: as any value, guarded by the key's shard lock; the SemanticCache it
// points to is thread-safe.
#pragma once

#include <memory>

#include "ai/semantic_cache.h"
#include "engine/extension_value.h"

namespace hotkv::ai {

// The registered type (TYPE "scache").
const ExtensionType& ScacheType();

class ScacheValue final : public ExtensionValue {
 public:
  explicit ScacheValue(std::shared_ptr<SemanticCache> cache) : cache_(std::move(cache)) {}

  using Shared = SemanticCache;
  const std::shared_ptr<SemanticCache>& shared() const { return cache_; }

  const ExtensionType& type() const override { return ScacheType(); }
  size_t MemoryUsage() const override { return sizeof(*this) + cache_->MemoryUsage(); }
  size_t FreeEffort() const override { return 1 + cache_->size(); }
  std::unique_ptr<ExtensionValue> Clone() const override {
    return std::make_unique<ScacheValue>(cache_->Clone());
  }
  void Save(ExtensionWriter& w) const override;
  void Rewrite(std::string_view key, const EmitCommand& emit) const override;

 private:
  std::shared_ptr<SemanticCache> cache_;
};

// Option names as SCACHE.CREATE and SCACHE.INFO spell them.
const char* MetricOptionName(vector::Metric m);      // "COSINE", "L2", "IP"
const char* TypeOptionName(vector::Quantization q);  // "FLOAT32", "Q8"
// Shortest text that parses back to the same double.
std::string DoubleText(double d);

}  // namespace hotkv::ai

// PcacheValue (see pcache_value.h).
#include "ai/pcache_value.h"

#include <string>

namespace hotkv::ai {
namespace {

constexpr int kEncver = 1;
constexpr uint64_t kFlagParent = 1;

std::unique_ptr<ExtensionValue> LoadPcache(ExtensionReader& r, int encver);

const ExtensionType kPcacheType{"pcache", "hkvpcache", kEncver, &LoadPcache};

std::unique_ptr<ExtensionValue> LoadPcache(ExtensionReader& r, int /*encver*/) {
  PromptCache::Snapshot snap;
  uint64_t count;
  if (!r.Unsigned(&snap.options.budget_bytes) || !r.Signed(&snap.options.ttl_ms) ||
      !r.Unsigned(&snap.hits) || !r.Unsigned(&snap.misses) || !r.Unsigned(&snap.evictions) ||
      !r.Unsigned(&snap.expirations) || !r.Unsigned(&snap.clock) || !r.Unsigned(&count)) {
    return nullptr;
  }
  if (snap.options.budget_bytes > kMaxBudgetBytes || snap.options.ttl_ms < 0 ||
      snap.options.ttl_ms > kMaxPcacheTtlSeconds * 1000) {
    r.Fail("pcache value: bad options");
    return nullptr;
  }
  if (count > r.remaining() / 6) {  // each block takes at least 6 opcodes
    r.Fail("pcache value: block count beyond the data");
    return nullptr;
  }
  snap.blocks.reserve(count);
  for (uint64_t i = 0; i < count; i++) {
    PromptCache::SavedBlock b;
    uint64_t flags;
    std::string value;
    if (!r.String(&b.key) || !r.Unsigned(&flags) || !r.String(&b.parent) ||
        !r.Signed(&b.expire_at_ms) || !r.Unsigned(&b.used) || !r.String(&value)) {
      return nullptr;
    }
    b.has_parent = (flags & kFlagParent) != 0;
    b.value = std::make_shared<const std::string>(std::move(value));
    snap.blocks.push_back(std::move(b));
  }
  auto cache = std::make_shared<PromptCache>(snap.options);
  if (Status st = cache->Restore(std::move(snap)); !st.ok()) {
    r.Fail("pcache value: " + st.message());
    return nullptr;
  }
  return std::make_unique<PcacheValue>(std::move(cache));
}

}  // namespace

const ExtensionType& PcacheType() { return kPcacheType; }

void PcacheValue::Save(ExtensionWriter& w) const {
  PromptCache::Snapshot s = cache_->TakeSnapshot();
  w.Unsigned(s.options.budget_bytes);
  w.Signed(s.options.ttl_ms);
  w.Unsigned(s.hits);
  w.Unsigned(s.misses);
  w.Unsigned(s.evictions);
  w.Unsigned(s.expirations);
  w.Unsigned(s.clock);
  w.Unsigned(s.blocks.size());
  for (const PromptCache::SavedBlock& b : s.blocks) {
    w.String(b.key);
    w.Unsigned(b.has_parent ? kFlagParent : 0);
    w.String(b.parent);
    w.Signed(b.expire_at_ms);
    w.Unsigned(b.used);
    w.String(*b.value);
  }
}

void PcacheValue::Rewrite(std::string_view key, const EmitCommand& emit) const {
  PromptCache::Snapshot s = cache_->TakeSnapshot();
  const std::string k(key);
  emit({"PCACHE.CREATE", k, "BUDGET", std::to_string(s.options.budget_bytes), "TTL",
        std::to_string(s.options.ttl_ms / 1000)});
  for (const PromptCache::SavedBlock& b : s.blocks) {
    std::vector<std::string> args = {"PCACHE.PUT", k, b.key, *b.value};
    if (b.has_parent) {
      args.insert(args.end(), {"PARENT", b.parent});
    }
    args.insert(args.end(), {"PXAT", std::to_string(b.expire_at_ms)});
    emit(args);
  }
}

}  // namespace hotkv::ai

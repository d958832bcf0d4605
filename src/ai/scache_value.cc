// ScacheValue (see scache_value.h).
#include "ai/scache_value.h"

#include <cstdio>
#include <cstring>
#include <cstdlib>

namespace hotkv::ai {
namespace {

constexpr int kEncver = 1;
constexpr uint64_t kFlagPrompt = 1, kFlagAttrs = 2;

std::unique_ptr<ExtensionValue> LoadScache(ExtensionReader& r, int encver);

const ExtensionType kScacheType{"scache", "hkvscache", kEncver, &LoadScache};

std::string VectorBytes(const std::vector<float>& v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());  // little-endian hosts, as FP32 blobs
  return s;
}

std::unique_ptr<ExtensionValue> LoadScache(ExtensionReader& r, int /*encver*/) {
  SemanticCacheOptions o;
  uint64_t dim, metric, quant, max_entries, m, ef;
  int64_t ttl;
  if (!r.Unsigned(&dim) || !r.Unsigned(&metric) || !r.Unsigned(&quant) || !r.Double(&o.threshold) ||
      !r.Signed(&ttl) || !r.Unsigned(&max_entries) || !r.Unsigned(&m) || !r.Unsigned(&ef)) {
    return nullptr;
  }
  if (metric > 2 || quant > 1 || m < 2 || m > 255 || ef < 1 || ef > 1000000 || dim > 65536) {
    r.Fail("scache value: bad options");
    return nullptr;
  }
  o.dim = static_cast<uint32_t>(dim);
  o.metric = static_cast<vector::Metric>(metric);
  o.quant = static_cast<vector::Quantization>(quant);
  o.ttl_ms = ttl;
  o.max_entries = max_entries;
  o.m = static_cast<uint32_t>(m);
  o.ef = static_cast<uint32_t>(ef);
  auto cache = SemanticCache::Create(o);
  if (!cache.ok()) {
    r.Fail("scache value: " + cache.status().message());
    return nullptr;
  }
  SemanticCache::Snapshot snap;
  uint64_t count;
  if (!r.Unsigned(&snap.next_id) || !r.Unsigned(&snap.stats.hits_exact) ||
      !r.Unsigned(&snap.stats.hits_semantic) || !r.Unsigned(&snap.stats.misses) ||
      !r.Unsigned(&snap.stats.evictions) || !r.Unsigned(&snap.stats.expirations) ||
      !r.Unsigned(&count)) {
    return nullptr;
  }
  if (count > r.remaining() / 8) {  // each entry takes well over 8 bytes
    r.Fail("scache value: entry count beyond the data");
    return nullptr;
  }
  snap.entries.reserve(count);
  std::string vec;
  for (uint64_t i = 0; i < count; i++) {
    SemanticCache::SavedEntry e;
    uint64_t flags;
    if (!r.Unsigned(&e.id) || !r.Signed(&e.expire_at_ms) || !r.Signed(&e.ttl_ms) ||
        !r.Unsigned(&flags) || !r.String(&e.response) || !r.String(&e.prompt) ||
        !r.String(&e.attrs) || !r.String(&vec)) {
      return nullptr;
    }
    if (vec.size() != static_cast<size_t>(o.dim) * sizeof(float)) {
      r.Fail("scache value: vector of the wrong size");
      return nullptr;
    }
    e.has_prompt = (flags & kFlagPrompt) != 0;
    e.has_attrs = (flags & kFlagAttrs) != 0;
    e.vec.resize(o.dim);
    std::memcpy(e.vec.data(), vec.data(), vec.size());
    snap.entries.push_back(std::move(e));
  }
  if (Status st = (*cache)->Restore(std::move(snap)); !st.ok()) {
    r.Fail("scache value: " + st.message());
    return nullptr;
  }
  return std::make_unique<ScacheValue>(std::move(cache.value()));
}

}  // namespace

const ExtensionType& ScacheType() { return kScacheType; }

const char* MetricOptionName(vector::Metric m) {
  switch (m) {
    case vector::Metric::kCosine: return "COSINE";
    case vector::Metric::kL2: return "L2";
    case vector::Metric::kInnerProduct: return "IP";
  }
  return "COSINE";
}

const char* TypeOptionName(vector::Quantization q) {
  return q == vector::Quantization::kQ8 ? "Q8" : "FLOAT32";
}

std::string DoubleText(double d) {
  char buf[64];
  for (int precision = 1; precision <= 17; precision++) {
    snprintf(buf, sizeof(buf), "%.*g", precision, d);
    if (strtod(buf, nullptr) == d) {
      break;
    }
  }
  return buf;
}

void ScacheValue::Save(ExtensionWriter& w) const {
  const SemanticCacheOptions& o = cache_->options();
  SemanticCache::Snapshot snap = cache_->TakeSnapshot();
  w.Unsigned(o.dim);
  w.Unsigned(static_cast<uint64_t>(o.metric));
  w.Unsigned(static_cast<uint64_t>(o.quant));
  w.Double(o.threshold);
  w.Signed(o.ttl_ms);
  w.Unsigned(o.max_entries);
  w.Unsigned(o.m);
  w.Unsigned(o.ef);
  w.Unsigned(snap.next_id);
  w.Unsigned(snap.stats.hits_exact);
  w.Unsigned(snap.stats.hits_semantic);
  w.Unsigned(snap.stats.misses);
  w.Unsigned(snap.stats.evictions);
  w.Unsigned(snap.stats.expirations);
  w.Unsigned(snap.entries.size());
  for (const SemanticCache::SavedEntry& e : snap.entries) {
    w.Unsigned(e.id);
    w.Signed(e.expire_at_ms);
    w.Signed(e.ttl_ms);
    w.Unsigned((e.has_prompt ? kFlagPrompt : 0) | (e.has_attrs ? kFlagAttrs : 0));
    w.String(e.response);
    w.String(e.prompt);
    w.String(e.attrs);
    w.String(VectorBytes(e.vec));
  }
}

void ScacheValue::Rewrite(std::string_view key, const EmitCommand& emit) const {
  const SemanticCacheOptions& o = cache_->options();
  const std::string k(key);
  emit({"SCACHE.CREATE", k, "DIM", std::to_string(o.dim), "METRIC", MetricOptionName(o.metric),
        "TYPE", TypeOptionName(o.quant), "THRESHOLD", DoubleText(o.threshold), "TTL",
        std::to_string(o.ttl_ms / 1000), "MAXENTRIES", std::to_string(o.max_entries), "M",
        std::to_string(o.m), "EF", std::to_string(o.ef)});
  SemanticCache::Snapshot snap = cache_->TakeSnapshot();
  for (const SemanticCache::SavedEntry& e : snap.entries) {
    std::vector<std::string> args = {"SCACHE.SET", k, "FP32", VectorBytes(e.vec), e.response};
    if (e.has_prompt) {
      args.insert(args.end(), {"PROMPT", e.prompt});
    }
    if (e.has_attrs) {
      args.insert(args.end(), {"ATTRS", e.attrs});
    }
    args.insert(args.end(), {"ID", std::to_string(e.id), "TTL", std::to_string(e.ttl_ms / 1000),
                             "PXAT", std::to_string(e.expire_at_ms)});
    emit(args);
  }
}

}  // namespace hotkv::ai

// MemoryValue (see memory_value.h).
#include "ai/memory_value.h"

#include <cstring>

#include "ai/scache_value.h"

namespace hotkv::ai {
namespace {

constexpr int kEncver = 1;

std::unique_ptr<ExtensionValue> LoadMemory(ExtensionReader& r, int encver);

const ExtensionType kMemoryType{"memory", "hkvmemory", kEncver, &LoadMemory};

std::string VectorBytes(std::span<const float> v) {
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());  // little-endian hosts, as FP32 blobs
  return s;
}

bool ReadList(ExtensionReader& r, std::vector<std::string>* out) {
  uint64_t n;
  if (!r.Unsigned(&n)) return false;
  if (n > r.remaining()) return r.Fail("memory value: list beyond the data");
  out->resize(n);
  for (auto& s : *out) {
    if (!r.String(&s)) return false;
  }
  return true;
}

void WriteList(ExtensionWriter& w, const std::vector<std::string>& v) {
  w.Unsigned(v.size());
  for (const auto& s : v) w.String(s);
}

std::unique_ptr<ExtensionValue> LoadMemory(ExtensionReader& r, int /*encver*/) {
  AgentMemoryOptions o;
  uint64_t dim, metric, m, ef;
  if (!r.Unsigned(&dim) || !r.Unsigned(&metric) || !r.Double(&o.similarity_weight) ||
      !r.Double(&o.recency_weight) || !r.Double(&o.freshness_weight) ||
      !r.Double(&o.novelty_weight) || !r.Signed(&o.freshness_halflife_ms) ||
      !r.Signed(&o.novelty_halflife_ms) || !r.Signed(&o.touch_interval_ms) ||
      !r.Signed(&o.session_ttl_ms) || !r.Unsigned(&m) || !r.Unsigned(&ef)) {
    return nullptr;
  }
  if (metric > 2 || dim > 65536 || m < 2 || m > 255 || ef < 1 || ef > 1000000) {
    r.Fail("memory value: bad options");
    return nullptr;
  }
  o.dim = static_cast<uint32_t>(dim);
  o.metric = static_cast<vector::Metric>(metric);
  o.m = static_cast<uint32_t>(m);
  o.ef = static_cast<uint32_t>(ef);
  auto mem = AgentMemory::Create(o);
  if (!mem.ok()) {
    r.Fail("memory value: " + mem.status().message());
    return nullptr;
  }
  AgentMemory::Snapshot snap;
  uint64_t count;
  if (!r.Unsigned(&snap.next_id) || !r.Unsigned(&count)) return nullptr;
  if (count > r.remaining() / 8) {
    r.Fail("memory value: memory count beyond the data");
    return nullptr;
  }
  std::string vec;
  snap.memories.reserve(count);
  for (uint64_t i = 0; i < count; i++) {
    Memory mm;
    uint64_t accesses;
    if (!r.String(&mm.id) || !r.String(&mm.text) || !r.String(&mm.user) ||
        !r.String(&mm.session) || !r.String(&mm.type) || !ReadList(r, &mm.topics) ||
        !ReadList(r, &mm.entities) || !r.String(&mm.attrs) || !r.Signed(&mm.created_ms) ||
        !r.Signed(&mm.updated_ms) || !r.Signed(&mm.accessed_ms) || !r.Unsigned(&accesses) ||
        !r.String(&vec)) {
      return nullptr;
    }
    mm.accesses = accesses;
    if (vec.empty() || vec.size() % sizeof(float) != 0 ||
        (o.dim != 0 && vec.size() != o.dim * sizeof(float))) {
      r.Fail("memory value: vector of the wrong size");
      return nullptr;
    }
    std::vector<float> v(vec.size() / sizeof(float));
    std::memcpy(v.data(), vec.data(), vec.size());
    snap.memories.push_back({std::move(mm), std::move(v)});
  }
  uint64_t sessions;
  if (!r.Unsigned(&sessions)) return nullptr;
  if (sessions > r.remaining()) {
    r.Fail("memory value: session count beyond the data");
    return nullptr;
  }
  for (uint64_t i = 0; i < sessions; i++) {
    std::string name;
    AgentMemory::Session s;
    uint64_t n;
    if (!r.String(&name) || !r.Signed(&s.expire_ms) || !r.Signed(&s.ttl_ms) || !r.Unsigned(&n)) {
      return nullptr;
    }
    if (n > r.remaining()) {
      r.Fail("memory value: message count beyond the data");
      return nullptr;
    }
    for (uint64_t j = 0; j < n; j++) {
      SessionMessage msg;
      if (!r.String(&msg.role) || !r.String(&msg.content) || !r.Signed(&msg.at_ms)) return nullptr;
      s.messages.push_back(std::move(msg));
    }
    snap.sessions.push_back({std::move(name), std::move(s)});
  }
  if (Status st = (*mem)->Restore(std::move(snap)); !st.ok()) {
    r.Fail("memory value: " + st.message());
    return nullptr;
  }
  return std::make_unique<MemoryValue>(std::move(mem.value()));
}

}  // namespace

const ExtensionType& MemoryType() { return kMemoryType; }

std::string JoinList(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) {
    if (i > 0) s.push_back(',');
    s += v[i];
  }
  return s;
}

std::vector<std::string> MemoryAddArgs(std::string_view key, const Memory& m,
                                       std::span<const float> vec) {
  std::vector<std::string> a = {"MEM.ADD", std::string(key), "FP32", VectorBytes(vec), m.text};
  if (!m.user.empty()) a.insert(a.end(), {"USER", m.user});
  if (!m.session.empty()) a.insert(a.end(), {"SESSION", m.session});
  a.insert(a.end(), {"TYPE", m.type});
  if (!m.topics.empty()) a.insert(a.end(), {"TOPICS", JoinList(m.topics)});
  if (!m.entities.empty()) a.insert(a.end(), {"ENTITIES", JoinList(m.entities)});
  if (!m.attrs.empty()) a.insert(a.end(), {"ATTRS", m.attrs});
  a.insert(a.end(), {"ID", m.id, "CREATED", std::to_string(m.created_ms), "UPDATED",
                     std::to_string(m.updated_ms), "ACCESSED", std::to_string(m.accessed_ms),
                     "ACCESSES", std::to_string(m.accesses)});
  return a;
}

std::vector<std::string> MemoryCreateArgs(std::string_view key, const AgentMemoryOptions& o) {
  std::vector<std::string> a = {"MEM.CREATE", std::string(key)};
  if (o.dim != 0) a.insert(a.end(), {"DIM", std::to_string(o.dim)});
  a.insert(a.end(),
           {"METRIC", MetricOptionName(o.metric), "WEIGHTS", DoubleText(o.similarity_weight),
            DoubleText(o.recency_weight), "FRESHNESS", DoubleText(o.freshness_weight),
            std::to_string(o.freshness_halflife_ms / 1000), "NOVELTY", DoubleText(o.novelty_weight),
            std::to_string(o.novelty_halflife_ms / 1000), "TOUCH-INTERVAL",
            std::to_string(o.touch_interval_ms / 1000), "SESSION-TTL",
            std::to_string(o.session_ttl_ms / 1000), "M", std::to_string(o.m), "EF",
            std::to_string(o.ef)});
  return a;
}

void MemoryValue::Save(ExtensionWriter& w) const {
  AgentMemory::Snapshot snap = mem_->TakeSnapshot();
  const AgentMemoryOptions& o = snap.options;
  w.Unsigned(o.dim);
  w.Unsigned(static_cast<uint64_t>(o.metric));
  w.Double(o.similarity_weight);
  w.Double(o.recency_weight);
  w.Double(o.freshness_weight);
  w.Double(o.novelty_weight);
  w.Signed(o.freshness_halflife_ms);
  w.Signed(o.novelty_halflife_ms);
  w.Signed(o.touch_interval_ms);
  w.Signed(o.session_ttl_ms);
  w.Unsigned(o.m);
  w.Unsigned(o.ef);
  w.Unsigned(snap.next_id);
  w.Unsigned(snap.memories.size());
  for (const auto& [m, vec] : snap.memories) {
    w.String(m.id);
    w.String(m.text);
    w.String(m.user);
    w.String(m.session);
    w.String(m.type);
    WriteList(w, m.topics);
    WriteList(w, m.entities);
    w.String(m.attrs);
    w.Signed(m.created_ms);
    w.Signed(m.updated_ms);
    w.Signed(m.accessed_ms);
    w.Unsigned(m.accesses);
    w.String(VectorBytes(vec));
  }
  w.Unsigned(snap.sessions.size());
  for (const auto& [name, s] : snap.sessions) {
    w.String(name);
    w.Signed(s.expire_ms);
    w.Signed(s.ttl_ms);
    w.Unsigned(s.messages.size());
    for (const SessionMessage& msg : s.messages) {
      w.String(msg.role);
      w.String(msg.content);
      w.Signed(msg.at_ms);
    }
  }
}

void MemoryValue::Rewrite(std::string_view key, const EmitCommand& emit) const {
  AgentMemory::Snapshot snap = mem_->TakeSnapshot();
  emit(MemoryCreateArgs(key, snap.options));
  for (const auto& [m, vec] : snap.memories) emit(MemoryAddArgs(key, m, vec));
  for (const auto& [name, s] : snap.sessions) {
    for (const SessionMessage& msg : s.messages) {
      emit({"MEM.SESSION.APPEND", std::string(key), name, msg.role, msg.content, "TTL",
            std::to_string(s.ttl_ms / 1000), "AT", std::to_string(msg.at_ms), "PXAT",
            std::to_string(s.expire_ms)});
    }
  }
}

}  // namespace hotkv::ai

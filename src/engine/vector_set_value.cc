#include "engine/vector_set_value.h"

#include "engine/entry.h"
#include "engine/key_table.h"

#include <bit>
#include <cmath>
#include <functional>

namespace hotkv {

namespace {
std::atomic<uint64_t> g_next_vector_set_uid{0};
}  // namespace

VectorSet::VectorSet(std::unique_ptr<vector::HnswIndex> index, VectorSetFlags flags)
    : index_(std::move(index)),
      flags_(flags),
      uid_(g_next_vector_set_uid.fetch_add(1, std::memory_order_relaxed)) {}

std::vector<float> VectorSet::Project(std::span<const float> in) const {
  const uint32_t out_dim = dim();
  const size_t n = in.size();
  const double scale = 1.0 / std::sqrt(static_cast<double>(n));
  std::vector<float> out(out_dim);
  for (uint32_t i = 0; i < out_dim; i++) {
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) {
      const bool odd = (std::popcount(static_cast<uint64_t>(i) & static_cast<uint64_t>(j)) & 1) != 0;
      sum += odd ? -static_cast<double>(in[j]) : static_cast<double>(in[j]);
    }
    out[i] = static_cast<float>(sum * scale);
  }
  return out;
}

std::mutex& VectorSet::AttributeLock(std::string_view label) {
  return attribute_locks_[std::hash<std::string_view>{}(label) % kAttributeLocks];
}

void VectorSet::MarkDetached() {
  for (std::mutex& m : attribute_locks_) {
    m.lock();  // in index order; a writer holds at most one, and no shard lock wait inside
  }
  detached_.store(true, std::memory_order_release);
  for (std::mutex& m : attribute_locks_) {
    m.unlock();
  }
}

void VectorSet::Relocate(int db, std::string_view key) {
  for (std::mutex& m : attribute_locks_) {
    m.lock();
  }
  location_db_ = db;
  location_key_.assign(key.data(), key.size());
  for (std::mutex& m : attribute_locks_) {
    m.unlock();
  }
}

VectorSet* VectorSetWithWritesInFlight(const Entry* e) {
  if (e == nullptr || e->type() != ValueType::kVectorSet) {
    return nullptr;
  }
  VectorSet* set = e->As<VectorSetValue>()->set.get();
  return set != nullptr && set->writes_in_flight() > 0 ? set : nullptr;
}

void DetachVectorSetsInFlight(const KeyTable& t) {
  t.ForEach([](Entry* e) {
    if (VectorSet* set = VectorSetWithWritesInFlight(e)) {
      set->MarkDetached();
    }
  });
}

void RelocateVectorSetsInFlight(const KeyTable& t, int db) {
  t.ForEach([db](Entry* e) {
    if (VectorSet* set = VectorSetWithWritesInFlight(e)) {
      set->Relocate(db, e->key());
    }
  });
}

std::shared_ptr<VectorSet> VectorSet::Clone() const {
  auto copy = std::make_shared<VectorSet>(index_->Clone(), flags_);
  // Counted on the copy, which no one else can reach yet: exact even while writes run
  // on this set.
  int64_t with_attributes = 0;
  copy->index().ForEachElement([&](const vector::ElementView& e) {
    if (!e.attributes.empty()) {
      with_attributes++;
    }
  });
  copy->attributes_.store(with_attributes, std::memory_order_relaxed);
  return copy;
}

size_t VectorSet::MemoryUsage() const { return sizeof(*this) + index_->MemoryUsage(); }

}  // namespace hotkv

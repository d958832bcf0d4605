// StreamGroup: consumers and pending entries of a consumer group (see stream.h).
#include <memory>
#include <string>

#include "types/stream.h"

namespace hotkv::types {

// ---------------------------------------------------------------------------------------
// Group bookkeeping on the stream: lag, entries-read estimates, references

bool StreamValue::RangeHasTombstones(const StreamId& start, const StreamId& end) const {
  if (length_ == 0 || max_deleted_id_.IsZero()) {
    return false;
  }
  return start <= max_deleted_id_ && max_deleted_id_ <= end;
}

int64_t StreamValue::EstimateDistance(const StreamId& id) const {
  if (entries_added_ == 0) {
    return 0;
  }
  const int64_t added = static_cast<int64_t>(entries_added_);
  if (length_ == 0 && id <= last_id_) {
    return added;
  }
  if (!id.IsZero() && id < max_deleted_id_) {
    return kInvalidEntriesRead;
  }
  if (id == last_id_) {
    return added;
  }
  if (id > last_id_) {
    return kInvalidEntriesRead;
  }
  const StreamId first = FirstId();
  if (max_deleted_id_.IsZero() || max_deleted_id_ < first) {
    if (id < first) {
      return added - static_cast<int64_t>(length_);
    }
    if (id == first) {
      return added - static_cast<int64_t>(length_) + 1;
    }
  }
  return kInvalidEntriesRead;
}

std::optional<int64_t> StreamValue::Lag(const StreamGroup& g) const {
  if (entries_added_ == 0 || length_ == 0) {
    return 0;
  }
  const StreamId first = FirstId();
  if (g.last_id < first && max_deleted_id_ < first) {
    return static_cast<int64_t>(length_);
  }
  if (g.entries_read != kInvalidEntriesRead && !RangeHasTombstones(g.last_id, StreamId::Max())) {
    return static_cast<int64_t>(entries_added_) - g.entries_read;
  }
  int64_t read = EstimateDistance(g.last_id);
  if (read == kInvalidEntriesRead) {
    return std::nullopt;
  }
  return static_cast<int64_t>(entries_added_) - read;
}

StreamGroup* StreamValue::FindGroup(std::string_view name) {
  auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : it->second.get();
}

StreamGroup* StreamValue::CreateGroup(std::string_view name, const StreamId& last_id,
                                      int64_t entries_read) {
  if (groups_.find(name) != groups_.end()) {
    return nullptr;
  }
  auto g = std::make_unique<StreamGroup>();
  g->last_id = last_id;
  g->entries_read = entries_read;
  StreamGroup* raw = g.get();
  groups_.emplace(std::string(name), std::move(g));
  return raw;
}

bool StreamValue::DestroyGroup(std::string_view name) {
  auto it = groups_.find(name);
  if (it == groups_.end()) {
    return false;
  }
  groups_.erase(it);
  return true;
}

bool StreamValue::Referenced(const StreamId& id) const {
  for (const auto& [name, g] : groups_) {
    if (g->last_id < id || g->pel.count(id) != 0) {
      return true;
    }
  }
  return false;
}

void StreamValue::RemoveReferences(const StreamId& id) {
  for (auto& [name, g] : groups_) {
    g->Ack(id);
  }
}

// ---------------------------------------------------------------------------------------
// Groups

StreamConsumer* StreamGroup::FindConsumer(std::string_view name) {
  auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::CreateConsumer(std::string_view name, int64_t now_ms) {
  if (consumers.find(name) != consumers.end()) {
    return nullptr;
  }
  auto c = std::make_unique<StreamConsumer>();
  c->name = std::string(name);
  c->seen_time = now_ms;
  c->active_time = -1;
  StreamConsumer* raw = c.get();
  consumers.emplace(std::string(name), std::move(c));
  return raw;
}

size_t StreamGroup::DeleteConsumer(std::string_view name) {
  auto it = consumers.find(name);
  if (it == consumers.end()) {
    return 0;
  }
  StreamConsumer* c = it->second.get();
  size_t pending = c->pel.size();
  for (const auto& [id, pe] : c->pel) {
    pel.erase(id);
  }
  consumers.erase(it);
  return pending;
}

PendingEntry* StreamGroup::AddPending(const StreamId& id, StreamConsumer* c, int64_t now_ms) {
  auto it = pel.find(id);
  if (it == pel.end()) {
    auto pe = std::make_unique<PendingEntry>();
    pe->consumer = c;
    StampDelivery(*pe, now_ms);
    pe->delivery_count = 1;
    PendingEntry* raw = pe.get();
    pel.emplace(id, std::move(pe));
    c->pel.emplace(id, raw);
    return raw;
  }
  PendingEntry* pe = it->second.get();
  Reassign(pe, id, c);
  StampDelivery(*pe, now_ms);
  pe->delivery_count = 1;
  return pe;
}

void StreamGroup::Reassign(PendingEntry* pe, const StreamId& id, StreamConsumer* c) {
  if (pe->consumer == c) {
    return;
  }
  if (pe->consumer != nullptr) {
    pe->consumer->pel.erase(id);
  }
  pe->consumer = c;
  c->pel.emplace(id, pe);
}

PendingEntry* StreamGroup::Nack(PendingEntry* pe, const StreamId& id) {
  if (pe == nullptr) {
    auto fresh = std::make_unique<PendingEntry>();
    pe = fresh.get();
    pel.emplace(id, std::move(fresh));
  } else if (pe->consumer != nullptr) {
    pe->consumer->pel.erase(id);
    pe->consumer = nullptr;
  }
  pe->delivery_time = 0;
  pe->nack_seq = ++nack_counter;
  return pe;
}

size_t StreamGroup::NackedCount() const {
  size_t n = 0;
  for (const auto& [id, pe] : pel) {
    n += pe->consumer == nullptr ? 1 : 0;
  }
  return n;
}

bool StreamGroup::Ack(const StreamId& id) {
  auto it = pel.find(id);
  if (it == pel.end()) {
    return false;
  }
  if (it->second->consumer != nullptr) {
    it->second->consumer->pel.erase(id);
  }
  pel.erase(it);
  return true;
}

size_t StreamGroup::MemoryUsage() const {
  // std::map nodes: ~48 bytes of header plus the value.
  size_t n = pel.size() * (48 + sizeof(StreamId) + 8 + sizeof(PendingEntry));
  for (const auto& [name, c] : consumers) {
    n += 48 + 32 + sizeof(StreamConsumer) + name.size() * 2;
    n += c->pel.size() * (48 + sizeof(StreamId) + 8);
  }
  return n;
}

}  // namespace hotkv::types

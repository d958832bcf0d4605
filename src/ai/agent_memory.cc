// AgentMemory (see agent_memory.h).
#include "ai/agent_memory.h"

#include <algorithm>
#include <cmath>

#include "json/json_node.h"

namespace hotkv::ai {
namespace {

constexpr double kScoreSlack = 1e-6;
constexpr size_t kItemOverhead = 200;  // map, sequence and exact-key nodes (estimate)
constexpr uint32_t kMinCandidates = 32;
constexpr uint32_t kMaxCandidates = 4096;
// A USER with at most this many memories is searched exactly among them.
constexpr size_t kExactAmong = 4096;

size_t TextBytes(const Memory& m) {
  size_t n = m.id.size() + m.text.size() + m.user.size() + m.session.size() + m.type.size() +
             m.attrs.size() + m.doc.size();
  for (const auto& t : m.topics) n += t.size() + 32;
  for (const auto& e : m.entities) n += e.size() + 32;
  return n;
}

void AppendList(std::string* out, const std::vector<std::string>& v) {
  out->push_back('[');
  for (size_t i = 0; i < v.size(); i++) {
    if (i > 0) out->push_back(',');
    json::AppendQuoted(v[i], out);
  }
  out->push_back(']');
}

double Decay(int64_t age_ms, int64_t halflife_ms) {
  if (halflife_ms <= 0) return 0.0;
  return std::exp2(-static_cast<double>(std::max<int64_t>(age_ms, 0)) /
                   static_cast<double>(halflife_ms));
}

}  // namespace

bool ValidMemoryType(std::string_view t) {
  return t == "episodic" || t == "semantic" || t == "message";
}

std::string MemoryDocument(const Memory& m) {
  // "type" first, then "user": the dedup scope test below compares this prefix.
  std::string d = "{\"type\":";
  json::AppendQuoted(m.type, &d);
  if (!m.user.empty()) {
    d += ",\"user\":";
    json::AppendQuoted(m.user, &d);
  }
  if (!m.session.empty()) {
    d += ",\"session\":";
    json::AppendQuoted(m.session, &d);
  }
  d += ",\"topics\":";
  AppendList(&d, m.topics);
  d += ",\"entities\":";
  AppendList(&d, m.entities);
  if (!m.attrs.empty()) {
    // The members of the ATTRS object, as written.
    const size_t open = m.attrs.find('{');
    const size_t close = m.attrs.rfind('}');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      std::string_view inner = std::string_view(m.attrs).substr(open + 1, close - open - 1);
      if (inner.find_first_not_of(" \t\r\n") != std::string_view::npos) {
        d += ",";
        d += inner;
      }
    }
  }
  d += "}";
  return d;
}

namespace {

Status ValidateOptions(const AgentMemoryOptions& o) {
  if (o.dim > 65536) {
    return Status::InvalidArgument("DIM must be between 1 and 65536");
  }
  if (!(o.similarity_weight >= 0 && o.recency_weight >= 0 && o.freshness_weight >= 0 &&
        o.novelty_weight >= 0) ||
      !std::isfinite(o.similarity_weight + o.recency_weight + o.freshness_weight + o.novelty_weight)) {
    return Status::InvalidArgument("weights must be finite non-negative numbers");
  }
  if (o.freshness_halflife_ms <= 0 || o.novelty_halflife_ms <= 0) {
    return Status::InvalidArgument("half-lives must be positive");
  }
  if (o.touch_interval_ms < 0 || o.session_ttl_ms < 0) {
    return Status::InvalidArgument("intervals must not be negative");
  }
  if (o.m < 2 || o.m > 255 || o.ef < 1) {
    return Status::InvalidArgument("bad M or EF");
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<AgentMemory>> AgentMemory::Create(const AgentMemoryOptions& o) {
  if (Status st = ValidateOptions(o); !st.ok()) return st;
  auto mem = std::shared_ptr<AgentMemory>(new AgentMemory(o));
  if (o.dim != 0) {
    std::lock_guard w(mem->write_mu_);
    auto index = mem->IndexFor(o.dim);
    if (!index.ok()) return index.status();
  }
  return mem;
}

Status AgentMemory::Reconfigure(const AgentMemoryOptions& o) {
  if (Status st = ValidateOptions(o); !st.ok()) return st;
  std::lock_guard w(write_mu_);
  std::lock_guard lock(mu_);
  const AgentMemoryOptions fixed = options_;
  options_ = o;
  options_.dim = fixed.dim;
  options_.metric = fixed.metric;
  options_.m = fixed.m;
  return Status::Ok();
}

AgentMemoryOptions AgentMemory::options() const {
  std::lock_guard lock(mu_);
  return options_;
}

uint32_t AgentMemory::dim() const {
  std::lock_guard lock(mu_);
  return options_.dim;
}

std::string AgentMemory::ExactKey(const Memory& m) {
  std::string k;
  k.reserve(m.type.size() + m.user.size() + m.session.size() + m.text.size() + 3);
  k += m.type;
  k.push_back('\0');
  k += m.user;
  k.push_back('\0');
  k += m.session;
  k.push_back('\0');
  k += m.text;
  return k;
}

Status AgentMemory::CheckVectorLocked(std::span<const float> v) const {
  if (options_.dim != 0 && v.size() != options_.dim) {
    return Status::InvalidArgument("vector dimension mismatch - got " + std::to_string(v.size()) +
                                   " but namespace has " + std::to_string(options_.dim));
  }
  if (v.empty() || v.size() > 65536) {
    return Status::InvalidArgument("vector dimension must be between 1 and 65536");
  }
  for (float f : v) {
    if (!std::isfinite(f)) {
      return Status::InvalidArgument("vector components must be finite numbers");
    }
  }
  return Status::Ok();
}

Result<std::shared_ptr<vector::HnswIndex>> AgentMemory::IndexFor(uint32_t dim) {
  {
    std::lock_guard lock(mu_);
    if (index_ != nullptr) return index_;
  }
  vector::IndexOptions io;
  io.dim = dim;
  io.metric = options_.metric;
  io.m = options_.m;
  io.ef_construction = options_.ef;
  auto index = vector::HnswIndex::Create(io);
  if (!index.ok()) return index.status();
  std::shared_ptr<vector::HnswIndex> shared(std::move(index.value()));
  std::lock_guard lock(mu_);
  index_ = shared;
  options_.dim = dim;
  return shared;
}

void AgentMemory::UnlinkLocked(const std::string& id) {
  auto it = items_.find(id);
  if (it == items_.end()) return;
  auto ex = exact_.find(ExactKey(it->second));
  if (ex != exact_.end() && ex->second == id) exact_.erase(ex);
  by_seq_.erase(it->second.seq);
  if (!it->second.user.empty()) {
    auto u = by_user_.find(it->second.user);
    if (u != by_user_.end()) {
      if (u->second.use_count() > 1) u->second = std::make_shared<IdList>(*u->second);
      IdList& ids = *u->second;
      auto pos = std::find(ids.begin(), ids.end(), id);
      if (pos != ids.end()) {
        *pos = std::move(ids.back());
        ids.pop_back();
      }
      if (ids.empty()) by_user_.erase(u);
    }
  }
  text_bytes_ -= TextBytes(it->second);
  items_.erase(it);
}

void AgentMemory::PutLocked(Memory m, std::span<const float> vec, const ChangeFn& changes) {
  auto old = items_.find(m.id);
  if (old != items_.end()) {
    m.seq = old->second.seq;
    UnlinkLocked(m.id);
  } else {
    m.seq = next_seq_++;
  }
  by_seq_.emplace(m.seq, m.id);
  if (!m.user.empty()) {
    std::shared_ptr<IdList>& ids = by_user_[m.user];
    if (ids == nullptr) {
      ids = std::make_shared<IdList>();
    } else if (ids.use_count() > 1) {
      ids = std::make_shared<IdList>(*ids);
    }
    ids->push_back(m.id);
  }
  exact_[ExactKey(m)] = m.id;
  text_bytes_ += TextBytes(m);
  auto [pos, inserted] = items_.emplace(m.id, std::move(m));
  if (changes) {
    Change c{Change::Kind::kPut};
    c.memory = &pos->second;
    c.vec = vec;
    changes(c);
  }
}

Result<AgentMemory::AddResult> AgentMemory::Add(const AddRequest& req, int64_t now_ms,
                                                const ChangeFn& changes) {
  std::lock_guard w(write_mu_);
  {
    std::lock_guard lock(mu_);
    if (Status st = CheckVectorLocked(req.vec); !st.ok()) return st;
  }
  auto index = IndexFor(static_cast<uint32_t>(req.vec.size()));
  if (!index.ok()) return index.status();

  Memory m = req.fields;
  m.created_ms = req.created_ms.value_or(now_ms);
  m.updated_ms = req.updated_ms.value_or(now_ms);
  m.accessed_ms = req.accessed_ms.value_or(now_ms);
  m.accesses = req.accesses.value_or(0);
  std::optional<std::string> existing;
  {
    std::lock_guard lock(mu_);
    if (req.explicit_id) {
      if (items_.count(m.id) != 0) existing = m.id;
    } else {
      auto ex = exact_.find(ExactKey(m));
      if (ex != exact_.end()) existing = ex->second;
    }
  }
  if (!existing && !req.explicit_id && req.dedup.has_value() && (*index)->size() > 0) {
    // The nearest memory of the same user and type at or above the DEDUP similarity.
    struct SameScope : vector::AttributePredicate {
      std::string user, type;
      bool Matches(std::string_view doc) const override {
        std::string want = "{\"type\":";
        json::AppendQuoted(type, &want);
        if (!user.empty()) {
          want += ",\"user\":";
          json::AppendQuoted(user, &want);
        }
        want += ",";
        if (doc.substr(0, want.size()) != want) return false;
        return !user.empty() || doc.substr(want.size(), 7) != "\"user\":";
      }
    } same;
    same.user = m.user;
    same.type = m.type;
    vector::SearchParams p;
    p.k = 1;
    p.ef = options_.ef;
    p.filter = &same;
    p.max_distance = static_cast<float>(
        vector::DistanceFromSimilarity(options_.metric, *req.dedup - kScoreSlack));
    auto hits = (*index)->Search(req.vec, p);
    if (!hits.ok()) return hits.status();
    if (!hits->empty()) {
      const double sim = vector::SimilarityFromDistance(options_.metric, (*hits)[0].distance);
      if (sim + kScoreSlack >= *req.dedup) existing = (*hits)[0].label;
    }
  }
  if (existing) {
    std::lock_guard lock(mu_);
    auto it = items_.find(*existing);
    if (it != items_.end()) {
      m.id = *existing;
      if (!req.created_ms) m.created_ms = it->second.created_ms;
      if (!req.accessed_ms) m.accessed_ms = it->second.accessed_ms;
      if (!req.accesses) m.accesses = it->second.accesses;
      if (!req.explicit_id) {
        // A duplicate: topics and entities are merged, attributes kept unless given.
        const Memory& old = it->second;
        for (const auto* pair : {&old.topics, &old.entities}) {
          auto& dst = pair == &old.topics ? m.topics : m.entities;
          std::vector<std::string> merged = *pair;
          for (const auto& s : dst) {
            if (std::find(merged.begin(), merged.end(), s) == merged.end()) merged.push_back(s);
          }
          dst = std::move(merged);
        }
        if (m.attrs.empty()) m.attrs = old.attrs;
      }
    }
  } else if (!req.explicit_id) {
    std::lock_guard lock(mu_);
    do {
      m.id = std::to_string(next_id_++);
    } while (items_.count(m.id) != 0);
  }
  m.doc = MemoryDocument(m);
  Result<bool> added = (*index)->Add(m.id, req.vec, std::string_view(m.doc), options_.ef);
  if (!added.ok()) return added.status();
  AddResult r{m.id, !existing.has_value()};
  std::lock_guard lock(mu_);
  PutLocked(std::move(m), req.vec, changes);
  return r;
}

Result<bool> AgentMemory::Update(std::string_view id, const UpdateRequest& req, int64_t now_ms,
                                 const ChangeFn& changes) {
  std::lock_guard w(write_mu_);
  Memory m;
  std::shared_ptr<vector::HnswIndex> index;
  {
    std::lock_guard lock(mu_);
    auto it = items_.find(std::string(id));
    if (it == items_.end()) return false;
    if (req.vec) {
      if (Status st = CheckVectorLocked(*req.vec); !st.ok()) return st;
    }
    m = it->second;
    index = index_;
  }
  if (req.text) m.text = *req.text;
  if (req.user) m.user = *req.user;
  if (req.session) m.session = *req.session;
  if (req.type) m.type = *req.type;
  if (req.attrs) m.attrs = *req.attrs;
  if (req.topics) m.topics = *req.topics;
  if (req.entities) m.entities = *req.entities;
  m.updated_ms = now_ms;
  m.doc = MemoryDocument(m);
  std::vector<float> vec;
  if (req.vec) {
    vec.assign(req.vec->begin(), req.vec->end());
    Result<bool> added = index->Add(m.id, vec, std::string_view(m.doc), options_.ef);
    if (!added.ok()) return added.status();
  } else {
    std::optional<std::vector<float>> v = index->GetVector(m.id);
    if (!v) return false;
    vec = std::move(*v);
    index->SetAttributes(m.id, m.doc);
  }
  std::lock_guard lock(mu_);
  PutLocked(std::move(m), vec, changes);
  return true;
}

bool AgentMemory::Delete(std::string_view id, const ChangeFn& changes) {
  std::lock_guard w(write_mu_);
  std::shared_ptr<vector::HnswIndex> index;
  {
    std::lock_guard lock(mu_);
    auto it = items_.find(std::string(id));
    if (it == items_.end()) return false;
    if (changes) {
      Change c{Change::Kind::kDel};
      c.memory = &it->second;
      changes(c);
    }
    UnlinkLocked(std::string(id));
    index = index_;
  }
  index->Remove(id);
  return true;
}

std::optional<Memory> AgentMemory::Get(std::string_view id) const {
  std::lock_guard lock(mu_);
  auto it = items_.find(std::string(id));
  if (it == items_.end()) return std::nullopt;
  return it->second;
}

Result<std::vector<AgentMemory::Found>> AgentMemory::Search(const SearchRequest& req, int64_t now_ms,
                                                            const ChangeFn& changes) {
  std::shared_ptr<vector::HnswIndex> index;
  AgentMemoryOptions o;
  std::shared_ptr<const IdList> among;  // the user's memories, when few
  {
    std::lock_guard lock(mu_);
    if (Status st = CheckVectorLocked(req.vec); !st.ok()) return st;
    index = index_;
    o = options_;
    if (req.user.has_value()) {
      auto u = by_user_.find(*req.user);
      if (u == by_user_.end()) return std::vector<Found>();
      if (u->second->size() <= kExactAmong) among = u->second;
    }
  }
  std::vector<Found> out;
  if (index == nullptr || req.k == 0) return out;
  double rw = req.recency_weight.value_or(o.recency_weight);
  double sw = req.recency_weight.has_value() ? 1.0 - rw : o.similarity_weight;
  const int64_t fresh_hl = req.freshness_halflife_ms.value_or(o.freshness_halflife_ms);
  const int64_t novelty_hl = req.novelty_halflife_ms.value_or(o.novelty_halflife_ms);
  // The nearest candidates, re-ranked by score: recency can lift a slightly less similar
  // memory into the top k, but only from among these.
  vector::SearchParams p;
  p.k = rw > 0 ? std::min(std::max(req.k * 4, kMinCandidates), kMaxCandidates) : req.k;
  p.k = std::max(p.k, req.k);
  p.ef = std::max(req.ef.value_or(o.ef), p.k);
  p.filter = req.filter;
  if (req.threshold.has_value() && *req.threshold > 0.0) {
    p.max_distance =
        static_cast<float>(vector::DistanceFromSimilarity(o.metric, *req.threshold - kScoreSlack));
  }
  Result<std::vector<vector::SearchHit>> hits = std::vector<vector::SearchHit>();
  if (among != nullptr) {
    if (req.filter_is_user_only) p.filter = nullptr;  // every one of them passes it
    std::vector<std::string_view> views(among->begin(), among->end());
    hits = index->SearchAmong(req.vec, views, p);
  } else {
    hits = index->Search(req.vec, p);
  }
  if (!hits.ok()) return hits.status();
  std::lock_guard lock(mu_);
  std::vector<std::pair<Memory*, std::pair<double, double>>> ranked;
  ranked.reserve(hits->size());
  for (const vector::SearchHit& h : *hits) {
    auto it = items_.find(h.label);
    if (it == items_.end()) continue;  // being inserted or removed
    const double sim = std::min(vector::SimilarityFromDistance(o.metric, h.distance), 1.0);
    if (req.threshold.has_value() && sim + kScoreSlack < *req.threshold) continue;
    const Memory& m = it->second;
    const double recency = o.freshness_weight * Decay(now_ms - m.accessed_ms, fresh_hl) +
                           o.novelty_weight * Decay(now_ms - m.created_ms, novelty_hl);
    ranked.push_back({&it->second, {sim, sw * sim + rw * recency}});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  if (ranked.size() > req.k) ranked.resize(req.k);
  out.reserve(ranked.size());
  for (auto& [m, s] : ranked) {
    if (now_ms - m->accessed_ms >= o.touch_interval_ms) {
      m->accessed_ms = now_ms;
      m->accesses++;
      if (changes) {
        Change c{Change::Kind::kTouch};
        c.memory = m;
        changes(c);
      }
    }
    out.push_back({*m, s.first, s.second});
  }
  return out;
}

bool AgentMemory::Touch(std::string_view id, int64_t accessed_ms, uint64_t accesses,
                        const ChangeFn& changes) {
  std::lock_guard lock(mu_);
  auto it = items_.find(std::string(id));
  if (it == items_.end()) return false;
  it->second.accessed_ms = accessed_ms;
  it->second.accesses = accesses;
  if (changes) {
    Change c{Change::Kind::kTouch};
    c.memory = &it->second;
    changes(c);
  }
  return true;
}

std::vector<Memory> AgentMemory::List(uint64_t cursor, size_t count,
                                      const vector::AttributePredicate* filter,
                                      uint64_t* next_cursor) const {
  std::vector<Memory> out;
  std::lock_guard lock(mu_);
  size_t looked = 0;
  const size_t budget = std::max<size_t>(count * 10, 100);
  auto it = by_seq_.lower_bound(cursor);
  for (; it != by_seq_.end() && out.size() < count && looked < budget; ++it, ++looked) {
    const Memory& m = items_.at(it->second);
    if (filter == nullptr || filter->Matches(m.doc)) out.push_back(m);
  }
  *next_cursor = it == by_seq_.end() ? 0 : it->first;
  return out;
}

size_t AgentMemory::Count(const vector::AttributePredicate* filter) const {
  std::lock_guard lock(mu_);
  if (filter == nullptr) return items_.size();
  size_t n = 0;
  for (const auto& [id, m] : items_) {
    if (filter->Matches(m.doc)) n++;
  }
  return n;
}

size_t AgentMemory::Forget(std::optional<int64_t> created_before_ms,
                           std::optional<int64_t> accessed_before_ms,
                           const vector::AttributePredicate* filter, const ChangeFn& changes) {
  std::lock_guard w(write_mu_);
  std::vector<std::string> victims;
  std::shared_ptr<vector::HnswIndex> index;
  {
    std::lock_guard lock(mu_);
    index = index_;
    for (const auto& [seq, id] : by_seq_) {
      const Memory& m = items_.at(id);
      if (created_before_ms && m.created_ms >= *created_before_ms) continue;
      if (accessed_before_ms && m.accessed_ms >= *accessed_before_ms) continue;
      if (filter != nullptr && !filter->Matches(m.doc)) continue;
      victims.push_back(id);
    }
    for (const std::string& id : victims) {
      if (changes) {
        Change c{Change::Kind::kDel};
        c.memory = &items_.at(id);
        changes(c);
      }
      UnlinkLocked(id);
    }
  }
  for (const std::string& id : victims) index->Remove(id);
  return victims.size();
}

size_t AgentMemory::Append(std::string_view session, std::string_view role, std::string_view content,
                           std::optional<int64_t> ttl_ms, int64_t now_ms,
                           std::optional<int64_t> at_ms, std::optional<int64_t> expire_ms,
                           const ChangeFn& changes) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = sessions_.try_emplace(std::string(session));
  Session& s = it->second;
  if (!fresh && SessionExpired(s, now_ms)) {
    for (const auto& msg : s.messages) text_bytes_ -= msg.role.size() + msg.content.size() + 48;
    s = Session{};
    fresh = true;
  }
  if (fresh) s.ttl_ms = options_.session_ttl_ms;
  if (ttl_ms.has_value()) s.ttl_ms = *ttl_ms;
  s.expire_ms = expire_ms.has_value() ? *expire_ms : s.ttl_ms > 0 ? now_ms + s.ttl_ms : 0;
  s.messages.push_back({std::string(role), std::string(content), at_ms.value_or(now_ms)});
  text_bytes_ += role.size() + content.size() + 48;
  if (changes) {
    Change c{Change::Kind::kAppend};
    c.session = it->first;
    c.message = &s.messages.back();
    c.session_expire_ms = s.expire_ms;
    c.session_ttl_ms = s.ttl_ms;
    changes(c);
  }
  const size_t n = s.messages.size();
  if (SessionExpired(s, now_ms)) {  // replayed after its expiry
    for (const auto& msg : s.messages) text_bytes_ -= msg.role.size() + msg.content.size() + 48;
    sessions_.erase(it);
  }
  return n;
}

std::vector<SessionMessage> AgentMemory::SessionMessages(std::string_view session, size_t last,
                                                         int64_t now_ms, int64_t* ttl_ms) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(session));
  if (it == sessions_.end() || SessionExpired(it->second, now_ms)) {
    *ttl_ms = -2;
    return {};
  }
  const Session& s = it->second;
  *ttl_ms = s.expire_ms == 0 ? -1 : s.expire_ms - now_ms;
  const size_t n = s.messages.size();
  const size_t from = last == 0 || last >= n ? 0 : n - last;
  return std::vector<SessionMessage>(s.messages.begin() + static_cast<ptrdiff_t>(from),
                                     s.messages.end());
}

bool AgentMemory::ClearSession(std::string_view session, int64_t now_ms, const ChangeFn& changes) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(session));
  if (it == sessions_.end()) return false;
  const bool live = !SessionExpired(it->second, now_ms);
  for (const auto& msg : it->second.messages) text_bytes_ -= msg.role.size() + msg.content.size() + 48;
  if (live && changes) {
    Change c{Change::Kind::kClear};
    c.session = it->first;
    changes(c);
  }
  sessions_.erase(it);
  return live;
}

size_t AgentMemory::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

size_t AgentMemory::session_count(int64_t now_ms) const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [name, s] : sessions_) {
    if (!SessionExpired(s, now_ms)) n++;
  }
  return n;
}

size_t AgentMemory::MemoryUsage() const {
  std::lock_guard lock(mu_);
  return sizeof(*this) + (index_ ? index_->MemoryUsage() : 0) + text_bytes_ +
         items_.size() * (sizeof(Memory) + kItemOverhead) + sessions_.size() * 128;
}

std::shared_ptr<AgentMemory> AgentMemory::Clone() const {
  std::lock_guard w(write_mu_);
  std::lock_guard lock(mu_);
  auto c = std::shared_ptr<AgentMemory>(new AgentMemory(options_));
  if (index_) c->index_ = std::shared_ptr<vector::HnswIndex>(index_->Clone());
  c->next_id_ = next_id_;
  c->next_seq_ = next_seq_;
  c->items_ = items_;
  c->by_seq_ = by_seq_;
  c->exact_ = exact_;
  for (const auto& [user, ids] : by_user_) c->by_user_[user] = std::make_shared<IdList>(*ids);
  c->sessions_ = sessions_;
  c->text_bytes_ = text_bytes_;
  return c;
}

AgentMemory::Snapshot AgentMemory::TakeSnapshot() const {
  std::lock_guard w(write_mu_);
  std::lock_guard lock(mu_);
  Snapshot s;
  s.options = options_;
  s.next_id = next_id_;
  s.memories.reserve(items_.size());
  for (const auto& [seq, id] : by_seq_) {
    std::optional<std::vector<float>> v = index_ ? index_->GetVector(id) : std::nullopt;
    if (!v) continue;
    s.memories.push_back({items_.at(id), std::move(*v)});
  }
  for (const auto& [name, sess] : sessions_) s.sessions.push_back({name, sess});
  std::sort(s.sessions.begin(), s.sessions.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  return s;
}

Status AgentMemory::Restore(Snapshot snap) {
  std::lock_guard w(write_mu_);
  for (auto& [m, vec] : snap.memories) {
    {
      std::lock_guard lock(mu_);
      if (Status st = CheckVectorLocked(vec); !st.ok()) return st;
      if (m.id.empty() || items_.count(m.id) != 0) {
        return Status::InvalidArgument("duplicate memory id");
      }
    }
    auto index = IndexFor(static_cast<uint32_t>(vec.size()));
    if (!index.ok()) return index.status();
    m.doc = MemoryDocument(m);
    Result<bool> added = (*index)->Add(m.id, vec, std::string_view(m.doc), options_.ef);
    if (!added.ok()) return added.status();
    std::lock_guard lock(mu_);
    PutLocked(std::move(m), vec, nullptr);
  }
  std::lock_guard lock(mu_);
  next_id_ = std::max(next_id_, snap.next_id);
  for (auto& [name, sess] : snap.sessions) {
    for (const auto& msg : sess.messages) text_bytes_ += msg.role.size() + msg.content.size() + 48;
    sessions_[name] = std::move(sess);
  }
  return Status::Ok();
}

}  // namespace hotkv::ai

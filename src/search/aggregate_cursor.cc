// The cursor store of FT.AGGREGATE ... WITHCURSOR / FT.CURSOR.
#include "search/aggregate_cursor.h"

#include "common/random.h"

namespace hotkv::search {

uint64_t CursorStore::Add(std::unique_ptr<Cursor> cursor, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id;
  do {
    id = ThreadRng().Below(0x7fffffffULL) + 1;
  } while (idle_.count(id) != 0 || taken_.count(id) != 0);
  cursor->last_used_ms = now_ms;
  idle_.emplace(id, std::move(cursor));
  return id;
}

std::unique_ptr<Cursor> CursorStore::Take(uint64_t id, std::string_view index, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = idle_.find(id);
  (void)index;  // RediSearch (standalone) finds a cursor by its id alone
  if (it == idle_.end()) {
    return nullptr;
  }
  std::unique_ptr<Cursor> c = std::move(it->second);
  idle_.erase(it);
  if (now_ms - c->last_used_ms > static_cast<int64_t>(c->max_idle_ms)) {
    return nullptr;  // expired
  }
  taken_.emplace(id, c->index);
  return c;
}

void CursorStore::Put(uint64_t id, std::unique_ptr<Cursor> cursor, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto t = taken_.find(id);
  if (t == taken_.end()) {
    return;  // deleted while read (index dropped)
  }
  taken_.erase(t);
  cursor->last_used_ms = now_ms;
  idle_.emplace(id, std::move(cursor));
}

bool CursorStore::Delete(uint64_t id, std::string_view index) {
  std::lock_guard<std::mutex> lock(mu_);
  (void)index;
  auto it = idle_.find(id);
  if (it != idle_.end()) {
    idle_.erase(it);
    return true;
  }
  auto t = taken_.find(id);
  if (t != taken_.end()) {
    taken_.erase(t);  // the reader's Put then drops it
    return true;
  }
  return false;
}

size_t CursorStore::Expire(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (auto it = idle_.begin(); it != idle_.end();) {
    if (now_ms - it->second->last_used_ms > static_cast<int64_t>(it->second->max_idle_ms)) {
      it = idle_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

void CursorStore::DropIndex(std::string_view index) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = idle_.begin(); it != idle_.end();) {
    it = it->second->index == index ? idle_.erase(it) : std::next(it);
  }
  for (auto it = taken_.begin(); it != taken_.end();) {
    it = it->second == index ? taken_.erase(it) : std::next(it);
  }
}

CursorStats CursorStore::Stats(std::string_view index) const {
  std::lock_guard<std::mutex> lock(mu_);
  CursorStats s;
  s.global_idle = idle_.size();
  s.global_total = idle_.size() + taken_.size();
  for (const auto& [id, c] : idle_) {
    s.index_total += c->index == index ? 1 : 0;
  }
  for (const auto& [id, name] : taken_) {
    s.index_total += name == index ? 1 : 0;
  }
  return s;
}

CursorStore& Cursors() {
  static CursorStore* store = new CursorStore();
  return *store;
}

}  // namespace hotkv::search

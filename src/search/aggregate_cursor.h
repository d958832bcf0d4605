// FT.AGGREGATE ... WITHCURSOR's cursors: a per-process store of paused pipelines by id,
// each bound to its index, dropped after MAXIDLE milliseconds unread (default 300000).
//
//   uint64_t id = Cursors().Add("idx", std::move(pipeline), count, max_idle, now);
//   std::unique_ptr<Cursor> c = Cursors().Take(id, "idx", now);  // null: "Cursor not found"
//   ... c->pipeline->Read(c->count) ...; Cursors().Put(id, std::move(c), now);  // or drop
//
// Thread safety: every method locks the store; a taken cursor belongs to its reader.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "search/aggregate_plan.h"

namespace hotkv::search {

struct Cursor {
  std::string index;
  std::unique_ptr<AggregatePipeline> pipeline;
  uint64_t count = 1000;         // rows per read (COUNT)
  uint64_t max_idle_ms = 300000;
  int64_t last_used_ms = 0;
};

struct CursorStats {
  uint64_t global_idle = 0;
  uint64_t global_total = 0;
  uint64_t index_total = 0;
};

class CursorStore {
 public:
  static constexpr uint64_t kDefaultCount = 1000;
  static constexpr uint64_t kDefaultMaxIdleMs = 300000;
  static constexpr uint64_t kIndexCapacity = 128;

  // A new cursor's id (never 0).
  uint64_t Add(std::unique_ptr<Cursor> cursor, int64_t now_ms);
  // Takes the cursor out for a read; null when there is none (or it expired). Like
  // RediSearch standalone, the id alone finds it (`index` is not checked).
  std::unique_ptr<Cursor> Take(uint64_t id, std::string_view index, int64_t now_ms);
  // Returns a taken cursor (its idle time starts again).
  void Put(uint64_t id, std::unique_ptr<Cursor> cursor, int64_t now_ms);
  // False when there is no such cursor.
  bool Delete(uint64_t id, std::string_view index);
  // Drops idle cursors past their MAXIDLE; returns how many.
  size_t Expire(int64_t now_ms);
  void DropIndex(std::string_view index);
  CursorStats Stats(std::string_view index) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::unique_ptr<Cursor>> idle_;
  std::unordered_map<uint64_t, std::string> taken_;  // being read: id -> index
};

// The process's cursors.
CursorStore& Cursors();

}  // namespace hotkv::search

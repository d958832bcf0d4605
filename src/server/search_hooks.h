// SearchHooks: what the persistence layer asks of the query engine (src/search/): the
// index definitions to keep in a snapshot (an RDB aux field, "hotkv-ft-indexes", which
// other readers skip), and the indexes to rebuild once a dataset has loaded (as Redis
// re-indexes at start-up). server/ declares it and never includes search/; main.cc
// installs the implementation with SetSearchHooks().
//
// Thread safety: SavedDefinitions may be called from any thread and from a forked
// snapshot child: it takes no lock. RestoreDefinitions runs on the loading thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

class SearchHooks {
 public:
  virtual ~SearchHooks() = default;
  // The serialized definitions of every index (empty: none).
  virtual std::string SavedDefinitions() = 0;
  // The same definitions as the FT.CREATE commands that re-create them (an AOF base
  // written as commands).
  virtual std::vector<std::vector<std::string>> DefinitionCommands() = 0;
  // After a load: creates the indexes `blob` defines (an index of the same name is
  // emptied) and indexes the loaded keys. `shards_locked`: the loader holds every shard
  // lock (DEBUG RELOAD).
  virtual void RestoreDefinitions(std::string_view blob, bool shards_locked) = 0;
  // Worker 0's cron (no lock held): TEMPORARY indexes that expired are dropped with
  // their documents (expired at once, so deleted and propagated as expiry does).
  virtual void Cron(int64_t /*now_ms*/) {}
};

inline constexpr const char* kSearchAuxField = "hotkv-ft-indexes";

namespace search_hooks_internal {
inline std::atomic<SearchHooks*> g_hooks{nullptr};
}  // namespace search_hooks_internal

inline void SetSearchHooks(SearchHooks* hooks) {
  search_hooks_internal::g_hooks.store(hooks, std::memory_order_release);
}
inline SearchHooks* GetSearchHooks() {
  return search_hooks_internal::g_hooks.load(std::memory_order_acquire);
}

}  // namespace hotkv

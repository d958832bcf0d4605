// The process's search indexes by name, their aliases, and the runtime that feeds them:
// the keyspace observer that re-indexes a key when a command changes it (or it expires,
// is evicted, flushed, swapped away), the scan of existing keys at FT.CREATE, and the
// loading of result documents' fields for replies.
//
//   std::shared_ptr<SearchIndex> idx = Indexes().Find("idx");   // name or alias
//
// Thread safety: the registry locks itself (a shared_mutex; readers share it). Lock
// order: shard lock -> registry lock -> index lock; FT.SEARCH holds none of the shard
// locks while it runs and locks each result document's shard only to read it. The
// keyspace observer (every write to database 0 while an index exists) takes no registry
// lock: it reads an immutable list of the indexes (WriterView) under an epoch guard.
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <atomic>
#include <mutex>

#include "common/status.h"
#include "search/search_index.h"
#include "vector/epoch.h"

namespace hotkv {
class Keyspace;
class Server;
}  // namespace hotkv

namespace hotkv::search {

class IndexRegistry {
 public:
  using IndexList = std::vector<std::shared_ptr<SearchIndex>>;

  // The indexes as the keyspace observer sees them, with no lock and no copy: the list
  // republished (sorted by name) on every change of the registry, read under an epoch
  // guard. A replaced list is freed once no view can still hold it (Reclaim, called on
  // every change and by the cron). Hold a view briefly; copy an index's shared_ptr to
  // keep using the index after it ends (a long HNSW insert should not hold the guard).
  class WriterView {
   public:
    explicit WriterView(const IndexRegistry& r)
        : list_(r.writer_list_.load(std::memory_order_acquire)) {}
    WriterView(const WriterView&) = delete;
    WriterView& operator=(const WriterView&) = delete;
    IndexList::const_iterator begin() const { return list_ ? list_->begin() : Empty().begin(); }
    IndexList::const_iterator end() const { return list_ ? list_->end() : Empty().end(); }

   private:
    static const IndexList& Empty() {
      static const IndexList empty;
      return empty;
    }
    vector::EpochGuard guard_;  // entered before list_ is read (declaration order)
    const IndexList* list_;
  };
  // Frees the replaced lists no view can hold any more.
  void Reclaim();

  IndexRegistry() = default;
  ~IndexRegistry();  // the process's registry is never destroyed; tests' are
  IndexRegistry(const IndexRegistry&) = delete;
  IndexRegistry& operator=(const IndexRegistry&) = delete;

  // By name, or by alias (FT.SEARCH, FT.AGGREGATE, FT.INFO accept aliases).
  std::shared_ptr<SearchIndex> Find(std::string_view name_or_alias) const;
  std::shared_ptr<SearchIndex> FindByName(std::string_view name) const;
  // False when the name is taken.
  bool Add(std::shared_ptr<SearchIndex> index);
  // Removes the index and its aliases; null when there is none.
  std::shared_ptr<SearchIndex> Remove(std::string_view name);
  std::vector<std::string> Names() const;
  std::vector<std::shared_ptr<SearchIndex>> All() const;
  size_t size() const;
  // Aliases (FT.ALIASADD / ALIASUPDATE / ALIASDEL). Errors are RediSearch's texts:
  // "Alias already exists", "Unknown index name", "Alias does not exist".
  Status AddAlias(std::string_view alias, std::string_view index);
  Status UpdateAlias(std::string_view alias, std::string_view index);
  Status DeleteAlias(std::string_view alias);
  std::vector<std::string> AliasesOf(std::string_view index) const;
  void Clear();
  // The TEMPORARY indexes that dropped themselves since the last call (swept now).
  std::vector<std::shared_ptr<SearchIndex>> TakeExpired();
  // Re-publishes the definitions a snapshot saves (server/search_hooks.h); Add and Remove
  // do it themselves, FT.ALTER calls it after changing a spec's create_args.
  void Republish();

 private:
  mutable std::shared_mutex mu_;
  std::atomic<int> temporary_count_{0};  // TEMPORARY indexes: 0 skips the sweep
  // Drops the TEMPORARY indexes whose idle time passed (lookups call it first); their
  // documents are deleted by TakeExpired's caller (the server's cron).
  void SweepTemporary() const;
  mutable std::mutex expired_mu_;
  mutable std::vector<std::shared_ptr<SearchIndex>> expired_;
  std::unordered_map<std::string, std::shared_ptr<SearchIndex>> by_name_;
  std::unordered_map<std::string, std::string> aliases_;  // alias -> index name
  void RepublishLocked();
  // WriterView's list (owned; null before the first index) and the replaced ones, each
  // with the epoch it was retired in.
  std::atomic<const IndexList*> writer_list_{nullptr};
  std::mutex retired_mu_;
  std::vector<std::pair<uint64_t, std::unique_ptr<const IndexList>>> retired_;
  std::atomic<bool> has_retired_{false};
};

// The definitions serialized for snapshots: every index's name and create_args, then
// (when there are aliases) one entry with an empty name whose args are alias, index
// pairs sorted by alias (blobs written before aliases were kept simply lack it).
std::string SerializeDefinitions(
    const std::vector<std::shared_ptr<SearchIndex>>& indexes,
    const std::vector<std::pair<std::string, std::string>>& aliases = {});
// The reverse: (name, args) pairs, the aliases entry included (empty name); false on a
// malformed blob.
bool ParseDefinitions(std::string_view blob,
                      std::vector<std::pair<std::string, std::vector<std::string>>>* out);

// The process's registry.
IndexRegistry& Indexes();

// Registers the keyspace observer (before the workers start) and the persistence hooks
// (server/search_hooks.h: definitions in snapshots, indexes rebuilt after a load).
void InstallSearchObserver(Server& server);

// Indexes every existing key of database 0 into `index`, shard by shard (each locked
// unless this thread holds it already: EXEC). Synchronous: FT.CREATE returns when done.
// `shards_locked`: the caller holds every shard lock (a load under DEBUG RELOAD).
void ScanExisting(Keyspace& ks, SearchIndex& index, int64_t now_ms, bool shards_locked = false);

// A result document's fields as the reply shows them. Hash: its live fields (in HGETALL
// order), or only `only`'s names in that order (missing ones skipped). JSON: with no
// `only`, {"$", the whole document}; else each name as a schema field (its path) or a
// JSONPath, the value as JSON text (a string value unquoted). found=false: the key is gone
// or no longer of the index's type. Locks the key's shard (unless this thread holds it).
struct LoadedDoc {
  bool found = false;
  std::vector<std::pair<std::string, std::string>> fields;
};
LoadedDoc LoadDocument(Keyspace& ks, const SearchIndex& index, std::string_view key,
                       const std::vector<std::string>* only, int64_t now_ms);

}  // namespace hotkv::search

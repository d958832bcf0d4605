#include "search/index_registry.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/key_hash.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "engine/entry.h"
#include "engine/keyspace.h"
#include "json/json_node.h"
#include "json/json_path.h"
#include "server/dispatcher.h"
#include "server/search_hooks.h"
#include "server/server.h"
#include "search/index_spec.h"
#include "types/hash_value.h"

namespace hotkv::search {

// ---- Registry ----

IndexRegistry& Indexes() {
  static IndexRegistry* registry = new IndexRegistry();  // never destroyed: workers may outlive main
  return *registry;
}

void IndexRegistry::SweepTemporary() const {
  if (temporary_count_.load(std::memory_order_relaxed) == 0) {
    return;
  }
  const int64_t now = MonotonicUs() / 1000;
  std::vector<std::string> expired;
  {
    std::shared_lock lock(mu_);
    for (const auto& [n, idx] : by_name_) {
      if (idx->TemporaryExpired(now)) {
        expired.push_back(n);
      }
    }
  }
  if (expired.empty()) {
    return;
  }
  std::vector<std::shared_ptr<SearchIndex>> dropped;
  // The registry is never const itself (Indexes()); lookups are const for their callers.
  IndexRegistry* self = const_cast<IndexRegistry*>(this);
  {
    std::unique_lock lock(mu_);
    for (const std::string& n : expired) {
      auto it = self->by_name_.find(n);
      if (it == self->by_name_.end() || !it->second->TemporaryExpired(now)) {
        continue;
      }
      dropped.push_back(std::move(it->second));
      self->by_name_.erase(it);
      self->temporary_count_.fetch_sub(1, std::memory_order_relaxed);
      g_key_change_observers.fetch_sub(1, std::memory_order_relaxed);
      for (auto a = self->aliases_.begin(); a != self->aliases_.end();) {
        a = a->second == n ? self->aliases_.erase(a) : std::next(a);
      }
    }
    self->RepublishLocked();
  }
  std::lock_guard<std::mutex> lock(expired_mu_);
  for (auto& d : dropped) {
    expired_.push_back(std::move(d));
  }
}

std::vector<std::shared_ptr<SearchIndex>> IndexRegistry::TakeExpired() {
  SweepTemporary();
  std::lock_guard<std::mutex> lock(expired_mu_);
  return std::move(expired_);
}

std::shared_ptr<SearchIndex> IndexRegistry::Find(std::string_view name) const {
  SweepTemporary();
  std::shared_lock lock(mu_);
  std::string n(name);
  auto it = by_name_.find(n);
  if (it == by_name_.end()) {
    auto a = aliases_.find(n);
    if (a != aliases_.end()) {
      it = by_name_.find(a->second);
    }
  }
  if (it == by_name_.end()) {
    return nullptr;
  }
  if (it->second->temporary()) {
    it->second->Touch();
  }
  return it->second;
}

std::shared_ptr<SearchIndex> IndexRegistry::FindByName(std::string_view name) const {
  SweepTemporary();
  std::shared_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

bool IndexRegistry::Add(std::shared_ptr<SearchIndex> index) {
  std::unique_lock lock(mu_);
  const std::string& name = index->name();
  if (by_name_.count(name) != 0) {
    return false;
  }
  if (index->temporary()) {
    index->Touch();
    temporary_count_.fetch_add(1, std::memory_order_relaxed);
  }
  by_name_.emplace(name, std::move(index));
  g_key_change_observers.fetch_add(1, std::memory_order_relaxed);
  RepublishLocked();
  return true;
}

std::shared_ptr<SearchIndex> IndexRegistry::Remove(std::string_view name) {
  std::unique_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) {
    return nullptr;
  }
  std::shared_ptr<SearchIndex> idx = std::move(it->second);
  by_name_.erase(it);
  if (idx->temporary()) {
    temporary_count_.fetch_sub(1, std::memory_order_relaxed);
  }
  for (auto a = aliases_.begin(); a != aliases_.end();) {
    if (a->second == idx->name()) {
      a = aliases_.erase(a);
    } else {
      ++a;
    }
  }
  g_key_change_observers.fetch_sub(1, std::memory_order_relaxed);
  RepublishLocked();
  if (idx->TemporaryExpired(MonotonicUs() / 1000)) {
    return nullptr;  // it had already dropped itself (FT.DROPINDEX: "Unknown Index name")
  }
  return idx;
}

std::vector<std::string> IndexRegistry::Names() const {
  SweepTemporary();
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [n, idx] : by_name_) {
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::shared_ptr<SearchIndex>> IndexRegistry::All() const {
  std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<SearchIndex>> out;
  for (const auto& [n, idx] : by_name_) {
    out.push_back(idx);
  }
  return out;
}

size_t IndexRegistry::size() const {
  std::shared_lock lock(mu_);
  return by_name_.size();
}

Status IndexRegistry::AddAlias(std::string_view alias, std::string_view index) {
  std::unique_lock lock(mu_);
  std::string a(alias);
  if (aliases_.count(a) != 0 || by_name_.count(a) != 0) {
    return Status::InvalidArgument("Alias already exists");
  }
  if (by_name_.count(std::string(index)) == 0) {
    return Status::NotFound("Unknown index name");
  }
  aliases_.emplace(std::move(a), std::string(index));
  RepublishLocked();
  return Status::Ok();
}

Status IndexRegistry::UpdateAlias(std::string_view alias, std::string_view index) {
  std::unique_lock lock(mu_);
  if (by_name_.count(std::string(index)) == 0) {
    return Status::NotFound("Unknown index name");
  }
  aliases_[std::string(alias)] = std::string(index);
  RepublishLocked();
  return Status::Ok();
}

Status IndexRegistry::DeleteAlias(std::string_view alias) {
  std::unique_lock lock(mu_);
  if (aliases_.erase(std::string(alias)) == 0) {
    return Status::NotFound("Alias does not exist");
  }
  RepublishLocked();
  return Status::Ok();
}

std::vector<std::string> IndexRegistry::AliasesOf(std::string_view index) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [a, n] : aliases_) {
    if (n == index) {
      out.push_back(a);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void IndexRegistry::Clear() {
  std::unique_lock lock(mu_);
  g_key_change_observers.fetch_sub(static_cast<int>(by_name_.size()), std::memory_order_relaxed);
  temporary_count_.store(0, std::memory_order_relaxed);
  {
    // FLUSH*: the keys are gone already; nothing left for the cron to delete.
    std::lock_guard<std::mutex> expired_lock(expired_mu_);
    expired_.clear();
  }
  by_name_.clear();
  aliases_.clear();
  RepublishLocked();
}

// ---- Definitions for snapshots ----

namespace {

// Immutable strings, replaced on every change and never freed: a forked snapshot child
// may be reading one (it must take no lock a writer could hold at the fork), and so may a
// fork-less snapshot's thread. The replaced ones stay reachable from g_replaced (so leak
// checkers do not report them): the registry grows by its definitions' text per change.
std::atomic<const std::string*> g_published{nullptr};
std::mutex g_replaced_mu;
std::vector<std::unique_ptr<const std::string>> g_replaced;  // guarded by g_replaced_mu

void Publish(std::string definitions) {
  const std::string* old =
      g_published.exchange(new std::string(std::move(definitions)), std::memory_order_acq_rel);
  if (old != nullptr) {
    std::lock_guard<std::mutex> lock(g_replaced_mu);
    g_replaced.emplace_back(old);
  }
}

void PutString(std::string* out, std::string_view s) {
  *out += std::to_string(s.size());
  *out += ':';
  out->append(s);
}

bool GetString(std::string_view* in, std::string_view* s) {
  size_t colon = in->find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 10) {
    return false;
  }
  auto n = ParseInt64(in->substr(0, colon));
  if (!n || *n < 0 || static_cast<uint64_t>(*n) > in->size() - colon - 1) {
    return false;
  }
  *s = in->substr(colon + 1, static_cast<size_t>(*n));
  in->remove_prefix(colon + 1 + static_cast<size_t>(*n));
  return true;
}

}  // namespace

std::string SerializeDefinitions(const std::vector<std::shared_ptr<SearchIndex>>& indexes,
                                 const std::vector<std::pair<std::string, std::string>>& aliases) {
  std::string out;
  for (const auto& idx : indexes) {
    PutString(&out, idx->name());
    PutString(&out, std::to_string(idx->spec().create_args.size()));
    for (const std::string& a : idx->spec().create_args) {
      PutString(&out, a);
    }
  }
  if (!aliases.empty()) {
    PutString(&out, "");
    PutString(&out, std::to_string(aliases.size() * 2));
    for (const auto& [alias, index] : aliases) {
      PutString(&out, alias);
      PutString(&out, index);
    }
  }
  return out;
}

bool ParseDefinitions(std::string_view blob,
                      std::vector<std::pair<std::string, std::vector<std::string>>>* out) {
  while (!blob.empty()) {
    std::string_view name, count;
    if (!GetString(&blob, &name) || !GetString(&blob, &count)) {
      return false;
    }
    auto n = ParseInt64(count);
    if (!n || *n < 0 || *n > 100000) {
      return false;
    }
    std::vector<std::string> args;
    for (int64_t i = 0; i < *n; i++) {
      std::string_view a;
      if (!GetString(&blob, &a)) {
        return false;
      }
      args.emplace_back(a);
    }
    out->emplace_back(std::string(name), std::move(args));
  }
  return true;
}

void IndexRegistry::RepublishLocked() {
  std::vector<std::shared_ptr<SearchIndex>> all;
  for (const auto& [n, idx] : by_name_) {
    all.push_back(idx);
  }
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a->name() < b->name(); });
  std::vector<std::pair<std::string, std::string>> aliases(aliases_.begin(), aliases_.end());
  std::sort(aliases.begin(), aliases.end());
  Publish(SerializeDefinitions(all, aliases));
  // The keyspace observer's list: replaced, the old one retired (a write may be reading it).
  const IndexList* old = writer_list_.exchange(new IndexList(std::move(all)), std::memory_order_acq_rel);
  if (old != nullptr) {
    const uint64_t tag = vector::RetireEpoch();
    std::lock_guard<std::mutex> lock(retired_mu_);
    retired_.emplace_back(tag, std::unique_ptr<const IndexList>(old));
    has_retired_.store(true, std::memory_order_release);
  }
  Reclaim();
}

IndexRegistry::~IndexRegistry() { delete writer_list_.load(std::memory_order_acquire); }

void IndexRegistry::Reclaim() {
  if (!has_retired_.load(std::memory_order_acquire)) {
    return;
  }
  std::vector<std::unique_ptr<const IndexList>> dead;  // freed outside the mutex
  {
    std::lock_guard<std::mutex> lock(retired_mu_);
    const uint64_t min = vector::MinActiveEpoch();
    for (auto it = retired_.begin(); it != retired_.end();) {
      if (it->first < min) {
        dead.push_back(std::move(it->second));
        it = retired_.erase(it);
      } else {
        ++it;
      }
    }
    has_retired_.store(!retired_.empty(), std::memory_order_release);
  }
}

void IndexRegistry::Republish() {
  std::unique_lock lock(mu_);
  RepublishLocked();
}

// ---- The keyspace observer ----

namespace {

// The live entry of `key` in database 0 (its shard locked by the caller), without
// expiring anything (observers must not change the keyspace).
const Entry* PeekDb0(Keyspace& ks, std::string_view key, int64_t now_ms) {
  DbTable& t = ks.shard(Keyspace::ShardOf(key)).db(0);
  size_t pos = t.keys.Find(key, HashKey(key));
  if (pos == KeyTable::kNotFound) {
    return nullptr;
  }
  const Entry* e = t.keys.At(pos);
  if (e->has_ttl() && e->expire_ms() <= now_ms) {
    return nullptr;
  }
  return e;
}

void RescanUnlocked(Keyspace& ks, SearchIndex& index, int64_t now_ms) {
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    ks.shard(i).db(0).keys.ForEach([&](Entry* e) {
      if (index.MatchesPrefix(e->key()) && !(e->has_ttl() && e->expire_ms() <= now_ms)) {
        index.Sync(e->key(), e, now_ms);
      }
    });
  }
}

class SearchObserver : public KeyObserver {
 public:
  explicit SearchObserver(Keyspace* ks) : ks_(ks) {}

  void OnKeyChanged(int db, std::string_view key) override {
    if (db == 0) {
      Resync(key);
    }
  }
  void OnKeyExpired(int db, std::string_view key) override {
    if (db == 0) {
      RemoveKey(key);
    }
  }
  void OnKeyEvicted(int db, std::string_view key) override {
    if (db == 0) {
      RemoveKey(key);
    }
  }
  void OnFieldsExpired(int db, std::string_view key, const std::vector<std::string>&,
                       bool key_deleted, bool) override {
    if (db != 0) {
      return;
    }
    if (key_deleted) {
      RemoveKey(key);
    } else {
      Resync(key);
    }
  }
  // RediSearch drops every index on any FLUSHALL / FLUSHDB (whatever the database).
  void OnFlush(int) override {
    if (g_key_change_observers.load(std::memory_order_relaxed) > 0) {
      Indexes().Clear();
    }
  }
  void OnSwapDb(int a, int b) override {
    if ((a != 0 && b != 0) || a == b ||
        g_key_change_observers.load(std::memory_order_relaxed) == 0) {
      return;
    }
    // Every shard is locked: read the new database 0 directly.
    const int64_t now = CachedNowMs();
    for (const auto& idx : Indexes().All()) {
      idx->Clear();
      RescanUnlocked(*ks_, *idx, now);
    }
  }

 private:
  // The indexes whose PREFIX takes `key` (usually none or one), found with no lock and no
  // allocation; each kept by a shared_ptr copy so that the epoch guard is left before the
  // index is written (an HNSW insert takes milliseconds).
  struct Matching {
    std::shared_ptr<SearchIndex> first;
    std::vector<std::shared_ptr<SearchIndex>> more;
  };
  static bool FindMatching(std::string_view key, Matching* m) {
    IndexRegistry::WriterView view(Indexes());
    for (const auto& idx : view) {
      if (idx->MatchesPrefix(key)) {
        if (m->first == nullptr) {
          m->first = idx;
        } else {
          m->more.push_back(idx);
        }
      }
    }
    return m->first != nullptr;
  }
  void Resync(std::string_view key) {
    Matching m;
    if (!FindMatching(key, &m)) {
      return;
    }
    const int64_t now = CachedNowMs();
    const Entry* e = PeekDb0(*ks_, key, now);
    m.first->Sync(key, e, now);
    for (const auto& idx : m.more) {
      idx->Sync(key, e, now);
    }
  }
  void RemoveKey(std::string_view key) {
    if (g_key_change_observers.load(std::memory_order_relaxed) == 0) {
      return;
    }
    Matching m;
    if (!FindMatching(key, &m)) {
      return;
    }
    m.first->Remove(key);
    for (const auto& idx : m.more) {
      idx->Remove(key);
    }
  }
  Keyspace* ks_;
};

class PersistenceHooks : public SearchHooks {
 public:
  explicit PersistenceHooks(Keyspace* ks) : ks_(ks) {}
  std::string SavedDefinitions() override {
    const std::string* s = g_published.load(std::memory_order_acquire);
    return s == nullptr ? std::string() : *s;
  }
  std::vector<std::vector<std::string>> DefinitionCommands() override {
    std::vector<std::vector<std::string>> out;
    std::vector<std::pair<std::string, std::vector<std::string>>> defs;
    if (!ParseDefinitions(SavedDefinitions(), &defs)) {
      return out;
    }
    for (auto& [name, args] : defs) {
      if (name.empty()) {  // aliases, after every index
        for (size_t i = 0; i + 1 < args.size(); i += 2) {
          out.push_back({"FT.ALIASADD", args[i], args[i + 1]});
        }
        continue;
      }
      std::vector<std::string> c{"FT.CREATE", name};
      c.insert(c.end(), args.begin(), args.end());
      out.push_back(std::move(c));
    }
    return out;
  }
  void Cron(int64_t now_ms) override {
    Indexes().Reclaim();
    for (const std::shared_ptr<SearchIndex>& idx : Indexes().TakeExpired()) {
      std::vector<std::string> keys;
      {
        std::shared_lock lock(idx->mutex());
        for (DocId d : idx->AllDocs()) {
          keys.push_back(idx->KeyOf(d));
        }
      }
      // As RediSearch, an expired TEMPORARY index takes its documents along: each is given
      // a past expiry time and looked up again, which deletes it the way key expiry does
      // (notifications, a DEL in the AOF and to replicas).
      for (const std::string& key : keys) {
        Shard& s = ks_->shard(Keyspace::ShardOf(key));
        std::lock_guard<decltype(s.lock)> lock(s.lock);
        Database db(ks_, 0, now_ms);
        KeyRef ref = db.Lookup(key);
        if (ref) {
          db.SetTtl(ref, now_ms - 1);
          KeyRef again = db.Lookup(key);
          (void)again;
        }
      }
    }
  }

  void RestoreDefinitions(std::string_view blob, bool shards_locked) override {
    std::vector<std::pair<std::string, std::vector<std::string>>> defs;
    if (!ParseDefinitions(blob, &defs)) {
      fprintf(stderr, "# Warning: unreadable search index definitions in the file; skipped\n");
      return;
    }
    const int64_t now = WallClockMs();
    for (auto& [name, args] : defs) {
      if (name.empty()) {  // aliases, after every index
        for (size_t i = 0; i + 1 < args.size(); i += 2) {
          if (Status st = Indexes().UpdateAlias(args[i], args[i + 1]); !st.ok()) {
            fprintf(stderr, "# Warning: search alias '%s' not restored: %s\n", args[i].c_str(),
                    st.message().c_str());
          }
        }
        continue;
      }
      std::shared_ptr<SearchIndex> idx = Indexes().FindByName(name);
      if (idx == nullptr) {
        std::vector<std::string_view> views(args.begin(), args.end());
        Result<IndexSpec> spec = ParseCreateArgs(name, views);
        if (!spec.ok()) {
          fprintf(stderr, "# Warning: search index '%s' not restored: %s\n", name.c_str(),
                  spec.status().message().c_str());
          continue;
        }
        Result<std::shared_ptr<SearchIndex>> made = SearchIndex::Create(std::move(*spec));
        if (!made.ok() || !Indexes().Add(*made)) {
          continue;
        }
        idx = *made;
      } else {
        idx->Clear();
      }
      ScanExisting(*ks_, *idx, now, shards_locked);
    }
  }

 private:
  Keyspace* ks_;
};

}  // namespace

void InstallSearchObserver(Server& server) {
  static SearchObserver* observer = new SearchObserver(&server.keyspace());
  server.keyspace().AddObserver(observer);
  static PersistenceHooks* hooks = new PersistenceHooks(&server.keyspace());
  SetSearchHooks(hooks);
}

void ScanExisting(Keyspace& ks, SearchIndex& index, int64_t now_ms, bool shards_locked) {
  index.indexing.store(true, std::memory_order_relaxed);
  index.percent_indexed.store(0, std::memory_order_relaxed);
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    Shard& s = ks.shard(i);
    const bool held = shards_locked || ThisThreadHoldsShard(i);
    if (!held) {
      s.lock.lock();
    }
    s.db(0).keys.ForEach([&](Entry* e) {
      if (index.MatchesPrefix(e->key()) && !(e->has_ttl() && e->expire_ms() <= now_ms)) {
        index.Sync(e->key(), e, now_ms);
      }
    });
    if (!held) {
      s.lock.unlock();
    }
    index.percent_indexed.store(static_cast<double>(i + 1) / Keyspace::kShardCount,
                                std::memory_order_relaxed);
  }
  index.indexing.store(false, std::memory_order_relaxed);
}

// ---- Loading documents for replies ----

namespace {

std::string JsonValueText(const std::vector<json::Match>& matches, bool legacy) {
  if (matches.size() == 1 && (legacy || true)) {
    const json::Node& n = *matches[0].node;
    if (n.is_string()) {
      return std::string(n.str());
    }
    return json::ToJson(n);
  }
  std::string out = "[";
  for (size_t i = 0; i < matches.size(); i++) {
    if (i > 0) {
      out += ',';
    }
    out += json::ToJson(*matches[i].node);
  }
  out += ']';
  return out;
}

}  // namespace

LoadedDoc LoadDocument(Keyspace& ks, const SearchIndex& index, std::string_view key,
                       const std::vector<std::string>* only, int64_t now_ms) {
  LoadedDoc out;
  // The key's slot, shard and hash once (Database::Find would compute them again).
  const uint32_t slot = KeySlot(key);
  const uint32_t shard = Keyspace::ShardOfSlot(slot);
  Shard& s = ks.shard(shard);
  const bool held = ThisThreadHoldsShard(shard);
  if (!held) {
    s.lock.lock();
  }
  Database db(&ks, 0, now_ms);
  KeyRef ref = db.Lookup(key, shard, HashKey(key), slot);
  Entry* e = ref ? ref.entry() : nullptr;
  const bool is_json = index.spec().on == SourceType::kJson;
  if (e != nullptr && e->type() == (is_json ? ValueType::kJson : ValueType::kHash)) {
    out.found = true;
    if (!is_json) {
      const auto* h = e->As<types::HashValue>();
      if (only == nullptr) {
        h->ForEachLive(now_ms, [&](std::string_view f, std::string_view v) {
          out.fields.emplace_back(std::string(f), std::string(v));
          return true;
        });
      } else {
        for (const std::string& name : *only) {
          int fi = index.FieldIndexOf(name);
          std::string_view field = fi >= 0 ? std::string_view(index.spec().fields[fi].path)
                                           : std::string_view(name);
          auto v = h->Get(field);
          if (v && !(h->HasFieldTtls() && h->IsExpired(field, now_ms))) {
            out.fields.emplace_back(name, v->ToString());
          }
        }
      }
    } else {
      json::Node* root = e->As<json::Node>();
      root->EnsureTree();
      if (only == nullptr) {
        out.fields.emplace_back("$", json::ToJson(*root));
      } else {
        for (const std::string& name : *only) {
          int fi = index.FieldIndexOf(name);
          const json::Path* path = fi >= 0 ? index.fields()[fi].json_path.get() : nullptr;
          std::optional<json::Path> own;
          if (path == nullptr) {
            if (name.empty() || name[0] != '$') {
              continue;
            }
            Result<json::Path> p = json::Path::Compile(name);
            if (!p.ok()) {
              continue;
            }
            own = std::move(*p);
            path = &*own;
          }
          std::vector<json::Match> m = json::Select(*path, *root);
          if (m.empty()) {
            continue;
          }
          if (name == "$") {
            out.fields.emplace_back(name, json::ToJson(*root));
          } else {
            out.fields.emplace_back(name, JsonValueText(m, path->legacy()));
          }
        }
      }
    }
  }
  if (!held) {
    s.lock.unlock();
  }
  return out;
}

}  // namespace hotkv::search

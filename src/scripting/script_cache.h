// ScriptCache: the scripts EVAL and SCRIPT LOAD have seen, by SHA-1 (EVALSHA, SCRIPT
// EXISTS, SCRIPT FLUSH). Shared by every worker; each worker compiles a script into its
// own lua_State on first use (lua_engine.h), so the cache holds only bodies and what
// was learnt about them.
//
// Thread safety: every method may be called from any thread (a shared mutex: lookups
// share it, inserts and flushes take it exclusively). The epoch rises with every FLUSH;
// a worker whose engine saw an older epoch recreates its lua_State before its next run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hotkv::scripting {

// Shebang flags (`#!lua flags=no-writes,allow-oom,...`), as Redis 7 parses them.
struct ScriptFlags {
  bool shebang = false;  // the body starts with "#!lua" (flags then default to none)
  bool no_writes = false;
  bool allow_oom = false;
  bool allow_stale = false;
  bool no_cluster = false;
  bool allow_cross_slot = false;
};

struct CachedScript {
  std::string sha;
  std::string body;
  ScriptFlags flags;
  // Learnt at run time: the script touched a key whose shard another client held, before
  // writing; it then runs with every shard locked from the start (undeclared keys,
  // docs/architecture.md "scripting/").
  std::atomic<bool> needs_all_shards{false};
  // Added by EVAL (not SCRIPT LOAD): evicted, least recently used first, past
  // ScriptCache::kMaxEvalScripts such scripts (Redis 7.4+). `last_use` is the cache's
  // clock when it was added (even) or last run (odd); `seq` breaks ties (older first).
  bool evictable = false;
  uint64_t seq = 0;
  std::atomic<uint64_t> last_use{0};
  // Removed from the cache: the workers' copies (LuaEngine::FindScript) drop it.
  std::atomic<bool> evicted{false};
};

class ScriptCache {
 public:
  static ScriptCache& Instance();

  // As Redis 7.4+: at most this many scripts added by EVAL are kept.
  static constexpr size_t kMaxEvalScripts = 500;

  std::shared_ptr<CachedScript> Find(std::string_view sha) const;
  // Adds `body` (flags parsed by the caller) and returns the entry (the existing one when
  // the body is known already). `from_eval`: a new entry is evictable; adding it past
  // kMaxEvalScripts evicts the least recently used one (counted in *evicted).
  std::shared_ptr<CachedScript> Add(std::string sha, std::string_view body, const ScriptFlags& flags,
                                    bool from_eval = false, uint64_t* evicted = nullptr);
  // EVAL/EVALSHA ran `s`: it becomes the most recently used (for eviction). Between two
  // additions a script's stamp is written once, so a repeated call only reads.
  void Touch(CachedScript& s) const {
    if (s.evictable) {
      const uint64_t t = clock_.load(std::memory_order_relaxed) | 1;
      if (s.last_use.load(std::memory_order_relaxed) != t) {
        s.last_use.store(t, std::memory_order_relaxed);
      }
    }
  }
  // Scripts evicted since the process started (workers sweep their copies by it).
  uint64_t evictions() const { return evictions_.load(std::memory_order_relaxed); }
  void Flush();
  size_t size() const;
  size_t memory() const;
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<CachedScript>> scripts_;
  std::vector<CachedScript*> evictable_;  // the entries added by EVAL (guarded by mu_)
  uint64_t next_seq_ = 0;                 // guarded by mu_
  std::atomic<uint64_t> clock_{0};        // +2 for each evictable addition
  std::atomic<uint64_t> evictions_{0};
  size_t bytes_ = 0;
  std::atomic<uint64_t> epoch_{1};
};

// Parses a body's shebang line. Returns an error text (Redis's) or empty; `*flags` and
// `*code_offset` (where the Lua code starts: 0, or the shebang line's end) are set.
std::string ParseShebang(std::string_view body, ScriptFlags* flags);

}  // namespace hotkv::scripting

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
};

class ScriptCache {
 public:
  static ScriptCache& Instance();

  std::shared_ptr<CachedScript> Find(std::string_view sha) const;
  // Adds `body` (flags parsed by the caller) and returns the entry (the existing one when
  // the body is known already).
  std::shared_ptr<CachedScript> Add(std::string sha, std::string_view body, const ScriptFlags& flags);
  void Flush();
  size_t size() const;
  size_t memory() const;
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<CachedScript>> scripts_;
  size_t bytes_ = 0;
  std::atomic<uint64_t> epoch_{1};
};

// Parses a body's shebang line. Returns an error text (Redis's) or empty; `*flags` and
// `*code_offset` (where the Lua code starts: 0, or the shebang line's end) are set.
std::string ParseShebang(std::string_view body, ScriptFlags* flags);

}  // namespace hotkv::scripting

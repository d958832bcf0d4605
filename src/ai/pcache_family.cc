// PCACHE.*: the prompt (prefix) cache (docs/ai.md). A namespace is a key of type "pcache"
// (ai/pcache_value.h) holding a PromptCache (ai/prompt_cache.h).
//
//   PCACHE.CREATE ns [BUDGET bytes] [TTL s]                              -> OK
//   PCACHE.CONFIG ns [BUDGET bytes] [TTL s]                              -> OK
//   PCACHE.PUT ns key value [PARENT key] [TTL s] [PXAT ms]               -> OK
//   PCACHE.PUTTOKENS ns [PARENT key] [TTL s] TOKENS blob BLOCK n value.. -> block keys
//   PCACHE.LONGEST ns key...                           -> leading blocks present
//   PCACHE.LONGESTBLOB ns width blob                   -> the same, keys packed in a blob
//   PCACHE.GET ns key / PCACHE.MGET ns key...          -> value(s) or nil
//   PCACHE.DEL ns key...                               -> blocks removed (descendants too)
//   PCACHE.INFO ns                                     -> map
//
// Namespaces: PUT, PUTTOKENS, CONFIG and INFO need one ("ERR no such namespace"); the
// reads answer a missing namespace as an empty one (0, nil) and DEL as 0.
//
// Locking: PUT, PUTTOKENS, LONGEST(BLOB), GET, MGET and DEL are self_locking like SCACHE's
// (scache_family.cc): the key's shard is locked only to find the namespace and copy its
// shared_ptr (and again after a write for KeyModified); the cache's own mutex guards its
// maps, held while OutsideLock is raised (g_vector_writes_outside_lock, so the fork of a
// snapshot never happens while it is held). A value is copied from its shared, immutable
// bytes into the reply with no lock held.
//
// Write stream: under the cache's mutex, in apply order: the blocks a write expired or
// evicted as one PCACHE.DEL (descendants go with them on replay too), then each block as
// PCACHE.PUT ns key value [PARENT p] PXAT ms (PXAT 0: no expiry), CONFIG and DEL as given.
// Reads are not logged: the LRU order after an AOF replay is the order of the PUTs.
//
// PUTTOKENS hash chain (documented in docs/ai.md): block i's key is the 32 lower-case hex
// digits of XXH3-128 (canonical, big-endian) of key(i-1) || the block's tokens as the
// blob holds them (little-endian u32), with key(0) = the PARENT key's bytes, or nothing.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ai/ai.h"
#include "ai/ai_clock.h"
#include "ai/ai_keys.h"
#include "ai/pcache_value.h"
#include "commands/helpers.h"
#include "commands/vector_common.h"
#include "common/string_util.h"
#include "engine/extension_value.h"
#include "server/server.h"
#include "server/write_stream.h"

namespace hotkv::ai {
namespace {

constexpr std::string_view kNoSuchNamespace = "ERR no such namespace";
constexpr std::string_view kBadTtl = "ERR TTL must be between 0 and 315360000 seconds";
constexpr int64_t kMaxBlockTokens = 1 << 20;

// Under the key's shard lock: the namespace at `key`, null when missing; WRONGTYPE
// replied (false) for another type.
bool FindCache(CommandContext& ctx, std::string_view key, bool read,
               std::shared_ptr<PromptCache>* out) {
  return FindNamespace<PcacheValue>(ctx, key, read, PcacheType(), out);
}

// The namespace of a command that needs one, or null after replying.
std::shared_ptr<PromptCache> CacheOrReply(CommandContext& ctx, std::string_view key, bool read) {
  return NamespaceOrReply<PcacheValue>(ctx, key, read, PcacheType(), kNoSuchNamespace);
}

// Finds the namespace under the key's shard lock (self_locking commands). False after a
// WRONGTYPE reply; true with `out` null for a missing namespace.
bool FindUnlocked(CommandContext& ctx, std::string_view key, bool read,
                  std::shared_ptr<PromptCache>* out) {
  KeyShardLock lock(ctx, key);
  return FindCache(ctx, key, read, out);
}

void Record(CommandContext& ctx, const std::vector<std::string_view>& args) {
  WriteStream& ws = ctx.server().write_stream();
  ws.Append(ctx.db().index(), args);
  ws.Commit();
  ws.MarkRewritten();
}

// The write-stream records of a cache's changes (called under its mutex).
PromptCache::ChangeFn Recorder(CommandContext& ctx, std::string_view ns) {
  if (!ctx.server().write_stream().active()) {
    return {};
  }
  return [&ctx, ns](const PromptCache::Change& c) {
    switch (c.kind) {
      case PromptCache::Change::Kind::kDel: {
        std::vector<std::string_view> args = {"PCACHE.DEL", ns};
        args.insert(args.end(), c.keys.begin(), c.keys.end());
        return Record(ctx, args);
      }
      case PromptCache::Change::Kind::kPut: {
        const std::string at = std::to_string(c.expire_at_ms);
        std::vector<std::string_view> args = {"PCACHE.PUT", ns, c.key, *c.value};
        if (c.has_parent) {
          args.insert(args.end(), {"PARENT", c.parent});
        }
        args.insert(args.end(), {"PXAT", at});
        return Record(ctx, args);
      }
      case PromptCache::Change::Kind::kConfig:
        return Record(ctx, ctx.args());
    }
  };
}

void FinishWrite(CommandContext& ctx, std::string_view key, std::string_view event) {
  KeyShardLock lock(ctx, key);
  ctx.KeyModified(key, notify::kModule, event);
}

std::optional<int64_t> RangeArg(CommandContext& ctx, size_t i, int64_t lo, int64_t hi,
                                std::string_view err) {
  std::optional<int64_t> v = ParseInt64(ctx.arg(i));
  if (!v || *v < lo || *v > hi) {
    ctx.rb().Error(err);
    return std::nullopt;
  }
  return v;
}

bool CheckBlockKey(CommandContext& ctx, std::string_view key) {
  if (key.empty() || key.size() > kMaxBlockKeyBytes) {
    ctx.rb().Error("ERR block key must be 1 to 1024 bytes");
    return false;
  }
  return true;
}

bool CheckValue(CommandContext& ctx, std::string_view value) {
  if (value.size() > kMaxBlockValueBytes) {
    ctx.rb().Error("ERR block value larger than 536870912 bytes");
    return false;
  }
  return true;
}

// [BUDGET bytes] [TTL s] from args[from..]; false after replying.
bool ParseOptions(CommandContext& ctx, size_t from, PromptCacheOptions* o) {
  for (size_t j = from; j < ctx.argc(); j += 2) {
    if (j + 1 >= ctx.argc()) {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "BUDGET")) {
      auto v = RangeArg(ctx, j + 1, 0, static_cast<int64_t>(kMaxBudgetBytes),
                        "ERR BUDGET must be between 0 and 1125899906842624 bytes");
      if (!v) return false;
      o->budget_bytes = static_cast<uint64_t>(*v);
    } else if (EqualsIgnoreCase(opt, "TTL")) {
      auto v = RangeArg(ctx, j + 1, 0, kMaxPcacheTtlSeconds, kBadTtl);
      if (!v) return false;
      o->ttl_ms = *v * 1000;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// PCACHE.CREATE ns [BUDGET bytes] [TTL s]
void CreateCommand(CommandContext& ctx) {
  PromptCacheOptions o;
  if (!ParseOptions(ctx, 2, &o)) return;
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) {
    return ctx.rb().Error("ERR key already exists");
  }
  ctx.db().Insert(ref, NewExtensionEntry(key, std::make_unique<PcacheValue>(
                                                   std::make_shared<PromptCache>(o)),
                                         false));
  ctx.KeyModified(key, notify::kModule, "pcache.create");
  ctx.rb().Ok();
}

// PCACHE.CONFIG ns [BUDGET bytes] [TTL s]: a lower budget evicts at once.
void ConfigCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<PromptCache> cache = CacheOrReply(ctx, key, false);
  if (cache == nullptr) return;
  PromptCacheOptions o = cache->options();
  if (!ParseOptions(ctx, 2, &o)) return;
  cache->Configure(o, AiNowMs(ctx), Recorder(ctx, key));
  ctx.KeyModified(key, notify::kModule, "pcache.config");
  ctx.rb().Ok();
}

// Runs a Put on namespace `key` (self_locking): finds it, puts without the shard lock.
// False after replying an error.
bool RunPut(CommandContext& ctx, std::string_view key, const PromptCache::PutRequest& req) {
  std::shared_ptr<PromptCache> cache;
  if (!FindUnlocked(ctx, key, false, &cache)) return false;
  if (cache == nullptr) {
    ctx.rb().Error(kNoSuchNamespace);
    return false;
  }
  Status st;
  {
    OutsideLock outside;
    st = cache->Put(req, AiNowMs(ctx), Recorder(ctx, key));
  }
  if (!st.ok()) {
    ctx.rb().Error("ERR " + st.message());
    return false;
  }
  FinishWrite(ctx, key, "pcache.put");
  return true;
}

// PCACHE.PUT ns key value [PARENT key] [TTL s] [PXAT ms]
void PutCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  PromptCache::PutRequest req;
  for (size_t j = 4; j < ctx.argc(); j += 2) {
    if (j + 1 >= ctx.argc()) {
      return ctx.rb().Error(errors::kSyntax);
    }
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "PARENT")) {
      if (!CheckBlockKey(ctx, ctx.arg(j + 1))) return;
      req.parent = ctx.arg(j + 1);
    } else if (EqualsIgnoreCase(opt, "TTL")) {
      auto v = RangeArg(ctx, j + 1, 0, kMaxPcacheTtlSeconds, kBadTtl);
      if (!v) return;
      req.ttl_ms = *v * 1000;
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      auto v = RangeArg(ctx, j + 1, 0, INT64_MAX, "ERR invalid PXAT");
      if (!v) return;
      req.expire_at_ms = *v;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (req.ttl_ms && req.expire_at_ms) {
    return ctx.rb().Error("ERR TTL and PXAT cannot be used together");
  }
  if (!CheckBlockKey(ctx, ctx.arg(2)) || !CheckValue(ctx, ctx.arg(3))) return;
  // The one copy of the value: request buffer -> stored bytes, with no lock held.
  PromptCache::PutItem item{ctx.arg(2), std::make_shared<const std::string>(ctx.arg(3))};
  req.items = std::span<const PromptCache::PutItem>(&item, 1);
  if (RunPut(ctx, key, req)) {
    ctx.rb().Ok();
  }
}

std::string BlockKey(std::string_view prev, std::string_view tokens, std::string* buf) {
  buf->assign(prev);
  buf->append(tokens);
  const XXH128_hash_t h = XXH3_128bits(buf->data(), buf->size());
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(32, '\0');
  for (int i = 0; i < 16; i++) {
    out[2 * i] = kHex[c.digest[i] >> 4];
    out[2 * i + 1] = kHex[c.digest[i] & 15];
  }
  return out;
}

// PCACHE.PUTTOKENS ns [PARENT key] [TTL s] TOKENS blob BLOCK n value [value ...]
void PutTokensCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  PromptCache::PutRequest req;
  size_t j = 2;
  for (; j + 1 < ctx.argc() && !EqualsIgnoreCase(ctx.arg(j), "TOKENS"); j += 2) {
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "PARENT")) {
      if (!CheckBlockKey(ctx, ctx.arg(j + 1))) return;
      req.parent = ctx.arg(j + 1);
    } else if (EqualsIgnoreCase(opt, "TTL")) {
      auto v = RangeArg(ctx, j + 1, 0, kMaxPcacheTtlSeconds, kBadTtl);
      if (!v) return;
      req.ttl_ms = *v * 1000;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  if (j + 4 >= ctx.argc() || !EqualsIgnoreCase(ctx.arg(j), "TOKENS") ||
      !EqualsIgnoreCase(ctx.arg(j + 2), "BLOCK")) {
    return ctx.rb().Error(errors::kSyntax);
  }
  std::string_view tokens = ctx.arg(j + 1);
  auto n = RangeArg(ctx, j + 3, 1, kMaxBlockTokens, "ERR BLOCK must be between 1 and 1048576 tokens");
  if (!n) return;
  const size_t first_value = j + 4;
  const size_t values = ctx.argc() - first_value;
  const size_t block_bytes = static_cast<size_t>(*n) * 4;
  if (tokens.size() % 4 != 0 || tokens.size() != block_bytes * values) {
    return ctx.rb().Error("ERR TOKENS must hold BLOCK x values little-endian u32 tokens: got " +
                          std::to_string(tokens.size()) + " bytes for " + std::to_string(values) +
                          " values of " + std::to_string(*n) + " tokens (" +
                          std::to_string(block_bytes * values) + " bytes)");
  }
  for (size_t v = 0; v < values; v++) {
    if (!CheckValue(ctx, ctx.arg(first_value + v))) return;
  }
  std::vector<std::string> keys(values);
  std::string buf;
  std::string_view prev = req.parent.value_or(std::string_view());
  for (size_t v = 0; v < values; v++) {
    keys[v] = BlockKey(prev, tokens.substr(v * block_bytes, block_bytes), &buf);
    prev = keys[v];
  }
  std::vector<PromptCache::PutItem> items(values);
  for (size_t v = 0; v < values; v++) {
    items[v] = {keys[v], std::make_shared<const std::string>(ctx.arg(first_value + v))};
  }
  req.items = items;
  if (!RunPut(ctx, key, req)) return;
  ctx.rb().Array(values);
  for (const std::string& k : keys) {
    ctx.rb().Bulk(k);
  }
}

// The arguments from `from` on, as they are (no copy).
std::span<const std::string_view> KeysFrom(CommandContext& ctx, size_t from) {
  return std::span<const std::string_view>(ctx.args()).subspan(from);
}

// PCACHE.LONGEST ns key [key ...] -> the number of leading keys present.
void LongestCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<PromptCache> cache;
  if (!FindUnlocked(ctx, key, true, &cache)) return;
  if (cache == nullptr) {
    return ctx.rb().Integer(0);
  }
  std::span<const std::string_view> keys = KeysFrom(ctx, 2);
  size_t n;
  {
    OutsideLock outside;
    n = cache->Longest(keys, AiNowMs(ctx));
  }
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// PCACHE.LONGESTBLOB ns width blob -> LONGEST of the blob cut into width-byte keys: one
// argument instead of N (less to send and parse when keys have a fixed size).
void LongestBlobCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  auto width = RangeArg(ctx, 2, 1, static_cast<int64_t>(kMaxBlockKeyBytes),
                        "ERR width must be between 1 and 1024 bytes");
  if (!width) return;
  std::string_view blob = ctx.arg(3);
  const size_t w = static_cast<size_t>(*width);
  if (blob.empty() || blob.size() % w != 0) {
    return ctx.rb().Error("ERR blob length must be a positive multiple of width");
  }
  std::shared_ptr<PromptCache> cache;
  if (!FindUnlocked(ctx, key, true, &cache)) return;
  if (cache == nullptr) {
    return ctx.rb().Integer(0);
  }
  // In slices of 8,192 keys, each under the namespace's mutex once (as LONGEST's
  // arguments): a blob of millions of tiny keys does not hold up its other clients for
  // the whole walk. No view per key is built.
  constexpr size_t kSlice = 8192;
  const size_t total = blob.size() / w;
  size_t n = 0;
  for (size_t from = 0; from < total; from += kSlice) {
    const size_t count = std::min(total - from, kSlice);
    size_t got;
    {
      OutsideLock outside;
      got = cache->LongestPacked(blob.substr(from * w, count * w), w, AiNowMs(ctx));
    }
    n += got;
    if (got < count) {
      break;
    }
  }
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// PCACHE.GET ns key / PCACHE.MGET ns key [key ...]
void GetValues(CommandContext& ctx, bool multi) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<PromptCache> cache;
  if (!FindUnlocked(ctx, key, true, &cache)) return;
  std::vector<BlockValue> values;
  if (cache != nullptr) {
    std::span<const std::string_view> keys = KeysFrom(ctx, 2);
    OutsideLock outside;
    cache->Get(keys, AiNowMs(ctx), &values);
  } else {
    values.resize(ctx.argc() - 2);
  }
  // No lock held: the values are immutable and ours through their shared_ptrs.
  ReplyBuilder& rb = ctx.rb();
  if (multi) {
    rb.Array(values.size());
  }
  for (const BlockValue& v : values) {
    // Large values go out from the stored bytes (no copy); the reference held by the
    // reply keeps them alive until sent, even if the block is deleted or replaced.
    v ? rb.BulkRef(v, *v) : rb.Null();
  }
}

void GetCommand(CommandContext& ctx) { GetValues(ctx, false); }
void MgetCommand(CommandContext& ctx) { GetValues(ctx, true); }

// PCACHE.DEL ns key [key ...] -> blocks removed, descendants included.
void DelCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<PromptCache> cache;
  if (!FindUnlocked(ctx, key, false, &cache)) return;
  if (cache == nullptr) {
    return ctx.rb().Integer(0);
  }
  std::span<const std::string_view> keys = KeysFrom(ctx, 2);
  size_t n;
  {
    OutsideLock outside;
    n = cache->Delete(keys, AiNowMs(ctx), Recorder(ctx, key));
  }
  if (n > 0) {
    FinishWrite(ctx, key, "pcache.del");
  }
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// PCACHE.INFO ns -> a map of the options and counters.
void InfoCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::shared_ptr<PromptCache> cache = CacheOrReply(ctx, key, true);
  if (cache == nullptr) return;
  const PromptCacheOptions o = cache->options();
  const PromptCache::Stats s = cache->GetStats();
  ReplyBuilder& rb = ctx.rb();
  rb.Map(9);
  rb.Bulk("blocks");
  rb.Integer(static_cast<int64_t>(s.blocks));
  rb.Bulk("bytes");
  rb.Integer(static_cast<int64_t>(s.bytes));
  rb.Bulk("budget");
  rb.Integer(static_cast<int64_t>(o.budget_bytes));
  rb.Bulk("ttl");
  rb.Integer(o.ttl_ms / 1000);
  rb.Bulk("hits");
  rb.Integer(static_cast<int64_t>(s.hits));
  rb.Bulk("misses");
  rb.Integer(static_cast<int64_t>(s.misses));
  rb.Bulk("evictions");
  rb.Integer(static_cast<int64_t>(s.evictions));
  rb.Bulk("expirations");
  rb.Integer(static_cast<int64_t>(s.expirations));
  rb.Bulk("memory");
  rb.Integer(static_cast<int64_t>(s.memory));
}

}  // namespace

void RegisterPcacheCommands(CommandTable& t) {
  RegisterExtensionType(&PcacheType());
  t.Add({.name = "pcache.create", .arity = -2, .flags = "write denyoom", .acl = "@write @slow",
         .keys = {KeyAt(1, "OW INSERT")}, .handler = CreateCommand,
         .doc = {"pcache", "0.1.0", "O(1)",
                 "Creates an empty prompt-cache namespace (byte budget, default block TTL) under a new key.",
                 "key [BUDGET bytes] [TTL seconds]"}});
  t.Add({.name = "pcache.config", .arity = -4, .flags = "write", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = ConfigCommand,
         .doc = {"pcache", "0.1.0", "O(1), plus the evictions a lower budget makes.",
                 "Changes a prompt-cache namespace's byte budget or default block TTL.",
                 "key [BUDGET bytes] [TTL seconds]"}});
  t.Add({.name = "pcache.put", .arity = -4, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = PutCommand,
         .doc = {"pcache", "0.1.0", "O(1), plus the evictions the budget needs.",
                 "Stores a block's value under its key, optionally as the child of a parent block.",
                 "key block value [PARENT parent] [TTL seconds] [PXAT unix-time-milliseconds]"}});
  t.Add({.name = "pcache.puttokens", .arity = -7, .flags = "write denyoom self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW INSERT")}, .handler = PutTokensCommand,
         .doc = {"pcache", "0.1.0", "O(N) where N is the number of tokens.",
                 "Hashes token blocks into a chain of block keys (XXH3-128 of the parent key and the block's tokens), stores one value per block and returns the keys.",
                 "key [PARENT parent] [TTL seconds] TOKENS blob BLOCK n value [value ...]"}});
  t.Add({.name = "pcache.longest", .arity = -3, .flags = "readonly self_locking", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = LongestCommand,
         .doc = {"pcache", "0.1.0", "O(N) where N is the number of keys given.",
                 "Returns how many of the given block keys, from the first, are present.",
                 "key block [block ...]"}});
  t.Add({.name = "pcache.longestblob", .arity = 4, .flags = "readonly self_locking", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = LongestBlobCommand,
         .doc = {"pcache", "0.1.0", "O(N) where N is the number of keys in the blob.",
                 "Returns how many of the fixed-width block keys packed in a blob, from the first, are present.",
                 "key width blob"}});
  t.Add({.name = "pcache.get", .arity = 3, .flags = "readonly self_locking", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetCommand,
         .doc = {"pcache", "0.1.0", "O(1)", "Returns a block's value, or nil.", "key block"}});
  t.Add({.name = "pcache.mget", .arity = -3, .flags = "readonly self_locking", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = MgetCommand,
         .doc = {"pcache", "0.1.0", "O(N) where N is the number of keys given.",
                 "Returns the values of blocks (nil for absent ones).", "key block [block ...]"}});
  t.Add({.name = "pcache.del", .arity = -3, .flags = "write self_locking", .acl = "@write @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = DelCommand,
         .doc = {"pcache", "0.1.0", "O(N) where N is the number of blocks removed.",
                 "Removes blocks and their descendants; returns how many blocks were removed.",
                 "key block [block ...]"}});
  t.Add({.name = "pcache.info", .arity = 2, .flags = "readonly fast", .acl = "@read @fast",
         .keys = {KeyAt(1, "RO")}, .handler = InfoCommand,
         .doc = {"pcache", "0.1.0", "O(1)",
                 "Returns a prompt-cache namespace's budget, TTL and counters: blocks, bytes, hits, misses, evictions, expirations, memory.",
                 "key"}});
}

}  // namespace hotkv::ai
